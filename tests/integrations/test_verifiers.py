"""verifiers 0.4: ``vf-eval`` evaluates an ``agentgym export --to prime`` taskset package against
the expert chat server (score 1.0) and against the local model (a score, whatever it is), and
the env handles a reply with no action and a task that cannot reset the verifiers way, through
verifiers' own episode loop (full episodes on three families through that loop are in
``test_adapter_sameness.py``).

``verifiers==0.4.0`` pins ``mcp==2.0.0`` and ``openai<3``, so everything runs in the
``verifiers`` venv (:mod:`agentgym_envs.integrations.venvs`).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from tests.integrations.ecosystems import ecosystem, reference, run_driver

#: Short expert episodes (three and two guesses on tasks 0 and 1): each model turn is a
#: harness process, seconds on a loaded machine.
ENV_ID = "AgentGym/Wordle-v0"
NAME = "agentgym-wordle-v0"


@pytest.fixture(scope="module")
def vf_python():
    return ecosystem("verifiers")


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    """The exported taskset package's folder (its module importable from there)."""
    from agentgym_envs.integrations.export import export_package

    root = export_package(ENV_ID, "prime", tmp_path_factory.mktemp("prime"))
    return str(root)


def _vf_eval(vf_python, package, **job) -> dict:
    spec = dict(reference(ENV_ID, 0), modes=["vf-eval"], vf_env=NAME, package_path=package, **job)
    return run_driver(vf_python, "vf_episode", spec, timeout=2400)["vf_eval"]


def test_vf_eval_scores_the_expert_endpoint(vf_python, package):
    ref = reference(ENV_ID, 0)
    run = _vf_eval(vf_python, package, num_examples=2)
    assert run["returncode"] == 0, run["stderr"]
    # endpoint and key variable named, --no-push: no notice about Prime auth or uploads
    assert "WARNING" not in run["stderr"], run["stderr"]
    rows = sorted(run["rows"], key=lambda r: r["task"]["task_id"])
    assert [r["task"]["task_id"] for r in rows] == [0, 1]
    for row in rows:
        assert row["ok"] and row["errors"] == [] and row["reward"] == 1.0
        assert row["agentgym"]["outcome"] == "success" and row["agentgym"]["reward_valid"]
        assert row["metrics"]["agentgym_success"] == 1.0
    # the conversation is the episode: each user turn after the prompt is the env's next
    # observation; the last one, which ends the episode, is in the trace's info
    first = rows[0]
    assert ref["first"].strip() in first["user"][0]
    observations = [*first["user"][1:], first["agentgym"]["final_observation"]]
    assert observations == [s["obs"] for s in ref["steps"]]
    assert first["agentgym"]["rewards"] == [s["reward"] for s in ref["steps"]]


def test_reply_without_action_is_feedback_a_task_that_cannot_reset_fails_and_a_bad_id_is_named(
    vf_python,
):
    ref = reference(ENV_ID, 1)
    job = dict(ref, modes=["scripted"], unknown_id="AgentGym/Wordel-v0")
    out = run_driver(vf_python, "vf_episode", job)["scripted"]
    episode = out["episode"]
    # "hmm" was an action the env answered (one more turn) and the episode went on
    assert episode["assistant"][0] == "hmm"
    assert episode["agentgym"]["turns"] == len(ref["actions"]) + 1
    assert episode["ok"] and episode["reward"] == 1.0
    assert episode["agentgym"]["outcome"] == "success"
    # the env's failure fails the episode (verifiers and prime-rl leave it out), no reward
    broken = out["broken"]
    assert broken["ok"] is False
    (error,) = broken["errors"]
    assert error["type"] == "EnvError"
    assert f"{ENV_ID}: the environment failed on test task 1000000" in error["message"]
    assert "did you mean 'AgentGym/Wordle-v0'" in out["unknown"]


@pytest.fixture(scope="module")
def local_model():
    from agentgym_envs.benchmarks.local_llm import LocalLLMServer, local_llm_available

    reason = local_llm_available()
    if reason:
        pytest.skip(reason)
    with LocalLLMServer(max_tokens=48, startup_timeout=900) as server:
        yield server


def test_vf_eval_runs_to_a_score_on_the_local_model(vf_python, package, local_model):
    # two turns, short replies: what is checked is that the run finishes and reports
    job = {
        "base_url": local_model.base_url,
        "model": local_model.alias,
        "vf_args": ["--env.taskset.max-turns", "2", "--sampling.max-tokens", "48"],
    }
    run = _vf_eval(vf_python, package, **job)
    assert run["returncode"] == 0, run["stderr"]
    (row,) = run["rows"]
    assert row["ok"] and row["errors"] == [], row["errors"]
    assert 0.0 <= row["reward"] <= 1.0 and "agentgym_score" in row["rewards"]
    assert row["agentgym"]["outcome"] in ("success", "failure", "turn_limit")
    assert row["agentgym"]["reward_valid"] is True
    assert 1 <= row["agentgym"]["turns"] <= 2 and row["assistant"]  # the model did answer


@pytest.mark.skipif(importlib.util.find_spec("verifiers") is not None, reason="verifiers present")
def test_missing_package_is_one_line_naming_the_extra():
    code = "import agentgym_envs.integrations.verifiers"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode != 0
    assert 'pip install "agentgym-envs[verifiers]"' in last
