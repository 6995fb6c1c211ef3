"""Maze task sources: the fixed double-T maze's start cells, or generated mazes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from agentgym_envs.core import Task, TaskSource
from agentgym_envs.envs.maze.layouts import (
    DOUBLE_T,
    DOUBLE_T_GOAL,
    double_t_starts,
    perfect_maze,
    shortest_path,
)
from agentgym_envs.errors import BadTaskError
from agentgym_envs.spec import env_info, family_record


@dataclass(frozen=True)
class MazeTask(Task):
    """A grid (1 = wall), a start cell and a goal cell, as (row, column)."""

    grid: np.ndarray = field(compare=False, repr=False)
    start: tuple[int, int] = (0, 0)
    goal: tuple[int, int] = (0, 0)


class DoubleTMazeTasks(TaskSource):
    """LMRL-Gym's double-T maze; task ``i`` starts at AgentGym's ``game`` ``i`` (its order).

    AgentGym's server lists a 26th start, the goal cell itself; resetting it fails there
    (``{"error": ""}``), so item 25 is not a task here and asking for it is a one-line error.
    Train and test hold the same 25 starts: AgentGym has no other maze data (AgentEval's 25
    test items are these 25 starts). AgentGym's server indexes its list with Python, so
    ``game`` -26..-1 plays start 0..25 too (-1 is the goal cell's entry).
    """

    item_prefix = family_record("maze").item_prefix
    #: AgentGym's index of its goal-cell entry, which its server cannot reset.
    GOAL_ITEM = 25

    def __init__(self) -> None:
        self._starts = double_t_starts()

    def size(self, split: str) -> int:
        return len(self._starts) if split in ("train", "test") else 0

    def _load(self, split: str, task_id: int) -> MazeTask:
        return MazeTask(
            task_id, split, grid=DOUBLE_T, start=self._starts[task_id], goal=DOUBLE_T_GOAL
        )

    def agentgym_index(self, split: str, task_id: int) -> int:
        return task_id

    def locate(self, index: int) -> tuple[str, int]:
        if -self.GOAL_ITEM - 1 <= index < 0:  # AgentGym indexes its Python list: -1 is its last
            index += self.GOAL_ITEM + 1
        if index == self.GOAL_ITEM:
            raise BadTaskError(
                f"maze item {index} is AgentGym's start at the goal cell {DOUBLE_T_GOAL}, which "
                f"its server cannot reset (it answers an error): use 0..{len(self._starts) - 1}"
            )
        if not 0 <= index < len(self._starts):
            raise BadTaskError(f"maze item {index} does not exist: use 0..{len(self._starts) - 1}")
        return "test", index


class RandomMazeTasks(TaskSource):
    """Seeded perfect mazes of ``rows`` x ``cols`` rooms; start and goal at least
    ``min_distance`` moves apart. Train and test draw from disjoint seed ranges."""

    item_prefix = env_info("MazeRandom-v0").item_prefix
    _SEED_BASE: ClassVar[dict[str, int]] = {"train": 1_000_000, "test": 0}

    def __init__(
        self,
        rows: int = 4,
        cols: int = 4,
        train_size: int = 10_000,
        test_size: int = 100,
        min_distance: int = 6,
    ) -> None:
        if rows < 2 or cols < 2:
            raise ValueError(f"maze size {rows}x{cols} is too small: use at least 2x2 rooms")
        self.rows, self.cols, self.min_distance = rows, cols, min_distance
        self._sizes = {"train": train_size, "test": test_size}

    def size(self, split: str) -> int:
        return self._sizes.get(split, 0)

    def _load(self, split: str, task_id: int) -> MazeTask:
        rng = np.random.default_rng(self._SEED_BASE[split] + task_id)
        grid = perfect_maze(self.rows, self.cols, rng)
        rooms = [(2 * r + 1, 2 * c + 1) for r in range(self.rows) for c in range(self.cols)]
        need = min(self.min_distance, 2 * (self.rows + self.cols - 2))
        while True:
            start, goal = (rooms[i] for i in rng.choice(len(rooms), size=2, replace=False))
            if len(shortest_path(grid, start, goal)) - 1 >= need:
                return MazeTask(task_id, split, grid=grid, start=start, goal=goal)
