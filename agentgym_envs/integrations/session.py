"""One episode of an env as the trainer adapters see it: text in, text out, an outcome at the end.

Every adapter in :mod:`agentgym_envs.integrations` holds an :class:`EnvSession`. It makes the env
(``gymnasium.make`` plus a turn limit and, optionally, a :class:`~agentgym_envs.wrappers.tokens.
TokenBudget`), plays one action at a time, and keeps what the trainer needs at the end: the
reward, ``success`` apart from the graded ``score``, why the episode ended
(:data:`~agentgym_envs.core.OUTCOMES`) and whether the reward can be trusted.

An exception from the env -- a crashed simulator, a remote env whose server went away -- does
not escape into the trainer's loop: the episode ends with outcome ``env_error`` and
``reward_valid=False``, and each adapter hands that to its trainer's masking mechanism rather
than a reward of 0.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from agentgym_envs.core import episode_outcome

logger = logging.getLogger(__name__)

#: What the trainer's scalar reward is: the env's graded final ``score`` (AgentGym's reward),
#: ``success`` as 0/1, or the sum of step rewards.
REWARD_KINDS = ("score", "success", "return")
ENDED_NOTE = "The episode has ended."


@dataclass
class EpisodeResult:
    """How an episode went, for a trainer: ``reward`` is ``None`` when it is not valid."""

    reward: float | None
    score: float
    success: bool
    outcome: str | None
    reward_valid: bool
    turns: int
    episode_return: float
    error: str | None = None
    info: dict[str, Any] = field(default_factory=dict, repr=False)

    def metrics(self) -> dict[str, float]:
        """Numbers a trainer can log (outcome as a one-hot ``outcome/<name>``)."""
        out = {
            "score": self.score,
            "success": float(self.success),
            "turns": float(self.turns),
            "reward_valid": float(self.reward_valid),
        }
        if self.outcome:
            out[f"outcome/{self.outcome}"] = 1.0
        return out


def build_env(
    env_id: str,
    *,
    max_turns: int | None = None,
    max_tokens: Any = None,
    tokenizer: Any = None,
    max_observation_tokens: int | None = None,
    env_kwargs: Mapping[str, Any] | None = None,
) -> gym.Env:
    """``env_id`` made with ``env_kwargs``, under a turn limit (default: AgentGym's max rounds)
    and, if ``max_tokens`` is given, a token budget counted with ``tokenizer``."""
    from agentgym_envs import make
    from agentgym_envs.wrappers.limits import TurnLimit
    from agentgym_envs.wrappers.tokens import TokenBudget

    env = make(env_id, **dict(env_kwargs or {}))
    if max_tokens is not None or max_observation_tokens is not None:
        env = TokenBudget(
            env,
            max_tokens if max_tokens is not None else 10**9,
            tokenizer,
            max_observation_tokens=max_observation_tokens,
        )
    return TurnLimit(env, max_turns)


def with_error(observation: str, info: Mapping[str, Any]) -> str:
    """``observation`` with the reason an action was refused (``info["error"]``) after it, as
    the ReAct wrappers put it in the text: a model reads only the text."""
    problem = info.get("error")
    if not problem or str(problem) in observation:
        return observation
    return f"{observation}\n\nError: {problem}" if observation else f"Error: {problem}"


class EnvSession:
    """One env, played one text action at a time, that never raises into the caller's loop.

    Args:
        env: a registered id (made by :func:`build_env` with the keyword arguments below) or a
            factory returning an env.
        reward: ``"score"`` (default), ``"success"`` or ``"return"``: see :data:`REWARD_KINDS`.
        **build: ``max_turns``, ``max_tokens``, ``tokenizer``, ``max_observation_tokens``,
            ``env_kwargs`` for :func:`build_env`.
    """

    def __init__(
        self,
        env: str | Callable[[], gym.Env],
        *,
        reward: str = "score",
        **build: Any,
    ) -> None:
        if reward not in REWARD_KINDS:
            raise ValueError(f"reward={reward!r} is not supported: use one of {REWARD_KINDS}")
        self.env_id = env if isinstance(env, str) else getattr(env, "__name__", "env")
        self._factory = (lambda: build_env(env, **build)) if isinstance(env, str) else env
        self.reward_kind = reward
        self.env: gym.Env | None = None
        self.observation = ""
        self.info: dict[str, Any] = {}
        self.done = False
        self.turns = 0
        self.episode_return = 0.0
        self.outcome: str | None = None
        self.reward_valid = True
        self.error: str | None = None

    def _env(self) -> gym.Env:
        if self.env is None:
            self.env = self._factory()
        return self.env

    def reset(
        self,
        task_id: int | None = None,
        split: str = "train",
        seed: int | None = None,
    ) -> str:
        """Start the task; returns the first observation (or an error note if the env failed)."""
        self.done, self.turns, self.episode_return = False, 0, 0.0
        self.outcome, self.reward_valid, self.error, self.info = None, True, None, {}
        options: dict[str, Any] = {"split": split}
        if task_id is not None:
            options["task_id"] = int(task_id)
        try:
            self.observation, self.info = self._env().reset(seed=seed, options=options)
        except Exception as exc:
            return self._fail(exc)
        return self.observation

    def instructions(self) -> str:
        """The family's instructions for an LLM prompt (after :meth:`reset`)."""
        try:
            return str(self._env().unwrapped.instructions())
        except Exception:
            return ""

    def step(self, action: str) -> tuple[str, float, bool]:
        """Play ``action``; returns ``(observation, reward, done)``."""
        if self.done:
            return f"{ENDED_NOTE} Outcome: {self.outcome}.", 0.0, True
        try:
            obs, reward, terminated, truncated, info = self._env().step(action)
        except Exception as exc:
            return self._fail(exc), 0.0, True
        self.turns += 1
        self.observation, self.info = obs, info
        self.episode_return += float(reward)
        if terminated or truncated:
            self.done = True
            self.outcome = episode_outcome(terminated, truncated, info)
            self.reward_valid = bool(info.get("reward_valid", self.outcome != "env_error"))
        return obs, float(reward), self.done

    def _fail(self, exc: BaseException) -> str:
        logger.warning("env %s failed mid-episode: %r", self.env_id, exc, exc_info=exc)
        self.done, self.outcome, self.reward_valid = True, "env_error", False
        self.error = f"{type(exc).__name__}: {exc}"
        # a broken env is not reused: the next reset builds a fresh one
        env, self.env = self.env, None
        if env is not None:
            try:
                env.close()
            except Exception:
                logger.debug("closing the failed env raised too", exc_info=True)
        self.observation = f"Environment error ({self.error})."
        return self.observation

    def finish(self) -> EpisodeResult:
        """The episode's result; an episode the agent left unfinished is a ``failure``."""
        if not self.done:
            self.outcome = self.outcome or "failure"
        score = float(self.info.get("score", 0.0))
        success = bool(self.info.get("success", False))
        value = {"score": score, "success": float(success), "return": self.episode_return}[
            self.reward_kind
        ]
        return EpisodeResult(
            reward=value if self.reward_valid else None,
            score=score,
            success=success,
            outcome=self.outcome,
            reward_valid=self.reward_valid,
            turns=self.turns,
            episode_return=self.episode_return,
            error=self.error,
            info=self.info,
        )

    def close(self) -> None:
        if self.env is not None:
            self.env.close()
            self.env = None


__all__ = [
    "ENDED_NOTE",
    "REWARD_KINDS",
    "EnvSession",
    "EpisodeResult",
    "build_env",
    "with_error",
]
