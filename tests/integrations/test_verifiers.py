"""verifiers: ``vf-eval`` evaluates our environment against the expert chat server, and the
env's own rollout hooks handle malformed replies and broken tasks the verifiers way (full
episodes on three families through those hooks are in ``test_adapter_sameness.py``).

``verifiers==0.3.1`` pins ``websockets<17``, so everything runs in the ``verifiers`` venv
(:mod:`agentgym_envs.integrations.venvs`).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from tests.integrations.ecosystems import ecosystem, reference, run_driver


@pytest.fixture(scope="module")
def vf_python():
    return ecosystem("verifiers")


def test_vf_eval_scores_the_expert_endpoint(vf_python):
    ref = reference("AgentGym/Maze-v0", 0)
    out = run_driver(vf_python, "vf_episode", dict(ref, modes=["vf-eval"], num_examples=2))
    run = out["vf_eval"]
    assert run["returncode"] == 0, run["stderr"]
    # -b with -k (the key's variable): no endpoint registry is looked for, no notice about it
    assert "No local endpoint registry" not in run["stderr"]
    rows = sorted(run["rows"], key=lambda r: r["info"]["task_id"])
    assert [r["info"]["task_id"] for r in rows] == [0, 1]
    for row in rows:
        assert row["reward"] == 1.0 and row["error"] is None
        assert row["agentgym"]["outcome"] == "success" and row["agentgym"]["reward_valid"]
        assert row["metrics"]["agentgym_success"] == 1.0
    # the completion is the episode: each user turn is the env's next observation
    observations = [m["content"] for m in rows[0]["completion"] if m["role"] == "user"]
    assert observations == [s["obs"] for s in ref["steps"]]


def test_vf_eval_with_an_unknown_id_says_the_close_match(vf_python):
    job = dict(reference("AgentGym/Maze-v0", 0), modes=["vf-eval"], vf_env="AgentGym/Mazee-v0")
    out = run_driver(vf_python, "vf_episode", job)
    run = out["vf_eval"]
    assert run["returncode"] != 0
    assert "did you mean 'AgentGym/Maze-v0'" in run["stderr"]


def test_malformed_reply_is_feedback_and_broken_task_is_masked(vf_python):
    ref = reference("AgentGym/Maze-v0", 0)
    job = dict(ref, modes=["direct"], malformed=True, broken_row=True)
    out = run_driver(vf_python, "vf_episode", job)["direct"]
    assert out["malformed"]["answer"]  # the env answered the reply with feedback
    assert out["end"]["outcome"] == "success" and out["score"] == 1.0  # and the episode went on
    assert out["error"] is None
    broken = out["broken"]
    assert broken["end"]["outcome"] == "env_error" and broken["end"]["reward_valid"] is False
    assert broken["error"].startswith("InfraError(")  # verifiers leaves the rollout out


@pytest.mark.skipif(importlib.util.find_spec("verifiers") is not None, reason="verifiers present")
def test_missing_package_is_one_line_naming_the_extra():
    code = "import agentgym_envs.integrations.verifiers"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode != 0
    assert 'pip install "agentgym-envs[verifiers]"' in last
