"""Anthropic's Messages API in terms of OpenAI chat completions, both ways (pure functions).

The recording gateway serves ``POST /v1/messages`` (:mod:`~agentgym_envs.integrations.gateway_anthropic`)
in front of an OpenAI-compatible upstream: :func:`chat_request` turns a Messages request into
the chat-completion request that is sent upstream and recorded, :func:`message` turns the
upstream's chat completion into a Messages reply, and :func:`message_events` into the
server-sent events of a streamed one (``message_start``, then per content block
``content_block_start`` / ``content_block_delta`` / ``content_block_stop``, then
``message_delta`` and ``message_stop``).

What carries over: ``system`` (a string or text blocks: one system message; a ``system``
message among the messages stays one, where it is), text and image
blocks, ``tool_use`` blocks (assistant tool calls, their ``input`` as the call's JSON
arguments) and ``tool_result`` blocks (``tool`` messages, placed right after the assistant's
calls as OpenAI requires), ``tools`` (``input_schema`` as ``parameters``), ``tool_choice``,
``max_tokens``, ``temperature``, ``top_p``, ``top_k``, ``stop_sequences``. What does not:
``thinking`` blocks and settings, ``cache_control``, ``metadata``, server tools without an
``input_schema`` -- an OpenAI upstream has no such thing.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

#: The Messages ``stop_reason`` for each chat-completion ``finish_reason``.
STOP_REASONS = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "refusal",
}
#: Anthropic's error ``type`` for an HTTP status (others: ``api_error`` from 500 up, else
#: ``invalid_request_error``).
ERROR_TYPES = {
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    504: "timeout_error",
    529: "overloaded_error",
}
_ROLES = ("user", "assistant", "system")


def error_type(status: int) -> str:
    """Anthropic's error ``type`` for HTTP ``status``."""
    if status in ERROR_TYPES:
        return ERROR_TYPES[status]
    return "api_error" if status >= 500 else "invalid_request_error"


def error_body(status: int, message: str) -> dict[str, Any]:
    """An Anthropic error body: ``{"type": "error", "error": {"type", "message"}}``."""
    return {"type": "error", "error": {"type": error_type(status), "message": message}}


def request_problem(body: Any, *, count: bool = False) -> str | None:
    """What makes ``body`` an invalid Messages request (one line), or None. ``count``: a
    ``count_tokens`` request (no ``max_tokens``)."""
    if not isinstance(body, dict):
        return "the request body must be a JSON object"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model: field required (a string)"
    max_tokens = body.get("max_tokens")
    if not count and (
        not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1
    ):
        return "max_tokens: field required (an integer of at least 1)"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: field required (a non-empty list)"
    for n, m in enumerate(messages):
        if not isinstance(m, dict) or m.get("role") not in _ROLES:
            return f"messages.{n}.role: must be 'user', 'assistant' or 'system'"
        content = m.get("content")
        if not isinstance(content, (str, list)):
            return f"messages.{n}.content: must be a string or a list of content blocks"
        if isinstance(content, list) and not all(
            isinstance(b, dict) and isinstance(b.get("type"), str) for b in content
        ):
            return f"messages.{n}.content: each content block must be an object with a 'type'"
    system = body.get("system")
    if system is not None and not isinstance(system, (str, list)):
        return "system: must be a string or a list of text blocks"
    tools = body.get("tools")
    if tools is not None and not (
        isinstance(tools, list) and all(isinstance(t, dict) and t.get("name") for t in tools)
    ):
        return "tools: must be a list of objects with a 'name'"
    return None


