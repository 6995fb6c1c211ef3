"""The MCP server driven by the official MCP client library: stdio and streamable HTTP."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import threading
import time

import gymnasium as gym
import pytest

pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client

from agentgym_envs.benchmarks.local_llm import free_port
from agentgym_envs.spec import expert_policy


def _mirror(env_id: str, task_id: int):
    """A local copy of the task and its expert, to choose the moves the client sends."""
    env = gym.make(env_id)
    obs, info = env.reset(seed=0, options={"task_id": task_id, "split": "test"})
    return env, expert_policy(env), obs, info


async def _play(session: ClientSession, env_id: str, task_id: int, use_family_tool: bool):
    env, expert, obs, info = _mirror(env_id, task_id)
    result = await session.call_tool("reset", {"task_id": task_id, "split": "test"})
    assert not result.isError
    assert obs in result.content[0].text
    data = result.structuredContent
    for _ in range(60):
        action = expert(obs, info)
        if use_family_tool and action.startswith("move "):
            result = await session.call_tool("move", {"direction": action.split()[1]})
        else:
            result = await session.call_tool("act", {"action": action})
        assert not result.isError, result.content[0].text
        obs, _, terminated, _, info = env.step(action)
        assert result.content[0].text == obs  # the server's env is in step with the mirror
        data = result.structuredContent
        if terminated:
            break
    return data


async def _stdio_episode(env_id: str, task_id: int, record: str) -> tuple[dict, list[str], str]:
    if env_id.endswith("Maze-v0"):  # through the console script
        command, args = shutil.which("agentgym") or "agentgym", ["mcp", env_id]
    else:
        command, args = sys.executable, ["-m", "agentgym_envs.integrations.mcp", env_id]
    params = StdioServerParameters(command=command, args=[*args, "--record", record])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = [t.name for t in (await session.list_tools()).tools]
        early = await session.call_tool("act", {"action": "look"})
        assert early.isError and "call reset first" in early.content[0].text
        data = await _play(session, env_id, task_id, use_family_tool=True)
        bad = await session.call_tool("nosuchtool", {})
        assert bad.isError and "unknown tool" in bad.content[0].text
        after = await session.call_tool("act", {"action": "look"})
        return data, tools, after.content[0].text


@pytest.mark.parametrize(
    ("env_id", "task_id"), [("AgentGym/Maze-v0", 3), ("AgentGym/TextCraft-v0", 1)]
)
def test_stdio_full_episode_to_success(env_id, task_id, tmp_path):
    record = tmp_path / "episodes.jsonl"
    data, tools, after = asyncio.run(_stdio_episode(env_id, task_id, str(record)))
    assert {"reset", "act"} <= set(tools)
    assert data["terminated"] and data["success"] and data["score"] > 0
    assert "has ended" in after
    lines = record.read_text().splitlines()
    assert len(lines) == 1
    rec = json.loads(lines[0])
    assert rec["success"] is True and rec["steps"] == data["steps"]
    assert rec["conversations"][0]["from"] == "human"
    assert sum(t["from"] == "gpt" for t in rec["conversations"]) == data["steps"] + 1  # + "Ok."


@pytest.fixture(scope="module")
def http_server():
    import uvicorn

    from agentgym_envs.integrations.mcp import EpisodeStore, http_app

    port = free_port()
    store = EpisodeStore("AgentGym/Maze-v0")
    server = uvicorn.Server(
        uvicorn.Config(http_app("AgentGym/Maze-v0", store=store), port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp", store
    server.should_exit = True
    thread.join(timeout=10)


async def _http_session(url: str, env_id: str, task_id: int) -> dict:
    async with streamablehttp_client(url) as (read, write, _), ClientSession(read, write) as s:
        await s.initialize()
        bad = await s.call_tool("move", {"direction": "sideways"})
        assert bad.isError  # before reset
        await s.call_tool("reset", {"task_id": task_id})
        typed = await s.call_tool("move", {"direction": 5})  # breaks the tool's JSON schema
        assert typed.isError and "not of type 'string'" in typed.content[0].text
        wrong = await s.call_tool("move", {"direction": "sideways"})
        assert wrong.isError or "Invalid tool call" in wrong.content[0].text
        return await _play(s, env_id, task_id, use_family_tool=True)


def test_http_sessions_are_isolated(http_server):
    url, store = http_server

    async def both():
        return await asyncio.gather(
            _http_session(url, "AgentGym/Maze-v0", 0), _http_session(url, "AgentGym/Maze-v0", 7)
        )

    first, second = asyncio.run(both())
    assert first["success"] and second["success"]
    assert first["episode"] != second["episode"]
    assert {e.info["task_id"] for e in store.episodes.values()} >= {0, 7}


def test_a_clean_session_end_logs_no_error(http_server, caplog):
    """mcp 1.x logs a ClosedResourceError traceback from its standalone SSE writer when a
    client ends its session (DELETE) with its GET stream open; the server drops just that
    record (2.x catches the error itself)."""
    import logging

    url, _ = http_server

    async def session():
        async with streamablehttp_client(url) as (read, write, _), ClientSession(read, write) as s:
            await s.initialize()
            await s.call_tool("reset", {"task_id": 0})

    with caplog.at_level(logging.DEBUG, logger="mcp.server.streamable_http"):
        asyncio.run(session())
        deadline = time.monotonic() + 120  # the writer's teardown ends after the client's exit
        while "Closing standalone SSE writer" not in caplog.text:
            assert time.monotonic() < deadline, caplog.text
            time.sleep(0.05)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


def test_the_teardown_filter_drops_only_the_closed_stream_error():
    import logging

    import anyio

    from agentgym_envs.integrations.mcp_sdk import _TeardownNoise

    def record(message: str, error: BaseException) -> logging.LogRecord:
        info = (type(error), error, None)
        return logging.LogRecord("mcp.server.streamable_http", 40, "", 0, message, (), info)

    noise = _TeardownNoise()
    assert not noise.filter(record("Error in standalone SSE writer", anyio.ClosedResourceError()))
    assert noise.filter(record("Error in standalone SSE writer", ValueError("bad event")))
    assert noise.filter(record("Error in standalone SSE response", anyio.ClosedResourceError()))
