"""One contract for every ecosystem adapter: the same episode (id, task, the expert's actions)
played through ORS, OpenEnv, verifiers and NeMo Gym (its simple agent with the family's tools,
its gymnasium agent with text replies) -- each driven by that ecosystem's own package, in
its own venv -- gives the observations, rewards and outcome ``gymnasium.make`` gives."""

from __future__ import annotations

import functools

import pytest

from tests.integrations.ecosystems import (
    FAMILIES,
    ecosystem,
    nemo_gym_run,
    reference,
    run_driver,
)

ADAPTERS = ("ors", "openenv", "verifiers", "nemo-gym", "nemo-gym-gymnasium")


@functools.cache
def _reference(env_id: str) -> dict:
    return reference(env_id, FAMILIES[env_id])


def _play(adapter: str, ref: dict) -> dict:
    """The episode through ``adapter``: first text, steps, and the end fields."""
    if adapter == "ors":
        out = run_driver(ecosystem("openreward"), "ors_episode", ref)
        end = out["steps"][-1]["metadata"]
        return {"first": out["prompt"], "steps": out["steps"], "end": end}
    if adapter == "openenv":
        job = {"env_id": ref["env_id"], "episodes": [ref]}
        out = run_driver(ecosystem("openenv"), "openenv_episode", job)["episodes"][0]
        return {"first": out["first"], "steps": out["steps"], "end": out["steps"][-1]["end"]}
    if adapter.startswith("nemo-gym"):  # its CLI and an agent, the expert chat server as model
        agent = "gymnasium" if adapter.endswith("gymnasium") else "simple"
        episodes = nemo_gym_run()["episodes"]
        (out,) = [e for e in episodes if e["env_id"] == ref["env_id"] and e["agent"] == agent]
        assert out["reward"] == ref["score"]
        return {"first": out["first"], "steps": out["steps"], "end": out["end"]}
    # verifiers' own rollout loop, the expert chat server as the model (the same actions)
    out = run_driver(ecosystem("verifiers"), "vf_episode", dict(ref, modes=["evaluate"]))
    evaluated = out["evaluate"]
    assert evaluated["reward"] == ref["score"] and evaluated["error"] is None
    return {"first": evaluated["prompt"], "steps": evaluated["steps"], "end": evaluated["end"]}


@pytest.mark.parametrize("env_id", list(FAMILIES))
@pytest.mark.parametrize("adapter", ADAPTERS)
def test_adapter_plays_the_gymnasium_episode(adapter, env_id):
    ref = _reference(env_id)
    got = _play(adapter, ref)

    assert ref["first"].strip() in got["first"]
    assert [s["obs"] for s in got["steps"]] == [s["obs"] for s in ref["steps"]]
    assert [s["reward"] for s in got["steps"]] == [s["reward"] for s in ref["steps"]]
    assert [s["done"] for s in got["steps"]] == [s["done"] for s in ref["steps"]]
    assert got["end"]["outcome"] == ref["outcome"] == "success"
    assert got["end"]["score"] == ref["score"]
    assert got["end"]["success"] is ref["success"] is True
    assert got["end"]["reward_valid"] is True
