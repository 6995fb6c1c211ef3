"""The MCP server under ``mcp`` 2.x, played through 2.x's own client, and across SDK majors.

The shared environment holds ``mcp`` 1.x (CrewAI pins ``mcp<2``), so 2.x runs in a venv of its
own: ``mcp>=2,<3`` and the core dependencies, agentgym-envs installed from this checkout
without its dependencies (and imported from the checkout through ``PYTHONPATH``). It is built
once with pip (pip's cache serves later builds) under the package's cache folder, keyed by the
Python version and the requirements, like the ecosystem venvs of
:mod:`agentgym_envs.integrations.venvs`. The tests skip (loudly) only when the package index
cannot be reached; any other install failure fails them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import subprocess
import sys
import time
import venv
from pathlib import Path

import pytest

from agentgym_envs.benchmarks.local_llm import free_port
from agentgym_envs.integrations import venvs

logger = logging.getLogger(__name__)

DRIVER = Path(__file__).parent / "drivers" / "mcp_client_episode.py"
#: The SDK the venv holds (``AGENTGYM_TEST_MCP2=mcp==2.0.0``: verifiers 0.4's pin instead).
MCP2 = os.environ.get("AGENTGYM_TEST_MCP2", "mcp>=2,<3")
#: pip's words for an index it could not reach (the only failure that skips).
_OFFLINE = re.compile(
    r"NewConnectionError|Failed to establish a new connection|Temporary failure in name "
    r"resolution|Network is unreachable|ConnectTimeout|ProxyError|\(from versions: none\)"
)


def _requirements() -> list[str]:
    """The core dependencies with :data:`MCP2` (the ``mcp`` extra's other packages come with
    it: starlette, uvicorn)."""
    source = venvs.source_root()
    core = [r for r in venvs._requirements(source, ()) if not r.startswith("mcp")]
    return sorted({*core, MCP2, "starlette>=0.40", "uvicorn>=0.29"})


def mcp2_python() -> Path:
    """The interpreter of the ``mcp`` 2.x venv, built on first use."""
    reqs = _requirements()
    digest = hashlib.sha256(f"mcp2|{sys.version}|{'|'.join(reqs)}".encode()).hexdigest()[:12]
    target = venvs.venv_root() / f"mcp2-{digest}"

    def build(python: Path, log: Path) -> str:
        start = time.monotonic()
        venv.EnvBuilder(with_pip=True).create(target)
        pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check"]
        steps = [[*pip, *reqs], [*pip, "--no-deps", "-e", str(venvs.source_root())]]
        for cmd in steps:
            if venvs.run_logged(cmd, log, "mcp 2.x venv") != 0:
                text = log.read_text()
                tail = "\n".join(text.strip().splitlines()[-5:])
                if _OFFLINE.search(text):
                    pytest.skip(
                        f"SKIPPED LOUDLY: the package index is unreachable ({log}):\n{tail}"
                    )
                pytest.fail(f"building the mcp 2.x venv failed (log: {log}):\n{tail}")
        logger.info("built the mcp 2.x venv in %.0f s", time.monotonic() - start)
        return "\n".join(reqs)

    return venvs.venv_built_once(target, build)


def _drive(python: Path | str, job: dict) -> dict:
    """Run the client driver under ``python`` (this checkout's code first on its path)."""
    done = subprocess.run(
        [str(python), str(DRIVER), json.dumps(job)],
        capture_output=True,
        text=True,
        timeout=600,
        env=venvs.ecosystem_env(),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def python2() -> Path:
    return mcp2_python()


@contextlib.contextmanager
def _http_server(python: Path | str, env_id: str):
    """``agentgym mcp <env_id> --transport http`` run by ``python``: its URL."""
    port = free_port()
    cmd = [str(python), "-m", "agentgym_envs.integrations.mcp", env_id]
    proc = subprocess.Popen(
        [*cmd, "--transport", "http", "--port", str(port)],
        env=venvs.ecosystem_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        import httpx

        deadline = time.monotonic() + 300  # a loaded machine: generous, but no hang
        while True:
            assert proc.poll() is None, proc.stderr.read()[-3000:] if proc.stderr else ""
            assert time.monotonic() < deadline, "the MCP server did not start in 300 s"
            try:
                httpx.get(f"http://127.0.0.1:{port}/", timeout=5)
                break
            except httpx.TransportError:
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _check(out: dict, major: str, task_id: int) -> None:
    """One expert episode to success, the bad calls refused with the mend."""
    assert out["sdk"].startswith(major), out["sdk"]
    assert {"reset", "act"} <= set(out["tools"])
    assert out["early"][0] and "call reset first" in out["early"][1]
    assert out["typed"][0] and "is not of type 'integer'" in out["typed"][1]
    error, shown, data = out["first"]
    assert not error and shown and data["task_id"] == task_id
    assert out["steps"] and all(s == [False, True] for s in out["steps"]), out["steps"]
    assert out["episodes"] == 1  # one connection, one episode for every call
    final = out["final"]
    assert final["terminated"] and final["success"] and final["steps"] == len(out["steps"])
    assert out["after"][0] and "has ended" in out["after"][1]


def test_stdio_episode_through_the_mcp2_client(python2):
    out = _drive(python2, {"env_id": "AgentGym/Maze-v0", "task_id": 3, "server": "stdio"})
    _check(out, "2.", 3)


def test_http_episode_through_the_mcp2_client(python2):
    with _http_server(python2, "AgentGym/Wordle-v0") as url:
        out = _drive(python2, {"env_id": "AgentGym/Wordle-v0", "task_id": 5, "server": url})
    _check(out, "2.", 5)
    # the probe of the 2026-07-28 protocol was refused: the handshake era, one session
    assert out["protocol"] and not out["protocol"].startswith("2026"), out["protocol"]


def test_the_sessionless_protocol_keeps_an_episode_named_by_the_url(python2):
    """A 2.x client pinned to the 2026-07-28 protocol (no MCP session: each request stands
    alone) keeps one episode across calls when the URL names it with ``?session=``."""
    from agentgym_envs.integrations.ownership import TOKEN_HEADER

    with _http_server(python2, "AgentGym/Maze-v0") as url:
        job = {
            "env_id": "AgentGym/Maze-v0",
            "task_id": 4,
            "server": f"{url}?session=modern-1",
            "headers": {TOKEN_HEADER: "a-secret-of-the-clients-choosing-0123"},
            "mode": "2026-07-28",
        }
        out = _drive(python2, job)
    assert out["protocol"].startswith("2026"), out["protocol"]
    _check(out, "2.", 4)
    assert out["final"]["episode"] == "modern-1"


def test_mcp1_client_plays_an_mcp2_server_and_the_other_way_round(python2):
    pytest.importorskip("mcp")
    with _http_server(python2, "AgentGym/Maze-v0") as url:
        _check(
            _drive(sys.executable, {"env_id": "AgentGym/Maze-v0", "task_id": 1, "server": url}),
            "1.",
            1,
        )
    with _http_server(sys.executable, "AgentGym/Maze-v0") as url:
        _check(
            _drive(python2, {"env_id": "AgentGym/Maze-v0", "task_id": 2, "server": url}), "2.", 2
        )


def test_stdio_episode_through_the_mcp1_client():
    pytest.importorskip("mcp")
    out = _drive(sys.executable, {"env_id": "AgentGym/Maze-v0", "task_id": 3, "server": "stdio"})
    _check(out, "1.", 3)
