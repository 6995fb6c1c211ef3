"""The same expert, played bare, through ReAct text and through tool calls, scores the same."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

import agentgym_envs
from agentgym_envs import expert_policy, make_llm_env


def _as_tool_call(env_id: str, action: str) -> dict[str, Any]:
    if "Wordle" in env_id:
        return {"name": "guess", "arguments": {"word": action.replace(" ", "")}}
    return {"name": "move", "arguments": {"direction": action.split()[-1]}}


def _play(env: gym.Env, task_id: int, reply) -> tuple[list[float], list[str], dict[str, Any]]:
    obs, info = env.reset(seed=0, options={"split": "test", "task_id": task_id})
    expert = expert_policy(env)
    rewards, observations = [], []
    while True:
        obs, reward, terminated, truncated, info = env.step(reply(expert(obs, info)))
        rewards.append(float(reward))
        observations.append(obs)
        if terminated or truncated:
            return rewards, observations, info


CASES = [("AgentGym/Maze-v0", range(25)), ("AgentGym/Wordle-v0", range(0, 25, 3))]


@pytest.mark.parametrize("env_id, task_ids", CASES, ids=["maze", "wordle"])
def test_expert_scores_the_same_bare_react_and_tools(env_id: str, task_ids) -> None:
    bare = gym.make(env_id)
    react = make_llm_env(env_id, format="react")  # AgentGym's reply parser
    strict = make_llm_env(env_id, format="react", parser="strict")
    tools = make_llm_env(env_id, format="tools")
    for task_id in task_ids:
        ref_rewards, ref_obs, ref_info = _play(bare, task_id, lambda a: a)
        assert ref_info["success"], f"expert failed {env_id} task {task_id}"
        got = {
            "react": _play(react, task_id, lambda a: f"Thought: the expert says {a}.\nAction: {a}"),
            # the strict parser also drops an end-of-sequence token (AgentGym's slice would cut
            # a letter of the action with it)
            "strict": _play(
                strict, task_id, lambda a: f"Thought: the expert says {a}.\nAction: {a}</s>"
            ),
            "tools": _play(tools, task_id, lambda a: _as_tool_call(env_id, a)),
        }
        for name, (rewards, observations, info) in got.items():
            assert rewards == ref_rewards, (name, task_id)
            assert observations == ref_obs, (name, task_id)
            assert (info["success"], info["score"]) == (ref_info["success"], ref_info["score"])
            assert "truncation_reason" not in info


def test_make_llm_env_stack_order_and_defaults() -> None:
    env = make_llm_env("Wordle-v0", record=None)
    names = []
    layer = env
    while isinstance(layer, gym.Wrapper):
        names.append(type(layer).__name__)
        layer = layer.env
    assert names[:5] == ["ChatHistory", "WallClockLimit", "TurnLimit", "ReAct", "OrderEnforcing"]
    assert env.get_wrapper_attr("max_turns") == 8 and env.get_wrapper_attr("max_seconds") == 300.0
    assert agentgym_envs.make_llm_env is make_llm_env


def test_make_llm_env_options(tmp_path) -> None:
    env = make_llm_env(
        "AgentGym/Maze-v0",
        format="tools",
        max_rounds=3,
        max_seconds=None,
        history=False,
        shaping={"step_penalty": 0.1},
        record=tmp_path / "t.jsonl",
    )
    names = []
    layer = env
    while isinstance(layer, gym.Wrapper):
        names.append(type(layer).__name__)
        layer = layer.env
    assert names[:4] == ["RecordTrajectory", "TurnLimit", "RewardShaping", "FunctionCalling"]
    assert env.get_wrapper_attr("max_turns") == 3
    env = make_llm_env(
        "AgentGym/MazeRandom-v0", env_kwargs={"rows": 3, "cols": 3}, curriculum=[2, 4]
    )
    assert env.get_wrapper_attr("max_turns") == 2
    with pytest.raises(ValueError, match="'json'"):
        make_llm_env("Maze-v0", format="json")
    with pytest.raises(ValueError, match="not both"):
        make_llm_env("Maze-v0", max_rounds=3, curriculum="babyai")
    with pytest.raises(TypeError):
        make_llm_env("Maze-v0", max_turns=3)  # type: ignore[call-arg]
    with pytest.raises(agentgym_envs.errors.UnknownEnvError, match="did you mean"):
        make_llm_env("AgentGym/Wordel-v0")


def test_make_llm_env_wall_clock_is_injectable() -> None:
    now = [0.0]
    env = make_llm_env("Maze-v0", max_seconds=10, clock=lambda: now[0])
    env.reset(options={"split": "test", "task_id": 0})
    now[0] = 11.0
    _, _, terminated, truncated, info = env.step("Action: move up")
    assert truncated and not terminated and info["truncation_reason"] == "wall_clock"


def test_stack_pickles_and_vectorizes(tmp_path) -> None:
    import pickle

    env = make_llm_env(
        "Maze-v0", curriculum=[3, 5], shaping={"step_penalty": 0.1}, record=tmp_path / "t.jsonl"
    )
    env.reset(options={"split": "test", "task_id": 1})
    env.step("Action: move up")
    clone = pickle.loads(pickle.dumps(env))
    assert clone.step("Action: move up")[1:4] == env.step("Action: move up")[1:4]
    envs = gym.vector.SyncVectorEnv([lambda: make_llm_env("Maze-v0") for _ in range(2)])
    obs, info = envs.reset(options={"split": "test", "task_id": 0})
    assert obs[0] == obs[1] and obs[0].endswith(info["env_observation"][0])
    obs, _, _, _, info = envs.step(["Thought: t\nAction: move up", "no action"])
    # AgentGym's Maze client sends a reply without "Action:" whole: the env judges it
    assert info["action"][1] == "no action" and not obs[1].startswith("Invalid")
    assert info["action"][0] == "move up"
    assert len(info["messages"][0]) == 4
