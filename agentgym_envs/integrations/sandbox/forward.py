"""The host's end of the sandbox's endpoints: a unix socket per allowed port, relayed to
``127.0.0.1:<port>``.

The sandbox has no network of its own but loopback; the folder holding these sockets is bound
into it, and its supervisor (:mod:`~agentgym_envs.integrations.sandbox.supervisor`) listens on
the same ports inside and relays to them. Only the ports given here are reachable from inside.
"""

from __future__ import annotations

import logging
import os
import socket
import socketserver
import threading
from pathlib import Path

from agentgym_envs.integrations.sandbox.supervisor import pump

logger = logging.getLogger(__name__)


class _Relay(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        port = self.server.port  # type: ignore[attr-defined]
        try:
            upstream = socket.create_connection(("127.0.0.1", port), timeout=30)
        except OSError as exc:
            logger.warning("sandbox relay: 127.0.0.1:%d refused: %s", port, exc)
            return
        upstream.settimeout(None)
        with upstream:
            other = threading.Thread(target=pump, args=(self.request, upstream), daemon=True)
            other.start()
            pump(upstream, self.request)
            other.join()


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    allow_reuse_address = True


class Forwarder:
    """Unix sockets ``<folder>/<port>.sock`` relayed to ``127.0.0.1:<port>``; a context manager.

    Args:
        folder: where the sockets are made (bound into the sandbox).
        ports: the host's loopback ports the sandbox may reach.
    """

    def __init__(self, folder: Path, ports: list[int]) -> None:
        self.folder = folder
        self.ports = sorted(set(ports))
        self._servers: list[_Server] = []

    def socket_path(self, port: int) -> Path:
        return self.folder / f"{port}.sock"

    def __enter__(self) -> Forwarder:
        self.folder.mkdir(parents=True, exist_ok=True)
        for port in self.ports:
            path = self.socket_path(port)
            server = _Server(str(path), _Relay)
            server.port = port  # type: ignore[attr-defined]
            os.chmod(path, 0o666)
            threading.Thread(
                target=server.serve_forever, name=f"sandbox-relay-{port}", daemon=True
            ).start()
            self._servers.append(server)
        return self

    def __exit__(self, *exc: object) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()
        self._servers.clear()


__all__ = ["Forwarder"]
