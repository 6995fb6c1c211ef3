"""What the reference agents share: per-turn statistics and one-episode runs as AgentTraj."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

import gymnasium as gym


@dataclass
class TurnStats:
    """One model call: wall seconds, tokens the endpoint reported, and what came of it."""

    turn: int
    latency: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: ``action`` (sent to the env), ``retry`` (malformed: asked again), ``memory`` (only
    #: scratchpad notes), ``gave_up`` (retry budget spent: the raw reply went to the env).
    kind: str = "action"
    calls: int = 0


@dataclass
class AgentStats:
    """Per-turn statistics of one episode, and the totals the benchmark runner reads."""

    turns: list[TurnStats] = field(default_factory=list)
    usage: dict[str, int] = field(
        default_factory=lambda: {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0}
    )

    def record(self, latency: float, usage: dict[str, Any], kind: str, calls: int = 0) -> None:
        prompt = int(usage.get("prompt_tokens", 0) or 0)
        completion = int(usage.get("completion_tokens", 0) or 0)
        self.turns.append(TurnStats(len(self.turns), latency, prompt, completion, kind, calls))
        self.usage["prompt_tokens"] += prompt
        self.usage["completion_tokens"] += completion
        self.usage["calls"] += 1

    def as_dicts(self) -> list[dict[str, Any]]:
        return [asdict(t) for t in self.turns]


class EpisodeDeadline(RuntimeError):
    """An episode's wall-clock deadline passed (it ends truncated: ``time_limit``)."""


def timed_chat(client: Any, messages: list[dict[str, Any]], **kwargs: Any) -> tuple[Any, float]:
    """``client.chat(messages, **kwargs)`` and its wall time in seconds."""
    t0 = time.perf_counter()
    reply = client.chat(messages, **kwargs)
    return reply, time.perf_counter() - t0


def run_agent(
    env: str | gym.Env,
    agent: Any,
    *,
    task_id: int | None = None,
    split: str = "test",
    seed: int | None = 0,
    max_rounds: int | None = None,
    fmt: str | None = None,
) -> dict[str, Any]:
    """Play one episode with ``agent`` and return it as an AgentTraj record.

    ``env`` is an id (made with :func:`agentgym_envs.wrappers.make_llm_env` in the agent's
    format: ReAct or FunctionCalling, AgentGym's max rounds, chat history) or an env you wrapped
    yourself. The record has AgentGym's ``item_id`` and ``conversations`` (the agent's own
    conversation when it keeps one: retries and scratchpad turns included) and the same as chat
    ``messages`` (tool calls kept), ``reward``,
    ``success``, ``outcome``, ``tokens`` and ``turn_stats`` (latency and tokens per model call).
    """
    from agentgym_envs.agents.multistep import StepLimitReached
    from agentgym_envs.rollout.episode import run_episode
    from agentgym_envs.spec import env_info, resolve_id

    if hasattr(agent, "run") and hasattr(agent, "user"):  # a MultiTurnAgent plays it all
        return agent.run(env, task_id=task_id, split=split, seed=seed)
    fmt = fmt or getattr(agent, "format", "react")
    if isinstance(env, str):
        from agentgym_envs.benchmarks.runner import make_policy_env

        env_id = resolve_id(env)
        rounds = max_rounds or env_info(env_id).max_rounds
        env = make_policy_env(env_id, fmt, max_rounds=rounds)
    episode = run_episode(
        env,
        agent,
        task_id=task_id,
        split=split,
        seed=seed,
        max_turns=max_rounds,
        stop_on={StepLimitReached: "max_steps", EpisodeDeadline: "time_limit"},
    )
    own = agent.conversation() if hasattr(agent, "conversation") else []
    stats: AgentStats | None = getattr(agent, "stats", None)
    return {
        "item_id": env.unwrapped.item_id,
        "conversations": own or episode.conversation.agenttraj(),
        "messages": (agent.messages() if own and hasattr(agent, "messages") else None)
        or episode.conversation.messages(),
        "reward": episode.score,
        "success": episode.success,
        "outcome": episode.outcome,
        "reward_valid": episode.reward_valid,
        "turns": episode.turns,
        "tokens": {k: v for k, v in stats.usage.items() if k != "calls"} if stats else None,
        "turn_stats": stats.as_dicts() if stats else [],
    }


__all__ = ["AgentStats", "EpisodeDeadline", "TurnStats", "run_agent", "timed_chat"]
