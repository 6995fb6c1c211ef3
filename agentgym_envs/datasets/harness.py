"""Training records in a harness's own format: what the model saw and said, exactly as sent.

The recording gateway keeps each harness session's chat calls (request, response, token ids).
:func:`harness_sft_row` turns a session's chat record (``chat.jsonl``) into one SFT row that
keeps the harness's system prompt, its tool schemas (OpenAI ``tools`` format) and every tool
call exactly as the gateway recorded it, with a loss mask on the model's turns only::

    {"item_id", "messages": [...as sent...], "tools": [...as offered...],
     "loss": [false, false, true, ...],          # one flag per message: the model's turns
     "reward", "success", "monotonic": true, "rewritten_at": null,
     "calls": [{"call": 0, "prompt_token_ids": [...], "token_ids": [...], "logprobs": [...]}]}

``calls`` holds the token ids and logprobs of each model call where the upstream returned them
(vLLM's ``return_token_ids``, our local server's too), for on-policy RL. ``monotonic`` is false
when the harness rewrote its history between calls (compaction, edited turns): then the
conversation of the last call is not what the earlier calls saw, and ``rewritten_at`` is the
index of the first call whose request does not extend the one before it and its answer
(:func:`history_rewrite`).

:func:`tool_call_problems` checks a row's (or one reply's) tool calls against the schemas the
row carries (``jsonschema``), and :func:`tool_call_stats` counts, per model call of a session,
how many replies called the harness's tools validly: the first thing a model trained for a
harness must learn.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from agentgym_envs.errors import require

#: The per-call keys of a gateway record that carry the upstream's tokens.
TOKEN_KEYS = ("prompt_token_ids", "token_ids", "logprobs", "logprob_tokens")


def _text(content: Any) -> str:
    if isinstance(content, list):  # content parts: their text
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def _arguments(raw: Any) -> Any:
    if isinstance(raw, dict):
        return raw
    try:
        return json.loads(raw or "{}")
    except (TypeError, ValueError):
        return raw


def normalized(message: dict[str, Any]) -> tuple[Any, ...]:
    """What of ``message`` a history rewrite would change: its role, its text (content parts
    joined, outer whitespace ignored), its tool calls (name and parsed arguments) and the call
    it answers. Keys a client adds or drops when it echoes a reply back (``refusal``,
    ``reasoning_content``, ``null`` vs ``""`` content) do not count."""
    calls = tuple(
        (
            str((c.get("function") or {}).get("name")),
            json.dumps(_arguments((c.get("function") or {}).get("arguments")), sort_keys=True),
        )
        for c in message.get("tool_calls") or []
        if isinstance(c, dict)
    )
    return (
        message.get("role"),
        _text(message.get("content")).strip(),
        calls,
        message.get("tool_call_id"),
    )


def history_rewrite(calls: Sequence[dict[str, Any]]) -> int | None:
    """The index of the first call whose request rewrote the history, or ``None``.

    ``calls`` are a session's gateway entries (``request``, ``response``) in call order. A
    harness that only appends sends, each call, the previous request's messages, the previous
    answer and new messages after them. Calls are grouped into threads by their first message
    (the harness's system prompt), so a side call (a title, a summary) with a prompt of its own
    is not a rewrite; within a thread, a request that does not start with the thread's previous
    request and its answer is one (compaction, a dropped or edited turn)."""
    last: dict[tuple[Any, ...], list[tuple[Any, ...]]] = {}
    for index, call in enumerate(calls):
        request = call.get("request")
        messages = request.get("messages") if isinstance(request, dict) else None
        if not isinstance(messages, list) or not messages:
            continue
        seen = [normalized(m) for m in messages if isinstance(m, dict)]
        thread = seen[0]
        before = last.get(thread)
        if before is not None and seen[: len(before)] != before:
            return index
        response = call.get("response")
        last[thread] = seen + ([normalized(response)] if isinstance(response, dict) else [])
    return None


def call_tokens(calls: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The token ids and logprobs each call recorded (``call``: its index), calls without
    them left out."""
    return [
        {"call": i, **{k: c[k] for k in TOKEN_KEYS if k in c}}
        for i, c in enumerate(calls)
        if any(k in c for k in TOKEN_KEYS)
    ]


def harness_sft_row(chat: dict[str, Any]) -> dict[str, Any]:
    """One chat record of the gateway (``chat.jsonl``) as a harness-format SFT row (see the
    module docstring). Messages and tools are kept as recorded; the loss is on the model's
    (``assistant``) turns only."""
    messages = [m for m in chat.get("messages") or [] if isinstance(m, dict)]
    tools = [t for t in chat.get("tools") or [] if isinstance(t, dict)]
    calls = chat.get("token_ids") or []
    row = {
        "item_id": chat.get("item_id"),
        "messages": messages,
        "tools": tools,
        "loss": [m.get("role") == "assistant" for m in messages],
        "reward": chat.get("reward"),
        "success": chat.get("success"),
        "monotonic": chat.get("monotonic", True),
        "rewritten_at": chat.get("rewritten_at"),
        "calls": [c for c in calls if isinstance(c, dict)],
    }
    for key in ("session", "env_id", "harness", "model", "outcome", "reward_valid"):
        if key in chat:
            row[key] = chat[key]
    return row


def _schemas(tools: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out = {}
    for tool in tools:
        fn = tool.get("function", tool) if isinstance(tool, dict) else {}
        if isinstance(fn, dict) and fn.get("name"):
            out[str(fn["name"])] = fn.get("parameters") or {"type": "object"}
    return out


def tool_call_problems(
    message: dict[str, Any], tools: Sequence[dict[str, Any]]
) -> list[str] | None:
    """What is wrong with ``message``'s tool calls against ``tools`` (OpenAI schemas): ``[]``
    when every call names an offered tool with arguments that are a JSON object valid against
    its ``parameters``; ``None`` when the message calls no tool at all (a text answer)."""
    jsonschema = require("jsonschema", "gateway")
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    if not calls:
        return None
    schemas = _schemas(tools)
    problems = []
    for call in calls:
        fn = call.get("function") if isinstance(call, dict) else None
        name = fn.get("name") if isinstance(fn, dict) else None
        if name not in schemas:
            problems.append(f"{name!r} is not one of the offered tools")
            continue
        args = _arguments(fn.get("arguments"))
        if not isinstance(args, dict):
            problems.append(f"{name}: arguments are not a JSON object: {str(args)[:80]!r}")
            continue
        try:
            jsonschema.validate(args, schemas[name])
        except jsonschema.ValidationError as exc:
            problems.append(f"{name}: {exc.message}")
        except jsonschema.SchemaError as exc:
            problems.append(f"{name}: the tool's own schema is invalid: {exc.message}")
    return problems


def row_problems(row: dict[str, Any]) -> list[str]:
    """Every problem of the tool calls in an SFT row's messages, against the tools it carries."""
    out = []
    for i, m in enumerate(row.get("messages") or []):
        found = tool_call_problems(m, row.get("tools") or [])
        out.extend(f"message {i}: {p}" for p in found or [])
    return out


def tool_call_stats(calls: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Per answered model call (gateway entries): how many replied with tool calls, how many
    of those were all valid against the request's tools, and how many answered in text only.
    ``valid_rate`` is valid calls over answered calls (``None`` when none was answered). A call
    the upstream never finished (a stream cut when the harness was stopped: its
    ``finish_reason`` is ``null``) or that failed is not an answer."""
    answered = tool = valid = 0
    for c in calls:
        request, response = c.get("request"), c.get("response")
        if not isinstance(response, dict) or not isinstance(request, dict):
            continue
        if "finish_reason" in c and c["finish_reason"] is None:
            continue
        answered += 1
        problems = tool_call_problems(response, request.get("tools") or [])
        if problems is None:
            continue
        tool += 1
        valid += not problems
    return {
        "model_calls": answered,
        "tool_calls": tool,
        "valid_tool_calls": valid,
        "text_only": answered - tool,
        "valid_rate": valid / answered if answered else None,
    }


__all__ = [
    "TOKEN_KEYS",
    "call_tokens",
    "harness_sft_row",
    "history_rewrite",
    "normalized",
    "row_problems",
    "tool_call_problems",
    "tool_call_stats",
]
