"""Horizon curriculum: ScalingInter-RL's growing turn limit.

AgentGym-RL trains with few interaction rounds first and more later
(``algorithm.rounds_ctrl.type=scaling_inter_stepwise``): with ``rounds=[10, 20, 30]`` and an
interval of 100, global steps 1-99 allow 10 rounds, 100-199 allow 20, and 200 on allow 30
(the global step starts at 1; stage = step // interval, capped at the last stage).

A :class:`HorizonSchedule` holds that schedule and a counter. The trainer advances it --
``schedule.step()`` once per training step, or ``schedule.set_step(global_step)`` -- or, with
``unit="episode"``, every reset of a :class:`HorizonCurriculum` advances it. One schedule can
drive many envs in a process; in subprocess vector envs call ``envs.call("set_global_step", n)``.
AgentGym-RL's published schedules ship as :data:`SCALING_INTER_PRESETS`.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym

from agentgym_envs.errors import unknown_name
from agentgym_envs.spec import FAMILIES
from agentgym_envs.wrappers.limits import TurnLimit, check_turns

#: AgentGym-RL's ScalingInter-RL schedules (``examples/train/ScalingInter-RL``): family ->
#: (rounds per stage, training steps per stage); a view of the family records.
SCALING_INTER_PRESETS: dict[str, tuple[tuple[int, ...], int]] = {
    f.name: f.scaling_inter for f in FAMILIES.values() if f.scaling_inter
}

#: AgentGym-RL's fixed-horizon baselines (``examples/train/AgentGym-RL``): family -> rounds.
FIXED_ROUNDS_BASELINES: dict[str, int] = {
    f.name: f.fixed_rounds for f in FAMILIES.values() if f.fixed_rounds
}

_UNITS = ("step", "episode")


class HorizonSchedule:
    """Rounds per stage, changing every ``interval`` training steps (or episodes).

    Args:
        rounds: the turn limit of each stage, e.g. ``[10, 20, 30]``.
        interval: steps (or episodes) per stage (AgentGym-RL: 100; WebArena 80).
        unit: ``"step"`` (the trainer calls :meth:`step` / :meth:`set_step`) or ``"episode"``
            (each reset of a :class:`HorizonCurriculum` counts one).
        start: the counter's first value; default 1 for steps (AgentGym-RL's global step starts
            at 1), 0 for episodes.
    """

    def __init__(
        self,
        rounds: Sequence[int],
        interval: int = 100,
        unit: str = "step",
        start: int | None = None,
    ) -> None:
        if isinstance(rounds, (str, bytes)) or not isinstance(rounds, Sequence) or not rounds:
            raise ValueError(f"rounds must be a non-empty list of ints >= 1, got {rounds!r}")
        self.rounds = tuple(check_turns("each of rounds", r) for r in rounds)
        self.interval = check_turns("interval", interval)
        if unit not in _UNITS:
            raise ValueError(f"unit={unit!r} is not supported: use 'step' or 'episode'")
        self.unit = unit
        if start is None:
            start = 1 if unit == "step" else 0
        if isinstance(start, bool) or not isinstance(start, numbers.Integral) or start < 0:
            raise ValueError(f"start must be an int >= 0, got {start!r}")
        self.count = int(start)

    @classmethod
    def preset(cls, name: str, unit: str = "step") -> HorizonSchedule:
        """AgentGym-RL's ScalingInter-RL schedule of a family (``"babyai"``, ``"textcraft"``)."""
        key = str(name).lower()
        if key not in SCALING_INTER_PRESETS:
            raise ValueError(
                unknown_name("ScalingInter-RL preset", str(name), SCALING_INTER_PRESETS)
            )
        rounds, interval = SCALING_INTER_PRESETS[key]
        return cls(rounds, interval, unit=unit)

    @property
    def stage(self) -> int:
        return min(self.count // self.interval, len(self.rounds) - 1)

    @property
    def current(self) -> int:
        """The turn limit now."""
        return self.rounds[self.stage]

    def rounds_at(self, count: int) -> int:
        """The turn limit at step (or episode) ``count``."""
        return self.rounds[min(max(int(count), 0) // self.interval, len(self.rounds) - 1)]

    def step(self, n: int = 1) -> int:
        """Advance the counter by ``n``; returns the new turn limit."""
        self.count += int(n)
        return self.current

    def set_step(self, count: int) -> int:
        """Set the counter (e.g. to the trainer's global step); returns the turn limit."""
        if isinstance(count, bool) or not isinstance(count, numbers.Integral) or count < 0:
            raise ValueError(f"step must be an int >= 0, got {count!r}")
        self.count = int(count)
        return self.current

    def state_dict(self) -> dict[str, Any]:
        return {
            "rounds": list(self.rounds),
            "interval": self.interval,
            "unit": self.unit,
            "count": self.count,
        }

    def __repr__(self) -> str:
        return (
            f"HorizonSchedule(rounds={list(self.rounds)}, interval={self.interval}, "
            f"unit={self.unit!r}, count={self.count})"
        )


class HorizonCurriculum(TurnLimit):
    """A :class:`~agentgym_envs.wrappers.limits.TurnLimit` whose limit follows a schedule.

    Each ``reset()`` reads the schedule's current limit (it does not change mid-episode) and
    reports it as ``info["horizon"]``; with ``unit="episode"`` the reset also advances the
    schedule. Truncation is the turn limit's (``info["truncation_reason"] == "turn_limit"``).

    Args:
        schedule: a :class:`HorizonSchedule` (shared: the trainer keeps a reference), a preset
            name, a list of rounds (with ``interval``), a schedule's ``state_dict()``, or
            ``"auto"`` (default): the preset of the env's family.
    """

    def __init__(
        self,
        env: gym.Env,
        schedule: HorizonSchedule | str | Sequence[int] = "auto",
        interval: int = 100,
    ) -> None:
        if isinstance(schedule, str):
            name = getattr(env.unwrapped, "family", "") if schedule == "auto" else schedule
            schedule = HorizonSchedule.preset(name)
        elif isinstance(schedule, Mapping):  # a state_dict (as recorded in the env's spec)
            schedule = HorizonSchedule(
                schedule["rounds"],
                schedule.get("interval", interval),
                schedule.get("unit", "step"),
                schedule.get("count"),
            )
        elif not isinstance(schedule, HorizonSchedule):
            schedule = HorizonSchedule(schedule, interval)
        self.schedule = schedule
        super().__init__(env, max_turns=schedule.current)
        self._saved_kwargs = {"schedule": schedule.state_dict()}

    def set_global_step(self, step: int) -> int:
        """Set the schedule's counter (for vector envs: ``envs.call("set_global_step", n)``)."""
        return self.schedule.set_step(step)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self.max_turns = self.schedule.current
        if self.schedule.unit == "episode":
            self.schedule.step()
        obs, info = super().reset(seed=seed, options=options)
        return obs, dict(info, horizon=self.max_turns)


__all__ = [
    "FIXED_ROUNDS_BASELINES",
    "SCALING_INTER_PRESETS",
    "HorizonCurriculum",
    "HorizonSchedule",
]
