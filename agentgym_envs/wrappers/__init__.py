"""Wrappers that turn any agentgym-envs ``TextEnv`` into the loop an LLM policy lives in.

Each wrapper does one thing and subclasses a ``gymnasium`` wrapper:

* :class:`ReAct` -- prompt with the family's instructions (ours, or AgentGym's read from the
  user's copy: :mod:`~agentgym_envs.wrappers.prompts`), read each reply as AgentGym's client
  for the family does (:mod:`~agentgym_envs.wrappers.parsers`) or with our strict parser;
* :class:`FunctionCalling` -- the actions as OpenAI tools, a tool call as the action;
* :class:`RewardShaping` -- step / invalid-action penalties, success bonus, progress shaping;
* :class:`TurnLimit` / :class:`WallClockLimit` -- AgentGym's max rounds, a time budget;
* :class:`HorizonCurriculum` -- ScalingInter-RL's growing turn limit (:class:`HorizonSchedule`);
* :class:`ChatHistory` -- the conversation as chat messages in ``info["messages"]``;
* :class:`RecordTrajectory` -- each finished episode as an AgentTraj JSONL record;
* :class:`TokenBudget` -- a token budget per episode, counted with the model's tokenizer.

Chat history, trajectory records, the benchmark's chat agent and the rollout loop keep their
episode in one :class:`~agentgym_envs.wrappers.conversation.Conversation`.

:func:`make_llm_env` stacks them in the right order.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium as gym

from agentgym_envs.wrappers.conversation import Conversation, Message
from agentgym_envs.wrappers.curriculum import (
    FIXED_ROUNDS_BASELINES,
    SCALING_INTER_PRESETS,
    HorizonCurriculum,
    HorizonSchedule,
)
from agentgym_envs.wrappers.function_calling import (
    FunctionCalling,
    ParsedToolCall,
    ToolCall,
    parse_tool_call,
)
from agentgym_envs.wrappers.history import ChatHistory
from agentgym_envs.wrappers.limits import (
    DEFAULT_MAX_SECONDS,
    TurnLimit,
    WallClockLimit,
    default_max_rounds,
)
from agentgym_envs.wrappers.parsers import AgentGymReply, parse_agentgym
from agentgym_envs.wrappers.prompts import ConversationStart, agentgym_start
from agentgym_envs.wrappers.react import ParsedReply, ReAct, format_react, parse_react
from agentgym_envs.wrappers.record import RecordTrajectory, read_trajectories
from agentgym_envs.wrappers.reward import RewardShaping
from agentgym_envs.wrappers.tokens import (
    AdaptiveHorizon,
    AdaptiveSchedule,
    TokenBudget,
    token_counter,
    truncate_text,
)

FORMATS = ("react", "tools")


def make_llm_env(
    env: str | gym.Env,
    format: str = "react",
    *,
    max_rounds: int | None = None,
    max_seconds: float | None = DEFAULT_MAX_SECONDS,
    curriculum: HorizonSchedule | str | Sequence[int] | None = None,
    shaping: Mapping[str, Any] | None = None,
    history: bool = True,
    window: int | None = None,
    instructions_role: str = "system",
    record: str | os.PathLike[str] | None = None,
    on_invalid: str = "feedback",
    clock: Callable[[], float] | None = None,
    env_kwargs: Mapping[str, Any] | None = None,
    parser: str = "agentgym",
    prompts: str = "ours",
    prompts_source: str | os.PathLike[str] | None = None,
) -> gym.Env:
    """An env ready for an LLM policy: ``gymnasium.make(id)`` plus the usual wrapper stack.

    From the inside out: ``format`` (:class:`ReAct` for ``"react"``, :class:`FunctionCalling`
    for ``"tools"``), :class:`RewardShaping` (only if ``shaping`` is given: its keyword
    arguments), the turn limit (:class:`HorizonCurriculum` if ``curriculum`` is given, else
    :class:`TurnLimit` with ``max_rounds``, default AgentGym's max rounds for the id),
    :class:`WallClockLimit` (``max_seconds``, default 300; ``None`` for none),
    :class:`ChatHistory` (``history``, ``window``, ``instructions_role``) and
    :class:`RecordTrajectory` (if ``record`` names a JSONL file). The limits sit outside the
    format wrapper, so every model reply counts as a round, as in AgentGym.

    ``parser`` (ReAct): ``"agentgym"`` (default) reads each reply as AgentGym's client for
    the family does; ``"strict"`` is our stricter ReAct parser (:func:`parse_react`).
    ``prompts``: ``"ours"`` (default) or ``"agentgym"``, AgentGym's conversation start and
    first-turn formatting read from ``prompts_source`` (an AgentTraj file or an AgentGym
    checkout); ReAct only.

    ``env`` is a registered id (``"AgentGym/Wordle-v0"``, ``"Wordle-v0"``) made with
    ``env_kwargs``, or an env you made yourself.
    """
    if format not in FORMATS:
        raise ValueError(f"format={format!r} is not supported: use 'react' or 'tools'")
    if curriculum is not None and max_rounds is not None:
        raise ValueError(
            "give max_rounds or curriculum, not both: the curriculum sets the turn limit"
        )
    if isinstance(env, str):
        from agentgym_envs import make

        env = make(env, **dict(env_kwargs or {}))
    elif env_kwargs:
        raise ValueError("env_kwargs only applies when env is an id: the env is already made")
    if format == "react":
        env = ReAct(
            env,
            on_invalid=on_invalid,
            parser=parser,
            prompts=prompts,
            prompts_source=prompts_source,
        )
    elif prompts != "ours":
        raise ValueError(
            f"prompts={prompts!r} applies to format='react': AgentGym's prompts are ReAct prompts"
        )
    else:
        env = FunctionCalling(env)
    if shaping is not None:
        env = RewardShaping(env, **dict(shaping))
    if curriculum is not None:
        env = HorizonCurriculum(env, curriculum)
    else:
        env = TurnLimit(env, max_rounds)
    if max_seconds is not None:
        env = WallClockLimit(env, max_seconds, **({"clock": clock} if clock is not None else {}))
    if history:
        env = ChatHistory(env, window=window, instructions_role=instructions_role)
    if record is not None:
        env = RecordTrajectory(env, record)
    return env


__all__ = [
    "DEFAULT_MAX_SECONDS",
    "FIXED_ROUNDS_BASELINES",
    "FORMATS",
    "SCALING_INTER_PRESETS",
    "AdaptiveHorizon",
    "AdaptiveSchedule",
    "AgentGymReply",
    "ChatHistory",
    "Conversation",
    "ConversationStart",
    "FunctionCalling",
    "HorizonCurriculum",
    "HorizonSchedule",
    "Message",
    "ParsedReply",
    "ParsedToolCall",
    "ReAct",
    "RecordTrajectory",
    "RewardShaping",
    "TokenBudget",
    "ToolCall",
    "TurnLimit",
    "WallClockLimit",
    "agentgym_start",
    "default_max_rounds",
    "format_react",
    "make_llm_env",
    "parse_agentgym",
    "parse_react",
    "parse_tool_call",
    "read_trajectories",
    "token_counter",
    "truncate_text",
]
