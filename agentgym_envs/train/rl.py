"""Stage ``rl``: GRPO through the TRL adapter on train tasks, from the behaviour-cloned model.

Episodes are played by :class:`~agentgym_envs.integrations.trl.TextRollout` (the model's
reply is the action; observations stay out of the loss) from the same conversation opening
the evaluation uses (instructions, ``Ok.``, first observation), on train tasks after the ones
behaviour cloning saw. Each GRPO step plays ``rl_tasks`` groups of ``rl_generations`` episodes,
a group being one task; the reward is the env's graded score. A group whose rewards are all
alike gives GRPO no advantage and no gradient, so it is set aside and a group of another train
task of the same env is played instead (DAPO's dynamic sampling), at most ``rl_redraws`` times
a step; the episodes set aside are counted in the step's line. With
``curriculum="scaling-inter"`` the turn limit grows over the steps in three stages up to
``max_rounds`` (ScalingInter-RL's schedule, via
:class:`~agentgym_envs.wrappers.curriculum.HorizonSchedule`).

Sampling and the update run in bfloat16 autocast over float32 weights (twice the speed on CPU).
Every step's mean reward (over every episode it played, and over the groups trained on),
success, episodes, groups set aside and turn limit is appended to ``rl/steps.jsonl``; the trainer
saves its state every step under ``rl/trainer`` and an interrupted stage resumes from it.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from agentgym_envs.train import device
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
    """One row per RL task of the dataset GRPO samples from (``rl_tasks`` per step over
    ``rl_steps`` steps, shared among the envs): the evaluation's conversation opening as the
    prompt."""
    per_env = -(-max(1, settings.rl_steps) * settings.rl_tasks // len(settings.envs))
    return [row for env_id in settings.envs for row in _rows(settings, env_id, 0, per_env)]


def redraw_rows(settings: TrainSettings) -> dict[str, list[dict[str, Any]]]:
    """Per env, the train tasks dynamic sampling draws from in place of a group without reward
    spread: the ones after :func:`task_rows`' (every step may draw ``rl_redraws``)."""
    per_env = -(-max(1, settings.rl_steps) * settings.rl_tasks // len(settings.envs))
    count = max(1, settings.rl_steps) * settings.rl_redraws
    if not count:
        return {}
    return {e: _rows(settings, e, per_env, count) for e in settings.envs}


def _rows(settings: TrainSettings, env_id: str, start: int, count: int) -> list[dict[str, Any]]:
    from agentgym_envs.benchmarks.runner import make_policy_env

    rows = []
    env = make_policy_env(env_id, "react", max_rounds=settings.max_rounds)
    try:
        for task_id in rl_task_ids(settings, env_id, start + count)[start:]:
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


def _round(reward: float | None) -> float | None:
    return None if reward is None else round(float(reward), 4)


def _spread(rewards: list[float | None]) -> bool:
    """Whether a group's valid rewards differ (GRPO's advantage is 0 everywhere otherwise)."""
    valid = [r for r in rewards if r is not None]
    return len(valid) >= 2 and max(valid) - min(valid) > 1e-6


class _Steps:
    """TRL's ``rollout_func``: each group of ``num_generations`` prompts (one task) played
    through the adapter's :meth:`~agentgym_envs.integrations.trl.TextRollout.play`, with
    DAPO's dynamic sampling -- a group whose rewards are all alike is set aside and a group of
    another train task of the same env played instead, at most ``redraws`` times a step (the
    last group drawn is kept either way) -- the turn limit set by the schedule, and each step's
    figures appended to ``steps.jsonl``."""

    def __init__(
        self,
        rollout: Any,
        horizon: Any,
        log: Path,
        bf16: bool,
        *,
        redraws: int = 0,
        pool: dict[str, list[dict[str, Any]]] | None = None,
    ) -> None:
        self.rollout, self.horizon, self.log, self.bf16 = rollout, horizon, log, bf16
        self.redraws, self.pool = redraws, pool or {}

    def _row(self, prompt: Any) -> dict[str, Any]:
        from agentgym_envs.integrations.trl import _prompt_key

        return self.rollout.rows[_prompt_key(prompt)]

    def _redraw(self, env_id: str, step: int, used: int) -> dict[str, Any] | None:
        """The ``used``-th redraw of ``step``: the same pool slot whenever the step is redone."""
        pool = self.pool.get(env_id) or []
        return pool[((step - 1) * self.redraws + used) % len(pool)] if pool else None

    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, list[Any]]:
        import torch

        from agentgym_envs.integrations.trl import EPISODE_KEYS, add_episode

        step = trainer.state.global_step + 1
        if self.horizon is not None:  # steps done so far: step 1 plays the first stage's limit
            self.rollout.max_turns = self.horizon.rounds_at(step - 1)
        size = trainer.num_generations
        tok = trainer.processing_class
        model = trainer.accelerator.unwrap_model(trainer.model)
        out: dict[str, list[Any]] = {k: [] for k in (*EPISODE_KEYS, "agentgym_outcome")}
        played: list[float | None] = []  # every episode of the step, set-aside groups included
        wins: list[bool] = []
        groups: list[dict[str, Any]] = []  # every group played: task, rewards, kept or not
        used = 0
        was_training = model.training
        model.eval()
        try:
            where = device.current().autocast_device
            with torch.autocast(where, dtype=torch.bfloat16, enabled=self.bf16):
                for first in range(0, len(prompts), size):
                    row = self._row(prompts[first])
                    while True:
                        group = [self.rollout.play(row, model, tok) for _ in range(size)]
                        rewards = [ep["reward"] for ep in group]
                        played += rewards
                        wins += [bool(ep["result"].success) for ep in group]
                        other = None
                        if not _spread(rewards) and used < self.redraws:
                            other = self._redraw(row["env_id"], step, used)
                        groups.append(
                            {
                                "task": f"{row['env_id']}#{row['task_id']}",
                                "rewards": [_round(r) for r in rewards],
                                "kept": other is None,
                            }
                        )
                        if other is None:
                            break
                        used += 1
                        row = other
                    for ep in group:
                        add_episode(out, ep)
        finally:
            model.train(was_training)
        valid = [r for r in played if r is not None]
        trained = [r for r in out["agentgym_reward"] if r is not None]
        line = {
            "step": step,
            "reward": sum(valid) / len(valid) if valid else None,
            "reward_trained": sum(trained) / len(trained) if trained else None,
            "rewards": [_round(r) for r in played],
            "success": sum(wins) / max(len(wins), 1),
            "episodes": len(played),
            "groups_set_aside": sum(not g["kept"] for g in groups),
            "groups_with_spread": sum(_spread(g["rewards"]) for g in groups if g["kept"]),
            "max_turns": self.rollout.max_turns,
            "tasks": sorted({g["task"] for g in groups}),
            "groups": groups,
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
        per_device_train_batch_size=s.rl_generations * s.rl_tasks,
        num_generations=s.rl_generations,
        max_completion_length=s.max_rounds * (s.max_tokens + OBS_TOKENS),
        max_steps=s.rl_steps,
        learning_rate=s.rl_lr,
        beta=s.rl_beta,
        temperature=s.rl_temperature,
        **device.current().grpo_kwargs(trl_generates=False),
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
        rollout_func=_Steps(
            rollout, schedule(s), log, bf16=BF16, redraws=s.rl_redraws, pool=redraw_rows(s)
        ),
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
        "reward_trained_per_step": [st.get("reward_trained") for st in steps],
        "success_per_step": [st["success"] for st in steps],
        "max_turns_per_step": [st["max_turns"] for st in steps],
        "rewards_per_step": [st.get("rewards") for st in steps],
        "episodes_per_step": [st.get("episodes") for st in steps],
        "groups_set_aside_per_step": [st.get("groups_set_aside") for st in steps],
        "groups_with_spread_per_step": [st.get("groups_with_spread") for st in steps],
        "episodes": sum(st.get("episodes") or 0 for st in steps),
        "resumed_from": resume,
        "threads": threads,
        "seconds": round(time.perf_counter() - started, 1),
    }


__all__ = ["read_steps", "redraw_rows", "run", "schedule", "task_rows"]
