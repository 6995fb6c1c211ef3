"""Dashboard logins: the login and logout pages, and the gate in front of the experience
dashboard (mounted unchanged at ``/``).

A login is a row of ``login_sessions`` and an HttpOnly, ``SameSite=Strict`` cookie
(:mod:`~agentgym_envs.platform.auth`); logout ends the row, so the cookie stops working at once
even if a copy of it is kept. The gate lets a dashboard request through only with a valid login
(or API key), sets its organisation for the dashboard's store
(:data:`~agentgym_envs.platform.db.current_org`), and checks the role a write needs: feedback
needs ``annotator`` (the ``feedback`` permission), promoting a version needs ``admin``.
Cross-site writes -- the login form included -- are refused before any of this by the
dashboard's own guard (:mod:`~agentgym_envs.experience.dashboard_guard`), which the service
wraps around everything it serves.

Failed logins are limited per account and client address, and per address
(:mod:`~agentgym_envs.platform.ratelimit`): over a limit the login page answers 429 with
``Retry-After`` without checking the password.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import logging
import uuid
from urllib.parse import parse_qs, quote

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from sqlalchemy import select
from starlette.types import ASGIApp, Receive, Scope, Send

from agentgym_envs.experience.models import utcnow
from agentgym_envs.platform import auth
from agentgym_envs.platform.db import current_org
from agentgym_envs.platform.deps import (
    COOKIE,
    credential,
    key_failed,
    key_limit,
    org_of,
    principal_in,
)
from agentgym_envs.platform.models import LoginSession, Organisation, User
from agentgym_envs.platform.ratelimit import account_of, address_of

logger = logging.getLogger(__name__)
router = APIRouter(tags=["login"])
#: How long a login lasts.
SESSION_HOURS = 12
_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>agentgym platform · {title}</title>
<style>body{{font:15px system-ui,sans-serif;max-width:26rem;margin:4rem auto}}
label{{display:block;margin:.6rem 0}}input{{width:100%;padding:.3rem}}.err{{color:#b00}}</style>
</head><body><h1>{title}</h1>{body}</body></html>"""


def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(_PAGE.format(title=html.escape(title), body=body), status_code=status)


