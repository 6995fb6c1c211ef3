"""An agent server: a reference agent as an HTTP service that runs whole episodes.

``agentgym agent-server <agent>`` serves :func:`create_app`. NeMo Gym users will know the
shape: ``POST /run`` takes a row (the env and task, the model endpoint; see
:mod:`agentgym_envs.agents.episodes`) and returns it with the ``response`` (the trajectory
as chat messages), ``reward``, ``outcome``, ``reward_valid``, the AgentTraj
``conversations`` and token counts; a resources-server-style API plays one episode a call at
a time (:mod:`agentgym_envs.agents.resources`). NeMo Gym itself is not needed.

Episodes run on worker threads, never on the event loop, at most ``concurrency`` at a time
(the others wait their turn); each has a wall-clock ``episode_timeout`` counted from its start,
after which it ends as ``time_limit`` with ``reward_valid`` false. A bad row (unknown agent,
env id or task, no model) is a 4xx with the mend; a model nobody answers at is a 424.

Hostile input is bounded: rows choose only among the model endpoints the server was started
with (:mod:`~agentgym_envs.agents.models`); every model call has connect, read and total
deadlines and a reply byte cap (:class:`~agentgym_envs.agents.episodes.ModelLimits`), so an
endpoint that trickles or never ends its body holds a worker no longer than its deadline, and
the episode's thread ends with it; episodes run at most ``concurrency`` at a time per endpoint,
so a stalled endpoint does not hold up rows for the others; bodies are capped before they are
read and nested JSON is refused (:mod:`agentgym_envs.bodies`); resources-API sessions belong to
the client ``/seed_session`` answered (its token).
"""

# (no ``from __future__ import annotations``: FastAPI reads the route annotations)
import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from agentgym_envs.agents.episodes import (
    BadRequest,
    ModelLimits,
    agent_names,
    answer,
    check_task,
    parse_row,
    play,
)
from agentgym_envs.agents.models import ModelAllowList
from agentgym_envs.bodies import BodyRefused, request_json

#: Largest request body the agent server reads (bytes); ``/aggregate_metrics`` takes many
#: answers at once.
MAX_BODY_BYTES = 32 << 20

logger = logging.getLogger(__name__)


