"""A whole chat completion as the chunks of a streamed one (OpenAI's ``chat.completion.chunk``).

Used where a streamed request meets an answer that was made whole: the recording gateway in
front of an upstream that ignores ``stream``, and the expert chat server.
"""

from __future__ import annotations

import json
import time
from typing import Any


def completion_chunks(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The chunks of ``data`` (a chat completion whose ``choices`` are objects with a
    ``message`` object): one delta with the whole message per choice (tool calls numbered by
    ``index``; the choice's ``logprobs`` and ``token_ids`` and the completion's
    ``prompt_token_ids``, where present, ride along), then one with each choice's finish
    reason and the usage."""
    head = {
        "id": data.get("id", "chatcmpl-stream"),
        "object": "chat.completion.chunk",
        "created": data.get("created", int(time.time())),
        "model": data.get("model", ""),
    }
    choices = [c for c in data.get("choices") or [] if isinstance(c, dict)]
    deltas, ends = [], []
    for n, choice in enumerate(choices):
        delta = dict(choice.get("message") or {})
        calls = delta.get("tool_calls")
        if isinstance(calls, list):
            delta["tool_calls"] = [
                {**call, "index": i} for i, call in enumerate(calls) if isinstance(call, dict)
            ]
        index = choice.get("index", n)
        first = {"index": index, "delta": delta, "finish_reason": None}
        for key in ("logprobs", "token_ids"):  # the reply's tokens travel with its delta
            if choice.get(key) is not None:
                first[key] = choice[key]
        deltas.append(first)
        ends.append({"index": index, "delta": {}, "finish_reason": choice.get("finish_reason")})
    last: dict[str, Any] = {**head, "choices": ends}
    if isinstance(data.get("usage"), dict):
        last["usage"] = data["usage"]
    opening: dict[str, Any] = {**head, "choices": deltas}
    if data.get("prompt_token_ids") is not None:
        opening["prompt_token_ids"] = data["prompt_token_ids"]
    return [opening, last]


def event(data: Any) -> bytes:
    """One server-sent event carrying ``data`` as JSON."""
    return f"data: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


#: The event that ends a chat-completion stream.
DONE = b"data: [DONE]\n\n"

__all__ = ["DONE", "completion_chunks", "event"]
