"""ScienceWorld's tasks, indexed as AgentGym indexes them, and clean train/test splits.

AgentGym's SciWorld server numbers items (``sciworld_<data_idx>``) by walking ScienceWorld's
tasks in ``tasks.json`` order, skipping seven long or stochastic tasks, and listing variations
``0 .. max - 1`` of each: 4,639 items with scienceworld 1.2.3. The table below freezes that
enumeration (no JVM is started to build it); a test checks it against the installed package.

Three task sources:

* ``clean`` (default): train = ScienceWorld's own *train* variations of AgentGym's 23 tasks;
  test = 200 of ScienceWorld's *test* variations, spread over the 23 tasks. No variation is in
  both (AgentGym's own test ids overlap its training data, its issue #49).
* ``agentgym``: train task id N *is* AgentGym's item ``sciworld_N`` (all 4,639 items);
  test = the same 200 clean test tasks.
* ``agentgym_fixed``: as ``agentgym`` without task 2-3, the enumeration AgentTraj-L's
  trajectory ids actually follow (4,339 items; AgentGym issue #49).
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from agentgym_envs.core import Task, TaskSource
from agentgym_envs.errors import BadTaskError
from agentgym_envs.spec import family_record

#: ScienceWorld's tasks in ``tasks.json`` order: (id, name, variations in scienceworld 1.2.3).
SCIWORLD_TASKS: tuple[tuple[str, str, int], ...] = (
    ("1-1", "boil", 30),
    ("1-2", "melt", 30),
    ("1-3", "freeze", 30),
    ("1-4", "change-the-state-of-matter-of", 30),
    ("2-1", "use-thermometer", 540),
    ("2-2", "measure-melting-point-known-substance", 436),
    ("2-3", "measure-melting-point-unknown-substance", 300),
    ("3-1", "power-component", 20),
    ("3-2", "power-component-renewable-vs-nonrenewable-energy", 20),
    ("3-3", "test-conductivity", 900),
    ("3-4", "test-conductivity-of-unknown-substances", 600),
    ("4-1", "find-living-thing", 300),
    ("4-2", "find-non-living-thing", 300),
    ("4-3", "find-plant", 300),
    ("4-4", "find-animal", 300),
    ("5-1", "grow-plant", 126),
    ("5-2", "grow-fruit", 126),
    ("6-1", "chemistry-mix", 32),
    ("6-2", "chemistry-mix-paint-secondary-color", 36),
    ("6-3", "chemistry-mix-paint-tertiary-color", 36),
    ("7-1", "lifespan-longest-lived", 125),
    ("7-2", "lifespan-shortest-lived", 125),
    ("7-3", "lifespan-longest-lived-then-shortest-lived", 125),
    ("8-1", "identify-life-stages-1", 14),
    ("8-2", "identify-life-stages-2", 10),
    ("9-1", "inclined-plane-determine-angle", 168),
    ("9-2", "inclined-plane-friction-named-surfaces", 1386),
    ("9-3", "inclined-plane-friction-unnamed-surfaces", 162),
    ("10-1", "mendelian-genetics-known-plant", 120),
    ("10-2", "mendelian-genetics-unknown-plant", 480),
)
#: Tasks AgentGym's server leaves out of its enumeration.
AGENTGYM_EXCLUDED = frozenset({"5-1", "5-2", "9-1", "9-2", "9-3", "10-1", "10-2"})
#: Also left out by the enumeration AgentTraj-L's ids follow (AgentGym issue #49).
AGENTGYM_FIXED_EXCLUDED = AGENTGYM_EXCLUDED | {"2-3"}
TEST_SIZE = 200  # AgentEval's SciWorld split
INDEXES = ("clean", "agentgym", "agentgym_fixed")

MAX_VARIATIONS = {name: n for _, name, n in SCIWORLD_TASKS}


@dataclass(frozen=True)
class SciWorldTask(Task):
    """One ScienceWorld task variation."""

    task_name: str
    variation: int


def agentgym_items(excluded: frozenset[str] = AGENTGYM_EXCLUDED) -> tuple[tuple[str, int], ...]:
    """AgentGym's flat item list: ``(task name, variation)`` for every ``data_idx``."""
    return _items(excluded)


@lru_cache(maxsize=4)
def _items(excluded: frozenset[str]) -> tuple[tuple[str, int], ...]:
    return tuple(
        (name, var) for tid, name, n in SCIWORLD_TASKS if tid not in excluded for var in range(n)
    )


@lru_cache(maxsize=4)
def _item_index(excluded: frozenset[str]) -> dict[tuple[str, int], int]:
    return {item: i for i, item in enumerate(_items(excluded))}


