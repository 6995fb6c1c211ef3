"""``agentgym bench`` / ``agentgym data`` through typer, on an app built from our register_cli."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

typer = pytest.importorskip("typer")
from typer.testing import CliRunner

from agentgym_envs.benchmarks.cli import register_cli as register_bench
from agentgym_envs.datasets.cli import register_cli as register_data

FIXTURES = Path(__file__).parents[1] / "datasets" / "fixtures"


@pytest.fixture(scope="module")
def app():
    app = typer.Typer()

    @app.command("list")
    def _list() -> None:  # a second command so sub-apps are not collapsed into the root
        pass

    register_bench(app)
    register_data(app)
    return app


def run(app, *args):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


def test_bench_run_compare_report(app, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    r = run(
        app,
        "bench",
        "--envs",
        "Maze-v0",
        "--policy",
        "random",
        "--limit",
        "5",
        "--out",
        a,
        "--no-progress",
    )
    assert r.exit_code == 0, r.output
    r = run(
        app,
        "bench",
        "--envs",
        "Maze-v0",
        "--policy",
        "expert",
        "--limit",
        "5",
        "--out",
        b,
        "--no-progress",
    )
    assert r.exit_code == 0 and "100.0%" in r.output and "Maze-v0" in r.output
    assert (b / "summary.md").is_file() and (b / "summary.json").is_file()
    r = run(
        app,
        "bench",
        "--envs",
        "Maze-v0",
        "--policy",
        "expert",
        "--limit",
        "5",
        "--out",
        b,
        "--no-progress",
    )
    assert "0 episodes run, 5 resumed" in r.output
    r = run(app, "bench", "compare", a, b, "--json", "--n-boot", "500")
    data = json.loads(r.output)
    assert data["envs"][0]["paired_items"] == 5 and data["envs"][0]["success"]["diff"] > 0
    r = run(app, "bench", "compare", a, b, "--n-boot", "500")
    assert r.exit_code == 0 and "B better" in r.output
    (b / "summary.md").unlink()
    r = run(app, "bench", "report", b)
    assert r.exit_code == 0 and (b / "summary.md").is_file()


def test_bench_runs_agenteval_files(app, tmp_path):
    r = run(
        app,
        "bench",
        "--envs",
        "Maze-v0",
        "--items",
        FIXTURES / "agenteval",
        "--out",
        tmp_path,
        "--no-progress",
    )
    assert r.exit_code == 0, r.output
    recs = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert [x["item_id"] for x in recs] == [f"lmrlgym_maze_{i}" for i in range(5)]


def test_bench_refuses_agentgym_ids_on_stand_ins_unless_asked(app, tmp_path):
    from agentgym_envs.datasets.items import StandInItemError
    from agentgym_envs.spec import ENV_INFO

    if not ENV_INFO["AgentGym/WebShop-v0"].installed:
        pytest.skip("needs the webshop extra")
    with pytest.raises(StandInItemError, match="--allow-stand-in"):
        run(
            app,
            "bench",
            "--envs",
            "WebShop-v0",
            "--items",
            FIXTURES / "agenteval",
            "--out",
            tmp_path / "a",
        )
    r = run(
        app,
        "bench",
        "--envs",
        "WebShop-v0",
        "--items",
        FIXTURES / "agenteval",
        "--allow-stand-in",
        "--limit",
        "1",
        "--out",
        tmp_path / "b",
        "--no-progress",
    )
    assert r.exit_code == 0, r.output
    assert "embedded stand-in" in r.output and "data_path=" in r.output
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert summary["config"]["families"]["AgentGym/WebShop-v0"]["items"] == "embedded stand-in"


def test_bare_bench_is_a_usage_error_not_a_full_run(app, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(app, ["bench"])
    assert r.exit_code == 2 and "say what to run" in r.output and "--envs all" in r.output
    assert not (tmp_path / "bench-runs").exists()


def test_bench_bad_options(app, tmp_path):
    from agentgym_envs.errors import AgentGymError

    with pytest.raises(AgentGymError, match="--max-rounds"):
        run(app, "bench", "--envs", "Maze-v0", "--max-rounds", "lots", "--out", tmp_path)
    with pytest.raises(AgentGymError, match="unknown policy"):
        run(app, "bench", "--envs", "Maze-v0", "--policy", "oracle", "--out", tmp_path)


def test_data_commands(app, tmp_path):
    src = FIXTURES / "agenttraj_small.json"
    r = run(app, "data", "stats", src, "--json")
    stats = json.loads(r.output)
    assert stats["maze"]["records"] == 3 and stats["wordle"]["records"] == 2
    r = run(app, "data", "stats", src)
    assert "Maze" in r.output and "WebShop" in r.output
    assert run(app, "data", "validate", src).exit_code == 0
    bad = run(app, "data", "validate", FIXTURES / "malformed.jsonl")
    assert bad.exit_code == 1 and "malformed.jsonl:2" in bad.output
    for fmt in ("chat", "sft", "sft-text", "dpo", "agenttraj"):
        out = tmp_path / f"{fmt}.jsonl"
        r = run(app, "data", "convert", src, out, "--to", fmt, "--family", "maze")
        assert r.exit_code == 0 and out.is_file(), r.output
    assert len((tmp_path / "dpo.jsonl").read_text().splitlines()) == 1
    assert len((tmp_path / "sft.jsonl").read_text().splitlines()) == 3
    r = run(app, "data", "replay", src, "--family", "maze", "--family", "wordle")
    assert r.exit_code == 0 and "Maze-v0" in r.output
    r = run(app, "data", "overlap", src)
    assert r.exit_code == 1 and "maze_3" in r.output
    r = run(app, "data", "overlap", src, "--agenteval", FIXTURES / "agenteval")
    assert r.exit_code == 1 and "maze_3" in r.output and "wordle_3499" in r.output
    from agentgym_envs.datasets.items import StandInItemError
    from agentgym_envs.spec import ENV_INFO

    if ENV_INFO["AgentGym/WebShop-v0"].installed:
        with pytest.raises(StandInItemError):
            run(app, "data", "locate", "webshop_6")
        assert "WebShop-v0" in run(app, "data", "locate", "webshop_6", "--allow-stand-in").output
    r = run(app, "data", "locate", "lmrlgym_maze_3", "wordle_3500")
    assert "AgentGym/Maze-v0 split=test task_id=3" in r.output and "task_id=1" in r.output
