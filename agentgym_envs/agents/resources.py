"""A resources-server-style API per episode, as NeMo Gym's agents expect one.

``POST /seed_session`` starts an episode (the row's env and task) and sets the session cookie;
``POST /<tool>`` with the tool's JSON arguments plays one call; ``POST /step`` plays a text
action (the ReAct families' way); ``POST /verify`` returns the request with ``reward`` and
closes the episode. The session is the ``agentgym_session`` cookie, an ``X-Session-Id``
header or a ``session`` query parameter. An action the env cannot run is feedback in the
body (status 200), as the env would answer it; an unknown session or tool is a 404.

A session id is not ownership: ``/seed_session`` also returns a secret ``session_token`` (the
``X-Session-Token`` reply header and the ``agentgym_session_token`` cookie), and every later
call on the session must carry it (the header or the cookie) or is refused with 403, as
``agentgym serve --session-auth`` does (:class:`~agentgym_envs.integrations.ownership.Claims`).
Bodies go through :mod:`agentgym_envs.bodies` (size cap, depth limit).
"""

# (no ``from __future__ import annotations``: FastAPI reads the route annotations)
import logging
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse

logger = logging.getLogger(__name__)
COOKIE = "agentgym_session"
#: The cookie carrying the session's token (the ``X-Session-Token`` header also does).
TOKEN_COOKIE = "agentgym_session_token"


class _Episode:
    """One seeded episode: an :class:`~agentgym_envs.integrations.session.EnvSession` on a
    thread of its own (some envs must stay on the thread that made them)."""

    def __init__(self, env_id: str) -> None:
        from agentgym_envs.integrations.session import EnvSession

        self.session = EnvSession(env_id)
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="agent-session")
        self.used = time.monotonic()

    def run(self, fn: Any, *args: Any) -> Any:
        self.used = time.monotonic()
        return self.worker.submit(fn, *args).result()

    def close(self) -> None:
        try:
            self.worker.submit(self.session.close).result()
        except Exception:
            logger.debug("closing a session failed", exc_info=True)
        self.worker.shutdown(wait=False)


class SessionStore:
    """At most ``max_sessions`` episodes; the least recently used one past ``idle_s`` is
    evicted to make room, otherwise a new seed is refused (503). With ``auth`` a session's
    later calls must carry the token :meth:`add` returned (:class:`Forbidden` otherwise)."""

    def __init__(self, max_sessions: int = 64, idle_s: float = 600.0, *, auth: bool = True) -> None:
        from agentgym_envs.integrations.ownership import Claims

        self.max_sessions, self.idle_s = max_sessions, idle_s
        self._sessions: dict[str, _Episode] = {}
        self._lock = threading.Lock()
        self.claims = Claims(auth=auth)

    def add(self, episode: _Episode, client: str = "") -> tuple[str, str]:
        """Store ``episode``; its session id and token."""
        with self._lock:
            if len(self._sessions) >= self.max_sessions:
                idle = min(self._sessions.items(), key=lambda kv: kv[1].used)
                if time.monotonic() - idle[1].used < self.idle_s:
                    raise _Full(f"{self.max_sessions} sessions are open: verify or close some")
                self._sessions.pop(idle[0]).close()
                self.claims.release(idle[0])
            key = uuid.uuid4().hex
            self._sessions[key] = episode
            return key, self.claims.claim(key, None, client)

    def _check(self, key: str, token: str | None) -> None:
        from agentgym_envs.integrations.ownership import ForbiddenError, SessionError

        try:
            self.claims.claim(key, token, create=False)
        except ForbiddenError:
            raise Forbidden(
                "this session belongs to the client that seeded it: send the session_token "
                f"/seed_session returned as the X-Session-Token header (or the {TOKEN_COOKIE} "
                "cookie)"
            ) from None
        except SessionError:
            pass  # unknown: the caller answers 404

    def get(self, key: str | None, token: str | None = None) -> _Episode | None:
        with self._lock:
            episode = self._sessions.get(key or "")
        if episode is not None:
            self._check(key or "", token)
        return episode

    def pop(self, key: str | None, token: str | None = None) -> _Episode | None:
        if self.get(key, token) is None:
            return None
        with self._lock:
            episode = self._sessions.pop(key or "", None)
        self.claims.release(key or "")
        return episode

    def __len__(self) -> int:
        return len(self._sessions)

    def close(self) -> None:
        with self._lock:
            sessions, self._sessions = list(self._sessions.values()), {}
        for episode in sessions:
            episode.close()


class _Full(Exception):
    pass


class Forbidden(Exception):
    """A call on a session without its token."""


def _seed(episode: _Episode, task_id: int | None, split: str, seed: int | None) -> dict[str, Any]:
    session = episode.session
    observation = session.reset(task_id, split, seed)
    if session.error:
        raise RuntimeError(session.error)
    base = session.env.unwrapped  # type: ignore[union-attr]
    return {
        "observation": observation,
        "instructions": session.instructions(),
        "tools": base.tool_schemas(),
        "available_actions": session.info.get("available_actions"),
        "item_id": base.item_id,
        "task_id": session.info.get("task_id"),
    }


