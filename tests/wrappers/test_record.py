"""Recorded AgentTraj trajectories load back and match the episode."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import gymnasium as gym
import pytest

from agentgym_envs import expert_policy, make_llm_env
from agentgym_envs.wrappers import (
    FunctionCalling,
    ReAct,
    RecordTrajectory,
    parse_react,
    read_trajectories,
)
from tests.wrappers.fakes import CounterEnv

ROOT = Path(__file__).resolve().parents[2]


def test_recorded_react_episode_loads_back_and_matches(tmp_path: Path) -> None:
    path = tmp_path / "out" / "maze.jsonl"
    env = make_llm_env("AgentGym/Maze-v0", record=path)
    obs, info = env.reset(seed=0, options={"split": "test", "task_id": 4})
    expert = expert_policy(env)
    replies, observations = [], [info["env_observation"]]
    while True:
        reply = f"Thought: step {len(replies)}\nAction: {expert(obs, info)}"
        obs, _, terminated, truncated, info = env.step(reply)
        replies.append(reply)
        observations.append(obs)
        if terminated or truncated:
            break
    (record,) = read_trajectories(path)
    assert set(record) == {
        "item_id",
        "conversations",
        "reward",
        "success",
        "prompt_set",
        "reply_parser",
        "outcome",
        "reward_valid",
    }
    assert (record["outcome"], record["reward_valid"]) == ("success", True)
    assert record["prompt_set"] == "ours" and record["reply_parser"] == "agentgym:between_actions"
    assert record["item_id"] == env.unwrapped.item_id
    assert (record["reward"], record["success"]) == (info["score"], info["success"]) == (1.0, True)
    conv = record["conversations"]
    assert conv[0] == {"from": "human", "loss": None, "value": info["messages"][0]["content"]}
    assert conv[1] == {"from": "gpt", "loss": False, "value": "Ok."}
    assert [c["value"] for c in conv[2::2]] == observations
    assert [c["value"] for c in conv[3::2]] == replies
    assert all(c["from"] == "human" and c["loss"] is None for c in conv[2::2])
    assert all(c["from"] == "gpt" and c["loss"] is True for c in conv[3::2])
    # The conversation replays: its actions, stepped in a fresh env, reach the same reward.
    replay = gym.make("AgentGym/Maze-v0")
    replay.reset(options={"split": "test", "task_id": 4})
    for turn in conv[3::2]:
        _, _, terminated, _, replay_info = replay.step(parse_react(turn["value"]).action)
    assert terminated and replay_info["score"] == record["reward"]


def test_truncated_and_tool_episodes_are_recorded(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    env = RecordTrajectory(gym.wrappers.TimeLimit(FunctionCalling(CounterEnv()), 2), path)
    env.reset(options={"split": "test", "task_id": 2})
    env.step({"name": "press", "arguments": {"button": "inc"}})
    env.step({"name": "press", "arguments": {"button": "noop"}})
    (record,) = read_trajectories(path)
    assert record["item_id"] == "counter_7" and (record["reward"], record["success"]) == (
        0.0,
        False,
    )
    assert json.loads(record["conversations"][3]["value"]) == {
        "name": "press",
        "arguments": {"button": "inc"},
    }
    assert record["conversations"][-1]["value"] == "Count: 1"
    # cut by the time limit: the agent ran out of turns, its reward stands
    assert (record["outcome"], record["reward_valid"]) == ("turn_limit", True)


class _DiesOnSecondStep(gym.Wrapper):
    def step(self, action):
        if self.env.unwrapped.count >= 1:
            raise ConnectionError("simulator process died")
        return self.env.step(action)


def test_env_error_is_recorded_as_an_invalid_reward_and_raised(tmp_path: Path) -> None:
    from agentgym_envs.datasets import load_agenttraj

    path = tmp_path / "t.jsonl"
    env = RecordTrajectory(_DiesOnSecondStep(ReAct(CounterEnv())), path)
    env.reset(options={"split": "test", "task_id": 1})
    env.step("Thought: up\nAction: inc")
    with pytest.raises(ConnectionError, match="died"):
        env.step("Thought: again\nAction: inc")
    (record,) = read_trajectories(path)
    assert record["outcome"] == "env_error" and record["reward_valid"] is False
    assert record["error"] == "ConnectionError: simulator process died"
    assert (record["reward"], record["success"]) == (0.0, False)
    assert record["conversations"][-1]["value"] == "Count: 1"  # the turns before the crash
    # the loader reads the record back with its outcome; the next episode records normally
    (traj,) = load_agenttraj(path)
    assert traj.ended_by == "env_error" and traj.reward_valid is False
    env.reset(options={"split": "test", "task_id": 0})
    env.step("Action: inc")
    with pytest.raises(ConnectionError):
        env.step("Action: inc")
    assert env.records_written == 2


def test_bare_env_records_and_appends(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    env = RecordTrajectory(CounterEnv(), path)
    for task_id in (0, 1):
        env.reset(options={"split": "train", "task_id": task_id})
        for _ in range(task_id + 2):
            env.step("inc")
    records = read_trajectories(path)
    assert [r["item_id"] for r in records] == ["counter_0", "counter_1"]
    assert records[0]["conversations"] == [
        {"from": "human", "loss": None, "value": "Count to 2. Count: 0"},
        {"from": "gpt", "loss": True, "value": "inc"},
        {"from": "human", "loss": None, "value": "Count: 1"},
        {"from": "gpt", "loss": True, "value": "inc"},
        {"from": "human", "loss": None, "value": "Done!"},
    ]
    assert env.records_written == 2 and env.last_record == records[1]


def test_abandoned_episode_is_not_recorded(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    env = RecordTrajectory(ReAct(CounterEnv()), path)
    env.reset(options={"split": "test", "task_id": 2})
    env.step("Action: inc")
    env.reset(options={"split": "test", "task_id": 0})
    env.step("Action: inc")
    env.step("Action: inc")
    (record,) = read_trajectories(path)
    assert record["item_id"] == "counter_5" and record["success"]
    assert len(record["conversations"]) == 3 + 2 * 2


def test_records_survive_the_process_dying_mid_run(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    script = textwrap.dedent(
        f"""
        import os, sys
        sys.path.insert(0, {str(ROOT)!r})
        from agentgym_envs import make_llm_env
        env = make_llm_env("AgentGym/Maze-v0", record={str(path)!r}, max_rounds=3)
        for episode in range(4):
            env.reset(options={{"split": "test", "task_id": episode}})
            for turn in range(3):
                if episode == 3 and turn == 1:
                    os._exit(9)  # killed mid-episode: no cleanup, no close()
                env.step("Thought: t\\nAction: move up")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 9, result.stderr
    text = path.read_text()
    assert text.endswith("\n") and text.count("\n") == 3
    records = read_trajectories(path)
    assert [r["item_id"] for r in records] == ["maze_0", "maze_1", "maze_2"]
    assert all(len(r["conversations"]) == 3 + 2 * 3 for r in records)


