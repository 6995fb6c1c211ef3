"""Stage ``rl``: GRPO through the TRL adapter on train tasks, from the behaviour-cloned model.

Episodes are played by :class:`~agentgym_envs.integrations.trl.TextRollout` (the model's
reply is the action; observations stay out of the loss) from the same conversation opening
the evaluation uses (instructions, ``Ok.``, first observation), on train tasks after the ones
behaviour cloning saw. Each GRPO step samples groups of ``rl_generations`` episodes of one task;
the reward is the env's graded score. With ``curriculum="scaling-inter"`` the turn limit grows
over the steps in three stages up to ``max_rounds`` (ScalingInter-RL's schedule, via
:class:`~agentgym_envs.wrappers.curriculum.HorizonSchedule`).

Sampling and the update run in bfloat16 autocast over float32 weights (twice the speed on CPU).
Every step's mean reward, success and turn limit is appended to ``rl/steps.jsonl``; the trainer
saves its state every step under ``rl/trainer`` and an interrupted stage resumes from it.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from agentgym_envs.train.folder import RunFolder, move_into_place
from agentgym_envs.train.items import rl_task_ids
from agentgym_envs.train.settings import TrainSettings

logger = logging.getLogger(__name__)

#: Episodes and updates in bfloat16 autocast (float32 weights): twice as fast on these CPUs.
BF16 = True
#: Observation tokens budgeted per turn in a completion (TRL's ``max_completion_length``).
OBS_TOKENS = 400


def schedule(settings: TrainSettings):
    """The turn-limit schedule of the RL steps (``None`` without a curriculum)."""
    if settings.curriculum == "none":
        return None
    from agentgym_envs.wrappers.curriculum import HorizonSchedule

    top = settings.max_rounds
    rounds = sorted({max(1, top // 3), max(1, (2 * top) // 3), top})
    interval = max(1, -(-max(settings.rl_steps, 1) // len(rounds)))
    return HorizonSchedule(rounds, interval=interval)


def task_rows(settings: TrainSettings) -> list[dict[str, Any]]:
    """One row per RL task: the evaluation's conversation opening as the prompt."""
    from agentgym_envs.benchmarks.runner import make_policy_env

    rows = []
    count = max(1, settings.rl_steps)
    for env_id in settings.envs:
        env = make_policy_env(env_id, "react", max_rounds=settings.max_rounds)
        try:
            for task_id in rl_task_ids(settings, env_id, count):
                seed = settings.seed + task_id
                _, info = env.reset(seed=seed, options={"split": "train", "task_id": task_id})
                prompt = [{"role": m["role"], "content": m["content"]} for m in info["messages"]]
                rows.append(
                    {
                        "prompt": prompt,
                        "env_id": env_id,
                        "task_id": task_id,
                        "split": "train",
                        "seed": seed,
                    }
                )
        finally:
            env.close()
    return rows


class _Steps:
    """TRL's ``rollout_func``: the adapter's rollout, its turn limit set by the schedule, and
    each step's figures appended to ``steps.jsonl``."""

    def __init__(self, rollout: Any, horizon: Any, log: Path, bf16: bool) -> None:
        self.rollout, self.horizon, self.log, self.bf16 = rollout, horizon, log, bf16

    def _row(self, prompt: Any) -> dict[str, Any]:
        from agentgym_envs.integrations.trl import _prompt_key

        return self.rollout.rows[_prompt_key(prompt)]

    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, list[Any]]:
        step = trainer.state.global_step + 1
        if self.horizon is not None:
            self.rollout.max_turns = self.horizon.rounds_at(step)
        import torch

        first = len(self.rollout.results)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.bf16):
            out = self.rollout(prompts, trainer)
        batch = self.rollout.results[first:]
        rewards = [r for r in out["agentgym_reward"] if r is not None]
        line = {
            "step": step,
            "reward": sum(rewards) / len(rewards) if rewards else None,
            "rewards": [None if r is None else round(float(r), 4) for r in out["agentgym_reward"]],
            "success": sum(r.success for r in batch) / max(len(batch), 1),
            "episodes": len(batch),
            "max_turns": self.rollout.max_turns,
            "tasks": sorted(
                {f"{row['env_id']}#{row['task_id']}" for row in map(self._row, prompts)}
            ),
        }
        with self.log.open("a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")
        return out


def read_steps(log: Path) -> list[dict[str, Any]]:
    """The per-step lines, the last one of each step kept (a step redone after a kill)."""
    if not log.is_file():
        return []
    steps: dict[int, dict[str, Any]] = {}
    for text in log.read_text("utf-8").splitlines():
        try:
            line = json.loads(text)
        except ValueError:
            continue
        steps[int(line["step"])] = line
    return [steps[k] for k in sorted(steps)]


def run(folder: RunFolder, start: Path, *, progress: bool = False) -> dict[str, Any]:
    """GRPO from ``start`` (the behaviour-cloned checkpoint)."""
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from agentgym_envs.integrations.trl import TextRollout, rollout_reward
    from agentgym_envs.train import model as models
    from agentgym_envs.train.sft import freeze_lower_layers, last_checkpoint

    s = folder.settings
    started = time.perf_counter()
    threads = models.set_threads()
    model, tokenizer = models.load(start)
    freeze_lower_layers(model, s.sft_layers)
    data = Dataset.from_list(task_rows(s))
    rollout = TextRollout(
        data,
        max_turns=s.max_rounds,
        max_new_tokens=s.max_tokens,
        temperature=s.rl_temperature,
        reward="score",
    )
    work = folder.stage_dir("rl", "trainer")
    log = folder.path / "rl" / "steps.jsonl"
    config = GRPOConfig(
        output_dir=str(work),
        per_device_train_batch_size=s.rl_generations,
        num_generations=s.rl_generations,
        max_completion_length=s.max_rounds * (s.max_tokens + OBS_TOKENS),
        max_steps=s.rl_steps,
        learning_rate=s.rl_lr,
        beta=s.rl_beta,
        temperature=s.rl_temperature,
        use_cpu=True,
        bf16=BF16,
        report_to="none",
        logging_steps=1,
        save_strategy="steps",
        save_steps=1,
        save_total_limit=1,
        seed=s.seed,
        disable_tqdm=not progress,
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        args=config,
        train_dataset=data,
        reward_funcs=[rollout_reward],
        rollout_func=_Steps(rollout, schedule(s), log, bf16=BF16),
    )
    resume = last_checkpoint(work)
    if resume:
        logger.info("rl: resuming from %s", resume)
    trainer.train(resume_from_checkpoint=resume)
    partial = folder.path / "rl" / "model.partial"
    models.save(trainer.model, tokenizer, partial)
    move_into_place(partial, folder.checkpoint("rl"))
    steps = read_steps(log)
    return {
        "steps": trainer.state.global_step,
        "reward_per_step": [st["reward"] for st in steps],
        "success_per_step": [st["success"] for st in steps],
        "max_turns_per_step": [st["max_turns"] for st in steps],
        "rewards_per_step": [st.get("rewards") for st in steps],
        "resumed_from": resume,
        "threads": threads,
        "seconds": round(time.perf_counter() - started, 1),
    }


__all__ = ["read_steps", "run", "schedule", "task_rows"]
