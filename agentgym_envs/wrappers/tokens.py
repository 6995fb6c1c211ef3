"""Token budgets: end an episode the moment its tokens are spent, counted by the model's tokenizer.

RL trainers budget a multi-turn rollout in tokens, not turns (verl's ``response_length``,
TRL's ``max_completion_length``): the model's replies and the environment's observations share
one budget. :class:`TokenBudget` counts both with the policy's own tokenizer (any Hugging Face
tokenizer, or a callable) and ends the episode as the budget runs out -- no "ghost" turn is
played after it (an action that does not fit is not executed). Long observations can be cut
to a per-observation length, keeping the head, the tail or both ends, as verl cuts tool
responses.

ScalingInter-RL grows the horizon over training; here the horizon may be a number of tokens
(``max_tokens`` takes a :class:`~agentgym_envs.wrappers.curriculum.HorizonSchedule`), and it
may grow adaptively: :class:`AdaptiveSchedule` moves to its next stage when the success rate
over the last ``window`` episodes reaches ``threshold``. :class:`AdaptiveHorizon` does the same
for a turn limit.
"""

from __future__ import annotations

import collections
import numbers
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym

from agentgym_envs.wrappers.curriculum import HorizonCurriculum, HorizonSchedule
from agentgym_envs.wrappers.limits import check_turns

#: How :class:`TokenBudget` cuts an observation longer than ``max_observation_tokens``:
#: ``head`` keeps the start (verl's ``left``), ``tail`` the end (``right``), ``middle`` both ends.
TRUNCATE_SIDES = ("head", "tail", "middle")
_SIDE_ALIASES = {"left": "head", "right": "tail"}
TRUNCATION_MARK = "...(truncated)..."

TokenCounter = Callable[[str], int]


def token_counter(tokenizer: Any = None) -> TokenCounter:
    """A function ``text -> number of tokens``.

    ``tokenizer`` is a Hugging Face tokenizer (anything with ``encode``: special tokens are not
    added), a callable returning a count or a list of ids, or ``None`` for whitespace-separated
    words (a rough stand-in when the model's tokenizer is not at hand).
    """
    if tokenizer is None:
        return lambda text: len(text.split())
    encode = getattr(tokenizer, "encode", None)
    if callable(encode):

        def count_hf(text: str) -> int:
            try:
                return len(encode(text, add_special_tokens=False))
            except TypeError:  # a tokenizers.Tokenizer: encode(text) -> Encoding
                return len(encode(text).ids)

        return count_hf
    if not callable(tokenizer):
        raise TypeError(
            f"tokenizer must be a Hugging Face tokenizer or a callable text -> tokens, got {tokenizer!r}"
        )

    def count_callable(text: str) -> int:
        out = tokenizer(text)
        return int(out) if isinstance(out, numbers.Integral) else len(out)

    return count_callable


def truncate_text(text: str, max_tokens: int, count: TokenCounter, side: str = "middle") -> str:
    """``text`` cut to at most ``max_tokens`` tokens (by ``count``), marked where it was cut.

    The cut is found by bisection over characters, so it works with any counter; the mark
    (:data:`TRUNCATION_MARK`) counts towards the limit where it fits.
    """
    side = _SIDE_ALIASES.get(side, side)
    if side not in TRUNCATE_SIDES:
        raise ValueError(f"side={side!r} is not supported: use 'head', 'tail' or 'middle'")
    if count(text) <= max_tokens:
        return text
    mark = TRUNCATION_MARK if count(TRUNCATION_MARK) < max_tokens else ""

    def build(n: int) -> str:
        if side == "head":
            return text[:n] + mark
        if side == "tail":
            return mark + text[len(text) - n :] if n else mark
        head = (n + 1) // 2
        return text[:head] + mark + (text[len(text) - (n - head) :] if n - head else "")

    lo, hi = 0, len(text)
    while lo < hi:  # the longest kept length whose text fits
        mid = (lo + hi + 1) // 2
        if count(build(mid)) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    return build(lo)


