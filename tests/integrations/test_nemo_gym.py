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
import json
import re
import socket
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest

from tests.integrations.ecosystems import (
    FAMILIES,
    NEMO_GYM_EXPORT,
    NEMO_GYM_EXTRA,
    ecosystem,
    nemo_gym_run,
    reference,
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
    # and NeMo Gym's data check (`+should_validate_data=true`): rows, metrics, rollouts
    assert (
        f"resources_servers/{Path(run['package']).name} has been successfully validated"
        in tests["output"]
    ), tests["output"]


def test_export_rollouts_are_nemo_gyms_own_from_playing_the_example_rows(run):
    """``--rollouts``: ``data/example_rollouts.jsonl`` is what NeMo Gym's ``gym eval run``
    wrote while the expert played the five example rows through the folder's simple agent,
    and ``data/example_metrics.json`` what its ``gym dataset collate`` computed on them."""
    data = Path(run["package"]) / "data"
    rows = [json.loads(x) for x in (data / "example.jsonl").read_text().splitlines()]
    rollouts = [json.loads(x) for x in (data / "example_rollouts.jsonl").read_text().splitlines()]
    assert sorted(r["task_id"] for r in rollouts) == [r["task_id"] for r in rows] == [0, 1, 2, 3, 4]
    by_task = {r["task_id"]: r for r in rows}
    for rollout in rollouts:
        row = by_task[rollout["task_id"]]
        ref = reference(NEMO_GYM_EXPORT, rollout["task_id"])
        # NeMo Gym's rollout line: the row's request, the model's Responses API response, the
        # reward and our /verify fields
        sent = rollout["responses_create_params"]["input"]  # NeMo Gym adds "type": "message"
        asked = row["responses_create_params"]["input"]
        pair = lambda messages: [(m["role"], m["content"]) for m in messages]
        assert pair(sent) == pair(asked)
        assert rollout["response"]["object"] == "response"
        calls = [o for o in rollout["response"]["output"] if o["type"] == "function_call"]
        outputs = [o for o in rollout["response"]["output"] if o["type"] == "function_call_output"]
        assert calls and {c["name"] for c in calls} == {"move"} and len(outputs) == len(calls)
        # each tool output is what gymnasium.make answers to that call, to the end
        assert [o["output"] for o in outputs] == _replay(rollout["task_id"], calls)
        assert rollout["reward"] == ref["score"] == 1.0
        assert rollout["agentgym"]["outcome"] == "success"
        assert rollout["agent_ref"]["name"] == row["agent_ref"]["name"]
    metrics = json.loads((data / "example_metrics.json").read_text())
    assert metrics["Number of examples"] == 5 and metrics["type"] == "example"
    assert metrics["jsonl_fpath"] == f"resources_servers/{data.parent.name}/data/example.jsonl"
    tools = len(rows[0]["responses_create_params"]["tools"])
    assert metrics["Number of tools"]["Average"] == tools
    assert metrics["task_id"]["Min"] == 0 and metrics["task_id"]["Max"] == 4
    assert not list(data.glob("*conflict*")) and not list(data.glob("*prepare*"))


def _replay(task_id: int, calls: list[dict]) -> list[str]:
    """The observations ``gymnasium.make`` gives for the calls' actions, until it ends."""
    env = gym.make(NEMO_GYM_EXPORT)
    env.reset(seed=0, options={"task_id": task_id, "split": "test"})
    seen = []
    for call in calls:
        action = env.unwrapped.action_from_tool_call(call["name"], json.loads(call["arguments"]))
        obs, _, terminated, truncated, _ = env.step(action)
        seen.append(obs)
        if terminated or truncated:
            break
    env.close()
    return seen


def test_export_rollouts_from_another_endpoint_the_local_model(tmp_path):
    """``--policy-url``: the local model (an OpenAI-compatible server) plays the five rows
    through NeMo Gym instead of the expert; whatever it scores, each row gets its rollout."""
    filelock = pytest.importorskip("filelock")
    from agentgym_envs.benchmarks.local_llm import LocalLLMServer, local_llm_available
    from agentgym_envs.integrations.hubs import env_slug
    from tests.rollout.conftest import RAY_LOCK

    reason = local_llm_available()
    if reason:
        pytest.skip(reason)
    ecosystem("nemo-gym")  # built (or failed) here, not inside the export
    cmd = [sys.executable, "-m", "agentgym_envs.cli", "export", NEMO_GYM_EXPORT, str(tmp_path),
           "--to", "nemo-gym"]  # fmt: skip
    with (
        LocalLLMServer(max_tokens=48, startup_timeout=900) as model,
        filelock.FileLock(str(RAY_LOCK), timeout=1800),
    ):
        done = subprocess.run([*cmd, "--policy-url", model.base_url], capture_output=True,
                              text=True, timeout=1800)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    folder = tmp_path / env_slug(NEMO_GYM_EXPORT).replace("-", "_")
    lines = (folder / "data" / "example_rollouts.jsonl").read_text().splitlines()
    rollouts = [json.loads(x) for x in lines]
    assert sorted(r["task_id"] for r in rollouts) == [0, 1, 2, 3, 4]
    for rollout in rollouts:
        assert rollout["response"]["model"] == model.alias
        assert 0.0 <= rollout["reward"] <= 1.0 and rollout["agentgym"]["reward_valid"] is True
    metrics = json.loads((folder / "data" / "example_metrics.json").read_text())
    assert metrics["Number of examples"] == 5
    readme = (folder / "README.md").read_text()
    assert f"played by `{model.alias}` at {model.base_url}" in readme


def test_export_with_a_bad_policy_endpoint_is_one_line_with_the_mend(tmp_path):
    port = free_port()  # nothing listens there
    cmd = [sys.executable, "-m", "agentgym_envs.cli", "export", NEMO_GYM_EXPORT, str(tmp_path),
           "--to", "nemo-gym", "--policy-url", f"http://127.0.0.1:{port}/v1"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert f"cannot reach the model endpoint http://127.0.0.1:{port}/v1/models" in lines[0]
    assert "leave out --policy-url to play the rows with the expert" in lines[0]
    assert not list(tmp_path.iterdir())  # nothing written
    other = subprocess.run([*cmd[:6], "--to", "ors", "--rollouts"], capture_output=True, text=True)
    assert other.returncode != 0
    assert (
        other.stderr.strip() == "error: --rollouts and --policy-url are for --to nemo-gym, not ors"
    )


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


def test_rollouts_outside_a_source_checkout_are_one_line_with_the_mend(monkeypatch, tmp_path):
    from agentgym_envs.errors import AgentGymError
    from agentgym_envs.integrations import nemo_gym_examples, venvs

    monkeypatch.setattr(venvs, "source_root", lambda: tmp_path)  # no pyproject.toml there
    with pytest.raises(AgentGymError) as err:
        nemo_gym_examples.write_examples(tmp_path / "agentgym_maze_v0", NEMO_GYM_EXPORT)
    message = str(err.value)
    assert "\n" not in message and "source checkout" in message and "README" in message