def variation_sets(n: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """ScienceWorld's (train, dev, test) variations of a task with ``n`` variations.

    The simulator's ``getSets``: 50/25/25 in contiguous blocks of ``n // 4``, the remainder
    block joining test; small tasks (n <= 4) have fixed special cases.
    """
    special = {
        0: ((), (), ()),
        1: ((0,), (), (0,)),
        2: ((0,), (), (1,)),
        3: ((0,), (1,), (2,)),
        4: ((0, 1), (2,), (3,)),
    }
    if n in special:
        return special[n]
    size = n // 4
    groups = [tuple(range(i, min(i + size, n))) for i in range(0, n, size)]
    test = groups[3] + (groups[4] if len(groups) > 4 else ())
    return groups[0] + groups[1], groups[2], test


def agentgym_task_names() -> list[str]:
    """The 23 task names AgentGym plays, in ``tasks.json`` order."""
    return [name for tid, name, _ in SCIWORLD_TASKS if tid not in AGENTGYM_EXCLUDED]


@lru_cache(maxsize=1)
def gold_data() -> dict[str, Any]:
    """The project-generated data file: the clean test split and cached gold action sequences.

    ``scripts/gen_sciworld_gold.py`` writes it (``data/gold.json.gz``).
    """
    path = resources.files("agentgym_envs.envs.sciworld").joinpath("data", "gold.json.gz")
    with path.open("rb") as fh:
        return json.loads(gzip.decompress(fh.read()).decode("utf-8"))


def clean_train_items() -> tuple[tuple[str, int], ...]:
    """ScienceWorld's train variations of AgentGym's 23 tasks, task by task."""
    return tuple(
        (name, var)
        for name in agentgym_task_names()
        for var in variation_sets(MAX_VARIATIONS[name])[0]
    )


def clean_test_items() -> tuple[tuple[str, int], ...]:
    """The 200 clean test tasks (ScienceWorld test variations), as frozen in the data file."""
    return tuple((name, int(var)) for name, var in gold_data()["test"])


class SciWorldTasks(TaskSource):
    """ScienceWorld task variations; ``index`` picks the numbering (see the module docstring)."""

    item_prefix = family_record("sciworld").item_prefix

    def __init__(self, index: str = "clean") -> None:
        if index not in INDEXES:
            raise BadTaskError(f"unknown SciWorld index {index!r}: use one of {', '.join(INDEXES)}")
        self.index = index
        self._excluded = AGENTGYM_FIXED_EXCLUDED if index == "agentgym_fixed" else AGENTGYM_EXCLUDED
        test = clean_test_items()
        train = clean_train_items() if index == "clean" else agentgym_items(self._excluded)
        self._split = {"train": train, "test": test}
        self._where = {
            split: {item: i for i, item in enumerate(items)} for split, items in self._split.items()
        }

    def size(self, split: str) -> int:
        return len(self._split.get(split, ()))

    def _load(self, split: str, task_id: int) -> SciWorldTask:
        name, var = self._split[split][task_id]
        return SciWorldTask(task_id, split, name, var)

    def item(self, split: str, task_id: int) -> tuple[str, int]:
        """``(task name, variation)`` of a task id."""
        task = self.get(split, task_id)
        assert isinstance(task, SciWorldTask)
        return task.task_name, task.variation

    def agentgym_index(self, split: str, task_id: int) -> int:
        """AgentGym's ``data_idx`` of the task (its AgentEval id is ``sciworld_<data_idx>``)."""
        item = self._split[split][task_id]
        index = _item_index(self._excluded).get(item)
        if index is None:  # only for 2-3 under agentgym_fixed
            raise BadTaskError(
                f"{item[0]} variation {item[1]} has no item id in the {self.index!r} index: "
                "use index='agentgym'"
            )
        return index

    def locate(self, index: int) -> tuple[str, int]:
        """``(split, task_id)`` of AgentGym's item ``sciworld_<index>`` in this source; a
        negative index counts from the end, as in AgentGym's server."""
        items = _items(self._excluded)
        if -len(items) <= index < 0:  # AgentGym indexes its Python list: -1 is its last item
            index += len(items)
        if not 0 <= index < len(items):
            raise BadTaskError(
                f"SciWorld item index {index} is outside 0..{len(items) - 1} of the {self.index!r} "
                f"index (or -{len(items)}..-1, counted from the end)"
            )
        if self.index != "clean":
            return "train", index
        item = items[index]
        for split in ("test", "train"):
            if item in self._where[split]:
                return split, self._where[split][item]
        raise BadTaskError(
            f"sciworld_{index} ({item[0]} variation {item[1]}) is a ScienceWorld dev/test variation "
            "outside the clean splits: make the env with index='agentgym' to play it"
        )


__all__ = [
    "AGENTGYM_EXCLUDED",
    "AGENTGYM_FIXED_EXCLUDED",
    "INDEXES",
    "MAX_VARIATIONS",
    "SCIWORLD_TASKS",
    "TEST_SIZE",
    "SciWorldTask",
    "SciWorldTasks",
    "agentgym_items",
    "agentgym_task_names",
    "clean_test_items",
    "clean_train_items",
    "gold_data",
    "variation_sets",
]
