"""Every bad option or path given to ``agentgym`` is one line on stderr and a non-zero exit."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

pytest.importorskip("typer")
from agentgym_envs.cli import main

_MAIN = "from agentgym_envs.cli import main; main()"


def _agentgym(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "AGENTGYM_DEBUG"}
    return subprocess.run(
        [sys.executable, "-c", _MAIN, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**env, "COLUMNS": "100"},
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["nope"], "No such command 'nope'"),
        (["play"], "Missing argument"),
        (["play", "Nope-v0"], "unknown env id 'Nope-v0'"),
        (["play", "Wordle-v0", "--task-id", "99999"], "out of range"),
        (["play", "Wordle-v0", "--split", "nope"], "unknown split 'nope'"),
        (["play", "Wordle-v0", "--seed", "-3"], "'--seed'"),
        (["run", "Maze-v0", "--episodes", "0"], "'--episodes'"),
        (["run", "Maze-v0", "--max-rounds", "-5"], "'--max-rounds'"),
        (["run", "Maze-v0", "--bogus"], "No such option: --bogus"),
        (["run", "Maze-v0", "--policy", "nope"], "unknown policy 'nope'"),
        (["run", "--config", "/nonexistent/profile.yaml"], "no such profile file"),
        (["serve", "Maze-v0", "--max-sessions", "0"], "sessions"),
        (["serve", "Maze-v0", "--port", "99999"], "from 1 to 65535"),
        (["serve", "Maze-v0", "--request-timeout", "-1"], "--request-timeout"),
        (["bench"], "--envs"),
    ],
)
def test_bad_options_are_one_line_errors(args, says, monkeypatch, capsys):
    # in this process: main() is the console entry point; the subprocess tests below prove
    # that the installed command behaves the same
    monkeypatch.delenv("AGENTGYM_DEBUG", raising=False)
    monkeypatch.setattr(sys, "argv", ["agentgym", *args])
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    with pytest.raises(SystemExit) as done:
        main()
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert done.value.code == 2, captured.err[-1500:]
    assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0], lines
    assert "Traceback" not in captured.out


def test_the_command_exits_2_with_one_line():
    done = _agentgym("serve", "Maze-v0", "--port", "-1")
    assert done.returncode == 2, (done.returncode, done.stderr[-1500:])
    assert done.stderr.count("\n") == 1 and "from 1 to 65535" in done.stderr


def test_an_output_path_that_is_a_file_is_a_one_line_error(tmp_path):
    taken = tmp_path / "taken"
    taken.write_text("x")
    done = _agentgym("run", "Maze-v0", "--out", str(taken), "--repeat", "1")
    # refused by the pre-flight, before any episode
    assert done.returncode == 3, done.stderr[-1500:]
    assert done.stderr.strip() == (
        f"pre-flight: output {taken}: {taken} is a file, not a folder: choose another output"
    )


def test_good_commands_still_succeed():
    done = _agentgym("run", "Maze-v0", "--episodes", "1")
    assert done.returncode == 0 and "100.0%" in done.stdout, done.stderr[-1500:]


def _port_commands(command, path=()):
    for param in getattr(command, "params", ()):
        if param.name == "port":
            yield path
    for name, sub in getattr(command, "commands", {}).items():
        yield from _port_commands(sub, (*path, name))


def test_every_port_option_refuses_what_is_not_a_tcp_port():
    import typer

    from agentgym_envs import cli

    command = typer.main.get_command(cli.app)
    cli._port_checked(command)
    paths = list(_port_commands(command))
    assert {("serve",), ("llm", "serve"), ("serve-shop",), ("dashboard",)} <= set(paths)
    for path in paths:
        for port in ("99999", "65536", "0", "-1", "abc", "80.5", ""):
            with pytest.raises(typer.BadParameter, match="from 1 to 65535"):
                command.main([*path, "--port", port], standalone_mode=False, prog_name="agentgym")
