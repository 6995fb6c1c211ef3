"""Who may use a named episode, and env calls that never hold up the event loop.

The MCP server over HTTP and the recording gateway name episodes by a key the client picks
(``/mcp?session=<key>``, ``/s/<key>/...``). A key is not ownership: the first request that
names a key *claims* it with a secret token -- the one it sends as the ``X-Session-Token``
header, or, if it sends none, a token the server makes and returns in that reply header -- and
every later request on the key must carry the same token (:class:`Claims`). A client (an
address) may hold at most ``max_per_client`` live keys, and all clients together ``max_keys``.

Claims do not pile up: each remembers when a request last named it (:meth:`Claims.stale` lists
the ones unused for a while, for the server's idle sweep, :func:`sweep_every`), a key is
released when its episode closes, and a key whose session is over is *ended*: a later request
naming it is refused with the reason (the last :data:`ENDED_KEPT` ended keys are remembered).

Env calls (``reset``, ``step``: a SciWorld JVM, a slow BIRD query) run in a worker thread with
a per-call deadline (:func:`off_loop`), as ``agentgym serve`` does: other sessions' chat and tool
calls go on meanwhile, and a call past its deadline is answered with an error at once while its
episode is marked broken (its state is unknown) until it is reset.
"""

from __future__ import annotations

import functools
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from agentgym_envs.errors import AgentGymError

#: Request and reply header carrying a session's token.
TOKEN_HEADER = "X-Session-Token"
#: Default seconds one env call may take before its caller gets an error.
CALL_TIMEOUT = 60.0
#: How many ended keys are remembered (and refused by name); older ones are forgotten.
ENDED_KEPT = 10_000
#: Most seconds between two idle sweeps.
SWEEP_EVERY = 60.0
_T = TypeVar("_T")
logger = logging.getLogger(__name__)


class SessionError(AgentGymError):
    """A call names an episode that does not exist, or comes before ``reset``."""


class ForbiddenError(SessionError):
    """The request does not carry the token of the session it names."""


class LimitError(SessionError):
    """No room for another episode (the store, or the client's share of it, is full)."""


class EndedError(SessionError):
    """The request names a session that is over (finished or expired)."""


class CallTimeout(SessionError):
    """An env call ran past its deadline."""


@dataclass
class Claim:
    token: str
    client: str
    #: When a request last named the key (``time.monotonic``).
    last_used: float = field(default_factory=time.monotonic)


