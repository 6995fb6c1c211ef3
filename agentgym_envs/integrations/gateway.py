"""The recording gateway: an OpenAI-compatible endpoint between any agent harness and its
model, that turns each harness session into a scored trajectory (``agentgym gateway``).

The harness keeps its own prompts, tools and turn structure; it only points its model base URL
at the gateway (``http://127.0.0.1:8790/s/<session>/v1``) and acts on the env through the
gateway too: MCP at ``/mcp?session=<session>`` (tools ``reset``, ``act`` and the family's), or
plain HTTP at ``/s/<session>/env/reset`` and ``/s/<session>/env/step`` (``{"action": ...}`` ->
``{"observation", "reward", "done", "success", "score"}``). Every chat completion, streamed
or not, is forwarded to the upstream endpoint and appended (request, response, usage, latency)
to ``<out>/sessions/<session>.jsonl`` as it happens. ``POST /s/<session>/finish`` (and the
gateway's shutdown, for every session still open) writes the session as one AgentTraj record
(``agenttraj.jsonl``: the harness's last conversation, scored by the env episode), one chat
record with the tool calls (``chat.jsonl``) and one SFT record with its loss mask
(``sft.jsonl``). A session is finished once; an unknown session is a 404 that says so.

::

    agentgym gateway --env Maze-v0 --upstream http://127.0.0.1:8000/v1 --out runs/gw
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

from agentgym_envs.errors import require
from agentgym_envs.integrations.mcp import EpisodeStore, SessionError

logger = logging.getLogger(__name__)

DEFAULT_SESSION = "default"
_SAFE = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")


def _check_session(session: str) -> str | None:
    if not session or len(session) > 128 or set(session) - _SAFE or session.startswith("."):
        return f"bad session name {session[:40]!r}: use letters, digits, '-', '_' or '.'"
    return None


class SessionLog:
    """One harness session: its chat calls (in memory and appended to a JSONL file)."""

    def __init__(self, name: str, path: Path) -> None:
        self.name = name
        self.path = path
        self.calls: list[dict[str, Any]] = []
        self.finished = False
        self.lock = threading.Lock()

    def append(self, entry: dict[str, Any]) -> None:
        line = json.dumps(entry, ensure_ascii=False) + "\n"
        with self.lock:
            self.calls.append(entry)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as f:
                f.write(line)

    def conversation(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The session's last full conversation (the last request's messages and its answer)
        and the tools the harness offered."""
        for entry in reversed(self.calls):
            if entry.get("response") is not None:
                request = entry["request"]
                messages = [*request.get("messages", []), entry["response"]]
                return messages, list(request.get("tools") or [])
        return [], []


