"""ORS: the ``openreward`` SDK's own client plays full episodes on our ORS server.

The SDK pins clash with the shared env, so server and client run in the ``openreward`` venv
(:mod:`agentgym_envs.integrations.venvs`); the reference episode runs here under
``gymnasium.make``.
"""

from __future__ import annotations

import importlib.util

import pytest

from agentgym_envs.errors import MissingExtraError
from tests.integrations.ecosystems import FAMILIES, ecosystem, reference, run_driver


@pytest.fixture(scope="module")
def ors_python():
    return ecosystem("openreward")


@pytest.mark.parametrize("env_id", list(FAMILIES))
def test_sdk_client_plays_a_full_episode(ors_python, env_id):
    ref = reference(env_id, FAMILIES[env_id])
    out = run_driver(ors_python, "ors_episode", ref)

    assert out["splits"] == ["train", "test"] or "test" in out["splits"]
    assert out["task"] == {"env_id": env_id, "split": "test", "task_id": ref["task_id"], "seed": 0}
    assert out["tools"] == ["act"]
    assert ref["first"] in out["prompt"]
    assert [s["obs"] for s in out["steps"]] == [s["obs"] for s in ref["steps"]]
    assert [s["reward"] for s in out["steps"]] == [s["reward"] for s in ref["steps"]]
    assert [s["done"] for s in out["steps"]] == [s["done"] for s in ref["steps"]]
    end = out["steps"][-1]["metadata"]
    assert end["outcome"] == ref["outcome"] == "success"
    assert end["score"] == ref["score"] and end["success"] and end["reward_valid"]


def test_malformed_calls_get_ors_errors_and_the_episode_goes_on(ors_python):
    ref = reference("AgentGym/Maze-v0", 0)
    out = run_driver(ors_python, "ors_episode", ref)
    missing_arg, unknown_tool = out["bad_input"]
    assert missing_arg == {"type": "ToolCallError", "reason": "input_validation"}
    assert unknown_tool == {"type": "ToolCallError", "reason": "not_found"}
    assert out["steps"][-1]["metadata"]["outcome"] == "success"


@pytest.mark.skipif(importlib.util.find_spec("openreward") is not None, reason="SDK present")
def test_missing_sdk_is_one_line_naming_the_extra():
    from agentgym_envs.integrations.openreward import ors_environment

    with pytest.raises(MissingExtraError) as err:
        ors_environment("AgentGym/Maze-v0")
    assert 'pip install "agentgym-envs[openreward]"' in str(err.value)
    assert "\n" not in str(err.value)
