"""ORS: the ``openreward`` SDK's own client on our ORS server (full episodes on three families
are in ``test_adapter_sameness.py``).

The SDK pins clash with the shared env, so server and client run in the ``openreward`` venv
(:mod:`agentgym_envs.integrations.venvs`); the reference episode runs here under
``gymnasium.make``.
"""

from __future__ import annotations

import importlib.util

import pytest

from agentgym_envs.errors import MissingExtraError
from tests.integrations.ecosystems import ecosystem, reference, run_driver


@pytest.fixture(scope="module")
def ors_python():
    return ecosystem("openreward")


def test_sdk_client_sees_splits_tasks_tools_prompt_and_ors_errors(ors_python):
    ref = reference("AgentGym/Weather-v0", 0)
    out = run_driver(ors_python, "ors_episode", ref)
    assert out["splits"] == ["train", "test"]
    assert out["num_tasks"] == 20
    assert out["task"] == {"env_id": ref["env_id"], "split": "test", "task_id": 0, "seed": 0}
    assert out["tools"] == ["act"]
    assert ref["first"] in out["prompt"]
    # malformed calls before the first action: the SDK's error type and reason...
    missing_arg, unknown_tool = out["bad_input"]
    assert missing_arg == {"type": "ToolCallError", "reason": "input_validation"}
    assert unknown_tool == {"type": "ToolCallError", "reason": "not_found"}
    # a task naming no task: the session fails with our one-line reason, nothing else does
    assert "has no task 1000000 in split 'test'" in out["bad_task"]["message"]
    # ...and the episode was not lost
    assert out["steps"][-1]["metadata"]["outcome"] == "success"


@pytest.mark.skipif(importlib.util.find_spec("openreward") is not None, reason="SDK present")
def test_missing_sdk_is_one_line_naming_the_extra():
    from agentgym_envs.integrations.openreward import ors_environment

    with pytest.raises(MissingExtraError) as err:
        ors_environment("AgentGym/Maze-v0")
    assert 'pip install "agentgym-envs[openreward]"' in str(err.value)
    assert "\n" not in str(err.value)
