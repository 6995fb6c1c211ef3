"""The multi-step agent: one model call per action, ReAct text or one native tool call."""

from __future__ import annotations

import time
from typing import Any

from agentgym_envs.agents.base import AgentStats
from agentgym_envs.benchmarks.policies import ChatAgent


class MultiStepAgent(ChatAgent):
    """One model call per env step, over any OpenAI-compatible endpoint.

    The benchmark's :class:`~agentgym_envs.benchmarks.ChatAgent` loop (the env's chat history
    as the prompt, AgentGym's layout, ``react`` or ``tools`` replies), with each call's latency
    and token counts kept in :attr:`stats` (``usage`` holds the totals).

    Args:
        client: a :class:`~agentgym_envs.benchmarks.ChatClient` (or anything with its ``chat``
            and ``sampling``).
        fmt: ``"react"`` (Thought/Action text, read by the family's AgentGym parser) or
            ``"tools"`` (one native tool call per turn).
        **kwargs: ``seed``, ``max_history_turns``, ``system``, as for ``ChatAgent``.
    """

    def __init__(self, client: Any, fmt: str = "react", **kwargs: Any) -> None:
        super().__init__(client, fmt, **kwargs)  # type: ignore[arg-type]
        self.stats = AgentStats()
        self.usage = self.stats.usage

    def __call__(self, observation: str, info: dict[str, Any]) -> Any:
        if "env_observation" in info:  # a reset: a new episode (when one agent plays several)
            self.history = None
        before = dict(self.usage)
        t0 = time.perf_counter()
        action = super().__call__(observation, info)
        latency = time.perf_counter() - t0
        # ChatAgent added this call's tokens to ``usage`` (the same dict): undo, record per turn.
        delta = {
            k: self.usage[k] - before.get(k, 0) for k in ("prompt_tokens", "completion_tokens")
        }
        for key in ("prompt_tokens", "completion_tokens", "calls"):
            self.usage[key] = before.get(key, 0)
        calls = len(action.get("tool_calls") or []) if isinstance(action, dict) else 0
        self.stats.record(latency, delta, "action", calls)
        return action


__all__ = ["MultiStepAgent"]
