"""The recording gateway's Anthropic Messages endpoint with the ``anthropic`` SDK as the client:
a Maze episode played to success with ``tool_use`` / ``tool_result`` blocks (tools over real
MCP, the expert behind the OpenAI upstream), streamed and not, recorded exactly as the OpenAI
route records (same session log, AgentTraj, chat and SFT records); Anthropic's event sequence
on the wire; bad bodies and upstream failures as Anthropic-shaped errors."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

pytest.importorskip("mcp")
anthropic = pytest.importorskip("anthropic")

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

from agentgym_envs.agents import ExpertChatServer
from agentgym_envs.datasets.harness import harness_sft_row, row_problems
from agentgym_envs.integrations.gateway import Gateway, create_app
from tests.integrations.test_gateway import _key, _read, _Running

MAZE = "AgentGym/Maze-v0"


@pytest.fixture(scope="module")
def expert():
    with ExpertChatServer([MAZE]) as server:
        yield server


def _client(base: str, session: str) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(
        base_url=f"{base}/s/{session}", api_key="harness-key", default_headers=_key(session)
    )


async def _episode(base: str, session: str, task_id: int, *, stream: bool) -> dict:
    """A tool-using harness speaking Anthropic's API: tools from MCP, the model through the
    gateway's ``/v1/messages``, system prompt as blocks, tool results as ``tool_result``."""
    model = _client(base, session)
    url = f"{base}/mcp?session={session}"
    async with (
        streamablehttp_client(url, headers=_key(session)) as (read, write, _),
        ClientSession(read, write) as mcp,
    ):
        await mcp.initialize()
        tools = [
            {"name": t.name, "description": t.description, "input_schema": t.inputSchema}
            for t in (await mcp.list_tools()).tools
            if t.name != "reset"
        ]
        first = await mcp.call_tool("reset", {"task_id": task_id})
        system = [
            {
                "type": "text",
                "text": "You are a maze-walking harness.",
                "cache_control": {"type": "ephemeral"},
            }
        ]
        messages = [{"role": "user", "content": first.content[0].text}]
        data = first.structuredContent
        for _ in range(40):
            args = {"model": "expert", "max_tokens": 512, "system": system}
            args.update(messages=messages, tools=tools)
            if stream:
                async with model.messages.stream(**args) as events:
                    reply = await events.get_final_message()
            else:
                reply = await model.messages.create(**args)
            messages.append(
                {"role": "assistant", "content": [b.model_dump() for b in reply.content]}
            )
            results = []
            for block in reply.content:
                if block.type != "tool_use":
                    continue
                assert reply.stop_reason == "tool_use"
                result = await mcp.call_tool(block.name, block.input)
                results.append(
                    {
                        "type": "tool_result",
                        "tool_use_id": block.id,
                        "content": result.content[0].text,
                    }
                )
                data = result.structuredContent
            if not results:
                break
            messages.append({"role": "user", "content": results})
            if data["terminated"]:
                break
        return data


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_a_tool_use_episode_through_messages_is_recorded_like_the_openai_route(
    stream, expert, tmp_path
):
    gateway = Gateway(MAZE, expert.base_url, tmp_path)
    with _Running(create_app(gateway)) as base:
        data = asyncio.run(_episode(base, "a", 2, stream=stream))
        assert data["success"]
        done = httpx.post(f"{base}/s/a/finish", headers=_key("a")).json()
    assert done["success"] is True and done["reward"] == 1.0
    calls = _read(tmp_path / "sessions" / "a.jsonl")
    assert done["model_calls"] == len(calls) == done["env_steps"]
    for call in calls:  # the chat-completion request that went upstream, as on the OpenAI route
        assert call["client_api"] == "anthropic-messages" and call["stream"] is stream
        assert call["request"]["messages"][0] == {
            "role": "system",
            "content": "You are a maze-walking harness.",
        }
        assert call["response"]["tool_calls"] and call["finish_reason"] == "tool_calls"
    chat = _read(tmp_path / "chat.jsonl")[0]
    tool_messages = [m for m in chat["messages"] if m["role"] == "tool"]
    assert len(tool_messages) == done["env_steps"] - 1
    assistant = [m for m in chat["messages"] if m["role"] == "assistant"]
    # each tool result answers the call before it, under the upstream's own call id
    assert [m["tool_call_id"] for m in tool_messages] == [
        m["tool_calls"][0]["id"] for m in assistant[:-1]
    ]
    assert {t["function"]["name"] for t in chat["tools"]} >= {"act", "move"}
    assert chat["monotonic"] is True  # the history the harness sent back is the one recorded
    assert row_problems(harness_sft_row(chat)) == []
    sft = _read(tmp_path / "sft.jsonl")[0]
    assert sft["reward"] == 1.0 and any(sft["loss_mask"])


