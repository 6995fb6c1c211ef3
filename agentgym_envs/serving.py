"""Start a web app with uvicorn, after checking its address can be taken.

uvicorn reports a busy port as several log lines (startup, the bind error, shutdown) and exits
1; every ``agentgym`` server starts through :func:`serve_app` instead, so a busy port or an
address this machine does not have is one line that says the mend. A server module run as
``python -m ...`` wraps its ``main`` in :func:`one_line_errors` to print that line and exit 2
as the ``agentgym`` command does.
"""

from __future__ import annotations

import contextlib
import errno
import socket
import sys
from collections.abc import Iterator
from typing import Any

from agentgym_envs.errors import AgentGymError, require


class AddressInUseError(AgentGymError, OSError):
    """The host and port a server was asked to listen on cannot be taken."""


def check_bindable(host: str, port: int) -> None:
    """Raise a one-line :class:`AddressInUseError` unless ``host:port`` can be listened on now.

    Port 0 (any free port) always passes. The check binds and closes a socket with the options
    uvicorn uses (``SO_REUSEADDR``), so a port left in TIME_WAIT by a stopped server passes.
    """
    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise AddressInUseError(
            f"cannot listen on {host}:{port}: {host!r} is not an address of this machine "
            f"({exc.strerror}); give --host 127.0.0.1, 0.0.0.0 or one of its own addresses"
        ) from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise AddressInUseError(
                    f"port {port} on {host} is in use: give another with --port, or stop what "
                    f"listens there (ss -ltnp 'sport = :{port}' names it)"
                ) from None
            raise AddressInUseError(
                f"cannot listen on {host}:{port}: {exc.strerror}; give --host 127.0.0.1 or "
                f"one of this machine's addresses, and a --port above 1023 unless run as root"
            ) from None


def serve_app(app: Any, host: str, port: int, *, extra: str = "server", **options: Any) -> None:
    """Run ``app`` under uvicorn on ``host:port`` until it stops (``options`` go to uvicorn).

    Raises:
        AddressInUseError: ``host:port`` cannot be listened on (one line with the mend).
        MissingExtraError: uvicorn is not installed (names ``extra``).
    """
    uvicorn = require("uvicorn", extra)
    check_bindable(host, port)
    uvicorn.run(app, host=host, port=port, **options)


@contextlib.contextmanager
def one_line_errors() -> Iterator[None]:
    """For a server module's own ``main``: an :class:`AgentGymError` (a busy port, a missing
    extra) is one line on stderr and exit code 2, not a traceback."""
    try:
        yield
    except AgentGymError as exc:
        sys.stderr.write(f"error: {' '.join(str(exc).split())}\n")
        raise SystemExit(2) from None
