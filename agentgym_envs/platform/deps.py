"""FastAPI dependencies of the platform: who is asking, and a database session bound to their
organisation.

Routers of the platform (and of other areas mounted with ``create_app(extra_routers=...)``)
take the session as ``s: TenantDB``: it authenticates the request (``Authorization: Bearer
<API key>``, ``X-API-Key``, or the dashboard's login cookie), checks the permission the handler
needs (``read`` for GET/HEAD, ``write`` otherwise; mark a handler ``@needs("feedback")`` or
``@needs("admin")`` for another), sets the tenant on every transaction (``SET LOCAL
agentgym.org_id``, see :mod:`~agentgym_envs.platform.db`) and commits when the handler
returns, before the response is sent. ``request.state.principal`` is the
:class:`~agentgym_envs.platform.auth.Principal`. Rows of other organisations do not exist in
that session, so a handler answers 404 for them like for any unknown id.

At most :data:`MAX_SESSIONS` requests hold a session at once (one ``Depends`` object, shared by
every handler): a request waits for its turn without holding a worker thread or a connection,
so a burst of requests queues instead of starving the connection pool.

Failed API keys count against the client's address; over the limit a key is answered 429 with
``Retry-After`` before it is looked up (:mod:`~agentgym_envs.platform.ratelimit`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
import uuid
from collections.abc import Callable, Iterator
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from sqlalchemy.orm import Session

from agentgym_envs.platform import auth
from agentgym_envs.platform.models import ApiKey, LoginSession, User
from agentgym_envs.platform.ratelimit import address_of

#: The dashboard's login cookie.
COOKIE = "agentgym_session"
#: Requests holding a database session at once (below the pool's connections).
MAX_SESSIONS = 32
#: The attribute :func:`needs` sets on a handler.
PERMISSION_ATTR = "agentgym_permission"
_READS = {"GET", "HEAD", "OPTIONS"}


def credential(request) -> tuple[str | None, str | None]:
    """``("key", text)``, ``("cookie", text)`` or ``(None, None)``."""
    header = request.headers.get("authorization", "")
    if header[:7].lower() == "bearer ":
        return "key", header[7:].strip()
    key = request.headers.get("x-api-key")
    if key:
        return "key", key.strip()
    cookie = request.cookies.get(COOKIE)
    if cookie:
        return "cookie", cookie
    return None, None


def org_of(kind: str | None, text: str | None) -> tuple[uuid.UUID, uuid.UUID, str] | None:
    if kind == "key":
        return auth.parse_key(text or "")
    if kind == "cookie":
        return auth.parse_cookie(text or "")
    return None


def principal_in(s: Session, kind: str, parsed: tuple[uuid.UUID, uuid.UUID, str]):
    """The principal of a parsed credential, looked up in ``s`` (already bound to its
    organisation), or ``None`` when it is unknown, revoked, ended or expired."""
    org_id, row_id, secret = parsed
    if kind == "key":
        key = s.get(ApiKey, row_id)
        if key is None or key.revoked_at is not None or not auth.same(secret, key.secret_hash):
            return None
        return auth.Principal(
            org_id=org_id,
            kind="key",
            subject_id=key.id,
            name=f"key:{key.name}",
            permissions=frozenset(key.scopes),
        )
    login = s.get(LoginSession, row_id)
    now = dt.datetime.now(dt.timezone.utc)
    if (
        login is None
        or login.ended_at is not None
        or login.expires_at <= now
        or not auth.same(secret, login.secret_hash)
    ):
        return None
    user = s.get(User, login.user_id)
    if user is None or not user.active:
        return None
    return auth.Principal(
        org_id=org_id,
        kind="user",
        subject_id=user.id,
        name=user.email,
        permissions=auth.ROLES[user.role],
        role=user.role,
    )


def _unauthorised(message: str) -> HTTPException:
    return HTTPException(401, message, headers={"WWW-Authenticate": "Bearer"})


def key_limit(request, kind: str | None) -> None:
    """Refuse (429, ``Retry-After``) a key from an address over its failed-key limit
    (:mod:`~agentgym_envs.platform.ratelimit`)."""
    limits = getattr(request.app.state, "auth_limits", None)
    if kind != "key" or limits is None:
        return
    blocked = limits.key_blocked(address_of(request))
    if blocked is not None:
        raise HTTPException(
            429,
            f"too many failed API keys from this address: try again in {blocked.retry_after} s",
            headers=blocked.headers(),
        )


def key_failed(request, kind: str | None) -> None:
    """Count a failed key against the client's address."""
    limits = getattr(request.app.state, "auth_limits", None)
    if kind == "key" and limits is not None:
        limits.key_failed(address_of(request))


