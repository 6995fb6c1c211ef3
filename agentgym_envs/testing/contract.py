"""Check that an env keeps the agentgym-envs contract (see DESIGN.md).

Pass a registered id or an env instance -- your own ``TextEnv`` subclass too, like
``gymnasium.utils.env_checker.check_env`` or PettingZoo's ``api_test``::

    from agentgym_envs.testing import check_text_env
    check_text_env("AgentGym/Wordle-v0")
    check_text_env(MyEnv(), expert=my_solver)   # expert optional for unregistered envs
"""

from __future__ import annotations

import pickle
import statistics
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.utils.env_checker import check_env

from agentgym_envs.core import TextEnv
from agentgym_envs.rollout import run_episode
from agentgym_envs.spec import DEFAULT_MAX_ROUNDS, FAMILIES, env_info, expert_policy

Policy = Callable[[str, dict[str, Any]], str]


@dataclass
class ContractReport:
    """What :func:`check_text_env` measured."""

    env_id: str
    expert_scores: list[float] = field(default_factory=list)
    expert_successes: list[bool] = field(default_factory=list)
    random_scores: list[float] = field(default_factory=list)

    @property
    def expert_mean(self) -> float:
        return statistics.fmean(self.expert_scores) if self.expert_scores else 0.0

    @property
    def random_mean(self) -> float:
        return statistics.fmean(self.random_scores) if self.random_scores else 0.0


def _make(env: str | TextEnv, **kwargs) -> TextEnv:
    if not isinstance(env, str):
        base = env.unwrapped
        assert isinstance(base, TextEnv), f"{type(base).__name__} is not a TextEnv"
        return base
    made = gym.make(env, **kwargs).unwrapped
    assert isinstance(made, TextEnv), f"{env} does not make a TextEnv"
    return made


def _close(env: TextEnv, given: str | TextEnv) -> None:
    if isinstance(given, str):
        env.close()


def _name(env: str | TextEnv) -> str:
    return env if isinstance(env, str) else type(env.unwrapped).__name__


def _random_policy(env: TextEnv, seed: int) -> Policy:
    rng = np.random.default_rng(seed)
    return lambda observation, info: env.random_action(rng)


def _expert_for(env: TextEnv, expert: Callable[[TextEnv], Policy] | None) -> Policy | None:
    if expert is not None:
        return expert(env)
    family = FAMILIES.get(getattr(env, "family", "") or "")
    return expert_policy(env) if family is not None and family.expert else None


def check_api(env_id: str | TextEnv, **kwargs) -> None:
    """gymnasium's ``check_env`` with no warning, spaces and ``info`` keys, bad actions."""
    env = _make(env_id, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env, skip_render_check=env.spec is None)
    obs, info = env.reset(seed=1, options={"split": "test", "task_id": 0})
    assert env.observation_space.contains(obs), "reset observation is outside the Text space"
    for key in ("task_id", "split", "success", "score"):
        assert key in info, f"info is missing {key!r}"
    assert info["task_id"] == 0 and info["split"] == "test"
    for bad in ("", "xyzzy plugh 42 ###", "\x00\u2603 \U0001f600", "a" * 5000):
        obs, _reward, terminated, _truncated, info = env.step(bad)
        assert isinstance(obs, str) and env.observation_space.contains(obs)
        assert "task_id" in info
        if terminated:
            env.reset(seed=1, options={"split": "test", "task_id": 0})
    _close(env, env_id)


def check_determinism(env_id: str | TextEnv, task_ids: Sequence[int] = (0, 1), **kwargs) -> None:
    """Same seed and task give the same transcript; ``task_id`` picks the task."""
    transcripts = []
    for _ in range(2):
        env = _make(env_id, **kwargs)
        runs = []
        for task_id in task_ids:
            policy = _random_policy(env, seed=7)
            ep = run_episode(env, policy, task_id=task_id, split="test", seed=3, max_turns=6)
            runs.append(ep.transcript)
        transcripts.append(runs)
        _close(env, env_id)
    assert transcripts[0] == transcripts[1], "same seed and task gave different transcripts"
    env = _make(env_id, **kwargs)
    _, info = env.reset(seed=0, options={"split": "test", "task_id": task_ids[-1]})
    assert info["task_id"] == task_ids[-1]
    _close(env, env_id)


def check_pickle(env_id: str | TextEnv, **kwargs) -> None:
    """A reset env pickles and the copy continues identically."""
    env = _make(env_id, **kwargs)
    obs, info = env.reset(seed=5, options={"split": "test", "task_id": 0})
    clone = pickle.loads(pickle.dumps(env))
    policy = _expert_for(env, None) or _random_policy(env, seed=5)
    action = policy(obs, info)
    assert env.step(action)[0] == clone.step(action)[0], "unpickled env diverged"
    _close(env, env_id)
    clone.close()


def check_expert_and_random(
    env_id: str | TextEnv,
    expert_tasks: Sequence[int] | None = None,
    random_tasks: int = 20,
    *,
    expert: Callable[[TextEnv], Policy] | None = None,
    **kwargs,
) -> ContractReport:
    """The expert solves every listed test task; a random policy scores clearly lower.

    ``expert`` builds a policy for the env (default: the registered family's expert); an
    unregistered env without one only has its random policy measured.
    """
    report = ContractReport(_name(env_id))
    env = _make(env_id, **kwargs)
    max_rounds = env_info(env_id).max_rounds if isinstance(env_id, str) else DEFAULT_MAX_ROUNDS
    n_test = env.tasks.size("test")
    unsolvable = set(env.unsolvable_test_tasks)
    tasks = [t for t in range(n_test) if t not in unsolvable]
    tasks = tasks if expert_tasks is None else list(expert_tasks)
    solver = _expert_for(env, expert)
    for task_id in tasks if solver is not None else ():
        ep = run_episode(env, solver, task_id=task_id, split="test", seed=task_id, max_turns=1000)
        report.expert_scores.append(ep.score)
        report.expert_successes.append(ep.success)
        assert ep.success, f"{report.env_id}: expert failed test task {task_id} (score {ep.score})"
    rand = _random_policy(env, seed=0)
    for task_id in range(min(random_tasks, n_test)):
        ep = run_episode(
            env, rand, task_id=task_id, split="test", seed=task_id, max_turns=max_rounds
        )
        report.random_scores.append(ep.score)
    if solver is not None:
        expert_mean, random_mean = report.expert_mean, report.random_mean
        assert random_mean < expert_mean * 0.6 or random_mean < expert_mean - 0.3, (
            f"{report.env_id}: random policy scores {random_mean:.3f}, too close to the expert's "
            f"{expert_mean:.3f}"
        )
    _close(env, env_id)
    return report


def check_text_env(
    env: str | TextEnv,
    expert_tasks: Sequence[int] | None = None,
    *,
    expert: Callable[[TextEnv], Policy] | None = None,
    **kwargs,
) -> ContractReport:
    """Run every contract check on ``env`` (an id or an instance); raise ``AssertionError`` on
    the first failure. ``kwargs`` go to ``gymnasium.make`` when ``env`` is an id."""
    check_api(env, **kwargs)
    check_determinism(env, **kwargs)
    check_pickle(env, **kwargs)
    return check_expert_and_random(env, expert_tasks=expert_tasks, expert=expert, **kwargs)
