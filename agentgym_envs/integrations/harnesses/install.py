"""``agentgym harness install``: the pinned harnesses, installed into the harness folder.

Each harness goes into a place of its own in :func:`~agentgym_envs.integrations.harnesses.harness_dir`:
an npm harness into the prefix ``npm/<name>`` (OpenClaw's newer Node first, from the npm
registry's ``node`` package, then OpenClaw with that Node first on ``PATH``, so its install
scripts run on it), a PyPI harness into the venv ``venvs/<name>``, made with a Python of its
version found on ``PATH`` or among pyenv's versions. The commands are the ones
:meth:`~agentgym_envs.integrations.harnesses.base.Harness.install_command` prints.

An installation is all or nothing: it is built where it will stay, with a marker file that says
it is unfinished, and proved by running the installed command (its version, or the venv's
imports). A failed step removes what was built, puts back any older installation it was
replacing, and raises :class:`HarnessInstallError` with the failing command and the tail of its
output (the whole output stays in ``logs/<name>-install.log``). A harness already installed
with its pinned versions is left alone.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path
from typing import BinaryIO

from agentgym_envs.integrations.harnesses.base import (
    Harness,
    HarnessError,
    Step,
    harness_dir,
)
from agentgym_envs.locks import file_lock

logger = logging.getLogger(__name__)

#: Seconds one install command may take (a cold npm install of Cline is a few minutes).
STEP_TIMEOUT = 1800.0
#: The file that marks an installation as unfinished.
UNFINISHED = ".agentgym-installing"
#: Environment variables an install step never inherits (they would point pip elsewhere).
_DROPPED = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PIP_USER", "PIP_TARGET", "PIP_PREFIX")


class HarnessInstallError(HarnessError):
    """A harness could not be installed; the message has the failing command and its output."""


def find_python(version: str) -> str | None:
    """A Python ``version`` (``"3.12"``) able to make venvs: ``python<version>`` on ``PATH``,
    else the newest pyenv version of it (``$PYENV_ROOT``, else ``~/.pyenv``). Its real path,
    or None."""
    candidates = [shutil.which(f"python{version}")]
    root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    found = sorted(
        (root / "versions").glob(f"{version}.*/bin/python{version}"),
        key=lambda p: [int(n) for n in re.findall(r"\d+", p.parent.parent.name)],
        reverse=True,
    )
    for candidate in [*candidates, *map(str, found)]:
        if candidate and (real := _python_of(candidate, version)):
            return real
    return None


def missing_prerequisite(harness: Harness) -> str | None:
    """What this machine lacks to install ``harness`` (npm, or a Python of its version), with
    the mend; None when nothing is missing."""
    if harness.kind == "npm":
        if shutil.which("npm") is None:
            return "npm is not on PATH: install Node.js and npm (apt-get install npm)"
        return None
    if find_python(harness.python) is None:
        return (
            f"no Python {harness.python} on PATH or among pyenv's versions: install one "
            f"(pyenv install {harness.python})"
        )
    return None


def _python_of(candidate: str, version: str) -> str | None:
    """``candidate``'s real executable if it is Python ``version`` with ``venv`` and
    ``ensurepip`` (a pyenv shim of a version not selected is not), else None."""
    probe = "import sys, venv, ensurepip; print('%d.%d' % sys.version_info[:2], sys.executable)"
    try:
        done = subprocess.run(
            [candidate, "-c", probe], capture_output=True, text=True, timeout=60, env=_env()
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    words = done.stdout.split(maxsplit=1)
    if done.returncode != 0 or len(words) != 2 or words[0] != version:
        return None
    return words[1].strip()


def install_command(harness: Harness) -> str:
    """The shell command that installs ``harness`` into the harness folder."""
    python = ""
    if harness.kind == "pip":
        python = find_python(harness.python) or f"python{harness.python}"
    steps = harness.install_steps(harness.prefix(), python)
    return " && ".join(step.shell() for step in steps)


def pins(harness: Harness) -> dict[str, str]:
    """The pinned ``{package: version}`` of ``harness`` (``node`` included; extras dropped)."""
    found = {}
    for spec in [*harness.package.split(), *harness.node.split()]:
        name, _, version = spec.rpartition("@") if harness.kind == "npm" else spec.partition("==")
        found[re.sub(r"\[.*\]", "", name)] = version
    return found


def installed_versions(harness: Harness, prefix: Path | None = None) -> dict[str, str | None]:
    """The version of each pinned package found in the harness's place (None: not there)."""
    prefix = prefix or harness.prefix()
    names = list(pins(harness))
    if harness.kind == "npm":
        found: dict[str, str | None] = {}
        for name in names:
            try:
                meta = json.loads((prefix / "node_modules" / name / "package.json").read_text())
                found[name] = meta.get("version")
            except (OSError, ValueError):
                found[name] = None
        return found
    python = prefix / "bin" / "python"
    probe = (
        "import importlib.metadata as m, json, sys\n"
        "def v(n):\n"
        "    try:\n        return m.version(n)\n"
        "    except m.PackageNotFoundError:\n        return None\n"
        "print(json.dumps({n: v(n) for n in sys.argv[1:]}))"
    )
    try:
        done = subprocess.run(
            [str(python), "-c", probe, *names], capture_output=True, text=True, timeout=120
        )
        return json.loads(done.stdout) if done.returncode == 0 else dict.fromkeys(names)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return dict.fromkeys(names)


