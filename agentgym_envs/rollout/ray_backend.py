"""Collect episodes across Ray actors (extra ``ray``): the same result as :func:`collect`.

Each actor owns one env and one policy built in its own process from picklable factories;
tasks are handed out one at a time to whichever actor is free, and episodes come back in
task order.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

import gymnasium as gym

from agentgym_envs.errors import require
from agentgym_envs.rollout.episode import Episode, Policy, run_episode

logger = logging.getLogger(__name__)


class _Worker:
    """One env and its policy, living in a Ray actor."""

    def __init__(
        self,
        env_fn: Callable[[], gym.Env] | str,
        policy_fn: Callable[[gym.Env], Policy],
    ) -> None:
        self.env = gym.make(env_fn) if isinstance(env_fn, str) else env_fn()
        self.policy = policy_fn(self.env)

    def play(self, task_id: int, split: str, seed: int | None, max_turns: int | None) -> Episode:
        return run_episode(
            self.env, self.policy, task_id=task_id, split=split, seed=seed, max_turns=max_turns
        )


def ray_collect(
    env_fn: Callable[[], gym.Env] | str,
    policy_fn: Callable[[gym.Env], Policy],
    task_ids: Iterable[int],
    *,
    split: str = "test",
    num_workers: int = 2,
    max_turns: int | None = None,
    seed: int | None = None,
    actor_options: dict[str, Any] | None = None,
) -> list[Episode]:
    """Play every task in ``task_ids`` on ``num_workers`` Ray actors; episodes in task order.

    ``env_fn`` is an env id or a picklable zero-argument constructor; ``policy_fn(env)``
    builds the actor's policy for its env (e.g. ``lambda env: WordleExpert(env.unwrapped)``).
    Ray must be initialised (``ray.init``) or it starts a local cluster on first use.
    """
    ray = require("ray", "ray")

    remote_cls = ray.remote(**(actor_options or {"num_cpus": 0}))(_Worker)
    actors = [remote_cls.remote(env_fn, policy_fn) for _ in range(max(1, num_workers))]
    tasks = list(enumerate(task_ids))
    results: dict[int, Episode] = {}
    pending: dict[Any, tuple[int, Any]] = {}

    def submit(actor: Any) -> None:
        if tasks:
            pos, task_id = tasks.pop(0)
            ref = actor.play.remote(task_id, split, None if seed is None else seed + pos, max_turns)
            pending[ref] = (pos, actor)

    for actor in actors:
        submit(actor)
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        pos, actor = pending.pop(done[0])
        results[pos] = ray.get(done[0])
        submit(actor)
    for actor in actors:
        ray.kill(actor)
    logger.debug("ray_collect: %d episodes on %d actors", len(results), len(actors))
    return [results[i] for i in range(len(results))]
