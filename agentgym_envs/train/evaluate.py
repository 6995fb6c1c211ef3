"""Stage ``eval``: held-out test items through the benchmark runner, greedy, same seeds.

Every model of a run -- the base model, then each stage's checkpoint -- plays the same items
(the first ``eval_items`` of each env's test split) with the same episode seeds, in the
runner's ReAct loop, with the run's turn limit and reply cap, the weights in bfloat16. The model
answers in this process (:class:`~agentgym_envs.train.chat.LocalChat`; on a CUDA machine with
``vllm`` installed, :class:`~agentgym_envs.train.vllm_chat.VllmChat`); concurrent episodes
share it. Each label's runner folder resumes per episode (``resumed_episodes``: how many a
resumed stage found done).
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
    """The benchmark runner's policy for the model in ``checkpoint``: greedy, ReAct replies of
    at most ``max_tokens`` tokens, named ``train:<label>``, served as the eval stage serves it
    (:func:`_client`)."""
    from agentgym_envs.train import device

    client = _client(checkpoint, f"train:{label}", max_tokens, device.current().vllm)
    return _spec(client, label)


def _spec(client: Any, label: str):
    from agentgym_envs.benchmarks.policies import openai_spec

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
    from agentgym_envs.train import device
    from agentgym_envs.train.collect import play

    s = folder.settings
    started = time.perf_counter()
    client = _client(checkpoint, f"train:{label}", s.max_tokens, device.current().vllm)
    spec = _spec(client, label)
    try:
        where = folder.stage_dir("eval", label)
        result = play(folder, spec, where, "test", eval_items(s), concurrency, progress)
    finally:
        client.close()
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
        "served_by": type(client).__name__,
        "resumed_episodes": result.skipped,
        "envs": per_env,
        "seconds": round(time.perf_counter() - started, 1),
    }


def _client(checkpoint: Path, alias: str, max_tokens: int, vllm: bool) -> Any:
    """vLLM's engine over the checkpoint, or the model loaded here (CPU, bfloat16)."""
    if vllm:
        from agentgym_envs.train.vllm_chat import VllmChat

        return VllmChat(checkpoint, alias, max_tokens=max_tokens)
    import torch

    from agentgym_envs.train import model as models
    from agentgym_envs.train.chat import LocalChat

    models.set_threads()
    model, tokenizer = models.load(checkpoint)
    model = model.to(torch.bfloat16)  # greedy replies, 2.5x faster than float32 on CPU
    return LocalChat(model, tokenizer, alias, max_tokens=max_tokens)


__all__ = ["model_spec", "run"]
