"""Replay transcripts recorded from AgentGym's own LMRL-Gym server on ``AgentGym/Wordle-v0``.

The fixture (``scripts/golden/record_lmrlgym.py``) holds the 25 test seeds played by a
planner with invalid words mixed in, a few train seeds, a lost game and a game of invalid
words. Every observation must be byte-identical, reward and done equal at every step, and the
words still possible equal to the server's ``/filtered_vocab`` after every step.
"""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest

import agentgym_envs  # noqa: F401  (registers the ids)

FIXTURE = Path(__file__).parents[2] / "fixtures" / "agentgym" / "wordle.json"
GOLDEN = json.loads(FIXTURE.read_text())
EPISODES = GOLDEN["episodes"]


def _env():
    return gym.make("AgentGym/Wordle-v0").unwrapped


def test_fixture_covers_the_test_split():
    env = _env()
    test_items = {env.tasks.agentgym_index("test", i) for i in range(env.tasks.size("test"))}
    assert test_items <= {e["item"] for e in EPISODES} and len(test_items) == 25
    assert GOLDEN["source"]["agentgym"] == "3ef9235" and GOLDEN["source"]["lmrlgym"] == "83abeed"


def test_vocabulary_is_agentgyms():
    env = _env()
    assert env.filtered_vocab == GOLDEN["initial_filtered_vocab"]
    assert list(env.vocabulary) == GOLDEN["initial_filtered_vocab"]


@pytest.mark.parametrize("episode", EPISODES, ids=lambda e: f"wordle_{e['item']}")
def test_transcript_is_agentgyms(episode):
    env = _env()
    split, task_id = env.tasks.locate(episode["reset_request"]["seed"])
    obs, _ = env.reset(options={"split": split, "task_id": task_id})
    assert obs == episode["first_observation"]
    for n, step in enumerate(episode["steps"]):
        obs, reward, terminated, truncated, info = env.step(step["action"])
        got = (obs, reward, terminated or truncated)
        assert got == (step["observation"], step["reward"], step["done"]), f"step {n}"
        if "filtered_vocab" in step:
            assert env.filtered_vocab == step["filtered_vocab"], f"step {n}"
    assert info["success"] == (episode["steps"][-1]["reward"] == 1.0)


# -- through the HTTP server, as AgentGym's WordleEnvClient talks to it ----------------------


@pytest.fixture(scope="module")
def wordle_server():
    pytest.importorskip("uvicorn")
    from tests.server.conftest import running

    with running("Wordle-v0") as url:
        yield url + "/wordle"


@pytest.mark.parametrize("episode", EPISODES, ids=lambda e: f"wordle_{e['item']}")
def test_served_transcript_is_agentgyms(episode, wordle_server):
    httpx = pytest.importorskip("httpx")
    with httpx.Client(base_url=wordle_server) as http:
        sid = http.post("/create").json()["id"]
        vocab = http.get("/filtered_vocab", params={"id": sid}).json()
        assert vocab == GOLDEN["initial_filtered_vocab"]
        assert (
            "error" not in http.post("/reset", json={"id": sid, **episode["reset_request"]}).json()
        )
        assert http.get("/observation", params={"id": sid}).json() == episode["first_observation"]
        for n, step in enumerate(episode["steps"]):
            reply = http.post("/step", json={"id": sid, "action": step["action"]}).json()
            got = (reply["observation"], reply["reward"], reply["done"])
            assert got == (step["observation"], step["reward"], step["done"]), f"step {n}"
            if "filtered_vocab" in step:
                vocab = http.get("/filtered_vocab", params={"id": sid}).json()
                assert vocab == step["filtered_vocab"], f"step {n}"
