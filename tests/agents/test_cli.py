"""``agentgym agents bench`` with the expert behind the OpenAI interface."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from agentgym_envs.cli import app


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
    records = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert len(records) == 4 and all(r["success"] for r in records)
    assert "| AgentGym/Maze-v0 | 2 | 1.000 | 100.0% |" in result.output


def test_agents_bench_rejects_an_unknown_source():
    result = CliRunner().invoke(app, ["agents", "bench", "--model-source", "magic"])
    assert result.exit_code != 0 and "openai, local or expert" in result.output