class AdaptiveSchedule(HorizonSchedule):
    """A horizon that grows when the agent is good enough at the current one.

    Starts at ``rounds[0]`` (turns or tokens); after every ``window`` recorded episodes whose
    success rate is at least ``threshold``, moves to the next value and starts a fresh window.
    A :class:`TokenBudget` or :class:`AdaptiveHorizon` records each finished episode; a trainer
    may call :meth:`record` itself. The training-step counter (:meth:`step`) is kept but does
    not move the stage.
    """

    def __init__(self, rounds: Sequence[int], window: int = 32, threshold: float = 0.6) -> None:
        super().__init__(rounds, interval=1, unit="step", start=0)
        self.window = check_turns("window", window)
        if (
            isinstance(threshold, bool)
            or not isinstance(threshold, numbers.Real)
            or not 0.0 <= threshold <= 1.0
        ):
            raise ValueError(f"threshold must be a number in [0, 1], got {threshold!r}")
        self.threshold = float(threshold)
        self._stage = 0
        self._recent: collections.deque[bool] = collections.deque(maxlen=self.window)

    @property
    def stage(self) -> int:
        return self._stage

    @property
    def success_rate(self) -> float | None:
        """Success rate over the episodes recorded at this stage (``None`` before any)."""
        return sum(self._recent) / len(self._recent) if self._recent else None

    def record(self, success: bool) -> int:
        """Count one finished episode; returns the horizon now."""
        self._recent.append(bool(success))
        full = len(self._recent) == self.window
        if full and self.success_rate >= self.threshold and self._stage < len(self.rounds) - 1:
            self._stage += 1
            self._recent.clear()
        return self.current

    def rounds_at(self, count: int) -> int:
        return self.current

    def state_dict(self) -> dict[str, Any]:
        return {
            "rounds": list(self.rounds),
            "window": self.window,
            "threshold": self.threshold,
            "stage": self._stage,
            "recent": list(self._recent),
        }

    def __repr__(self) -> str:
        return (
            f"AdaptiveSchedule(rounds={list(self.rounds)}, window={self.window}, "
            f"threshold={self.threshold}, stage={self._stage})"
        )


def _end(info: dict[str, Any], reason: str) -> dict[str, Any]:
    info = dict(info)
    info.setdefault("truncation_reason", reason)
    info["outcome"] = "token_limit"
    info["reward_valid"] = True
    return info


