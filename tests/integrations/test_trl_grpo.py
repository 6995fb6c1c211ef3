"""Two real GRPO optimizer steps through the TRL adapter, on rewards our env gives that differ
within each group, so the update has something to learn from."""

from __future__ import annotations

import math
import os

import pytest

from tests.integrations.conftest import tiny_maze_policy

pytest.importorskip("trl")

#: Maze task 18 starts one ``move down`` from the goal: a reply can win, wander or be unparsable.
TASK = 18
SHAPING = {"invalid_penalty": 0.5}
TURNS = 2


def _replies(ids: list[int], mask: list[int], tokenizer) -> list[str]:
    """The model's replies in a completion: its runs of model tokens (``env_mask`` 1)."""
    runs: list[list[int]] = []
    for i, (token, own) in enumerate(zip(ids, mask)):
        if own:
            if i == 0 or not mask[i - 1]:
                runs.append([])
            runs[-1].append(token)
    return [tokenizer.decode(run, skip_special_tokens=True) for run in runs]


def _replay(replies: list[str]) -> tuple[float, str]:
    """The return and outcome a fresh env gives for these replies."""
    from agentgym_envs.core import episode_outcome
    from agentgym_envs.wrappers import make_llm_env

    env = make_llm_env(
        "AgentGym/Maze-v0", "react", max_rounds=TURNS, max_seconds=None, shaping=SHAPING
    )
    env.reset(seed=0, options={"split": "train", "task_id": TASK})
    total, outcome = 0.0, None
    for reply in replies:
        _, reward, terminated, truncated, info = env.step(reply)
        total += reward
        if terminated or truncated:
            outcome = episode_outcome(terminated, truncated, info)
            break
    env.close()
    return total, outcome


def test_grpo_steps_learn_from_rewards_our_env_gives(tmp_path) -> None:
    import torch
    from trl import GRPOConfig, GRPOTrainer

    from agentgym_envs.integrations.trl import TextRollout, build_text_dataset, rollout_reward

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    model, tokenizer = tiny_maze_policy(seed=0)
    data = build_text_dataset("AgentGym/Maze-v0", task_ids=[TASK])
    rollout = TextRollout(data, max_turns=TURNS, max_new_tokens=1, shaping=SHAPING)
    batches: list[dict] = []

    def rollout_func(prompts, trainer):
        out = rollout(prompts, trainer)
        batches.append(out)
        return out

    prompt = tokenizer.apply_chat_template(
        data[0]["prompt"], add_generation_prompt=True, tokenize=True, return_dict=False
    )
    down = tokenizer.convert_tokens_to_ids("move down")

    def p_down() -> float:
        with torch.no_grad():
            return model(torch.tensor([list(prompt)])).logits[0, -1].softmax(-1)[down].item()

    p_before = p_down()
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    args = GRPOConfig(
        output_dir=str(tmp_path),
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=256,
        max_steps=2,
        learning_rate=1e-2,
        use_cpu=True,
        report_to="none",
        logging_steps=1,
        save_strategy="no",
        disable_tqdm=True,
        seed=0,
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        args=args,
        train_dataset=data,
        reward_funcs=[rollout_reward],
        rollout_func=rollout_func,
    )
    trainer.train()
    assert trainer.state.global_step == 2

    # (a) each step's group of four episodes got different rewards: there was an advantage
    logs = [h for h in trainer.state.log_history if "reward" in h]
    assert len(logs) == 2 and all(log["reward_std"] > 0 for log in logs)
    for log, out in zip(logs, batches):
        rewards = out["agentgym_reward"]
        assert len(set(rewards)) > 1
        assert math.isclose(log["reward"], sum(rewards) / len(rewards), abs_tol=1e-5)

    # (c) every reward is our env's: the completion's replies, replayed in a fresh env, give
    # the same return and outcome, and each completion was one episode the env scored
    results = iter(rollout.results)
    for out in batches:
        for ids, mask, reward in zip(
            out["completion_ids"], out["env_mask"], out["agentgym_reward"]
        ):
            replies = _replies(ids, mask, tokenizer)
            result = next(results)
            assert 1 <= len(replies) == result.turns <= TURNS and result.reward_valid
            assert _replay(replies) == (pytest.approx(reward), result.outcome)
    assert sum(len(out["agentgym_reward"]) for out in batches) == len(rollout.results) == 8
    assert any(r.success for r in rollout.results) and not all(r.success for r in rollout.results)

    # (b) the policy's parameters moved, and toward the rewarded action
    assert any(not torch.equal(before[n], p.detach()) for n, p in model.named_parameters())
    assert p_down() > p_before


def test_reply_prefix_is_prefilled_outside_the_loss(tmp_path) -> None:
    from trl import GRPOConfig, GRPOTrainer

    from agentgym_envs.integrations.trl import TextRollout, build_text_dataset, rollout_reward

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    model, tokenizer = tiny_maze_policy(seed=1)
    data = build_text_dataset("AgentGym/Maze-v0", task_ids=[TASK])
    rollout = TextRollout(data, max_turns=TURNS, max_new_tokens=1, reply_prefix="Action:")
    args = GRPOConfig(
        output_dir=str(tmp_path),
        per_device_train_batch_size=4,
        num_generations=4,
        max_steps=1,
        use_cpu=True,
        report_to="none",
        save_strategy="no",
        disable_tqdm=True,
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        args=args,
        train_dataset=data,
        reward_funcs=[rollout_reward],
        rollout_func=rollout,
    )
    out = rollout([data[0]["prompt"]] * 6, trainer)
    prefix = tokenizer.encode("Action:", add_special_tokens=False)
    assert prefix and out["prompt_ids"][0][-len(prefix) :] == prefix
    for ids, mask, result in zip(out["completion_ids"], out["env_mask"], rollout.results):
        # every later turn opens with the prefix too, as env tokens (mask 0)
        starts = [i for i in range(1, len(mask)) if mask[i] and not mask[i - 1]]
        assert len(starts) == result.turns - 1
        assert all(ids[i - len(prefix) : i] == prefix and not mask[i - 1] for i in starts)
        replies = ["Action:" + r for r in _replies(ids, mask, tokenizer)]
        assert _replay(replies)[1] == result.outcome