def test_reader_skips_a_torn_last_line_only(tmp_path: Path) -> None:
    good = json.dumps({"item_id": "maze_0", "conversations": [], "reward": 0.0, "success": False})
    path = tmp_path / "t.jsonl"
    path.write_text(good + "\n" + good[:20])
    assert len(read_trajectories(path)) == 1
    path.write_text(good[:20] + "\n" + good + "\n")
    with pytest.raises(ValueError, match=":1: not valid JSON"):
        read_trajectories(path)


def test_bad_path_is_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is a directory"):
        RecordTrajectory(CounterEnv(), tmp_path)


@pytest.mark.parametrize("fmt", ["react", "tools"])
def test_recorded_episodes_replay_consistently_with_the_datasets_loader(
    tmp_path: Path, fmt
) -> None:
    from agentgym_envs.datasets.agenttraj import load_agenttraj
    from agentgym_envs.datasets.replay import replay_all

    path = tmp_path / "episodes.jsonl"
    for env_id, tasks in (("AgentGym/Maze-v0", (0, 7)), ("AgentGym/Wordle-v0", (1,))):
        env = make_llm_env(env_id, format=fmt, record=path)
        expert = expert_policy(env)
        for task_id in tasks:
            obs, info = env.reset(seed=0, options={"split": "test", "task_id": task_id})
            bad = "I am not sure yet." if fmt == "react" else {"name": "jump", "arguments": {}}
            env.step(bad)  # a feedback turn that does not step the env
            while True:
                action = expert(obs, info)
                if fmt == "react":
                    reply = f"Thought: t\nAction: {action}"
                elif "Wordle" in env_id:
                    reply = {"name": "guess", "arguments": {"word": action.replace(" ", "")}}
                else:
                    reply = {"name": "move", "arguments": {"direction": action.split()[-1]}}
                obs, _, terminated, truncated, info = env.step(reply)
                if terminated or truncated:
                    break
    trajectories = load_agenttraj(path)
    assert len(trajectories) == 3
    summary = replay_all(trajectories)
    assert summary.consistent == 3, [r.verdict for r in summary.mismatches()]
    assert all(r.reward_matches and r.observation_match_rate == 1.0 for r in summary.reports)
