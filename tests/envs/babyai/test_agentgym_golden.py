"""Replay transcripts recorded from AgentGym's own BabyAI server on ``AgentGym/BabyAI-v0``.

The fixture (``scripts/golden/record_babyai.py``, AgentGym 3ef9235 on minigrid 2.3.1) holds the
first observations of 120 items (the 90 test items and 30 more) and full transcripts of 80
(our expert's actions with refused and odd actions mixed in, and random offered actions).
Every observation must be byte-identical, and reward, score and done equal at every step,
on the env and through ``agentgym serve``'s HTTP app.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import gymnasium as gym
import pytest

pytest.importorskip("minigrid")

import agentgym_envs  # noqa: F401  (registers the ids)

FIXTURE = Path(__file__).parents[2] / "fixtures" / "agentgym" / "babyai.json.gz"
GOLDEN = json.loads(gzip.decompress(FIXTURE.read_bytes()))
EPISODES = GOLDEN["episodes"]
TRANSCRIPTS = [e for e in EPISODES if e["steps"]]


def _env(**kwargs):
    return gym.make("AgentGym/BabyAI-v0", **kwargs).unwrapped


def _reset(env, item):
    split, task_id = env.tasks.locate(item)
    return env.reset(options={"split": split, "task_id": task_id})


def test_fixture_covers_the_test_items_and_30_more():
    items = {e["item"] for e in EPISODES}
    assert set(range(90)) <= items and len(items) == 120
    assert len(TRANSCRIPTS) == 80
    steps = [s for e in TRANSCRIPTS for s in e["steps"]]
    assert any(s["done"] for s in steps) and any(0 < s["reward"] <= 0.5 for s in steps)
    assert any(s["observation"].startswith("You cannot ") for s in steps)
    assert GOLDEN["source"]["agentgym"] == "3ef9235"


@pytest.mark.parametrize("episode", EPISODES, ids=lambda e: f"babyai_{e['item']}-{len(e['steps'])}")
def test_transcript_is_agentgyms(episode):
    env = _env(**episode["env_kwargs"])
    obs, info = _reset(env, episode["item"])
    assert obs == episode["first_observation"]
    for n, step in enumerate(episode["steps"]):
        obs, reward, terminated, truncated, info = env.step(step["action"])
        got = (obs, reward, info["score"], terminated or truncated)
        assert got == (step["observation"], step["reward"], step["score"], step["done"]), (
            f"step {n}"
        )
        assert info["success"] == step["done"]


def test_transcripts_through_the_http_server():
    pytest.importorskip("uvicorn")
    pytest.importorskip("fastapi")
    requests = pytest.importorskip("requests")
    from tests.server.conftest import running

    for kwargs in ({}, {"toggle_any": False}):
        episodes = [e for e in TRANSCRIPTS if e["env_kwargs"] == kwargs]
        with running("BabyAI-v0", env_kwargs=kwargs) as url:
            http = requests.Session()
            env_id = http.post(f"{url}/create", json={}).json()["id"]
            for episode in episodes:
                reply = http.post(
                    f"{url}/reset", json={"id": env_id, "data_idx": episode["item"]}
                ).json()
                assert reply["observation"] == episode["first_observation"]
                for n, step in enumerate(episode["steps"]):
                    reply = http.post(
                        f"{url}/step", json={"id": env_id, "action": step["action"]}
                    ).json()
                    want = {k: step[k] for k in ("observation", "reward", "score", "done")}
                    assert {k: reply[k] for k in want} == want, (episode["item"], n)
