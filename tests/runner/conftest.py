"""Fixtures of the field-runner tests: a real ``nats-server`` (Debian package) on a free port, a
subscriber, and a JetStream reader."""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

NATS_BINARY = shutil.which("nats-server") or (
    "/usr/sbin/nats-server" if Path("/usr/sbin/nats-server").is_file() else None
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, up: bool, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                if up:
                    return
        except OSError:
            if not up:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nats-server on port {port} did not come {'up' if up else 'down'}")


class NatsServer:
    """``nats-server`` with JetStream, its store in a temp dir; kill and start it again."""

    def __init__(self, folder: Path) -> None:
        self.port = _free_port()
        self.folder = folder
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self) -> None:
        log = (self.folder / "nats.log").open("ab")
        self.process = subprocess.Popen(
            [NATS_BINARY, "-a", "127.0.0.1", "-p", str(self.port), "-js", "-sd", str(self.folder)],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        _wait_port(self.port, up=True)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)
        self.process = None
        _wait_port(self.port, up=False)


@pytest.fixture
def nats_server(tmp_path):
    if NATS_BINARY is None:
        pytest.skip("nats-server is not installed: apt-get install -y nats-server")
    pytest.importorskip(
        "nats", reason="nats-py is not installed: pip install 'agentgym-envs[field]'"
    )
    server = NatsServer(tmp_path / "nats")
    server.folder.mkdir()
    server.start()
    yield server
    server.kill()


class Subscriber:
    """A nats-py subscriber on its own event-loop thread, collecting every message."""

    def __init__(self, url: str, subject: str) -> None:
        import nats

        self.messages: list[tuple[str, dict[str, Any]]] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

        async def on_message(msg: Any) -> None:
            self.messages.append((msg.subject, json.loads(msg.data)))

        async def start() -> Any:
            nc = await nats.connect(servers=[url])
            await nc.subscribe(subject, cb=on_message)
            await nc.flush()
            return nc

        self._nc = asyncio.run_coroutine_threadsafe(start(), self._loop).result(timeout=30)

    def wait_for(self, count: int, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.messages) < count and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)  # a duplicate would arrive right behind

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self._nc.close(), self._loop).result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)


def read_stream(url: str, stream: str) -> list[dict[str, Any]]:
    """Every message stored in a JetStream stream, in order."""
    import nats

    async def read() -> list[dict[str, Any]]:
        nc = await nats.connect(servers=[url])
        try:
            js = nc.jetstream()
            info = await js.stream_info(stream)
            out = []
            for seq in range(info.state.first_seq, info.state.last_seq + 1):
                msg = await js.get_msg(stream, seq)
                out.append(json.loads(msg.data))
            return out
        finally:
            await nc.close()

    return asyncio.run(read())
