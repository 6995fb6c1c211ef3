"""Harness-format training rows: the harness's messages, tools and tool calls kept as sent,
the loss on the model's turns only, tool calls checked against the schemas the row carries,
and a history the harness rewrote between calls found at its first rewritten call."""

from __future__ import annotations

import copy
import json

import pytest

from agentgym_envs.datasets.harness import (
    harness_sft_row,
    history_rewrite,
    row_problems,
    tool_call_problems,
    tool_call_stats,
)

pytest.importorskip("jsonschema")

GUESS = {
    "type": "function",
    "function": {
        "name": "agentgym__guess",
        "description": "Guess a five-letter word.",
        "parameters": {
            "type": "object",
            "properties": {"word": {"type": "string", "minLength": 5, "maxLength": 5}},
            "required": ["word"],
            "additionalProperties": False,
        },
    },
}
SYSTEM = {"role": "system", "content": "You are Cline. Use the tools."}
TASK = {"role": "user", "content": [{"type": "text", "text": "Guess the hidden word."}]}


def call(word, name="agentgym__guess", cid="call_1"):
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": cid,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps({"word": word})},
            }
        ],
    }


def result(text, cid="call_1"):
    return {"role": "tool", "tool_call_id": cid, "content": text}


def test_a_row_keeps_the_harness_record_and_learns_only_the_model_turns():
    messages = [SYSTEM, TASK, call("crane"), result("c r a n e: g b b y b"), call("cloud")]
    chat = {
        "session": "cline-1",
        "item_id": "wordle_0",
        "messages": copy.deepcopy(messages),
        "tools": [GUESS],
        "reward": 1.0,
        "success": True,
        "harness": "cline",
        "monotonic": True,
        "rewritten_at": None,
        "token_ids": [
            {"call": 1, "prompt_token_ids": [1, 2], "token_ids": [3], "logprobs": [-0.1]}
        ],
    }
    row = harness_sft_row(chat)
    assert row["messages"] == messages  # content parts, ids and argument strings as sent
    assert row["tools"] == [GUESS]
    assert row["loss"] == [False, False, True, False, True]
    assert row["calls"] == chat["token_ids"]
    assert (row["monotonic"], row["rewritten_at"], row["harness"]) == (True, None, "cline")
    assert row_problems(row) == []


def test_tool_calls_are_checked_against_the_schemas_the_row_carries():
    assert tool_call_problems(call("crane"), [GUESS]) == []
    assert tool_call_problems({"role": "assistant", "content": "crane"}, [GUESS]) is None
    (unknown,) = tool_call_problems(call("crane", name="guess"), [GUESS])
    assert "not one of the offered tools" in unknown
    (short,) = tool_call_problems(call("cat"), [GUESS])
    assert "too short" in short
    bad = call("crane")
    bad["tool_calls"][0]["function"]["arguments"] = "crane"
    (text,) = tool_call_problems(bad, [GUESS])
    assert "not a JSON object" in text
    row = harness_sft_row({"messages": [SYSTEM, TASK, call("cat")], "tools": [GUESS]})
    assert row_problems(row) == ["message 2: agentgym__guess: 'cat' is too short"]


def entry(messages, response, tools=(GUESS,)):
    return {"request": {"messages": messages, "tools": list(tools)}, "response": response}


def test_an_appending_history_is_monotonic_and_a_compacted_one_is_not():
    first = [SYSTEM, TASK]
    second = [*first, call("crane"), result("g b b y b")]
    third = [*second, call("cloud"), result("g g b b b")]
    # the harness echoes a reply back with keys of its own (refusal, null content): not a rewrite
    echoed = {**call("crane"), "content": None, "refusal": None}
    calls = [
        entry(first, call("crane")),
        entry([*first, echoed, result("g b b y b")], call("cloud")),
        entry(third, {"role": "assistant", "content": "cocoa"}),
    ]
    assert history_rewrite(calls) is None
    # a side call with its own system prompt (a title for the chat) is another thread
    side = entry([{"role": "system", "content": "Name this chat."}, TASK], {"content": "Wordle"})
    assert history_rewrite([calls[0], side, *calls[1:]]) is None
    # compaction: the third request replaces the turns so far with a summary
    summary = {"role": "user", "content": "Summary: crane and cloud were guessed."}
    compacted = [*calls[:2], entry([SYSTEM, summary], call("cocoa"))]
    assert history_rewrite(compacted) == 2
    # an edited earlier turn (the harness rewrote a tool result) is a rewrite too
    edited = [calls[0], entry([*first, call("crane"), result("(trimmed)")], call("cloud"))]
    edited.append(entry([*first, call("crane"), result("g b b y b"), call("cloud")], None))
    assert history_rewrite(edited) == 2


def test_tool_call_rate_per_model_call():
    calls = [
        entry([SYSTEM, TASK], call("crane")),
        entry([SYSTEM, TASK], {"role": "assistant", "content": "I think crane."}),
        entry([SYSTEM, TASK], call("cat")),
        {"request": {"messages": [SYSTEM]}, "response": None, "error": "HTTP 500"},
        # a stream cut when the harness was stopped: never finished, not an answer
        {**entry([SYSTEM, TASK], {"content": None}), "stream": True, "finish_reason": None},
        {**entry([SYSTEM, TASK], call("crane")), "finish_reason": "tool_calls"},
    ]
    assert tool_call_stats(calls) == {
        "model_calls": 4,
        "tool_calls": 3,
        "valid_tool_calls": 2,
        "text_only": 1,
        "valid_rate": 2 / 4,
    }
    assert tool_call_stats([])["valid_rate"] is None
