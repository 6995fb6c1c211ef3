"""Vectorised rollouts: Gymnasium vector envs of text envs, and :func:`collect` over many tasks.

Gymnasium's ``AsyncVectorEnv`` copies observations through shared numeric memory by default,
which turns a ``Text`` observation into a string of ``'0'`` characters; text envs need
``shared_memory=False`` so observations travel pickled. :func:`make_vector_env` sets that.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import gymnasium as gym

from agentgym_envs.rollout.episode import Episode, Policy

logger = logging.getLogger(__name__)


def make_vector_env(
    env_id: str,
    num_envs: int,
    *,
    asynchronous: bool = False,
    **make_kwargs: Any,
) -> gym.vector.VectorEnv:
    """``num_envs`` copies of ``env_id`` as a ``SyncVectorEnv`` or ``AsyncVectorEnv``.

    Observations are tuples of strings; the async variant runs each env in its own process
    with ``shared_memory=False`` (required for ``Text`` spaces).
    """
    fns = [lambda: gym.make(env_id, **make_kwargs) for _ in range(num_envs)]
    if asynchronous:
        return gym.vector.AsyncVectorEnv(fns, shared_memory=False)
    return gym.vector.SyncVectorEnv(fns)


def collect(
    env_fn: Callable[[], gym.Env] | str,
    policy: Policy | Callable[[], Policy],
    task_ids: Iterable[int],
    *,
    split: str = "test",
    num_envs: int = 4,
    max_turns: int | None = None,
    policy_factory: bool = False,
    seed: int | None = None,
    backend: str = "local",
    address: str | None = None,
) -> list[Episode]:
    """Play ``policy`` on every task in ``task_ids`` with ``num_envs`` envs in lockstep.

    ``env_fn`` is an env id or a zero-argument constructor. The envs take turns: every round,
    each busy env asks its policy for one action and steps; a finished env picks up the next
    task. With ``policy_factory=True`` ``policy`` is called once per env to build a private
    policy for it; for policies bound to their env (experts) use :func:`collect_with`.
    Episodes come back in ``task_ids`` order, closed as
    :func:`~agentgym_envs.rollout.episode.run_episode` closes them (``outcome``,
    ``reward_valid``; the ``max_turns`` cut is truncation reason ``max_rounds``, outcome
    ``turn_limit``). A policy with ``collect_episodes`` (an
    :class:`~agentgym_envs.agents.AgentServerPolicy`) plays the episodes itself, ``num_envs``
    at a time, on ``env_fn`` (an env id).

    ``backend="ray"`` plays them on ``num_envs`` env actors of the Ray cluster at ``address``
    (see :func:`~agentgym_envs.rollout.ray.ray_collect`; ``env_fn`` and ``policy`` must
    pickle): the same episodes, in the same order.
    """
    if backend not in ("local", "ray"):
        raise ValueError(f"backend={backend!r}: use 'local' or 'ray'")
    if hasattr(policy, "collect_episodes"):  # plays whole episodes elsewhere (agent server)
        if not isinstance(env_fn, str):
            raise ValueError("a policy that plays whole episodes (an agent server) takes an env id")
        return policy.collect_episodes(  # type: ignore[union-attr]
            env_fn,
            list(task_ids),
            split=split,
            concurrency=num_envs,
            max_turns=max_turns,
            seed=seed,
        )
    if backend == "ray":
        from agentgym_envs.rollout.ray import ray_collect

        def make_policy(env: gym.Env) -> Policy:
            return policy() if policy_factory else policy  # type: ignore[call-arg]

        return ray_collect(
            env_fn,
            make_policy,
            task_ids,
            split=split,
            num_workers=num_envs,
            max_turns=max_turns,
            seed=seed,
            address=address,
        )
    make = (lambda: gym.make(env_fn)) if isinstance(env_fn, str) else env_fn
    envs = [make() for _ in range(max(1, num_envs))]
    policies = [policy() if policy_factory else policy for _ in envs]  # type: ignore[call-arg]
    return _run(envs, policies, list(task_ids), split, max_turns, seed)


def collect_with(
    envs: Sequence[gym.Env],
    policies: Sequence[Policy],
    task_ids: Iterable[int],
    *,
    split: str = "test",
    max_turns: int | None = None,
    seed: int | None = None,
) -> list[Episode]:
    """:func:`collect` over envs and per-env policies the caller built (e.g. experts)."""
    if len(envs) != len(policies):
        raise ValueError("one policy per env")
    return _run(list(envs), list(policies), list(task_ids), split, max_turns, seed)


def _run(
    envs: list[gym.Env],
    policies: list[Policy],
    tasks: list[int],
    split: str,
    max_turns: int | None,
    seed: int | None,
) -> list[Episode]:
    results: dict[int, Episode] = {}
    queue = list(enumerate(tasks))
    active: dict[int, tuple[int, Episode, str, dict[str, Any]]] = {}

    def start(slot: int) -> None:
        if not queue:
            active.pop(slot, None)
            return
        pos, task_id = queue.pop(0)
        obs, info = envs[slot].reset(
            seed=None if seed is None else seed + pos,
            options={"split": split, "task_id": task_id},
        )
        ep = Episode(task_id=info["task_id"], split=info["split"], observations=[obs])
        ep.reset_info = info
        active[slot] = (pos, ep, obs, info)

    def finish(slot: int, pos: int, ep: Episode, info: dict[str, Any]) -> None:
        ep.finish(info)
        results[pos] = ep
        start(slot)

    for slot in range(len(envs)):
        start(slot)
    while active:
        for slot in list(active):
            pos, ep, obs, info = active[slot]
            if max_turns is not None and ep.turns >= max_turns:
                ep.truncated, ep.truncation_reason = True, "max_rounds"
                finish(slot, pos, ep, info)
                continue
            action = policies[slot](obs, info)
            obs, reward, terminated, truncated, info = envs[slot].step(action)
            ep.actions.append(action)
            ep.observations.append(obs)
            ep.rewards.append(float(reward))
            if terminated or truncated:
                ep.terminated = bool(terminated)
                ep.truncated = bool(truncated) and not terminated
                if ep.truncated:
                    ep.truncation_reason = info.get("truncation_reason", "env")
                finish(slot, pos, ep, info)
            else:
                active[slot] = (pos, ep, obs, info)
    logger.debug("collected %d episodes with %d envs", len(results), len(envs))
    return [results[i] for i in range(len(tasks))]
