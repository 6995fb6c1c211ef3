"""Reference agents over any OpenAI-compatible endpoint, ready for ``agentgym bench --policy
agent:<name>``, :func:`~agentgym_envs.benchmarks.run_benchmark`, rollouts and your own loops.

* :class:`MultiStepAgent` -- one task, many model calls and env actions: ReAct text or native
  tool calls, one or several calls per model turn, a scratchpad, a step budget, re-asks;
* :class:`MultiTurnAgent` -- a policy model and a simulated user (:class:`ScriptedUser`, or
  :class:`ChatUser` on any endpoint) take turns; the env scores the result;
* :func:`agent_spec` -- a multi-step preset as a benchmark
  :class:`~agentgym_envs.benchmarks.PolicySpec` (:data:`AGENTS`: the presets by name);
* :func:`serve_agent` / :class:`AgentServerClient` -- an agent as an HTTP service running
  whole episodes (``agentgym agent-server``), and its client and benchmark policy;
* :func:`run_agent` -- one episode with an agent, returned as an AgentTraj record with token
  counts and per-turn latency;
* :class:`ExpertChatServer` -- an OpenAI-compatible server on ``127.0.0.1`` that answers with the
  family's expert action: put it behind an agent to check the plumbing gives the expert's score.

Submodules load on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "AgentStats": "base",
    "TurnStats": "base",
    "run_agent": "base",
    "MultiStepAgent": "multistep",
    "MultiTurnAgent": "multiturn",
    "ScriptedUser": "users",
    "ChatUser": "users",
    "Persona": "personas",
    "persona_for": "personas",
    "AGENTS": "specs",
    "agent_spec": "specs",
    "ExpertChatServer": "expert_server",
    "AgentServer": "server",
    "create_app": "server",
    "serve_agent": "server",
    "AgentServerClient": "client",
    "AgentServerPolicy": "client",
    "agent_server_spec": "client",
}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"agentgym_envs.agents.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'agentgym_envs.agents' has no attribute {name!r}")


__all__ = list(_EXPORTS)
