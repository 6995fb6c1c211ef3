"""Small helpers of the platform tests (HTTP as a key or a login, counts in the database)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import httpx

from tests.platform.conftest import PASSWORD


def as_key(url: str, key: str) -> httpx.Client:
    return httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60)


@contextlib.contextmanager
def login(url: str, org: str, email: str, password: str = PASSWORD) -> Iterator[httpx.Client]:
    """A client logged in to the dashboard (its cookie jar holds the session)."""
    with httpx.Client(base_url=url, timeout=60) as c:
        r = c.post("/login", data={"org": org, "email": email, "password": password, "next": "/"})
        assert r.status_code == 303, r.text
        yield c


def count(owner_url: str, sql: str) -> int:
    """``sql``'s single number, read as the database owner with row-level security off for
    this one query's transaction (the owner is bound by FORCE too: it sets no tenant)."""
    import psycopg

    dsn = owner_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(dsn) as c:
        c.execute("SET row_security = off")
        return c.execute(sql).fetchone()[0]


def ids(owner_url: str, sql: str) -> list:
    """``sql``'s first column, every row, read as :func:`count` reads."""
    import psycopg

    dsn = owner_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(dsn) as c:
        c.execute("SET row_security = off")
        return [row[0] for row in c.execute(sql).fetchall()]


def _walk(routes, prefix: str = ""):
    """(method, path, in the mounted dashboard) of every route, through included routers and
    the dashboard's mount (its login gate)."""
    from starlette.routing import Mount

    for r in routes:
        if isinstance(r, Mount):
            inner = getattr(r.app, "app", r.app)  # the login gate wraps the dashboard
            yield from ((m, p, True) for m, p, _ in _walk(inner.routes, prefix + r.path))
        elif hasattr(r, "path"):
            for m in sorted(getattr(r, "methods", None) or ["GET"]):
                if m != "HEAD":
                    yield m, prefix + r.path, False
        else:  # FastAPI's included router
            ctx = r.include_context
            yield from _walk(r.original_router.routes, prefix + (ctx.prefix or ""))


def service_routes(app_url: str) -> list[tuple[str, str, bool]]:
    """Every route ``agentgym platform serve`` answers, walked from the app itself:
    ``(method, path, in the dashboard)``."""
    from agentgym_envs.platform.app import create_app

    app = create_app(app_url, pool_size=1)
    try:
        found = sorted(set(_walk(app.routes)))
    finally:
        app.state.engine.dispose()
    assert len(found) >= 40, found
    return found
