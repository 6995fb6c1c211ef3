"""``agentgym serve-shop`` is added by ``register_cli`` and really serves the shop."""

from __future__ import annotations

import subprocess
import sys
import time

import httpx
import pytest

typer = pytest.importorskip("typer")
pytest.importorskip("uvicorn")
pytest.importorskip("bm25s")

from typer.testing import CliRunner

from agentgym_envs.envs.webshop.cli import register_cli
from agentgym_envs.envs.webshop.web import free_port


def test_register_cli_adds_serve_shop():
    app = typer.Typer()
    register_cli(app)

    @app.command("noop")
    def noop() -> None:  # a second command keeps typer from collapsing the group
        pass

    result = CliRunner().invoke(app, ["serve-shop", "--help"])
    assert result.exit_code == 0
    assert "--num-products" in result.output and "--data-path" in result.output


def test_serve_shop_process_serves_pages():
    port = free_port()
    code = (
        "import typer; from agentgym_envs.envs.webshop.cli import register_cli; app = typer.Typer(); "
        "register_cli(app); app.command('noop')(lambda: None); app()"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "serve-shop", "--port", str(port), "--num-products", "500"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                home = httpx.get(url + "/", timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stdout.read().decode()
                assert time.monotonic() < deadline, "serve-shop did not start"
                time.sleep(0.2)
        assert home.status_code == 200 and "Start shopping" in home.text
        page = httpx.get(
            url + "/start", params={"split": "test", "task_id": 1}, follow_redirects=True
        )
        assert page.status_code == 200 and 'id="search_input"' in page.text
    finally:
        proc.terminate()
        proc.wait(timeout=10)
