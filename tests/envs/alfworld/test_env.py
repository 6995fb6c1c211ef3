"""The env: AgentGym's views of the engine's texts, info, errors, LLM hooks."""

from __future__ import annotations

import pickle

import gymnasium as gym
import pytest

import agentgym_envs
from agentgym_envs.envs.alfworld.env import (
    AlfWorldEnv,
    agentgym_reset_view,
    agentgym_step_view,
    normalize_command,
)


def test_reset_drops_the_banner_like_agentgym():
    env = gym.make("AgentGym/ALFWorld-v0")
    obs, info = env.reset(seed=0, options={"split": "test", "task_id": 0})
    assert obs.startswith("You are in the middle of a room. Looking quickly around you, you see a ")
    room, task, actions = obs.split("\n")
    assert task.startswith("Your task is to: ") and task.endswith(".")
    assert (
        info["task_type"] == "pick_and_place_simple" and task == f"Your task is to: {info['goal']}."
    )
    assert info["available_actions"] == sorted(info["available_actions"])
    assert {"inventory", "look"} <= set(info["available_actions"]) and "help" not in info[
        "available_actions"
    ]
    # AgentGym's client adds the admissible commands to the first turn, comma-joined
    assert actions == "AVAILABLE ACTIONS: " + ",".join(info["available_actions"])
    raw = AlfWorldEnv(raw_observations=True).reset(options={"split": "test", "task_id": 0})[0]
    assert (
        raw.startswith("-= Welcome to TextWorld, ALFRED! =-\n\n")
        and agentgym_reset_view(raw) == f"{room}\n{task}"
    )
    plain = AlfWorldEnv(show_actions=False).reset(options={"split": "test", "task_id": 0})[0]
    assert plain == f"{room}\n{task}"
    assert (
        AlfWorldEnv(raw_observations=True, show_actions=True)
        .reset(options={"split": "test", "task_id": 0})[0]
        .endswith("\n" + actions)
    )


def test_only_the_first_turn_lists_the_actions():
    env = AlfWorldEnv()
    _, info = env.reset(options={"split": "test", "task_id": 3})
    obs, *_ = env.step(info["available_actions"][0])
    assert "AVAILABLE ACTIONS" not in obs


def test_go_to_loses_the_loc_prefix_in_agentgym_view():
    assert agentgym_step_view("You arrive at loc 5. On the countertop 1, you see nothing.") == (
        "On the countertop 1, you see nothing."
    )
    assert agentgym_step_view(
        "You arrive at countertop 1. On the countertop 1, you see nothing."
    ).startswith("You arrive")
    env = AlfWorldEnv()
    _, info = env.reset(options={"split": "test", "task_id": 3})
    target = next(a for a in info["available_actions"] if a.startswith("go to "))
    obs, _reward, _terminated, _truncated, info = env.step(target)
    name = target[len("go to ") :]
    assert obs.startswith((f"On the {name}, you see", f"The {name} is closed."))
    env42 = AlfWorldEnv(grammar="0.4.2")
    _, info = env42.reset(options={"split": "test", "task_id": 3})
    assert "help" in info["available_actions"]
    assert env42.step(target)[0].startswith(f"You arrive at {name}. ")


def test_inadmissible_commands_are_feedback_and_commands_are_normalised():
    env = AlfWorldEnv()
    env.reset(options={"split": "test", "task_id": 0})
    obs, reward, terminated, _, info = env.step("fly to the moon")
    assert (
        obs == "Nothing happens."
        and reward == 0
        and not terminated
        and "not an admissible" in info["error"]
    )
    obs, *_, info = env.step("  LOOK. ")
    assert (
        obs == "You are in the middle of a room. Looking quickly around you, you see nothing."
        and "error" not in info
    )
    assert normalize_command("Go  To   Fridge 1.") == "go to fridge 1"


def test_success_reward_and_end_of_episode():
    env = gym.make("AgentGym/ALFWorld-v0")
    expert = agentgym_envs.expert_policy(env)
    obs, info = env.reset(seed=0, options={"split": "test", "task_id": 2})
    rewards = []
    while True:
        obs, reward, terminated, _truncated, info = env.step(expert(obs, info))
        rewards.append(reward)
        if terminated:
            break
    assert rewards[-1] == 1.0 and sum(rewards) == 1.0 and info["success"] and info["score"] == 1.0
    obs, reward, terminated, _, info = env.step("look")
    assert "ended" in obs and info["error"]


def test_tool_calls_build_the_grammar():
    env = AlfWorldEnv()
    env.reset(options={"split": "test", "task_id": 0})
    names = [t["function"]["name"] for t in env.tool_schemas()]
    assert names[:3] == ["go_to", "open", "close"] and "put" in names
    assert (
        env.action_from_tool_call("put", {"object": "apple 1", "receptacle": "fridge 1"})
        == "put apple 1 in/on fridge 1"
    )
    assert env.action_from_tool_call(
        "take", {"object": "apple 1", "receptacle": "countertop 1"}
    ) == ("take apple 1 from countertop 1")
    assert env.action_from_tool_call("look", {}) == "look"
    assert (
        AlfWorldEnv(grammar="0.4.2").action_from_tool_call(
            "put", {"object": "a 1", "receptacle": "b 1"}
        )
        == "move a 1 to b 1"
    )
    with pytest.raises(ValueError, match="needs receptacle"):
        env.action_from_tool_call("go_to", {})
    with pytest.raises(ValueError, match="unknown tool"):
        env.action_from_tool_call("fly", {})
    assert "put OBJ in/on RECEP" in env.instructions()


def test_bad_arguments_say_the_mend(monkeypatch):
    # importing alfworld (another test may have) sets ALFWORLD_DATA to its default folder
    monkeypatch.delenv("ALFWORLD_DATA", raising=False)
    with pytest.raises(ValueError, match="'0.3.3' or '0.4.2'"):
        AlfWorldEnv(grammar="1.0")
    with pytest.raises(ValueError, match="'native' or 'alfworld'"):
        AlfWorldEnv(backend="thor")
    with pytest.raises(ValueError, match="needs data_path"):
        AlfWorldEnv(tasks="official")


def test_pickled_env_continues_identically():
    env = AlfWorldEnv()
    env.reset(options={"split": "test", "task_id": 4})
    env.step("look")
    clone = pickle.loads(pickle.dumps(env))
    for cmd in env.available_actions()[:5]:
        assert env.step(cmd)[0] == clone.step(cmd)[0]
        env.step("look"), clone.step("look")


def test_missing_extra_is_a_one_line_error(monkeypatch):
    import sys

    from agentgym_envs.errors import MissingExtraError

    monkeypatch.setitem(sys.modules, "alfworld", None)  # as if not installed
    with pytest.raises(MissingExtraError, match=r'pip install "agentgym-envs\[alfworld\]"') as err:
        gym.make("AgentGym/ALFWorld-v0", backend="alfworld")
    assert "\n" not in str(err.value)
    assert AlfWorldEnv().reset(options={"split": "test", "task_id": 0})[
        0
    ]  # the native engine needs nothing