def _in_thread(fn: Callable[[], Any], name: str) -> "asyncio.Future[Any]":
    """``fn()`` on a thread of its own (it ends with the call: no pool keeps it), as a
    future of the running loop."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if future.done():
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def target() -> None:
        try:
            result = (True, fn())
        except BaseException as exc:  # handed to the awaiting request
            result = (False, exc)
        with contextlib.suppress(RuntimeError):  # the loop is gone (shutdown)
            loop.call_soon_threadsafe(settle, *result)

    threading.Thread(target=target, name=name, daemon=True).start()
    return future


class _Reachable:
    """Whether a model endpoint answers ``GET /models``, remembered for ``ttl`` seconds."""

    def __init__(self, limits: ModelLimits, ttl: float = 30.0) -> None:
        self.ttl, self.limits = ttl, limits
        self._seen: dict[str, float] = {}
        self._lock = threading.Lock()

    def check(self, endpoint: dict[str, Any]) -> None:
        from agentgym_envs.benchmarks.llm import ChatClient, EndpointError

        url = str(endpoint["base_url"]).rstrip("/")
        with self._lock:
            if time.monotonic() - self._seen.get(url, -1e9) < self.ttl:
                return
        seconds = min(10.0, self.limits.total)
        client = ChatClient(
            url,
            endpoint.get("model") or "-",
            endpoint.get("api_key") or "EMPTY",
            timeout=seconds,
            connect_timeout=self.limits.connect,
            total_timeout=seconds,
            max_reply_bytes=self.limits.reply_bytes,
            max_retries=0,
        )
        try:
            client.models()
        except EndpointError as exc:
            raise BadRequest(f"model endpoint unreachable: {exc}", status=424) from None
        finally:
            client.close()
        with self._lock:
            self._seen[url] = time.monotonic()


class _Runner:
    """Plays ``/run`` rows, each on a thread of its own that ends with it, at most
    ``concurrency`` at a time *per model endpoint* (an endpoint that stalls holds only its
    own rows' slots), each within ``episode_timeout`` seconds of its start: no model call
    outlives that deadline (see :class:`~agentgym_envs.agents.episodes.ModelLimits`)."""

    def __init__(
        self,
        agent: str,
        models: ModelAllowList,
        concurrency: int,
        timeout: float,
        limits: ModelLimits,
    ) -> None:
        self.agent, self.models, self.timeout = agent, models, timeout
        self.concurrency, self.limits = concurrency, limits
        self.lanes: dict[str, asyncio.Semaphore] = {}
        self.reachable = _Reachable(limits)
        self.stats = {"running": 0, "done": 0, "failed": 0}
        #: Called with each played episode's outcome and env id (the server's metrics).
        self.episode_ended: Callable[[str | None, str], None] | None = None

    def lane(self, endpoint: dict[str, Any]) -> asyncio.Semaphore:
        url = str(endpoint["base_url"])
        if url not in self.lanes:  # keys come from the allow-list: a bounded set
            self.lanes[url] = asyncio.Semaphore(self.concurrency)
        return self.lanes[url]

    async def run(self, row: Any) -> dict[str, Any]:
        req = parse_row(row, agent=self.agent, models=self.models)
        check_task(req)
        async with self.lane(req.model):
            await _in_thread(lambda: self.reachable.check(req.model), "agent-reach")
            if req.user_model is not None:
                await _in_thread(lambda: self.reachable.check(req.user_model), "agent-reach")
            self.stats["running"] += 1
            t0 = time.monotonic()
            deadline = t0 + self.timeout
            future = _in_thread(
                lambda: play(req, deadline=deadline, timeout=self.timeout, limits=self.limits),
                "agent-episode",
            )
            try:
                record = await asyncio.wait_for(asyncio.shield(future), self.timeout + 30.0)
            except asyncio.TimeoutError:
                record = _late(self.timeout)
            except BadRequest:
                raise
            except Exception as exc:  # the env or the agent broke: the episode, not the server
                logger.exception("episode %s/%s crashed", req.env_id, req.task_id)
                record = {**_late(self.timeout), "outcome": "env_error"}
                record["error"] = f"{type(exc).__name__}: {exc}"
            finally:
                self.stats["running"] -= 1
        self.stats["done" if record.get("outcome") != "env_error" else "failed"] += 1
        if self.episode_ended is not None:
            self.episode_ended(record.get("outcome"), req.env_id)
        return answer(row, req, record, time.monotonic() - t0)


def create_app(
    agent: str = "multistep",
    *,
    model: dict[str, Any] | None = None,
    allow_models: list[Any] | tuple[Any, ...] = (),
    concurrency: int = 8,
    episode_timeout: float = 600.0,
    max_sessions: int = 64,
    limits: ModelLimits | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
    session_auth: bool = True,
) -> Any:
    """The agent server's FastAPI app.

    Args:
        agent: the default agent (a row may name another): ``multistep``,
            ``multistep-tools``, ``multiturn`` (multi-step presets) or ``multiturn-user``.
        model: the default model endpoint ``{"base_url", "model", "api_key"}``.
        allow_models: more endpoints rows may choose (``[name=]URL`` strings or endpoint
            dicts with a ``name``); the server calls no other URL.
        concurrency: episodes played at once per model endpoint.
        episode_timeout: wall seconds per episode.
        max_sessions: open resources-server sessions.
        limits: per-call model limits (connect/read/total seconds, reply bytes).
        max_body_bytes: largest request body read (413 past it, before reading it all).
        session_auth: require the token ``/seed_session`` returns on later calls on the
            session (the ``X-Session-Token`` header or the session cookie).
    """
    from agentgym_envs.errors import require

    require("fastapi", "agent-server")
    require("uvicorn", "agent-server")
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse

    from agentgym_envs.agents.resources import SessionStore, add_routes
    from agentgym_envs.metrics import instrument

    if agent not in agent_names():
        raise BadRequest(f"unknown agent {agent!r}: use one of {', '.join(agent_names())}")
    if concurrency < 1 or episode_timeout <= 0:
        raise BadRequest("concurrency must be >= 1 and episode_timeout > 0")
    limits = limits or ModelLimits()
    runner = _Runner(
        agent, ModelAllowList(model, allow_models), concurrency, episode_timeout, limits
    )
    store = SessionStore(max_sessions, auth=session_auth)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> Any:
        yield
        store.close()

    app = FastAPI(title=f"agentgym agent server ({agent})", lifespan=lifespan)
    app.state.runner, app.state.store = runner, store
    metrics = instrument(
        app, "agent-server", live_sessions=lambda: runner.stats["running"] + len(store)
    )
    runner.episode_ended = lambda outcome, env: metrics.episode_ended(outcome, env=env)
    app.state.max_body_bytes = max_body_bytes

    @app.exception_handler(BadRequest)
    async def bad_request(request: Request, exc: BadRequest) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=exc.status)

    @app.exception_handler(BodyRefused)
    async def body_refused(request: Request, exc: BodyRefused) -> JSONResponse:
        response = JSONResponse({"detail": str(exc)}, status_code=exc.status)
        if exc.status == 413:  # the rest of the body is not read: the connection ends here
            response.headers["connection"] = "close"
        return response

    @app.get("/health")
    def health() -> dict[str, Any]:
        info = {"agent": agent, "agents": agent_names(), "concurrency": concurrency}
        return {"status": "ok", **info, "models": runner.models.names(), **runner.stats}

    @app.post("/run")
    async def run(request: Request) -> Any:
        row = await request_json(request, limit=max_body_bytes)
        return await runner.run(row)

    @app.post("/aggregate_metrics")
    async def aggregate_metrics(request: Request) -> dict[str, Any]:
        rows = await request_json(request, limit=max_body_bytes)
        rows = rows.get("verify_responses", rows) if isinstance(rows, dict) else rows
        if not isinstance(rows, list):
            raise BadRequest("POST a list of /run answers (or {verify_responses: [...]})")
        return aggregate(rows)

    add_routes(app, store)
    return app


def _late(timeout: float) -> dict[str, Any]:
    return {
        "conversations": [],
        "reward": 0.0,
        "success": False,
        "outcome": "time_limit",
        "reward_valid": False,
        "error": f"the episode did not finish within {timeout:g} s",
    }


def aggregate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean reward over the valid episodes, success rate and outcome counts of /run answers."""
    rows = [r for r in rows if isinstance(r, dict)]
    valid = [r for r in rows if r.get("reward_valid", True)]
    outcomes: dict[str, int] = {}
    for r in rows:
        outcomes[str(r.get("outcome"))] = outcomes.get(str(r.get("outcome")), 0) + 1
    n = len(valid)
    return {
        "episodes": len(rows),
        "valid": n,
        "reward": sum(float(r.get("reward", 0.0)) for r in valid) / n if n else 0.0,
        "success_rate": sum(bool(r.get("success")) for r in valid) / n if n else 0.0,
        "outcomes": outcomes,
    }


class AgentServer:
    """:func:`create_app` served by uvicorn on a thread of this process, on ``127.0.0.1``.

    ``with AgentServer("multistep", model={"base_url": url}) as server: server.url`` -- for
    notebooks, tests and scripts; ``agentgym agent-server`` is the same app as a process.
    Keyword arguments go to :func:`create_app`; ``port=0`` picks a free port.
    """

    def __init__(self, agent: str = "multistep", *, port: int = 0, **options: Any) -> None:
        self.app = create_app(agent, **options)
        self.port = port
        self._server: Any = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "AgentServer":
        import socket

        import uvicorn

        sock = socket.socket()
        sock.bind(("127.0.0.1", self.port))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self.app, log_level="warning")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 60
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the agent server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
            if self._thread is not None:
                self._thread.join(30)
            self._server = None

    def __enter__(self) -> "AgentServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_agent(
    agent: str = "multistep",
    *,
    host: str = "127.0.0.1",
    port: int = 8800,
    log_level: str = "warning",
    **options: Any,
) -> None:
    """Serve :func:`create_app` (``options`` are its keyword arguments) with uvicorn until
    interrupted."""
    from agentgym_envs.serving import check_bindable, serve_app

    check_bindable(host, port)  # before the agent is built
    serve_app(create_app(agent, **options), host, port, extra="agent-server", log_level=log_level)


__all__ = ["AgentServer", "aggregate", "create_app", "serve_agent"]
