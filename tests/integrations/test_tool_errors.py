"""A model reads only the text (#32.4): an invalid action's reason (``info["error"]``) is in
MCP's text result and in TRL's ``act`` return, as the ReAct wrappers put it; and a standalone
MCP server over HTTP binds ``?session=`` keys to their token (#31.1)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

import agentgym_envs

pytest.importorskip("mcp")

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

from agentgym_envs.benchmarks.local_llm import free_port
from agentgym_envs.integrations.ownership import TOKEN_HEADER


def _error_of(action: str) -> str:
    env = agentgym_envs.make("AgentGym/Maze-v0")
    env.reset(seed=0, options={"task_id": 0, "split": "test"})
    _, _, _, _, info = env.step(action)
    assert info.get("error"), info
    return info["error"]


@pytest.fixture(scope="module")
def mcp_url():
    import uvicorn

    from agentgym_envs.integrations.mcp import http_app

    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(http_app("AgentGym/Maze-v0"), port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    server.should_exit = True
    thread.join(timeout=15)


async def _calls(url: str, headers: dict, calls: list[tuple[str, dict]]):
    async with (
        streamablehttp_client(url, headers=headers) as (read, write, _),
        ClientSession(read, write) as mcp,
    ):
        await mcp.initialize()
        return [await mcp.call_tool(name, args) for name, args in calls]


def test_mcp_text_result_carries_the_error(mcp_url):
    _, bad = asyncio.run(
        _calls(mcp_url, {}, [("reset", {"task_id": 0}), ("act", {"action": "fly away"})])
    )
    assert not bad.isError
    assert f"Error: {_error_of('fly away')}" in bad.content[0].text
    assert bad.structuredContent["error"] == _error_of("fly away")


def test_trl_act_carries_the_error():
    from agentgym_envs.integrations.trl import environment_class

    env = environment_class("AgentGym/Maze-v0")()
    env.reset(task_id=0, split="test")
    assert f"Error: {_error_of('fly away')}" in env.act("fly away")
    assert "Error:" not in env.act("move up")


def test_mcp_session_keys_belong_to_their_token(mcp_url):
    url = f"{mcp_url}?session=shared"
    mine = {TOKEN_HEADER: "mine-0123456789abcdef"}
    (first,) = asyncio.run(_calls(url, mine, [("reset", {"task_id": 0})]))
    assert not first.isError
    (other,) = asyncio.run(
        _calls(url, {TOKEN_HEADER: "theirs-0123456789abc"}, [("act", {"action": "move up"})])
    )
    assert other.isError and TOKEN_HEADER in other.content[0].text
    (bare,) = asyncio.run(_calls(url, {}, [("act", {"action": "move up"})]))
    assert bare.isError and TOKEN_HEADER in bare.content[0].text
    (again,) = asyncio.run(_calls(url, mine, [("act", {"action": "move up"})]))
    assert not again.isError and again.structuredContent["steps"] == 1
