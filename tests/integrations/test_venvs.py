"""Ecosystem venv builds show progress and where their log is; the agentgym-envs wheel that
``agentgym export`` ships is built once per version and source hash."""

from __future__ import annotations

import logging
import sys
import zipfile

from agentgym_envs.integrations import venvs


def test_installer_milestones_are_logged_and_the_whole_output_is_kept(tmp_path, caplog):
    log = tmp_path / "build.log"
    script = (
        "print('Resolved 63 packages in 2.04s'); print('noise'); print('Installed 63 packages')"
    )
    with caplog.at_level(logging.INFO, logger=venvs.__name__):
        code = venvs.run_logged([sys.executable, "-c", script], log, "openreward venv")
    assert code == 0
    shown = [r.getMessage() for r in caplog.records]
    assert [m.split("] ", 1)[1] for m in shown] == [
        "Resolved 63 packages in 2.04s",
        "Installed 63 packages",
    ]
    assert all(m.startswith("openreward venv [") for m in shown)
    assert "noise" in log.read_text() and log.read_text().startswith("$ ")


def test_the_wheel_is_built_once_per_source_hash_and_holds_the_families_data():
    first = venvs.package_wheel()
    assert venvs.package_wheel() == first  # cached: the same file, no second build
    assert first.parent.name.endswith(venvs.source_digest())
    with zipfile.ZipFile(first) as wheel:
        names = wheel.namelist()
    assert "agentgym_envs/envs/maze/__init__.py" in names
    assert any(n.startswith("agentgym_envs/envs/wordle/data/") for n in names)


def test_a_build_called_with_no_logging_set_up_still_shows_its_progress(tmp_path):
    """A script that calls :func:`venvs.ecosystem_python` without configuring logging sees the
    build's lines on stderr (the build wraps itself in :func:`venvs.progress_shown`); once the
    build is over, the module's INFO lines are silent again."""
    import subprocess

    script = (
        "import logging, sys\n"
        "from pathlib import Path\n"
        "from agentgym_envs.integrations import venvs\n"
        "log = Path(sys.argv[1])\n"
        "with venvs.progress_shown():\n"
        "    venvs.logger.info('building the openreward environment (log: %s)', log)\n"
        "    venvs.run_logged([sys.executable, '-c', \"print('Resolved 63 packages')\"], log,"
        " 'openreward venv')\n"
        "venvs.logger.info('after the build')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "build.log")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == f"building the openreward environment (log: {tmp_path / 'build.log'})"
    assert lines[1].startswith("openreward venv [") and lines[1].endswith("] Resolved 63 packages")
    assert "after the build" not in done.stderr
