"""Both local model servers (transformers and llama.cpp, the real SmolLM2-135M on 127.0.0.1)
take what agent harnesses send: a system message as content parts, an assistant turn with only
tool calls and the tool results after it, ``tool_choice`` (none / required / a named function),
streamed tool calls that end with a finish reason, several tool calls in one reply, a reply
asked longer than the room left (cut to it), and a prompt too long for the window as a one-line
400."""

from __future__ import annotations

import json

import pytest

httpx = pytest.importorskip("httpx")

from agentgym_envs.benchmarks.hf_server import (
    _messages,
    offered_tools,
    parse_tool_calls,
    reply_message,
    reply_start,
)
from agentgym_envs.benchmarks.local_llm import LOCAL_MODEL_ALIAS, LocalLLMServer, runtime_missing

ACT = {
    "type": "function",
    "function": {
        "name": "act",
        "description": "Send one action to the game. It returns the next observation.",
        "parameters": {
            "type": "object",
            "properties": {"action": {"type": "string"}},
            "required": ["action"],
        },
    },
}
LOOK = {
    "type": "function",
    "function": {"name": "look", "description": "Look around.", "parameters": {"type": "object"}},
}
HARNESS_TURNS = [
    {"role": "system", "content": [{"type": "text", "text": "You are a harness. Use tools."}]},
    {"role": "user", "content": [{"type": "text", "text": "Play: you are in a room."}]},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "look", "arguments": "{}"}},
            {
                "id": "c2",
                "type": "function",
                "function": {"name": "act", "arguments": '{"action": "go north"}'},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "A door to the north."},
    {"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "You win."}]},
]


@pytest.fixture(scope="module", params=["transformers", "llama.cpp"])
def server(request):
    reason = runtime_missing(request.param)
    if reason:
        pytest.skip(reason)
    with LocalLLMServer(runtime=request.param, n_ctx=1024, startup_timeout=900) as running:
        yield running


def _post(server, **body):
    body = {"model": LOCAL_MODEL_ALIAS, "temperature": 0, "max_tokens": 24} | body
    return httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=900)


def test_a_harness_conversation_with_content_parts_and_tool_turns_is_answered(server):
    r = _post(server, messages=HARNESS_TURNS, tools=[ACT, LOOK])
    assert r.status_code == 200, r.text
    choice = r.json()["choices"][0]
    assert choice["finish_reason"] in ("stop", "length", "tool_calls")
    assert r.json()["usage"]["prompt_tokens"] > 50


@pytest.mark.parametrize("choice", ["required", {"type": "function", "function": {"name": "act"}}])
def test_tool_choice_makes_the_reply_a_call(server, choice):
    r = _post(server, messages=HARNESS_TURNS[:2], tools=[ACT, LOOK], tool_choice=choice)
    assert r.status_code == 200, r.text
    reply = r.json()["choices"][0]
    if reply["finish_reason"] != "tool_calls":  # the model broke the call off (no grammar)
        assert reply["message"]["content"].startswith('{"name": "')
        return
    called = [c["function"]["name"] for c in reply["message"]["tool_calls"]]
    assert called and set(called) <= ({"act"} if isinstance(choice, dict) else {"act", "look"})
    assert all(
        isinstance(json.loads(c["function"]["arguments"]), dict)
        for c in reply["message"]["tool_calls"]
    )


def test_tool_choice_none_offers_no_tools_and_a_bad_one_is_400(server):
    r = _post(server, messages=HARNESS_TURNS[:2], tools=[ACT], tool_choice="none")
    assert r.status_code == 200 and "tool_calls" not in r.json()["choices"][0]["message"]
    bad = _post(server, messages=HARNESS_TURNS[:2], tools=[ACT], tool_choice={"function": {}})
    assert bad.status_code == 400 and "tool_choice" in bad.json()["error"]["message"]


