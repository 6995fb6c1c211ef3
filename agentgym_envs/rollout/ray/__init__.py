"""The Ray backend (extra ``ray``): env actors on a cluster, for rollouts, benchmarks and field runs.

- :mod:`.cluster`: join a cluster (:func:`connect`) and check its nodes before any episode
  (:func:`preflight`);
- :mod:`.placement`: a family's needs (programs, memory) as actor options;
- :mod:`.pool`: :class:`ActorPool`, env actors that stream outcomes, retry lost episodes and
  recycle themselves;
- :mod:`.collect`: :func:`ray_collect` / :func:`ray_episodes`, rollouts on the pool.

Nothing here imports ``ray`` until it is used.
"""

from agentgym_envs.rollout.ray.cluster import ClusterError, connect, preflight
from agentgym_envs.rollout.ray.collect import ray_collect, ray_episodes
from agentgym_envs.rollout.ray.placement import Needs, needs
from agentgym_envs.rollout.ray.pool import ActorPool, Group, Job, Outcome, PoolError, PoolStats

__all__ = [
    "ActorPool",
    "ClusterError",
    "Group",
    "Job",
    "Needs",
    "Outcome",
    "PoolError",
    "PoolStats",
    "connect",
    "needs",
    "preflight",
    "ray_collect",
    "ray_episodes",
]
