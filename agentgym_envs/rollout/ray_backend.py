"""Kept for older imports: the Ray backend lives in :mod:`agentgym_envs.rollout.ray`."""

from agentgym_envs.rollout.ray.collect import ray_collect, ray_episodes

#: Where this module's names live now (the docs checker refuses a page naming this module).
MOVED_TO = "agentgym_envs.rollout.ray"

__all__ = ["ray_collect", "ray_episodes"]
