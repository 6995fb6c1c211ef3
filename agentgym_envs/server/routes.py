"""Binds an :class:`~agentgym_envs.server.service.EnvService` to AgentGym's paths.

POST endpoints read the JSON body, GET endpoints the session id of the query string; a failure
becomes AgentGym's HTTP 200 ``{"error": "..."}`` reply. A body over :data:`MAX_BODY_BYTES` or
nested deeper than :data:`MAX_JSON_DEPTH` is refused with HTTP 413 / 400 and a JSON error before
it is parsed (``json.loads`` recurses, so a deep body would otherwise end in a 500). A family with a ``url_prefix`` (LMRL-Gym
serves Maze and Wordle under ``/maze`` and ``/wordle`` of one app) is served both with and
without it.

AgentGym's endpoints are answered by :class:`AgentGymApp` ahead of FastAPI's middleware and
router: an exact ``(method, path)`` lookup, JSON in, JSON bytes out. They are most of the
traffic and this keeps a sub-millisecond step at a fraction of FastAPI's per-request cost;
everything else (``/``, ``/list_envs``, ``/docs``) goes through FastAPI as usual.

Service methods are synchronous. Each path starts out running them in the thread pool, so a slow
env (a SciWorld reset, a BabyAI path search) never holds up other sessions; once a path's calls
have stayed under :data:`FAST_SECONDS` for :data:`FAST_CALLS` calls in a row it runs them on the
event loop, which saves the thread hop, and goes back to the pool after the first slow call.

A call in the pool has a deadline (``request_timeout``, :data:`REQUEST_TIMEOUT` by default): past
it the client gets HTTP 504 and a one-line JSON error at once, and the session the call worked on
is marked broken (:mod:`~agentgym_envs.server.deadline`), so a later request on it is refused
rather than acting on a half-finished step. A call on the event loop cannot be interrupted:
it runs there only after its path has been fast many times in a row, the env's own per-step
limits (:mod:`agentgym_envs.bounds`) bound it, and it never waits for a session another request
holds (such a call goes to the pool). An env class with ``shares_process = True`` (SciWorld:
its simulators share JVMs, and a frozen JVM holds every call into it) always runs in the pool.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs

import anyio
from anyio import to_thread
from fastapi import FastAPI
from starlette.types import Receive, Scope, Send

from agentgym_envs.bodies import (
    BodyRefused,
    NotJSON,
    asgi_chunks,
    asgi_headers,
    parse_json,
    read_capped,
)
from agentgym_envs.bounds import json_dumps_utf8
from agentgym_envs.errors import AgentGymError
from agentgym_envs.metrics import ROUTE_KEY, Metrics
from agentgym_envs.server.deadline import (
    REQUEST_TIMEOUT,
    Request,
    RequestAbandoned,
    WouldBlock,
    working_for,
)
from agentgym_envs.server.protocol import error, jsonable
from agentgym_envs.server.service import EnvService
from agentgym_envs.server.sessions import TOKEN_HEADER, ForbiddenSessionError, SessionError

logger = logging.getLogger(__name__)

Handler = Callable[[Any], Any]
Endpoint = Callable[[Scope, Receive], Awaitable[Any]]
#: A call faster than this counts as fast (see the module docstring).
FAST_SECONDS = 0.002
#: Consecutive fast calls in the thread pool before a path runs on the event loop.
FAST_CALLS = 16
#: Largest request body read (bytes); AgentGym's requests are a few hundred bytes.
MAX_BODY_BYTES = 1 << 20
#: Deepest ``[``/``{`` nesting accepted in a request body.
MAX_JSON_DEPTH = 32
_HEADERS = [(b"content-type", b"application/json")]


class BadRequest(Exception):
    """A request refused before it reaches a handler, with its HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class AgentGymApp(FastAPI):
    """A FastAPI app whose AgentGym endpoints (:attr:`endpoints`) are dispatched directly."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: ``(method, path)`` -> endpoint returning the JSON-ready reply.
        self.endpoints: dict[tuple[str, str], Endpoint] = {}
        self._entry: Callable[[Scope, Receive, Send], Awaitable[None]] = self._dispatch

    def use_metrics(self, metrics: Metrics) -> None:
        """Count and time every request (the direct endpoints too) in ``metrics`` and serve
        them at ``GET /metrics``."""
        self.add_route("/metrics", metrics.endpoint, methods=["GET"], include_in_schema=False)
        self._entry = metrics.middleware(self._dispatch)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._entry(scope, receive, send)

    async def _dispatch(self, scope: Scope, receive: Receive, send: Send) -> None:
        endpoint = None
        if scope["type"] == "http":
            endpoint = self.endpoints.get((scope["method"], scope["path"]))
        if endpoint is None:
            await super().__call__(scope, receive, send)
            return
        scope[ROUTE_KEY] = scope["path"]
        status = 200
        extra: list[tuple[bytes, bytes]] = []
        scope.setdefault("state", {})["agentgym_reply_headers"] = extra
        try:
            reply = await endpoint(scope, receive)
        except BadRequest as exc:
            status, reply = exc.status, error(str(exc))
            if status == 413:  # the rest of the body is not read: the connection ends here
                extra.append((b"connection", b"close"))
        except Exception as exc:  # never a 500 without a JSON body
            logger.exception("request failed")
            reply = error(f"{type(exc).__name__}: {exc}")
        try:
            payload = _dumps(reply)
        except (TypeError, ValueError, RecursionError) as exc:
            logger.exception("reply not serialisable")
            payload = _dumps(error(f"reply not serialisable: {type(exc).__name__}: {exc}"))
        headers = [*_HEADERS, *extra, (b"content-length", str(len(payload)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": payload})


def _dumps(reply: Any) -> bytes:
    # a lone surrogate (an action sent as "\\ud800" is echoed back) travels as a JSON escape:
    # AgentGym's server fails with a 500 there
    return json_dumps_utf8(reply, allow_nan=False, separators=(",", ":")).encode()


def add_routes(
    app: AgentGymApp, service: EnvService, request_timeout: float | None = REQUEST_TIMEOUT
) -> None:
    """Add every endpoint of ``service``'s family to ``app``; a request past
    ``request_timeout`` seconds (``None``: no limit) is answered with HTTP 504."""
    wire = service.info.record.wire
    assert wire is not None
    posts: dict[str, Handler] = {
        "/create": service.create,
        "/reset": service.reset,
        "/step": service.step,
        "/close": service.close,
    }
    gets: dict[str, Handler] = {
        "/observation": service.observation,
        "/available_actions": service.available_actions,
        "/detail": service.detail,
    }
    for name in wire.get_endpoints:
        gets[f"/{name}"] = functools.partial(service.family_endpoint, name)
    session_keys = (service.protocol.session_key, "id", "env_idx")
    # an env whose calls may wait on a process other envs share (SciWorld's JVM) never runs
    # on the event loop: a frozen JVM would stop every request, past every deadline
    fast_calls = FAST_CALLS if not _shares_process(service.info.id) else 2**62
    for prefix in ("", wire.url_prefix) if wire.url_prefix else ("",):
        for path, handler in posts.items():
            run = Runner(handler, prefix + path, timeout=request_timeout, fast_calls=fast_calls)
            app.endpoints["POST", prefix + path] = _post(run)
        for path, handler in gets.items():
            run = Runner(handler, prefix + path, timeout=request_timeout, fast_calls=fast_calls)
            app.endpoints["GET", prefix + path] = _get(run, session_keys)
        for name in wire.get_endpoints:  # AgentGym's BabyAI posts {"id"} to /render
            run = Runner(
                lambda body, name=name: service.family_endpoint(name, service.session_key(body)),
                f"{prefix}/{name}",
                timeout=request_timeout,
                fast_calls=fast_calls,
            )
            app.endpoints["POST", f"{prefix}/{name}"] = _post(run)
    app.add_api_route("/", service.root, methods=["GET"])
    app.add_api_route("/list_envs", service.list_envs, methods=["GET"])


def _shares_process(env_id: str) -> bool:
    """Whether ``env_id``'s env class says its calls may wait on a shared process."""
    import importlib

    import gymnasium as gym

    entry = gym.spec(env_id).entry_point
    if not isinstance(entry, str):
        return bool(getattr(entry, "shares_process", False))
    module, _, name = entry.partition(":")
    return bool(getattr(getattr(importlib.import_module(module), name), "shares_process", False))


