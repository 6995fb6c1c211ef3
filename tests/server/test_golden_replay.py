"""Golden transcripts recorded from AgentGym's own servers, replayed through ``agentgym serve``.

``tests/fixtures/agentgym/<family>.json[.gz]`` hold AgentGym's replies (made by the
``scripts/golden/record_*.py`` scripts); here the same requests go to our server, with the
family's own request keys, and every reply must carry the same observation, reward and done,
plus the family's extras (BabyAI's ``score``, Wordle's ``/filtered_vocab`` after each step).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from agentgym_envs.spec import FAMILIES
from tests.server.conftest import running

FIXTURES = Path(__file__).parents[1] / "fixtures" / "agentgym"
#: fixture file -> (family, served id)
GOLDEN = {
    "maze.json": ("maze", "Maze-v0"),
    "wordle.json": ("wordle", "Wordle-v0"),
    "babyai.json.gz": ("babyai", "BabyAI-v0"),
    "textcraft.json.gz": ("textcraft", "TextCraft-v0"),
    "sqlgym.json": ("sql", "BIRD-v0"),
}


def _load(name: str) -> dict[str, Any]:
    path = FIXTURES / name
    if not path.exists():
        pytest.skip(f"no fixture {name}")
    opener = gzip.open if name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def _first_observation(reply: Any, http: httpx.Client, key: str, sid: int) -> str:
    if isinstance(reply, list):  # family B: [observation, null]
        return reply[0]
    if isinstance(reply, dict):
        return reply["observation"]
    return http.get("/observation", params={key: sid}).json()


@pytest.mark.parametrize("fixture", sorted(GOLDEN))
def test_agentgym_transcripts_through_the_server(fixture):
    family, env_id = GOLDEN[fixture]
    record = FAMILIES[family]
    if not record.installed:
        pytest.skip(f"extra {record.extra!r} not installed")
    data = _load(fixture)
    episodes = [e for e in data["episodes"] if e.get("steps")]
    assert episodes
    key = "id" if record.wire.kind == "A" else "env_idx"
    replayed = 0
    with running(env_id) as url, httpx.Client(base_url=url + record.wire.url_prefix) as http:
        created = http.post("/create", json={}).json()
        sid = created["id"] if isinstance(created, dict) else created
        for episode in episodes:
            reset = http.post("/reset", json={key: sid, **episode["reset_request"]}).json()
            assert _first_observation(reset, http, key, sid) == episode["first_observation"]
            for n, step in enumerate(episode["steps"]):
                reply = http.post("/step", json={key: sid, "action": step["action"]}).json()
                where = (episode["item"], n, step["action"])
                observation = reply.get("observation", reply.get("state"))
                assert observation == step["observation"], where
                assert (reply["reward"], reply["done"]) == (step["reward"], step["done"]), where
                if "score" in step:
                    assert reply["score"] == pytest.approx(step["score"]), where
                if "filtered_vocab" in step:
                    vocab = http.get("/filtered_vocab", params={key: sid}).json()
                    assert vocab == step["filtered_vocab"], where
            replayed += 1
    assert replayed == len(episodes)
