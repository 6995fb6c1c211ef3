"""Per-family statistics of a trajectory set, and its overlap with a benchmark split."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from agentgym_envs.datasets.agenttraj import Trajectory
from agentgym_envs.datasets.items import FAMILY_NAMES, canonical_item_id, family_of


@dataclass
class FamilyStats:
    """What one family's trajectories look like."""

    family: str
    name: str
    records: int
    unique_items: int
    turns_mean: float
    turns_median: float
    turns_max: int
    chars_mean: float
    trained_turns: int
    with_reward: int
    reward_mean: float | None
    success_rate: float | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def dataset_stats(trajectories: Iterable[Trajectory]) -> dict[str, FamilyStats]:
    """Per family (canonical prefix): records, unique items, turns, length, trained turns, and
    reward / success where the records carry them. Families in name order."""
    groups: dict[str, list[Trajectory]] = defaultdict(list)
    for t in trajectories:
        groups[t.family].append(t)
    out: dict[str, FamilyStats] = {}
    for fam in sorted(groups):
        ts = groups[fam]
        turns = [t.turns for t in ts]
        rewards = [t.reward for t in ts if t.reward is not None]
        outcomes = [o for o in (t.outcome() for t in ts) if o is not None]
        out[fam] = FamilyStats(
            family=fam,
            name=FAMILY_NAMES.get(fam, fam),
            records=len(ts),
            unique_items=len({t.item_id for t in ts}),
            turns_mean=statistics.fmean(turns),
            turns_median=float(statistics.median(turns)),
            turns_max=max(turns),
            chars_mean=statistics.fmean(t.chars for t in ts),
            trained_turns=sum(
                1
                for t in ts
                for turn in t.conversations
                if turn.role == "gpt" and turn.loss is True
            ),
            with_reward=len(rewards),
            reward_mean=statistics.fmean(rewards) if rewards else None,
            success_rate=statistics.fmean(outcomes) if outcomes else None,
        )
    return out


@dataclass
class OverlapReport:
    """Item ids a trajectory set shares with a benchmark split, per family."""

    shared: dict[str, list[str]] = field(default_factory=dict)
    trajectory_items: dict[str, int] = field(default_factory=dict)
    benchmark_items: dict[str, int] = field(default_factory=dict)

    @property
    def total_shared(self) -> int:
        return sum(len(v) for v in self.shared.values())

    @property
    def clean(self) -> bool:
        return self.total_shared == 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "total_shared": self.total_shared,
            "shared": self.shared,
            "trajectory_items": self.trajectory_items,
            "benchmark_items": self.benchmark_items,
        }


def _index_key(item_id: str) -> tuple[str, int]:
    fam, _, idx = canonical_item_id(item_id).rpartition("_")
    return fam, int(idx)


def overlap(
    trajectories: Iterable[Trajectory | str], benchmark_item_ids: Iterable[str]
) -> OverlapReport:
    """Which of the trajectories' items are also benchmark items (a train/test leak).

    Both sides are compared by canonical item id, so ``lmrlgym_maze_3`` and ``maze_3`` are the
    same item. ``benchmark_item_ids``: e.g. ``[i.item_id for i in agenteval_items(...)]`` or the
    ids of AgentGym's AgentEval files.
    """
    traj_ids: dict[str, set[str]] = defaultdict(set)
    for t in trajectories:
        item = t.item_id if isinstance(t, Trajectory) else str(t)
        traj_ids[family_of(item)].add(canonical_item_id(item))
    bench_ids: dict[str, set[str]] = defaultdict(set)
    for item in benchmark_item_ids:
        bench_ids[family_of(item)].add(canonical_item_id(item))
    report = OverlapReport(
        trajectory_items={f: len(v) for f, v in sorted(traj_ids.items())},
        benchmark_items={f: len(v) for f, v in sorted(bench_ids.items())},
    )
    for fam in sorted(set(traj_ids) & set(bench_ids)):
        shared = traj_ids[fam] & bench_ids[fam]
        if shared:
            report.shared[fam] = sorted(shared, key=_index_key)
    return report


__all__ = ["FamilyStats", "OverlapReport", "dataset_stats", "overlap"]
