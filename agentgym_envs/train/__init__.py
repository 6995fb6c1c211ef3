"""``agentgym train``: behaviour cloning, then RL, measured on held-out items.

A training run lives in one folder and goes through stages, each a module of its own:

* ``collect`` (:mod:`~agentgym_envs.train.collect`): the family's expert plays tasks of the
  *train* split through the benchmark runner; the episodes are kept in AgentTraj format;
* ``sft`` (:mod:`~agentgym_envs.train.sft`): behaviour cloning on them with TRL's
  ``SFTTrainer`` (loss on the model's turns only);
* ``rl`` (:mod:`~agentgym_envs.train.rl`): GRPO through the TRL adapter
  (:class:`~agentgym_envs.integrations.trl.TextRollout`) on train tasks, optionally with the
  ScalingInter-RL horizon curriculum;
* ``eval`` (:mod:`~agentgym_envs.train.evaluate`): the held-out *test* items through the
  benchmark runner (greedy, same seeds), for the base model and after every stage.

The folder (:mod:`~agentgym_envs.train.folder`) keeps the settings and their fingerprint
(``run.json``), one line per finished stage (``results.jsonl``) and each stage's checkpoint; a
finished stage is never redone, an interrupted one resumes, and other settings in the same
folder are refused. :func:`~agentgym_envs.train.pipeline.run_stages` runs them in order. Every
episode collect and eval play goes into the run's experience store
(:mod:`~agentgym_envs.train.store`), under a version per model; where the stages compute (CPU,
or a CUDA GPU with a larger model and vLLM) is :mod:`~agentgym_envs.train.device`'s choice.

The Persona B harness loop and the experience loop live in ``harness_loop`` and
``experience_loop`` (imported only when asked for).
"""

from __future__ import annotations

#: The stages, in pipeline order (``eval`` runs before and after the training stages).
STAGES = ("collect", "sft", "rl", "eval")

__all__ = ["STAGES"]
