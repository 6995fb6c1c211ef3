"""The reference agents as benchmark policies (:class:`~agentgym_envs.benchmarks.PolicySpec`).

:data:`AGENTS` is the one list of agent names: ``agentgym bench --policy agent:<name>``,
``agentgym agents bench --agent <name>`` and :func:`agent_spec` all read it.
"""

from __future__ import annotations

from typing import Any

from agentgym_envs.benchmarks.policies import PolicySpec, openai_spec

#: Agent name -> the action format it speaks. ``multiturn-user`` is the multi-turn agent with
#: a simulated user (:class:`~agentgym_envs.agents.MultiTurnAgent`, the scripted user).
AGENTS = {
    "multistep": "react",
    "multistep-tools": "tools",
    "multiturn": "tools",
    "multiturn-user": "tools",
}
#: Agent name -> the :class:`~agentgym_envs.agents.MultiStepAgent` options it stands for.
#: ``multiturn`` is the old name of the several-calls-and-scratchpad preset (kept as an alias:
#: the multi-turn agent *with a user model* is :class:`~agentgym_envs.agents.MultiTurnAgent`).
PRESETS: dict[str, dict[str, Any]] = {
    "multistep": {},
    "multistep-tools": {},
    "multiturn": {"parallel_calls": True, "scratchpad": True, "max_reasks": 2},
}
#: How ``agentgym bench --policy`` names an agent: ``agent:<name>``.
POLICY_PREFIX = "agent:"


def unknown_agent(name: str) -> str:
    """The one-line error for an agent name not in :data:`AGENTS`."""
    known = ", ".join(f"{POLICY_PREFIX}{a}" for a in AGENTS)
    return f"unknown agent {name!r}: the reference agents are {known}"


def agent_spec(
    agent: str = "multistep",
    *,
    base_url: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    temperature: float = 0.0,
    top_p: float = 1.0,
    max_tokens: int = 512,
    seed: int | None = None,
    timeout: float = 120.0,
    max_retries: int = 4,
    max_history_turns: int | None = None,
    max_reasks: int = 2,
    client: Any = None,
) -> PolicySpec:
    """A reference agent over an OpenAI-compatible endpoint, for
    :func:`~agentgym_envs.benchmarks.run_benchmark` (one fresh agent per episode).

    ``agent``: ``multistep`` (ReAct text), ``multistep-tools`` (one native tool call per
    turn) or ``multiturn`` (several calls per turn, a scratchpad, re-asks): presets of
    :class:`~agentgym_envs.agents.MultiStepAgent` (:data:`PRESETS`). The endpoint and
    sampling arguments are :func:`~agentgym_envs.benchmarks.openai_spec`'s (``max_retries``:
    retries on transient endpoint errors); ``max_reasks`` is the multi-turn agent's re-ask
    budget for malformed output. ``client``: a ready
    :class:`~agentgym_envs.benchmarks.ChatClient` instead of ``base_url`` / ``model``.
    """
    from agentgym_envs.agents.multistep import PARALLEL_SYSTEM, MultiStepAgent
    from agentgym_envs.errors import AgentGymError

    if agent not in AGENTS:
        raise AgentGymError(unknown_agent(agent))
    fmt = AGENTS[agent]
    spec = openai_spec(
        base_url=base_url,
        model=model,
        api_key=api_key,
        fmt=fmt,  # type: ignore[arg-type]
        temperature=temperature,
        top_p=top_p,
        max_tokens=max_tokens,
        seed=seed,
        timeout=timeout,
        max_retries=max_retries,
        max_history_turns=max_history_turns,
        name=f"{POLICY_PREFIX}{agent}",
        client=client,
    )
    chat = spec.client  # type: ignore[attr-defined]
    if agent not in PRESETS:
        return _with_user(spec, chat)
    options = dict(PRESETS[agent])
    if options.get("parallel_calls"):
        options.update(max_reasks=max_reasks, system=PARALLEL_SYSTEM)

    def factory(env: Any, episode_seed: int) -> Any:
        return MultiStepAgent(
            chat, fmt, seed=episode_seed, max_history_turns=max_history_turns, **options
        )

    spec.factory = factory
    if agent == "multiturn":
        spec.config["max_reasks"] = max_reasks
    return spec


def _with_user(spec: PolicySpec, chat: Any) -> PolicySpec:
    """``multiturn-user``: each episode is a :class:`~agentgym_envs.agents.MultiTurnAgent`
    conversation with the scripted user (``spec.config["tag_requests"]``: name the episode
    in request metadata, for an :class:`~agentgym_envs.agents.ExpertChatServer` model)."""
    from agentgym_envs.agents.multiturn import MultiTurnAgent

    def episode(env_id: str, task_id: int, split: str, seed: int, max_rounds: Any) -> Any:
        tag = bool(spec.config.get("tag_requests"))
        agent = MultiTurnAgent(chat, max_rounds=max_rounds, tag_requests=tag)
        return agent.run(env_id, task_id=task_id, split=split, seed=seed)

    spec.episode = episode  # type: ignore[attr-defined]
    spec.config["tag_requests"] = False
    return spec


__all__ = ["AGENTS", "POLICY_PREFIX", "PRESETS", "agent_spec", "unknown_agent"]
