"""Turn and wall-clock limits: AgentGym's max rounds and a time budget, as truncation.

Both set ``truncated=True`` with ``info["truncation_reason"]`` (``"turn_limit"``,
``"wall_clock"``; ``"max_episode_steps"`` when the engine's own cap from the registry fired
first) and the episode's ``info["outcome"]`` (``turn_limit`` or ``time_limit``, unless the env
set one). The env's ``info`` passes through untouched, so ``success`` and ``score`` stay the
benchmark's truth on the truncating step. A turn is one ``step()`` call on the wrapper: put the
limit outside ReAct / FunctionCalling and every model reply counts, as AgentGym's rounds do.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym

from agentgym_envs.core import TRUNCATION_OUTCOMES
from agentgym_envs.spec import DEFAULT_MAX_ROUNDS, info_for

#: AgentGym's wall-clock budget per episode, in seconds.
DEFAULT_MAX_SECONDS = 300.0


def default_max_rounds(env: gym.Env) -> int:
    """AgentGym's max rounds for ``env``'s id (registry), or 15 for an unregistered env."""
    record = info_for(env)
    return record.max_rounds if record is not None else DEFAULT_MAX_ROUNDS


def check_turns(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be an int >= 1, got {value!r}")
    return int(value)


def _mark(info: dict[str, Any], reason: str) -> dict[str, Any]:
    """``info`` of a truncating step: why it was cut, and the episode's outcome (the env
    contract's word for the reason, unless the env already gave one)."""
    info = dict(info)
    info.setdefault("truncation_reason", reason)
    info.setdefault(
        "outcome", TRUNCATION_OUTCOMES.get(str(info["truncation_reason"]), "turn_limit")
    )
    info.setdefault("reward_valid", True)
    return info


class TurnLimit(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Truncate the episode after ``max_turns`` steps (default: AgentGym's max rounds for the id).

    The step that reaches the limit is returned with ``truncated=True`` unless the env
    terminated on it; ``info["truncation_reason"] == "turn_limit"``.
    """

    def __init__(self, env: gym.Env, max_turns: int | None = None) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, max_turns=max_turns)
        gym.Wrapper.__init__(self, env)
        self.max_turns = (
            default_max_rounds(env) if max_turns is None else check_turns("max_turns", max_turns)
        )
        self.elapsed_turns = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self.elapsed_turns = 0
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.elapsed_turns += 1
        if truncated and "truncation_reason" not in info:
            info = _mark(info, "max_episode_steps")
        if not terminated and self.elapsed_turns >= self.max_turns:
            truncated = True
            info = _mark(info, "turn_limit")
        return obs, reward, terminated, truncated, info


class WallClockLimit(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Truncate the episode once ``max_seconds`` have passed since ``reset()`` (default 300 s).

    Checked after each step; ``info["elapsed_seconds"]`` reports the time used and
    ``info["truncation_reason"] == "wall_clock"`` marks the cut. ``clock`` (default
    :func:`time.monotonic`) is any zero-argument callable returning seconds, so tests and
    simulated runs need not sleep.
    """

    def __init__(
        self,
        env: gym.Env,
        max_seconds: float = DEFAULT_MAX_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if (
            isinstance(max_seconds, bool)
            or not isinstance(max_seconds, numbers.Real)
            or not math.isfinite(max_seconds)
            or max_seconds <= 0
        ):
            raise ValueError(f"max_seconds must be a finite number > 0, got {max_seconds!r}")
        if not callable(clock):
            raise TypeError(f"clock must be a callable returning seconds, got {clock!r}")
        gym.utils.RecordConstructorArgs.__init__(self, max_seconds=max_seconds)
        gym.Wrapper.__init__(self, env)
        self.max_seconds = float(max_seconds)
        self.clock = clock
        self._start: float | None = None

    @property
    def elapsed_seconds(self) -> float:
        return 0.0 if self._start is None else float(self.clock()) - self._start

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        self._start = float(self.clock())
        return obs, info

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self.env.step(action)
        elapsed = self.elapsed_seconds
        info = dict(info, elapsed_seconds=elapsed)
        if not terminated and elapsed >= self.max_seconds:
            truncated = True
            info = _mark(info, "wall_clock")
        return obs, reward, terminated, truncated, info


__all__ = ["DEFAULT_MAX_SECONDS", "TurnLimit", "WallClockLimit", "default_max_rounds"]
