"""The recording gateway's HTTP handlers (Starlette): chat completions and models, forwarded
upstream and recorded; the env over plain HTTP; finishing a session.

Each handler finds the :class:`~agentgym_envs.integrations.gateway.Gateway` as
``request.app.state.gateway`` and the shared upstream client as ``request.app.state.client``
(both set by :func:`~agentgym_envs.integrations.gateway.create_app`).
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from agentgym_envs.integrations.gateway import DEFAULT_SESSION, SessionLog
from agentgym_envs.integrations.mcp import SessionError

_SAFE = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")


def _check_session(session: str) -> str | None:
    if not session or len(session) > 128 or set(session) - _SAFE or session.startswith("."):
        return f"bad session name {session[:40]!r}: use letters, digits, '-', '_' or '.'"
    return None


def _error(status: int, message: str, kind: str = "invalid_request_error") -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": kind}}, status_code=status)


def _unreachable(request: Request, exc: Exception) -> JSONResponse:
    upstream = request.app.state.gateway.upstream
    return _error(502, f"the upstream {upstream} is unreachable: {exc}", "upstream_error")


def _headers(request: Request) -> dict[str, str]:
    """The headers sent upstream: JSON, and the gateway's key or else the harness's own."""
    api_key = request.app.state.gateway.api_key
    out = {"Content-Type": "application/json"}
    auth = f"Bearer {api_key}" if api_key else request.headers.get("authorization")
    if auth:
        out["Authorization"] = auth
    return out


def _session_of(request: Request, body: dict[str, Any] | None = None) -> str:
    return (
        request.path_params.get("session")
        or request.headers.get("x-agentgym-session")
        or (body or {}).get("user")
        or DEFAULT_SESSION
    )


async def models(request: Request) -> Response:
    gateway, client = request.app.state.gateway, request.app.state.client
    try:
        r = await client.get(f"{gateway.upstream}/models", headers=_headers(request))
    except httpx.HTTPError as exc:
        return _unreachable(request, exc)
    return Response(r.content, r.status_code, media_type="application/json")


async def chat(request: Request) -> Response:
    """A chat completion: forwarded upstream (streamed if asked) and appended to the session."""
    try:
        body = json.loads(await request.body())
    except ValueError as exc:
        return _error(400, f"the request body is not JSON ({exc})")
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return _error(400, "a chat completion needs a JSON object with a 'messages' list")
    name = _session_of(request, body)
    problem = _check_session(name)
    if problem:
        return _error(400, problem)
    gateway = request.app.state.gateway
    log = gateway.session(name)
    assert log is not None
    if log.finished:
        return _error(409, f"session {name!r} is finished: use a new session name")
    if gateway.model:
        body["model"] = gateway.model
    started = time.perf_counter()
    entry: dict[str, Any] = {
        "time": time.time(),
        "request": body,
        "stream": bool(body.get("stream")),
    }
    if (
        gateway.token_ids
    ):  # ask the upstream for token ids and logprobs (recorded as the harness asked)
        # vLLM: return_token_ids; llama.cpp returns logprobs only with top_logprobs set
        body = {
            **body,
            "return_token_ids": True,
            "logprobs": body.get("logprobs", True),
            "top_logprobs": body.get("top_logprobs") or 1,
        }
    if not body.get("stream"):
        return await _forward(request, body, log, entry, started)
    return StreamingResponse(
        _relay(request, body, log, entry, started), media_type="text/event-stream"
    )


async def _forward(
    request: Request, body: dict[str, Any], log: SessionLog, entry: dict[str, Any], started: float
) -> Response:
    """A plain chat completion: the upstream's answer, passed back as it came."""
    gateway, client = request.app.state.gateway, request.app.state.client
    try:
        r = await client.post(
            f"{gateway.upstream}/chat/completions", json=body, headers=_headers(request)
        )
    except httpx.HTTPError as exc:
        entry.update(response=None, error=f"upstream unreachable: {exc}")
        log.append(entry)
        return _unreachable(request, exc)
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
    _add_tokens(entry, data, choice)
    log.append(entry)
    return JSONResponse(data)


