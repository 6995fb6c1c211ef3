"""``agentgym bench --ray``: the benchmark's episodes on env actors of a Ray cluster.

The runner plans the run and keeps its result file as for a local run; only who plays the
episodes changes. :class:`RayExecutor` joins the cluster and checks it before any episode
(:meth:`RayExecutor.prepare`), then hands the episodes to an
:class:`~agentgym_envs.rollout.ray.pool.ActorPool` (one actor group per env id: the env made
as the local runner makes it, the policy from the same spec) and appends each record to the
run's ``results.jsonl`` as it comes back. An episode whose actors kept dying is recorded as the
local runner records an episode that raised (``outcome=env_error``, ``reward_valid=false``;
played again on resume).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from agentgym_envs.benchmarks.agenteval import BenchItem
from agentgym_envs.benchmarks.policies import PolicySpec

logger = logging.getLogger(__name__)


class BenchPlayer:
    """One benchmark env in an env actor; a payload is ``(item, sample)``."""

    def __init__(
        self,
        env_id: str,
        spec: PolicySpec,
        *,
        max_rounds: int,
        seed: int,
        record: bool,
        loop: Any,
        env_kwargs: dict[str, Any],
    ) -> None:
        import agentgym_envs  # noqa: F401  (registers the ids in the actor's process)
        from agentgym_envs.benchmarks.runner import make_policy_env

        self.spec, self.max_rounds, self.seed, self.record, self.loop = (
            spec,
            max_rounds,
            seed,
            record,
            loop,
        )
        self.env = make_policy_env(
            env_id, spec.format, max_rounds=max_rounds, loop=loop, **env_kwargs
        )

    def play(self, payload: tuple[BenchItem, int]) -> dict[str, Any]:
        from agentgym_envs.benchmarks.runner import play_episode

        item, sample = payload
        return play_episode(
            self.env,
            self.spec,
            item,
            sample=sample,
            seed=self.seed,
            max_rounds=self.max_rounds,
            record=self.record,
            loop=self.loop,
        ).to_record()

    def close(self) -> None:
        self.env.close()


def _factory(env_id: str, spec: PolicySpec, **kwargs: Any) -> Callable[[], BenchPlayer]:
    return lambda: BenchPlayer(env_id, spec, **kwargs)


class RayExecutor:
    """Plays a run's episodes on Ray (see the module docstring).

    Args:
        address: the cluster (:func:`~agentgym_envs.rollout.ray.cluster.connect`: ``None`` for
            ``$RAY_ADDRESS`` or a new local cluster).
        actors: env actors at once (the run's ``concurrency``).
        max_retries: replays of an episode whose actor died.
    """

    def __init__(
        self,
        address: str | None,
        *,
        actors: int,
        max_retries: int = 2,
        num_cpus: float = 1.0,
        episode_timeout: float | None = None,
    ) -> None:
        self.address, self.actors, self.max_retries = address, actors, max_retries
        self.num_cpus, self.episode_timeout = num_cpus, episode_timeout
        self.groups: dict[str, Any] = {}
        self.stats: Any = None
        self.seed = 0

    def prepare(
        self,
        plan: Any,
        policy: PolicySpec,
        *,
        seed: int,
        record: bool,
        loop: Any,
        env_kwargs: dict[str, dict[str, Any]],
    ) -> None:
        """Join the cluster, check every node that may host the plan's envs, and build the
        actor groups: one line of :class:`~agentgym_envs.rollout.ray.cluster.ClusterError`
        before any episode when something is amiss."""
        from agentgym_envs.rollout.ray import Group, connect, needs, preflight
        from agentgym_envs.rollout.ray.cluster import ClusterError, alive_nodes

        ray = connect(self.address)
        _check_picklable(policy)
        self.seed = seed
        all_needs = {e: needs(e, num_cpus=self.num_cpus) for e in plan.env_ids}
        declared = preflight(ray, all_needs.values())
        nodes = alive_nodes(ray)
        for env_id, need in all_needs.items():
            factory = _factory(
                env_id,
                policy,
                max_rounds=plan.rounds[env_id],
                seed=seed,
                record=record,
                loop=loop,
                env_kwargs=env_kwargs.get(env_id, {}),
            )
            hosts = [n["NodeID"] for n in nodes if need.fits(n, declared)]
            if not hosts:  # pragma: no cover - preflight refused it already
                raise ClusterError(f"no node can host {env_id}")
            self.groups[env_id] = Group(factory, need.options(declared), hosts)

    def run(
        self, todo: list[tuple[BenchItem, int]], append: Callable[[Any], None], bar: Any
    ) -> None:
        """Play ``todo``; ``append(result)`` each :class:`~.runner.EpisodeResult` as it ends."""
        from agentgym_envs.benchmarks.llm import EndpointError
        from agentgym_envs.benchmarks.runner import EpisodeResult, _episode_seed, _failed
        from agentgym_envs.rollout.ray import ActorPool, Job

        pool = ActorPool(
            self.groups,
            num_actors=self.actors,
            max_retries=self.max_retries,
            episode_timeout=self.episode_timeout,
        )
        self.stats = pool.stats
        jobs = (Job((it.env_id, it.item_id, s), it.env_id, (it, s)) for it, s in todo)
        for outcome in pool.stream(jobs):
            item, sample = outcome.job.payload
            if isinstance(outcome.error, EndpointError):
                pool.stop()
                raise outcome.error
            if outcome.ok:
                result = EpisodeResult(**outcome.value)
            else:
                problem = outcome.error or RuntimeError(
                    f"env actor lost {outcome.attempts} times: {outcome.lost}"
                )
                logger.error("episode %s sample %d failed: %s", item.item_id, sample, problem)
                seed = _episode_seed(self.seed, item.task_id, sample)
                result = _failed(item, sample, seed, problem)  # type: ignore[arg-type]
            append(result)
            bar.update(item.env_id, result.success)
        logger.info("ray: %s", pool.stats.line())


def _check_picklable(policy: PolicySpec) -> None:
    """One line if the policy cannot travel to the actors."""
    from agentgym_envs.errors import AgentGymError

    try:
        import ray.cloudpickle as cloudpickle

        cloudpickle.dumps(policy)
    except Exception as exc:
        raise AgentGymError(
            f"policy {policy.name!r} cannot be sent to Ray actors ({type(exc).__name__}: {exc}): "
            "give a policy whose factory pickles"
        ) from None


__all__ = ["BenchPlayer", "RayExecutor"]
