"""The ``agentgym`` command, invoked for real through typer's runner and as a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys

from typer.testing import CliRunner

from agentgym_envs.cli import app

runner = CliRunner()


def test_list_json_has_every_id_with_metadata():
    result = runner.invoke(app, ["list", "--json"])
    assert result.exit_code == 0
    records = {r["id"]: r for r in json.loads(result.stdout)}
    for env_id in ("AgentGym/Wordle-v0", "AgentGym/Maze-v0", "AgentGym/MazeRandom-v0"):
        assert records[env_id]["installed"] is True
    assert records["AgentGym/Wordle-v0"]["splits"]["test"] == 25
    assert records["AgentGym/Maze-v0"]["max_rounds"] == 15


def test_list_table_names_the_ids():
    result = runner.invoke(app, ["list"])
    assert result.exit_code == 0 and "AgentGym/Maze-v0" in result.stdout


def test_run_expert_solves_and_random_does_not():
    expert = runner.invoke(
        app, ["run", "AgentGym/Maze-v0", "--policy", "expert", "--episodes", "25"]
    )
    assert expert.exit_code == 0, expert.output
    assert "100.0%" in expert.stdout and "1.000" in expert.stdout
    rand = runner.invoke(app, ["run", "Wordle-v0", "--policy", "random", "--episodes", "5"])
    assert rand.exit_code == 0 and "0.0%" in rand.stdout


def test_play_reads_actions_until_the_episode_ends():
    moves = "move right\nmove right\nmove down\nmove down\nmove down\nmove down\nmove right\nmove right\nmove right\nmove down\nmove down\nmove down\n"
    result = runner.invoke(app, ["play", "Maze-v0", "--task-id", "0"], input=moves)
    assert result.exit_code == 0, result.output
    assert "Success" in result.stdout and "success=True" in result.stdout


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agentgym_envs.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_bad_id_is_one_line_error_with_close_match():
    proc = _cli("run", "AgentGym/Wordel-v0")
    assert proc.returncode == 2
    assert (
        proc.stderr.strip()
        == "error: unknown env id 'AgentGym/Wordel-v0': did you mean 'AgentGym/Wordle-v0'?"
    )


def test_bad_option_is_one_line_error():
    proc = _cli("run", "Maze-v0", "--policy", "genius")
    assert (
        proc.returncode == 2
        and proc.stderr.strip() == "error: unknown policy 'genius': use 'expert' or 'random'"
    )


def test_doctor_reports_families():
    result = runner.invoke(app, ["doctor"])
    assert result.exit_code == 0 and "family wordle" in result.stdout


def test_doctor_checks_the_programs_features_run(monkeypatch):
    from agentgym_envs import doctor

    names = [c.name for c in doctor.run_checks()]
    for name in ("chromium", "local model", "nats-server", "postgresql", "java"):
        assert any(n.startswith(name) for n in names), names
    monkeypatch.setenv("PATH", "/nonexistent")  # nothing on PATH: each says its mend
    monkeypatch.setattr(doctor.glob, "glob", lambda pattern: [])
    nats, pg = doctor.nats_check(), doctor.postgresql_check()
    assert (nats.ok, nats.detail) == (False, "apt-get install -y nats-server")
    assert (pg.ok, pg.detail) == (False, "apt-get install -y postgresql")
    result = runner.invoke(app, ["doctor"])
    assert result.exit_code == 0 and "nats-server" in result.stdout and "missing" in result.stdout


def test_doctor_install_lines_run_as_printed(tmp_path):
    """A family whose library is missing: doctor prints its mend with the extra (Rich markup
    would eat ``[babyai]``), on one line however narrow the terminal, and the line is a
    valid shell command naming a real extra of this package."""
    import os
    import shlex
    from pathlib import Path

    import tomllib
    from packaging.requirements import Requirement

    from agentgym_envs.spec import FAMILIES

    family = FAMILIES["babyai"]
    hide = "".join(f"sys.modules[{m!r}] = None\n" for m in family.requires)
    code = f"import sys\n{hide}sys.argv = ['agentgym', 'doctor']\nfrom agentgym_envs.cli import main\nmain()\n"
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "40"},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    want = f'pip install "agentgym-envs[{family.extra}]"'
    assert want in done.stdout.splitlines(), done.stdout  # a line of its own, whole
    words = shlex.split(want)
    assert subprocess.run(["bash", "-n", "-c", want]).returncode == 0
    extras = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    requirement = Requirement(words[2])
    assert words[:2] == ["pip", "install"] and requirement.name == "agentgym-envs"
    assert requirement.extras <= set(extras["project"]["optional-dependencies"])


def test_an_unknown_id_with_no_close_match_is_one_short_line():
    proc = _cli("play", "Nope-v0")
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert line.startswith("error: unknown env id 'Nope-v0'") and "\n" not in line
    assert "agentgym list" in line or "did you mean" in line
    assert line.count("AgentGym/") <= 1 and len(line) < 160
    proc = _cli("play", "wordl-v0")
    assert "did you mean 'AgentGym/Wordle-v0'?" in proc.stderr


def test_list_at_80_columns_keeps_every_column_readable():
    result = runner.invoke(app, ["list"], env={"COLUMNS": "80"})
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    header = next(line for line in lines if "id" in line and "test" in line)
    for column in ("id", "installed", "test", "rounds", "reward"):
        assert column in header
    assert "AgentGym/TextCraft-v0" in result.stdout and "…" not in result.stdout


def test_play_wordle_shows_the_words_the_game_accepts():
    result = runner.invoke(app, ["play", "Wordle-v0", "--task-id", "0"], input="c r a n e\nquit\n")
    assert result.exit_code == 0, result.output
    assert "allowed words (40)" in result.stdout
    assert "not in the vocabulary (info['allowed_words']" in result.stdout


def test_help_says_which_runtime_serves_the_local_model():
    """transformers is what the main command installs, so the help names it first; llama.cpp
    only where its extra is installed (it used to say --policy local starts llama.cpp)."""
    from agentgym_envs.benchmarks.local_llm import default_runtime, runtime_missing
    from agentgym_envs.docs_check import cli_commands

    commands = cli_commands()
    for path, option in (
        (("bench",), "--policy"),
        (("bench",), "--model-source"),
        (("agents", "bench"), "--model-source"),
    ):
        text = next(p.help for p in commands[path].params if option in p.opts)
        local = text[text.index("local (") :]
        assert local.index("transformers") < local.index("llama.cpp"), text
    expected = "llama.cpp" if runtime_missing("llama.cpp") is None else "transformers"
    assert default_runtime() == expected
