"""OpenEnv: our typed ``EnvClient`` plays episodes over OpenEnv's WebSocket protocol, several
sessions at once, and ``openenv validate --url`` passes on the running server (full episodes
on three families are in ``test_adapter_sameness.py``).

``openenv-core`` pins ``mcp>=2``, so server, client and CLI run in the ``openenv`` venv
(:mod:`agentgym_envs.integrations.venvs`); the reference runs here under ``gymnasium.make``.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from tests.integrations.ecosystems import ecosystem, reference, run_driver


@pytest.fixture(scope="module")
def openenv_python():
    return ecosystem("openenv")


def _job(env_id: str, refs: list[dict], validate: bool = False) -> dict:
    episodes = [
        {"task_id": r["task_id"], "split": r["split"], "actions": r["actions"]} for r in refs
    ]
    return {"env_id": env_id, "episodes": episodes, "validate": validate}


def _check(played: dict, ref: dict) -> None:
    assert played["first"] == ref["first"]
    assert [s["obs"] for s in played["steps"]] == [s["obs"] for s in ref["steps"]]
    assert [s["reward"] for s in played["steps"]] == [s["reward"] for s in ref["steps"]]
    assert [s["done"] for s in played["steps"]] == [s["done"] for s in ref["steps"]]
    end = played["steps"][-1]["end"]
    assert end["outcome"] == ref["outcome"] == "success"
    assert end["score"] == ref["score"] and end["success"] and end["reward_valid"]
    assert played["state"]["outcome"] == "success"
    assert played["state"]["step_count"] == len(ref["steps"])


def test_concurrent_sessions_validate_and_malformed_messages(openenv_python):
    refs = [reference("AgentGym/Maze-v0", t) for t in (0, 1, 2)]
    out = run_driver(openenv_python, "openenv_episode", _job(refs[0]["env_id"], refs, True))
    for played, ref in zip(out["episodes"], refs, strict=True):
        _check(played, ref)  # each WebSocket session kept its own env
    invalid, unknown, no_task = out["bad_input"]
    assert "VALIDATION_ERROR" in invalid and "UNKNOWN_TYPE" in unknown  # WSErrorResponse codes
    assert "EXECUTION_ERROR" in no_task and "has no task 1000000 in split 'test'" in no_task
    report = out["validate"]["report"]
    assert out["validate"]["returncode"] == 0 and report["passed"], out["validate"]
    assert report["summary"]["failed_criteria"] == []


@pytest.mark.skipif(importlib.util.find_spec("openenv") is not None, reason="openenv present")
def test_missing_package_is_one_line_naming_the_extra():
    code = "import agentgym_envs.integrations.openenv"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode != 0
    assert last.startswith("agentgym_envs.errors.MissingExtraError")
    assert 'pip install "agentgym-envs[openenv]"' in last
