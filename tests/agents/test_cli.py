"""The reference agents through ``agentgym bench --policy agent:<name>`` (and its alias
``agentgym agents bench``): the expert behind the OpenAI interface, and the local model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentgym_envs.agents import AGENTS, ExpertChatServer
from agentgym_envs.cli import app
from agentgym_envs.errors import AgentGymError

FIXTURES = Path(__file__).parents[1] / "datasets" / "fixtures"


def bench(*args, catch: bool = True):
    return CliRunner().invoke(
        app, ["bench", "--no-progress", *map(str, args)], catch_exceptions=catch
    )


def _records(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]


def test_agents_bench_with_the_expert_model(tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        [
            "agents",
            "bench",
            "--agent",
            "multiturn",
            "--model-source",
            "expert",
            "--envs",
            "Maze-v0,Movie-v0",
            "--limit",
            "2",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    records = _records(out)
    assert len(records) == 4 and all(r["success"] for r in records)
    assert "| AgentGym/Maze-v0 | 2 | 1.000 | 100.0% |" in (out / "summary.md").read_text()
    # the alias ran agentgym bench itself: its run folder, table and settings
    assert json.loads((out / "run.json").read_text())["policy"]["name"] == "agent:multiturn"
    assert "agent:multiturn (expert)" in result.output and "Maze-v0" in result.output


def test_agents_bench_rejects_an_unknown_source():
    result = CliRunner().invoke(app, ["agents", "bench", "--model-source", "magic"])
    assert result.exit_code != 0 and "openai, local or expert" in result.output


@pytest.mark.parametrize("agent", ["multistep", "multiturn"])
def test_bench_plays_an_agent_behind_an_endpoint_resumes_and_reports(tmp_path, agent):
    envs = ["AgentGym/Maze-v0", "AgentGym/BabyAI-v0"]
    out = tmp_path / "run"
    with ExpertChatServer(envs) as server:
        args = ["--policy", f"agent:{agent}", "--base-url", server.base_url, "--model", "expert"]
        args += ["--envs", ",".join(envs), "--limit", 2, "--out", out]
        r = bench(*args)
        assert r.exit_code == 0, r.output
        assert "0 episodes run, 4 resumed" in bench(*args).output
    records = _records(out)
    assert len(records) == 4 and all(r["success"] for r in records)
    for rec in records:  # one policy and one env time per turn, in milliseconds
        lat = rec["latency"]
        assert len(lat["policy_s"]) == len(lat["env_s"]) == rec["turns"]
        assert all(t == round(t, 3) for t in lat["policy_s"] + lat["env_s"])
        assert sum(lat["policy_s"]) <= rec["policy_time"] + 0.001 * rec["turns"]
        assert rec["tokens"]["prompt_tokens"] > 0
    run = json.loads((out / "run.json").read_text())
    assert run["policy"]["name"] == f"agent:{agent}" and run["format"] == AGENTS[agent]
    summary = json.loads((out / "summary.json").read_text())
    for env in summary["envs"]:
        assert env["policy_latency_mean"] > 0 and env["env_latency_mean"] >= 0
        turns = [
            t for r in records if r["env_id"] == env["env_id"] for t in r["latency"]["policy_s"]
        ]
        assert min(turns) <= env["policy_latency_p95"] <= max(turns)
    (out / "summary.md").unlink()
    r = CliRunner().invoke(app, ["bench", "report", str(out)])
    assert r.exit_code == 0 and "policy ms" in r.output
    assert "| policy ms/turn | p95 ms |" in (out / "summary.md").read_text()


def test_bench_plays_agenteval_items_with_an_agent_on_the_expert_model(tmp_path):
    r = bench(
        "--policy",
        "agent:multistep-tools",
        "--model-source",
        "expert",
        "--envs",
        "Maze-v0",
        "--items",
        FIXTURES / "agenteval",
        "--limit",
        3,
        "--out",
        tmp_path,
    )
    assert r.exit_code == 0, r.output
    records = _records(tmp_path)
    assert [x["item_id"] for x in records] == [f"lmrlgym_maze_{i}" for i in range(3)]
    assert all(x["success"] for x in records)


def test_bench_agent_names_come_from_one_registry(tmp_path):
    with pytest.raises(AgentGymError) as err:
        bench("--policy", "agent:react", "--envs", "Maze-v0", "--out", tmp_path, catch=False)
    message = str(err.value)
    assert "\n" not in message and all(f"agent:{a}" in message for a in AGENTS)
    with pytest.raises(AgentGymError, match="use agent:multistep-tools or agent:multiturn"):
        bench(
            *("--policy", "agent:multistep", "--format", "tools", "--envs", "Maze-v0"),
            *("--out", tmp_path),
            catch=False,
        )
    with pytest.raises(AgentGymError, match="--model-source local gives a model"):
        bench(
            *("--policy", "expert", "--model-source", "local", "--envs", "Maze-v0"),
            *("--out", tmp_path),
            catch=False,
        )
    assert not (tmp_path / "results.jsonl").exists()


def test_bench_plays_an_agent_on_the_local_model(local_llm, tmp_path):
    r = bench(
        *("--policy", "agent:multiturn", "--base-url", local_llm.base_url),
        *("--envs", "Maze-v0", "--limit", 1, "--max-rounds", 2, "--max-tokens", 48),
        *("--max-reasks", 1, "--out", tmp_path),
    )
    assert r.exit_code == 0, r.output
    (rec,) = _records(tmp_path)
    assert rec["turns"] == 2 and rec["tokens"]["completion_tokens"] > 0
    assert len(rec["latency"]["policy_s"]) == 2 and all(t > 0 for t in rec["latency"]["policy_s"])
    policy = json.loads((tmp_path / "run.json").read_text())["policy"]
    assert policy["max_reasks"] == 1 and policy["model"]
