"""Shared by the ecosystem tests: the families they play, the reference episode under
``gymnasium.make``, and running a driver script inside an ecosystem's own venv."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import tempfile
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
#: The id whose ``agentgym export --to nemo-gym`` folder NeMo Gym's run installs and plays.
NEMO_GYM_EXPORT = "AgentGym/Maze-v0"


@functools.cache
def nemo_gym_run() -> dict:
    """One NeMo Gym run (``gym env start`` + ``gym eval run``, the expert as the model): its
    simple agent over :data:`FAMILIES` and :data:`NEMO_GYM_EXTRA`, its gymnasium agent (text
    replies) over :data:`FAMILIES`, one task whose env fails to start, and the bad-input
    checks; and an ``agentgym export --to nemo-gym --rollouts`` folder (``package``: its
    path), installed, played and tested by NeMo Gym. Starting NeMo Gym (Ray, five servers) is
    the slow part, so the tests share it; it holds the Ray tests' lock, since NeMo Gym starts a
    Ray cluster of its own."""
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
    # an `agentgym export --to nemo-gym --rollouts` folder joins the run; NeMo Gym installs it
    # offline. The export plays its five example rows through NeMo Gym itself (a Ray cluster
    # of its own too), so it runs under the lock.
    from agentgym_envs.integrations.export import export_package
    from agentgym_envs.integrations.venvs import uv_binary

    house = str(wheelhouse("nemo-gym"))
    with filelock.FileLock(str(RAY_LOCK), timeout=1800):
        out = tempfile.mkdtemp(prefix="ng-export-")
        package = export_package(NEMO_GYM_EXPORT, "nemo-gym", out, rollouts=True)
        job["export"] = {"package": str(package), "wheelhouse": house, "uv": uv_binary()}
        return dict(run_driver(python, "nemo_gym_episode", job, timeout=1800), package=str(package))


#: Fetched into every wheelhouse beside the ecosystem's packages: the build backends an
#: exported package's own build needs (Prime's hatchling, with editables for the editable
#: install `prime env install` makes; OpenEnv's setuptools) and pytest (the NeMo Gym folder's
#: own tests run in the venv NeMo Gym made for it).
BUILD_BACKENDS = ("hatchling", "editables", "setuptools>=68", "pytest")
#: Per ecosystem, more tools its wheelhouse holds: Prime's CLI (``prime env install``).
EXTRA_WHEELS = {"verifiers": ("prime==0.18.0",)}


def wheelhouse(name: str) -> Path:
    """A folder of wheels of every package in the ecosystem's venv but agentgym-envs, plus
    :data:`BUILD_BACKENDS`: what an export needs besides its own folder to install with no
    index. Made once per venv (``pip wheel`` at the venv's exact versions, from pip's cache or
    PyPI, for the venv's Python) and kept beside it."""
    from agentgym_envs.integrations.venvs import venv_root
    from agentgym_envs.locks import file_lock

    python = ecosystem(name)
    venv = python.parents[1]
    house = venv_root() / "wheelhouses" / venv.name
    # .ready: the venv's packages are in; .extras: which BUILD_BACKENDS are
    more = (*BUILD_BACKENDS, *EXTRA_WHEELS.get(name, ()))
    ready, extras, stamp = house / ".ready", house / ".extras", " ".join(more)
    if ready.exists() and extras.exists() and extras.read_text() == stamp:
        return house
    house.parent.mkdir(parents=True, exist_ok=True)
    pip = [str(python), "-m", "pip", "wheel", "-q", "--disable-pip-version-check", "-w", str(house)]
    with file_lock(house.with_suffix(".lock")):
        if not ready.exists():
            frozen = subprocess.run(
                [str(python), "-m", "pip", "freeze", "--exclude-editable", "--all"],
                capture_output=True, text=True, check=True,
            ).stdout.splitlines()  # fmt: skip
            pins = [p for p in frozen if p and not p.lower().startswith(("agentgym-envs", "-e "))]
            house.mkdir(exist_ok=True)
            (house / "requirements.txt").write_text("\n".join(pins) + "\n")
            _pip_wheel(name, [*pip, "--no-deps", "-r", str(house / "requirements.txt")])
            ready.touch()
        if not extras.exists() or extras.read_text() != stamp:
            _pip_wheel(name, [*pip, *more])
            extras.write_text(stamp)
    return house


def _pip_wheel(name: str, cmd: list[str]) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        pytest.fail(f"making the {name} wheelhouse failed:\n{done.stderr[-3000:]}")


def offline_env(name: str) -> dict[str, str]:
    """The environment for a uv run with no index and no network: only :func:`wheelhouse`
    (and the links a package names itself); uv first on ``PATH``, ``PYTHONPATH`` empty."""
    from agentgym_envs.integrations.venvs import uv_binary

    uv = uv_binary()
    if uv is None:
        pytest.fail("uv is not installed: pip install uv (it is in the cli extra)")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UV_", "PIP_", "VIRTUAL_ENV"))}
    env.update(UV_OFFLINE="1", UV_NO_INDEX="1", UV_FIND_LINKS=str(wheelhouse(name)), PYTHONPATH="")
    env["PATH"] = os.pathsep.join([str(Path(uv).parent), env["PATH"]])
    return env


def offline_venv(name: str, install: list[str], where: Path, cwd: Path | None = None) -> Path:
    """A fresh venv in ``where`` (the ecosystem's Python) with ``install`` (uv pip arguments:
    a package folder, or ``-r requirements.txt``) installed with no index and no network:
    only :func:`wheelhouse` and the links the package itself names. Returns its interpreter."""
    from agentgym_envs.integrations.venvs import base_python

    env = offline_env(name)
    subprocess.run(
        ["uv", "venv", "-q", "--python", base_python(name), str(where)], check=True, env=env
    )
    python = where / "bin" / "python"
    if install:
        cmd = ["uv", "pip", "install", "--python", str(python), *install]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, cwd=cwd, env=env)
        assert done.returncode == 0, f"offline install failed:\n{done.stderr[-3000:]}"
    return python


def run_offline_driver(
    python: Path,
    driver: str,
    job: dict[str, Any],
    timeout: float = 900,
    env: dict[str, str] | None = None,
) -> dict:
    """Like :func:`run_driver`, but with only the drivers importable: agentgym-envs comes from
    what ``python``'s venv installed, never from this checkout. ``env`` (e.g.
    :func:`offline_env`) replaces the process environment."""
    env = {k: v for k, v in (os.environ if env is None else env).items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(DRIVERS)
    done = subprocess.run(
        [str(python), str(DRIVERS / f"{driver}.py"), json.dumps(job)],
        capture_output=True, text=True, timeout=timeout, env=env, cwd=str(python.parents[1]),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
