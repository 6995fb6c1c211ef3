"""Chat history: the conversation so far as OpenAI chat messages, ready for the next request.

``info["messages"]`` after every ``reset()`` and ``step()`` is the list to send to a chat
completion endpoint. The history is a :class:`~agentgym_envs.wrappers.conversation.Conversation`
kept in the wrapper and started afresh on every ``reset()`` (a peer's observation wrapper
carries old episodes into new ones; this one does not).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from agentgym_envs.wrappers.conversation import LAYOUTS, Conversation, check_window

Message = dict[str, Any]


class ChatHistory(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Keep the episode as ``system`` / ``user`` / ``assistant`` (and ``tool``) messages.

    The first messages hold the task: with ReAct or FunctionCalling inside, the instructions
    (``info["instructions"]``) as a ``system`` message -- or, with ``instructions_role="user"``,
    as AgentGym's opening (user instructions, the assistant's acknowledgement) -- then the first
    turn as a ``user`` message. Each step adds the model's turn as an ``assistant`` message and
    the env's answer as a ``user`` message; a tool call (``info["tool_calls"]`` from
    FunctionCalling) becomes an assistant message with ``tool_calls`` answered by ``tool``
    messages, as OpenAI's API expects. ``self.conversation`` is the whole episode.

    Args:
        window: keep only the last ``window`` turns (assistant message plus the answer to it)
            after the task messages, which always stay; ``None`` (default) keeps everything.
        instructions_role: ``"system"`` (default) or ``"user"`` (AgentGym's layout).
        ack: the assistant's reply to instructions given as a user message; default the
            prompt set's (``info["ack"]``: ours ``"Ok."``, AgentGym's where it reads them).
    """

    def __init__(
        self,
        env: gym.Env,
        window: int | None = None,
        instructions_role: str = "system",
        ack: str | None = None,
    ) -> None:
        window = check_window(window)
        if instructions_role not in LAYOUTS:
            raise ValueError(
                f"instructions_role={instructions_role!r} is not supported: use 'system' or 'user'"
            )
        gym.utils.RecordConstructorArgs.__init__(
            self, window=window, instructions_role=instructions_role, ack=ack
        )
        gym.Wrapper.__init__(self, env)
        self.window = window
        self.instructions_role = instructions_role
        self.ack = ack
        self.conversation = Conversation()

    @property
    def messages(self) -> list[Message]:
        """The conversation now (a copy), within the window."""
        return self.conversation.messages(self.window)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        self.conversation = Conversation.start(
            obs, info, layout=self.instructions_role, ack=self.ack
        )
        return obs, dict(info, messages=self.messages)

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.conversation.add(action, obs, info.get("tool_calls") or None)
        return obs, reward, terminated, truncated, dict(info, messages=self.messages)


__all__ = ["ChatHistory"]