class TokenBudget(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """End the episode once the trajectory has spent ``max_tokens`` tokens.

    Every action and every observation after the first is counted with ``tokenizer`` (see
    :func:`token_counter`); with ``count_prompt=True`` the first observation counts too. When
    an action does not fit in what is left, it is not sent to the env: the step returns an
    empty observation, reward 0, ``truncated=True``. When an observation overruns the budget,
    it is cut to what is left and the episode is truncated. Either way
    ``info["truncation_reason"] == "token_limit"``, ``info["outcome"] == "token_limit"`` and
    ``info["reward_valid"]`` is true (the agent spent the budget; the reward stands).

    Args:
        env: the env (a text env, or one wrapped for an LLM: put the budget outside ReAct /
            FunctionCalling so that it counts the model's whole reply).
        max_tokens: the budget, an int or a schedule read at each reset
            (:class:`HorizonSchedule` in tokens, :class:`AdaptiveSchedule`, which this wrapper
            feeds with each episode's success).
        tokenizer: the policy's tokenizer or a counter callable; ``None`` counts words.
        max_observation_tokens: cut each observation to this many tokens (``None``: no cut).
        truncate_side: ``"head"``, ``"tail"`` or ``"middle"`` (verl's ``left`` / ``right`` /
            ``middle``): what part of a long observation to keep.
        count_prompt: whether the first observation is charged to the budget.

    ``info`` carries ``tokens_used`` and ``token_budget`` on every step.
    """

    def __init__(
        self,
        env: gym.Env,
        max_tokens: int | HorizonSchedule,
        tokenizer: Any = None,
        *,
        max_observation_tokens: int | None = None,
        truncate_side: str = "middle",
        count_prompt: bool = False,
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(
            self,
            max_tokens=max_tokens.state_dict()
            if isinstance(max_tokens, HorizonSchedule)
            else max_tokens,
            max_observation_tokens=max_observation_tokens,
            truncate_side=truncate_side,
            count_prompt=count_prompt,
        )
        gym.Wrapper.__init__(self, env)
        if isinstance(max_tokens, HorizonSchedule):
            self.schedule: HorizonSchedule | None = max_tokens
            self.max_tokens = self.schedule.current
        else:
            self.schedule = None
            self.max_tokens = check_turns("max_tokens", max_tokens)
        if max_observation_tokens is not None:
            check_turns("max_observation_tokens", max_observation_tokens)
        side = _SIDE_ALIASES.get(truncate_side, truncate_side)
        if side not in TRUNCATE_SIDES:
            raise ValueError(
                f"truncate_side={truncate_side!r} is not supported: use 'head', 'tail' or 'middle'"
            )
        self.count = token_counter(tokenizer)
        self.max_observation_tokens = max_observation_tokens
        self.truncate_side = side
        self.count_prompt = bool(count_prompt)
        self.tokens_used = 0
        self._last_info: dict[str, Any] = {}
        self._over = False

    @property
    def tokens_left(self) -> int:
        return max(self.max_tokens - self.tokens_used, 0)

    def _cut(self, observation: str) -> str:
        if self.max_observation_tokens is None:
            return observation
        return truncate_text(
            observation, self.max_observation_tokens, self.count, self.truncate_side
        )

    def _stamp(self, info: dict[str, Any]) -> dict[str, Any]:
        return dict(info, tokens_used=self.tokens_used, token_budget=self.max_tokens)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if self.schedule is not None:
            self.max_tokens = self.schedule.current
        self.tokens_used, self._over = 0, False
        obs, info = self.env.reset(seed=seed, options=options)
        if isinstance(obs, str):
            obs = self._cut(obs)
            if self.count_prompt:
                self.tokens_used = self.count(obs)
        self._last_info = info
        return obs, self._stamp(info)

    def step(self, action: Any):
        if self._over:
            return "", 0.0, False, True, self._stamp(_end(self._last_info, "token_limit"))
        action_tokens = self.count(action) if isinstance(action, str) else 0
        if self.tokens_used + action_tokens > self.max_tokens:
            self.tokens_used += action_tokens
            return self._finish("", 0.0, self._last_info)
        self.tokens_used += action_tokens
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._last_info = info
        if isinstance(obs, str):
            obs = self._cut(obs)
            obs_tokens = self.count(obs)
            if not (terminated or truncated) and self.tokens_used + obs_tokens >= self.max_tokens:
                left = self.tokens_left
                obs = truncate_text(obs, left, self.count, "head") if left else ""
                self.tokens_used += self.count(obs)
                return self._finish(obs, reward, info)
            self.tokens_used += obs_tokens
        if terminated or truncated:
            self._record(info)
        return obs, reward, terminated, truncated, self._stamp(info)

    def _finish(self, obs: str, reward: Any, info: dict[str, Any]):
        self._over = True
        info = _end(info, "token_limit")
        self._record(info)
        return obs, reward, False, True, self._stamp(info)

    def _record(self, info: dict[str, Any]) -> None:
        if isinstance(self.schedule, AdaptiveSchedule):
            self.schedule.record(bool(info.get("success", False)))


class AdaptiveHorizon(HorizonCurriculum):
    """A turn limit that follows an :class:`AdaptiveSchedule`, fed with each episode's success.

    The limit is read at reset and reported as ``info["horizon"]`` (as
    :class:`~agentgym_envs.wrappers.curriculum.HorizonCurriculum` does); every finished
    episode (terminated or truncated) is recorded into the schedule.
    """

    def __init__(self, env: gym.Env, schedule: AdaptiveSchedule) -> None:
        if not isinstance(schedule, AdaptiveSchedule):
            raise TypeError(f"schedule must be an AdaptiveSchedule, got {schedule!r}")
        super().__init__(env, schedule)
        self._saved_kwargs = {"schedule": schedule}

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = super().step(action)
        if terminated or truncated:
            self.schedule.record(bool(info.get("success", False)))
        return obs, reward, terminated, truncated, info


__all__ = [
    "TRUNCATE_SIDES",
    "TRUNCATION_MARK",
    "AdaptiveHorizon",
    "AdaptiveSchedule",
    "TokenBudget",
    "TokenCounter",
    "token_counter",
    "truncate_text",
]
