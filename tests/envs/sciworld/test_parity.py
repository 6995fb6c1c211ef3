"""Parity with the ``scienceworld`` package's own API (what AgentGym's server calls).

The same actions go through our env and through ``ScienceWorldEnv`` (reset done the way
AgentGym's server does it: ``load``, task description, ``step("look around")``); scores, done
flags and observations must agree. The simulator lists objects in identity-hash order, which
differs between JVMs (and between loads in the package's own API), so observations are
compared as multisets of lines, each line as a multiset of its words.

Object order can also change the simulation itself, not only its text: in the package's API,
power-component variation 15's gold path reaches score 100 one step earlier on some loads
than on others (electrical ticks run in hash order). Our JVMs use constant hash codes, so we
always give one of the package's outcomes, every time the same; the sample below avoids
tasks whose outcome varies from load to load in the package itself.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from agentgym_envs.envs.sciworld.env import SciWorldEnv
from agentgym_envs.envs.sciworld.tasks import clean_test_items, gold_data

GOLD_SAMPLE = (
    "find-living-thing",
    "lifespan-shortest-lived",
    "chemistry-mix",
    "identify-life-stages-1",
)


def canonical(text: str) -> Counter:
    return Counter(
        tuple(sorted(line.replace(",", " ").replace(".", " ").split()))
        for line in text.splitlines()
        if line.strip()
    )


def official_reset(official, name: str, var: int) -> str:
    official.load(name, var, "")
    description = official.get_task_description()
    obs, _, _, _ = official.step("look around")
    return description + "\n" + obs


def _compare(env: SciWorldEnv, official, split: str, task_id: int, actions) -> int:
    obs, info = env.reset(options={"split": split, "task_id": task_id})
    ref = official_reset(official, info["task_name"], info["variation"])
    assert canonical(obs) == canonical(ref)
    steps = 0
    for action in actions(official):
        if action is None:
            break
        obs, reward, terminated, _, info = env.step(action)
        ref_obs, _, ref_done, ref_info = official.step(action)
        steps += 1
        context = f"{info['task_name']}/{info['variation']} step {steps} {action!r}"
        assert info["score"] == ref_info["score"] == reward, context
        assert terminated == ref_done, context
        assert info["moves"] == ref_info["moves"], context
        assert canonical(obs) == canonical(ref_obs), context
        if terminated:
            break
    return steps


@pytest.mark.parametrize("name", GOLD_SAMPLE)
def test_gold_path_gives_same_scores_and_observations(env, official, name):
    task_id, (_, var) = next((i, t) for i, t in enumerate(clean_test_items()) if t[0] == name)
    gold = gold_data()["gold"][f"{name}/{var}"]
    it = iter(gold)
    steps = _compare(env, official, "test", task_id, lambda off: it)
    assert env.success and env.score == 100.0 and steps <= len(gold)


@pytest.mark.parametrize("task_id", [3, 700, 1500])
def test_random_valid_walk_gives_same_scores_and_observations(env, official, task_id):
    rng = np.random.default_rng(task_id)

    def actions(off):
        for _ in range(12):
            valid = [
                a for a in off.get_valid_action_object_combinations() if not a.startswith("focus")
            ]
            yield str(valid[int(rng.integers(len(valid)))]) if valid else None

    _compare(env, official, "train", task_id, actions)


def test_wrong_focus_matches(env, official):
    steps = _compare(env, official, "train", 0, lambda off: iter(["focus on agent"]))
    assert steps == 1 and env.score == -100.0
