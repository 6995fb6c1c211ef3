"""OpenAI's Responses API in terms of chat completions, both ways (pure functions).

The recording gateway serves ``POST /v1/responses`` (:mod:`~agentgym_envs.integrations.gateway_responses`)
in front of a chat-completions upstream, for harnesses that speak only the Responses API (Codex
CLI). :func:`chat_request` turns a Responses request into the chat completion that is sent
upstream and recorded, :func:`response` turns the upstream's answer into a Responses object, and
:func:`response_events` into the events of a streamed one (``response.created``,
``response.in_progress``, per output item ``response.output_item.added`` ... ``done`` with its
text or arguments deltas, then ``response.completed``).

What carries over: ``instructions`` (the first system message), ``message`` items (a
``developer`` message as ``system``; ``input_text`` / ``output_text`` parts as text,
``input_image`` as an image part), ``function_call`` items (the assistant's tool calls, under
their ``call_id``) and ``function_call_output`` items (``tool`` messages), ``namespace`` tools
(Codex puts each MCP server's tools in one: each tool becomes a function
``<namespace>__<name>``, ``mcp__agentgym__act``, and its calls are given back with their
``namespace``), ``custom`` tools
(Codex's freeform ``apply_patch``: a function of one string argument ``input``, its calls given
back as ``custom_tool_call`` items), ``function`` tools, ``tool_choice``,
``parallel_tool_calls``, ``max_output_tokens``, ``temperature``, ``top_p``. What does not:
``reasoning`` items and settings, built-in tools (``web_search``, ``local_shell``...), ``store``,
``include``, ``text`` formats -- a chat-completions upstream has no such thing.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

#: The one argument a ``custom`` (freeform) tool becomes a function of.
CUSTOM_ARGUMENT = "input"
#: Between a ``namespace`` tool's name and the name of a tool in it, in the chat tool's name.
NAMESPACE_SEPARATOR = "__"
_ROLES = {"developer": "system", "system": "system", "user": "user", "assistant": "assistant"}


def request_problem(body: Any) -> str | None:
    """What makes ``body`` an invalid Responses request (one line), or None."""
    if not isinstance(body, dict):
        return "the request body must be a JSON object"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model: a string is required"
    items = body.get("input")
    if not isinstance(items, (str, list)):
        return "input: a string or a list of input items is required"
    if isinstance(items, list):
        for n, item in enumerate(items):
            if not isinstance(item, dict):
                return f"input[{n}]: each input item must be an object"
            kind = item.get("type", "message")
            if kind == "message" and item.get("role") not in _ROLES:
                return f"input[{n}].role: must be one of {', '.join(_ROLES)}"
    tools = body.get("tools")
    if tools is not None and not (
        isinstance(tools, list) and all(isinstance(t, dict) for t in tools)
    ):
        return "tools: must be a list of objects"
    return None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [
        p.get("text")
        for p in content
        if isinstance(p, dict) and p.get("type") in ("input_text", "output_text", "text")
    ]
    return "".join(p for p in parts if isinstance(p, str))


def _content(content: Any) -> Any:
    """A message item's content as chat content: text, or parts when it holds images."""
    if not isinstance(content, list) or not any(
        isinstance(p, dict) and p.get("type") == "input_image" for p in content
    ):
        return _text(content)
    parts = []
    for p in content:
        if not isinstance(p, dict):
            continue
        if p.get("type") == "input_image" and isinstance(p.get("image_url"), str):
            parts.append({"type": "image_url", "image_url": {"url": p["image_url"]}})
        elif isinstance(p.get("text"), str):
            parts.append({"type": "text", "text": p["text"]})
    return parts


def custom_tools(body: dict[str, Any]) -> set[str]:
    """The names of the request's ``custom`` (freeform) tools."""
    return {
        t["name"]
        for t in body.get("tools") or []
        if isinstance(t, dict) and t.get("type") == "custom" and isinstance(t.get("name"), str)
    }