def _events(base: str, body: dict) -> list[tuple[str, dict]]:
    """The raw server-sent events of a streamed Messages request."""
    out = []
    with httpx.stream("POST", f"{base}/s/raw/v1/messages", json=body, headers=_key("raw")) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        kind = None
        for line in r.iter_lines():
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:"):
                out.append((kind, json.loads(line[5:])))
    return out


def test_the_stream_is_anthropics_event_sequence_and_the_sdk_reads_text_and_counts(
    expert, tmp_path
):
    gateway = Gateway(MAZE, expert.base_url, tmp_path)
    with _Running(create_app(gateway)) as base:
        body = {
            "model": "expert",
            "max_tokens": 64,
            "stream": True,
            "system": "You are terse.",
            "messages": [{"role": "user", "content": "Say something."}],
        }
        events = _events(base, body)
        client = anthropic.Anthropic(
            base_url=f"{base}/s/sdk", api_key="k", default_headers=_key("sdk")
        )
        plain = client.messages.create(
            model="expert", max_tokens=64, messages=[{"role": "user", "content": "Say something."}]
        )
        counted = client.messages.count_tokens(
            model="expert", messages=[{"role": "user", "content": "Say something." * 40}]
        )
    kinds = [k for k, _ in events if k != "ping"]
    assert kinds == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert all(data["type"] == kind for kind, data in events)
    start = events[0][1]["message"]
    assert start["role"] == "assistant" and start["content"] == [] and start["model"] == "expert"
    block = next(d for k, d in events if k == "content_block_start")["content_block"]
    delta = next(d for k, d in events if k == "content_block_delta")["delta"]
    assert block == {"type": "text", "text": ""} and delta["type"] == "text_delta"
    assert delta["text"] == plain.content[0].text and plain.type == "message"
    ending = next(d for k, d in events if k == "message_delta")
    assert ending["delta"]["stop_reason"] == "end_turn" == plain.stop_reason
    assert ending["usage"]["output_tokens"] > 0 and plain.usage.input_tokens > 0
    assert counted.input_tokens > 100
    recorded = _read(tmp_path / "sessions" / "raw.jsonl")
    assert recorded[0]["request"]["messages"][0] == {"role": "system", "content": "You are terse."}


@pytest.mark.parametrize(
    "body,says",
    [
        ({"model": "expert", "max_tokens": 10}, "messages: field required"),
        ({"model": "expert", "messages": [{"role": "user", "content": "hi"}]}, "max_tokens"),
        (
            {"model": "expert", "max_tokens": 10, "messages": [{"role": "robot", "content": "x"}]},
            "messages.0.role",
        ),
        (
            {"model": "expert", "max_tokens": 10, "messages": [{"role": "user", "content": 7}]},
            "messages.0.content",
        ),
        ({"max_tokens": 10, "messages": [{"role": "user", "content": "x"}]}, "model"),
    ],
    ids=["no-messages", "no-max-tokens", "bad-role", "bad-content", "no-model"],
)
def test_a_bad_body_is_an_anthropic_shaped_400(body, says, expert, tmp_path):
    gateway = Gateway(MAZE, expert.base_url, tmp_path)
    with _Running(create_app(gateway)) as base:
        client = anthropic.Anthropic(
            base_url=f"{base}/s/bad", api_key="k", default_headers=_key("bad")
        )
        with pytest.raises(anthropic.BadRequestError) as caught:
            client.post("/v1/messages", body=body, cast_to=httpx.Response)
        raw = httpx.post(f"{base}/s/bad/v1/messages", content=b"{not json", headers=_key("bad"))
    error = caught.value.body
    assert error["type"] == "error" and error["error"]["type"] == "invalid_request_error"
    assert says in error["error"]["message"]
    assert raw.status_code == 400 and raw.json()["error"]["type"] == "invalid_request_error"
    assert not (tmp_path / "sessions" / "bad.jsonl").exists()  # nothing went upstream