def _safe_next(target: str | None) -> str:
    """Only a path of this site (no ``//host`` or scheme: no open redirect)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


def _login_form(next_path: str, error: str = "", org: str = "", email: str = "") -> str:
    err = f'<p class="err" role="alert">{html.escape(error)}</p>' if error else ""
    return (
        f'{err}<form method="post" action="/login">'
        f'<input type="hidden" name="next" value="{html.escape(next_path)}">'
        f'<label>Organisation <input name="org" value="{html.escape(org)}" required></label>'
        f'<label>Email <input name="email" type="email" value="{html.escape(email)}" required></label>'
        '<label>Password <input name="password" type="password" required></label>'
        "<button>Log in</button></form>"
    )


@router.get("/login", response_class=HTMLResponse)
def login_page(next: str = "/"):
    return _page("Log in", _login_form(_safe_next(next)))


async def _form(request: Request) -> dict[str, str]:
    raw = (await request.body()).decode("utf-8", "replace")
    return {k: v[0] for k, v in parse_qs(raw, keep_blank_values=True).items()}


@router.post("/login")
async def login(request: Request):
    form = await _form(request)
    import anyio

    return await anyio.to_thread.run_sync(_login, request, form)


def _login(request: Request, form: dict[str, str]):
    org_slug = form.get("org", "").strip().lower()
    email = form.get("email", "").strip().lower()
    password = form.get("password", "")
    next_path = _safe_next(form.get("next"))
    limits = getattr(request.app.state, "auth_limits", None)
    account, address = account_of(org_slug, email), address_of(request)
    blocked = limits.login_blocked(account, address) if limits is not None else None
    if blocked is not None:
        logger.warning(
            "login of %r from %s refused: over its %s limit", account, address, blocked.what
        )
        page = _page(
            "Log in",
            _login_form(
                next_path,
                f"Too many failed logins from your address: try again in {blocked.retry_after} s.",
                org_slug,
                email,
            ),
            status=429,
        )
        page.headers.update(blocked.headers())
        return page
    sessions = request.app.state.platform_sessions
    with sessions() as s:
        org = s.scalars(select(Organisation).where(Organisation.slug == org_slug)).first()
        user = None
        if org is not None:
            s.info["org_id"] = org.id
            s.commit()  # the next transaction is the organisation's
            user = s.scalars(select(User).where(User.email == email)).first()
        if user is None or not user.active:
            auth.dummy_verify(password)
            ok = False
        else:
            ok = auth.verify_password(user.password_hash, password)
        if not ok:
            logger.info("failed login for %r at %r", email, org_slug)
            if limits is not None:
                limits.login_failed(account, address)
            return _page(
                "Log in",
                _login_form(next_path, "Wrong organisation, email or password.", org_slug, email),
                status=401,
            )
        secret = auth.new_secret()
        login_row = LoginSession(
            id=uuid.uuid4(),
            user_id=user.id,
            secret_hash=auth.digest(secret),
            created_at=utcnow(),
            expires_at=utcnow() + dt.timedelta(hours=SESSION_HOURS),
        )
        s.add(login_row)
        s.commit()
    if limits is not None:
        limits.login_succeeded(account, address)
    response = RedirectResponse(next_path, status_code=303)
    response.set_cookie(
        COOKIE,
        auth.format_cookie(org.id, login_row.id, secret),
        max_age=SESSION_HOURS * 3600,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/",
    )
    return response


@router.get("/logout", response_class=HTMLResponse)
def logout_page():
    return _page("Log out", '<form method="post" action="/logout"><button>Log out</button></form>')


@router.post("/logout")
def logout(request: Request):
    kind, text = credential(request)
    parsed = org_of("cookie", text) if kind == "cookie" else None
    if parsed is not None:
        with request.app.state.platform_sessions() as s:
            s.info["org_id"] = parsed[0]
            row = s.get(LoginSession, parsed[1])
            if row is not None and auth.same(parsed[2], row.secret_hash) and row.ended_at is None:
                row.ended_at = utcnow()
            s.commit()
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(COOKIE, path="/")
    return response


#: Dashboard writes and the permission each needs (others need ``write``).
WRITE_PERMISSIONS = {"/api/feedback": "feedback", "/versions/promote": "admin"}


class LoginGate:
    """ASGI middleware in front of the dashboard: a valid login (or key) or no entry."""

    def __init__(self, app: ASGIApp, sessions) -> None:
        self.app = app
        self.sessions = sessions

    def _principal(self, kind, parsed):
        with self.sessions() as s:
            s.info["org_id"] = parsed[0]
            return principal_in(s, kind, parsed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        import anyio
        from starlette.requests import Request as StarletteRequest

        request = StarletteRequest(scope)
        kind, text = credential(request)
        try:
            key_limit(request, kind)
        except HTTPException as exc:
            await _json(exc.status_code, exc.detail, exc.headers)(scope, receive, send)
            return
        parsed = org_of(kind, text)
        who = None
        if parsed is not None:
            who = await anyio.to_thread.run_sync(self._principal, kind, parsed)
        if who is None:
            key_failed(request, kind)
        path = scope["path"]
        if who is None:
            if scope["method"] == "GET" and not path.startswith("/api/"):
                target = path + (
                    "?" + scope["query_string"].decode() if scope["query_string"] else ""
                )
                response = RedirectResponse(
                    "/login?next=" + quote(target, safe=""), status_code=303
                )
            else:
                response = _json(401, "log in first (or send an API key)")
            await response(scope, receive, send)
            return
        needed = "read"
        if scope["method"] not in ("GET", "HEAD", "OPTIONS"):
            needed = WRITE_PERMISSIONS.get(path, "write")
        if not who.can(needed):
            await _json(403, f"{who.name} lacks the {needed!r} permission")(scope, receive, send)
            return
        token = current_org.set(who.org_id)
        try:
            await self.app(scope, receive, send)
        finally:
            current_org.reset(token)


def _json(status: int, message: str, headers: dict[str, str] | None = None):
    from starlette.responses import Response

    return Response(
        json.dumps({"error": message}),
        status_code=status,
        media_type="application/json",
        headers=headers,
    )


__all__ = ["COOKIE", "SESSION_HOURS", "LoginGate", "router"]
