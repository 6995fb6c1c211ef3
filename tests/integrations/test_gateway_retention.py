"""Bounded session state in the recording gateway and the MCP-over-HTTP server: a real uvicorn
server on 127.0.0.1 in front of the expert's real OpenAI-compatible endpoint, the MCP client
library as the harness. A finished session leaves nothing in memory, an idle one expires (its
record written, its claim released) and a full gateway says so."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest

pytest.importorskip("mcp")

from agentgym_envs.agents import ExpertChatServer
from agentgym_envs.integrations.gateway import Gateway, create_app
from agentgym_envs.integrations.harnesses.runner import ServedApp
from agentgym_envs.integrations.mcp import EpisodeStore, http_app
from agentgym_envs.integrations.ownership import TOKEN_HEADER
from tests.integrations.test_tool_errors import _calls as _mcp


def _key(name: str) -> dict[str, str]:
    return {TOKEN_HEADER: f"secret-of-{name}-0123456789"}


def _post(base: str, name: str, path: str, body: dict | None = None) -> httpx.Response:
    return httpx.post(f"{base}/s/{name}/{path}", json=body or {}, headers=_key(name), timeout=60)


def _chat(base: str, name: str) -> httpx.Response:
    body = {"model": "expert", "messages": [{"role": "user", "content": "hi"}]}
    return _post(base, name, "v1/chat/completions", body)


def _read(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _wait_until(check, seconds: float = 60.0) -> None:
    """Poll ``check`` until it holds (the idle sweep runs every quarter timeout)."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "the idle sweep never came"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def expert():
    with ExpertChatServer(["AgentGym/Maze-v0"]) as server:
        yield server


def test_a_finished_session_leaves_nothing_in_memory(expert, tmp_path):
    gateway = Gateway("AgentGym/Maze-v0", expert.base_url, tmp_path)
    with ServedApp(create_app(gateway)) as served:
        base = served.url
        assert _post(base, "done", "env/reset", {"task_id": 0}).status_code == 200
        assert _post(base, "done", "env/step", {"action": "move up"}).status_code == 200
        assert _chat(base, "done").status_code == 200
        record = _post(base, "done", "finish")
        assert record.status_code == 200 and record.json()["env_steps"] == 1
        # its log, episode and claim are gone
        assert "done" not in gateway.sessions and "done" not in gateway.store.episodes
        assert "done" not in gateway.store.claims and len(gateway.store.claims) == 0
        # the name stays refused, whoever asks
        for late in (
            _chat(base, "done"),
            _post(base, "done", "env/step", {"action": "move up"}),
            _post(base, "done", "env/reset"),
            httpx.post(f"{base}/s/done/finish"),
        ):
            assert late.status_code == 409, late.text
            assert "already finished" in late.json()["error"]["message"]
        # a step on a session no one opened claims nothing
        ghost = _post(base, "ghost", "env/step", {"action": "move up"})
        assert ghost.status_code == 404 and "reset" in ghost.json()["error"]["message"]
        assert len(gateway.store.claims) == 0 and not gateway.sessions
    assert [r["session"] for r in _read(tmp_path / "agenttraj.jsonl")] == ["done"]


def test_idle_sessions_expire_and_are_written(expert, tmp_path):
    idle = 4.0
    gateway = Gateway("AgentGym/Maze-v0", expert.base_url, tmp_path, idle_timeout=idle)
    with ServedApp(create_app(gateway)) as served:
        base = served.url
        assert _post(base, "left", "env/reset", {"task_id": 0}).status_code == 200
        assert _post(base, "left", "env/step", {"action": "move up"}).status_code == 200
        assert _chat(base, "left").status_code == 200
        assert _post(base, "empty", "env/reset", {"task_id": 1}).status_code == 200
        # a session in use does not expire: a request every half second for twice the timeout
        started = time.monotonic()
        while time.monotonic() - started < 2 * idle:
            assert _chat(base, "busy").status_code == 200
            time.sleep(0.5)
        claims = gateway.store.claims
        _wait_until(lambda: "left" not in claims and "empty" not in claims)
        assert "busy" in gateway.sessions
        assert not ({"left", "empty"} & (set(gateway.sessions) | set(gateway.store.episodes)))
        late = _post(base, "left", "env/step", {"action": "move down"})
        assert late.status_code == 409 and "expired" in late.json()["error"]["message"]
        # the session that was played is written as it stood, the empty one is not
        records = {r["session"]: r for r in _read(tmp_path / "agenttraj.jsonl")}
        assert set(records) == {"left"}
        assert records["left"]["expired"] is True and records["left"]["env_steps"] == 1
        assert records["left"]["model_calls"] == 1


