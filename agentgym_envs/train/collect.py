"""Stage ``collect``: the family's expert plays train-split tasks; its episodes, in AgentTraj
format, are the behaviour-cloning data.

The episodes go through the benchmark runner (resumable per episode, a progress bar per env)
with the ReAct conversation the evaluated model will see (``Action: <action>`` replies), and
the turn limit of the run; only solved episodes are kept for training.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

from agentgym_envs.train.folder import RunFolder, write_atomic
from agentgym_envs.train.items import collect_items
from agentgym_envs.train.settings import TrainError

logger = logging.getLogger(__name__)

#: The AgentTraj file the stage writes (one record per solved episode).
TRAJECTORIES = "trajectories.jsonl"


def run(folder: RunFolder, *, concurrency: int = 2, progress: bool = False) -> dict[str, Any]:
    """Play and keep the expert's episodes; returns the stage's figures."""
    from agentgym_envs.benchmarks.policies import expert_spec

    s = folder.settings
    started = time.perf_counter()
    where = folder.stage_dir("collect", "bench")
    result = play(folder, expert_spec(), where, "train", collect_items(s), concurrency, progress)
    kept: dict[str, int] = {}
    lines = []
    for record in result.records:
        if not record.get("success") or not record.get("conversations"):
            continue
        kept[record["env_id"]] = kept.get(record["env_id"], 0) + 1
        keep = ("item_id", "conversations", "reward", "success", "env_id", "split", "task_id")
        lines.append(json.dumps({k: record[k] for k in keep if k in record}))
    if not lines:
        raise TrainError("the expert solved no train task within max_rounds: raise --max-rounds")
    write_atomic(folder.stage_dir("collect") / TRAJECTORIES, "\n".join(lines) + "\n")
    played = {e: sum(r["env_id"] == e for r in result.records) for e in s.envs}
    logger.info("collect: kept %s of %s expert episodes", kept, played)
    return {
        "played": played,
        "kept": kept,
        "resumed_episodes": result.skipped,
        "seconds": round(time.perf_counter() - started, 1),
    }


def play(
    folder: RunFolder,
    spec: Any,
    where: Path,
    split: str,
    items: dict[str, list[Any]],
    concurrency: int,
    progress: bool,
) -> Any:
    """The benchmark runner's episodes of ``spec`` on ``items`` into ``where`` (resumed per
    episode), with the run's turn limit and seed: how collect and eval play."""
    from agentgym_envs.benchmarks.runner import run_benchmark

    s = folder.settings
    return run_benchmark(
        list(s.envs),
        spec,
        out=where,
        split=split,
        items=items,
        max_rounds=s.max_rounds,
        seed=s.seed,
        concurrency=concurrency,
        progress=progress,
        record=True,
        reports=False,
    )


__all__ = ["TRAJECTORIES", "play", "run"]
