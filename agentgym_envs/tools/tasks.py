"""The task source every tool-use family shares: tasks generated from ``(split, task_id)``."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import ClassVar

from agentgym_envs.core import Task, TaskSource

MakeTask = Callable[[str, int], Task]


@lru_cache(maxsize=16384)
def _generated(make_task: MakeTask, split: str, task_id: int) -> Task:
    return make_task(split, task_id)


class GeneratedToolTasks(TaskSource):
    """Tasks built by the family's ``make_task(split, task_id)`` (deterministic, cached).

    A family subclasses this and sets ``item_prefix`` (read from its record:
    ``family_record("weather").item_prefix``), ``make_task`` (a staticmethod), ``train_size``
    and ``test_size`` (AgentEval's 20 by default).
    """

    make_task: ClassVar[MakeTask]
    train_size: ClassVar[int] = 1000
    test_size: ClassVar[int] = 20

    def __init__(self, train_size: int | None = None) -> None:
        self._sizes = {
            "train": self.train_size if train_size is None else train_size,
            "test": self.test_size,
        }

    def size(self, split: str) -> int:
        return self._sizes.get(split, 0)

    def _load(self, split: str, task_id: int) -> Task:
        return _generated(type(self).make_task, split, task_id)