_open = [0]  # tenant sessions open now, all threads (a list: one cell the threads share)
_open_lock = threading.Lock()


@contextlib.contextmanager
def _counted() -> Iterator[None]:
    with _open_lock:
        _open[0] += 1
    try:
        yield
    finally:
        with _open_lock:
            _open[0] -= 1


def open_sessions() -> int:
    """Requests of this process holding an organisation's database session now (the
    platform's ``agentgym_live_sessions``)."""
    return _open[0]


def _session(request: Request, permission: str | None) -> Iterator[Session]:
    kind, text = credential(request)
    key_limit(request, kind)
    parsed = org_of(kind, text)
    if parsed is None:
        key_failed(request, kind)
        raise _unauthorised(
            "send an API key (Authorization: Bearer agk_...) or log in at /login"
            if kind is None
            else "that credential is not valid"
        )
    sessions = request.app.state.platform_sessions
    with sessions() as s, _counted():
        s.info["org_id"] = parsed[0]
        principal = principal_in(s, kind, parsed)
        if principal is None:
            key_failed(request, kind)
            raise _unauthorised("that credential is not valid (unknown, revoked or expired)")
        endpoint = request.scope.get("endpoint")
        needed = permission or getattr(endpoint, PERMISSION_ATTR, None)
        needed = needed or ("read" if request.method in _READS else "write")
        if not principal.can(needed):
            raise HTTPException(403, f"{principal.name} lacks the {needed!r} permission")
        request.state.principal = principal
        try:
            yield s
            s.commit()
        except BaseException:
            s.rollback()
            raise


def tenant_session(request: Request) -> Iterator[Session]:
    """A session bound to the caller's organisation (the permission: the handler's
    :func:`needs`, else by the method)."""
    yield from _session(request, None)


def needs(permission: str) -> Callable:
    """Mark a handler as needing ``permission`` (``read``, ``feedback``, ``write``, ``admin``)."""
    if permission not in auth.PERMISSIONS:
        raise ValueError(f"permission {permission!r}: use one of {', '.join(auth.PERMISSIONS)}")

    def mark(handler: Callable) -> Callable:
        setattr(handler, PERMISSION_ATTR, permission)
        return handler

    return mark


def requires(permission: str) -> Callable[[Request], Iterator[Session]]:
    """Like :func:`tenant_session`, needing ``permission`` whatever the method (a dependency of
    its own: it does not count towards :data:`MAX_SESSIONS`; prefer :func:`needs`)."""

    def dependency(request: Request) -> Iterator[Session]:
        yield from _session(request, permission)

    dependency.__name__ = f"tenant_session_{permission}"
    return dependency


def principal(request: Request) -> auth.Principal:
    """The caller (after one of the session dependencies ran)."""
    return request.state.principal


#: ``s: TenantDB`` in a handler: the tenant's session, committed before the response.
TenantDB = Annotated[
    Session, Depends(tenant_session, scope="function", max_concurrency=MAX_SESSIONS)
]
Caller = Annotated[auth.Principal, Depends(principal)]

__all__ = [
    "COOKIE",
    "MAX_SESSIONS",
    "Caller",
    "TenantDB",
    "credential",
    "key_failed",
    "key_limit",
    "needs",
    "open_sessions",
    "principal",
    "principal_in",
    "requires",
    "tenant_session",
]
