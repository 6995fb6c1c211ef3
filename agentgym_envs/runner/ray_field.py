"""Field runs on Ray (``backend: ray`` in a profile): the episodes on env actors of a cluster.

The runner plans, records and sends events as for a local run; :func:`play_on_ray` only
replaces its thread pool. Each env id of the run gets an actor group (the env made as the
local runner makes it, inside the actor); the policy spec travels with each episode, so a
model endpoint that fails over (:class:`~agentgym_envs.runner.endpoints.PolicyChain`) takes
effect at the next episode, and the episode that met the failure is played again on the next
endpoint. The cluster is checked before any episode (one line of
:class:`~agentgym_envs.rollout.ray.cluster.ClusterError`).
"""

from __future__ import annotations

import logging
from typing import Any

logger = logging.getLogger(__name__)


class FieldPlayer:
    """One field env in an env actor; a payload is ``(item, repeat, spec)``."""

    def __init__(self, profile: Any, plan: Any, fmt: str) -> None:
        import agentgym_envs  # noqa: F401  (registers the ids in the actor's process)
        from agentgym_envs.runner.field import _EnvPool

        self.profile, self.plan = profile, plan
        self.env = _EnvPool(profile, fmt).make(plan)

    def play(self, payload: tuple[Any, int, Any]) -> dict[str, Any]:
        from agentgym_envs.benchmarks import play_episode

        item, repeat, spec = payload
        return play_episode(
            self.env,
            spec,
            item,
            sample=repeat,
            seed=self.profile.seed,
            max_rounds=self.plan.max_rounds,
            record=self.profile.record,
        ).to_record()

    def close(self) -> None:
        self.env.close()


def play_on_ray(runner: Any, todo: list[tuple[Any, Any, int]]) -> bool:
    """Play ``todo`` (the runner's ``(plan, item, repeat)`` list) on Ray; True when Ctrl-C
    stopped it."""
    from agentgym_envs.benchmarks import EndpointError
    from agentgym_envs.interrupts import CtrlC
    from agentgym_envs.rollout.ray import ActorPool, Group, Job, connect, needs, preflight
    from agentgym_envs.rollout.ray.cluster import alive_nodes
    from agentgym_envs.runner.endpoints import EndpointsDownError
    from agentgym_envs.runner.field import error_record

    profile, chain = runner.profile, runner.chain
    fmt = "plain" if chain.scripted else profile.model.format
    plans = {p.env_id: p for p in runner.plans}
    ray = connect(profile.ray_address)
    all_needs = {e: needs(e) for e in plans}
    declared = preflight(ray, all_needs.values())
    nodes = alive_nodes(ray)
    groups = {
        env_id: Group(
            lambda plan=plan: FieldPlayer(profile, plan, fmt),
            all_needs[env_id].options(declared),
            [n["NodeID"] for n in nodes if all_needs[env_id].fits(n, declared)],
        )
        for env_id, plan in plans.items()
    }
    pool = ActorPool(groups, num_actors=profile.concurrency)
    jobs = (
        Job((p.env_id, item.item_id, r), p.env_id, (item, r, chain.spec)) for p, item, r in todo
    )
    with CtrlC() as ctrl_c:
        for outcome in pool.stream(jobs):
            item, repeat, spec = outcome.job.payload
            plan = plans[outcome.job.group]
            if isinstance(outcome.error, EndpointError):
                try:
                    chain.fail_over(spec, outcome.error)
                except EndpointsDownError as down:
                    runner.fatal = down
                    pool.stop()
                    continue
                pool.submit_again(
                    Job(outcome.job.key, outcome.job.group, (item, repeat, chain.spec))
                )
                continue
            if outcome.ok:
                record = outcome.value
            else:
                problem = (
                    outcome.error or f"env actor lost {outcome.attempts} times: {outcome.lost}"
                )
                logger.error(
                    "%s %s repeat %d failed: %s", plan.env_id, item.item_id, repeat, problem
                )
                text = (
                    problem if isinstance(problem, str) else f"{type(problem).__name__}: {problem}"
                )
                record = error_record(plan, item, repeat, text)
            runner._finish(plan, record, repeat)
            if ctrl_c.pressed.is_set():
                pool.stop()
    logger.info("field run on ray: %s", pool.stats.line())
    return ctrl_c.pressed.is_set()


__all__ = ["FieldPlayer", "play_on_ray"]
