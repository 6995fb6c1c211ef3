"""Kept for older imports: the Ray backend lives in :mod:`agentgym_envs.rollout.ray`."""

from agentgym_envs.rollout.ray.collect import ray_collect, ray_episodes

__all__ = ["ray_collect", "ray_episodes"]
