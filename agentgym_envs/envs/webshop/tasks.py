"""WebShop goals and task sources: generated from the synthetic catalog, or WebShop's own.

A goal is WebShop's goal record: the target product's ``asin``, ``query``, ``name`` (its title),
``product_category``, the instruction text, the goal ``attributes``, ``goal_options`` and
``price_upper``. Instructions are phrased as WebShop's synthetic goals phrase them::

    Find me <pre attrs> <category leaf> with <with attrs> for <for attrs>
        with <option>: <value>, and <option>: <value>, and price lower than <P>.00 dollars

* :class:`GeneratedWebShopTasks`: goals drawn from the generated catalog. Test targets and
  train targets are different products. Every goal is checked on creation: buying its target
  with its options scores 1.0 (WebShop's own data has goals that cannot, see reward quirks).
* :class:`OriginalWebShopTasks`: WebShop's synthetic goals from its data files, built and
  ordered as AgentGym's server does (``random.seed(233)`` for price bounds, then
  ``random.seed(233); random.shuffle(goals)``), so task ``N`` of the train split is AgentGym's
  ``webshop_N``.
"""

from __future__ import annotations

import itertools
import logging
import random
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentgym_envs.core import Task, TaskSource
from agentgym_envs.envs.webshop import vocab
from agentgym_envs.envs.webshop.catalog import Catalog, Product
from agentgym_envs.envs.webshop.reward import get_reward, price_threshold, title_nouns
from agentgym_envs.errors import BadDataError, BadTaskError
from agentgym_envs.spec import family_record

logger = logging.getLogger(__name__)

TEST_SIZE = 200  # AgentEval's WebShop split
TRAIN_SIZE = 6_000
AGENTGYM_SHUFFLE_SEED = 233


@dataclass(frozen=True)
class Goal:
    """WebShop's goal record (``web_agent_site/engine/goal.py``)."""

    asin: str
    category: str
    query: str
    name: str
    product_category: str
    instruction_text: str
    attributes: tuple[str, ...]
    price_upper: float
    goal_options: Mapping[str, str] | tuple[str, ...] = field(default_factory=dict)
    weight: float = 1.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "asin": self.asin,
            "category": self.category,
            "query": self.query,
            "name": self.name,
            "product_category": self.product_category,
            "instruction_text": self.instruction_text,
            "attributes": list(self.attributes),
            "price_upper": self.price_upper,
            "goal_options": dict(self.goal_options)
            if isinstance(self.goal_options, Mapping)
            else list(self.goal_options),
            "weight": self.weight,
        }


@dataclass(frozen=True)
class WebShopTask(Task):
    goal: Goal


def option_phrase(goal_options: Mapping[str, str]) -> str:
    text = ", and ".join(f"{k}: {v}" for k, v in goal_options.items())
    return f" with {text}" if text else ""


_TYPES_BY_QUERY = {t.query: t for t in vocab.TYPES}


def instruction_for(product: Product, attributes: Sequence[str]) -> str:
    """``Find me <pre> <leaf> with <with> for <for>`` for a generated product's attributes."""
    ptype = _TYPES_BY_QUERY[product.query]
    pre = [a for a in attributes if a in ptype.pre]
    with_ = [a for a in attributes if a in ptype.with_ and a not in pre]
    for_ = [a for a in attributes if a not in pre and a not in with_]
    text = "Find me " + (", ".join(pre) + " " if pre else "") + ptype.leaf
    if with_:
        text += " with " + ", ".join(with_)
    if for_:
        text += " for " + ", ".join(for_)
    return text


def make_goal(
    product: Product, rng: random.Random, nouns: Callable[[str], list[str]] = title_nouns
) -> Goal | None:
    """A goal for ``product`` (2-3 of its attributes, one value per option, a price bound), or
    ``None`` when buying the product itself would not score 1.0 (a reward quirk bites)."""
    k = min(len(product.attributes), rng.choice((2, 2, 3)))
    chosen = set(rng.sample(product.attributes, k))
    attributes = tuple(a for a in product.attributes if a in chosen)
    goal_options = {name: rng.choice(product.options[name]) for name in sorted(product.options)}
    upper, price_text = price_threshold(product.price, rng)
    goal = Goal(
        asin=product.asin,
        category=product.category,
        query=product.query,
        name=product.title,
        product_category=product.product_category,
        instruction_text=instruction_for(product, attributes)
        + option_phrase(goal_options)
        + price_text,
        attributes=attributes,
        price_upper=upper,
        goal_options=goal_options,
    )
    if get_reward(product, goal, product.price, goal_options, nouns).reward != 1.0:
        return None
    return goal


