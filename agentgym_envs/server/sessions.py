"""A bounded store of env sessions: random integer ids, one lock per session, idle eviction.

AgentGym's servers keep every env forever (family A) or, past a pool cap, hand an existing env
to a new client (WebShop, SQLGym), so concurrent clients silently share state. Here ``create``
first evicts sessions idle longer than ``idle_timeout`` and, if the store is still full, raises
:class:`SessionLimitError` -- the server turns that into an error reply; the app also evicts on a
timer. Session ids are random integers below 2**53 (JSON ints that every client's parser keeps
exact), so one client cannot guess, step or close another's session; a session's ``ordinal`` is
its place in creation order (TextCraft's ``/create`` starts session ``n`` on item ``n``).

Random ids are not ownership: each session also has a secret ``token`` that ``/create`` returns
(the ``X-Session-Token`` reply header, and ``session_token`` in dict replies) and an ``owner``
(the creating client's address). With ``auth`` on (``agentgym serve --session-auth``) every later
request on the session must carry the token; ``/list_envs`` lists only the sessions whose tokens
the request carries (without ``auth``: those its address created). One address may hold at
most ``max_per_client`` sessions, so one client cannot take every slot; eviction only ever
takes sessions idle past ``idle_timeout`` and not in use.

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
from collections.abc import Callable, Collection, Iterator
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


class ForbiddenSessionError(SessionError):
    """The request does not carry the token of the session it names."""


class BrokenSessionError(SessionError):
    """The session's state is unknown: a request on it was abandoned at its deadline."""


class SessionBusyError(SessionError):
    """Another request held the session for longer than this request's deadline."""


#: Request and reply header carrying a session's token.
TOKEN_HEADER = "X-Session-Token"
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
    #: The client that created it (its address) and the secret ``/create`` returned to it.
    owner: str = ""
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
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
        max_per_client: most live sessions one client (one address) may hold (``None``:
            half of ``max_sessions``, so one client cannot take every slot).
        auth: whether every request on a session must carry its token (see
            :meth:`check_token`); off by default, as AgentGym's clients send none.
        clock: monotonic clock (tests may pass their own).
    """

    def __init__(
        self,
        factory: Callable[[], Any],
        *,
        max_sessions: int = 256,
        idle_timeout: float | None = 3600.0,
        max_per_client: int | None = None,
        auth: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_sessions < 1:
            raise ValueError(f"max_sessions must be at least 1, got {max_sessions}")
        if max_per_client is not None and max_per_client < 1:
            raise ValueError(f"max_per_client must be at least 1, got {max_per_client}")
        self.factory = factory
        self.max_sessions = max_sessions
        self.max_per_client = max_per_client or max(1, max_sessions // 2)
        self.auth = auth
        self.idle_timeout = idle_timeout or None
        self.clock = clock
        self._sessions: dict[int, Session] = {}
        self._ids = itertools.count()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._sessions)

    def ids(self, owner: str | None = None, tokens: Collection[str] = ()) -> list[int]:
        """Live session ids: with ``auth``, those whose token is in ``tokens``; else those
        ``owner`` created (all of them for ``owner=None``)."""
        with self._lock:
            sessions = list(self._sessions.values())
        if self.auth:
            return sorted(s.id for s in sessions if s.token in tokens)
        return sorted(s.id for s in sessions if owner is None or s.owner == owner)

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

    def create(self, owner: str = "") -> Session:
        """A new session for client ``owner`` (its address).

        Raises:
            SessionLimitError: when the store, or ``owner``'s share of it, is full.
        """
        self.evict_idle()
        with self._lock:
            if len(self._sessions) >= self.max_sessions:
                raise SessionLimitError(
                    f"session limit reached ({self.max_sessions} live sessions): close one with "
                    "/close or start the server with a larger --max-sessions"
                )
            mine = sum(1 for s in self._sessions.values() if s.owner == owner)
            if owner and mine >= self.max_per_client:
                raise SessionLimitError(
                    f"per-client session limit reached ({self.max_per_client} live sessions "
                    "from your address): close one with /close or start the server with a "
                    "larger --max-sessions-per-client"
                )
            sid = ID_FLOOR + secrets.randbelow(ID_CEILING - ID_FLOOR)
            while sid in self._sessions:
                sid = ID_FLOOR + secrets.randbelow(ID_CEILING - ID_FLOOR)
            # Reserve the id; the env is built outside the store lock.
            session = Session(
                sid, None, ordinal=next(self._ids), last_used=self.clock(), owner=owner
            )
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
        self.check_token(session)
        with self._lock:
            session.last_used = self.clock()
        return session

    def check_token(self, session: Session) -> None:
        """With ``auth``, refuse a request that does not carry ``session``'s token (the
        current request's ``token``, see :mod:`~agentgym_envs.server.deadline`).

        Raises:
            ForbiddenSessionError: when the token is missing or wrong.
        """
        if not self.auth:
            return
        request = current_request()
        given = getattr(request, "token", None) if request is not None else None
        if not given or not secrets.compare_digest(str(given), session.token):
            raise ForbiddenSessionError(
                f"session {session.id} belongs to the client that created it: send the token "
                f"/create returned as the {TOKEN_HEADER} header"
            )

    def close(self, sid: Any) -> None:
        """Drop the session ``sid`` (broken ones too) and close its env once it is free."""
        self.discard(self._lookup(sid))

    def discard(self, session: Session) -> None:
        """Drop ``session`` without the checks of :meth:`close` (the server's own clean-up)."""
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
