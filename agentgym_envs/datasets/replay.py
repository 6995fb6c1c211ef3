"""Replay AgentTraj trajectories through the live envs and check the rewards they claim.

Each ``gpt`` turn after ``conversation_start`` is the agent's reply; it goes through the same
ReAct wrapper an LLM policy uses (:func:`agentgym_envs.wrappers.react.parse_react` extracts the
action; a reply without one gets AgentGym's "Invalid Action." feedback and does not step the env)
-- or, for trajectories recorded with native tool calls, the FunctionCalling wrapper. The env's
observation after each reply is compared with the ``human`` turn the trajectory recorded, and
the final score and success with what the trajectory claims: its ``reward`` / ``success`` keys
when present, else success (AgentTraj releases successful trajectories).
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import gymnasium as gym

from agentgym_envs.datasets.agenttraj import Trajectory
from agentgym_envs.datasets.items import ItemResolver, default_resolver

logger = logging.getLogger(__name__)
_WS = re.compile(r"\s+")


def _norm(text: str) -> str:
    return _WS.sub(" ", text).strip()


@dataclass
class TurnCheck:
    """One replayed reply: what was sent, what the env said, and whether it matches the record."""

    turn: int
    reply: str
    action: str | None
    observation: str
    recorded: str | None
    matches: bool | None
    reward: float
    done: bool
    error: str | None = None


@dataclass
class ReplayReport:
    """A trajectory replayed: turn by turn, then the final verdict."""

    item_id: str
    env_id: str
    split: str
    task_id: int
    turns: list[TurnCheck] = field(default_factory=list)
    initial_matches: bool | None = None
    score: float = 0.0
    success: bool = False
    claimed_reward: float | None = None
    claimed_success: bool | None = None
    ended_at: int | None = None
    extra_replies: int = 0
    error: str | None = None

    @property
    def reward_matches(self) -> bool | None:
        if self.claimed_reward is None:
            return None
        return math.isclose(self.score, self.claimed_reward, rel_tol=1e-6, abs_tol=1e-6)

    @property
    def consistent(self) -> bool:
        """The env reaches what the trajectory claims (success, and reward when given)."""
        if self.error is not None:
            return False
        ok = self.claimed_success is None or self.success == self.claimed_success
        return ok and self.reward_matches is not False

    @property
    def observation_match_rate(self) -> float | None:
        checks = [t.matches for t in self.turns if t.matches is not None]
        if self.initial_matches is not None:
            checks.append(self.initial_matches)
        return sum(checks) / len(checks) if checks else None

    @property
    def first_divergence(self) -> int | None:
        """Index of the first reply whose env observation differs from the recorded one."""
        for t in self.turns:
            if t.matches is False:
                return t.turn
        return None

    @property
    def verdict(self) -> str:
        if self.error is not None:
            return f"error: {self.error}"
        claim = (
            "success"
            if self.claimed_success
            else "failure"
            if self.claimed_success is False
            else "no claim"
        )
        got = f"score {self.score:g}, {'success' if self.success else 'failure'}"
        if self.consistent:
            return f"consistent ({got}; trajectory claims {claim})"
        return (
            f"MISMATCH ({got}; trajectory claims {claim}"
            + (f", reward {self.claimed_reward:g}" if self.claimed_reward is not None else "")
            + ")"
        )

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.update(
            consistent=self.consistent,
            verdict=self.verdict,
            observation_match_rate=self.observation_match_rate,
        )
        return d


#: Constructor arguments that make an env number and word things as AgentGym's server did when
#: AgentTraj was recorded (BabyAI numbers objects per view there, not per episode).
AGENTGYM_COMPAT_KWARGS: dict[str, dict[str, Any]] = {"AgentGym/BabyAI-v0": {"object_ids": "view"}}


class Replayer:
    """Replays trajectories, keeping one wrapped env per (env id, format). Thread-confined.

    ``env_kwargs`` per env id are applied over :data:`AGENTGYM_COMPAT_KWARGS`. ``parser``:
    ``"strict"`` (default, see the module docstring) or ``"agentgym"`` (each family's AgentGym
    client, :mod:`agentgym_envs.wrappers.parsers`). The resolver refuses AgentGym item ids on
    stand-in task sources unless it allows them (``ItemResolver(allow_stand_in=True)``).
    """

    def __init__(
        self,
        resolver: ItemResolver | None = None,
        *,
        env_kwargs: dict[str, dict[str, Any]] | None = None,
        on_invalid: Literal["feedback", "step"] = "feedback",
        parser: Literal["strict", "agentgym"] = "strict",
    ) -> None:
        self.parser = parser
        self.resolver = resolver or default_resolver()
        self.env_kwargs = env_kwargs or {}
        self.on_invalid = on_invalid
        self._envs: dict[tuple[str, str], gym.Env] = {}

    def _env(self, env_id: str, fmt: str, parser: str) -> gym.Env:
        key = (env_id, fmt, parser)
        if key not in self._envs:
            kwargs = {**AGENTGYM_COMPAT_KWARGS.get(env_id, {}), **self.env_kwargs.get(env_id, {})}
            base = gym.make(env_id, **kwargs)
            if fmt == "tools":
                from agentgym_envs.wrappers.function_calling import FunctionCalling

                self._envs[key] = FunctionCalling(base, include_instructions=False)
            else:
                from agentgym_envs.wrappers.react import ReAct

                self._envs[key] = ReAct(
                    base, on_invalid=self.on_invalid, include_instructions=False, parser=parser
                )
        return self._envs[key]

    def _parser(self, traj: Trajectory) -> str:
        """The parser a record says it was played with (``reply_parser``), else ours."""
        said = str(traj.extra.get("reply_parser") or "")
        if said == "strict" or said.startswith("agentgym"):
            return said.split(":", 1)[0]
        return self.parser

    def close(self) -> None:
        for env in self._envs.values():
            env.close()
        self._envs.clear()

    def __enter__(self) -> Replayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @staticmethod
    def _format(traj: Trajectory) -> str:
        for reply in traj.actions:
            text = reply.lstrip()
            if text.startswith(("{", "<tool_call>")):
                return "tools"
            return "react"
        return "react"

    def replay(
        self,
        traj: Trajectory,
        *,
        fmt: Literal["auto", "react", "tools"] = "auto",
        seed: int | None = 0,
    ) -> ReplayReport:
        """Replay one trajectory (see the module docstring)."""
        ref = self.resolver.resolve(traj.item_id)
        report = ReplayReport(traj.item_id, ref.env_id, ref.split, ref.task_id)
        report.claimed_reward = traj.reward
        report.claimed_success = traj.outcome(unlabeled=True)
        env = self._env(
            ref.env_id, self._format(traj) if fmt == "auto" else fmt, self._parser(traj)
        )
        obs, info = env.reset(seed=seed, options={"split": ref.split, "task_id": ref.task_id})
        conv = traj.conversations
        i = traj.start
        if i < len(conv) and conv[i].role == "human":
            recorded_first = conv[i].value
            firsts = {str(info.get(k, obs)) for k in ("env_observation", "first_turn")} | {obs}
            report.initial_matches = any(_norm(f) == _norm(recorded_first) for f in firsts)
            i += 1
        done = False
        for j in range(i, len(conv)):
            turn = conv[j]
            if turn.role != "gpt":
                continue
            if done:
                report.extra_replies += 1
                continue
            obs, reward, terminated, truncated, info = env.step(turn.value)
            recorded = (
                conv[j + 1].value if j + 1 < len(conv) and conv[j + 1].role == "human" else None
            )
            done = bool(terminated or truncated)
            report.turns.append(
                TurnCheck(
                    turn=j,
                    reply=turn.value,
                    action=info.get("action"),
                    observation=obs,
                    recorded=recorded,
                    matches=None if recorded is None else _norm(obs) == _norm(recorded),
                    reward=float(reward),
                    done=done,
                    error=info.get("error"),
                )
            )
            if done:
                report.ended_at = j
        report.score = float(info.get("score", 0.0))
        report.success = bool(info.get("success", False))
        return report


def replay(
    trajectory: Trajectory,
    *,
    resolver: ItemResolver | None = None,
    fmt: Literal["auto", "react", "tools"] = "auto",
    on_invalid: Literal["feedback", "step"] = "feedback",
    parser: Literal["strict", "agentgym"] = "strict",
) -> ReplayReport:
    """Replay one trajectory through its live env (see the module docstring)."""
    with Replayer(resolver, on_invalid=on_invalid, parser=parser) as r:
        return r.replay(trajectory, fmt=fmt)


@dataclass
class ReplaySummary:
    """Many replays: how many are consistent, per family."""

    reports: list[ReplayReport]

    @property
    def consistent(self) -> int:
        return sum(r.consistent for r in self.reports)

    def mismatches(self) -> list[ReplayReport]:
        return [r for r in self.reports if not r.consistent]

    def by_env(self) -> dict[str, tuple[int, int]]:
        out: dict[str, list[int]] = {}
        for r in self.reports:
            c = out.setdefault(r.env_id, [0, 0])
            c[0] += int(r.consistent)
            c[1] += 1
        return {k: (v[0], v[1]) for k, v in out.items()}


def replay_all(
    trajectories: Iterable[Trajectory],
    *,
    resolver: ItemResolver | None = None,
    fmt: Literal["auto", "react", "tools"] = "auto",
    on_invalid: Literal["feedback", "step"] = "feedback",
    parser: Literal["strict", "agentgym"] = "strict",
    skip_unlinked: bool = True,
) -> ReplaySummary:
    """Replay every trajectory; one whose item cannot be linked to a registered env (or whose
    replay raises) gets a report with ``error`` set (``skip_unlinked=False``: re-raised)."""
    from agentgym_envs.errors import AgentGymError

    reports = []
    with Replayer(resolver, on_invalid=on_invalid, parser=parser) as r:
        for traj in trajectories:
            try:
                reports.append(r.replay(traj, fmt=fmt))
            except AgentGymError as exc:
                if not skip_unlinked:
                    raise
                reports.append(ReplayReport(traj.item_id, "?", "?", -1, error=str(exc)))
    return ReplaySummary(reports)


__all__ = ["ReplayReport", "ReplaySummary", "Replayer", "TurnCheck", "replay", "replay_all"]