def test_a_dead_upstream_is_an_anthropic_error_and_still_recorded(tmp_path):
    from agentgym_envs.benchmarks.local_llm import free_port

    gateway = Gateway(MAZE, f"http://127.0.0.1:{free_port()}/v1", tmp_path)
    with _Running(create_app(gateway)) as base:
        client = anthropic.Anthropic(
            base_url=f"{base}/s/dead", api_key="k", default_headers=_key("dead"), max_retries=0
        )
        args = {"model": "x", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}
        with pytest.raises(anthropic.APIStatusError) as caught:
            client.messages.create(**args)
        events = _events_of(base, "dead", {**args, "stream": True})
    assert caught.value.status_code == 502
    assert caught.value.body["error"]["type"] == "api_error"
    assert "unreachable" in caught.value.body["error"]["message"]
    assert [k for k, _ in events] == ["message_start", "error"]
    assert events[-1][1]["error"]["type"] == "api_error"
    calls = _read(tmp_path / "sessions" / "dead.jsonl")
    assert len(calls) == 2 and all(
        c["response"] is None and "unreachable" in c["error"] for c in calls
    )


def _events_of(base: str, session: str, body: dict) -> list[tuple[str, dict]]:
    out, kind = [], None
    url = f"{base}/s/{session}/v1/messages"
    with httpx.stream("POST", url, json=body, headers=_key(session)) as r:
        for line in r.iter_lines():
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:") and kind != "ping":
                out.append((kind, json.loads(line[5:])))
    return out


def test_the_translation_keeps_what_an_openai_upstream_can_take():
    from agentgym_envs.integrations import anthropic_wire as wire

    body = {
        "model": "m",
        "max_tokens": 9,
        "system": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}],
        "tools": [
            {"name": "f", "input_schema": {"type": "object"}},
            {"type": "web_search_20250305", "name": "web"},
        ],
        "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
        "stop_sequences": ["END"],
        "thinking": {"type": "enabled", "budget_tokens": 100},
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "system", "content": [{"type": "text", "text": "mid"}]},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "x", "signature": "s"},
                    {"type": "text", "text": "ok"},
                    {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "and"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [{"type": "text", "text": "done"}],
                    },
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": "AAA"},
                    },
                ],
            },
        ],
    }
    chat = wire.chat_request(body)
    assert chat["messages"] == [
        {"role": "system", "content": "one\n\ntwo"},
        {"role": "user", "content": "hi"},
        {"role": "system", "content": "mid"},
        {
            "role": "assistant",
            "content": "ok",
            "tool_calls": [
                {"id": "t1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "t1", "content": "done"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "and"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAA"}},
            ],
        },
    ]
    assert [t["function"]["name"] for t in chat["tools"]] == ["f"]
    assert (chat["tool_choice"], chat["parallel_tool_calls"], chat["stop"]) == (
        "required",
        False,
        ["END"],
    )
    assert "thinking" not in chat and chat["max_tokens"] == 9
    cut = {
        "choices": [{"message": {"content": "par"}, "finish_reason": "length"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 9},
    }
    reply = wire.message(cut, "m")
    assert reply["stop_reason"] == "max_tokens" and reply["usage"] == {
        "input_tokens": 3,
        "output_tokens": 9,
    }
    bad_args = {
        "choices": [
            {
                "message": {
                    "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{oops"}}]
                }
            }
        ]
    }
    assert wire.message(bad_args, "m")["content"] == [
        {"type": "tool_use", "id": "c", "name": "f", "input": {}}
    ]