def test_a_streamed_tool_call_ends_with_its_finish_reason(server):
    body = {
        "model": LOCAL_MODEL_ALIAS,
        "messages": HARNESS_TURNS[:2],
        "tools": [ACT],
        "tool_choice": {"type": "function", "function": {"name": "act"}},
        "temperature": 0,
        "max_tokens": 48,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    with httpx.stream("POST", f"{server.base_url}/chat/completions", json=body, timeout=900) as r:
        assert r.status_code == 200
        lines = [x for x in r.iter_lines() if x.startswith("data: ")]
    assert lines[-1] == "data: [DONE]"
    chunks = [json.loads(x[6:]) for x in lines[:-1]]
    last = chunks[-1]["choices"][0]
    assert last["finish_reason"] in ("tool_calls", "stop", "length") and chunks[-1]["usage"]
    calls = [c for ch in chunks for c in ch["choices"][0]["delta"].get("tool_calls") or []]
    if last["finish_reason"] == "tool_calls":
        assert calls[0]["index"] == 0 and calls[0]["function"]["name"] == "act"
        assert isinstance(json.loads(calls[0]["function"]["arguments"]), dict)
    else:  # the model broke the call off: its text, begun as the call, is the reply
        text = "".join(ch["choices"][0]["delta"].get("content") or "" for ch in chunks)
        assert text.startswith('{"name": "act", "arguments": ') and not calls


def test_a_prompt_too_long_for_the_window_is_a_400_that_says_so(server):
    long = [{"role": "user", "content": "word " * 1500}]
    r = _post(server, messages=long)
    assert r.status_code == 400
    message = r.json()["error"]["message"]
    assert "exceed context window of 1024" in message and "prompt alone" in message
    assert "\n" not in message
    # a reply asked for more than the room left gets the room left (Hermes asks for 64K)
    fits = _post(server, messages=[{"role": "user", "content": "Hi"}], max_tokens=65536)
    assert fits.status_code == 200, fits.text  # and the server lives on
    usage = fits.json()["usage"]
    assert usage["prompt_tokens"] + usage["completion_tokens"] <= 1024


def test_several_calls_in_a_reply_are_parallel_calls_unless_refused():
    text = '{"name": "look", "arguments": {}}\n{"name": "act", "arguments": {"action": "up"}}'
    calls = parse_tool_calls(text, [ACT, LOOK])
    assert [c["function"]["name"] for c in calls] == ["look", "act"]
    assert json.loads(calls[1]["function"]["arguments"]) == {"action": "up"}
    listed = parse_tool_calls('[{"name": "act", "arguments": "{\\"action\\": \\"x\\"}"}]', [ACT])
    assert json.loads(listed[0]["function"]["arguments"]) == {"action": "x"}
    assert parse_tool_calls('{"name": "fly"} {"broken": ', [ACT]) == []
    assert parse_tool_calls('{"name": "act", "arguments": 1}', [ACT]) == []
    message, finish = reply_message(text, "stop", {}, [ACT, LOOK])
    assert finish == "tool_calls" and len(message["tool_calls"]) == 2
    one, _ = reply_message(text, "stop", {"parallel_tool_calls": False}, [ACT, LOOK])
    assert [c["function"]["name"] for c in one["tool_calls"]] == ["look"]


def test_requests_are_read_as_harnesses_send_them():
    tools, forced = offered_tools({"tools": [ACT, LOOK], "tool_choice": "auto"})
    assert (len(tools), forced) == (2, None)
    assert offered_tools({"tools": [ACT], "tool_choice": "none"}) == ([], None)
    assert offered_tools({"tools": [ACT, LOOK], "tool_choice": "required"})[1] == ""
    named = {"type": "function", "function": {"name": "look"}}
    assert offered_tools({"tools": [ACT, LOOK], "tool_choice": named}) == ([LOOK], "look")
    with pytest.raises(ValueError, match="tool_choice"):
        offered_tools({"tools": [ACT], "tool_choice": {"type": "function", "function": {}}})
    assert reply_start("act") == '{"name": "act", "arguments": '
    messages = _messages(
        {"messages": [{"role": "developer", "content": "Be brief."}, *HARNESS_TURNS[1:]]}, [ACT]
    )
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "user"]
    assert messages[0]["content"].startswith("Be brief.\n\nYou can call these functions.")
    assert messages[2]["content"].splitlines() == [
        '{"name": "look", "arguments": {}}',
        '{"name": "act", "arguments": {"action": "go north"}}',
    ]
    assert messages[4]["content"] == "You win."


