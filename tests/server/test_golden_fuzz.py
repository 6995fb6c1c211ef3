"""A differential fuzz against AgentGym's own servers, replayed through ``agentgym serve``.

``tests/fixtures/agentgym/fuzz_<family>.jsonl.gz`` (``scripts/golden/record_fuzz.py``) hold
a few hundred episodes per data-free family of random and hostile actions -- offered actions
as they are, mangled (case, whitespace, punctuation, quotes, accents, emoji and other Unicode,
control characters, very long) and junk -- at item indices inside and past the AgentEval
splits, with every reply of AgentGym's server. The same requests go to our server, and every
reply must hold the same fields with the same values: observations byte for byte.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from agentgym_envs.spec import FAMILIES
from tests.server.conftest import running

FIXTURES = Path(__file__).parents[1] / "fixtures" / "agentgym"
#: family -> served id
SERVED = {
    "maze": "Maze-v0",
    "wordle": "Wordle-v0",
    "babyai": "BabyAI-v0",
    "textcraft": "TextCraft-v0",
}


#: A difference left on purpose: after the step that crafts the goal, AgentGym's TextCraft
#: server goes on playing the finished game (``done`` false again); a Gymnasium env may not be
#: stepped past its end, so ours answers that the episode has ended. AgentGym's client stops at
#: ``done``, so no AgentGym episode sees it. (Maze, Wordle and BabyAI agree after the end too.)
PLAYS_ON_AFTER_DONE = {"textcraft"}
_ENV_ID = re.compile(r"environment \d+")


def _same(got: Any, want: Any) -> bool:
    """Equal, but for the session id an error names (the servers number sessions apart)."""
    if isinstance(got, dict) and isinstance(want, dict) and "error" in want:
        return _ENV_ID.sub("environment N", str(got.get("error"))) == _ENV_ID.sub(
            "environment N", want["error"]
        )
    return got == want


def load(family: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The fixture's header and episodes (lines split on ``\\n`` only: JSON escapes it)."""
    text = gzip.decompress((FIXTURES / f"fuzz_{family}.jsonl.gz").read_bytes()).decode("utf-8")
    header, *episodes = (json.loads(line) for line in text.split("\n") if line)
    return header, episodes


def _differences(family: str, episodes: list[dict[str, Any]]) -> list[str]:
    record = FAMILIES[family]
    found: list[str] = []
    with (
        running(SERVED[family]) as url,
        httpx.Client(base_url=url + record.wire.url_prefix) as http,
    ):
        sid = http.post("/create", json={}).json()["id"]
        for n, episode in enumerate(episodes):
            reply = http.post("/reset", json={"id": sid, **episode["reset"]}).json()
            if reply.get("observation") != episode["first"]:
                found.append(f"episode {n} {episode['reset']}: first observation {reply!r:.300}")
                continue
            for k, (action, want) in enumerate(episode["steps"]):
                got = http.post("/step", json={"id": sid, "action": action}).json()
                after_done = k > 0 and episode["steps"][k - 1][1].get("done")
                if after_done and family in PLAYS_ON_AFTER_DONE:
                    if got.get("info", {}).get("error") != "episode has ended":
                        found.append(f"episode {n} step {k}: not refused after the end: {got}")
                    break
                if not _same({key: got.get(key) for key in want}, want):
                    found.append(
                        f"episode {n} step {k} {action!r:.80}: {got!r:.300} != {want!r:.300}"
                    )
                    break
            else:
                if "vocab" in episode:
                    vocab = http.get("/filtered_vocab", params={"id": sid}).json()
                    if not _same(vocab, episode["vocab"]):
                        found.append(f"episode {n}: filtered_vocab {vocab} != {episode['vocab']}")
    return found


@pytest.mark.parametrize("family", sorted(SERVED))
def test_fuzz_fixture_is_hostile_enough(family):
    header, episodes = load(family)
    assert header["family"] == family and header["episodes"] == len(episodes) >= 200
    actions = [action for e in episodes for action, _ in e["steps"]]
    assert "" in actions
    assert any(not a.isascii() for a in actions) and any(len(a) > 1000 for a in actions)
    assert any(a != a.strip() for a in actions) and any(a.isupper() for a in actions)
    assert any(r.get("done") for e in episodes for _, r in e["steps"])


@pytest.mark.parametrize("family", sorted(SERVED))
def test_fuzz_replays_agentgyms_replies(family):
    if not FAMILIES[family].installed:
        pytest.skip(f"extra {FAMILIES[family].extra!r} not installed")
    _, episodes = load(family)
    found = _differences(family, episodes)
    steps = sum(len(e["steps"]) for e in episodes)
    assert not found, (
        f"{len(found)} of {len(episodes)} episodes ({steps} steps) differ:\n" + "\n".join(found[:5])
    )
