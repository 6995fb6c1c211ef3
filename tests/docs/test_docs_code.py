"""Every page's code runs: its Python blocks, and the shell blocks marked to run, in page order.

One test per page (so xdist spreads the pages over workers). The blocks of a page share one
module namespace and one working folder, like a notebook; the servers a page declares
(``<!-- docs-test: server PORT COMMAND -->``) are started first, each on a free port that
replaces ``PORT`` in the page's code. Shell blocks run under ``bash -euo pipefail`` with an
``agentgym`` on the PATH that is this checkout's.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest

from agentgym_envs.docs_check import PYTHON, Server, code_blocks

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if code_blocks(p.read_text("utf-8")).runnable)
#: Seconds a server may take to accept connections (loaded CI machines start slowly).
SERVER_START = 120
#: Seconds one shell block may run.
SHELL_TIMEOUT = 600


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _substitute(text: str, ports: dict[int, int]) -> str:
    for port, free in ports.items():
        text = re.sub(rf"(?<![\w.]){port}(?!\w)", str(free), text)
    return text


def _environment(folder: Path) -> dict[str, str]:
    """This interpreter's ``agentgym`` first on the PATH, this checkout first on the path."""
    shims = folder / ".bin"
    shims.mkdir(exist_ok=True)
    shim = shims / "agentgym"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m agentgym_envs.cli "$@"\n')
    shim.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{shims}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["COLUMNS"] = "160"
    return env


@contextlib.contextmanager
def _server(server: Server, ports: dict[int, int], folder: Path, env: dict[str, str]):
    command = _substitute(server.command, ports)
    log = (folder / f".server-{server.port}.log").open("w")
    process = subprocess.Popen(
        ["bash", "-c", f"exec {command}"],
        cwd=folder,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + SERVER_START
        while True:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", ports[server.port]), timeout=2),
            ):
                break
            if process.poll() is not None or time.monotonic() > deadline:
                log.flush()
                output = Path(log.name).read_text()[-2000:]
                pytest.fail(f"server `{command}` did not start:\n{output}")
            time.sleep(0.2)
        yield
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, 15)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.wait(timeout=30)
        log.close()


@contextlib.contextmanager
def _ray_cluster_page(folder: Path, env: dict[str, str]):
    """A page that starts Ray clusters: one cluster on the machine at a time (the Ray tests'
    lock), recorded in the page's own folder, and whatever it left running ended after it."""
    filelock = pytest.importorskip("filelock")
    from tests.rollout.conftest import RAY_LOCK

    env["AGENTGYM_HOME"] = str(folder / ".agentgym")
    with filelock.FileLock(str(RAY_LOCK), timeout=1800):
        try:
            yield
        finally:
            subprocess.run(
                [sys.executable, "-m", "agentgym_envs.cli", "ray", "down", "--all"],
                env=env, capture_output=True, timeout=300, check=False,
            )  # fmt: skip


def test_pages_with_code_are_found():
    names = {p.relative_to(DOCS).as_posix() for p in PAGES}
    assert {"index.md", "guides/quickstart.md", "guides/experience.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_page_code_runs(page, tmp_path, monkeypatch):
    name = page.relative_to(DOCS).as_posix()
    parsed = code_blocks(page.read_text("utf-8"))
    assert not parsed.errors, f"{name}: {parsed.errors}"
    monkeypatch.chdir(tmp_path)
    env = _environment(tmp_path)
    monkeypatch.setenv("PATH", env["PATH"])
    ports = {s.port: _free_port() for s in parsed.servers}
    module = types.ModuleType("docs_page_" + re.sub(r"\W", "_", name))
    monkeypatch.setitem(sys.modules, module.__name__, module)  # classes defined there pickle
    with contextlib.ExitStack() as stack:
        if any("agentgym ray up" in block.code for block in parsed.runnable):
            stack.enter_context(_ray_cluster_page(tmp_path, env))
        for server in parsed.servers:
            stack.enter_context(_server(server, ports, tmp_path, env))
        for block in parsed.runnable:
            code = _substitute(block.code, ports)
            where = f"{name}:{block.line}"
            if block.action == "file":
                (tmp_path / block.path).write_text(code + "\n")
            elif block.lang in PYTHON:
                exec(compile(code, where, "exec"), module.__dict__)
            else:
                done = subprocess.run(
                    ["bash", "-euo", "pipefail", "-c", code],
                    cwd=tmp_path,
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=SHELL_TIMEOUT,
                    check=False,
                )
                assert done.returncode == 0, (
                    f"{where} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
                )
