"""Prometheus metrics shared by every agentgym server: one module, one set of names.

``agentgym serve``, the recording gateway, the agent server and the platform service each make
one :class:`Metrics` (its own ``CollectorRegistry``, so several apps in one process never
collide) and serve it at ``GET /metrics`` in Prometheus' text format. Every series carries a
``service`` label (``serve``, ``gateway``, ``agent-server``, ``platform``):

- ``agentgym_http_requests_total{service, method, route, status}``: requests answered. ``route``
  is the route's template (``/s/{session}/env/step``), never the raw path, so an id in a URL
  cannot grow the number of series; a path no route matched counts as ``other``.
- ``agentgym_http_request_duration_seconds{service, method, route}``: a histogram of the time
  from the request's arrival to the end of its reply (a streamed reply: its last chunk).
- ``agentgym_episodes_total{service, env, outcome}``: episodes ended, by why they ended (one of
  :data:`agentgym_envs.core.OUTCOMES`; ``unfinished`` for a gateway session written before its
  episode ended). Every outcome of a served env starts at 0, so rates exist before the first.
- ``agentgym_live_sessions{service}``: sessions open now (env sessions for ``serve``, harness
  sessions for the gateway, running ``/run`` episodes plus open resources sessions for the agent
  server; the platform passes its own count).

:data:`METRIC_NAMES` lists the names; ``deploy/grafana/agentgym.json`` queries only these (a test
checks it). Needs ``prometheus-client`` (in the ``server``, ``gateway``, ``agent-server`` and
``platform-ops`` extras); without it the servers run as before and ``/metrics`` answers 501
with the mend.

::

    from agentgym_envs.metrics import instrument
    metrics = instrument(app, "platform", live_sessions=lambda: 0)
    metrics.episode_ended("success", env="Maze-v0")
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from agentgym_envs.core import OUTCOMES

logger = logging.getLogger(__name__)

#: Scope key under which an app that routes by itself (``agentgym serve``'s fast path) names
#: the route of a request.
ROUTE_KEY = "agentgym.route"
#: ``route`` label of a request no route matched.
UNMATCHED = "other"
#: Extra ``outcome`` label: a gateway session written before its episode ended.
UNFINISHED = "unfinished"
#: Latency buckets (seconds): a sub-millisecond env step to a minutes-long agent episode.
BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300)  # fmt: skip
REQUESTS = "agentgym_http_requests"
LATENCY = "agentgym_http_request_duration_seconds"
EPISODES = "agentgym_episodes"
LIVE = "agentgym_live_sessions"
#: Every metric family this module exports (counters without their ``_total`` suffix, as
#: prometheus_client names them).
METRIC_NAMES = (REQUESTS, LATENCY, EPISODES, LIVE)
MEND = 'metrics need prometheus-client: pip install "agentgym-envs[server]"'

ASGIApp = Callable[[dict, Callable, Callable], Awaitable[None]]


def available() -> bool:
    """Whether ``prometheus_client`` can be imported."""
    try:
        import prometheus_client  # noqa: F401
    except ImportError:
        return False
    return True


def exported_series(names: Iterable[str] = METRIC_NAMES) -> set[str]:
    """The sample names a scrape shows for metric families ``names`` (``_total``,
    ``_bucket``, ``_count``, ``_sum``, ``_created`` included): what a query may name."""
    out: set[str] = set()
    for name in names:
        out |= {name, f"{name}_total", f"{name}_created", f"{name}_bucket"}
        out |= {f"{name}_count", f"{name}_sum"}
    return out


class Metrics:
    """The metrics of one server.

    Args:
        service: the ``service`` label of every series.
        live_sessions: called at each scrape for ``agentgym_live_sessions`` (``None``: the
            gauge is not exported).
        envs: env ids whose episode counters start at 0 for every outcome.
    """

    def __init__(
        self,
        service: str,
        *,
        live_sessions: Callable[[], int] | None = None,
        envs: Iterable[str] = (),
    ) -> None:
        self.service = service
        self.live_sessions = live_sessions
        self.enabled = available()
        self._children: dict[tuple[str, str, int], tuple[Any, Any]] = {}
        if not self.enabled:
            logger.info("%s: /metrics is off (%s)", service, MEND)
            return
        from prometheus_client import CollectorRegistry, Counter, Histogram

        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            REQUESTS,
            "HTTP requests answered, by route template and status.",
            ["service", "method", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            LATENCY,
            "Seconds from a request's arrival to the end of its reply.",
            ["service", "method", "route"],
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.episodes = Counter(
            EPISODES,
            "Episodes ended, by env and outcome (agentgym_envs.core.OUTCOMES).",
            ["service", "env", "outcome"],
            registry=self.registry,
        )
        for env in envs:
            for outcome in OUTCOMES:
                self.episodes.labels(service, env, outcome)
        if live_sessions is not None:
            self.registry.register(_LiveSessions(service, live_sessions))

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        """Count one answered request and its latency."""
        if not self.enabled:
            return
        key = (method, route, status)
        children = self._children.get(key)
        if children is None:
            children = (
                self.requests.labels(self.service, method, route, str(status)),
                self.latency.labels(self.service, method, route),
            )
            self._children[key] = children
        children[0].inc()
        children[1].observe(seconds)

    def episode_ended(self, outcome: str | None, env: str = "") -> None:
        """Count one ended episode (``None`` or an unknown outcome counts as ``unfinished``)."""
        if not self.enabled:
            return
        label = outcome if outcome in OUTCOMES else UNFINISHED
        self.episodes.labels(self.service, env, label).inc()

    def exposition(self, accept: str = "") -> tuple[bytes, str]:
        """The scrape body and its content type (OpenMetrics when ``accept`` asks for it)."""
        if not self.enabled:
            return (MEND + "\n").encode(), "text/plain; charset=utf-8"
        from prometheus_client.exposition import choose_encoder

        encoder, content_type = choose_encoder(accept)
        return encoder(self.registry), content_type

    def middleware(self, app: ASGIApp) -> ASGIApp:
        """``app`` wrapped so that every HTTP request it answers is counted and timed."""
        return HTTPMetrics(app, self)

    async def endpoint(self, request: Any) -> Any:
        """A Starlette endpoint serving :meth:`exposition` (501 without prometheus_client)."""
        from starlette.responses import Response

        body, content_type = self.exposition(request.headers.get("accept", ""))
        return Response(body, status_code=200 if self.enabled else 501, media_type=content_type)


class _LiveSessions:
    """A collector asking ``count()`` at each scrape (a gauge with no state of its own)."""

    def __init__(self, service: str, count: Callable[[], int]) -> None:
        self.service, self.count = service, count

    def describe(self) -> list[Any]:
        from prometheus_client.core import GaugeMetricFamily

        return [GaugeMetricFamily(LIVE, "Sessions open now.", labels=["service"])]

    def collect(self) -> Iterable[Any]:
        from prometheus_client.core import GaugeMetricFamily

        family = GaugeMetricFamily(LIVE, "Sessions open now.", labels=["service"])
        try:
            value = float(self.count())
        except Exception:  # a scrape never fails for one broken count
            logger.exception("%s: counting live sessions failed", self.service)
            value = float("nan")
        family.add_metric([self.service], value)
        yield family


def route_of(scope: dict[str, Any]) -> str:
    """The route template a request matched (``other`` if none)."""
    named = scope.get(ROUTE_KEY)
    if named:
        return str(named)
    route = scope.get("route")
    path = getattr(route, "path", None)
    if isinstance(path, str) and path:
        return path
    return UNMATCHED


class HTTPMetrics:
    """ASGI middleware: counts and times each HTTP request of the app it wraps (an exception
    out of the app counts as status 500 and goes on up)."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http" or not self.metrics.enabled:
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        async def sending(message: dict) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            self.metrics.observe(
                scope.get("method", ""), route_of(scope), status, time.perf_counter() - start
            )


