"""TextCraft's task source: AgentGym's goals in its index order, with its crafting commands."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from agentgym_envs.core import Task, TaskSource
from agentgym_envs.envs.textcraft import recipes
from agentgym_envs.envs.textcraft.crafting import NS, CraftingTree, item_id_to_str
from agentgym_envs.envs.textcraft.hashorder import ALGORITHMS
from agentgym_envs.errors import BadTaskError
from agentgym_envs.spec import family_record

#: AgentEval's TextCraft test size.
TEST_SIZE = 100


@dataclass(frozen=True)
class TextCraftTask(Task):
    """Craft ``goal`` (an id: ``minecraft:stick``); ``commands`` are the crafting commands
    shown, in AgentGym's order."""

    goal: str = ""
    depth: int = 0
    index: int = 0
    commands: tuple[str, ...] = ()

    @property
    def goal_name(self) -> str:
        return item_id_to_str(self.goal)

    def instruction(self) -> str:
        return (
            "Crafting commands:\n" + "\n".join(self.commands) + f"\n\nGoal: craft {self.goal_name}."
        )


@lru_cache(maxsize=2)
def embedded_tree(version: str = recipes.MINECRAFT_VERSION) -> CraftingTree:
    """AgentGym's crafting tree rebuilt from minecraft-data."""
    return CraftingTree(recipes.from_minecraft_data(version))


class TextCraftTasks(TaskSource):
    """AgentGym's goals (every item with a recipe: 544) in the index order of its server: item
    ``i`` crafts goal ``i % 544``. The test split is 100 goals spaced evenly along that order
    (every depth in proportion); the train split is the other 444."""

    item_prefix = family_record("textcraft").item_prefix

    def __init__(
        self,
        data_path: str | Path | None = None,
        version: str = recipes.MINECRAFT_VERSION,
        string_hash: str = "siphash13",
    ) -> None:
        if string_hash not in ALGORITHMS:
            raise BadTaskError(
                f"unknown string_hash {string_hash!r}: use one of {', '.join(ALGORITHMS)}"
            )
        self.string_hash = string_hash
        #: the user's own recipe folder, not the embedded rebuild
        self.user_data = data_path is not None
        if data_path is not None:
            self.tree = CraftingTree(recipes.from_folder(data_path))
        else:
            self.tree = embedded_tree(version)
        self.goals = self.tree.goals
        n = len(self.goals)
        test = [k * n // TEST_SIZE for k in range(TEST_SIZE)] if n > TEST_SIZE else list(range(n))
        test_set = set(test)
        self._positions = {"test": test, "train": [i for i in range(n) if i not in test_set]}
        self._where = {p: (s, t) for s, ps in self._positions.items() for t, p in enumerate(ps)}
        self._by_goal = {goal: i for i, (goal, _) in enumerate(self.goals)}
        self._cache: dict[tuple[str, int], TextCraftTask] = {}

    def size(self, split: str) -> int:
        return len(self._positions.get(split, ()))

    def agentgym_index(self, split: str, task_id: int) -> int:
        return self._positions[split][task_id]

    def locate(self, index: int) -> tuple[str, int]:
        # AgentGym's server takes ``data_idx % len(goals)``: every int, negative ones too
        return self._where[index % len(self.goals)]

    def find_goal(self, name: str) -> tuple[str, int]:
        """``(split, task_id)`` of a goal named ``oak planks``, ``oak_planks`` or
        ``minecraft:oak_planks``."""
        key = NS + str(name).strip().lower().removeprefix(NS).replace(" ", "_")
        if key not in self._by_goal:
            names = [item_id_to_str(g) for g, _ in self.goals]
            close = difflib.get_close_matches(item_id_to_str(key), names, n=3, cutoff=0.6)
            hint = (
                f"did you mean {', '.join(map(repr, close))}?"
                if close
                else "see env.unwrapped.goal_names"
            )
            raise BadTaskError(f"{name!r} is not a TextCraft goal: {hint}")
        return self._where[self._by_goal[key]]

    def _load(self, split: str, task_id: int) -> TextCraftTask:
        key = (split, task_id)
        if key not in self._cache:
            position = self._positions[split][task_id]
            goal, depth = self.goals[position]
            commands = tuple(self.tree.commands(goal, self.string_hash))
            self._cache[key] = TextCraftTask(
                task_id, split, goal=goal, depth=depth, index=position, commands=commands
            )
        return self._cache[key]
