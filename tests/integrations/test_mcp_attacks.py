"""The MCP server over streamable HTTP attacked: a 100k-deep body, concurrent resets of one
episode, SIGINT with resets under way. A real uvicorn server, the official MCP client."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

import httpx
import pytest

pytest.importorskip("mcp")

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

from agentgym_envs.benchmarks.local_llm import free_port

ROUNDS = 6
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.fixture
def served(tmp_path):
    import uvicorn

    from agentgym_envs.integrations.mcp import EpisodeStore, http_app

    port = free_port()
    record = tmp_path / "episodes.jsonl"
    store = EpisodeStore("AgentGym/Maze-v0", record=record)
    server = uvicorn.Server(
        uvicorn.Config(http_app("AgentGym/Maze-v0", store=store), port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp", record
    server.should_exit = True
    thread.join(timeout=30)


def _records(path):
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def _session(url, body):
    async with streamablehttp_client(url) as (read, write, _), ClientSession(read, write) as s:
        await s.initialize()
        return await body(s)


def test_a_100k_deep_body_is_a_400_and_the_server_serves_on(served):
    url, _ = served
    for body in (
        b"[" * 100_000,
        b'{"jsonrpc": "2.0", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    ):
        reply = httpx.post(url, content=body, headers=HEADERS, timeout=60)  # no redirect to /mcp/
        assert reply.status_code == 400, reply.text[:200]
        assert "nested deeper" in reply.json()["error"]["message"]

    async def play(s):
        await s.call_tool("reset", {"task_id": 0})
        return await s.call_tool("act", {"action": "move up"})

    assert not asyncio.run(_session(url, play)).isError


def test_concurrent_resets_of_one_episode_record_it_once(served):
    url, record = served

    async def play(s):
        errors = []
        for _ in range(ROUNDS):
            await s.call_tool("reset", {"task_id": 3})
            for _ in range(2):
                await s.call_tool("act", {"action": "move up"})
            resets = await asyncio.gather(*(s.call_tool("reset", {"task_id": 4}) for _ in range(8)))
            errors += [r.isError for r in resets]
        return errors

    assert not any(asyncio.run(_session(url, play)))
    played = [r for r in _records(record) if r["steps"] == 2]
    assert len(played) == ROUNDS, _records(record)  # each played episode once


def test_sigint_with_resets_under_way_records_each_episode_once(tmp_path):
    port = free_port()
    record = tmp_path / "episodes.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentgym_envs.integrations.mcp", "Maze-v0"]
        + ["--transport", "http", "--port", str(port), "--record", str(record)],
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        for _ in range(600):
            try:
                httpx.get(url, timeout=5)
                break
            except httpx.TransportError:
                time.sleep(0.1)

        async def play(task_id, s):
            await s.call_tool("reset", {"task_id": task_id})
            await s.call_tool("act", {"action": "move up"})
            if task_id == 0:  # the last session to step: the signal goes now
                proc.send_signal(signal.SIGINT)
            try:
                await asyncio.gather(*(s.call_tool("reset", {"task_id": 9}) for _ in range(4)))
            except Exception:
                pass  # the server may be gone mid-call

        async def all_sessions():
            await asyncio.gather(
                *(_session(url, lambda s, t=t: play(t, s)) for t in (1, 2, 3)),
                return_exceptions=True,
            )
            await _session(url, lambda s: play(0, s))

        def client() -> None:
            try:
                asyncio.run(asyncio.wait_for(all_sessions(), timeout=300))
            except BaseException:
                pass

        # A client whose server went away mid-call may wait on it for ever (not under test
        # here): it plays in a thread of its own, and the test goes on once the server is gone.
        clients = threading.Thread(target=client, daemon=True)
        clients.start()
        assert proc.wait(timeout=300) is not None
        clients.join(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    played = Counter(r["item_id"] for r in _records(record) if r["steps"] == 1)
    assert set(played.values()) == {1}, played
    assert len(played) == 4
