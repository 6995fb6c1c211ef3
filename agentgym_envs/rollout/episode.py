"""Play one episode of a text env with a policy ``(observation, info) -> action``.

:func:`run_episode` is the one episode loop of the package: rollouts, vector collection, Ray
actors and the benchmark runner all play their episodes with it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from agentgym_envs.core import episode_outcome
from agentgym_envs.wrappers.conversation import Conversation

#: A policy: the observation and info in, the action out (text, or a tool call for the
#: function-calling format).
Policy = Callable[[str, dict[str, Any]], Any]


@dataclass
class Episode:
    """The record of one finished episode.

    ``truncation_reason`` says why a truncated episode stopped (``max_rounds`` when the loop's
    ``max_turns`` ran out, a reason from ``stop_on``, or the env's
    ``info["truncation_reason"]``); ``outcome`` says why it ended (one of
    :data:`~agentgym_envs.core.OUTCOMES`: a loop's ``max_rounds`` is ``turn_limit``, a
    ``context_length`` stop ``token_limit``) and ``reward_valid`` whether its reward can be
    trusted (the env's ``info["reward_valid"]``); ``env_time`` / ``policy_time`` / ``wall_time`` are seconds;
    ``conversation`` is the episode as a
    :class:`~agentgym_envs.wrappers.conversation.Conversation`; ``reset_info`` and ``info`` the
    first and the last info.
    """

    task_id: int
    split: str
    observations: list[str] = field(default_factory=list)
    actions: list[Any] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    score: float = 0.0
    success: bool = False
    terminated: bool = False
    truncated: bool = False
    truncation_reason: str | None = None
    outcome: str | None = None
    reward_valid: bool = True
    env_time: float = 0.0
    policy_time: float = 0.0
    wall_time: float = 0.0
    info: dict[str, Any] = field(default_factory=dict, repr=False)
    reset_info: dict[str, Any] = field(default_factory=dict, repr=False)
    conversation: Conversation = field(default_factory=Conversation, repr=False)

    def finish(self, info: dict[str, Any]) -> None:
        """Close the record on the last ``info``: ``score``, ``success``, ``outcome`` and
        ``reward_valid`` (set ``terminated`` / ``truncated`` / ``truncation_reason`` first)."""
        self.score = float(info.get("score", 0.0))
        self.success = bool(info.get("success", False))
        last = dict(info)
        if self.truncation_reason is not None:
            last.setdefault("truncation_reason", self.truncation_reason)
        self.outcome = episode_outcome(self.terminated, self.truncated, last)
        self.reward_valid = bool(info.get("reward_valid", self.outcome != "env_error"))
        self.info = info

    @property
    def turns(self) -> int:
        return len(self.actions)

    @property
    def transcript(self) -> list[str]:
        """Observations and actions interleaved, first observation first."""
        out = [self.observations[0]]
        for action, obs in zip(self.actions, self.observations[1:]):
            out += [action, obs]
        return out


def run_episode(
    env: gym.Env,
    policy: Policy,
    *,
    task_id: int | None = None,
    split: str = "test",
    seed: int | None = None,
    max_turns: int | None = None,
    stop_on: Mapping[type[BaseException], str] | None = None,
    opening: Mapping[str, Any] | Callable[[str, dict[str, Any]], Mapping[str, Any]] | None = None,
    as_reply: Callable[[Any], Any] | None = None,
) -> Episode:
    """Reset ``env`` to the task, then step ``policy``'s actions until the episode ends.

    ``score`` and ``success`` are the env's final ``info`` values (the benchmark's truth);
    ``max_turns`` stops the loop like AgentGym's max rounds (the episode is then truncated,
    reason ``max_rounds``). A policy raising one of the exception types in ``stop_on`` ends
    the episode truncated with the reason given for it (``{ContextLengthError:
    "context_length"}``: AgentGym stops at its ``max_length``). The conversation opens as
    :meth:`Conversation.start` builds it from the reset info updated with ``opening`` (a
    mapping, or a function of the first observation and info giving one); each
    model turn is recorded as ``as_reply(action)`` (default the action).
    """
    options: dict[str, Any] = {"split": split}
    if task_id is not None:
        options["task_id"] = task_id
    t0 = time.perf_counter()
    obs, info = env.reset(seed=seed, options=options)
    episode = Episode(task_id=info["task_id"], split=info["split"], observations=[obs])
    episode.reset_info = info
    episode.env_time = time.perf_counter() - t0
    extra = opening(obs, info) if callable(opening) else opening
    episode.conversation = Conversation.start(obs, {**info, **(extra or {})}, layout="user")
    stops = tuple(stop_on or ())
    while True:
        if max_turns is not None and episode.turns >= max_turns:
            episode.truncated, episode.truncation_reason = True, "max_rounds"
            break
        t1 = time.perf_counter()
        try:
            action = policy(obs, info)
        except stops as exc:
            episode.policy_time += time.perf_counter() - t1
            episode.truncated = True
            episode.truncation_reason = next(r for t, r in stop_on.items() if isinstance(exc, t))
            break
        t2 = time.perf_counter()
        obs, reward, terminated, truncated, info = env.step(action)
        episode.policy_time += t2 - t1
        episode.env_time += time.perf_counter() - t2
        episode.actions.append(action)
        episode.observations.append(obs)
        episode.rewards.append(float(reward))
        reply = as_reply(action) if as_reply is not None else action
        episode.conversation.add(reply, obs, info.get("tool_calls") or None)
        if terminated or truncated:
            episode.terminated = bool(terminated)
            episode.truncated = bool(truncated) and not terminated
            if episode.truncated:
                episode.truncation_reason = info.get("truncation_reason", "env")
            break
    episode.finish(info)
    episode.wall_time = time.perf_counter() - t0
    return episode


__all__ = ["Episode", "Policy", "run_episode"]
