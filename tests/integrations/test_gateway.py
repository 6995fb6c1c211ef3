"""The recording gateway with the ``openai`` client as the harness: the expert behind the
OpenAI interface (full episodes to success, over MCP and over the env HTTP path) and the local
model (streaming); bad input gets clear errors and the recordings stay whole."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import httpx
import pytest

pytest.importorskip("mcp")
openai = pytest.importorskip("openai")

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

from agentgym_envs.agents import ExpertChatServer
from agentgym_envs.benchmarks.local_llm import free_port
from agentgym_envs.integrations.gateway import Gateway, create_app
from agentgym_envs.integrations.ownership import TOKEN_HEADER


def _key(session: str) -> dict[str, str]:
    """The harness's secret for ``session`` (sent on every request: the gateway binds the
    session to it on the first)."""
    return {TOKEN_HEADER: f"secret-of-{session}-0123456789"}


class _Running:
    def __init__(self, app):
        import uvicorn

        self.port = free_port()
        self.server = uvicorn.Server(uvicorn.Config(app, port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self):
        self.thread.start()
        while not self.server.started:
            time.sleep(0.05)
        return f"http://127.0.0.1:{self.port}"

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(timeout=15)


@pytest.fixture(scope="module")
def expert():
    with ExpertChatServer(["AgentGym/Maze-v0", "AgentGym/BabyAI-v0"]) as server:
        yield server


def _read(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


async def _mcp_harness(base: str, session: str, task_id: int) -> dict:
    """A tool-calling harness: tools from MCP, the model through the gateway."""
    model = openai.AsyncOpenAI(
        base_url=f"{base}/s/{session}/v1", api_key="none", default_headers=_key(session)
    )
    url = f"{base}/mcp?session={session}"
    async with (
        streamablehttp_client(url, headers=_key(session)) as (read, write, _),
        ClientSession(read, write) as mcp,
    ):
        await mcp.initialize()
        tools = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.inputSchema,
                },
            }
            for t in (await mcp.list_tools()).tools
            if t.name != "reset"
        ]
        first = await mcp.call_tool("reset", {"task_id": task_id})
        messages = [
            {"role": "system", "content": "You are a maze-walking harness."},
            {"role": "user", "content": first.content[0].text},
        ]
        data = first.structuredContent
        for _ in range(40):
            reply = await model.chat.completions.create(
                model="expert", messages=messages, tools=tools
            )
            message = reply.choices[0].message
            messages.append(message.model_dump(exclude_none=True))
            for call in message.tool_calls or []:
                result = await mcp.call_tool(
                    call.function.name, json.loads(call.function.arguments)
                )
                messages.append(
                    {"role": "tool", "tool_call_id": call.id, "content": result.content[0].text}
                )
                data = result.structuredContent
            if data["terminated"]:
                break
        return data


def test_mcp_harness_sessions_become_scored_trajectories(expert, tmp_path):
    gateway = Gateway("AgentGym/Maze-v0", expert.base_url, tmp_path)
    with _Running(create_app(gateway)) as base:

        async def two():
            return await asyncio.gather(_mcp_harness(base, "a", 2), _mcp_harness(base, "b", 9))

        first, second = asyncio.run(two())
        assert first["success"] and second["success"]
        done = httpx.post(f"{base}/s/a/finish", headers=_key("a")).json()
        assert done["success"] is True and done["reward"] == 1.0
        again = httpx.post(f"{base}/s/a/finish", headers=_key("a"))
        assert again.status_code == 409 and "already finished" in again.json()["error"]["message"]
        unknown = httpx.post(f"{base}/s/nobody/finish")
        assert (
            unknown.status_code == 404 and "unknown session" in unknown.json()["error"]["message"]
        )
        late = httpx.post(
            f"{base}/s/a/v1/chat/completions",
            json={"model": "x", "messages": []},
            headers=_key("a"),
        )
        assert late.status_code == 409
    # the shutdown wrote the session left open ("b")
    records = {r["session"]: r for r in _read(tmp_path / "agenttraj.jsonl")}
    assert set(records) == {"a", "b"} and all(r["success"] for r in records.values())
    rec = records["a"]
    assert rec["item_id"].startswith("maze_") and rec["model_calls"] == len(
        _read(tmp_path / "sessions" / "a.jsonl")
    )
    assert rec["env_steps"] == rec["model_calls"]
    assert rec["conversations"][0]["from"] == "human"
    gpt = [t for t in rec["conversations"] if t["from"] == "gpt"]
    assert len(gpt) == rec["env_steps"] and "move" in gpt[0]["value"]
    chat = {r["session"]: r for r in _read(tmp_path / "chat.jsonl")}
    assert chat["a"]["messages"][0]["role"] == "system"
    assert any(m.get("tool_calls") for m in chat["a"]["messages"])
    assert {t["function"]["name"] for t in chat["a"]["tools"]} >= {"act", "move"}
    sft = {r["session"]: r for r in _read(tmp_path / "sft.jsonl")}
    assert len(sft["b"]["messages"]) == len(sft["b"]["loss_mask"]) and any(sft["b"]["loss_mask"])


def test_http_env_harness_and_bad_input(expert, tmp_path):
    gateway = Gateway("AgentGym/BabyAI-v0", expert.base_url, tmp_path)
    with _Running(create_app(gateway)) as base:
        model = openai.OpenAI(
            base_url=f"{base}/s/h1/v1", api_key="none", default_headers=_key("h1")
        )
        env = httpx.Client(base_url=f"{base}/s/h1/env", headers=_key("h1"))
        early = env.post("/step", json={"action": "turn left"})
        assert early.status_code == 404 and "call reset first" in early.json()["error"]["message"]
        obs = env.post("/reset", json={"task_id": 4}).json()
        messages = [{"role": "user", "content": obs["observation"]}]
        data = obs
        for _ in range(30):
            reply = model.chat.completions.create(model="expert", messages=messages)
            text = reply.choices[0].message.content
            messages.append({"role": "assistant", "content": text})
            data = env.post("/step", json={"action": text.split("Action:")[-1].strip()}).json()
            messages.append({"role": "user", "content": data["observation"]})
            if data["done"]:
                break
        assert data["success"]
        bad = env.post("/step", json={"act": 1})
        assert bad.status_code == 400 and "action" in bad.json()["error"]["message"]
        assert httpx.post(f"{base}/v1/chat/completions", content=b"{nope").status_code == 400
        assert httpx.post(f"{base}/s/bad name!/finish").status_code in (400, 404)
        record = httpx.post(f"{base}/s/h1/finish", headers=_key("h1")).json()
    assert record["success"] and record["item_id"].startswith("babyai_")
    lines = (tmp_path / "agenttraj.jsonl").read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["session"] == "h1"


@pytest.fixture(scope="module")
def local_llm():
    from agentgym_envs.benchmarks.local_llm import LocalLLMServer, local_llm_available

    reason = local_llm_available()
    if reason:
        pytest.skip(reason)
    with LocalLLMServer() as server:
        yield server


def test_streaming_through_the_gateway_is_recorded(local_llm, tmp_path):
    gateway = Gateway("AgentGym/Maze-v0", local_llm.base_url, tmp_path)
    with _Running(create_app(gateway)) as base:
        env = httpx.Client(base_url=f"{base}/s/s1/env", headers=_key("s1"))
        obs = env.post("/reset", json={"task_id": 0}).json()
        model = openai.OpenAI(
            base_url=f"{base}/s/s1/v1", api_key="none", default_headers=_key("s1")
        )
        stream = model.chat.completions.create(
            model="any",
            messages=[{"role": "user", "content": obs["observation"]}],
            stream=True,
            max_tokens=24,
        )
        text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
        env.post("/step", json={"action": "move down"})
    log = _read(tmp_path / "sessions" / "s1.jsonl")
    assert len(log) == 1 and log[0]["stream"] is True
    assert log[0]["response"]["content"] == text and text
    record = _read(tmp_path / "agenttraj.jsonl")[0]
    assert record["session"] == "s1" and record["success"] is False and record["env_steps"] == 1
    assert record["conversations"][-1] == {"from": "gpt", "loss": True, "value": text}


def test_a_dead_upstream_is_a_clear_error_and_still_recorded(tmp_path):
    gateway = Gateway("AgentGym/Maze-v0", f"http://127.0.0.1:{free_port()}/v1", tmp_path)
    with _Running(create_app(gateway)) as base:
        model = openai.OpenAI(
            base_url=f"{base}/s/d1/v1", api_key="none", max_retries=0, default_headers=_key("d1")
        )
        with pytest.raises(openai.APIStatusError) as caught:
            model.chat.completions.create(model="x", messages=[{"role": "user", "content": "hi"}])
        assert caught.value.status_code == 502 and "unreachable" in str(caught.value)
        bad = httpx.post(
            f"{base}/s/d1/v1/chat/completions", json={"model": "x"}, headers=_key("d1")
        )
        assert bad.status_code == 400 and "'messages'" in bad.json()["error"]["message"]
    log = _read(tmp_path / "sessions" / "d1.jsonl")
    assert len(log) == 1 and log[0]["response"] is None and "unreachable" in log[0]["error"]
