"""Who may use a named episode, and env calls that never hold up the event loop.

The MCP server over HTTP and the recording gateway name episodes by a key the client picks
(``/mcp?session=<key>``, ``/s/<key>/...``). A key is not ownership: the first request that
names a key *claims* it with a secret token -- the one it sends as the ``X-Session-Token``
header, or, if it sends none, a token the server makes and returns in that reply header -- and
every later request on the key must carry the same token (:class:`Claims`). A client (an
address) may hold at most ``max_per_client`` live keys.

Env calls (``reset``, ``step``: a SciWorld JVM, a slow BIRD query) run in a worker thread with
a per-call deadline (:func:`off_loop`), as ``agentgym serve`` does: other sessions' chat and tool
calls go on meanwhile, and a call past its deadline is answered with an error at once while its
episode is marked broken (its state is unknown) until it is reset.
"""

from __future__ import annotations

import functools
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from agentgym_envs.errors import AgentGymError

#: Request and reply header carrying a session's token.
TOKEN_HEADER = "X-Session-Token"
#: Default seconds one env call may take before its caller gets an error.
CALL_TIMEOUT = 60.0
_T = TypeVar("_T")


class SessionError(AgentGymError):
    """A call names an episode that does not exist, or comes before ``reset``."""


class ForbiddenError(SessionError):
    """The request does not carry the token of the session it names."""


class LimitError(SessionError):
    """No room for another episode (the store, or the client's share of it, is full)."""


class CallTimeout(SessionError):
    """An env call ran past its deadline."""


@dataclass
class Claim:
    token: str
    client: str


class Claims:
    """Tokens of claimed keys (see the module docstring).

    Args:
        auth: whether a later request must carry the key's token (``False``: claims are kept,
            never checked).
    """

    def __init__(self, *, auth: bool = True) -> None:
        self.auth = auth
        self._claims: dict[str, Claim] = {}
        self._lock = threading.Lock()

    def claim(self, key: str, token: str | None, client: str = "") -> str:
        """The token of ``key``: ``token`` (or a new one) for a new key, else checked.

        Raises:
            ForbiddenError: for a claimed key and a missing or wrong token (with ``auth``).
        """
        with self._lock:
            held = self._claims.get(key)
            if held is None:
                held = self._claims[key] = Claim(token or secrets.token_urlsafe(24), client)
                return held.token
        if self.auth and not (token and secrets.compare_digest(str(token), held.token)):
            raise ForbiddenError(
                f"session {key!r} belongs to the client that started it: send its token as the "
                f"{TOKEN_HEADER} header (or use a new session name)"
            )
        return held.token

    def client_of(self, key: str) -> str | None:
        held = self._claims.get(key)
        return held.client if held is not None else None

    def release(self, key: str) -> None:
        with self._lock:
            self._claims.pop(key, None)


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
    "TOKEN_HEADER",
    "CallTimeout",
    "Claims",
    "ForbiddenError",
    "LimitError",
    "SessionError",
    "off_loop",
]
