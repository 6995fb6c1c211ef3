"""A bounded store of env sessions: random integer ids, one lock per session, idle eviction.

AgentGym's servers keep every env forever (family A) or, past a pool cap, hand an existing env
to a new client (WebShop, SQLGym), so concurrent clients silently share state. Here ``create``
first evicts sessions idle longer than ``idle_timeout`` and, if the store is still full, raises
:class:`SessionLimitError` -- the server turns that into an error reply; the app also evicts on a
timer. Session ids are random integers below 2**53 (JSON ints that every client's parser keeps
exact), so one client cannot guess, step or close another's session; a session's ``ordinal`` is
its place in creation order (TextCraft's ``/create`` starts session ``n`` on item ``n``).

A session is worked on inside :meth:`Session.taken`, which holds its lock for the calling
request (see :mod:`~agentgym_envs.server.deadline`): a request waits for the lock no longer than
its deadline, and a session whose request was abandoned at its deadline is *broken* -- every
later request on it is refused with a :class:`BrokenSessionError` until it is closed. A session
closed (or evicted) while abandoned work still runs on it has its env closed when that work
ends.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from agentgym_envs.server.deadline import WouldBlock, current_request

logger = logging.getLogger(__name__)


class SessionError(Exception):
    """A session request that cannot be served (unknown id, store full)."""


class UnknownSessionError(SessionError):
    pass


class SessionLimitError(SessionError):
    pass


class BrokenSessionError(SessionError):
    """The session's state is unknown: a request on it was abandoned at its deadline."""


class SessionBusyError(SessionError):
    """Another request held the session for longer than this request's deadline."""


#: Session ids are drawn from ``[ID_FLOOR, ID_CEILING)``.
ID_FLOOR = 2**32
ID_CEILING = 2**53


def session_id(value: Any) -> int:
    """``value`` as a session id: a JSON int, or a string of decimal digits (a query string).

    Raises:
        UnknownSessionError: for anything else (``false``, ``1.5``, ``"abc"``, ``null``).
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    raise UnknownSessionError(f"session id must be an int, got {value!r}")


@dataclass
class Session:
    id: int
    env: Any
    #: Place in creation order (0 for the first session the store made).
    ordinal: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    last_used: float = field(default_factory=time.monotonic)
    #: The last observation sent on the wire (``None`` until the first reset).
    observation: str | None = None
    #: Why the session may no longer be used (``None``: it may); see the module docstring.
    broken: str | None = None
    #: Whether the store has let go of the session (its env is closed once it is free).
    closed: bool = False
    _disposed: bool = False

    @property
    def started(self) -> bool:
        """Whether the env has been reset at least once."""
        return self.observation is not None

    def touch(self) -> None:
        self.last_used = time.monotonic()

    @contextlib.contextmanager
    def taken(self) -> Iterator[Session]:
        """Hold the session for the current request (see the module docstring).

        Raises:
            SessionBusyError: when another request holds it past this one's deadline.
            WouldBlock: when another request holds it and this one may not wait.
            BrokenSessionError: when it is broken.
            RequestAbandoned: when this request was abandoned while it waited.
        """
        request = current_request()
        wait = request.remaining() if request is not None else None
        if request is not None and not request.waits:
            if not self.lock.acquire(blocking=False):
                raise WouldBlock(f"session {self.id} is busy")
        elif not self.lock.acquire(timeout=-1 if wait is None else wait):
            raise SessionBusyError(
                f"session {self.id} is busy with an earlier request that outlasted this one's "
                "time limit"
            )
        try:
            if self.broken is not None:
                raise BrokenSessionError(self.broken)
            if request is not None:
                request.hold(self)
            try:
                yield self
            finally:
                if request is not None:
                    request.let_go(self)
        finally:
            self.lock.release()
            if self.closed:
                self.dispose()

    def dispose(self) -> None:
        """Close the env now if no request holds the session, else when the holder lets go."""
        if not self.lock.acquire(blocking=False):
            return  # the holder's ``taken`` calls this again on its way out
        try:
            if not self._disposed:
                self._disposed = True
                _close(self.env)
        finally:
            self.lock.release()


class SessionStore:
    """Sessions keyed by random int ids (see the module docstring).

    Args:
        factory: builds a fresh env for a new session.
        max_sessions: most live sessions at once.
        idle_timeout: seconds without a request after which a session may be evicted
            (``None`` or ``0``: never).
        clock: monotonic clock (tests may pass their own).
    """

    def __init__(
        self,
        factory: Callable[[], Any],
        *,
        max_sessions: int = 256,
        idle_timeout: float | None = 3600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_sessions < 1:
            raise ValueError(f"max_sessions must be at least 1, got {max_sessions}")
        self.factory = factory
        self.max_sessions = max_sessions
        self.idle_timeout = idle_timeout or None
        self.clock = clock
        self._sessions: dict[int, Session] = {}
        self._ids = itertools.count()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._sessions)

    def ids(self) -> list[int]:
        with self._lock:
            return sorted(self._sessions)

    def evict_idle(self) -> list[int]:
        """Close and drop sessions idle past the timeout (those in use are skipped)."""
        if self.idle_timeout is None:
            return []
        now = self.clock()
        evicted = []
        with self._lock:
            for sid, session in list(self._sessions.items()):
                if now - session.last_used > self.idle_timeout and not session.lock.locked():
                    del self._sessions[sid]
                    evicted.append(session)
        for session in evicted:
            logger.info("evicting idle session %d", session.id)
            session.closed = True
            session.dispose()
        return [s.id for s in evicted]

    def create(self) -> Session:
        self.evict_idle()
        with self._lock:
            if len(self._sessions) >= self.max_sessions:
                raise SessionLimitError(
                    f"session limit reached ({self.max_sessions} live sessions): close one with "
                    "/close or start the server with a larger --max-sessions"
                )
            sid = ID_FLOOR + secrets.randbelow(ID_CEILING - ID_FLOOR)
            while sid in self._sessions:
                sid = ID_FLOOR + secrets.randbelow(ID_CEILING - ID_FLOOR)
            # Reserve the id; the env is built outside the store lock.
            session = Session(sid, None, ordinal=next(self._ids), last_used=self.clock())
            self._sessions[sid] = session
        try:
            session.env = self.factory()
        except BaseException:
            with self._lock:
                self._sessions.pop(sid, None)
            raise
        session.last_used = self.clock()
        return session

    def get(self, sid: Any) -> Session:
        """The live session ``sid``.

        Raises:
            UnknownSessionError: for an id that names no live session.
            BrokenSessionError: for a broken session (only ``close`` accepts those).
        """
        session = self._lookup(sid)
        if session.broken is not None:
            raise BrokenSessionError(session.broken)
        return session

    def _lookup(self, sid: Any) -> Session:
        key = session_id(sid)
        with self._lock:
            session = self._sessions.get(key)
            if session is None or session.env is None:
                raise UnknownSessionError(
                    f"unknown session {sid!r}: it was never created, was closed, or was evicted "
                    "after being idle; call /create"
                )
            session.last_used = self.clock()
            return session

    def close(self, sid: Any) -> None:
        """Drop the session ``sid`` (broken ones too) and close its env once it is free."""
        session = self._lookup(sid)
        with self._lock:
            self._sessions.pop(session.id, None)
        session.closed = True
        session.dispose()

    def close_all(self) -> None:
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        for session in sessions:
            session.closed = True
            session.dispose()


def _close(env: Any) -> None:
    if env is None:
        return
    try:
        env.close()
    except Exception:
        logger.exception("error closing an env")