def instrument(
    app: Any,
    service: str,
    *,
    live_sessions: Callable[[], int] | None = None,
    envs: Iterable[str] = (),
    path: str = "/metrics",
) -> Metrics:
    """Count and time every request of ``app`` (a Starlette or FastAPI app, before it starts)
    and serve the metrics at ``path``; the :class:`Metrics` is also ``app.state.metrics``."""
    from starlette.routing import Route

    metrics = Metrics(service, live_sessions=live_sessions, envs=envs)
    app.router.routes.insert(0, Route(path, metrics.endpoint, methods=["GET"]))
    app.add_middleware(HTTPMetrics, metrics=metrics)
    app.state.metrics = metrics
    return metrics


def metrics_router(metrics: Metrics, path: str = "/metrics") -> Any:
    """A FastAPI ``APIRouter`` serving ``metrics`` at ``path`` (for an app that mounts routers;
    add :class:`HTTPMetrics` as its middleware to count its requests)."""
    from fastapi import APIRouter, Request

    router = APIRouter()

    @router.get(path, include_in_schema=False)
    async def scrape(request: Request) -> Any:
        return await metrics.endpoint(request)

    return router


__all__ = [
    "BUCKETS",
    "METRIC_NAMES",
    "ROUTE_KEY",
    "UNFINISHED",
    "HTTPMetrics",
    "Metrics",
    "available",
    "exported_series",
    "instrument",
    "metrics_router",
    "route_of",
]
