"""Replies recorded from AgentGym's own SciWorld server, replayed through ``agentgym serve``.

The fixture (``scripts/golden/record_sciworld.py``; AgentGym 3ef9235, scienceworld 1.2.3) holds
AgentGym's ``/reset`` reply for the 200 test items and, for every fourth one, a transcript of
the gold path with random and hostile actions mixed in (mangled case, whitespace, quotes,
Unicode, control characters, junk, very long). AgentGym's server lists a room's objects in
its JVM's identity-hash order, ours in that of JVMs with constant hash codes (29 of the 200
first observations differ in order only), so observations are compared as multisets of lines
(each line a multiset of its words); task description, reward, score and done must be equal,
the reset's too (its ``look around`` already scores on 22 items, and the first step's reward
counts from that score). The suite replays a sample (the JVM makes every step slow), always
with a transcript whose reset scores; ``AGENTGYM_SCIWORLD_GOLDEN=all`` replays every item.
"""

from __future__ import annotations

import gzip
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

FIXTURE = Path(__file__).parents[2] / "fixtures" / "agentgym" / "sciworld.jsonl.gz"
#: items replayed in the suite: first observations, and transcripts (of those that have one)
SAMPLE_RESETS = 12
AGENTGYM_ITEMS = 4639  # AgentGym's SciWorld items (scienceworld 1.2.3)
SAMPLE_TRANSCRIPTS = 4


def load() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    text = gzip.decompress(FIXTURE.read_bytes()).decode("utf-8")
    header, *episodes = (json.loads(line) for line in text.split("\n") if line)
    return header, episodes


def canonical(text: str) -> Counter:
    """A text up to the order of its lines and of the words (and list commas) in each line."""
    return Counter(
        tuple(sorted(line.replace(",", " ").split())) for line in text.splitlines() if line.strip()
    )


def _sample(episodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if os.environ.get("AGENTGYM_SCIWORLD_GOLDEN") == "all":
        return episodes
    played = [e for e in episodes if e["steps"]]
    resets = [e for e in episodes if not e["steps"]]
    step = max(1, len(resets) // SAMPLE_RESETS)
    sample = (
        played[:: max(1, len(played) // SAMPLE_TRANSCRIPTS)][:SAMPLE_TRANSCRIPTS]
        + resets[::step][:SAMPLE_RESETS]
    )
    scoring = min((e for e in played if e["reset"]["score"]), key=lambda e: len(e["steps"]))
    return sample if scoring in sample else [scoring, *sample]


def differences(http: Any, episode: dict[str, Any]) -> list[str]:
    """How our server's replies differ from AgentGym's on one item (empty: none)."""
    sid = http.post("/create", json={}).json()["id"]
    try:
        want = episode["reset"]
        got = http.post("/reset", json={"id": sid, "data_idx": episode["item"]}).json()
        where = f"sciworld_{episode['item']}"
        if got.get("task_description") != want["task_description"]:
            return [f"{where} reset: task description {got.get('task_description')!r:.200}"]
        if canonical(got["observation"]) != canonical(want["observation"]):
            return [f"{where} reset: observation {got['observation']!r:.300}"]
        if (got.get("reward"), got.get("score"), got.get("done")) != (
            want["reward"],
            want["score"],
            want["done"],
        ):
            return [f"{where} reset: reward, score, done {got!r:.300}"]
        for n, (action, want) in enumerate(episode["steps"]):
            got = http.post("/step", json={"id": sid, "action": action}).json()
            if "error" in want:
                same = "error" in got
            else:
                same = canonical(got.get("observation", "")) == canonical(want["observation"]) and (
                    got.get("reward"),
                    got.get("score"),
                    got.get("done"),
                ) == (want["reward"], want["score"], want["done"])
            if not same:
                return [f"{where} step {n} {action!r:.80}: {got!r:.300} != {want!r:.300}"]
        return []
    finally:
        http.post("/close", json={"id": sid})


def test_fixture_covers_the_test_items_with_hostile_transcripts():
    header, episodes = load()
    assert header["family"] == "sciworld" and len(episodes) == 200
    assert len({e["item"] for e in episodes}) == 200
    actions = [a for e in episodes for a, _ in e["steps"]]
    assert len([e for e in episodes if e["steps"]]) >= 40
    assert any(not a.isascii() for a in actions) and "" in actions


def test_agentgym_replies_replay_order_insensitively():
    pytest.importorskip("uvicorn")
    httpx = pytest.importorskip("httpx")
    from agentgym_envs.envs.sciworld.java import check_java

    ok, message = check_java()
    if not ok:
        pytest.skip(message)
    from tests.server.conftest import running

    _, episodes = load()
    found: list[str] = []
    with running("SciWorld-v0") as url, httpx.Client(base_url=url, timeout=600) as http:
        for episode in _sample(episodes):
            found += differences(http, episode)
        # AgentGym's server indexes its Python list: a negative data_idx counts from the end
        last = episodes[-1]
        found += differences(http, {**last, "item": last["item"] - AGENTGYM_ITEMS, "steps": []})
    assert not found, "\n".join(found[:5])