def test_llama_cpp_returns_logprobs_and_token_ids_when_asked(server):
    if server.runtime != "llama.cpp":
        pytest.skip("the transformers runtime's token ids are another change's")
    messages = [{"role": "user", "content": "Say one word."}]
    r = _post(server, messages=messages, logprobs=True, top_logprobs=2, return_token_ids=True)
    data = r.json()
    choice = data["choices"][0]
    assert len(data["prompt_token_ids"]) == data["usage"]["prompt_tokens"]
    assert len(choice["token_ids"]) == data["usage"]["completion_tokens"]
    content = choice["logprobs"]["content"]
    assert len(content) == len(choice["token_ids"])
    assert all(c["logprob"] <= 0 and len(c["top_logprobs"]) == 2 for c in content)
    assert "".join(c["token"] for c in content).strip() == choice["message"]["content"].strip()
    plain = _post(server, messages=messages).json()
    assert "logprobs" not in plain["choices"][0] and "prompt_token_ids" not in plain


class _SlowModel:
    """Stands in for a model that takes its time over a long prompt (the real one's speed
    depends on the machine); its reply is a real completion of the server's shape."""

    alias = LOCAL_MODEL_ALIAS

    def complete(self, request):
        import time

        time.sleep(1.5)
        if request.get("bad"):
            raise ValueError("found bad late")
        message = {"role": "assistant", "content": "done"}
        return {
            "id": "chatcmpl-slow",
            "object": "chat.completion",
            "created": 0,
            "model": self.alias,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }


def test_a_slow_streamed_reply_keeps_the_connection_alive(monkeypatch):
    from fastapi.testclient import TestClient

    from agentgym_envs.benchmarks import hf_server

    monkeypatch.setattr(hf_server, "STREAM_WAIT", 0.1)
    monkeypatch.setattr(hf_server, "KEEPALIVE", 0.2)
    client = TestClient(hf_server.build_app(_SlowModel()))
    body = {"model": LOCAL_MODEL_ALIAS, "messages": [{"role": "user", "content": "Hi"}]}
    with client.stream("POST", "/v1/chat/completions", json={**body, "stream": True}) as r:
        assert r.status_code == 200
        lines = [x for x in r.iter_lines() if x]
    assert lines[0] == ": keep-alive" and lines.count(": keep-alive") >= 2
    data = [json.loads(x[6:]) for x in lines if x.startswith("data: {")]
    assert data[0]["choices"][0]["delta"]["content"] == "done"
    assert data[-1]["choices"][0]["finish_reason"] == "stop" and lines[-1] == "data: [DONE]"
    with client.stream(
        "POST", "/v1/chat/completions", json={**body, "stream": True, "bad": 1}
    ) as r:
        late = [x for x in r.iter_lines() if x.startswith("data: ")]
    assert json.loads(late[0][6:])["error"]["message"] == "found bad late"
    assert late[-1] == "data: [DONE]"
    plain = client.post("/v1/chat/completions", json=body).json()  # no stream: no keep-alive
    assert plain["choices"][0]["message"]["content"] == "done"


def test_a_server_wide_reply_cap_reaches_both_runtimes(tmp_path):
    from pathlib import Path

    for runtime in ("transformers", "llama.cpp"):
        if runtime_missing(runtime):
            continue
        server = LocalLLMServer(Path("model.gguf"), runtime=runtime, port=1, max_tokens=7)
        command = server.command()
        assert command[command.index("--max_tokens") + 1] == "7"
        assert "--max_tokens" not in LocalLLMServer(Path("m.gguf"), runtime=runtime).command()
