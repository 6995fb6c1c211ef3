"""The WebShop environment."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agentgym_envs.core import StepResult, TextEnv
from agentgym_envs.envs.webshop.catalog import (
    DEFAULT_NUM_PRODUCTS,
    DEFAULT_SEED,
    Catalog,
    generated_catalog,
    original_catalog,
)
from agentgym_envs.envs.webshop.reward import spacy_nouns, title_nouns
from agentgym_envs.envs.webshop.shop import DONE, SEARCH, Shop
from agentgym_envs.envs.webshop.tasks import (
    GeneratedWebShopTasks,
    Goal,
    OriginalWebShopTasks,
    WebShopTask,
)
from agentgym_envs.errors import BadDataError, require
from agentgym_envs.tools.tool import Tool, Toolkit, param, schema

_RANDOM_WORDS = 4
#: Most work (count of '[' x length of the action's line) the ``name[arg]`` parse may take:
#: a 16,384-character line may hold 120 brackets, an ordinary action any number it needs.
MAX_PARSE_WORK = 2_000_000


class WebShopEnv(TextEnv):
    """Shop in a web store for the product an instruction describes, then buy it.

    ## Description
    AgentGym's WebShop (Princeton's WebShop in its text mode) without Java, Lucene, spaCy or
    Google-Drive data. A seeded catalog in WebShop's product schema (five categories: beauty,
    food, fashion, furniture, electronics; many near duplicates and partial-match distractors)
    is built once per process and shared by every env; BM25 (bm25s) searches it as WebShop's
    Lucene index does (title, description, first bullet, options; top 50, 10 per page). With
    ``data_path`` the env loads WebShop's own product and attribute files instead, and orders
    the goals as AgentGym does, so train task ``N`` is AgentGym's ``webshop_N``.

    ## Action Space
    ``search[keywords]`` (accepted on any page, as in WebShop) and ``click[value]`` where value
    is one of the page's clickables (case-insensitive, e.g. ``click[Buy Now]``,
    ``click[b09abc1234]``, ``click[x-large]``). ``click[search]`` and anything else leave the
    page unchanged (``info["error"]`` says why).

    ## Observation Space
    The page's visible strings joined by ``" [SEP] "``, as AgentGym shows them:
    ``WebShop [SEP] Instruction: [SEP] Find me ... [SEP] Search``; results pages
    ``... [SEP] Back to Search [SEP] Page 1 (Total results: 50) [SEP] Next > [SEP] B0... [SEP]
    <title> [SEP] $19.99 ...``; item pages list option groups and values, the title, price,
    ``Rating: N.A.``, ``Description``, ``Features``, ``Reviews`` and ``Buy Now``.

    ## Starting State
    The search page with the task's instruction.

    ## Rewards
    0 until ``click[Buy Now]``; then WebShop's score in [0, 1]:
    ``r_type * (attribute hits + option hits + price ok) / (attributes + options + 1)``
    with its fuzzy matching (see :mod:`agentgym_envs.envs.webshop.reward`).

    ## Episode End
    Terminated at ``Buy Now``. AgentGym's max rounds is 10 (a wrapper's turn limit).

    ## Information
    ``available_actions`` (``search[<keywords>]`` where the page has a search bar, then
    ``click[...]`` for every clickable), ``has_search_bar`` and ``clickables`` (AgentGym's
    ``/available_actions``), ``page``, ``success`` (score 1.0), ``score``; after a purchase
    ``purchased`` (asin, options) and ``reward_info`` (WebShop's verbose reward parts).

    ## Arguments
    ``num_products`` (default 10,000, up to 100,000) and ``catalog_seed`` for the generated
    catalog; ``data_path``: a folder with WebShop's ``items_shuffle_1000.json`` and
    ``items_ins_v2_1000.json`` (or the full files) to use the real data; ``test_items``: the
    AgentGym indexes of the test split with real data (default the first 200 goals);
    ``title_nouns``: ``"lexicon"`` (default) or a spaCy model name such as ``"en_core_web_lg"``
    for the type reward's noun tagging.

    ## Version History
    v0: initial release.
    """

    family = "webshop"

    def __init__(
        self,
        num_products: int = DEFAULT_NUM_PRODUCTS,
        catalog_seed: int = DEFAULT_SEED,
        data_path: str | Path | None = None,
        test_items: Sequence[int] | str | Path | None = None,
        title_nouns: str = "lexicon",
        render_mode: str | None = None,
    ) -> None:
        for module in ("bm25s", "Stemmer", "thefuzz"):
            require(module, "webshop")
        self._nouns_name = title_nouns
        nouns = _nouns(title_nouns)
        if data_path:
            self.catalog: Catalog = original_catalog(
                str(data_path),
                None if num_products == DEFAULT_NUM_PRODUCTS else num_products,
                catalog_seed,
            )
            tasks = OriginalWebShopTasks(self.catalog, _read_test_items(test_items))
        else:
            self.catalog = generated_catalog(num_products, catalog_seed)
            tasks = GeneratedWebShopTasks(self.catalog, seed=catalog_seed, nouns=nouns)
        super().__init__(tasks, render_mode=render_mode)
        self.nouns = nouns
        self.shop: Shop | None = None

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state.pop("nouns", None)
        if state.get("shop") is not None:
            shop = state["shop"] = _copy_shop(state["shop"])
            shop.nouns = None
        if isinstance(state.get("tasks"), GeneratedWebShopTasks):
            state["tasks"] = _copy_tasks(state["tasks"])
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.nouns = _nouns(self._nouns_name)
        if self.shop is not None:
            self.shop.nouns = self.nouns
        if isinstance(self.tasks, GeneratedWebShopTasks):
            self.tasks.nouns = self.nouns

    @property
    def goal(self) -> Goal:
        assert self.task is not None, "call reset() first"
        return self.task.goal  # type: ignore[attr-defined]

    # -- AgentGym's extra server endpoints (``agentgym serve`` answers them from these) ------
    def instruction_text(self) -> str:
        """AgentGym's ``/instruction_text``: ``Instruction: <the goal's instruction>``."""
        return "Instruction: " + self.goal.instruction_text

    def state(self) -> dict[str, str]:
        """AgentGym's ``/state``: the page's URL and HTML (as the package's shop web app renders
        them) and the instruction."""
        from agentgym_envs.envs.webshop.web import render_html

        assert self.shop is not None, "call reset() first"
        sid = self.item_id
        html = render_html(self.shop.elements(), sid, self.shop.state.options)
        return {"url": f"/session/{sid}", "html": html, "instruction_text": self.instruction_text()}

    def _begin(self, task: WebShopTask) -> tuple[str, dict[str, Any]]:
        self.shop = Shop(self.catalog, task.goal, code=self.item_id, nouns=self.nouns)
        return self.shop.observation(), self._page_info()

    def _page_info(self) -> dict[str, Any]:
        assert self.shop is not None
        avail = self.shop.available_actions()
        return {"page": self.shop.state.page, **avail}

    def _act(self, action: str) -> StepResult:
        assert self.shop is not None
        line = action.strip().split("\n", 1)[0]
        if line.count("[") * len(line) > MAX_PARSE_WORK and self.shop.state.page != DONE:
            # WebShop's greedy ``name[arg]`` regex backtracks once per '[' over the whole line
            error = (
                f"the action has {line.count('[')} '[' in {len(line)} characters: "
                f"above the limit of {MAX_PARSE_WORK} parse steps (the page is unchanged)"
            )
            return StepResult(self.shop.observation(), 0.0, False, error, self._page_info())
        outcome = self.shop.step(action)
        info = self._page_info()
        if outcome.done and self.shop.reward_info is not None:
            self.score = float(outcome.reward)
            self.success = self.score == 1.0
            info["purchased"] = {
                "asin": self.shop.state.asin,
                "options": dict(self.shop.state.options),
            }
            info["reward_info"] = self.shop.reward_info.as_dict()
        return StepResult(
            self.shop.observation(), outcome.reward, outcome.done, outcome.error, info
        )

    def available_actions(self) -> list[str] | None:
        if self.shop is None:
            return None
        out = ["search[<keywords>]"] if self.shop.has_search_bar() else []
        return out + [f"click[{c}]" for c in self.shop.clickables() if c != "search"]

    def random_action(self, rng: np.random.Generator) -> str:
        """A random search (words of the instruction) on the search page, else a random click."""
        assert self.shop is not None
        clicks = [c for c in self.shop.clickables() if c != "search"]
        if self.shop.state.page == SEARCH or not clicks:
            words = self.goal.instruction_text.replace(",", " ").split()
            picked = rng.choice(words, size=min(_RANDOM_WORDS, len(words)), replace=False)
            return f"search[{' '.join(str(w) for w in picked)}]"
        return f"click[{clicks[int(rng.integers(len(clicks)))]}]"

    def instructions(self) -> str:
        return (
            "You are web shopping. I will give you instructions about what to do. You have to follow "
            "the instructions. Every round I will give you an observation of the current web page "
            "(its visible texts separated by [SEP]), and you answer with one action. You can use the "
            "search action if a search bar is available, and you can click one of the buttons, "
            "product ids or option values on the page. An action has one of these forms:\n"
            "search[keywords]\nclick[value]\n"
            "If the action is not valid, nothing happens. Keywords in search are up to you, but the "
            "value in click must be a value shown on the page (case does not matter).\n"
            "Example: search[machine wash men's shorts elastic waist], then click[B09QGZVD8R] to open "
            "a product, click[x-large] to choose a size, and click[Buy Now] to buy it. Your score is "
            "how well the product, the chosen options and the price match the instruction."
        )

    def tool_schemas(self) -> list[dict[str, Any]]:
        keywords = param("string", "search keywords")
        value = param(
            "string", "the clickable's text, e.g. 'Buy Now', 'Next >', 'B0ABC12345', 'x-large'"
        )
        tools = [
            Tool("search", "Search the shop for products.", parameters=schema(keywords=keywords)),
            Tool(
                "click",
                "Click a button, a product id or an option value shown on the page.",
                parameters=schema(value=value),
            ),
        ]
        return Toolkit(tools).openai_schemas()

    def action_from_tool_call(self, name: str, arguments: dict[str, Any]) -> str:
        if name == "search":
            return f"search[{arguments['keywords']}]"
        if name == "click":
            return f"click[{arguments['value']}]"
        raise ValueError(f"unknown tool {name!r}: use 'search' or 'click'")


def _nouns(name: str) -> Callable[[str], list[str]]:
    if name in ("lexicon", "", None):
        return title_nouns
    return spacy_nouns(name)


def _copy_shop(shop: Shop) -> Shop:
    clone = Shop.__new__(Shop)
    clone.__dict__.update(shop.__dict__)
    return clone


def _copy_tasks(tasks: GeneratedWebShopTasks) -> GeneratedWebShopTasks:
    clone = GeneratedWebShopTasks.__new__(GeneratedWebShopTasks)
    clone.__dict__.update(tasks.__dict__)
    clone.nouns = None  # type: ignore[assignment]
    return clone


def _read_test_items(test_items: Sequence[int] | str | Path | None) -> list[int] | None:
    """Test item indexes from a list, or from an AgentEval file (``[{"item_id": "webshop_5238"}, ...]``)."""
    if test_items is None or isinstance(test_items, (list, tuple)):
        return None if test_items is None else [int(i) for i in test_items]
    path = Path(test_items).expanduser()
    try:
        records = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise BadDataError(
            f"cannot read test items from {str(path)!r} ({exc}): pass AgentEval's webshop_test.json"
        ) from None
    return [int(str(r["item_id"]).rsplit("_", 1)[-1]) for r in records]