def test_a_full_gateway_refuses_new_sessions_until_one_ends(expert, tmp_path):
    gateway = Gateway(
        "AgentGym/Maze-v0", expert.base_url, tmp_path, max_sessions=2, max_sessions_per_client=2
    )
    with ServedApp(create_app(gateway)) as served:
        base = served.url
        # chat-only sessions count as much as ones with an episode
        assert _chat(base, "one").status_code == 200
        assert _chat(base, "two").status_code == 200
        for attempt in (_chat(base, "three"), _post(base, "three", "env/reset")):
            assert attempt.status_code == 429, attempt.text
            assert "in use" in attempt.json()["error"]["message"]
        assert "three" not in gateway.sessions
        assert _chat(base, "one").status_code == 200  # open sessions go on
        assert _post(base, "one", "finish").status_code == 200
        assert _chat(base, "three").status_code == 200


def test_a_full_gateway_expires_idle_sessions_to_make_room(expert, tmp_path):
    """No server (so no periodic sweep): the new session's own request expires the idle one."""
    gateway = Gateway(
        "AgentGym/Maze-v0", expert.base_url, tmp_path, max_sessions=1, idle_timeout=1.0
    )
    claims = gateway.store.claims
    claims.claim("old", "token-of-old", "10.0.0.1")
    gateway.session("old").append({"request": {"messages": []}, "response": None})
    time.sleep(1.5)
    assert claims.claim("new", "token-of-new", "10.0.0.2") == "token-of-new"
    assert "old" not in claims and "old" not in gateway.sessions
    assert _read(tmp_path / "agenttraj.jsonl")[0]["expired"] is True


def test_mcp_http_episodes_and_claims_expire(tmp_path):
    record = tmp_path / "episodes.jsonl"
    store = EpisodeStore("AgentGym/Maze-v0", record=record, idle_timeout=2.0, max_episodes=2)
    with ServedApp(http_app("AgentGym/Maze-v0", store=store)) as served:
        url = f"{served.url}/mcp?session=kept"
        # acting on a key no one reset claims nothing
        (early,) = asyncio.run(_mcp(url, _key("kept"), [("act", {"action": "move up"})]))
        assert early.isError and "call reset first" in early.content[0].text
        assert len(store.claims) == 0
        reset, step = asyncio.run(
            _mcp(url, _key("kept"), [("reset", {"task_id": 0}), ("act", {"action": "move up"})])
        )
        assert not reset.isError and not step.isError
        assert "kept" in store.episodes and "kept" in store.claims
        _wait_until(lambda: not store.episodes and len(store.claims) == 0)
        # its record was written when it was closed; the key is free again
        assert [r["steps"] for r in _read(record)] == [1]
        (again,) = asyncio.run(_mcp(url, _key("other"), [("reset", {"task_id": 1})]))
        assert not again.isError


def test_a_full_mcp_http_server_says_so(tmp_path):
    store = EpisodeStore("AgentGym/Maze-v0", max_episodes=2, max_per_client=2)
    with ServedApp(http_app("AgentGym/Maze-v0", store=store)) as served:
        results = [
            asyncio.run(_mcp(f"{served.url}/mcp?session={n}", _key(n), [("reset", {})]))[0]
            for n in ("a", "b", "c")
        ]
        assert [r.isError for r in results] == [False, False, True]
        assert "in use" in results[2].content[0].text
        assert len(store.claims) == 2
