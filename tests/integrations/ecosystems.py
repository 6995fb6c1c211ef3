"""Shared by the ecosystem tests: the families they play, the reference episode under
``gymnasium.make``, and running a driver script inside an ecosystem's own venv."""

from __future__ import annotations

import functools
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import agentgym_envs
from agentgym_envs.core import episode_outcome

#: One tool family, one text game, one with long observations: id -> test task.
FAMILIES = {
    "AgentGym/Weather-v0": 0,
    "AgentGym/Maze-v0": 0,
    "AgentGym/ALFWorld-v0": 0,
}
DRIVERS = Path(__file__).parent / "drivers"


def reference(env_id: str, task_id: int, split: str = "test") -> dict[str, Any]:
    """The expert's episode under ``gymnasium.make``: actions, each step, and the end."""
    env = gym.make(env_id)
    obs, info = env.reset(seed=0, options={"task_id": task_id, "split": split})
    expert = agentgym_envs.expert_policy(env)
    first, actions, steps = obs, [], []
    terminated = truncated = False
    while not (terminated or truncated):
        action = expert(obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        actions.append(action)
        steps.append({"obs": obs, "reward": float(reward), "done": terminated or truncated})
    env.close()
    return {
        "env_id": env_id,
        "task_id": task_id,
        "split": split,
        "first": first,
        "actions": actions,
        "steps": steps,
        "outcome": episode_outcome(terminated, truncated, info),
        "score": float(info.get("score", 0.0)),
        "success": bool(info.get("success", False)),
    }


def ecosystem(name: str) -> Path:
    """The ecosystem's venv interpreter, built on first use (fails the test if pip fails)."""
    from agentgym_envs.integrations.venvs import ecosystem_python

    try:
        return ecosystem_python(name)
    except RuntimeError as exc:
        pytest.fail(str(exc))


def run_driver(python: Path, driver: str, job: dict[str, Any], timeout: float = 600) -> dict:
    """Run ``drivers/<driver>.py`` with ``job`` under ``python``; its last stdout line (JSON)."""
    from agentgym_envs.integrations.venvs import ecosystem_env

    env = ecosystem_env()  # this checkout's code, whichever checkout built the venv
    env["PYTHONPATH"] = os.pathsep.join([str(DRIVERS), env["PYTHONPATH"]])
    done = subprocess.run(
        [str(python), str(DRIVERS / f"{driver}.py"), json.dumps(job)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


#: NeMo Gym's run plays this too: another text game.
NEMO_GYM_EXTRA = {"AgentGym/Wordle-v0": 0}


@functools.cache
def nemo_gym_run() -> dict:
    """One NeMo Gym run (``gym env start`` + ``gym eval run``, the expert as the model): its
    simple agent over :data:`FAMILIES` and :data:`NEMO_GYM_EXTRA`, its gymnasium agent (text
    replies) over :data:`FAMILIES`, one task whose env fails to start, and the bad-input
    checks. Starting NeMo Gym (Ray, five servers) is the slow part, so the tests share it; it
    holds the Ray tests' lock, since NeMo Gym starts a Ray cluster of its own."""
    filelock = pytest.importorskip("filelock")
    from tests.rollout.conftest import RAY_LOCK

    episodes = [
        {"env_id": env_id, "task_id": task_id, "split": "test"}
        for env_id, task_id in {**FAMILIES, **NEMO_GYM_EXTRA}.items()
    ] + [
        {"env_id": env_id, "task_id": task_id, "split": "test", "agent": "gymnasium"}
        for env_id, task_id in FAMILIES.items()
    ]
    broken = {"env_id": "AgentGym/MazeRandom-v0", "task_id": 0, "split": "test"}
    job = {"episodes": episodes, "broken": broken, "bad": True, "parallel": 2}
    python = ecosystem("nemo-gym")
    with filelock.FileLock(str(RAY_LOCK), timeout=1800):
        return run_driver(python, "nemo_gym_episode", job, timeout=1800)
