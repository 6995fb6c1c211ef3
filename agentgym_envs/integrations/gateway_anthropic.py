"""The recording gateway's Anthropic Messages endpoint: ``POST /v1/messages`` (and
``/s/<session>/v1/messages``), for harnesses that speak Anthropic's API (Claude Code).

A Messages request is turned into a chat completion (:mod:`~agentgym_envs.integrations.anthropic_wire`),
sent to the gateway's OpenAI-compatible upstream and recorded exactly as the OpenAI route records
one (:func:`~agentgym_envs.integrations.gateway_routes._forward`: the same session log, the same
AgentTraj, chat and SFT records, with ``"client_api": "anthropic-messages"`` on the call), and
the upstream's answer is given back as a Messages reply -- or, for ``"stream": true``, as
Anthropic's event stream: ``message_start`` at once, ``ping`` every few seconds while the
upstream works, then the content blocks, ``message_delta`` and ``message_stop``. Every error is
Anthropic-shaped (``{"type": "error", "error": {"type", "message"}}``, an ``error`` event in a
stream). ``POST /v1/messages/count_tokens`` answers an estimate (``{"input_tokens": n}``).

The harness's ``x-api-key`` is sent upstream as its bearer key when the gateway has no key of
its own (as the OpenAI route sends the harness's ``Authorization``).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from agentgym_envs.integrations import anthropic_wire as wire
from agentgym_envs.integrations.gateway import SessionLog
from agentgym_envs.integrations.gateway_routes import (
    _body,
    _forward,
    _open_translated,
    _owned,
    _Refused,
)

#: Seconds between ``ping`` events while a streamed reply waits on the upstream.
PING_EVERY = 5.0


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse(wire.error_body(status, message), status_code=status)


def _reshaped(response: Response) -> Response:
    """An error the OpenAI side made (``{"error": {"message"}}`` or any text), Anthropic-shaped."""
    raw = bytes(response.body)
    try:
        message = json.loads(raw)["error"]["message"]
    except (ValueError, KeyError, TypeError):
        message = raw.decode(errors="replace")[:300] or f"HTTP {response.status_code}"
    reshaped = _error(response.status_code, str(message))
    for key in ("connection",):
        if key in response.headers:
            reshaped.headers[key] = response.headers[key]
    return reshaped


def _keyed(request: Request) -> Request:
    """``request`` with its ``x-api-key`` as ``Authorization: Bearer`` (when it has no
    ``Authorization``), so the upstream hears the harness's key as on the OpenAI route."""
    key = request.headers.get("x-api-key")
    if not key or request.headers.get("authorization"):
        return request
    scope = dict(request.scope)
    scope["headers"] = [*request.scope["headers"], (b"authorization", f"Bearer {key}".encode())]
    return Request(scope, request.receive)


async def messages(request: Request) -> Response:
    """A Messages request: forwarded upstream as a chat completion, recorded, answered in
    Anthropic's shape (streamed if asked)."""
    opened = await _open_translated(
        request, wire.request_problem, wire.chat_request, "anthropic-messages"
    )
    if isinstance(opened, Response):
        return _reshaped(opened)
    body, token, log, entry, upstream, started = opened
    stream = bool(body.get("stream"))
    request = _keyed(request)
    if not stream:
        answered = await _forward(request, upstream, log, entry, started)
        return _owned(_reply(answered, body["model"]), token)
    events = _events(request, upstream, log, entry, started, body["model"])
    return _owned(StreamingResponse(events, media_type="text/event-stream"), token)


def _answer(response: Response, model: str) -> dict[str, Any] | tuple[int, str]:
    """The Messages reply for what ``_forward`` answered, or ``(status, error message)``."""
    if response.status_code >= 400:
        reshaped = json.loads(bytes(_reshaped(response).body))
        return response.status_code, reshaped["error"]["message"]
    try:
        data = json.loads(bytes(response.body))
    except (ValueError, RecursionError):
        return 502, "the upstream's reply is not JSON"
    return wire.message(data, model)


def _reply(response: Response, model: str) -> Response:
    answer = _answer(response, model)
    if isinstance(answer, tuple):
        return _error(*answer)
    return JSONResponse(answer)


async def _events(
    request: Request,
    upstream: dict[str, Any],
    log: SessionLog,
    entry: dict[str, Any],
    started: float,
    model: str,
) -> AsyncIterator[bytes]:
    """The streamed reply: ``message_start`` at once, pings while the upstream works, then the
    rest of the events."""
    yield wire.message_start(f"msg_{uuid.uuid4().hex[:24]}", model)
    call = asyncio.ensure_future(_forward(request, upstream, log, entry, started))
    async for ping in waiting(call, wire.sse("ping", {"type": "ping"})):
        yield ping
    answer = _answer(call.result(), model)
    if isinstance(answer, tuple):
        yield wire.sse("error", wire.error_body(*answer))
        return
    for event in wire.message_events(answer):
        yield event


async def waiting(call: asyncio.Future[Any], ping: bytes) -> AsyncIterator[bytes]:
    """``ping`` every :data:`PING_EVERY` seconds until ``call`` is done (the call goes on, and
    is recorded, if the client leaves meanwhile)."""
    while True:
        done, _ = await asyncio.wait({call}, timeout=PING_EVERY)
        if done:
            return
        yield ping


async def count_tokens(request: Request) -> Response:
    """``{"input_tokens": n}``: an estimate for a Messages request (nothing is recorded)."""
    try:
        body = await _body(request)
    except _Refused as refused:
        return _reshaped(refused.response)
    problem = wire.request_problem(body, count=True)
    if problem:
        return _error(400, problem)
    return JSONResponse({"input_tokens": wire.count_tokens(body)})


ROUTES = [
    Route("/v1/messages", messages, methods=["POST"]),
    Route("/v1/messages/count_tokens", count_tokens, methods=["POST"]),
    Route("/s/{session}/v1/messages", messages, methods=["POST"]),
    Route("/s/{session}/v1/messages/count_tokens", count_tokens, methods=["POST"]),
]
"""The Anthropic Messages routes (``create_app`` serves them beside the OpenAI ones)."""

__all__ = ["PING_EVERY", "ROUTES", "count_tokens", "messages", "waiting"]
