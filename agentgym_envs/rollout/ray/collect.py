"""Rollouts on a Ray cluster: :func:`ray_episodes` streams them, :func:`ray_collect` returns
them in task order (what ``collect(..., backend="ray")`` does)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import gymnasium as gym

from agentgym_envs.rollout.episode import Episode, Policy

logger = logging.getLogger(__name__)


def _player(env_fn: Any, policy_fn: Any, split: str, max_turns: int | None) -> Callable[[], Any]:
    from agentgym_envs.rollout.ray.actor import EpisodePlayer

    def factory() -> EpisodePlayer:
        import agentgym_envs  # noqa: F401  (registers the ids in the actor's process)

        return EpisodePlayer(env_fn, policy_fn, split, max_turns)

    return factory


def ray_episodes(
    env_fn: Callable[[], gym.Env] | str,
    policy_fn: Callable[[gym.Env], Policy],
    task_ids: Iterable[int],
    *,
    split: str = "test",
    num_workers: int = 2,
    per_node: int | None = None,
    max_turns: int | None = None,
    seed: int | None = None,
    address: str | None = None,
    num_cpus: float = 1.0,
    actor_options: dict[str, Any] | None = None,
    max_retries: int = 2,
    recycle_after: int | None = None,
    episode_timeout: float | None = None,
    stats: Any = None,
) -> Iterator[tuple[int, Episode]]:
    """Play every task in ``task_ids`` on Ray env actors; yield ``(position, episode)`` as each
    finishes (``position``: the task's place in ``task_ids``).

    ``env_fn`` is an env id (its family's needs place the actors, and the cluster is checked
    first: see :func:`~agentgym_envs.rollout.ray.cluster.preflight`) or a picklable
    constructor; ``policy_fn(env)`` builds an actor's policy for its env. The cluster is the
    one at ``address`` (see :func:`~agentgym_envs.rollout.ray.cluster.connect`), or the one
    ``ray`` is already connected to. An episode whose actors kept dying comes back with
    ``outcome="env_error"`` and ``reward_valid=False``. ``stats``: a
    :class:`~agentgym_envs.rollout.ray.pool.PoolStats` to fill.
    """
    from agentgym_envs.rollout.ray.cluster import alive_nodes, connect, preflight
    from agentgym_envs.rollout.ray.placement import needs
    from agentgym_envs.rollout.ray.pool import ActorPool, Group, Job

    ray = connect(address)
    group = Group(_player(env_fn, policy_fn, split, max_turns))
    if isinstance(env_fn, str):
        need = needs(env_fn, num_cpus=num_cpus)
        declared = preflight(ray, [need])
        group.options = need.options(declared)
        group.nodes = [n["NodeID"] for n in alive_nodes(ray) if need.fits(n, declared)]
    else:
        group.options = {"num_cpus": num_cpus}
    group.options.update(actor_options or {})
    pool = ActorPool(
        {"env": group},
        num_actors=max(1, num_workers),
        per_node=per_node,
        max_retries=max_retries,
        recycle_after=recycle_after,
        episode_timeout=episode_timeout,
    )
    if stats is not None:
        pool.stats = stats
    jobs = (
        Job(pos, "env", (task_id, None if seed is None else seed + pos))
        for pos, task_id in enumerate(task_ids)
    )
    for outcome in pool.stream(jobs):
        if outcome.error is not None:
            raise outcome.error
        if outcome.lost is not None:
            yield outcome.job.key, _lost_episode(outcome.job.payload[0], split, outcome.lost)
        else:
            yield outcome.job.key, outcome.value
    logger.info("ray rollouts: %s", pool.stats.line())


def _lost_episode(task_id: int, split: str, reason: str) -> Episode:
    episode = Episode(task_id=task_id, split=split, truncated=True, truncation_reason="env_error")
    episode.finish({"error": reason, "reward_valid": False})
    episode.outcome = "env_error"
    return episode


def ray_collect(
    env_fn: Callable[[], gym.Env] | str,
    policy_fn: Callable[[gym.Env], Policy],
    task_ids: Iterable[int],
    **kwargs: Any,
) -> list[Episode]:
    """:func:`ray_episodes`, gathered in ``task_ids`` order (the same list :func:`collect`
    returns)."""
    results = dict(ray_episodes(env_fn, policy_fn, task_ids, **kwargs))
    return [results[i] for i in range(len(results))]


__all__ = ["ray_collect", "ray_episodes"]
