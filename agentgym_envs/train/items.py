"""Which tasks each stage plays: train-split tasks for collect and RL, test items for eval.

Collect takes the first ``train_items`` tasks of each env's train split, RL the ones after
them, eval the first ``eval_items`` of the embedded AgentEval test split. Train and test are
the families' own disjoint splits (:func:`check_disjoint` proves it on the tasks themselves).
"""

from __future__ import annotations

from agentgym_envs.benchmarks.agenteval import BenchItem, agenteval_items
from agentgym_envs.train.settings import TrainError, TrainSettings


def collect_items(settings: TrainSettings) -> dict[str, list[BenchItem]]:
    return {e: _items(e, "train", 0, settings.train_items) for e in settings.envs}


def rl_task_ids(settings: TrainSettings, env_id: str, count: int) -> list[int]:
    """Train tasks for RL: the ``count`` after the ones behaviour cloning saw (wrapping round
    the train split when it is too small for that)."""
    items = agenteval_items(env_id, "train")
    if not items:
        raise TrainError(f"{env_id} has no train tasks: pick another env")
    return [items[(settings.train_items + i) % len(items)].task_id for i in range(count)]


def eval_items(settings: TrainSettings) -> dict[str, list[BenchItem]]:
    return {e: _items(e, "test", 0, settings.eval_items) for e in settings.envs}


def _items(env_id: str, split: str, start: int, count: int) -> list[BenchItem]:
    items = agenteval_items(env_id, split, limit=start + count)
    if len(items) < start + count:
        raise TrainError(
            f"{env_id} has {len(items)} {split} tasks, fewer than the {start + count} asked: "
            "lower --train-items / --eval-items"
        )
    return items[start : start + count]


__all__ = ["collect_items", "eval_items", "rl_task_ids"]
