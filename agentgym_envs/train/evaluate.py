"""Stage ``eval``: held-out test items through the benchmark runner, greedy, same seeds.

Every model of a run -- the base model, then each stage's checkpoint -- plays the same items
(the first ``eval_items`` of each env's test split) with the same episode seeds, in the
runner's ReAct loop, with the run's turn limit and reply cap, the weights in bfloat16. The model answers in this
process (:class:`~agentgym_envs.train.chat.LocalChat`); concurrent episodes share it. Each
label's runner folder resumes per episode.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from agentgym_envs.benchmarks.report import count_outcomes
from agentgym_envs.train.folder import RunFolder
from agentgym_envs.train.items import eval_items
from agentgym_envs.train.stats import summary

logger = logging.getLogger(__name__)


def model_spec(checkpoint: Path, label: str, *, max_tokens: int):
    """The benchmark runner's policy for the model in ``checkpoint``: loaded in this process in
    bfloat16, greedy, ReAct replies of at most ``max_tokens`` tokens, named ``train:<label>``."""
    import torch

    from agentgym_envs.benchmarks.policies import openai_spec
    from agentgym_envs.train import model as models
    from agentgym_envs.train.chat import LocalChat

    models.set_threads()
    model, tokenizer = models.load(checkpoint)
    model = model.to(torch.bfloat16)  # greedy replies, 2.5x faster than float32 on CPU
    client = LocalChat(model, tokenizer, f"train:{label}", max_tokens=max_tokens)
    return openai_spec(client=client, fmt="react", name=f"train:{label}")


def run(
    folder: RunFolder,
    label: str,
    checkpoint: Path,
    *,
    concurrency: int = 2,
    progress: bool = False,
) -> dict[str, Any]:
    """Score ``checkpoint`` on the held-out items; returns per-env success and score with CIs."""
    from agentgym_envs.benchmarks.runner import run_benchmark

    s = folder.settings
    started = time.perf_counter()
    spec = model_spec(checkpoint, label, max_tokens=s.max_tokens)
    result = run_benchmark(
        list(s.envs),
        spec,
        out=folder.stage_dir("eval", label),
        split="test",
        items=eval_items(s),
        max_rounds=s.max_rounds,
        seed=s.seed,
        concurrency=concurrency,
        progress=progress,
        record=True,
        reports=False,
    )
    per_env: dict[str, Any] = {}
    for env_id in s.envs:
        records = sorted(
            (r for r in result.records if r["env_id"] == env_id), key=lambda r: r["task_id"]
        )
        wins = [bool(r.get("success")) for r in records]
        scores = [float(r.get("reward") or 0) for r in records]
        per_env[env_id] = {
            **summary(wins, scores),
            "items": [r["item_id"] for r in records],
            "successes": wins,
            "outcomes": count_outcomes(records),
        }
    return {
        "model": label,
        "checkpoint": str(checkpoint),
        "envs": per_env,
        "seconds": round(time.perf_counter() - started, 1),
    }


__all__ = ["model_spec", "run"]
