"""Run a training run's stages in order, skipping the finished ones.

With ``eval`` among the stages, the base model is scored first and each training stage's
checkpoint right after the stage (labels ``eval:base``, ``eval:sft``, ``eval:rl``); ``eval`` alone scores the
base model and every checkpoint already finished. A stage whose input is missing (``sft``
before ``collect``, ``rl`` before ``sft``) stops with the command that makes it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agentgym_envs.errors import unknown_name
from agentgym_envs.train import STAGES, store
from agentgym_envs.train.device import Runtime
from agentgym_envs.train.folder import RunFolder
from agentgym_envs.train.settings import LOCAL_MODEL, TrainError, TrainSettings

logger = logging.getLogger(__name__)

#: What each training stage starts from.
_NEEDS = {"sft": "collect", "rl": "sft"}


def parse_stages(stages: str | Iterable[str]) -> list[str]:
    """Stage names from ``"collect,sft"`` or a list (``"all"``: every stage); unknown ones are
    refused with the close match."""
    names = stages.split(",") if isinstance(stages, str) else list(stages)
    names = [n.strip() for n in names if n.strip()]
    if names == ["all"]:
        return list(STAGES)
    if not names:
        raise TrainError(f"no stage given: use one or more of {', '.join(STAGES)} (or all)")
    for name in names:
        if name not in STAGES:
            raise TrainError(unknown_name("stage", name, [*STAGES, "all"]))
    return [s for s in STAGES if s in names]


def _plan(stages: list[str], folder: RunFolder) -> list[tuple[str, str]]:
    """``(stage, label)`` in order; an eval's label names the model scored (``eval:sft``)."""
    plan: list[tuple[str, str]] = []
    evaluate = "eval" in stages
    if evaluate:
        plan.append(("eval", "eval:base"))
    for stage in ("collect", "sft", "rl"):
        if stage in stages:
            plan.append((stage, stage))
            if evaluate and stage != "collect":
                plan.append(("eval", f"eval:{stage}"))
        elif evaluate and stage != "collect" and folder.finished(stage):
            plan.append(("eval", f"eval:{stage}"))
    return plan


def run_stages(
    out: str | os.PathLike[str],
    settings: TrainSettings,
    stages: str | Iterable[str] = "all",
    *,
    concurrency: int = 2,
    progress: bool = False,
    runtime: Runtime | None = None,
) -> list[dict[str, Any]]:
    """Run ``stages`` in the run folder ``out``; returns every finished stage's line.

    ``runtime``: where the stages compute (:func:`agentgym_envs.train.device.resolve`; default
    the process's, :func:`agentgym_envs.train.device.current`: the CPU unless set)."""
    from agentgym_envs.train import device
    from agentgym_envs.train.model import base_checkpoint

    names = parse_stages(stages)
    if runtime is not None:
        device.use(runtime)
    if settings.model != LOCAL_MODEL:
        base_checkpoint(settings.model)  # a bad folder is refused before any work
    with RunFolder(out, settings) as folder:
        for stage, label in _plan(names, folder):
            if folder.finished(label):
                logger.info("%s: already finished in %s", label, folder.path)
                continue
            need = _NEEDS.get(stage)
            if need and need not in names and not folder.finished(need):
                raise TrainError(
                    f"stage {stage} needs the {need} stage, not finished in {folder.path}: run "
                    f"agentgym train run {folder.path} --stages {need},{stage}"
                )
            logger.info("%s: starting", label)
            figures = _run_one(folder, stage, label, base_checkpoint, concurrency, progress)
            figures.setdefault("device", device.current().describe())
            if stage in ("collect", "eval"):  # the played episodes into the run's store
                runner = ("collect", "bench") if stage == "collect" else ("eval", label[5:])
                figures.update(store.record(folder, folder.path.joinpath(*runner), label))
            record = folder.finish(stage, label, figures)
            logger.info("%s: finished in %.0f s", label, figures.get("seconds", 0))
            del record
        return folder.results()


def _model_for(folder: RunFolder, label: str, base_checkpoint) -> Path:
    if label == "base":
        return base_checkpoint(folder.settings.model)
    ckpt = folder.checkpoint(label)
    if not (ckpt / "config.json").is_file():
        raise TrainError(
            f"missing checkpoint {ckpt}: run agentgym train run {folder.path} --stages {label}"
        )
    return ckpt


def _run_one(
    folder: RunFolder, stage: str, label: str, base_checkpoint, concurrency: int, progress: bool
) -> dict[str, Any]:
    if stage == "collect":
        from agentgym_envs.train import collect

        return collect.run(folder, concurrency=concurrency, progress=progress)
    if stage == "sft":
        from agentgym_envs.train import sft

        return sft.run(folder, _model_for(folder, "base", base_checkpoint), progress=progress)
    if stage == "rl":
        from agentgym_envs.train import rl

        return rl.run(folder, _model_for(folder, "sft", base_checkpoint), progress=progress)
    from agentgym_envs.train import evaluate

    name = label.split(":", 1)[1]
    model = _model_for(folder, name, base_checkpoint)
    return evaluate.run(folder, name, model, concurrency=concurrency, progress=progress)


__all__ = ["parse_stages", "run_stages"]