class GeneratedWebShopTasks(TaskSource):
    """Goals over the generated catalog: test 200, train 6,000 by default.

    Every 50th product (offset 7) is a test target, the others train targets, so no test target
    is ever a train target. Task ``i`` of a split draws its target and goal from a generator
    seeded with the catalog seed, the split and ``i``.
    """

    item_prefix = family_record("webshop").item_prefix

    def __init__(
        self,
        catalog: Catalog,
        seed: int = 0,
        train_size: int = TRAIN_SIZE,
        test_size: int = TEST_SIZE,
        nouns: Callable[[str], list[str]] = title_nouns,
    ) -> None:
        self.catalog = catalog
        self.seed = seed
        self.nouns = nouns
        self._sizes = {"train": int(train_size), "test": int(test_size)}
        self._n = len(catalog)
        # test targets: positions 7, 57, 107, ...; train targets: every other position.
        # Computed, not listed, so an env adds no per-catalog memory.
        self._n_test_targets = (self._n - 8) // 50 + 1 if self._n > 7 else 0

    def _target(self, split: str, j: int) -> int:
        if self._n_test_targets == 0:
            return j
        if split == "test":
            return 50 * j + 7
        block, rest = divmod(j, 49)
        return block * 50 + (rest if rest < 7 else rest + 1)

    def _pool_size(self, split: str) -> int:
        if self._n_test_targets == 0:
            return self._n
        return self._n_test_targets if split == "test" else self._n - self._n_test_targets

    def size(self, split: str) -> int:
        return self._sizes.get(split, 0)

    def _load(self, split: str, task_id: int) -> WebShopTask:
        rng = random.Random(f"webshop-goal-{self.seed}-{split}-{task_id}")
        pool_size = self._pool_size(split)
        for _ in range(200):
            product = self.catalog.products[self._target(split, rng.randrange(pool_size))]
            goal = make_goal(product, rng, self.nouns)
            if goal is not None:
                return WebShopTask(task_id, split, goal)
        raise BadTaskError(
            f"no solvable goal found for {split} task {task_id}: use another seed"
        )  # pragma: no cover


# -- WebShop's own data ----------------------------------------------------------------------------
def agentgym_synthetic_goals(products: Sequence[Product]) -> list[Goal]:
    """WebShop's ``get_synthetic_goals`` as AgentGym runs it, then AgentGym's shuffle.

    Products without an instruction are skipped; one goal per combination of option values
    (option names sorted); price bounds from ``random.seed(233)``; goals shuffled with a fresh
    ``random.seed(233)``. The order matches AgentGym's exactly when product prices match:
    a range-priced product's price is a random draw (unseeded in AgentGym, seeded here).
    """
    rng = random.Random(AGENTGYM_SHUFFLE_SEED)
    goals: list[dict[str, Any]] = []
    counts: dict[str, int] = defaultdict(int)
    skipped = 0
    for product in products:
        if product.instruction is None:
            continue
        attributes = tuple(product.instruction_attributes)
        if not attributes:  # WebShop asserts here; we skip the product
            skipped += 1
            continue
        upper, price_text = price_threshold(product.price, rng)
        names = sorted(product.options)
        for combination in itertools.product(*(product.options[n] for n in names)):
            goal_options = dict(zip(names, combination))
            goals.append(
                {
                    "asin": product.asin,
                    "category": product.category,
                    "query": product.query,
                    "name": product.title,
                    "product_category": product.product_category,
                    "instruction_text": f"{product.instruction}{option_phrase(goal_options)}{price_text}",
                    "attributes": attributes,
                    "price_upper": upper,
                    "goal_options": goal_options,
                }
            )
            for a in attributes:
                counts[a] += 1
    if skipped:
        logger.warning(
            "skipped %d products whose instruction has no instruction_attributes", skipped
        )
    out = [
        Goal(**g, weight=sum(1.0 / counts[a] for a in g["attributes"]) / len(g["attributes"]))
        for g in goals
    ]
    random.Random(AGENTGYM_SHUFFLE_SEED).shuffle(out)
    return out


class OriginalWebShopTasks(TaskSource):
    """WebShop's synthetic goals in AgentGym's order.

    The train split is the whole goal list: task ``N`` is AgentGym's ``webshop_N``. The test
    split lists AgentGym item indexes: ``test_items`` (for instance the 200 ids of AgentEval's
    ``webshop_test.json``), by default the first 200 goals.
    """

    item_prefix = family_record("webshop").item_prefix
    user_data = True

    def __init__(self, catalog: Catalog, test_items: Sequence[int] | None = None) -> None:
        self.catalog = catalog
        self.goals = agentgym_synthetic_goals(catalog.products)
        if not self.goals:
            raise BadDataError(
                f"{catalog.description}: no product has an instruction in the attribute file, "
                "so there are no goals"
            )
        n = len(self.goals)
        self.test_items = tuple(
            int(i) for i in (test_items if test_items is not None else range(min(TEST_SIZE, n)))
        )
        bad = [i for i in self.test_items if not 0 <= i < n]
        if bad:
            raise BadDataError(
                f"test_items {bad[:3]} are outside 0..{n - 1} (this data has {n} goals)"
            )

    def size(self, split: str) -> int:
        return {"train": len(self.goals), "test": len(self.test_items)}.get(split, 0)

    def _load(self, split: str, task_id: int) -> WebShopTask:
        index = task_id if split == "train" else self.test_items[task_id]
        return WebShopTask(task_id, split, self.goals[index])

    def agentgym_index(self, split: str, task_id: int) -> int:
        return task_id if split == "train" else self.test_items[task_id]

    def locate(self, index: int) -> tuple[str, int]:
        if 0 <= index < len(self.goals):
            return "train", index
        raise BadTaskError(f"item index {index} is outside 0..{len(self.goals) - 1} for this data")
