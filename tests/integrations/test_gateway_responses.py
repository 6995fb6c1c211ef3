"""The recording gateway's Responses endpoint with the ``openai`` SDK's Responses client: a Maze
episode played to success with ``function_call`` / ``function_call_output`` items (tools over
real MCP, offered as Codex offers them: in a ``namespace``), streamed and not, recorded exactly
as the chat route records; the event stream the SDK reads; bad bodies and upstream failures as
clear errors."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

pytest.importorskip("mcp")
openai = pytest.importorskip("openai")

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

from agentgym_envs.agents.harness_expert import HarnessExpertServer
from agentgym_envs.datasets.harness import harness_sft_row, row_problems
from agentgym_envs.integrations.gateway import Gateway, create_app
from tests.integrations.test_gateway import _key, _read, _Running

MAZE = "AgentGym/Maze-v0"


@pytest.fixture(scope="module")
def expert():
    with HarnessExpertServer([MAZE]) as server:
        yield server


async def _episode(base: str, session: str, task_id: int, *, stream: bool) -> dict:
    """A harness speaking the Responses API: its env tools in a namespace (as Codex groups an
    MCP server's tools), calls answered with ``function_call_output`` items."""
    model = openai.AsyncOpenAI(
        base_url=f"{base}/s/{session}/v1", api_key="k", default_headers=_key(session)
    )
    url = f"{base}/mcp?session={session}"
    async with (
        streamablehttp_client(url, headers=_key(session)) as (read, write, _),
        ClientSession(read, write) as mcp,
    ):
        await mcp.initialize()
        inner = [
            {"type": "function", "name": t.name, "description": t.description}
            | {"parameters": t.inputSchema, "strict": False}
            for t in (await mcp.list_tools()).tools
            if t.name != "reset"
        ]
        tools = [
            {"type": "namespace", "name": "mcp__agentgym", "description": "env", "tools": inner}
        ]
        first = await mcp.call_tool("reset", {"task_id": task_id})
        items = [
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "Walk the maze."}],
            },
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": first.content[0].text}],
            },
        ]
        data = first.structuredContent
        for _ in range(40):
            args = {"model": "expert", "input": items, "tools": tools, "store": False}
            if stream:
                async with model.responses.stream(**args) as events:
                    reply = await events.get_final_response()
            else:
                reply = await model.responses.create(**args)
            calls = [o for o in reply.output if o.type == "function_call"]
            if not calls:
                break
            for call in calls:
                assert call.namespace == "mcp__agentgym"
                items.append(call.model_dump(exclude_none=True))
                result = await mcp.call_tool(call.name, json.loads(call.arguments))
                items.append(
                    {
                        "type": "function_call_output",
                        "call_id": call.call_id,
                        "output": result.content[0].text,
                    }
                )
                data = result.structuredContent
            if data["terminated"]:
                break
        return data


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_a_function_call_episode_through_responses_is_recorded_like_the_chat_route(
    stream, expert, tmp_path
):
    gateway = Gateway(MAZE, expert.base_url, tmp_path)
    with _Running(create_app(gateway)) as base:
        data = asyncio.run(_episode(base, "r", 2, stream=stream))
        assert data["success"]
        done = httpx.post(f"{base}/s/r/finish", headers=_key("r")).json()
    assert done["success"] is True and done["reward"] == 1.0
    calls = _read(tmp_path / "sessions" / "r.jsonl")
    assert done["model_calls"] == len(calls) == done["env_steps"]
    for call in calls:
        assert call["client_api"] == "responses" and call["stream"] is stream
        assert call["request"]["messages"][0] == {"role": "system", "content": "Walk the maze."}
        assert call["response"]["tool_calls"][0]["function"]["name"].startswith("mcp__agentgym__")
    chat = _read(tmp_path / "chat.jsonl")[0]
    assert {t["function"]["name"] for t in chat["tools"]} >= {
        "mcp__agentgym__act",
        "mcp__agentgym__move",
    }
    assistant = [m for m in chat["messages"] if m["role"] == "assistant"]
    tool_messages = [m for m in chat["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == [
        m["tool_calls"][0]["id"] for m in assistant[:-1]
    ]
    assert chat["monotonic"] is True
    assert row_problems(harness_sft_row(chat)) == []


def _events(base: str, session: str, body: dict) -> list[dict]:
    out = []
    url = f"{base}/s/{session}/v1/responses"
    with httpx.stream("POST", url, json=body, headers=_key(session)) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        for line in r.iter_lines():
            if line.startswith("data:"):
                out.append(json.loads(line[5:]))
    return out


def test_the_stream_is_the_responses_event_sequence(expert, tmp_path):
    gateway = Gateway(MAZE, expert.base_url, tmp_path)
    with _Running(create_app(gateway)) as base:
        events = _events(base, "s", {"model": "expert", "input": "Say something.", "stream": True})
        client = openai.OpenAI(base_url=f"{base}/s/p/v1", api_key="k", default_headers=_key("p"))
        plain = client.responses.create(
            model="expert", input="Say something.", instructions="Be terse."
        )
    kinds = [e["type"] for e in events]
    assert kinds == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    final = events[-1]["response"]
    assert final["status"] == "completed" and final["id"] == events[0]["response"]["id"]
    assert final["output"][0]["content"][0]["text"] == events[4]["delta"] == plain.output_text
    assert plain.usage.input_tokens > 0 and plain.status == "completed"
    recorded = _read(tmp_path / "sessions" / "p.jsonl")[0]["request"]
    assert recorded["messages"] == [
        {"role": "system", "content": "Be terse."},
        {"role": "user", "content": "Say something."},
    ]


def test_bad_bodies_and_a_dead_upstream_are_clear_errors(tmp_path):
    from agentgym_envs.benchmarks.local_llm import free_port

    gateway = Gateway(MAZE, f"http://127.0.0.1:{free_port()}/v1", tmp_path)
    with _Running(create_app(gateway)) as base:
        client = openai.OpenAI(
            base_url=f"{base}/s/d/v1", api_key="k", default_headers=_key("d"), max_retries=0
        )
        with pytest.raises(openai.BadRequestError) as bad:
            client.responses.create(
                model="x", input=[{"type": "message", "role": "robot", "content": "hi"}]
            )
        with pytest.raises(openai.APIStatusError) as dead:
            client.responses.create(model="x", input="hi")
        events = _events(base, "d", {"model": "x", "input": "hi", "stream": True})
    assert "input[0].role" in bad.value.body["message"]
    assert dead.value.status_code == 502 and "unreachable" in dead.value.body["message"]
    assert [e["type"] for e in events] == [
        "response.created",
        "response.in_progress",
        "response.failed",
    ]
    assert "unreachable" in events[-1]["response"]["error"]["message"]
    calls = _read(tmp_path / "sessions" / "d.jsonl")
    assert len(calls) == 2 and all(c["response"] is None for c in calls)


def test_a_custom_tool_is_a_one_string_function_and_its_call_comes_back_custom():
    from agentgym_envs.integrations import responses_wire as wire

    body = {
        "model": "m",
        "instructions": "sys",
        "tools": [
            {
                "type": "custom",
                "name": "apply_patch",
                "description": "patch",
                "format": {"type": "grammar"},
            },
            {"type": "web_search"},
        ],
        "input": [
            {"type": "message", "role": "user", "content": "go"},
            {"type": "reasoning", "summary": []},
            {
                "type": "custom_tool_call",
                "call_id": "c1",
                "name": "apply_patch",
                "input": "*** Begin",
            },
            {"type": "custom_tool_call_output", "call_id": "c1", "output": "ok"},
        ],
        "max_output_tokens": 7,
    }
    chat = wire.chat_request(body)
    assert chat["messages"] == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "apply_patch", "arguments": '{"input": "*** Begin"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]
    assert [t["function"]["name"] for t in chat["tools"]] == ["apply_patch"] and chat[
        "max_tokens"
    ] == 7
    upstream = {
        "choices": [
            {
                "message": {
                    "tool_calls": [
                        {
                            "id": "c2",
                            "function": {
                                "name": "apply_patch",
                                "arguments": '{"input": "*** End"}',
                            },
                        }
                    ]
                },
                "finish_reason": "tool_calls",
            }
        ]
    }
    item = wire.response(upstream, "m", wire.custom_tools(body))["output"][0]
    assert (item["type"], item["call_id"], item["name"], item["input"]) == (
        "custom_tool_call",
        "c2",
        "apply_patch",
        "*** End",
    )
