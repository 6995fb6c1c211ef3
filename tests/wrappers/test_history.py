"""Chat history as OpenAI messages, windowed, and fresh on every reset."""

from __future__ import annotations

import json

import pytest

from agentgym_envs import make_llm_env
from agentgym_envs.wrappers import ChatHistory, FunctionCalling, ReAct
from tests.wrappers.fakes import CounterEnv


def test_react_conversation_messages() -> None:
    env = ChatHistory(ReAct(CounterEnv(), parser="strict"))
    _, info = env.reset(options={"split": "test", "task_id": 1})
    assert [m["role"] for m in info["messages"]] == ["system", "user"]
    assert info["messages"][0]["content"] == info["instructions"]
    assert info["messages"][1]["content"] == "Count to 3. Count: 0"
    _, _, _, _, info = env.step("Thought: up\nAction: inc")
    _, _, _, _, info = env.step("oops")
    assert info["messages"][2:] == [
        {"role": "assistant", "content": "Thought: up\nAction: inc"},
        {"role": "user", "content": "Count: 1"},
        {"role": "assistant", "content": "oops"},
        {"role": "user", "content": "Invalid Action.\n\nCount: 1"},
    ]


def test_agentgym_layout_with_user_instructions() -> None:
    env = ChatHistory(ReAct(CounterEnv()), instructions_role="user")
    _, info = env.reset(options={"split": "test", "task_id": 1})
    assert [(m["role"], m["content"][:5]) for m in info["messages"]] == [
        ("user", "Count"),
        ("assistant", "Ok."),
        ("user", "Count"),
    ]


def test_bare_env_history() -> None:
    env = ChatHistory(CounterEnv())
    _, info = env.reset(options={"split": "test", "task_id": 1})
    assert info["messages"] == [{"role": "user", "content": "Count to 3. Count: 0"}]


def test_tool_calls_become_assistant_tool_calls_and_tool_messages() -> None:
    env = ChatHistory(FunctionCalling(CounterEnv()))
    env.reset(options={"split": "test", "task_id": 1})
    _, _, _, _, info = env.step(
        {
            "role": "assistant",
            "content": "Pressing.",
            "tool_calls": [
                {
                    "id": "abc",
                    "type": "function",
                    "function": {"name": "press", "arguments": '{"button": "inc"}'},
                }
            ],
        }
    )
    assistant, tool = info["messages"][2:]
    assert assistant["role"] == "assistant" and assistant["content"] == "Pressing."
    assert assistant["tool_calls"][0]["id"] == "abc"
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"button": "inc"}
    assert tool == {"role": "tool", "tool_call_id": "abc", "content": "Count: 1"}
    _, _, _, _, info = env.step(
        '{"name": "pres", "arguments": {}}'
    )  # bad call: still answered by id
    assistant, tool = info["messages"][4:]
    assert assistant["content"] is None and tool["tool_call_id"] == assistant["tool_calls"][0]["id"]
    assert tool["content"].startswith("Invalid tool call")
    _, _, _, _, info = env.step("I do not know")  # no call at all: plain text turn
    assert info["messages"][6:] == [
        {"role": "assistant", "content": "I do not know"},
        {"role": "user", "content": "Invalid tool call: the reply has no tool call"},
    ]


def test_window_keeps_task_messages_and_last_k_turns() -> None:
    env = ChatHistory(ReAct(CounterEnv()), window=2)
    env.reset(options={"split": "test", "task_id": 2})
    for i in range(4):
        _, _, _, _, info = env.step(f"Thought: {i}\nAction: noop")
    contents = [m["content"] for m in info["messages"]]
    assert contents[1] == "Count to 4. Count: 0" and len(contents) == 2 + 2 * 2
    assert contents[2:] == [
        "Thought: 2\nAction: noop",
        "Count: 0",
        "Thought: 3\nAction: noop",
        "Count: 0",
    ]
    env = ChatHistory(ReAct(CounterEnv()), window=0)
    env.reset(options={"split": "test", "task_id": 2})
    assert len(env.step("Action: noop")[4]["messages"]) == 2


def test_history_does_not_leak_across_resets() -> None:
    env = make_llm_env("AgentGym/Maze-v0")
    _, first = env.reset(options={"split": "test", "task_id": 0})
    for _ in range(3):
        _, _, _, _, info = env.step("Thought: t\nAction: move up")
    old = info["messages"]
    assert len(old) == 8
    _, info = env.reset(options={"split": "test", "task_id": 5})
    assert len(info["messages"]) == 2
    assert info["messages"][1]["content"] == info["env_observation"] != first["env_observation"]
    assert all("move up" not in str(m["content"]) for m in info["messages"][1:])
    env.step("Thought: t\nAction: move down")
    assert len(old) == 8  # lists handed out earlier are copies, never mutated


def test_messages_are_copies() -> None:
    env = ChatHistory(ReAct(CounterEnv()))
    _, info = env.reset(options={"split": "test", "task_id": 1})
    info["messages"][0]["content"] = "tampered"
    info["messages"].append({"role": "user", "content": "x"})
    assert env.messages[0]["content"] != "tampered" and len(env.messages) == 2


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True])
def test_bad_window_is_named(bad) -> None:
    with pytest.raises(ValueError, match=f"window must be None or an int >= 0, got {bad!r}"):
        ChatHistory(CounterEnv(), window=bad)
    with pytest.raises(ValueError, match="'assistant'"):
        ChatHistory(CounterEnv(), instructions_role="assistant")


def test_tool_call_messages_are_copies() -> None:
    env = ChatHistory(FunctionCalling(CounterEnv()))
    env.reset(options={"split": "test", "task_id": 1})
    _, _, _, _, info = env.step({"name": "press", "arguments": {"button": "inc"}})
    info["messages"][2]["tool_calls"][0]["function"]["name"] = "tampered"
    assert env.messages[2]["tool_calls"][0]["function"]["name"] == "press"
