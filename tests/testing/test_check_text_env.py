"""check_text_env on a user's own TextEnv instance (no registered id, no registered expert)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from agentgym_envs.core import StepResult, Task, TaskSource, TextEnv
from agentgym_envs.testing import check_text_env


@dataclass(frozen=True)
class CountTask(Task):
    target: int


class CountTasks(TaskSource):
    item_prefix = "count"

    def size(self, split: str) -> int:
        return {"train": 30, "test": 10}.get(split, 0)

    def _load(self, split: str, task_id: int) -> Task:
        return CountTask(task_id, split, target=2 + (task_id * 7 + (split == "test")) % 5)


class CountEnv(TextEnv):
    """Say ``up`` until the counter reaches the target, then ``stop``."""

    family = "user_count"

    def __init__(self, render_mode: str | None = None) -> None:
        super().__init__(CountTasks(), render_mode=render_mode)
        self.count = 0

    def _begin(self, task):
        self.count = 0
        return f"Reach {task.target}, then stop. Counter: 0.", {}

    def available_actions(self):
        return ["up", "down", "stop"]

    def _act(self, action: str) -> StepResult:
        if action not in ("up", "down", "stop"):
            return StepResult(f"Unknown action {action[:20]!r}.", error="use up, down or stop")
        if action == "stop":
            self.success = self.count == self.task.target
            self.score = 1.0 if self.success else 0.0
            return StepResult("Done.", reward=self.score, terminated=True)
        self.count += 1 if action == "up" else -1
        return StepResult(f"Counter: {self.count}.")


def count_expert(env: CountEnv):
    return lambda obs, info: "stop" if env.count >= env.task.target else "up"


def test_instance_with_expert_passes():
    report = check_text_env(CountEnv(), expert=count_expert)
    assert report.env_id == "CountEnv"
    assert all(report.expert_successes) and len(report.expert_successes) == 10
    assert report.random_mean < report.expert_mean


def test_instance_without_expert_checks_the_rest():
    report = check_text_env(CountEnv())
    assert report.expert_scores == [] and len(report.random_scores) == 10


def test_expert_that_fails_is_reported():
    with pytest.raises(AssertionError, match="expert failed test task"):
        check_text_env(CountEnv(), expert=lambda env: lambda obs, info: "stop")
