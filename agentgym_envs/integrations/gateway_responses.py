"""The recording gateway's Responses endpoint: ``POST /v1/responses`` (and
``/s/<session>/v1/responses``), for harnesses that speak only OpenAI's Responses API (Codex CLI,
whose custom providers must use ``wire_api = "responses"``).

A Responses request is turned into a chat completion (:mod:`~agentgym_envs.integrations.responses_wire`),
sent to the gateway's chat-completions upstream and recorded exactly as the chat route records
one (the same session log, AgentTraj, chat and SFT records, with ``"client_api": "responses"`` on
the call); the answer is given back as a Responses object -- or, for ``"stream": true``, as the
Responses event stream: ``response.created`` and ``response.in_progress`` at once, an SSE
comment every few seconds while the upstream works, then the output items and
``response.completed``. An error before the stream is an OpenAI-shaped error body; a failed
upstream call inside a stream is ``response.failed``.
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

from agentgym_envs.integrations import responses_wire as wire
from agentgym_envs.integrations.gateway import SessionLog
from agentgym_envs.integrations.gateway_anthropic import waiting
from agentgym_envs.integrations.gateway_routes import _forward, _open_translated, _owned

#: What is sent while a streamed reply waits on the upstream (an SSE comment: clients skip it).
KEEP_ALIVE = b": keep-alive\n\n"


async def responses(request: Request) -> Response:
    """A Responses request: forwarded upstream as a chat completion, recorded, answered as a
    Responses object (streamed if asked)."""
    opened = await _open_translated(request, wire.request_problem, wire.chat_request, "responses")
    if isinstance(opened, Response):
        return opened
    body, token, log, entry, upstream, started = opened
    stream = bool(body.get("stream"))
    custom = (wire.custom_tools(body), wire.namespaced(body))
    if not stream:
        answered = await _forward(request, upstream, log, entry, started)
        answer = _answer(answered, body["model"], custom)
        if isinstance(answer, tuple):
            return JSONResponse(wire.error_body(*answer), status_code=answer[0])
        return _owned(JSONResponse(answer), token)
    events = _events(request, upstream, log, entry, started, body["model"], custom)
    return _owned(StreamingResponse(events, media_type="text/event-stream"), token)


def _answer(
    response: Response, model: str, custom: tuple[set[str], dict[str, tuple[str, str]]]
) -> dict[str, Any] | tuple[int, str]:
    """The Responses object for what ``_forward`` answered, or ``(status, error message)``."""
    raw = bytes(response.body)
    if response.status_code >= 400:
        try:
            message = json.loads(raw)["error"]["message"]
        except (ValueError, KeyError, TypeError):
            message = raw.decode(errors="replace")[:300]
        return response.status_code, str(message)
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return 502, "the upstream's reply is not JSON"
    return wire.response(data, model, *custom)


async def _events(
    request: Request,
    upstream: dict[str, Any],
    log: SessionLog,
    entry: dict[str, Any],
    started: float,
    model: str,
    custom: tuple[set[str], dict[str, tuple[str, str]]],
) -> AsyncIterator[bytes]:
    events = wire.Events()
    response_id = f"resp_{uuid.uuid4().hex[:24]}"
    for event in wire.started(events, response_id, model):
        yield event
    call = asyncio.ensure_future(_forward(request, upstream, log, entry, started))
    async for ping in waiting(call, KEEP_ALIVE):
        yield ping
    answer = _answer(call.result(), model, custom)
    if isinstance(answer, tuple):
        yield wire.failed(events, response_id, model, answer[1])
        return
    answer["id"] = response_id
    for event in wire.response_events(events, answer):
        yield event


ROUTES = [
    Route("/v1/responses", responses, methods=["POST"]),
    Route("/s/{session}/v1/responses", responses, methods=["POST"]),
]
"""The Responses routes (``create_app`` serves them beside the chat ones)."""

__all__ = ["KEEP_ALIVE", "ROUTES", "responses"]
