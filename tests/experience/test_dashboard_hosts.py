"""``agentgym dashboard --allowed-hosts``: the real command bound to this machine's
non-loopback address, asked with forged ``Host`` headers (DNS rebinding), and on loopback with
its defaults."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import httpx
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from agentgym_envs.experience.dashboard_guard import default_hosts, parse_hosts


def _outside_address() -> str:
    """An IPv4 address of this machine that is not a loopback one (skip if there is none)."""
    psutil = pytest.importorskip("psutil")
    for addrs in psutil.net_if_addrs().values():
        for addr in addrs:
            if addr.family == socket.AF_INET and not addr.address.startswith("127."):
                return addr.address
    pytest.skip("this machine has no non-loopback IPv4 address to bind the dashboard to")


def _free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class _Dashboard:
    """``agentgym dashboard`` in a subprocess, until the context ends."""

    def __init__(self, tmp_path, host: str, *args: str) -> None:
        self.host, self.port = host, _free_port(host)
        self.cmd = [
            sys.executable,
            "-c",
            "from agentgym_envs.cli import main; main()",
            "dashboard",
            "--db",
            str(tmp_path / "experience.db"),
            "--host",
            host,
            "--port",
            str(self.port),
            *args,
        ]

    def __enter__(self) -> _Dashboard:
        env = {**os.environ, "PYTHONPATH": os.getcwd()}
        self.proc = subprocess.Popen(self.cmd, env=env, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while True:
            try:
                self.get(self.host)
                return self
            except httpx.TransportError:
                assert self.proc.poll() is None, "the dashboard exited"
                assert time.monotonic() < deadline, "the dashboard did not start"
                time.sleep(0.2)

    def get(self, host: str) -> httpx.Response:
        """``GET /api/runs`` with ``Host: host`` (a port added)."""
        name = f"[{host}]" if ":" in host else host
        return httpx.get(
            f"http://{self.host}:{self.port}/api/runs",
            headers={"host": f"{name}:{self.port}"},
            timeout=60,
        )

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=60)


def test_a_dashboard_on_an_outside_address_answers_only_its_allowed_hosts(tmp_path):
    address = _outside_address()
    with _Dashboard(tmp_path, address, "--allowed-hosts", "dash.example,*.corp.example") as dash:
        for host in (address, "dash.example", "me.corp.example"):
            assert dash.get(host).status_code == 200, host
        for host in ("attacker.example", "corp.example", "dash.example.evil", "localhost"):
            refused = dash.get(host)
            assert refused.status_code == 400, host
            assert "--allowed-hosts" in refused.json()["error"]


def test_an_outside_address_alone_is_the_default(tmp_path):
    address = _outside_address()
    with _Dashboard(tmp_path, address) as dash:
        assert dash.get(address).status_code == 200
        assert dash.get("127.0.0.1").status_code == 400
        assert dash.get("rebind.attacker.example").status_code == 400


def test_loopback_defaults_and_bad_allowed_hosts(tmp_path):
    with _Dashboard(tmp_path, "127.0.0.1") as dash:
        for host in ("127.0.0.1", "localhost", "::1"):
            assert dash.get(host).status_code == 200, host
        assert dash.get("rebind.attacker.example").status_code == 400
    assert default_hosts("0.0.0.0") == ("127.0.0.1", "localhost", "::1")
    assert parse_hosts(" A.example ,[fd00::2]") == ("a.example", "fd00::2")
    bad = subprocess.run(
        [*_Dashboard(tmp_path, "127.0.0.1").cmd, "--allowed-hosts", "http://a.example:80"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
        timeout=120,
    )
    assert bad.returncode != 0
    assert "without scheme or port" in bad.stderr and "Traceback" not in bad.stderr
