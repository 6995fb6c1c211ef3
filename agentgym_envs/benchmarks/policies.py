"""Policies a benchmark can run: the family's scripted expert, a uniformly random player, and
any OpenAI-compatible chat model (vLLM, Ollama, TensorZero, llama.cpp, OpenAI). The reference
agents over such an endpoint are specs too (:func:`agentgym_envs.agents.agent_spec`).

A policy is a callable ``(observation, info) -> action``. :class:`PolicySpec` is what the
runner takes: a name, the action format the policy speaks (``plain`` env actions, ``react``
text or native ``tools`` calls), a factory that builds a fresh policy for one episode, and the
settings recorded with the run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import gymnasium as gym
import numpy as np

from agentgym_envs.rollout.episode import Policy
from agentgym_envs.spec import expert_policy
from agentgym_envs.wrappers.conversation import Conversation, Message

Format = Literal["plain", "react", "tools"]


def random_policy(env: gym.Env, seed: int | None = 0) -> Policy:
    """Each turn, the env's :meth:`~agentgym_envs.core.TextEnv.random_action`."""
    rng = np.random.default_rng(seed)
    base = env.unwrapped

    def act(observation: str, info: dict[str, Any]) -> str:
        return base.random_action(rng)

    return act


@dataclass
class PolicySpec:
    """What the runner needs to play a policy.

    ``factory(env, seed)`` returns the policy for one episode: ``env`` is the env the policy
    acts on (the bare env for ``plain``, the ReAct / FunctionCalling-wrapped env otherwise),
    ``seed`` is the episode's seed (sampling, random moves).
    """

    name: str
    format: Format
    factory: Callable[[gym.Env, int], Policy]
    config: dict[str, Any] = field(default_factory=dict)
    #: Called once before a run (e.g. to check the endpoint answers); may raise.
    check: Callable[[], None] | None = None
    #: Called once the run folder is locked, before any episode: ``prepare(out, done)`` with
    #: the folder (``None``: in memory) and the episode records already done there.
    prepare: Callable[[Any, dict[Any, dict[str, Any]]], None] | None = None
    #: Called once the run's episodes are over (even after an error): release what
    #: ``prepare`` or the episodes started.
    finish: Callable[[], None] | None = None

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "format": self.format, **self.config}


def expert_spec() -> PolicySpec:
    """The family's scripted expert (plain env actions)."""
    return PolicySpec("expert", "plain", lambda env, seed: expert_policy(env))


def random_spec() -> PolicySpec:
    """Uniformly random well-formed actions (plain env actions), seeded per episode."""
    return PolicySpec("random", "plain", lambda env, seed: random_policy(env, seed))


