"""The one conversation model: chat messages and AgentTraj turns from the same episode."""

from __future__ import annotations

import json

import pytest

from agentgym_envs.wrappers.conversation import Conversation, Message, reply_text

INFO = {"instructions": "Do the task.", "ack": "Sure.", "first_turn": "Rules.\nStart here."}


def test_opening_layouts() -> None:
    user = Conversation.start("raw obs", INFO)
    assert user.messages() == [
        {"role": "user", "content": "Do the task."},
        {"role": "assistant", "content": "Sure."},
        {"role": "user", "content": "Rules.\nStart here."},
    ]
    system = Conversation.start("raw obs", INFO, layout="system", system="Be brief.")
    assert [m["role"] for m in system.messages()] == ["system", "system", "user"]
    assert (
        Conversation.start("raw obs", {"instructions": "x"}, ack=None).opening[1].content == "Ok."
    )
    assert Conversation.start("raw obs", {}).messages() == [{"role": "user", "content": "raw obs"}]
    with pytest.raises(ValueError, match="'assistant'"):
        Conversation.start("o", INFO, layout="assistant")


def test_window_keeps_the_opening_and_the_last_exchanges() -> None:
    conv = Conversation.start("o", INFO)
    for i in range(4):
        conv.add(f"Action: {i}", f"obs {i}")
    assert len(conv) == 4 and len(conv.messages()) == 3 + 8
    last = conv.messages(1)
    assert last[:3] == conv.messages()[:3]
    assert last[3:] == [
        {"role": "assistant", "content": "Action: 3"},
        {"role": "user", "content": "obs 3"},
    ]
    assert conv.messages(0) == conv.messages()[:3]


def test_agenttraj_turns_and_tool_calls() -> None:
    conv = Conversation.start("o", INFO)
    calls = [
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}},
        {"id": "b", "type": "function", "function": {"name": "g", "arguments": "{}"}},
    ]
    conv.add({"role": "assistant", "content": "Calling.", "tool_calls": calls}, "result", calls)
    chat = conv.messages()
    assert chat[3]["tool_calls"] == calls and chat[3]["content"] == "Calling."
    assert [(m["role"], m.get("tool_call_id")) for m in chat[4:]] == [("tool", "a"), ("tool", "b")]
    turns = conv.agenttraj()
    assert turns[1] == {"from": "gpt", "loss": False, "value": "Sure."}
    assert turns[3]["value"].splitlines() == [
        "Calling.",
        json.dumps({"name": "f", "arguments": {"x": 1}}),
        json.dumps({"name": "g", "arguments": {}}),
    ]
    assert turns[4] == {"from": "human", "loss": None, "value": "result\nresult"}


def test_messages_are_copies_and_round_trip() -> None:
    conv = Conversation.start("o", INFO)
    conv.messages()[0]["content"] = "changed"
    assert conv.messages()[0]["content"] == "Do the task."
    for turn in conv.agenttraj():
        assert Message.from_turn(turn).turn() == turn
    assert Message.from_chat({"role": "assistant", "content": "x"}).loss is True
    assert reply_text({"a": 1}) == '{"a": 1}' and reply_text("t") == "t"


def test_replies_before_answers() -> None:
    conv = Conversation.start("o", INFO)
    conv.add_reply(Message("assistant", "Action: go", True))
    conv.add_answer("moved")
    conv.add_reply(
        Message.from_chat({"role": "assistant", "content": None, "tool_calls": [{"id": "c"}]})
    )
    conv.add_answer("tool said", ["c"])
    assert [m["role"] for m in conv.messages()[3:]] == ["assistant", "user", "assistant", "tool"]
