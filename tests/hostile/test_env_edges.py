"""Envs and env servers attacked at their edges (#31.8): numbers JSON has no room for in tool
calls, BIRD actions with nothing to run, TextCraft options of the wrong type, a negative shop
seed, and endless chunked bodies after the 413 (real uvicorn servers, raw sockets)."""

from __future__ import annotations

import httpx
import pytest

import agentgym_envs
from agentgym_envs.errors import BadTaskError
from tests.raw_http import endless_chunks, send_raw

TOOL_ENVS = {
    "AgentGym/Weather-v0": "get_historical_temp",
    "AgentGym/Movie-v0": "get_movie_details",
    "AgentGym/Academia-v0": "paperNodeCheck",
    "AgentGym/Sheet-v0": "open_sheet",
    "AgentGym/TODOList-v0": "get_tasks",
}


@pytest.mark.parametrize("env_id", sorted(TOOL_ENVS))
@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_tool_calls_with_numbers_json_cannot_hold_are_feedback(env_id, value):
    env = agentgym_envs.make(env_id)
    env.reset(seed=0, options={"task_id": 0, "split": "test"})
    tool = env.unwrapped.toolkit[TOOL_ENVS[env_id]]
    args = ", ".join(f'"{name}": {value}' for name in tool.argument_names)
    obs, reward, terminated, _, info = env.step(
        f"Action: {tool.name} with Action Input: {{{args}}}"
    )
    assert not terminated and reward == 0
    if value != "1e999":  # AgentGym's eval reads 1e999 (as inf) and the tool answers it
        assert "ERROR" in obs
    if "ERROR" in obs:
        assert info["error"], info


@pytest.mark.parametrize("action", ["", "   \n", "\x00", " \x00 "])
def test_bird_actions_with_nothing_to_run_say_why(action):
    env = agentgym_envs.make("AgentGym/BIRD-v0")
    env.reset(seed=0, options={"task_id": 0, "split": "test"})
    obs, reward, terminated, _, info = env.step(action)
    # AgentGym's server ends here with "[]" (tests/fixtures/agentgym/sqlgym.json): kept, and
    # the reason is in info["error"]
    assert (obs, reward, terminated) == ("[]", 0.0, True)
    assert info["error"] == "no SQL query in the action"


@pytest.mark.parametrize("action", [5, None, ["SELECT 1"], {"sql": "SELECT 1"}])
def test_bird_actions_that_are_not_text_are_feedback(action):
    env = agentgym_envs.make("AgentGym/BIRD-v0")
    env.reset(seed=0, options={"task_id": 0, "split": "test"})
    obs, _, terminated, _, info = env.step(action)
    assert not terminated and obs != "[]" and info["error"]
    assert env.step("SELECT 1")[2]  # the episode goes on to a real answer


@pytest.mark.parametrize("options", ["task_id=3", [1, 2], 5])
def test_textcraft_reset_options_must_be_a_dict(options):
    env = agentgym_envs.make("AgentGym/TextCraft-v0")
    with pytest.raises(BadTaskError, match="must be a dict"):
        env.reset(seed=0, options=options)


def test_shop_seed_range_and_endless_form_bodies():
    pytest.importorskip("fastapi")
    from agentgym_envs.envs.webshop.web import ShopServer

    with ShopServer() as url:
        assert httpx.get(f"{url}/start", params={"seed": -1}).status_code == 400
        assert httpx.get(f"{url}/start", params={"seed": 2**70}).status_code == 400
        started = httpx.get(f"{url}/start", params={"seed": 3})
        sid = started.headers["location"].rsplit("/", 1)[1]
        port = int(url.rsplit(":", 1)[1])
        head = (
            f"POST /session/{sid}/search HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\n"
            "Transfer-Encoding: chunked\r\n\r\n"
        ).encode()
        reply, sent = send_raw(port, head, endless_chunks())
        assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
        assert sent < 64 << 20  # not read to the end: the connection was closed
        assert httpx.get(f"{url}/session/{sid}").status_code == 200


def test_serve_closes_the_connection_after_a_413():
    from tests.server.conftest import running

    with running("Maze-v0") as url:
        port = int(url.rsplit(":", 1)[1])
        head = (
            b"POST /step HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        reply, sent = send_raw(port, head, endless_chunks())
        assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
        assert b"connection: close" in reply.lower()
        assert sent < 64 << 20
        assert httpx.get(f"{url}/").status_code == 200
