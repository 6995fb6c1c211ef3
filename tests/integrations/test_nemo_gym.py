"""NeMo Gym: its own CLI (``gym env start``, ``gym eval run``) with its ``simple_agent`` (the
family's tools) and its ``gymnasium_agent`` (text replies) play full episodes against our
servers, the expert chat server as the model behind NeMo Gym's ``vllm_model`` server; its
``ServerClient`` gets NeMo Gym's error shapes for bad input.

``nemo-gym==0.4.0`` needs Python >= 3.12 and pins its own ``openai``, ``mcp`` and Ray, so it
runs in the ``nemo-gym`` venv (:mod:`agentgym_envs.integrations.venvs`, made from a pyenv
Python). One NeMo Gym run serves every test here and the sameness test
(:func:`tests.integrations.ecosystems.nemo_gym_run`).
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys

import pytest

from tests.integrations.ecosystems import (
    FAMILIES,
    NEMO_GYM_EXPORT,
    NEMO_GYM_EXTRA,
    nemo_gym_run,
    reference,
)


@pytest.fixture(scope="module")
def run():
    return nemo_gym_run()


def test_collection_plays_full_episodes_and_gets_our_reward(run):
    assert run["collect"]["returncode"] == 0, run["collect"]["stderr"]
    played = {e["env_id"]: e for e in run["episodes"] if e["agent"] == "simple"}
    families = {**FAMILIES, **NEMO_GYM_EXTRA}
    assert set(played) == set(families)  # a tool family, text games, a long observation
    for env_id, task_id in families.items():
        ref, got = reference(env_id, task_id), played[env_id]
        assert got["reward"] == ref["score"] == 1.0
        assert got["end"]["outcome"] == "success" and got["end"]["reward_valid"] is True
        assert [s["obs"] for s in got["steps"]] == [s["obs"] for s in ref["steps"]]
        # the model acted through the family's own tools, one env step per call
        assert len(got["calls"]) == len(ref["actions"])
    assert played["AgentGym/Maze-v0"]["calls"][0]["name"] == "move"
    assert played["AgentGym/Weather-v0"]["calls"][-1]["name"] == "finish"
    # NeMo Gym's aggregate metrics: the mean of our rewards over the valid rollouts
    metrics = {m["agent_ref"]["name"]: m for m in run["collect"]["metrics"]}
    assert metrics["agentgym_simple_agent"]["agent_metrics"]["mean/reward"] == 1.0


def test_exported_folder_installs_offline_under_nemo_gym_and_plays(run):
    """``agentgym export --to nemo-gym``: NeMo Gym made the folder's venv from its
    requirements.txt with no index (agentgym-envs from its wheels/), played its example row
    through its simple_agent, and the folder's own tests pass under NeMo Gym's own test
    command (``gym env test +entrypoint=resources_servers/<module>``)."""
    (got,) = [e for e in run["episodes"] if e["agent"] == "export"]
    ref = reference(NEMO_GYM_EXPORT, 0)
    assert got["env_id"] == NEMO_GYM_EXPORT and got["task_id"] == 0
    assert got["reward"] == ref["score"] == 1.0
    assert [s["obs"] for s in got["steps"]] == [s["obs"] for s in ref["steps"]]
    origin = run["export_origin"]
    assert origin["file"].startswith(origin["venv"]), origin
    tests = run["export_tests"]
    assert tests["returncode"] == 0, tests["output"]
    assert re.search(r"\b3 passed\b", tests["output"]), tests["output"]  # the folder's 3 tests


def test_gymnasium_agent_plays_text_replies_and_gets_our_reward(run):
    played = {e["env_id"]: e for e in run["episodes"] if e["agent"] == "gymnasium"}
    assert set(played) == set(FAMILIES)
    for env_id, task_id in FAMILIES.items():
        ref, got = reference(env_id, task_id), played[env_id]
        assert got["reward"] == ref["score"] == 1.0  # the agent's sum is the graded score
        assert got["end"]["outcome"] == "success" and got["end"]["reward_valid"] is True
        assert [s["obs"] for s in got["steps"]] == [s["obs"] for s in ref["steps"]]
        # each reply is ReAct text whose action is the one gymnasium.make was given
        action = [a.rsplit("Action:", 1)[-1].strip() for a in ref["actions"]]
        assert [r.rsplit("Action:", 1)[1].strip() for r in got["replies"]] == action
    metrics = {m["agent_ref"]["name"]: m for m in run["collect"]["metrics"]}
    assert metrics["agentgym_gymnasium_agent"]["agent_metrics"]["mean/reward"] == 1.0


def test_env_failure_is_a_nemo_gym_failure_not_a_zero_reward_rollout(run):
    (failed,) = run["failures"]  # the failures file, not the rollouts
    assert failed["env_id"] == "AgentGym/MazeRandom-v0"
    assert failed["_ng_failure_class"] == "transient"
    assert failed["agentgym"]["outcome"] == "env_error"
    assert failed["agentgym"]["reward_valid"] is False
    assert "no_such_argument" in failed["agentgym"]["error"]
    assert "AgentGym/MazeRandom-v0" not in {e["env_id"] for e in run["episodes"]}


def test_malformed_requests_get_nemo_gym_error_shapes_and_the_episode_goes_on(run):
    bad = run["bad"]
    # a row naming no task: refused with a one-line detail, before any env is made
    assert bad["bad_task"]["status"] == 422
    assert bad["bad_task"]["body"] == {
        "detail": "AgentGym/Weather-v0 has no task 1000000 in split 'test': use 0..19"
    }
    # a row whose task id is not an integer: FastAPI's validation shape, naming the field
    assert bad["bad_row"]["status"] == 422
    assert [e["loc"] for e in bad["bad_row"]["body"]["detail"]] == [["body", "task_id"]]
    assert bad["no_session"]["status"] == 409
    assert "/seed_session first" in bad["no_session"]["body"]["detail"]
    # arguments breaking the tool's schema: FastAPI's validation shape, as NeMo Gym answers
    assert bad["bad_arguments"]["status"] == 422
    problems = bad["bad_arguments"]["body"]["detail"]
    assert problems and all({"type", "loc", "msg"} <= set(p) for p in problems)
    assert any("no_such_argument" in p["msg"] for p in problems)
    assert bad["unknown_tool"]["status"] == 404
    assert bad["unknown_tool"]["body"]["detail"].startswith("unknown tool 'no_such_tool'")
    # none of them stepped the env: the same calls still play the whole episode
    ref = reference("AgentGym/Weather-v0", FAMILIES["AgentGym/Weather-v0"])
    assert [s["status"] for s in bad["steps"]] == [200] * len(ref["steps"])
    assert [s["obs"] for s in bad["steps"]] == [s["obs"] for s in ref["steps"]]
    assert bad["verify"]["status"] == 200 and bad["verify"]["reward"] == ref["score"]
    assert bad["verify"]["end"]["outcome"] == "success"
    # the gymnasium server answers the same way
    text = bad["gymnasium"]
    assert text["bad_row"]["status"] == 422
    assert [e["loc"][-1] for e in text["bad_row"]["body"]["detail"]] == ["task_id"]
    assert text["bad_task"]["status"] == 422
    assert "has no task 1000000 in split 'test'" in text["bad_task"]["body"]["detail"]
    assert text["no_session"]["status"] == 409


@pytest.mark.skipif(importlib.util.find_spec("nemo_gym") is not None, reason="nemo-gym present")
def test_missing_package_is_one_line_naming_the_extra():
    code = "import agentgym_envs.integrations.nemo_gym"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode != 0
    assert 'pip install "agentgym-envs[nemo-gym]"' in last


def test_no_new_enough_python_is_one_line_with_the_mend(monkeypatch, tmp_path):
    from agentgym_envs.integrations import venvs

    monkeypatch.setattr(venvs, "MIN_PYTHON", {"nemo-gym": (9, 99)})
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    venvs.base_python.cache_clear()
    try:
        with pytest.raises(RuntimeError) as err:
            venvs.ecosystem_python("nemo-gym")
    finally:
        venvs.base_python.cache_clear()
    message = str(err.value)
    assert "\n" not in message
    assert "nemo-gym needs Python >= 9.99" in message and "AGENTGYM_ECOSYSTEM_PYTHON" in message