class Claims:
    """Tokens of claimed keys (see the module docstring).

    Args:
        auth: whether a later request must carry the key's token (``False``: claims are kept,
            never checked).
        max_keys: most keys claimed at once (``None``: no limit).
        max_per_client: most keys one client address may hold at once (``None``: no limit).
        idle_timeout: seconds after which an unused key's session may expire (only quoted in
            the error a full store answers with).
        on_full: called once (outside the lock) when a new key finds no room, to free some
            (e.g. expire idle sessions) before the key is refused.
    """

    def __init__(
        self,
        *,
        auth: bool = True,
        max_keys: int | None = None,
        max_per_client: int | None = None,
        idle_timeout: float | None = None,
        on_full: Callable[[], object] | None = None,
    ) -> None:
        self.auth = auth
        self.max_keys = max_keys
        self.max_per_client = max_per_client
        self.idle_timeout = idle_timeout
        self.on_full = on_full
        self._claims: dict[str, Claim] = {}
        self._ended: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def claim(self, key: str, token: str | None, client: str = "", *, create: bool = True) -> str:
        """The token of ``key``: ``token`` (or a new one) for a new key, else checked.

        Raises:
            EndedError: for a key whose session is over.
            LimitError: for a new key when the keys, or the client's share, are all taken.
            ForbiddenError: for a claimed key and a missing or wrong token (with ``auth``).
        """
        held = self._claim(key, token, client, create=create, sweep=self.on_full is not None)
        if held is None:  # full: free what can be freed, then try once more
            assert self.on_full is not None
            try:
                self.on_full()
            except Exception:
                logger.exception("freeing room for session %r failed", key)
            held = self._claim(key, token, client, create=create, sweep=False)
        assert held is not None
        return held

    def _claim(
        self, key: str, token: str | None, client: str, *, create: bool, sweep: bool
    ) -> str | None:
        """:meth:`claim`'s work under the lock; ``None`` when full and ``sweep`` allows a
        second try."""
        with self._lock:
            if key in self._ended:
                raise EndedError(self._ended[key])
            held = self._claims.get(key)
            if held is None:
                if not create:
                    raise SessionError(f"no episode for session {key!r}: call reset first")
                problem = self._full(client)
                if problem is not None:
                    if sweep:
                        return None
                    raise LimitError(problem)
                held = self._claims[key] = Claim(token or secrets.token_urlsafe(24), client)
                return held.token
            held.last_used = time.monotonic()
        if self.auth and not (token and secrets.compare_digest(str(token), held.token)):
            raise ForbiddenError(
                f"session {key!r} belongs to the client that started it: send its token as the "
                f"{TOKEN_HEADER} header (or use a new session name)"
            )
        return held.token

    def _full(self, client: str) -> str | None:
        """Why a new key of ``client`` finds no room (``None``: it does); under the lock."""
        if self.max_keys is not None and len(self._claims) >= self.max_keys:
            wait = (
                f", or try again once one has been idle for {self.idle_timeout:g} s"
                if self.idle_timeout
                else ""
            )
            return f"all {self.max_keys} sessions are in use: finish one{wait}"
        if client and self.max_per_client is not None:
            mine = sum(1 for c in self._claims.values() if c.client == client)
            if mine >= self.max_per_client:
                return (
                    f"this client holds {mine} open sessions, the most one client may: finish "
                    "or close one first"
                )
        return None

    def client_of(self, key: str) -> str | None:
        held = self._claims.get(key)
        return held.client if held is not None else None

    def release(self, key: str) -> None:
        """Forget ``key``'s claim: the next request naming it claims it afresh."""
        with self._lock:
            self._claims.pop(key, None)

    def end(self, key: str, reason: str) -> None:
        """Release ``key`` and refuse it from now on with ``reason`` (see :data:`ENDED_KEPT`)."""
        with self._lock:
            self._claims.pop(key, None)
            self._ended[key] = reason
            self._ended.move_to_end(key)
            while len(self._ended) > ENDED_KEPT:
                self._ended.popitem(last=False)

    def ended(self, key: str) -> str | None:
        """Why ``key``'s session is over (``None``: it is not)."""
        return self._ended.get(key)

    def stale(self, idle: float) -> list[str]:
        """The keys no request has named for more than ``idle`` seconds."""
        now = time.monotonic()
        with self._lock:
            return [k for k, c in self._claims.items() if now - c.last_used > idle]

    def __len__(self) -> int:
        return len(self._claims)

    def __contains__(self, key: object) -> bool:
        return key in self._claims


def sweep_interval(idle_timeout: float) -> float:
    """Seconds between idle sweeps for ``idle_timeout``: a quarter of it, at most
    :data:`SWEEP_EVERY`."""
    return min(SWEEP_EVERY, max(idle_timeout / 4, 0.05))


async def sweep_every(fn: Callable[[], object], seconds: float) -> None:
    """Run ``fn`` in a worker thread every ``seconds`` until cancelled (an error is logged
    and the next sweep still runs)."""
    import anyio
    from anyio import to_thread

    while True:
        await anyio.sleep(seconds)
        try:
            await to_thread.run_sync(fn)
        except Exception:
            logger.exception("the idle sweep failed")


async def off_loop(fn: Callable[..., _T], *args: Any, timeout: float | None) -> _T:
    """``fn(*args)`` in a worker thread; past ``timeout`` seconds the caller gets
    :class:`CallTimeout` at once (the call runs on to its end in its thread).

    Raises:
        CallTimeout: past the deadline.
    """
    import anyio
    from anyio import to_thread

    with anyio.move_on_after(timeout) as scope:
        return await to_thread.run_sync(
            functools.partial(fn, *args), abandon_on_cancel=timeout is not None
        )
    assert scope.cancelled_caught
    raise CallTimeout(f"the env call took longer than its {timeout:g} s limit")


__all__ = [
    "CALL_TIMEOUT",
    "ENDED_KEPT",
    "TOKEN_HEADER",
    "CallTimeout",
    "Claims",
    "EndedError",
    "ForbiddenError",
    "LimitError",
    "SessionError",
    "off_loop",
    "sweep_every",
    "sweep_interval",
]
