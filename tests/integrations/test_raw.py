"""The @agent raw-Python path: policies and env-driving functions, recorded and benchmarked."""

from __future__ import annotations

import json

import pytest

from agentgym_envs.benchmarks import run_benchmark, sweep
from agentgym_envs.integrations.raw import agent
from agentgym_envs.spec import expert_policy


@pytest.mark.parametrize("env_id", ["AgentGym/Maze-v0", "AgentGym/TextCraft-v0"])
def test_env_function_plays_a_recorded_episode(env_id, tmp_path):
    @agent
    def solve(env):
        obs, info = env.reset(options={"task_id": 99})  # the task is pinned: options ignored
        expert = expert_policy(env)
        while True:
            obs, _, terminated, truncated, info = env.step(expert(obs, info))
            if terminated or truncated:
                return

    record = solve.run(env_id, task_id=2, record=tmp_path / "out.jsonl")
    assert record["success"] is True and record["reward"] > 0
    assert record["item_id"].split("_")[-1] != "99"
    saved = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert saved == [record]
    assert record["turns"] == sum(t["from"] == "gpt" for t in record["conversations"])


def test_policy_function_runs_collects_and_benchmarks():
    state = {}

    @agent(name="always-right")
    def right(observation, info):
        state["seen"] = observation
        return "move right"

    record = right.run("Maze-v0", task_id=0, max_rounds=3)
    assert record["turns"] == 3 and record["success"] is False and record["agent"] == "always-right"
    assert "position" in state["seen"]
    records = right.collect("Maze-v0", [0, 1], max_rounds=2)
    assert len(records) == 2 and records[0]["item_id"] != records[1]["item_id"]
    result = run_benchmark("Maze-v0", right.spec(), limit=2, max_rounds=2, reports=False)
    assert len(result.records) == 2 and not any(r["success"] for r in result.records)
    assert sweep("Maze-v0", limit=2).summary is not None


def test_react_format_and_bad_shapes():
    @agent(format="react")
    def react(observation, info):
        return "Thought: go.\nAction: move right"

    record = react.run("Maze-v0", task_id=0, max_rounds=2)
    assert record["conversations"][1] == {"from": "gpt", "loss": False, "value": "Ok."}
    assert record["conversations"][3]["value"].endswith("move right")

    with pytest.raises(TypeError, match="required parameters"):
        agent(lambda: None)
    with pytest.raises(ValueError, match="format"):
        agent(format="xml")

    @agent
    def lazy(env):
        return None

    from agentgym_envs.errors import AgentGymError

    with pytest.raises(AgentGymError, match="never called env.reset"):
        lazy.run("Maze-v0", task_id=0)
    with pytest.raises(AgentGymError, match="drives the env itself"):
        lazy.spec()

    @agent
    def quitter(env):
        env.reset()
        env.step("move right")

    abandoned = quitter.run("Maze-v0", task_id=0)
    assert abandoned["outcome"] == "abandoned" and abandoned["turns"] == 1
