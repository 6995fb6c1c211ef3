"""The reference agents as benchmark policies (:class:`~agentgym_envs.benchmarks.PolicySpec`)."""

from __future__ import annotations

from typing import Any

from agentgym_envs.benchmarks.policies import PolicySpec

#: Agent name -> the action format it speaks.
AGENTS = {"multistep": "react", "multistep-tools": "tools", "multiturn": "tools"}


def agent_spec(
    agent: str = "multistep",
    *,
    base_url: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    temperature: float = 0.0,
    max_tokens: int = 512,
    timeout: float = 120.0,
    max_retries: int = 2,
    max_history_turns: int | None = None,
    client: Any = None,
) -> PolicySpec:
    """A reference agent over an OpenAI-compatible endpoint, for
    :func:`~agentgym_envs.benchmarks.run_benchmark` (one fresh agent per episode).

    ``agent``: ``multistep`` (ReAct text), ``multistep-tools`` (one native tool call per
    turn) or ``multiturn`` (:class:`~agentgym_envs.agents.MultiTurnAgent`). ``max_retries``
    is the multi-turn agent's re-ask budget for malformed output. ``client``: a ready
    :class:`~agentgym_envs.benchmarks.ChatClient` instead of ``base_url`` / ``model``.
    """
    from agentgym_envs.agents.multistep import MultiStepAgent
    from agentgym_envs.agents.multiturn import MultiTurnAgent
    from agentgym_envs.benchmarks.llm import ChatClient, Sampling
    from agentgym_envs.errors import AgentGymError, unknown_name

    if agent not in AGENTS:
        raise AgentGymError(unknown_name("agent", agent, AGENTS))
    fmt = AGENTS[agent]
    if client is None:
        client = ChatClient(
            base_url,
            model,
            api_key,
            timeout=timeout,
            sampling=Sampling(temperature, 1.0, max_tokens),
        )

    def factory(env: Any, seed: int) -> Any:
        if agent == "multiturn":
            return MultiTurnAgent(
                client, max_retries=max_retries, max_history_turns=max_history_turns, seed=seed
            )
        return MultiStepAgent(client, fmt, seed=seed, max_history_turns=max_history_turns)

    def check() -> None:
        client.check()
        spec.config["model"] = client.model

    spec = PolicySpec(
        f"agent:{agent}",
        fmt,  # type: ignore[arg-type]
        factory,
        config={
            "base_url": client.base_url,
            "model": model,
            "temperature": temperature,
            "max_tokens": max_tokens,
            "max_retries": max_retries,
            "max_history_turns": max_history_turns,
        },
        check=check,
    )
    spec.client = client  # type: ignore[attr-defined]
    return spec


__all__ = ["AGENTS", "agent_spec"]
