"""Child processes never outlive the process that started them, however it ends."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import time

import httpx
import psutil
import pytest

from agentgym_envs.benchmarks.local_llm import free_port, local_llm_available
from tests.processes import GONE, alive, descendants

_SERVE = (
    "import typer\nfrom agentgym_envs.benchmarks.cli import register_cli\n"
    "app = typer.Typer()\napp.command('noop')(lambda: None)\nregister_cli(app)\napp()\n"
)


def _wait_until(predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.3)
    return predicate()


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def test_a_sigkilled_llm_serve_leaves_no_llama_server_behind():
    if local_llm_available():
        pytest.skip(local_llm_available())
    port = free_port()
    url = f"http://127.0.0.1:{port}/v1/models"
    cli = subprocess.Popen(
        [sys.executable, "-c", _SERVE, "llm", "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    children: list[psutil.Process] = []
    try:
        # loading the model: generous, it is not what this test measures
        assert _wait_until(lambda: _answers(url), 300), "the server never came up"
        children = descendants(cli.pid)
        assert children, "llm serve started no server process"
        cli.send_signal(signal.SIGKILL)  # no cleanup code runs in the CLI
        cli.wait()
        assert _wait_until(lambda: not alive(children), 60)
        assert not _answers(url)
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait()
        for child in alive(children):
            with contextlib.suppress(*GONE):
                child.kill()