# -- chat models -----------------------------------------------------------------------------
class ChatAgent:
    """One episode of a chat model acting through the ReAct or FunctionCalling wrapper.

    The prompt is the env's chat history (``info["messages"]`` from
    :class:`~agentgym_envs.wrappers.ChatHistory`, already windowed) when the env keeps one;
    otherwise the agent keeps the episode itself in a
    :class:`~agentgym_envs.wrappers.conversation.Conversation` opened as AgentGym's are (the
    instructions as the first user message, the acknowledgement, then the first turn) and
    windowed to the last ``max_history_turns`` exchanges. In ``tools`` format the replies are
    native tool calls and observations come back as ``tool`` messages. ``system`` puts a system
    message first. ``usage`` sums token counts.
    """

    def __init__(
        self,
        client: Any,
        fmt: Literal["react", "tools"] = "react",
        *,
        seed: int | None = None,
        max_history_turns: int | None = None,
        system: str | None = None,
    ) -> None:
        from agentgym_envs.benchmarks.llm import Sampling

        if fmt not in ("react", "tools"):
            raise ValueError(f"format {fmt!r} is not a chat format: use 'react' or 'tools'")
        self.client = client
        self.format = fmt
        self.max_history_turns = max_history_turns
        self.system = system
        base = client.sampling
        sample_seed = (
            base.seed if base.seed is not None else (seed if base.temperature > 0 else None)
        )
        self.sampling = Sampling(
            base.temperature, base.top_p, base.max_tokens, sample_seed, base.stop
        )
        self.history: Conversation | None = None
        self.tools: list[dict[str, Any]] | None = None
        self.usage: dict[str, int] = {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0}

    def _prompt(self, observation: str, info: dict[str, Any]) -> list[dict[str, Any]]:
        if info.get("messages"):
            prompt = list(info["messages"])
        else:
            if self.history is None:
                self.history = Conversation.start(observation, info, layout="user")
            else:
                self.history.add_answer(
                    observation, [c["id"] for c in info.get("tool_calls") or []]
                )
            prompt = self.history.messages(self.max_history_turns)
        if self.system and prompt[0].get("role") != "system":
            prompt = [{"role": "system", "content": self.system}, *prompt]
        return prompt

    def __call__(self, observation: str, info: dict[str, Any]) -> Any:
        if self.format == "tools" and info.get("tools"):
            self.tools = info["tools"]
        prompt = self._prompt(observation, info)
        tools = self.tools if self.format == "tools" else None
        reply = self.client.chat(prompt, tools=tools, sampling=self.sampling)
        self.usage["calls"] += 1
        for key in ("prompt_tokens", "completion_tokens"):
            self.usage[key] += int(reply.usage.get(key, 0))
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            message["tool_calls"] = [dict(c) for c in reply.tool_calls]
        if self.history is not None:
            self.history.add_reply(Message.from_chat(message))
        if self.format == "tools":
            return {
                "role": "assistant",
                "content": reply.content,
                "tool_calls": message.get("tool_calls") or [],
            }
        return reply.content

    def conversation(self) -> list[dict[str, Any]]:
        """The episode the agent kept itself (no chat history in the env) as AgentTraj turns."""
        return self.history.agenttraj() if self.history is not None else []


def openai_spec(
    *,
    base_url: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    fmt: Literal["react", "tools"] = "react",
    temperature: float = 0.0,
    top_p: float = 1.0,
    max_tokens: int = 512,
    seed: int | None = None,
    timeout: float = 120.0,
    max_retries: int = 4,
    max_history_turns: int | None = None,
    system: str | None = None,
    name: str = "openai",
    client: Any = None,
) -> PolicySpec:
    """A chat model behind any OpenAI-compatible endpoint.

    Defaults are AgentGym's evaluation setting: greedy decoding (``temperature=0``). With
    ``temperature > 0`` each episode samples with its own seed, so ``n_samples > 1`` gives
    distinct tries. See :class:`~agentgym_envs.benchmarks.llm.ChatClient` for ``base_url`` /
    ``model`` / ``api_key`` defaults (``$OPENAI_BASE_URL``, ``$OPENAI_API_KEY``);
    ``max_retries`` is its retry budget for transient endpoint errors. ``client``: a ready
    ``ChatClient`` instead of the endpoint and sampling arguments.
    """
    from agentgym_envs.benchmarks.llm import ChatClient, Sampling

    if client is None:
        client = ChatClient(
            base_url,
            model,
            api_key,
            timeout=timeout,
            max_retries=max_retries,
            sampling=Sampling(temperature, top_p, max_tokens, seed),
        )

    def factory(env: gym.Env, episode_seed: int) -> Policy:
        return ChatAgent(
            client, fmt, seed=episode_seed, max_history_turns=max_history_turns, system=system
        )

    def check() -> None:
        client.check()
        spec.config["model"] = client.model

    spec = PolicySpec(
        name,
        fmt,
        factory,
        config={
            "base_url": client.base_url,
            "model": model,
            "temperature": client.sampling.temperature,
            "top_p": client.sampling.top_p,
            "max_tokens": client.sampling.max_tokens,
            "seed": client.sampling.seed,
            "max_history_turns": max_history_turns,
        },
        check=check,
    )
    spec.client = client  # type: ignore[attr-defined]
    return spec


__all__ = [
    "ChatAgent",
    "Format",
    "Policy",
    "PolicySpec",
    "expert_policy",
    "expert_spec",
    "openai_spec",
    "random_policy",
    "random_spec",
]
