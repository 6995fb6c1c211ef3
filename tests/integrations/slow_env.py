"""A Maze whose ``wait <seconds>`` action sleeps (a 5 s BIRD query, a stuck simulator), as a
registered id for the duration of a test (:func:`slow_maze`)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

import gymnasium as gym

from agentgym_envs.envs.maze.env import MazeEnv
from agentgym_envs.spec import ENV_INFO, FAMILIES, register_env

SLOW_ID = "AgentGym/SlowMazeTest-v0"


class SlowMazeEnv(MazeEnv):
    def step(self, action):
        if isinstance(action, str) and action.startswith("wait "):
            time.sleep(float(action.split()[1]))
        return super().step(action)


@contextlib.contextmanager
def slow_maze() -> Iterator[str]:
    """Register :data:`SLOW_ID` (a slow Maze) and yield it; unregister on exit."""
    maze = ENV_INFO["AgentGym/Maze-v0"]
    register_env(
        FAMILIES[maze.family],
        SLOW_ID.split("/")[1],
        splits=maze.splits,
        description="a Maze whose 'wait N' action sleeps N seconds (tests only)",
        entry_point="tests.integrations.slow_env:SlowMazeEnv",
        ours=True,
    )
    try:
        yield SLOW_ID
    finally:
        ENV_INFO.pop(SLOW_ID, None)
        gym.registry.pop(SLOW_ID, None)