def _add_tokens(entry: dict[str, Any], data: dict[str, Any], choice: dict[str, Any]) -> None:
    """Record (or extend, chunk by chunk) the token ids and logprobs an upstream returned:
    vLLM's ``prompt_token_ids`` and per-choice ``token_ids`` (``return_token_ids``), and the
    OpenAI ``logprobs.content`` entries, as ``logprobs`` / ``logprob_tokens`` lists."""
    if data.get("prompt_token_ids") is not None:
        entry["prompt_token_ids"] = data["prompt_token_ids"]
    if choice.get("token_ids") is not None:
        entry.setdefault("token_ids", []).extend(choice["token_ids"])
    for item in (choice.get("logprobs") or {}).get("content") or []:
        entry.setdefault("logprobs", []).append(item.get("logprob"))
        entry.setdefault("logprob_tokens", []).append(item.get("token"))


async def _relay(
    request: Request, body: dict[str, Any], log: SessionLog, entry: dict[str, Any], started: float
) -> AsyncIterator[bytes]:
    """A streamed chat completion: each upstream line passed on as it comes, the deltas folded
    into the message that is recorded."""
    gateway, client = request.app.state.gateway, request.app.state.client
    url = f"{gateway.upstream}/chat/completions"
    message: dict[str, Any] = {"role": "assistant", "content": None}
    usage: dict[str, Any] | None = None
    finish = None
    try:
        async with client.stream("POST", url, json=body, headers=_headers(request)) as r:
            if r.status_code >= 400:
                text = (await r.aread()).decode(errors="replace")
                entry.update(response=None, error=f"HTTP {r.status_code}: {text[:300]}")
                yield f"data: {json.dumps({'error': {'message': text[:300]}})}\n\n".encode()
                return
            async for line in r.aiter_lines():
                yield (line + "\n").encode()
                chunk = _sse_chunk(line)
                if chunk is None:
                    continue
                usage = chunk.get("usage") or usage
                if chunk.get("error"):  # an upstream that fails mid-stream says so in a chunk
                    entry["error"] = f"upstream error mid-stream: {str(chunk['error'])[:300]}"
                for choice in chunk.get("choices") or []:
                    _merge_delta(message, choice.get("delta") or {})
                    finish = choice.get("finish_reason") or finish
                    _add_tokens(entry, chunk, choice)
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


def _sse_chunk(line: str) -> dict[str, Any] | None:
    """The JSON chunk a server-sent ``data:`` line carries (None for anything else)."""
    if not line.startswith("data:"):
        return None
    payload = line[5:].strip()
    if payload == "[DONE]":
        return None
    try:
        return json.loads(payload)
    except ValueError:
        return None


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


async def env_reset(request: Request) -> Response:
    gateway = request.app.state.gateway
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
        episode = request.app.state.gateway.store.get(name)
        obs = episode.step(action, f"Action: {action}")
    except SessionError as exc:
        return _error(404 if "no episode" in str(exc) else 409, str(exc))
    data = episode.result(obs)
    data["done"] = episode.done
    return JSONResponse(data)


async def finish(request: Request) -> Response:
    try:
        return JSONResponse(request.app.state.gateway.finish(request.path_params["session"]))
    except SessionError as exc:
        return _error(404 if "unknown" in str(exc) else 409, str(exc))


ROUTES = [
    Route("/v1/models", models, methods=["GET"]),
    Route("/v1/chat/completions", chat, methods=["POST"]),
    Route("/s/{session}/v1/models", models, methods=["GET"]),
    Route("/s/{session}/v1/chat/completions", chat, methods=["POST"]),
    Route("/s/{session}/env/reset", env_reset, methods=["POST"]),
    Route("/s/{session}/env/step", env_step, methods=["POST"]),
    Route("/s/{session}/finish", finish, methods=["POST"]),
]
"""Every HTTP route but MCP's (``create_app`` mounts that at ``/mcp``)."""

__all__ = ["ROUTES"]
