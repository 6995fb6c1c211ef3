"""The recording gateway's HTTP handlers (Starlette): chat completions and models, forwarded
upstream and recorded; the env over plain HTTP; finishing a session.

Each handler finds the :class:`~agentgym_envs.integrations.gateway.Gateway` as
``request.app.state.gateway`` and the shared upstream client as ``request.app.state.client``
(both set by :func:`~agentgym_envs.integrations.gateway.create_app`).

A session belongs to its first request's ``X-Session-Token`` (or the token the reply to it
carries): see :mod:`~agentgym_envs.integrations.ownership`. Bodies are read up to
:data:`MAX_BODY_BYTES` (413 past it, without reading the rest) and must parse (400 otherwise,
100k-deep ones too). Whatever the upstream sends -- an error, a reply that is not a chat
completion, junk lines in a stream, plain JSON to a streamed request (turned into a valid event
stream) -- the exchange is recorded exactly once.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from agentgym_envs.bodies import BodyRefused, request_json
from agentgym_envs.integrations.gateway import DEFAULT_SESSION, SessionLog
from agentgym_envs.integrations.ownership import (
    TOKEN_HEADER,
    CallTimeout,
    ForbiddenError,
    LimitError,
    SessionError,
)
from agentgym_envs.integrations.sse import DONE, completion_chunks, event

#: Largest request body read (bytes); a bigger one is refused with 413 before it is all read.
MAX_BODY_BYTES = 8 << 20

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
    user = (body or {}).get("user")
    return (
        request.path_params.get("session")
        or request.headers.get("x-agentgym-session")
        or (user if isinstance(user, str) else None)
        or DEFAULT_SESSION
    )


class _Refused(Exception):
    """A request answered with an error before it is forwarded."""

    def __init__(self, response: Response) -> None:
        self.response = response


async def _body(request: Request) -> Any:
    """The JSON body (``{}`` when empty), read at most :data:`MAX_BODY_BYTES`.

    Raises:
        _Refused: 413 for a bigger body (the rest is not read: the connection is closed), 400
            for one that is not JSON or is nested too deep to parse.
    """
    try:
        return await request_json(request, limit=MAX_BODY_BYTES, empty={})
    except BodyRefused as exc:
        response = _error(exc.status, str(exc))
        if exc.status == 413:  # the rest is not read: the connection ends here
            response.headers["connection"] = "close"
        raise _Refused(response) from None


def _own(request: Request, name: str, *, create: bool = True) -> str:
    """Check (or, with ``create``, make) session ``name``'s claim for this request; its token.

    Raises:
        _Refused: 400 for a bad name, 403 for a missing or wrong token, 404 for an unknown
            session (without ``create``), 409 for one that is over, 429 when no new session
            fits.
    """
    problem = _check_session(name)
    if problem:
        raise _Refused(_error(400, problem))
    client = request.client.host if request.client else ""
    try:
        return request.app.state.gateway.store.claims.claim(
            name, request.headers.get(TOKEN_HEADER), client, create=create
        )
    except ForbiddenError as exc:
        raise _Refused(_error(403, str(exc), "permission_error")) from None
    except SessionError as exc:
        raise _Refused(_session_error(exc)) from None


def _owned(response: Response, token: str) -> Response:
    response.headers[TOKEN_HEADER] = token
    return response


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
        body = await _body(request)
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return _error(400, "a chat completion needs a JSON object with a 'messages' list")
        name = _session_of(request, body)
        token = _own(request, name)
    except _Refused as refused:
        return refused.response
    opened = _open_call(request, name, body)
    if isinstance(opened, Response):
        return opened
    log, entry, body, started = opened
    if not body.get("stream"):
        return _owned(await _forward(request, body, log, entry, started), token)
    return _owned(
        StreamingResponse(
            _relay(request, body, log, entry, started), media_type="text/event-stream"
        ),
        token,
    )


def _open_call(
    request: Request, name: str, body: dict[str, Any]
) -> Response | tuple[SessionLog, dict[str, Any], dict[str, Any], float]:
    """Start recording one model call of session ``name`` whose chat-completion request is
    ``body``: its log, its record (the request as the harness asked), the body to send
    upstream (with the token-id options when the gateway asks for them) and its start time;
    a 409 for a finished session."""
    gateway = request.app.state.gateway
    log = gateway.session(name)
    assert log is not None
    if log.finished:
        return _error(409, f"session {name!r} is finished: use a new session name")
    if gateway.model:
        body["model"] = gateway.model
    entry: dict[str, Any] = {
        "time": time.time(),
        "request": body,
        "stream": bool(body.get("stream")),
    }
    if gateway.token_ids:  # ask the upstream for token ids and logprobs (recorded as asked)
        # vLLM: return_token_ids; llama.cpp returns logprobs only with top_logprobs set
        body = {
            **body,
            "return_token_ids": True,
            "logprobs": body.get("logprobs", True),
            "top_logprobs": body.get("top_logprobs") or 1,
        }
    return log, entry, body, time.perf_counter()


async def _open_translated(
    request: Request,
    problem: Callable[[Any], str | None],
    translate: Callable[[dict[str, Any]], dict[str, Any]],
    client_api: str,
) -> Response | tuple[dict[str, Any], str, SessionLog, dict[str, Any], dict[str, Any], float]:
    """Start recording one model call made in another API (Anthropic's Messages, OpenAI's
    Responses): the body read and checked (``problem``: what is wrong with it, one line),
    the session claimed, the chat completion it becomes (``translate``) recorded as on the
    chat route, with ``client_api``. Returns the body, the session's token, and what
    :func:`_open_call` returns (the upstream request asking for a whole reply); or an error
    response (OpenAI-shaped)."""
    try:
        body = await _body(request)
        found = problem(body)
        if found:
            return _error(400, found)
        name = _session_of(request)
        token = _own(request, name)
    except _Refused as refused:
        return refused.response
    opened = _open_call(request, name, translate(body))
    if isinstance(opened, Response):
        return opened
    log, entry, upstream, started = opened
    entry.update(stream=bool(body.get("stream")), client_api=client_api)
    return body, token, log, entry, {**upstream, "stream": False}, started


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
    except (ValueError, RecursionError):  # not JSON, or nested too deep to read
        data = None
    if r.status_code >= 400 or not isinstance(data, dict):
        entry.update(response=None, error=f"HTTP {r.status_code}: {r.text[:300]}")
        log.append(entry)
        return Response(r.content, r.status_code, media_type=r.headers.get("content-type"))
    choice = _first_choice(data)
    if choice is None or not isinstance(choice.get("message"), dict):
        problem = f"the upstream's reply is not a chat completion: {r.text[:300]}"
        entry.update(response=None, error=problem)
        log.append(entry)
        return _error(502, problem, "upstream_error")
    entry.update(
        response=choice["message"],
        usage=data.get("usage") if isinstance(data.get("usage"), dict) else None,
        finish_reason=choice.get("finish_reason"),
    )
    _add_tokens(entry, data, choice)
    log.append(entry)
    return Response(r.content, r.status_code, media_type="application/json")


def _first_choice(data: dict[str, Any]) -> dict[str, Any] | None:
    choices = data.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return choices[0]
    return None


def _add_tokens(entry: dict[str, Any], data: dict[str, Any], choice: dict[str, Any]) -> None:
    """Record (or extend, chunk by chunk) the token ids and logprobs an upstream returned:
    vLLM's ``prompt_token_ids`` and per-choice ``token_ids`` (``return_token_ids``), and the
    OpenAI ``logprobs.content`` entries, as ``logprobs`` / ``logprob_tokens`` lists."""
    if isinstance(data.get("prompt_token_ids"), list):
        entry["prompt_token_ids"] = data["prompt_token_ids"]
    if isinstance(choice.get("token_ids"), list):
        entry.setdefault("token_ids", []).extend(choice["token_ids"])
    logprobs = choice.get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    for item in content if isinstance(content, list) else []:
        if isinstance(item, dict):
            entry.setdefault("logprobs", []).append(item.get("logprob"))
            entry.setdefault("logprob_tokens", []).append(item.get("token"))


async def _relay(
    request: Request, body: dict[str, Any], log: SessionLog, entry: dict[str, Any], started: float
) -> AsyncIterator[bytes]:
    """A streamed chat completion: each upstream event passed on as it comes, the deltas folded
    into the message that is recorded. ``data:`` lines that are not JSON objects are dropped
    (counted in the record's ``junk``); an upstream that answers with plain JSON has its answer
    sent as one event and ``[DONE]``."""
    gateway, client = request.app.state.gateway, request.app.state.client
    url = f"{gateway.upstream}/chat/completions"
    message: dict[str, Any] = {"role": "assistant", "content": None}
    state: dict[str, Any] = {"usage": None, "finish": None, "junk": 0}
    try:
        async with client.stream("POST", url, json=body, headers=_headers(request)) as r:
            if r.status_code >= 400:
                text = (await r.aread()).decode(errors="replace")
                entry.update(response=None, error=f"HTTP {r.status_code}: {text[:300]}")
                yield event({"error": {"message": text[:300]}})
                return
            if "text/event-stream" not in r.headers.get("content-type", ""):
                async for piece in _replay_plain(r, message, state, entry):
                    yield piece
                return
            async for line in r.aiter_lines():
                if not line.startswith("data:"):
                    yield (line + "\n").encode()
                    continue
                chunk = _sse_chunk(line)
                if chunk is None and line[5:].strip() != "[DONE]":
                    state["junk"] += 1
                    continue
                yield (line + "\n").encode()
                if chunk is not None:
                    _fold(message, chunk, state, entry)
        entry.update(response=message, usage=state["usage"], finish_reason=state["finish"])
    except httpx.HTTPError as exc:
        entry.update(response=None, error=f"upstream failed mid-stream: {exc}")
        yield event({"error": {"message": f"upstream failed mid-stream: {exc}"}})
    finally:
        # a client may close the stream as soon as it has read [DONE]: what was
        # assembled until then is still the response
        if "response" not in entry:
            entry.update(response=message, usage=state["usage"], finish_reason=state["finish"])
        if state["junk"]:
            entry["junk"] = state["junk"]
        entry["latency"] = time.perf_counter() - started
        log.append(entry)


async def _replay_plain(
    r: httpx.Response, message: dict[str, Any], state: dict[str, Any], entry: dict[str, Any]
) -> AsyncIterator[bytes]:
    """A plain-JSON answer to a streamed request as a chat-completion event stream."""
    raw = await r.aread()
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        data = None
    choice = _first_choice(data) if isinstance(data, dict) else None
    if choice is None or not isinstance(choice.get("message"), dict):
        problem = f"the upstream's reply is not a chat completion: {raw[:300]!r}"
        entry.update(response=None, error=problem)
        yield event({"error": {"message": problem, "type": "upstream_error"}})
        return
    for chunk in completion_chunks(data):
        _fold(message, chunk, state, entry)
        yield event(chunk)
    yield DONE
    entry.update(response=message, usage=state["usage"], finish_reason=state["finish"])


def _fold(
    message: dict[str, Any], chunk: dict[str, Any], state: dict[str, Any], entry: dict[str, Any]
) -> None:
    """Fold one chunk (its deltas, finish reason, usage, token ids and logprobs) into the
    message being assembled and its record; parts of the wrong type are ignored."""
    if isinstance(chunk.get("usage"), dict):
        state["usage"] = chunk["usage"]
    if chunk.get("error"):  # an upstream that fails mid-stream says so in a chunk
        entry["error"] = f"upstream error mid-stream: {str(chunk['error'])[:300]}"
    choices = chunk.get("choices")
    for choice in choices if isinstance(choices, list) else []:
        if not isinstance(choice, dict):
            continue
        delta = choice.get("delta")
        if isinstance(delta, dict):
            _merge_delta(message, delta)
        state["finish"] = choice.get("finish_reason") or state["finish"]
        _add_tokens(entry, chunk, choice)


def _sse_chunk(line: str) -> dict[str, Any] | None:
    """The JSON object a server-sent ``data:`` line carries (None for anything else)."""
    if not line.startswith("data:"):
        return None
    payload = line[5:].strip()
    if payload == "[DONE]":
        return None
    try:
        chunk = json.loads(payload)
    except (ValueError, RecursionError):
        return None
    return chunk if _well_formed(chunk) else None


def _well_formed(chunk: Any) -> bool:
    """Whether ``chunk`` is a chat-completion chunk a client can read: an object whose
    ``choices`` (if any) are objects with an object ``delta`` whose ``content`` is text."""
    if not isinstance(chunk, dict):
        return False
    choices = chunk.get("choices", [])
    if not isinstance(choices, list):
        return False
    for choice in choices:
        if not isinstance(choice, dict):
            return False
        delta = choice.get("delta", {})
        if not isinstance(delta, dict) or not isinstance(
            delta.get("content", ""), (str, type(None))
        ):
            return False
    return True


def _merge_delta(message: dict[str, Any], delta: dict[str, Any]) -> None:
    """Fold one streamed ``delta`` into the message being assembled."""
    if isinstance(delta.get("role"), str) and delta["role"]:
        message["role"] = delta["role"]
    if isinstance(delta.get("content"), str) and delta["content"]:
        message["content"] = (message.get("content") or "") + delta["content"]
    tool_calls = delta.get("tool_calls")
    for call in tool_calls if isinstance(tool_calls, list) else []:
        if not isinstance(call, dict):
            continue
        calls = message.setdefault("tool_calls", [])
        index = call.get("index", len(calls))
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < 64:
            continue
        while len(calls) <= index:
            calls.append(
                {"id": None, "type": "function", "function": {"name": "", "arguments": ""}}
            )
        slot = calls[index]
        if isinstance(call.get("id"), str) and call["id"]:
            slot["id"] = call["id"]
        fn = call.get("function") if isinstance(call.get("function"), dict) else {}
        for part in ("name", "arguments"):
            if isinstance(fn.get(part), str):
                slot["function"][part] += fn[part]


async def env_reset(request: Request) -> Response:
    gateway = request.app.state.gateway
    name = request.path_params["session"]
    try:
        body = await _body(request)
        token = _own(request, name)
    except _Refused as refused:
        return refused.response
    log = gateway.session(name)
    if log is not None and log.finished:
        return _error(409, f"session {name!r} is finished: use a new session name")
    if not isinstance(body, dict):
        return _error(400, "bad reset request: the body must be a JSON object")
    options = {k: body[k] for k in ("task_id", "split", "seed") if k in body}
    client = request.client.host if request.client else ""
    try:
        episode, obs, info = await gateway.store.call(
            lambda: gateway.store.reset(name, client=client, **options), key=name
        )
    except (ValueError, TypeError) as exc:
        return _error(400, f"bad reset request: {exc}")
    except SessionError as exc:
        return _session_error(exc)
    text = f"{episode.env.instructions()}\n\n{obs}"
    return _owned(JSONResponse({**episode.result(text), "task_id": info["task_id"]}), token)


async def env_step(request: Request) -> Response:
    name = request.path_params["session"]
    try:
        body = await _body(request)
        token = _own(request, name, create=False)
    except _Refused as refused:
        return refused.response
    action = body.get("action") if isinstance(body, dict) else None
    if not isinstance(action, str):
        return _error(400, 'a step needs {"action": "<text>"}')
    store = request.app.state.gateway.store
    try:
        episode = store.get(name)
        obs = await store.call(
            episode.step, action, f"Action: {action}", store.call_timeout, key=name
        )
    except SessionError as exc:
        return _session_error(exc)
    data = episode.result(obs)
    data["done"] = episode.done
    return _owned(JSONResponse(data), token)


def _session_error(exc: SessionError) -> JSONResponse:
    if isinstance(exc, CallTimeout):
        return _error(504, str(exc), "timeout_error")
    if isinstance(exc, LimitError):
        return _error(429, str(exc), "rate_limit_error")
    return _error(404 if "no episode" in str(exc) else 409, str(exc))


async def finish(request: Request) -> Response:
    name = request.path_params["session"]
    gateway = request.app.state.gateway
    if gateway.store.claims.client_of(name) is not None:  # an unknown name is not claimed
        try:
            _own(request, name)
        except _Refused as refused:
            return refused.response
    try:
        return JSONResponse(await gateway.store.call(gateway.finish, name))
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
