"""The experience loop's learners: how a version is trained on the store's export and played.

``sft`` (the default): a language model -- SmolLM2-135M, converted once and cached
(:mod:`agentgym_envs.train.model`), or any checkpoint folder -- behaviour-cloned by the
training pipeline's ``sft`` stage (:mod:`agentgym_envs.train.sft`, TRL's ``SFTTrainer``) on
the AgentTraj records the experience store exported. Each version trains in its own run folder
(``<out>/versions/<name>-<version>/``: the export as the stage's input, the trainer's resumable
state, the finished checkpoint), starting from its parent's weights, and plays through the
benchmark runner as the ``eval`` stage scores a checkpoint
(:func:`~agentgym_envs.train.evaluate.model_spec`: greedy, in this process).

``table``: the lookup table of :mod:`~agentgym_envs.train.bc_table` (observation -> action;
seconds, for quick demos and tests); the untrained version is the random policy and a child
table is its parent's, updated with what the new data says.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from agentgym_envs.errors import AgentGymError, unknown_name

logger = logging.getLogger(__name__)

LEARNERS = ("sft", "table")


def _slug(label: str) -> str:
    return label.replace("@", "-")


class TableLearner:
    """The behaviour-cloning lookup table (see the module docstring)."""

    name = "table"
    base_model = "random policy (untrained)"

    def __init__(self, out: Path) -> None:
        self.out = Path(out)

    def base_spec(self):
        from agentgym_envs.benchmarks.policies import random_spec

        return random_spec()

    def base_config(self) -> dict[str, Any]:
        return {}

    def train(self, label: str, data: Path, parent: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """Fit the table of ``data`` (AgentTraj) over the parent's table; ``(model, config)``."""
        from agentgym_envs.datasets.agenttraj import load_agenttraj
        from agentgym_envs.datasets.export import to_sft
        from agentgym_envs.train import bc_table

        records = [to_sft(t) for t in load_agenttraj(data, errors="raise")]
        table = dict(bc_table.load(parent["table"])) if parent.get("table") else {}
        new = bc_table.fit(records)
        table.update(new)
        path = bc_table.save(table, self.out / "versions" / f"{_slug(label)}.json")
        return "behaviour-cloning table", {"table": str(path), "states": len(table)}

    def spec(self, label: str, config: dict[str, Any]):
        from agentgym_envs.train import bc_table

        if not config.get("table"):
            return self.base_spec()
        return bc_table.table_spec(bc_table.load(config["table"]), label, Path(config["table"]))


class SFTLearner:
    """A language model behaviour-cloned by the ``sft`` stage (see the module docstring)."""

    name = "sft"

    def __init__(self, out: Path, settings: Any) -> None:
        self.out = Path(out)
        #: a :class:`~agentgym_envs.train.settings.TrainSettings` (model, reply cap, SFT ones)
        self.settings = settings

    @property
    def base_model(self) -> str:
        return f"{self.settings.model} (base, untrained)"

    def base_config(self) -> dict[str, Any]:
        from agentgym_envs.train.model import base_checkpoint

        return {"checkpoint": str(base_checkpoint(self.settings.model))}

    def base_spec(self):
        return self.spec("base", self.base_config())

    def train(self, label: str, data: Path, parent: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """Behaviour-clone the parent's checkpoint on ``data`` (AgentTraj, the store's export)
        with the ``sft`` stage, in the version's own run folder; ``(model, config)``."""
        from dataclasses import replace

        from agentgym_envs.train import sft
        from agentgym_envs.train.collect import TRAJECTORIES
        from agentgym_envs.train.folder import RunFolder, write_atomic

        start = Path(parent["checkpoint"])
        text = Path(data).read_text(encoding="utf-8")
        episodes = sum(1 for line in text.splitlines() if line.strip())
        if not episodes:
            raise AgentGymError(
                f"no training episodes for {label} in {data}: the store holds no episode "
                "judged as this version needs (play more train tasks: raise train_items)"
            )
        settings = replace(self.settings, model=str(start), train_items=episodes)
        with RunFolder(self.out / "versions" / _slug(label), settings) as folder:
            done = folder.finished("sft")
            if done is None:
                # the stage reads its input from collect/: here, the store's export
                write_atomic(folder.stage_dir("collect") / TRAJECTORIES, text)
                logger.info("%s: behaviour cloning on %d stored episodes", label, episodes)
                done = folder.finish("sft", "sft", sft.run(folder, start))
            checkpoint = folder.checkpoint("sft")
        keep = ("episodes", "tokens", "steps", "loss_first", "loss_last", "seconds")
        config = {"checkpoint": str(checkpoint), "sft": {k: done.get(k) for k in keep}}
        return f"{Path(self.settings.model).name} behaviour-cloned (sft stage)", config

    def spec(self, label: str, config: dict[str, Any]):
        from agentgym_envs.train.evaluate import model_spec

        return model_spec(Path(config["checkpoint"]), label, max_tokens=self.settings.max_tokens)


def make_learner(name: str, out: Path, settings: Any):
    """The learner called ``name`` (one of :data:`LEARNERS`)."""
    if name == "table":
        return TableLearner(out)
    if name == "sft":
        return SFTLearner(out, settings)
    raise AgentGymError(unknown_name("learner", name, LEARNERS))


__all__ = ["LEARNERS", "SFTLearner", "TableLearner", "make_learner"]
