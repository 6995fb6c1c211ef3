"""Per-request deadlines: what a request that ran out of time leaves behind.

A thread cannot be stopped from outside, so a request past its deadline is *abandoned*: the
client is answered at once (HTTP 504, see :mod:`~agentgym_envs.server.routes`) and the work
runs on to its end in its worker thread. What it was doing to a session is unknown at that
moment, so every session the request held is marked broken; later requests on it are refused
with a message that says so, and ``/close`` frees it (its env is closed once the abandoned work
lets go of it). A request waiting for a session held by another waits no longer than its own
deadline.

:class:`Request` is the record one request's worker thread carries (:func:`current_request`);
:class:`~agentgym_envs.server.sessions.Session` consults it when it is taken.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

#: Default seconds one request may take before it is answered with HTTP 504.
REQUEST_TIMEOUT = 60.0

_current: ContextVar[Request | None] = ContextVar("agentgym_server_request", default=None)


class RequestAbandoned(Exception):
    """The request ran past its deadline and was answered already; its work stops here."""


class WouldBlock(Exception):
    """A request that must not wait (one on the event loop) found its session held."""


class Request:
    """One request's deadline and the sessions it holds.

    Args:
        what: what the request is, for messages (``"/step"``).
        seconds: its time limit (``None``: none).
        waits: whether it may wait for a session another request holds (a request running on
            the event loop may not: it raises :class:`WouldBlock` instead).
        client: the client's address (a session's owner).
        token: the session token the request carries (``None``: none).
    """

    def __init__(
        self,
        what: str,
        seconds: float | None,
        *,
        waits: bool = True,
        client: str = "",
        token: str | None = None,
    ) -> None:
        self.what = what
        self.client = client
        self.token = token
        #: Reply headers the work asks for (``/create`` sends its session's token).
        self.reply_headers: dict[str, str] = {}
        self.seconds = seconds
        self.waits = waits
        self.deadline = None if seconds is None else time.monotonic() + seconds
        self.abandoned = False
        self._held: list[Any] = []
        self._lock = threading.Lock()

    def remaining(self) -> float | None:
        """Seconds left before the deadline (``None``: no deadline)."""
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def hold(self, session: Any) -> None:
        """Record that the request now works on ``session``.

        Raises:
            RequestAbandoned: when the request has been abandoned already.
        """
        with self._lock:
            if self.abandoned:
                raise RequestAbandoned(f"{self.what} was abandoned at its deadline")
            self._held.append(session)

    def let_go(self, session: Any) -> None:
        with self._lock:
            if session in self._held:
                self._held.remove(session)

    def abandon(self) -> list[Any]:
        """Give up on the request: mark every session it holds broken; return those sessions."""
        with self._lock:
            self.abandoned = True
            held = list(self._held)
        for session in held:
            session.broken = (
                f"session {session.id} is broken: a {self.what} on it ran past the server's "
                f"{self.seconds:g} s request limit and its state is unknown; /close it and "
                "/create a new one"
            )
        return held


def current_request() -> Request | None:
    """The request the calling thread works for (``None`` outside one)."""
    return _current.get()


@contextlib.contextmanager
def working_for(request: Request) -> Iterator[None]:
    """Make ``request`` the :func:`current_request` inside the block."""
    token = _current.set(request)
    try:
        yield
    finally:
        _current.reset(token)
