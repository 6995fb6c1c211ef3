"""BabyAI's task source: AgentGym's global item index names a (level, seed) pair."""

from __future__ import annotations

from dataclasses import dataclass

from agentgym_envs.core import Task, TaskSource
from agentgym_envs.envs.babyai.levels import N_LEVELS, level_and_seed
from agentgym_envs.errors import BadTaskError
from agentgym_envs.spec import family_record

#: AgentEval's BabyAI test size; items 0..89 cover every level (seeds 0 and 1, seed 2 for 10).
TEST_SIZE = 90
#: 250 seeds per level in the train split's count (what a reset without ``task_id`` draws
#: from); every item index past it plays too, as on AgentGym's server.
TOTAL = N_LEVELS * 250


@dataclass(frozen=True)
class BabyAITask(Task):
    """A BabyAI level and the seed that generates its grid and mission."""

    index: int = 0
    level: str = ""
    seed: int = 0


class BabyAITasks(TaskSource):
    """Test task ``t`` is AgentGym item ``t`` (``babyai_t``), train task ``k`` is item ``90 + k``.

    Whatever the split, an item index ``i`` plays level ``i % 40`` of AgentGym's list with seed
    ``i // 40``, exactly as AgentGym's server resets ``data_idx = i``. AgentGym's server takes
    any index ``i >= 0``, so the train split is open: its size bounds random draws only, and
    train task ``k`` past it is still item ``90 + k``.
    """

    item_prefix = family_record("babyai").item_prefix
    open_splits = frozenset({"train"})

    def __init__(self, total: int = TOTAL) -> None:
        if total <= TEST_SIZE:
            raise ValueError(f"total {total} must exceed the test size {TEST_SIZE}")
        self._sizes = {"test": TEST_SIZE, "train": total - TEST_SIZE}

    def size(self, split: str) -> int:
        return self._sizes.get(split, 0)

    def agentgym_index(self, split: str, task_id: int) -> int:
        return task_id if split == "test" else TEST_SIZE + task_id

    def locate(self, index: int) -> tuple[str, int]:
        if 0 <= index < TEST_SIZE:
            return "test", index
        if index >= TEST_SIZE:
            return "train", index - TEST_SIZE
        raise BadTaskError(f"item index {index} is negative: BabyAI items are 0 or more")

    def _load(self, split: str, task_id: int) -> BabyAITask:
        index = self.agentgym_index(split, task_id)
        level, seed = level_and_seed(index)
        return BabyAITask(task_id, split, index=index, level=level, seed=seed)