def _text_of(content: Any) -> str:
    """The text of a string or of a list of blocks (their ``text`` parts joined)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    return "\n\n".join(p for p in parts if isinstance(p, str))


def _image_part(block: dict[str, Any]) -> dict[str, Any] | None:
    source = block.get("source") or {}
    if source.get("type") == "base64":
        url = f"data:{source.get('media_type', 'image/png')};base64,{source.get('data', '')}"
    elif source.get("type") == "url":
        url = source.get("url", "")
    else:
        return None
    return {"type": "image_url", "image_url": {"url": url}}


def _user_messages(content: Any) -> list[dict[str, Any]]:
    """One user turn as chat messages: its tool results first (``tool`` messages), then its
    text and images (one ``user`` message)."""
    if isinstance(content, str):
        return [{"role": "user", "content": content}]
    tools, parts = [], []
    for block in content:
        kind = block.get("type")
        if kind == "tool_result":
            tools.append(
                {
                    "role": "tool",
                    "tool_call_id": str(block.get("tool_use_id", "")),
                    "content": _text_of(block.get("content")),
                }
            )
        elif kind == "text" and isinstance(block.get("text"), str):
            parts.append({"type": "text", "text": block["text"]})
        elif kind == "image" and (part := _image_part(block)) is not None:
            parts.append(part)
    out = list(tools)
    if parts:
        only_text = all(p["type"] == "text" for p in parts)
        text = "\n\n".join(p["text"] for p in parts) if only_text else None
        out.append({"role": "user", "content": text if only_text else parts})
    return out


def _assistant_message(content: Any) -> dict[str, Any]:
    """One assistant turn as a chat message: its text, its ``tool_use`` blocks as tool calls."""
    if isinstance(content, str):
        return {"role": "assistant", "content": content}
    calls = [
        {
            "id": str(b.get("id", "")),
            "type": "function",
            "function": {
                "name": str(b.get("name", "")),
                "arguments": json.dumps(b.get("input") or {}, ensure_ascii=False),
            },
        }
        for b in content
        if b.get("type") == "tool_use"
    ]
    message: dict[str, Any] = {"role": "assistant", "content": _text_of(content) or None}
    if calls:
        message["tool_calls"] = calls
    return message


def _tool_choice(choice: Any) -> tuple[Any, bool | None]:
    """The chat ``tool_choice`` and ``parallel_tool_calls`` for a Messages ``tool_choice``."""
    if not isinstance(choice, dict):
        return None, None
    parallel = False if choice.get("disable_parallel_tool_use") else None
    kind = choice.get("type")
    if kind == "any":
        return "required", parallel
    if kind == "tool" and isinstance(choice.get("name"), str):
        return {"type": "function", "function": {"name": choice["name"]}}, parallel
    if kind in ("auto", "none"):
        return kind, parallel
    return None, parallel


def chat_request(body: dict[str, Any]) -> dict[str, Any]:
    """The chat-completion request for a valid Messages request ``body`` (see the module
    docstring; ``stream`` is left to the caller)."""
    messages: list[dict[str, Any]] = []
    system = _text_of(body.get("system"))
    if system:
        messages.append({"role": "system", "content": system})
    for m in body["messages"]:
        if m["role"] == "user":
            messages.extend(_user_messages(m["content"]))
        elif m["role"] == "system":  # a system message mid-conversation (Claude Code sends one)
            messages.append({"role": "system", "content": _text_of(m["content"])})
        else:
            messages.append(_assistant_message(m["content"]))
    out: dict[str, Any] = {"model": body["model"], "messages": messages}
    if body.get("max_tokens") is not None:
        out["max_tokens"] = body["max_tokens"]
    for key in ("temperature", "top_p", "top_k"):
        if body.get(key) is not None:
            out[key] = body[key]
    if body.get("stop_sequences"):
        out["stop"] = body["stop_sequences"]
    tools = [
        {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": t.get("description") or "",
                "parameters": t["input_schema"],
            },
        }
        for t in body.get("tools") or []
        if isinstance(t.get("input_schema"), dict)
    ]
    if tools:
        out["tools"] = tools
        choice, parallel = _tool_choice(body.get("tool_choice"))
        if choice is not None:
            out["tool_choice"] = choice
        if parallel is not None:
            out["parallel_tool_calls"] = parallel
    return out


def _arguments(raw: Any) -> dict[str, Any]:
    """A tool call's arguments as the object a ``tool_use`` block's ``input`` must be."""
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if isinstance(raw, str) and raw.strip() else {}
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def message(data: dict[str, Any], model: str) -> dict[str, Any]:
    """The Messages reply for the chat completion ``data`` (its first choice)."""
    choices = data.get("choices") if isinstance(data.get("choices"), list) else []
    choice = choices[0] if choices and isinstance(choices[0], dict) else {}
    reply = choice.get("message") if isinstance(choice.get("message"), dict) else {}
    blocks: list[dict[str, Any]] = []
    text = _text_of(reply.get("content"))
    if text:
        blocks.append({"type": "text", "text": text})
    for call in reply.get("tool_calls") or []:
        if not isinstance(call, dict):
            continue
        fn = call.get("function") if isinstance(call.get("function"), dict) else {}
        blocks.append(
            {
                "type": "tool_use",
                "id": str(call.get("id") or f"toolu_{uuid.uuid4().hex[:24]}"),
                "name": str(fn.get("name", "")),
                "input": _arguments(fn.get("arguments")),
            }
        )
    if not blocks:
        blocks.append({"type": "text", "text": ""})
    finish = choice.get("finish_reason")
    stop = STOP_REASONS.get(finish, "end_turn") if isinstance(finish, str) else "end_turn"
    if any(b["type"] == "tool_use" for b in blocks) and stop == "end_turn":
        stop = "tool_use"
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    return {
        "id": f"msg_{uuid.uuid4().hex[:24]}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {
            "input_tokens": int(usage.get("prompt_tokens") or 0),
            "output_tokens": int(usage.get("completion_tokens") or 0),
        },
    }


def sse(kind: str, data: dict[str, Any]) -> bytes:
    """One server-sent event of Anthropic's stream: ``event: <kind>`` and its JSON."""
    return f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def message_start(message_id: str, model: str) -> bytes:
    """The stream's first event (its usage is given again, counted, in ``message_delta``)."""
    start = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 0, "output_tokens": 0},
    }
    return sse("message_start", {"type": "message_start", "message": start})


def message_events(reply: dict[str, Any]) -> list[bytes]:
    """The events after ``message_start`` that stream the Messages reply ``reply``: each
    content block (text as one ``text_delta``, a tool call's input as one
    ``input_json_delta``), then ``message_delta`` (stop reason, usage) and ``message_stop``."""
    out = []
    for index, block in enumerate(reply["content"]):
        if block["type"] == "tool_use":
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        out.append(
            sse(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
        )
        out.append(
            sse(
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            )
        )
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    out.append(
        sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": reply["stop_reason"], "stop_sequence": None},
                "usage": reply["usage"],
            },
        )
    )
    out.append(sse("message_stop", {"type": "message_stop"}))
    return out


def count_tokens(body: dict[str, Any]) -> int:
    """An estimate of a Messages request's input tokens (about four characters a token over
    the chat request it becomes: the gateway has no tokenizer of the upstream's model)."""
    request = chat_request({**body, "max_tokens": None})
    text = json.dumps([request["messages"], request.get("tools", [])], ensure_ascii=False)
    return max(1, len(text) // 4)


__all__ = [
    "ERROR_TYPES",
    "STOP_REASONS",
    "chat_request",
    "count_tokens",
    "error_body",
    "error_type",
    "message",
    "message_events",
    "message_start",
    "request_problem",
    "sse",
]
