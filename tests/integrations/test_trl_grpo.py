"""Two real GRPO optimizer steps through the TRL adapter on SmolLM2-135M (CPU)."""

from __future__ import annotations

import math
import os

import pytest

pytest.importorskip("trl")
pytest.importorskip("gguf")


def test_two_grpo_steps_on_maze_with_rewards_from_the_env(tmp_path) -> None:
    import torch
    from trl import GRPOConfig, GRPOTrainer

    from agentgym_envs.integrations.trl import (
        TextRollout,
        build_text_dataset,
        load_local_model,
        rollout_reward,
    )

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    torch.manual_seed(0)
    model, tokenizer = load_local_model()
    data = build_text_dataset("AgentGym/Maze-v0", limit=1)
    rollout = TextRollout(
        data, max_turns=2, max_new_tokens=8, temperature=1.5, shaping={"invalid_penalty": 0.5}
    )
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    args = GRPOConfig(
        output_dir=str(tmp_path),
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=256,
        max_steps=2,
        learning_rate=1e-4,
        use_cpu=True,
        report_to="none",
        logging_steps=1,
        save_strategy="no",
        seed=0,
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        args=args,
        train_dataset=data,
        reward_funcs=[rollout_reward],
        rollout_func=rollout,
    )
    trainer.train()

    assert trainer.state.global_step == 2
    # every completion was an episode of our env, scored by it
    assert len(rollout.results) == 4
    assert all(r.reward_valid and r.outcome is not None and r.turns >= 1 for r in rollout.results)
    logs = [h for h in trainer.state.log_history if "reward" in h]
    assert len(logs) == 2
    for i, log in enumerate(logs):
        rewards = [r.reward for r in rollout.results[2 * i : 2 * i + 2]]
        assert math.isclose(log["reward"], sum(rewards) / 2, abs_tol=1e-5)
    # the update follows the advantage: parameters move exactly when the rewards differed
    varied = any(log["reward_std"] > 0 for log in logs)
    changed = any(not torch.equal(before[n], p.detach()) for n, p in model.named_parameters())
    assert changed == varied
