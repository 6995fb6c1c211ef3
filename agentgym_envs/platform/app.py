"""The platform service: the ``/v1`` API, live routing, logins, and the experience dashboard
mounted unchanged at ``/`` behind the login gate, all under the dashboard's host and
cross-site-write guard.

    app = create_app("postgresql://app:secret@db/agentgym", allowed_hosts=["gym.example"])

Other areas add routers with ``extra_routers`` (they take the tenant's session from
:mod:`agentgym_envs.platform.deps`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from contextlib import asynccontextmanager

from agentgym_envs.errors import require

logger = logging.getLogger(__name__)
#: Worker threads for the service's blocking handlers (database calls).
THREADS = 64


def create_app(
    database_url: str,
    *,
    allowed_hosts: Iterable[str] | None = None,
    extra_routers: Sequence = (),
    check_role: bool = True,
    pool_size: int = 20,
    idempotency_hours: float | None = None,
):
    """The platform app over the database at ``database_url`` (connect as the service's role,
    a member of ``agentgym_tenant``: :func:`~agentgym_envs.platform.db.check_app_role` refuses
    one that row-level security would not bind).

    Args:
        database_url: PostgreSQL URL of the service's login role.
        allowed_hosts: ``Host`` names served (default: the local names).
        extra_routers: more FastAPI routers, mounted before the dashboard.
        check_role: refuse a superuser/owner connection (keep it on outside tests of it).
        pool_size: database connections kept open (as many again may be opened under load).
        idempotency_hours: how long an ``Idempotency-Key`` is remembered (default
            ``$AGENTGYM_PLATFORM_IDEMPOTENCY_HOURS``, else 24).
    """
    fastapi = require("fastapi", "platform")
    require("argon2", "platform")
    from agentgym_envs.experience import dashboard
    from agentgym_envs.experience.dashboard_guard import LOCAL_HOSTS, DashboardGuard
    from agentgym_envs.metrics import instrument
    from agentgym_envs.platform import api, jobs_routes, routing, search_page, search_routes, web
    from agentgym_envs.platform.db import TenantStore, check_app_role, make_engine, sessionmaker_for
    from agentgym_envs.platform.deps import open_sessions, tenant_session
    from agentgym_envs.platform.embeddings import embedder_from_env
    from agentgym_envs.platform.executions import METRICS_ENV
    from agentgym_envs.platform.jobs import make_app as queue_app
    from agentgym_envs.platform.ratelimit import AuthLimits

    engine = make_engine(database_url, pool_size=pool_size, max_overflow=pool_size)
    if check_role:
        check_app_role(engine)
    sessions = sessionmaker_for(engine)
    hosts = tuple(allowed_hosts) if allowed_hosts is not None else LOCAL_HOSTS

    @asynccontextmanager
    async def lifespan(_app):
        import anyio.to_thread

        anyio.to_thread.current_default_thread_limiter().total_tokens = THREADS
        yield
        engine.dispose()

    app = fastapi.FastAPI(
        title="agentgym platform",
        docs_url="/v1/docs",
        openapi_url="/v1/openapi.json",
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.platform_sessions = sessions
    app.state.idempotency_retention = api.idempotency_retention(idempotency_hours)
    app.state.auth_limits = AuthLimits()  # failed logins and keys
    app.state.engine = engine

    @app.get("/healthz", include_in_schema=False)
    def healthz():
        return {"ok": True}

    # GET /metrics: every request counted and timed; recorded executions by outcome (env
    # "platform": no organisation's names in a page anyone may scrape); live sessions = requests
    # holding an organisation's database session now
    instrument(app, "platform", live_sessions=open_sessions, envs=[METRICS_ENV])
    app.include_router(api.router)
    app.include_router(routing.router)
    # episode search under the same keys, roles and row-level security as /v1
    app.state.embedder = embedder_from_env()  # every recorded execution is indexed with it
    app.include_router(search_routes.router(tenant_session, app.state.embedder), prefix="/v1")
    # training jobs (/v1/jobs, the dashboard's /jobs) under the same keys, roles and
    # row-level security; `agentgym platform worker` runs them
    app.include_router(jobs_routes.router(queue_app(database_url)))
    app.include_router(search_page.router(tenant_session, app.state.embedder))  # /search
    app.include_router(web.router)
    for router in extra_routers:
        app.include_router(router)
    board = dashboard.create_app(TenantStore(sessions), allowed_hosts=hosts)
    board.state.templates.globals["extra_links"] = [("/jobs", "jobs"), ("/search", "search")]
    app.mount("/", web.LoginGate(board, sessions))
    app.add_middleware(DashboardGuard, allowed_hosts=hosts)
    return app


def serve(
    database_url: str,
    *,
    host: str = "127.0.0.1",
    port: int = 8780,
    allowed_hosts: Iterable[str] = (),
    log_level: str = "warning",
    extra_routers: Sequence = (),
) -> None:
    """Serve the platform until interrupted."""
    from agentgym_envs.experience.dashboard_guard import default_hosts
    from agentgym_envs.serving import check_bindable, serve_app

    check_bindable(host, port)
    hosts = (*default_hosts(host), *allowed_hosts)
    app = create_app(database_url, allowed_hosts=hosts, extra_routers=extra_routers)
    serve_app(app, host, port, extra="platform", log_level=log_level)


__all__ = ["create_app", "serve"]
