"""Field runs with the scripted policies: batteries from the registry, resumable output, events
in a JSONL sink that match the results, exit codes, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest
from typer.testing import CliRunner

from agentgym_envs.cli import app
from agentgym_envs.errors import UnknownEnvError
from agentgym_envs.runner import (
    BATCH_COMPLETED,
    EPISODE_COMPLETED,
    EXIT_EPISODE_ERRORS,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PREFLIGHT,
    FIELD_STATUS,
    battery_ids,
    expand,
    family_category,
    parse_profile,
    run_profile,
    schema_errors,
)
from agentgym_envs.runner.catalog import CATEGORY_NAMES
from agentgym_envs.spec import ENV_INFO

cli = CliRunner()


def _lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_batteries_cover_the_registry_by_category():
    agentgym_ids = [i for i, info in ENV_INFO.items() if not info.ours]
    batteries = {name: battery_ids(name) for name in ("lightweight", "moderate", "heavy")}
    assert sorted(i for ids in batteries.values() for i in ids) == sorted(agentgym_ids)
    for name, ids in batteries.items():
        assert all(family_category(ENV_INFO[i].family) == name for i in ids)
    assert all(family_category(i.family) in CATEGORY_NAMES for i in ENV_INFO.values())
    assert family_category("sciworld") == "heavy" and family_category("maze") == "lightweight"
    assert "AgentGym/SciWorld-v0" in batteries["heavy"]
    assert "AgentGym/BabyAI-v0" in batteries["lightweight"]


def test_names_resolve_and_unknown_ones_suggest():
    assert expand(["BabyAI,TextCraft", "Maze-v0", "AgentGym/Maze-v0"]) == [
        "AgentGym/BabyAI-v0",
        "AgentGym/TextCraft-v0",
        "AgentGym/Maze-v0",
    ]
    assert expand(["mine"], {"mine": ["wordle", "lightweight"]})[0] == "AgentGym/Wordle-v0"
    with pytest.raises(UnknownEnvError, match="did you mean 'TextCraft'"):
        expand(["TextCraf"])


def _profile(tmp_path, **extra):
    data = {
        "node": "n1",
        "model": {"policy": "expert"},
        "envs": ["Maze", "Wordle"],
        "episodes": 2,
        "repeat": 2,
        "output": str(tmp_path / "out"),
        "sinks": [{"type": "jsonl"}],
        **extra,
    }
    return parse_profile(data)


def test_batch_writes_results_and_matching_events_then_resumes(tmp_path):
    result, left = run_profile(_profile(tmp_path))
    out = tmp_path / "out"
    assert result.exit_code == EXIT_OK and (result.ran, result.skipped) == (8, 0)
    assert left == {"jsonl": 0}
    results = _lines(out / "results.jsonl")
    events = _lines(out / "events.jsonl")
    assert all(schema_errors(e) == [] for e in events)
    episodes = [e for e in events if e["event"] == EPISODE_COMPLETED]
    assert sorted(e["episode_id"] for e in episodes) == sorted(r["episode_id"] for r in results)
    assert Counter((r["env_id"], r["repeat"]) for r in results) == {
        (env, rep): 2 for env in ("AgentGym/Maze-v0", "AgentGym/Wordle-v0") for rep in (0, 1)
    }
    by_id = {r["episode_id"]: r for r in results}
    for e in episodes:
        r = by_id[e["episode_id"]]
        assert (e["reward"], e["rounds"], e["outcome"]) == (r["reward"], r["turns"], "success")
        assert e["model"] == "expert" and e["node"] == "n1"
    batches = {e["env"]: e for e in events if e["event"] == BATCH_COMPLETED}
    assert set(batches) == {"AgentGym/Maze-v0", "AgentGym/Wordle-v0"}
    for env, batch in batches.items():
        rewards = [r["reward"] for r in results if r["env_id"] == env]
        assert batch["n_episodes"] == 4 and batch["mean_reward"] == pytest.approx(sum(rewards) / 4)
    assert [e["status"] for e in events if e["event"] == FIELD_STATUS] == ["started", "completed"]
    summary = json.loads((out / "summary.json").read_text())
    assert [s["episodes"] for s in summary["envs"]] == [4, 4]

    again, _ = run_profile(_profile(tmp_path))  # everything is there: nothing is played
    assert (again.ran, again.skipped, again.run_id) == (0, 8, result.run_id)
    more, _ = run_profile(_profile(tmp_path, episodes=3))  # one more task per env and repeat
    assert (more.ran, more.skipped) == (4, 8)
    assert len(_lines(out / "results.jsonl")) == 12
    new_events = _lines(out / "events.jsonl")[len(events) :]
    assert Counter(e["event"] for e in new_events)[EPISODE_COMPLETED] == 4
    with pytest.raises(Exception, match="other settings"):
        run_profile(_profile(tmp_path, seed=7))


def test_episodes_that_raise_are_env_errors_and_are_played_again(tmp_path):
    broken = [{"id": "Maze", "kwargs": {"no_such_argument": 1}}]
    result, _ = run_profile(_profile(tmp_path, envs=broken, repeat=1))
    assert result.exit_code == EXIT_EPISODE_ERRORS and result.summaries[0].errors == 2
    assert result.summaries[0].outcomes == {"env_error": 2}
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["envs"][0]["outcomes"] == {"env_error": 2}
    events = _lines(tmp_path / "out" / "events.jsonl")
    outcomes = [e["outcome"] for e in events if e["event"] == EPISODE_COMPLETED]
    assert outcomes == ["env_error", "env_error"]
    fixed, _ = run_profile(_profile(tmp_path, envs=["Maze"], repeat=1))
    assert fixed.exit_code == EXIT_OK and fixed.ran == 2


def test_cli_list_envs_dry_run_and_run_exit_codes(tmp_path):
    out = str(tmp_path / "cli")
    listed = cli.invoke(app, ["run", "--run", "lightweight", "--list-envs"])
    assert listed.exit_code == EXIT_OK, listed.output
    assert "BabyAI-v0" in listed.stdout and "lightweight" in listed.stdout
    dry = cli.invoke(app, ["run", "BabyAI,TextCraft", "--dry-run", "--out", out])
    assert dry.exit_code == EXIT_OK, dry.output
    assert "made and reset" in dry.stdout
    assert not (tmp_path / "cli").exists()  # no episode, no output
    down = cli.invoke(app, ["run", "Maze", "--dry-run", "--base-url", "http://127.0.0.1:9/v1"])
    assert down.exit_code == EXIT_PREFLIGHT and "no endpoint answers" in down.stdout
    ran = cli.invoke(app, ["run", "--run", "Maze,Wordle", "--episodes", "2", "--out", out])
    assert ran.exit_code == EXIT_OK, ran.output
    assert "outcomes" in ran.stdout and "Maze-v0    success 2" in ran.stdout
    assert len(_lines(tmp_path / "cli" / "results.jsonl")) == 4
    legacy = cli.invoke(app, ["run", "Maze-v0", "--episodes", "3"])  # the one-env run
    assert legacy.exit_code == 0 and "100.0%" in legacy.stdout


def test_ctrl_c_stops_cleanly_and_keeps_what_finished(tmp_path):
    out = tmp_path / "long"
    command = [sys.executable, "-m", "agentgym_envs.cli", "run", "lightweight", "--policy"]
    command += ["random", "--episodes", "90", "--repeat", "20", "--out", str(out)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        if results.is_file() and results.stat().st_size > 0:
            break
        time.sleep(0.2)
    assert proc.poll() is None, proc.communicate()
    os.kill(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=240)
    assert proc.returncode == EXIT_INTERRUPTED, stderr
    kept = _lines(results)  # every line whole
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "interrupted" and 0 < len(kept) < 10 * 90 * 20
    assert sum(s["episodes"] for s in summary["envs"]) == len(kept)
