"""One conversation model for chat messages and AgentTraj turns.

A :class:`Conversation` is an *opening* (an optional system message, the instruction turn, the
model's acknowledgement, the first observation) and the *exchanges* after it (a model turn and
the env's answer to it). It gives the same episode as OpenAI chat messages (optionally windowed
to the last N exchanges; the opening always stays) and as AgentTraj turns
(``{"from": "human" | "gpt", "loss": ..., "value": ...}``). The chat-history wrapper, the
trajectory recorder, the benchmark's chat agent and its episode loop all keep their episode
in one.
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["system", "user", "assistant", "tool"]
#: The layouts of the opening: instructions as a system message, or as AgentGym's user turn
#: answered by the model's acknowledgement.
LAYOUTS = ("system", "user")
_AGENTTRAJ_ROLE = {"system": "human", "user": "human", "tool": "human", "assistant": "gpt"}


def as_mapping(obj: Any) -> Any:
    """SDK objects (pydantic models, objects with ``model_dump`` / ``to_dict``) as dicts."""
    if isinstance(obj, (Mapping, str, bytes, list, tuple)):
        return obj
    for method in ("model_dump", "to_dict", "dict"):
        fn = getattr(obj, method, None)
        if callable(fn):
            try:
                return fn()
            except (TypeError, ValueError, AttributeError):
                continue
    return obj


def reply_text(action: Any) -> str:
    """A model turn as transcript text: strings as they are, tool calls as JSON."""
    if isinstance(action, str):
        return action
    try:
        return json.dumps(as_mapping(action), default=str)
    except (TypeError, ValueError):
        return str(action)


def _call_text(call: Mapping[str, Any]) -> str:
    fn = call.get("function", call)
    args = fn.get("arguments", {})
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            pass
    return json.dumps({"name": fn.get("name"), "arguments": args})


@dataclass(frozen=True)
class Message:
    """One message of a conversation.

    Attributes:
        role: ``system``, ``user`` (the env, or the instructions), ``assistant`` (the model)
            or ``tool`` (the env's answer to a tool call).
        content: the text (``None`` for an assistant turn that only calls tools).
        loss: AgentTraj's training flag: ``True`` for model turns, ``False`` for the
            acknowledgement, ``None`` for env turns.
        tool_calls: OpenAI ``tool_calls`` entries of an assistant turn.
        tool_call_id: the call a ``tool`` message answers.
    """

    role: Role
    content: str | None
    loss: bool | None = None
    tool_calls: tuple[dict[str, Any], ...] = field(default=(), compare=False)
    tool_call_id: str | None = None

    def chat(self) -> dict[str, Any]:
        """The message in OpenAI's chat format (a fresh dict the caller may change)."""
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [
                {**c, "function": dict(c.get("function") or {})} for c in self.tool_calls
            ]
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        return out

    @property
    def text(self) -> str:
        """The turn as AgentTraj text: content, then each tool call as JSON on its own line."""
        text = self.content or ""
        if self.tool_calls:
            calls = "\n".join(_call_text(c) for c in self.tool_calls)
            text = f"{text}\n{calls}".strip() if text else calls
        return text

    def turn(self) -> dict[str, Any]:
        """The message as an AgentTraj turn."""
        return {"from": _AGENTTRAJ_ROLE[self.role], "loss": self.loss, "value": self.text}

    @classmethod
    def from_chat(cls, message: Mapping[str, Any]) -> Message:
        role = message.get("role", "user")
        return cls(
            role,
            message.get("content"),
            True if role == "assistant" else None,
            tuple(dict(c) for c in message.get("tool_calls") or ()),
            message.get("tool_call_id"),
        )

    @classmethod
    def from_turn(cls, turn: Mapping[str, Any]) -> Message:
        role: Role = "assistant" if turn.get("from") == "gpt" else "user"
        return cls(role, str(turn.get("value", "")), turn.get("loss"))


def check_window(window: Any) -> int | None:
    if window is not None and (
        isinstance(window, bool) or not isinstance(window, numbers.Integral) or window < 0
    ):
        raise ValueError(f"window must be None or an int >= 0, got {window!r}")
    return None if window is None else int(window)


class Conversation:
    """An episode's messages: the opening and the exchanges after it.

    Args:
        opening: the messages that always stay (system, instructions, ack, first observation).
    """

    def __init__(self, opening: list[Message] | None = None) -> None:
        self.opening: list[Message] = list(opening or [])
        self.exchanges: list[list[Message]] = []

    @classmethod
    def start(
        cls,
        observation: str,
        info: Mapping[str, Any],
        *,
        layout: str = "user",
        ack: str | None = None,
        system: str | None = None,
    ) -> Conversation:
        """The opening of an episode from a format wrapper's ``reset()`` result.

        With ``info["instructions"]`` (ReAct, FunctionCalling): the instructions as a system
        message (``layout="system"``) or as AgentGym's user turn answered by the
        acknowledgement (``info["ack"]``, else ``ack``, else ``"Ok."``), then the first turn
        (``info["first_turn"]``, else ``info["env_observation"]``). Without instructions the
        observation alone. ``system`` puts a system message first.
        """
        if layout not in LAYOUTS:
            raise ValueError(f"layout {layout!r} is not supported: use 'system' or 'user'")
        opening = [Message("system", system)] if system else []
        instructions = info.get("instructions")
        if instructions:
            first = info.get("first_turn", info.get("env_observation", observation))
            if layout == "system":
                opening.append(Message("system", str(instructions)))
            else:
                said = ack if ack is not None else info.get("ack", "Ok.")
                opening.append(Message("user", str(instructions)))
                opening.append(Message("assistant", str(said), loss=False))
            opening.append(Message("user", str(first)))
        else:
            opening.append(Message("user", str(observation)))
        return cls(opening)

    def add(self, reply: Any, observation: str, calls: list[dict[str, Any]] | None = None) -> None:
        """One exchange: the model's ``reply`` and the env's ``observation``.

        With ``calls`` (OpenAI ``tool_calls`` entries) the reply is an assistant message
        calling them, answered by one ``tool`` message per call.
        """
        if calls:
            mapping = as_mapping(reply)
            content = mapping.get("content") if isinstance(mapping, Mapping) else None
            turn = [
                Message(
                    "assistant", content if isinstance(content, str) else None, True, tuple(calls)
                )
            ]
            turn += [Message("tool", observation, None, (), c.get("id")) for c in calls]
        else:
            turn = [Message("assistant", reply_text(reply), True), Message("user", observation)]
        self.exchanges.append(turn)

    def add_reply(self, message: Message) -> None:
        """A model turn whose answer is not known yet (see :meth:`add_answer`)."""
        self.exchanges.append([message])

    def add_answer(self, observation: str, call_ids: list[str] | None = None) -> None:
        """The env's answer to the last model turn (``tool`` messages for its calls)."""
        if not self.exchanges:
            self.opening.append(Message("user", observation))
            return
        if call_ids:
            self.exchanges[-1] += [Message("tool", observation, None, (), i) for i in call_ids]
        else:
            self.exchanges[-1].append(Message("user", observation))

    def window(self, window: int | None = None) -> list[Message]:
        """The opening and the last ``window`` exchanges (all when ``None``)."""
        if window is None:
            kept = self.exchanges
        else:
            kept = self.exchanges[len(self.exchanges) - window :] if window else []
        return self.opening + [m for turn in kept for m in turn]

    def messages(self, window: int | None = None) -> list[dict[str, Any]]:
        """The conversation as OpenAI chat messages, within ``window``."""
        return [m.chat() for m in self.window(window)]

    def agenttraj(self) -> list[dict[str, Any]]:
        """The whole conversation as AgentTraj turns: system messages left out, several tool
        answers to one turn joined into one env turn."""
        turns: list[dict[str, Any]] = []
        for message in self.window():
            if message.role == "system":
                continue
            turn = message.turn()
            if turn["from"] == "human" and turns and turns[-1]["from"] == "human":
                turns[-1]["value"] += "\n" + turn["value"]
                continue
            turns.append(turn)
        return turns

    def __len__(self) -> int:
        return len(self.exchanges)


__all__ = [
    "LAYOUTS",
    "Conversation",
    "Message",
    "as_mapping",
    "check_window",
    "reply_text",
]
