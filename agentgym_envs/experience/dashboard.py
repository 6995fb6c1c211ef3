"""The experience dashboard: a local web app over the store (FastAPI, server-rendered HTML).

Pages: runs and versions with the score per env across versions (``/``), a run's episodes
(``/runs/{id}``), a trajectory viewer that replays an episode step by step with the env's
rendered view and feedback buttons on every step and on the outcome (``/episodes/{id}``),
versions and their comparison with paired intervals (``/versions``), A/B tests
(``/ab/{id}``) and all feedback (``/feedback``). The JSON API under ``/api`` takes feedback
(``POST /api/feedback``), lists and exports it, and serves episodes and their views. Charts are
SVG drawn on the server and the page script is inline: nothing is loaded from elsewhere.
Bind it to 127.0.0.1: it has no login. It answers only to the host names it is allowed (its
address, and local names when that is a loopback one: DNS rebinding) and refuses writes from
other sites (:mod:`~agentgym_envs.experience.dashboard_guard`).

The pages are in :mod:`~agentgym_envs.experience.dashboard_pages`, the API in
:mod:`~agentgym_envs.experience.dashboard_api`, what both read from the store in
:mod:`~agentgym_envs.experience.dashboard_queries`; this module builds the app around them.
"""

import logging
import math
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agentgym_envs.errors import require
from agentgym_envs.experience.ab import format_p

logger = logging.getLogger(__name__)

_HERE = Path(__file__).parent
PAGE_SIZE = 100  # episodes on a page of a run


def _fmt(x: Any, spec: str = ".3f") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return format(x, spec)


class _ViewCache:
    """The last few episodes' rendered views (a replay costs milliseconds to a second)."""

    def __init__(self, size: int = 32) -> None:
        self.size = size
        self._items: OrderedDict[int, dict[str, Any]] = OrderedDict()

    def get(self, key: int, make) -> dict[str, Any]:
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key]
        value = make()
        self._items[key] = value
        while len(self._items) > self.size:
            self._items.popitem(last=False)
        return value


def _templates():
    jinja2 = require("jinja2", "experience")
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(_HERE / "templates")),
        autoescape=jinja2.select_autoescape(["html"]),
    )
    env.filters["fmt"] = _fmt
    env.filters["pvalue"] = format_p
    env.filters["short"] = lambda e: str(e).split("/")[-1]
    env.filters["pct"] = lambda x: "–" if x is None else f"{100 * x:.1f}%"
    return env


def create_app(store, allowed_hosts: Iterable[str] | None = None):
    """The dashboard app over ``store`` (an :class:`~agentgym_envs.experience.ExperienceStore`),
    answering only to ``allowed_hosts`` (default: the local host names) and refusing
    cross-site writes (:mod:`~agentgym_envs.experience.dashboard_guard`)."""
    fastapi = require("fastapi", "experience")
    from fastapi.exception_handlers import http_exception_handler

    from agentgym_envs.experience import dashboard_api, dashboard_pages
    from agentgym_envs.experience.dashboard_guard import LOCAL_HOSTS, DashboardGuard
    from agentgym_envs.experience.dashboard_queries import NotFound

    app = fastapi.FastAPI(title="agentgym experience", docs_url="/api/docs", redoc_url=None)
    app.state.store = store
    app.state.templates = _templates()
    app.state.views = _ViewCache()

    async def not_found(request, exc: NotFound):
        return await http_exception_handler(request, fastapi.HTTPException(404, str(exc)))

    app.add_exception_handler(NotFound, not_found)
    app.include_router(dashboard_pages.router)
    app.include_router(dashboard_api.router)
    hosts = tuple(allowed_hosts) if allowed_hosts is not None else LOCAL_HOSTS
    app.add_middleware(DashboardGuard, allowed_hosts=hosts)
    return app


def serve(
    store,
    host: str = "127.0.0.1",
    port: int = 8765,
    log_level: str = "warning",
    allowed_hosts: Iterable[str] = (),
) -> None:
    """Serve the dashboard until interrupted, answering to the host names of
    :func:`~agentgym_envs.experience.dashboard_guard.default_hosts` for ``host`` and to
    ``allowed_hosts``."""
    from agentgym_envs.experience.dashboard_guard import default_hosts
    from agentgym_envs.serving import serve_app

    hosts = (*default_hosts(host), *allowed_hosts)
    serve_app(create_app(store, hosts), host, port, extra="experience", log_level=log_level)


__all__ = ["PAGE_SIZE", "create_app", "serve"]