def _call(episode: _Episode, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    session = episode.session
    base = session.env.unwrapped  # type: ignore[union-attr]
    names = [t.get("function", t).get("name") for t in base.tool_schemas()]
    if tool not in names:
        return {
            "status": 404,
            "detail": f"unknown tool {tool!r}: this env's tools are {', '.join(names)}",
        }
    try:
        action = base.action_from_tool_call(tool, arguments)
    except (ValueError, KeyError, TypeError) as exc:
        return {"output": f"Error: {exc}", "error": str(exc), "done": session.done}
    return _act(episode, action)


def _act(episode: _Episode, action: str) -> dict[str, Any]:
    session = episode.session
    observation, reward, done = session.step(action)
    return {
        "output": observation,
        "reward": reward,
        "done": done,
        "outcome": session.outcome,
        "error": session.info.get("error") or session.error,
    }


def _verify(episode: _Episode) -> dict[str, Any]:
    result = episode.session.finish()
    return {
        "reward": result.score,
        "success": result.success,
        "outcome": result.outcome,
        "reward_valid": result.reward_valid,
        "turns": result.turns,
        "error": result.error,
    }


def _key_of(request: Request) -> tuple[str | None, str | None]:
    """The session id and token a request carries."""
    key = (
        request.cookies.get(COOKIE)
        or request.headers.get("x-session-id")
        or request.query_params.get("session")
    )
    return key, request.headers.get("x-session-token") or request.cookies.get(TOKEN_COOKIE)


async def _body_of(request: Request) -> Any:
    from agentgym_envs.bodies import request_json

    limit = getattr(request.app.state, "max_body_bytes", None) or (8 << 20)
    return await request_json(request, limit=limit, empty={})


def _missing() -> JSONResponse:
    detail = (
        f"no such session: POST /seed_session first and send its cookie ({COOKIE}) or X-Session-Id"
    )
    return JSONResponse({"detail": detail}, status_code=404)


class _Routes:
    """The handlers, over one :class:`SessionStore`."""

    def __init__(self, store: SessionStore) -> None:
        self.store = store

    async def seed_session(self, request: Request) -> Any:
        from agentgym_envs.agents.episodes import BadRequest, where
        from agentgym_envs.errors import AgentGymError

        row = await _body_of(request)
        if not isinstance(row, dict):
            raise BadRequest("the body must be a JSON object naming env_id and task_id")
        try:
            env_id, task_id, split = where(row)
        except AgentGymError as exc:
            raise BadRequest(str(exc)) from None
        episode = _Episode(env_id)
        seed = row.get("seed", 0)
        try:
            seeded = await run_in_threadpool(episode.run, _seed, episode, task_id, split, seed)
        except Exception as exc:
            episode.close()
            raise BadRequest(f"cannot start {env_id} task {task_id}: {exc}") from None
        try:
            key, token = self.store.add(episode, request.client.host if request.client else "")
        except _Full as exc:
            episode.close()
            return JSONResponse({"detail": str(exc)}, status_code=503)
        body = {"session_id": key, "session_token": token, "env_id": env_id, **seeded}
        response = JSONResponse(body, headers={"X-Session-Token": token})
        response.set_cookie(COOKIE, key, httponly=True)
        response.set_cookie(TOKEN_COOKIE, token, httponly=True)
        return response

    async def verify(self, request: Request) -> Any:
        row = await _body_of(request)
        episode = self.store.pop(*_key_of(request))
        if episode is None:
            return _missing()
        try:
            result = await run_in_threadpool(episode.run, _verify, episode)
        finally:
            await run_in_threadpool(episode.close)
        return {**(row if isinstance(row, dict) else {}), **result}

    async def close_session(self, request: Request) -> Any:
        episode = self.store.pop(*_key_of(request))
        if episode is not None:
            await run_in_threadpool(episode.close)
        return {"closed": episode is not None}

    async def step(self, request: Request) -> Any:
        from agentgym_envs.agents.episodes import BadRequest

        body = await _body_of(request)
        episode = self.store.get(*_key_of(request))
        if episode is None:
            return _missing()
        if not isinstance(body, dict) or not isinstance(body.get("action"), str):
            raise BadRequest('POST /step takes {"action": "<the action text>"}')
        return await run_in_threadpool(episode.run, _act, episode, body["action"])

    async def tool_call(self, tool: str, request: Request) -> Any:
        from agentgym_envs.agents.episodes import BadRequest

        arguments = await _body_of(request)
        episode = self.store.get(*_key_of(request))
        if episode is None:
            return _missing()
        if not isinstance(arguments, dict):
            raise BadRequest(f"POST /{tool} takes the tool's arguments as a JSON object")
        out = await run_in_threadpool(episode.run, _call, episode, tool, arguments)
        if out.get("status"):
            return JSONResponse({"detail": out["detail"]}, status_code=out["status"])
        return out


def add_routes(app: Any, store: SessionStore) -> None:
    """``/seed_session``, ``/verify``, ``/close_session``, ``/step`` and ``/{tool}`` on
    ``app`` (a FastAPI app; call last: ``/{tool}`` catches every other POST)."""
    routes = _Routes(store)

    @app.exception_handler(Forbidden)
    async def forbidden(request: Request, exc: Forbidden) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=403)

    app.post("/seed_session")(routes.seed_session)
    app.post("/verify")(routes.verify)
    app.post("/close_session")(routes.close_session)
    app.post("/step")(routes.step)
    app.post("/{tool}")(routes.tool_call)


__all__ = ["COOKIE", "TOKEN_COOKIE", "Forbidden", "SessionStore", "add_routes"]