class Runner:
    """Runs one path's handler in the thread pool, or on the event loop while it is fast.

    Args:
        handler: the service method; its failures become error replies.
        name: the path, for messages.
        timeout: seconds a call in the pool may take (``None``: no limit); past it the call is
            abandoned (see the module docstring) and :class:`BadRequest` with status 504 raised.
        fast_seconds: a call under this counts as fast.
        fast_calls: fast calls in a row before the handler runs on the event loop.
    """

    def __init__(
        self,
        handler: Handler,
        name: str = "request",
        *,
        timeout: float | None = None,
        fast_seconds: float = FAST_SECONDS,
        fast_calls: int = FAST_CALLS,
    ) -> None:
        self.handler = handler
        self.name = name
        self.timeout = timeout
        self.fast_seconds = fast_seconds
        self.fast_calls = fast_calls
        self.streak = 0

    @property
    def inline(self) -> bool:
        """Whether the next call runs on the event loop."""
        return self.streak >= self.fast_calls

    async def __call__(self, arg: Any, http: Scope | None = None) -> Any:
        reply = seconds = None
        client, token = _caller(http, arg)
        if self.inline:
            request = Request(self.name, None, waits=False, client=client, token=token)
            try:  # on the loop, a session held by another request is never waited for
                reply, seconds = self._timed(arg, request)
            except WouldBlock:
                pass
        if seconds is None:
            request = Request(self.name, self.timeout, client=client, token=token)
            with anyio.move_on_after(self.timeout) as scope:
                reply, seconds = await to_thread.run_sync(
                    self._timed, arg, request, abandon_on_cancel=self.timeout is not None
                )
            if scope.cancelled_caught:
                self.streak = 0
                raise self._abandon(request)
        self.streak = self.streak + 1 if seconds < self.fast_seconds else 0
        if http is not None and request.reply_headers:
            http["state"]["agentgym_reply_headers"].extend(
                (k.lower().encode(), v.encode()) for k, v in request.reply_headers.items()
            )
        return reply

    def _timed(self, arg: Any, request: Request) -> tuple[Any, float]:
        start = time.perf_counter()
        with working_for(request):
            reply = _guarded(self.handler, arg)
        return reply, time.perf_counter() - start

    def _abandon(self, request: Request) -> BadRequest:
        held = request.abandon()
        message = (
            f"{self.name} took longer than the server's {self.timeout:g} s request limit "
            "(agentgym serve --request-timeout)"
        )
        if self.name.endswith("/create"):
            message += "; no session was created"
        elif held:
            message += "; its session is now broken: /close it and /create a new one"
        logger.warning("%s", message)
        return BadRequest(message, status=504)