def namespaced(body: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """The chat names of the tools inside the request's ``namespace`` tools (Codex groups each
    MCP server's tools in one: ``mcp__agentgym``), each with its namespace and own name:
    ``{"mcp__agentgym__act": ("mcp__agentgym", "act")}``."""
    out = {}
    for group in body.get("tools") or []:
        if not isinstance(group, dict) or group.get("type") != "namespace":
            continue
        for tool in group.get("tools") or []:
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                out[f"{group.get('name')}{NAMESPACE_SEPARATOR}{tool['name']}"] = (
                    str(group.get("name")),
                    tool["name"],
                )
    return out


def _flat_tools(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The request's tools with each ``namespace`` tool's own tools in its place, renamed
    ``<namespace>__<name>``."""
    out = []
    for tool in body.get("tools") or []:
        if tool.get("type") != "namespace":
            out.append(tool)
            continue
        for inner in tool.get("tools") or []:
            if isinstance(inner, dict) and isinstance(inner.get("name"), str):
                name = f"{tool.get('name')}{NAMESPACE_SEPARATOR}{inner['name']}"
                out.append({**inner, "name": name})
    return out


def _tools(body: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for tool in _flat_tools(body):
        kind, name = tool.get("type"), tool.get("name")
        if not isinstance(name, str):
            continue
        if kind == "function":
            parameters = tool.get("parameters") or {"type": "object", "properties": {}}
        elif kind == "custom":
            described = {"type": "string", "description": "The tool's whole input, as text."}
            parameters = {
                "type": "object",
                "properties": {CUSTOM_ARGUMENT: described},
                "required": [CUSTOM_ARGUMENT],
            }
        else:
            continue
        function = {
            "name": name,
            "description": tool.get("description") or "",
            "parameters": parameters,
        }
        out.append({"type": "function", "function": function})
    return out


def _call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _add_call(messages: list[dict[str, Any]], call: dict[str, Any]) -> None:
    """Add a tool call to the assistant message it belongs to (the last one, when nothing came
    after it), else to a new one."""
    last = messages[-1] if messages else None
    if last is None or last.get("role") != "assistant":
        last = {"role": "assistant", "content": None}
        messages.append(last)
    last.setdefault("tool_calls", []).append(call)


def chat_request(body: dict[str, Any]) -> dict[str, Any]:
    """The chat-completion request for a valid Responses request ``body`` (``stream`` is left to
    the caller)."""
    messages: list[dict[str, Any]] = []
    if isinstance(body.get("instructions"), str) and body["instructions"]:
        messages.append({"role": "system", "content": body["instructions"]})
    items = body["input"]
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    for item in items:
        kind = item.get("type", "message")
        call_id = str(item.get("call_id", ""))
        if kind == "message":
            role = _ROLES[item["role"]]
            messages.append({"role": role, "content": _content(item.get("content"))})
        elif kind == "function_call":
            arguments = item.get("arguments")
            arguments = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
            name = str(item.get("name", ""))
            if isinstance(item.get("namespace"), str) and item["namespace"]:
                name = f"{item['namespace']}{NAMESPACE_SEPARATOR}{name}"
            _add_call(messages, _call(call_id, name, arguments))
        elif kind == "custom_tool_call":
            arguments = json.dumps(
                {CUSTOM_ARGUMENT: str(item.get("input", ""))}, ensure_ascii=False
            )
            _add_call(messages, _call(call_id, str(item.get("name", "")), arguments))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            output = item.get("output")
            text = output if isinstance(output, str) else _text(output)
            messages.append({"role": "tool", "tool_call_id": call_id, "content": text})
    out: dict[str, Any] = {"model": body["model"], "messages": messages}
    if body.get("max_output_tokens") is not None:
        out["max_tokens"] = body["max_output_tokens"]
    for key in ("temperature", "top_p"):
        if body.get(key) is not None:
            out[key] = body[key]
    tools = _tools(body)
    if tools:
        out["tools"] = tools
        choice = body.get("tool_choice")
        if choice in ("auto", "required", "none"):
            out["tool_choice"] = choice
        elif isinstance(choice, dict) and isinstance(choice.get("name"), str):
            out["tool_choice"] = {"type": "function", "function": {"name": choice["name"]}}
        if isinstance(body.get("parallel_tool_calls"), bool):
            out["parallel_tool_calls"] = body["parallel_tool_calls"]
    return out


def _output(
    reply: dict[str, Any], custom: set[str], spaces: dict[str, tuple[str, str]]
) -> list[dict[str, Any]]:
    """A chat message as Responses output items: its text as a ``message``, each tool call as a
    ``function_call`` (a namespaced tool's with its ``namespace`` and own name; a custom tool's
    as a ``custom_tool_call`` with its ``input``)."""
    items: list[dict[str, Any]] = []
    text = (
        _text(reply.get("content"))
        if not isinstance(reply.get("content"), str)
        else reply["content"]
    )
    if text:
        items.append(
            {
                "type": "message",
                "id": f"msg_{uuid.uuid4().hex[:24]}",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        )
    for call in reply.get("tool_calls") or []:
        if not isinstance(call, dict):
            continue
        fn = call.get("function") if isinstance(call.get("function"), dict) else {}
        name = str(fn.get("name", ""))
        arguments = fn.get("arguments") if isinstance(fn.get("arguments"), str) else "{}"
        call_id = str(call.get("id") or f"call_{uuid.uuid4().hex[:24]}")
        if name in custom:
            try:
                value = json.loads(arguments).get(CUSTOM_ARGUMENT, "")
            except (ValueError, AttributeError, RecursionError):
                value = arguments
            items.append(
                {
                    "type": "custom_tool_call",
                    "id": f"ctc_{uuid.uuid4().hex[:24]}",
                    "status": "completed",
                    "call_id": call_id,
                    "name": name,
                    "input": value if isinstance(value, str) else json.dumps(value),
                }
            )
            continue
        item = {
            "type": "function_call",
            "id": f"fc_{uuid.uuid4().hex[:24]}",
            "status": "completed",
            "call_id": call_id,
            "name": name,
            "arguments": arguments,
        }
        if name in spaces:
            item["namespace"], item["name"] = spaces[name]
        items.append(item)
    return items


def response(
    data: dict[str, Any],
    model: str,
    custom: set[str],
    spaces: dict[str, tuple[str, str]] | None = None,
) -> dict[str, Any]:
    """The Responses object for the chat completion ``data`` (its first choice); ``custom``
    and ``spaces`` name the request's custom and namespaced tools
    (:func:`custom_tools`, :func:`namespaced`)."""
    choices = data.get("choices") if isinstance(data.get("choices"), list) else []
    choice = choices[0] if choices and isinstance(choices[0], dict) else {}
    reply = choice.get("message") if isinstance(choice.get("message"), dict) else {}
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    prompt = int(usage.get("prompt_tokens") or 0)
    completion = int(usage.get("completion_tokens") or 0)
    cut = choice.get("finish_reason") == "length"
    return {
        "id": f"resp_{uuid.uuid4().hex[:24]}",
        "object": "response",
        "created_at": int(time.time()),
        "status": "incomplete" if cut else "completed",
        "incomplete_details": {"reason": "max_output_tokens"} if cut else None,
        "error": None,
        "model": model,
        "output": _output(reply, custom, spaces or {}),
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": prompt,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": completion,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": prompt + completion,
        },
    }


def error_body(status: int, message: str) -> dict[str, Any]:
    """An OpenAI-shaped error body."""
    kind = "server_error" if status >= 500 else "invalid_request_error"
    return {"error": {"message": message, "type": kind, "code": None, "param": None}}


#: Per call item type: the field its events stream and their name (``response.<name>.delta``).
_CALL_EVENTS = {
    "function_call": ("arguments", "function_call_arguments"),
    "custom_tool_call": ("input", "custom_tool_call_input"),
}


class Events:
    """The numbered server-sent events of one streamed response."""

    def __init__(self) -> None:
        self.number = 0

    def __call__(self, kind: str, **data: Any) -> bytes:
        payload = {"type": kind, "sequence_number": self.number, **data}
        self.number += 1
        return f"event: {kind}\ndata: {json.dumps(payload, ensure_ascii=False)}\n\n".encode()


def _shell(response_id: str, model: str, status: str) -> dict[str, Any]:
    """A response with no output yet (or none at all), in ``status``."""
    return {
        "id": response_id,
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "model": model,
        "output": [],
    }


def started(events: Events, response_id: str, model: str) -> list[bytes]:
    """``response.created`` and ``response.in_progress``, before the upstream has answered."""
    shell = _shell(response_id, model, "in_progress")
    return [
        events("response.created", response=shell),
        events("response.in_progress", response=shell),
    ]


def response_events(events: Events, reply: dict[str, Any]) -> list[bytes]:
    """The events after :func:`started` that stream ``reply`` (a :func:`response` object):
    each output item added, its text or arguments as one delta, done; then
    ``response.completed`` (``response.incomplete`` for a reply cut at its token limit)."""
    out = []
    for index, item in enumerate(reply["output"]):
        if item["type"] == "message":
            text = item["content"][0]["text"]
            out.append(
                events(
                    "response.output_item.added",
                    output_index=index,
                    item={**item, "status": "in_progress", "content": []},
                )
            )
            part = {"type": "output_text", "text": "", "annotations": []}
            where = {"item_id": item["id"], "output_index": index, "content_index": 0}
            out.append(events("response.content_part.added", **where, part=part))
            out.append(events("response.output_text.delta", **where, delta=text))
            out.append(events("response.output_text.done", **where, text=text))
            out.append(events("response.content_part.done", **where, part={**part, "text": text}))
        else:  # a call: its arguments (a custom tool's input) as one delta
            field, stream = _CALL_EVENTS[item["type"]]
            added = {**item, "status": "in_progress", field: ""}
            out.append(events("response.output_item.added", output_index=index, item=added))
            where = {"item_id": item["id"], "output_index": index}
            out.append(events(f"response.{stream}.delta", **where, delta=item[field]))
            out.append(events(f"response.{stream}.done", **where, **{field: item[field]}))
        out.append(events("response.output_item.done", output_index=index, item=item))
    ending = "response.completed" if reply["status"] == "completed" else "response.incomplete"
    out.append(events(ending, response=reply))
    return out


def failed(events: Events, response_id: str, model: str, message: str) -> bytes:
    """``response.failed`` with ``message``."""
    shell = _shell(response_id, model, "failed")
    shell["error"] = {"code": "server_error", "message": message}
    return events("response.failed", response=shell)


__all__ = [
    "CUSTOM_ARGUMENT",
    "NAMESPACE_SEPARATOR",
    "Events",
    "chat_request",
    "custom_tools",
    "error_body",
    "failed",
    "namespaced",
    "request_problem",
    "response",
    "response_events",
    "started",
]
