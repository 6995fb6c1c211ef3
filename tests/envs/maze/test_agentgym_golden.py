"""Replay transcripts recorded from AgentGym's own LMRL-Gym server on ``AgentGym/Maze-v0``.

The fixture (``scripts/golden/record_lmrlgym.py``) holds every start, odd actions, shortest
paths and one run to the engine cap; every observation must be byte-identical, and reward and
done equal at every step.
"""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest

import agentgym_envs  # noqa: F401  (registers the ids)
from agentgym_envs.errors import BadTaskError

FIXTURE = Path(__file__).parents[2] / "fixtures" / "agentgym" / "maze.json"
GOLDEN = json.loads(FIXTURE.read_text())
EPISODES = GOLDEN["episodes"]


def _env():
    # The engine cap is the env's own rule; replay on the env without gymnasium's TimeLimit.
    return gym.make("AgentGym/Maze-v0").unwrapped


def test_fixture_covers_every_start_and_the_cap():
    assert sorted({e["item"] for e in EPISODES}) == list(range(25))
    assert any(e["steps"][-1]["observation"] == "Failure\n" for e in EPISODES)
    assert GOLDEN["source"]["agentgym"] == "3ef9235" and GOLDEN["source"]["lmrlgym"] == "83abeed"


@pytest.mark.parametrize("episode", EPISODES, ids=lambda e: f"maze_{e['item']}-{len(e['steps'])}")
def test_transcript_is_agentgyms(episode):
    env = _env()
    split, task_id = env.tasks.locate(episode["reset_request"]["game"])
    obs, _ = env.reset(options={"split": split, "task_id": task_id})
    assert obs == episode["first_observation"]
    for n, step in enumerate(episode["steps"]):
        obs, reward, terminated, truncated, info = env.step(step["action"])
        got = (obs, info["agentgym_reward"], terminated or truncated)
        assert got == (step["observation"], step["reward"], step["done"]), f"step {n}"
        # Gymnasium's reward is AgentGym's except at the cap (-1 there, 0 here).
        assert reward == max(step["reward"], 0.0)
    assert env.step("move up")[4]["error"] == "episode has ended"


def test_available_actions_are_agentgyms():
    env = _env()
    env.reset(options={"split": "test", "task_id": 0})
    assert env.available_actions() == GOLDEN["available_actions"]


@pytest.mark.parametrize("case", GOLDEN["reset_errors"], ids=lambda c: str(c["reset_request"]))
def test_items_agentgym_cannot_reset_are_one_line_errors(case):
    assert "error" in case["reply"]
    with pytest.raises(BadTaskError) as err:
        _env().tasks.locate(case["reset_request"]["game"])
    assert "\n" not in str(err.value)


# -- through the HTTP server, as AgentGym's MazeEnvClient talks to it ------------------------


def _served_params():
    for episode in EPISODES:
        yield pytest.param(episode, id=f"maze_{episode['item']}-{len(episode['steps'])}")


@pytest.fixture(scope="module")
def maze_server():
    pytest.importorskip("uvicorn")
    from tests.server.conftest import running

    with running("Maze-v0") as url:
        yield url + "/maze"


@pytest.mark.parametrize("episode", _served_params())
def test_served_transcript_is_agentgyms(episode, maze_server):
    httpx = pytest.importorskip("httpx")
    with httpx.Client(base_url=maze_server) as http:
        sid = http.post("/create").json()["id"]
        assert (
            "error" not in http.post("/reset", json={"id": sid, **episode["reset_request"]}).json()
        )
        assert http.get("/observation", params={"id": sid}).json() == episode["first_observation"]
        for n, step in enumerate(episode["steps"]):
            reply = http.post("/step", json={"id": sid, "action": step["action"]}).json()
            got = (reply["observation"], reply["reward"], reply["done"])
            assert got == (step["observation"], step["reward"], step["done"]), f"step {n}"
