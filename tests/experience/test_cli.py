"""``agentgym experience`` and ``agentgym dashboard`` through the real CLI app."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from agentgym_envs.cli import app


def test_import_feedback_export_versions_and_ab_from_the_command_line(bench_runs, tmp_path):
    runner = CliRunner()
    db = str(tmp_path / "cli.db")

    def run(*args: str, store: bool = True) -> str:
        result = runner.invoke(app, [*args, "--db", db] if store else list(args))
        assert result.exit_code == 0, result.output
        return result.output

    out = run("experience", "import", str(bench_runs["expert"]), str(bench_runs["random"]))
    assert "40 episodes added, 0 already stored, 2 runs" in out
    assert "0 episodes added, 40 already stored" in run(
        "experience",
        "import",
        str(bench_runs["expert"].parent / "expert"),
        str(bench_runs["random"]),
    )
    runs = json.loads(run("experience", "runs", "--json"))
    assert [(r["name"], r["episodes"]) for r in runs] == [("expert", 20), ("random", 20)]
    run(
        "experience",
        "feedback",
        "add",
        "2",
        "--step",
        "0",
        "--label",
        "bad",
        "--author",
        "cli-user",
        "--comment",
        "no",
    )
    exported = [
        json.loads(x)
        for x in run("experience", "feedback", "export", "--source", "human").splitlines()
    ]
    assert [(f["episode_id"], f["step_index"], f["author"]) for f in exported] == [
        (2, 0, "cli-user")
    ]
    sft = tmp_path / "sft.jsonl"  # SFT imitates: the successful episodes by default
    assert "10 sft records" in run(
        "experience", "export", "sft", "-o", str(sft), "--env", "Maze-v0"
    )
    assert all(json.loads(x)["success"] for x in sft.read_text().splitlines())
    assert "20 sft records" in run(
        "experience", "export", "sft", "-o", str(sft), "--env", "Maze-v0", "--include-failed"
    )
    assert len(sft.read_text().splitlines()) == 20
    ab = run(
        "experience",
        "ab",
        "run",
        "t",
        "--arm",
        "a@1=expert",
        "--arm",
        "b@1=random",
        "--envs",
        "Maze-v0",
        "--limit",
        "12",
    )
    assert "significant difference in success" in ab
    run("experience", "versions", "promote", "a@1")
    assert "no previous version" in run("experience", "versions", "rollback", "a")
    scen = run(
        "experience",
        "scenarios",
        "MazeRandom-v0",
        "2",
        "--param",
        "rows=3:4",
        "--perturb",
        "case",
        store=False,
    )
    assert [json.loads(x)["perturb"]["kinds"] for x in scen.splitlines()] == [["case"], ["case"]]
    bad = runner.invoke(
        app, ["experience", "feedback", "add", "2", "--label", "meh", "--author", "x", "--db", db]
    )
    assert bad.exit_code != 0
    assert "--port" in run("dashboard", "--help", store=False)