def chat_to_agenttraj(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI chat messages as AgentTraj turns (system messages left out, tool calls written
    as text, tool answers as env turns)."""
    from agentgym_envs.wrappers.conversation import Conversation, Message

    kept = []
    for m in messages:
        try:
            kept.append(Message.from_chat(m))
        except (KeyError, TypeError, ValueError):
            logger.warning("skipping a message the conversation model cannot read: %.80s", m)
    return Conversation(kept).agenttraj()


class Gateway:
    """The gateway's state: upstream, env episodes (by session), session logs, outputs.

    Args:
        env_id: the env the harness sessions play.
        upstream: the real model endpoint's ``/v1`` root.
        out: folder for ``sessions/``, ``agenttraj.jsonl``, ``chat.jsonl``, ``sft.jsonl``.
        api_key: sent upstream as ``Authorization: Bearer`` (default: the harness's own header).
        model: replaces the request's ``model`` when given.
    """

    def __init__(
        self,
        env_id: str,
        upstream: str,
        out: str | os.PathLike[str],
        *,
        api_key: str | None = None,
        model: str | None = None,
        timeout: float = 300.0,
    ) -> None:
        self.upstream = upstream.rstrip("/")
        self.out = Path(out)
        self.api_key = api_key
        self.model = model
        self.timeout = timeout
        self.store = EpisodeStore(env_id)
        self.sessions: dict[str, SessionLog] = {}
        self._lock = threading.Lock()
        self._write = threading.Lock()

    def session(self, name: str, create: bool = True) -> SessionLog | None:
        with self._lock:
            log = self.sessions.get(name)
            if log is None and create:
                log = self.sessions[name] = SessionLog(
                    name, self.out / "sessions" / f"{name}.jsonl"
                )
            return log

    def finish(self, name: str) -> dict[str, Any]:
        """Write session ``name`` as AgentTraj, chat and SFT records; return the AgentTraj one."""
        from agentgym_envs.datasets.agenttraj import Trajectory, Turn
        from agentgym_envs.datasets.export import to_sft

        log = self.session(name, create=False)
        if log is None:
            raise SessionError(f"unknown session {name!r}: no chat call or episode carries it")
        with log.lock:
            if log.finished:
                raise SessionError(f"session {name!r} is already finished")
            log.finished = True
        messages, tools = log.conversation()
        episode = self.store.episodes.get(name)
        result = episode.result("") if episode is not None else {}
        turns = chat_to_agenttraj(messages)
        usage = {"prompt_tokens": 0, "completion_tokens": 0}
        for call in log.calls:
            for key in usage:
                usage[key] += int((call.get("usage") or {}).get(key, 0) or 0)
        item_id = episode.item_id if episode is not None else f"gateway_{name}"
        score = float(result.get("score", 0.0)) if episode is not None else None
        success = bool(result.get("success", False)) if episode is not None else None
        record = {
            "item_id": item_id,
            "conversations": turns,
            "reward": score,
            "success": success,
            "session": name,
            "env_id": self.store.env_id,
            "env_steps": result.get("steps", 0),
            "outcome": episode.info.get("outcome") if episode is not None else None,
            "model_calls": len(log.calls),
            "tokens": usage,
            "latency": [c.get("latency") for c in log.calls],
        }
        trajectory = Trajectory(
            item_id,
            [Turn(t["from"], t["value"], t.get("loss")) for t in turns],
            score,
            success,
        )
        chat = {
            "session": name,
            "item_id": item_id,
            "messages": messages,
            "tools": tools,
            "reward": score,
            "success": success,
        }
        sft = {**to_sft(trajectory), "session": name, "success": success}
        with self._write:
            self.out.mkdir(parents=True, exist_ok=True)
            for file, rec in (
                ("agenttraj.jsonl", record),
                ("chat.jsonl", chat),
                ("sft.jsonl", sft),
            ):
                with (self.out / file).open("a", encoding="utf-8") as f:
                    f.write(json.dumps(rec, ensure_ascii=False) + "\n")
        if episode is not None:
            self.store.finish(episode)
        return record

    def finish_all(self) -> None:
        for name, log in list(self.sessions.items()):
            if not log.finished and log.calls:
                try:
                    self.finish(name)
                except SessionError:
                    pass


def _error(status: int, message: str, kind: str = "invalid_request_error") -> Any:
    from starlette.responses import JSONResponse

    return JSONResponse({"error": {"message": message, "type": kind}}, status_code=status)


def _merge_delta(message: dict[str, Any], delta: dict[str, Any]) -> None:
    """Fold one streamed ``delta`` into the message being assembled."""
    if delta.get("role"):
        message["role"] = delta["role"]
    if delta.get("content"):
        message["content"] = (message.get("content") or "") + delta["content"]
    for call in delta.get("tool_calls") or []:
        calls = message.setdefault("tool_calls", [])
        index = call.get("index", len(calls))
        while len(calls) <= index:
            calls.append(
                {"id": None, "type": "function", "function": {"name": "", "arguments": ""}}
            )
        slot = calls[index]
        if call.get("id"):
            slot["id"] = call["id"]
        fn = call.get("function") or {}
        if fn.get("name"):
            slot["function"]["name"] += fn["name"]
        if fn.get("arguments"):
            slot["function"]["arguments"] += fn["arguments"]


def create_app(gateway: Gateway) -> Any:
    """The gateway as a Starlette app (chat completions, models, MCP, env HTTP, finish)."""
    require("starlette", "gateway")
    import httpx
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response, StreamingResponse
    from starlette.routing import Mount, Route

    from agentgym_envs.integrations.mcp import session_manager

    manager = session_manager(gateway.store.env_id, gateway.store)
    client = httpx.AsyncClient(timeout=httpx.Timeout(gateway.timeout, connect=10.0))

    def headers(request: Request) -> dict[str, str]:
        out = {"Content-Type": "application/json"}
        auth = (
            f"Bearer {gateway.api_key}" if gateway.api_key else request.headers.get("authorization")
        )
        if auth:
            out["Authorization"] = auth
        return out

    def session_of(request: Request, body: dict[str, Any] | None = None) -> str:
        return (
            request.path_params.get("session")
            or request.headers.get("x-agentgym-session")
            or (body or {}).get("user")
            or DEFAULT_SESSION
        )

    async def models(request: Request) -> Response:
        try:
            r = await client.get(f"{gateway.upstream}/models", headers=headers(request))
        except httpx.HTTPError as exc:
            return _error(
                502, f"the upstream {gateway.upstream} is unreachable: {exc}", "upstream_error"
            )
        return Response(r.content, r.status_code, media_type="application/json")

    async def chat(request: Request) -> Response:
        try:
            body = json.loads(await request.body())
        except ValueError as exc:
            return _error(400, f"the request body is not JSON ({exc})")
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return _error(400, "a chat completion needs a JSON object with a 'messages' list")
        name = session_of(request, body)
        problem = _check_session(name)
        if problem:
            return _error(400, problem)
        log = gateway.session(name)
        assert log is not None
        if log.finished:
            return _error(409, f"session {name!r} is finished: use a new session name")
        if gateway.model:
            body["model"] = gateway.model
        url = f"{gateway.upstream}/chat/completions"
        started = time.perf_counter()
        entry: dict[str, Any] = {
            "time": time.time(),
            "request": body,
            "stream": bool(body.get("stream")),
        }
        if not body.get("stream"):
            try:
                r = await client.post(url, json=body, headers=headers(request))
            except httpx.HTTPError as exc:
                entry.update(response=None, error=f"upstream unreachable: {exc}")
                log.append(entry)
                return _error(
                    502, f"the upstream {gateway.upstream} is unreachable: {exc}", "upstream_error"
                )
            entry["latency"] = time.perf_counter() - started
            try:
                data = r.json()
            except ValueError:
                data = None
            if r.status_code >= 400 or not isinstance(data, dict):
                entry.update(response=None, error=f"HTTP {r.status_code}: {r.text[:300]}")
                log.append(entry)
                return Response(r.content, r.status_code, media_type=r.headers.get("content-type"))
            choice = (data.get("choices") or [{}])[0]
            entry.update(
                response=choice.get("message"),
                usage=data.get("usage"),
                finish_reason=choice.get("finish_reason"),
            )
            log.append(entry)
            return JSONResponse(data)

        async def stream():
            message: dict[str, Any] = {"role": "assistant", "content": None}
            usage: dict[str, Any] | None = None
            finish = None
            try:
                async with client.stream("POST", url, json=body, headers=headers(request)) as r:
                    if r.status_code >= 400:
                        text = (await r.aread()).decode(errors="replace")
                        entry.update(response=None, error=f"HTTP {r.status_code}: {text[:300]}")
                        yield f"data: {json.dumps({'error': {'message': text[:300]}})}\n\n".encode()
                        return
                    async for line in r.aiter_lines():
                        yield (line + "\n").encode()
                        if not line.startswith("data:"):
                            continue
                        payload = line[5:].strip()
                        if payload == "[DONE]":
                            continue
                        try:
                            chunk = json.loads(payload)
                        except ValueError:
                            continue
                        usage = chunk.get("usage") or usage
                        for choice in chunk.get("choices") or []:
                            _merge_delta(message, choice.get("delta") or {})
                            finish = choice.get("finish_reason") or finish
                entry.update(response=message, usage=usage, finish_reason=finish)
            except httpx.HTTPError as exc:
                entry.update(response=None, error=f"upstream failed mid-stream: {exc}")
            finally:
                # a client may close the stream as soon as it has read [DONE]: what was
                # assembled until then is still the response
                if "response" not in entry:
                    entry.update(response=message, usage=usage, finish_reason=finish)
                entry["latency"] = time.perf_counter() - started
                log.append(entry)

        return StreamingResponse(stream(), media_type="text/event-stream")

    async def env_reset(request: Request) -> Response:
        name = request.path_params["session"]
        problem = _check_session(name)
        if problem:
            return _error(400, problem)
        try:
            body = json.loads(await request.body() or b"{}")
            options = {k: body[k] for k in ("task_id", "split", "seed") if k in body}
            episode, obs, info = gateway.store.reset(name, **options)
        except (ValueError, TypeError) as exc:
            return _error(400, f"bad reset request: {exc}")
        gateway.session(name)
        text = f"{episode.env.instructions()}\n\n{obs}"
        return JSONResponse({**episode.result(text), "task_id": info["task_id"]})

    async def env_step(request: Request) -> Response:
        name = request.path_params["session"]
        try:
            body = json.loads(await request.body() or b"{}")
        except ValueError as exc:
            return _error(400, f"the request body is not JSON ({exc})")
        action = body.get("action") if isinstance(body, dict) else None
        if not isinstance(action, str):
            return _error(400, 'a step needs {"action": "<text>"}')
        try:
            episode = gateway.store.get(name)
            obs = episode.step(action, f"Action: {action}")
        except SessionError as exc:
            return _error(404 if "no episode" in str(exc) else 409, str(exc))
        data = episode.result(obs)
        data["done"] = episode.done
        return JSONResponse(data)

    async def finish(request: Request) -> Response:
        try:
            return JSONResponse(gateway.finish(request.path_params["session"]))
        except SessionError as exc:
            return _error(404 if "unknown" in str(exc) else 409, str(exc))

    @contextlib.asynccontextmanager
    async def lifespan(app: Any):
        async with manager.run():
            try:
                yield
            finally:
                gateway.finish_all()
                gateway.store.close_all()
                await client.aclose()

    routes = [
        Route("/v1/models", models, methods=["GET"]),
        Route("/v1/chat/completions", chat, methods=["POST"]),
        Route("/s/{session}/v1/models", models, methods=["GET"]),
        Route("/s/{session}/v1/chat/completions", chat, methods=["POST"]),
        Route("/s/{session}/env/reset", env_reset, methods=["POST"]),
        Route("/s/{session}/env/step", env_step, methods=["POST"]),
        Route("/s/{session}/finish", finish, methods=["POST"]),
        Mount("/mcp", app=manager.handle_request),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.gateway = gateway
    return app


def serve(
    env_id: str,
    upstream: str,
    out: str,
    *,
    host: str = "127.0.0.1",
    port: int = 8790,
    api_key: str | None = None,
    model: str | None = None,
) -> None:
    """Run the gateway with uvicorn until interrupted (open sessions are written on exit)."""
    import uvicorn

    gateway = Gateway(env_id, upstream, out, api_key=api_key, model=model)
    uvicorn.run(create_app(gateway), host=host, port=port, log_level="warning")


__all__ = ["DEFAULT_SESSION", "Gateway", "SessionLog", "chat_to_agenttraj", "create_app", "serve"]
