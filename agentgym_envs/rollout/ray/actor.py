"""The env actor: one player (an env and its policy) in a Ray actor, reused across episodes.

A *player* is what a factory builds inside the actor's process: an object with
``play(payload) -> result`` (one episode), and optionally ``healthy() -> bool`` (asked after
each episode: ``False`` has the pool replace the actor) and ``close()``. :class:`EpisodePlayer`
is the rollout's player; the benchmark and the field runner bring their own.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

import gymnasium as gym

from agentgym_envs.rollout.episode import Episode, Policy, run_episode

logger = logging.getLogger(__name__)


class EnvActor:
    """Hosts one player; the pool drives it through :meth:`ready`, :meth:`play`, :meth:`close`."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self.player = factory()
        self.played = 0

    def ready(self) -> dict[str, Any]:
        """Where the actor runs (its env is made by now): node id, node IP, pid."""
        import ray

        return {
            "node_id": ray.get_runtime_context().get_node_id(),
            "ip": ray.util.get_node_ip_address(),
            "pid": os.getpid(),
        }

    def play(self, payload: Any) -> tuple[Any, bool]:
        """One episode: the player's result and whether the actor is still fit for the next."""
        self.played += 1
        result = self.player.play(payload)
        check = getattr(self.player, "healthy", None)
        return result, bool(check()) if check is not None else True

    def close(self) -> None:
        close = getattr(self.player, "close", None)
        if close is not None:
            try:
                close()
            except Exception:
                logger.debug("closing the player failed", exc_info=True)


class EpisodePlayer:
    """A rollout's player: one env from ``env_fn`` (an id or a constructor) and
    ``policy_fn(env)``; a payload is ``(task_id, seed)``."""

    def __init__(
        self,
        env_fn: Callable[[], gym.Env] | str,
        policy_fn: Callable[[gym.Env], Policy],
        split: str = "test",
        max_turns: int | None = None,
    ) -> None:
        self.env = gym.make(env_fn) if isinstance(env_fn, str) else env_fn()
        self.policy = policy_fn(self.env)
        self.split, self.max_turns = split, max_turns

    def play(self, payload: tuple[int, int | None]) -> Episode:
        task_id, seed = payload
        return run_episode(
            self.env,
            self.policy,
            task_id=task_id,
            split=self.split,
            seed=seed,
            max_turns=self.max_turns,
        )

    def close(self) -> None:
        self.env.close()


__all__ = ["EnvActor", "EpisodePlayer"]