def is_installed(harness: Harness) -> bool:
    """Whether ``harness`` is installed, finished, with its pinned versions, in its place."""
    prefix = harness.prefix()
    if not prefix.is_dir() or (prefix / UNFINISHED).exists():
        return False
    return installed_versions(harness, prefix) == pins(harness)


def install(harness: Harness, *, timeout: float = STEP_TIMEOUT) -> bool:
    """Install ``harness`` into its place in the harness folder (see the module docstring).

    Returns:
        True when it was installed now, False when it already was.

    Raises:
        HarnessInstallError: a step failed (nothing of this attempt is left behind).
    """
    prefix = harness.prefix()
    prefix.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(prefix.with_name(f".{prefix.name}.lock")):  # one installer a harness
        if is_installed(harness):
            logger.info("%s is installed already in %s", harness.title, prefix)
            return False
        python = ""
        if harness.kind == "pip":
            python = find_python(harness.python) or ""
            if not python:
                raise HarnessInstallError(
                    f"{harness.title} needs Python {harness.python} and none was found on PATH "
                    f"or in pyenv: install it (pyenv install {harness.python}) and try again"
                )
        log_path = harness_dir() / "logs" / f"{harness.name}-install.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        old = prefix.with_name(f".{harness.name}.old")
        shutil.rmtree(old, ignore_errors=True)
        if (prefix / UNFINISHED).exists():
            shutil.rmtree(prefix)  # an attempt that was killed: nothing to keep
        elif prefix.exists():
            prefix.rename(old)  # put back if this attempt fails
        try:
            prefix.mkdir()
            (prefix / UNFINISHED).write_text(harness.package)
            with log_path.open("wb") as log:
                for step in harness.install_steps(prefix, python):
                    logger.info("installing %s: %s", harness.title, step.shell())
                    _run(step, log, log_path, timeout)
                _check(harness, log, log_path)
            (prefix / UNFINISHED).unlink()
        except BaseException:
            shutil.rmtree(prefix, ignore_errors=True)
            if old.exists():
                old.rename(prefix)
            raise
        shutil.rmtree(old, ignore_errors=True)
    logger.info("%s installed in %s", harness.title, prefix)
    return True


def _run(step: Step, log: BinaryIO, log_path: Path, timeout: float) -> None:
    """Run one install step, its output appended to ``log``; a failure raises with its tail."""
    env = _env(step.path)
    log.write(f"$ {step.shell()}\n".encode())
    log.flush()
    start = log.tell()
    try:
        process = subprocess.Popen(
            step.argv,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    except OSError as exc:
        raise HarnessInstallError(f"`{step.shell()}` could not start: {exc}") from None
    try:
        returncode = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        returncode = None
    finally:
        if process.poll() is None:  # interrupted: leave no installer running
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
    if returncode != 0:
        log.flush()
        ended = f"exited with code {returncode}" if returncode is not None else "timed out"
        raise HarnessInstallError(
            f"`{step.shell()}` {ended} (whole output: {log_path}):\n" + _tail(log_path, start)
        )


def _check(harness: Harness, log: BinaryIO, log_path: Path) -> None:
    """Run the installed harness's :meth:`~Harness.check_command` from its place; it must
    succeed."""
    bin_dir = harness.prefix() / ("node_modules/.bin" if harness.kind == "npm" else "bin")
    executable = shutil.which(harness.binary if harness.kind == "npm" else "python", path=bin_dir)
    if executable is None:
        raise HarnessInstallError(f"{harness.title} installed, but {bin_dir} has no command of it")
    _run(Step(tuple(harness.check_command(executable)), path=str(bin_dir)), log, log_path, 300)


def _env(path: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED}
    if path:
        env["PATH"] = os.pathsep.join([path, env.get("PATH", "")])
    return env


def _tail(path: Path, start: int = 0, lines: int = 15) -> str:
    """The last ``lines`` lines of ``path`` written after byte ``start``."""
    with path.open("rb") as f:
        f.seek(start)
        text = f.read().decode(errors="replace")
    return "\n".join(line.rstrip() for line in text.strip().splitlines()[-lines:])


__all__ = [
    "HarnessInstallError",
    "find_python",
    "install",
    "install_command",
    "installed_versions",
    "is_installed",
    "pins",
]
