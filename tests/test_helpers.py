"""The package's one cache folder, one file lock and one Chromium finder, and their callers."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from agentgym_envs import browser, paths
from agentgym_envs.locks import LockHeld, file_lock, hold_lock


def test_cache_root_reads_the_package_variable_then_xdg_then_home(monkeypatch, tmp_path):
    monkeypatch.delenv("AGENTGYM_ENVS_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert paths.cache_root("sql") == (tmp_path / "home/.cache/agentgym-envs/sql").resolve()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert paths.cache_root() == (tmp_path / "xdg/agentgym-envs").resolve()
    monkeypatch.setenv("AGENTGYM_ENVS_CACHE", str(tmp_path / "mine"))
    assert paths.cache_root("a", "b") == (tmp_path / "mine/a/b").resolve()
    assert not (tmp_path / "mine").exists()  # nothing is created


def test_every_cache_lives_below_the_one_root(monkeypatch, tmp_path):
    from agentgym_envs.benchmarks.hf_server import cache_dir as converted
    from agentgym_envs.benchmarks.model_wheel import cached_path
    from agentgym_envs.envs.sql.build import cache_root as sql
    from agentgym_envs.envs.tw_games.games import cache_dir as textworld
    from agentgym_envs.envs.webarena.sites.build import cache_root as webarena
    from agentgym_envs.integrations.venvs import venv_root

    monkeypatch.setenv("AGENTGYM_ENVS_CACHE", str(tmp_path))
    monkeypatch.delenv("AGENTGYM_VENV_DIR", raising=False)
    root = tmp_path.resolve()
    model = tmp_path / "m.gguf"
    model.write_bytes(b"x")
    for where in (sql(), textworld(), webarena(), cached_path(), converted(model), venv_root()):
        assert root in where.parents, where


_HOLD = """
import sys, time
from agentgym_envs.locks import file_lock
with file_lock(sys.argv[1]):
    print("held", flush=True)
    sys.stdin.readline()
    open(sys.argv[2], "w").write("first")
"""


def test_file_lock_makes_a_second_process_wait(tmp_path):
    lock, mark = tmp_path / "sub" / "x.lock", tmp_path / "mark"
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(lock), str(mark)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline().strip() == "held"
    with pytest.raises(LockHeld):  # held by the other process: not free now
        hold_lock(lock, "me").close()
    holder.stdin.write("\n")
    holder.stdin.flush()
    with file_lock(lock):  # waits until the holder has written and let go
        assert mark.read_text() == "first"
    assert holder.wait(60) == 0


def test_hold_lock_says_who_holds_it(tmp_path):
    first = hold_lock(tmp_path / ".lock", "pid 123")
    with pytest.raises(LockHeld) as held:
        hold_lock(tmp_path / ".lock", "pid 456")
    assert held.value.holder == "pid 123"
    first.close()
    hold_lock(tmp_path / ".lock", "pid 456").close()  # free once the handle is closed


def _executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_a_machine_with_only_the_headless_shell_has_chromium(monkeypatch, tmp_path):
    """The finder, the doctor and the field runner's catalog agree, and a headless shell
    alone counts (it used to be reported missing by the catalog and the doctor)."""
    from agentgym_envs import doctor
    from agentgym_envs.runner.catalog import find_program

    shell = _executable(tmp_path / "bin" / "chromium-headless-shell")
    monkeypatch.delenv(browser.CHROMIUM_ENV, raising=False)
    monkeypatch.setattr(browser, "SYSTEM_CHROMIUMS", (str(tmp_path / "none"),) * 2)
    monkeypatch.setenv("PATH", str(shell.parent))
    assert browser.chromium_path() == str(shell)
    assert find_program("chromium") == str(shell)
    assert doctor.chromium_check().ok
    assert browser.chromium_path(headless_shell=False) is None  # a page that needs the full one
    full = _executable(tmp_path / "bin" / "chromium")
    assert browser.chromium_path(headless_shell=False) == str(full)
    chosen = _executable(tmp_path / "elsewhere" / "my-chrome")
    monkeypatch.setenv(browser.CHROMIUM_ENV, str(chosen))
    assert browser.chromium_path() == find_program("chromium") == str(chosen)
    monkeypatch.setenv(browser.CHROMIUM_ENV, str(tmp_path / "missing"))
    assert browser.chromium_path() == str(shell)  # a wrong variable falls back
    monkeypatch.setenv("PATH", os.devnull)
    assert browser.chromium_path() is None
    check = doctor.chromium_check()
    assert not check.ok and check.detail == "apt-get install -y chromium-headless-shell"