def _caller(scope: Scope | None, arg: Any) -> tuple[str, str | None]:
    """The client's address and the session token the request carries (the
    ``X-Session-Token`` header, else a ``session_token`` body or query key)."""
    if scope is None:
        return "", None
    client = (scope.get("client") or ("",))[0] or ""
    wanted = TOKEN_HEADER.lower().encode()
    token = next((v.decode("latin-1") for k, v in scope.get("headers", ()) if k == wanted), None)
    if token is None and isinstance(arg, dict) and isinstance(arg.get("session_token"), str):
        token = arg["session_token"]
    if token is None:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        token = (query.get("session_token") or [None])[-1]
    return client, token


def _post(run: Runner) -> Endpoint:
    async def post(scope: Scope, receive: Receive) -> Any:
        try:
            raw = await read_capped(asgi_chunks(receive), MAX_BODY_BYTES, asgi_headers(scope))
            body = _parse_body(raw)
        except NotJSON as exc:  # AgentGym's shape: HTTP 200 with the error
            return error(f"bad request body: {exc}")
        except BodyRefused as exc:
            raise BadRequest(str(exc), exc.status) from None
        except (ValueError, TypeError, RecursionError) as exc:
            return error(f"bad request body: {exc}")
        return await run(body, scope)

    return post


def _get(run: Runner, session_keys: tuple[str, ...]) -> Endpoint:
    async def get(scope: Scope, receive: Receive) -> Any:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        key = next((k for k in session_keys if k in query), None)
        if key is None:
            return error(f"missing query parameter {session_keys[0]!r}")
        return await run(query[key][-1], scope)

    return get


def _parse_body(raw: bytes) -> dict[str, Any]:
    data = parse_json(raw, MAX_JSON_DEPTH, empty={})
    if not isinstance(data, dict):
        raise TypeError(f"request body must be a JSON object, got {type(data).__name__}")
    return data


def _guarded(handler: Handler, arg: Any) -> Any:
    try:
        return jsonable(handler(arg))
    except WouldBlock:
        raise  # nothing was done: the runner sends the call to the pool
    except ForbiddenSessionError as exc:
        raise BadRequest(str(exc), status=403) from None
    except KeyError as exc:
        return error(f"missing key {exc}")
    except (SessionError, AgentGymError, ValueError, TypeError, RequestAbandoned) as exc:
        return error(str(exc))
    except Exception as exc:
        logger.exception("request failed")
        return error(f"{type(exc).__name__}: {exc}")
