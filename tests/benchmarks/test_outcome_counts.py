"""Every summary says why its episodes ended: outcome counts in the bench table, its reports
and the field runner's summary, so a run that hit a limit on every episode is not "0%, errors 0"."""

from __future__ import annotations

import json

import pytest

typer = pytest.importorskip("typer")
from typer.testing import CliRunner

from agentgym_envs.benchmarks.cli import register_cli
from agentgym_envs.benchmarks.report import count_outcomes, outcome_of, summarize


@pytest.fixture(scope="module")
def app():
    app = typer.Typer()
    app.command("noop")(lambda: None)
    register_cli(app)
    return app


def test_a_bench_where_every_episode_hits_the_turn_limit_says_so(app, tmp_path):
    out = tmp_path / "run"
    args = ["bench", "--envs", "Maze-v0", "--policy", "random", "--max-rounds", "1"]
    args += ["--limit", "4", "--out", str(out), "--no-progress"]
    r = CliRunner().invoke(app, args, catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert "outcomes" in r.output and "Maze-v0  turn_limit 4" in r.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["overall"]["outcomes"] == {"turn_limit": 4}
    assert summary["envs"][0]["outcomes"] == {"turn_limit": 4}
    assert "turn_limit 4" in (out / "summary.md").read_text()


def test_outcome_counts_follow_the_contract_order_and_read_old_records():
    records = [
        {"env_id": "E", "item_id": "e_0", "reward": 0.0, "outcome": "time_limit"},
        {"env_id": "E", "item_id": "e_1", "reward": 1.0, "success": True, "terminated": True},
        {"env_id": "E", "item_id": "e_2", "reward": 0.0, "error": "RuntimeError: boom"},
        {"env_id": "E", "item_id": "e_3", "reward": 0.0, "truncation_reason": "max_rounds"},
        {"env_id": "E", "item_id": "e_4", "reward": 0.0, "outcome": "time_limit"},
    ]
    assert [outcome_of(r) for r in records] == [
        "time_limit",
        "success",
        "env_error",
        "turn_limit",
        "time_limit",
    ]
    assert list(count_outcomes(records).items()) == [
        ("success", 1),
        ("turn_limit", 1),
        ("time_limit", 2),
        ("env_error", 1),
    ]
    table = summarize(records).to_markdown()
    assert "success 1, turn_limit 1, time_limit 2, env_error 1" in table
