"""The multi-turn agent: native tool calls (several per model turn), a scratchpad, retries."""

from __future__ import annotations

import json
import logging
from collections import deque
from typing import Any

from agentgym_envs.agents.base import AgentStats, timed_chat
from agentgym_envs.wrappers.conversation import Conversation, Message
from agentgym_envs.wrappers.function_calling import parse_tool_call

logger = logging.getLogger(__name__)

#: The agent's own tool: a note kept in its scratchpad and shown to it on every turn.
MEMORY_TOOL = "remember"
_MEMORY_SCHEMA = {
    "type": "function",
    "function": {
        "name": MEMORY_TOOL,
        "description": "Write a short note to your scratchpad (plans, facts found so far). "
        "Your notes are shown to you on every turn. It does not act on the environment.",
        "parameters": {
            "type": "object",
            "properties": {"note": {"type": "string", "description": "the note"}},
            "required": ["note"],
            "additionalProperties": False,
        },
    },
}
SYSTEM = (
    "You solve a task by calling tools. You may call several tools in one turn; they run in "
    "order, and you see every result before your next turn."
)


class MultiTurnAgent:
    """A tool-calling agent that keeps its own multi-turn conversation.

    Each model turn may call several of the env's tools; they are sent to the env one per step
    (the FunctionCalling wrapper takes one call per step) without asking the model again, and
    each result comes back as the ``tool`` message answering its call. The queue stops early
    when the env ends the episode or answers a call with an error (the model sees it and
    re-plans). The ``remember`` tool writes to a scratchpad kept in the system message. A reply
    with no usable tool call (no call, bad JSON, an unknown tool) is answered with what is
    wrong and asked again, at most ``max_retries`` times per env step; after that the reply
    goes to the env, which answers it as an invalid call.

    Args:
        client: a :class:`~agentgym_envs.benchmarks.ChatClient`.
        max_retries: re-asks per env step for malformed output.
        max_memory_turns: model turns per env step that only write notes.
        max_history_turns: exchanges kept in the prompt (``None``: all).
        system: the system message (the scratchpad is appended to it).
        seed: sampling seed when the client samples (``temperature > 0``).

    ``stats`` holds per-call latency and tokens, ``usage`` the totals, ``memory`` the notes.
    One agent can play episode after episode (``rollout.collect`` with a policy factory): a
    reset observation starts a fresh conversation and scratchpad; ``stats`` keeps counting.
    """

    format = "tools"

    def __init__(
        self,
        client: Any,
        *,
        max_retries: int = 2,
        max_memory_turns: int = 2,
        max_history_turns: int | None = None,
        system: str = SYSTEM,
        seed: int | None = None,
    ) -> None:
        from agentgym_envs.benchmarks.llm import Sampling

        base = client.sampling
        sample_seed = (
            base.seed if base.seed is not None else (seed if base.temperature > 0 else None)
        )
        self.client = client
        self.sampling = Sampling(
            base.temperature, base.top_p, base.max_tokens, sample_seed, base.stop
        )
        self.max_retries = max_retries
        self.max_memory_turns = max_memory_turns
        self.max_history_turns = max_history_turns
        self.system = system
        self.memory: list[str] = []
        self.stats = AgentStats()
        self.usage = self.stats.usage
        self.history: Conversation | None = None
        self.env_tools: list[dict[str, Any]] = []
        self._queue: deque[dict[str, Any]] = deque()
        self._last_reply: dict[str, Any] = {"role": "assistant", "content": ""}
        self._waiting: str | None = None  # id of the call whose result the env sends next

    # -- the policy ------------------------------------------------------------------------
    def __call__(self, observation: str, info: dict[str, Any]) -> Any:
        if self.history is not None and "env_observation" in info:  # a reset: a new episode
            self.history, self.memory, self._waiting = None, [], None
            self._queue.clear()
        if self.history is None:
            self.env_tools = list(info.get("tools") or [])
            self.history = Conversation.start(observation, info, layout="user")
        elif self._waiting is not None:
            self.history.add_answer(observation, [self._waiting])
            self._waiting = None
            if info.get("error"):
                self._drop_queue("the previous call failed")
        else:
            self.history.add_answer(observation)
        if not self._queue:
            self._think()
        if not self._queue:  # retry budget spent: the env answers the last reply
            return self._last_reply
        call = self._queue.popleft()
        self._waiting = call["id"]
        return {"role": "assistant", "content": "", "tool_calls": [call]}

    def _drop_queue(self, why: str) -> None:
        for call in self._queue:
            self.history.add_answer(f"Not run: {why}.", [call["id"]])  # type: ignore[union-attr]
        self._queue.clear()

    def _prompt(self) -> list[dict[str, Any]]:
        system = self.system
        if self.memory:
            system += "\n\nYour scratchpad:\n" + "\n".join(f"- {n}" for n in self.memory)
        return [
            {"role": "system", "content": system},
            *self.history.messages(self.max_history_turns),
        ]  # type: ignore[union-attr]

    def _think(self) -> None:
        """Ask the model until its reply calls an env tool (or a budget runs out)."""
        tools = [*self.env_tools, _MEMORY_SCHEMA]
        names = {t.get("function", t).get("name") for t in self.env_tools}
        retries = memory_turns = 0
        while True:
            reply, latency = timed_chat(
                self.client, self._prompt(), tools=tools, sampling=self.sampling
            )
            parsed = parse_tool_call(
                {"role": "assistant", "content": reply.content, "tool_calls": reply.tool_calls}
            )
            n = self.usage["calls"]
            calls = [c.as_openai(f"call_{n}_{i}") for i, c in enumerate(parsed.calls)]
            env_calls = [c for c in calls if c["function"]["name"] in names]
            notes = [c for c in calls if c["function"]["name"] == MEMORY_TOOL]
            unknown = [c["function"]["name"] for c in calls if c not in env_calls + notes]
            problem = parsed.error
            if problem is None and unknown:
                problem = f"unknown tool {unknown[0]!r}: use one of {', '.join(sorted(names))}"
            if problem is None and not env_calls and not notes:
                problem = "the reply has no tool call"
            if problem is None and not env_calls and memory_turns >= self.max_memory_turns:
                problem = "call one of the environment's tools now"
            if problem is None:
                message = {"role": "assistant", "content": reply.content, "tool_calls": calls}
                self.history.add_reply(Message.from_chat(message))  # type: ignore[union-attr]
                for note in notes:
                    self.memory.append(str(_argument(note, "note")))
                    self.history.add_answer("Noted.", [note["id"]])  # type: ignore[union-attr]
                if env_calls:
                    self.stats.record(latency, reply.usage, "action", len(env_calls))
                    self._queue.extend(env_calls)
                    return
                self.stats.record(latency, reply.usage, "memory", len(notes))
                memory_turns += 1
                continue
            # Malformed: the reply stands in the conversation as text, answered with what is
            # wrong; past the budget the env answers it instead.
            self._last_reply = {"role": "assistant", "content": reply.content}
            if reply.tool_calls:
                self._last_reply["tool_calls"] = reply.tool_calls
            self.history.add_reply(
                Message.from_chat({"role": "assistant", "content": reply.content})
            )  # type: ignore[union-attr]
            if retries >= self.max_retries:
                self.stats.record(latency, reply.usage, "gave_up", len(calls))
                logger.debug("retry budget spent: %s", problem)
                return
            retries += 1
            self.stats.record(latency, reply.usage, "retry", len(calls))
            self.history.add_answer(f"Error: {problem}. Reply with a tool call.")  # type: ignore[union-attr]

    def conversation(self) -> list[dict[str, Any]]:
        """The agent's conversation as AgentTraj turns (retries and notes included)."""
        return self.history.agenttraj() if self.history is not None else []


def _argument(call: dict[str, Any], name: str) -> Any:
    try:
        return json.loads(call["function"]["arguments"] or "{}").get(name, "")
    except (ValueError, AttributeError):
        return ""


__all__ = ["MEMORY_TOOL", "MultiTurnAgent"]
