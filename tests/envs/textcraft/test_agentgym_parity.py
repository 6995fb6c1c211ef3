"""Golden transcripts from AgentGym's TextCraft server (``scripts/golden/record_textcraft.py``),
run on CPython 3.11 and on CPython 3.9, replayed on our env: identical first observations, step
texts, rewards and done flags; and the hash order of AgentGym's command sets checked against a
CPython run with ``PYTHONHASHSEED=0``."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentgym_envs.envs.textcraft.hashorder import HashOrderedSet, siphash, str_hash

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "agentgym"
#: AgentGym's server on CPython 3.11 (the default) and on CPython 3.9 (AgentGym's README setup).
RECORDINGS = {"siphash13": "textcraft.json.gz", "siphash24": "textcraft_siphash24.json.gz"}


def _load(string_hash: str) -> dict:
    return json.loads(gzip.decompress((FIXTURES / RECORDINGS[string_hash]).read_bytes()))


@pytest.fixture(scope="module", params=sorted(RECORDINGS))
def recorded(request):
    pytest.importorskip("minecraft_data")
    from agentgym_envs.envs.textcraft.env import TextCraftEnv

    kwargs = {} if request.param == "siphash13" else {"string_hash": request.param}
    return TextCraftEnv(**kwargs), _load(request.param)


@pytest.mark.parametrize("string_hash", sorted(RECORDINGS))
def test_fixture_source_and_size(string_hash):
    source = _load(string_hash)["source"]
    assert source["agentgym"] == "3ef9235" and "PYTHONHASHSEED=0" in source["server"]
    assert source["string_hash"] == string_hash
    episodes = _load(string_hash)["episodes"]
    assert len(episodes) == 150 and sum(bool(e["steps"]) for e in episodes) == 100


def test_the_two_recordings_share_goals_not_command_lists():
    a, b = (_load(h)["episodes"] for h in sorted(RECORDINGS))
    assert [e["item"] for e in a] == [e["item"] for e in b]
    assert sum(x["first_observation"] != y["first_observation"] for x, y in zip(a, b)) > 100
    goals = [
        (x["first_observation"].rsplit("Goal:", 1)[1], y["first_observation"].rsplit("Goal:", 1)[1])
        for x, y in zip(a, b)
    ]
    assert all(x == y for x, y in goals)


def test_first_observations_are_agentgyms(recorded):
    env, data = recorded
    same = 0
    for episode in data["episodes"]:
        split, task_id = env.tasks.locate(episode["item"])
        obs, _ = env.reset(options={"split": split, "task_id": task_id})
        same += obs == episode["first_observation"]
    assert same == 150


def test_transcripts_are_agentgyms(recorded):
    env, data = recorded
    replayed = 0
    for episode in data["episodes"]:
        if not episode["steps"]:
            continue
        split, task_id = env.tasks.locate(episode["item"])
        assert (
            env.reset(options={"split": split, "task_id": task_id})[0]
            == episode["first_observation"]
        )
        for k, step in enumerate(episode["steps"]):
            obs, reward, terminated, _, _ = env.step(step["action"])
            assert (obs, reward, terminated) == (
                step["observation"],
                float(step["reward"]),
                step["done"],
            ), (
                episode["item"],
                k,
                step["action"],
            )
        assert episode["steps"][-1]["done"]
        replayed += 1
    assert replayed == 100


_CHECK = """
import json, sys
items = json.loads(sys.stdin.read())
out = []
for case in items:
    s = set()
    for text in case:
        s.add(text)
    out.append([list(s), [hash(t) for t in case]])
print(json.dumps(out))
"""


@pytest.mark.skipif(
    sys.implementation.name != "cpython" or sys.version_info < (3, 4) or sys.maxsize < 2**32,
    reason="the reference order is 64-bit CPython's",
)
def test_hash_order_matches_cpython_with_hash_seed_zero():
    import random

    rng = random.Random(7)
    words = [
        f"craft {rng.randint(1, 9)} {'x' * rng.randint(0, 20)} using {rng.randint(1, 9)} "
        + "".join(rng.choice("abc de_f") for _ in range(rng.randint(0, 30)))
        for _ in range(500)
    ]
    cases = [[rng.choice(words) for _ in range(n)] for n in (1, 2, 5, 6, 9, 17, 40, 120, 400)]
    cases.append(["", "a", "abcdefgh", "abcdefghi", "caf\u00e9", "\u65e5\u672c"])
    reply = subprocess.run(
        [sys.executable, "-c", _CHECK],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    algorithm = "siphash13" if sys.version_info >= (3, 11) else "siphash24"
    for case, (order, hashes) in zip(cases, json.loads(reply.stdout)):
        assert [str_hash(t, algorithm) for t in case] == hashes
        assert list(HashOrderedSet(case, algorithm)) == order


def test_siphash24_is_the_reference_siphash():
    # the SipHash paper's test vectors (key 00..0f): empty message and bytes 00..0e
    k0, k1 = (
        int.from_bytes(bytes(range(8)), "little"),
        int.from_bytes(bytes(range(8, 16)), "little"),
    )
    assert siphash(b"", k0, k1, 2, 4) == 0x726FDB47DD0E0E31
    assert siphash(bytes(range(15)), k0, k1, 2, 4) == 0xA129CA6149BE45E5
