"""The multi-step agent: one task, many model calls and env actions until the episode ends.

One class with options covers what used to be two agents: ReAct text or native tool calls,
one or several tool calls per model call, a scratchpad, a step budget and re-asks on
malformed output. The registry names ``multistep``, ``multistep-tools`` and ``multiturn``
(:data:`~agentgym_envs.agents.specs.AGENTS`) are presets of it.
"""

from __future__ import annotations

import json
import logging
import re
from collections import deque
from typing import Any

from agentgym_envs.agents.base import AgentStats, timed_chat
from agentgym_envs.wrappers.conversation import Conversation, Message
from agentgym_envs.wrappers.function_calling import parse_tool_call

logger = logging.getLogger(__name__)

#: The agent's own tool: a note kept in its scratchpad and shown to it on every turn.
MEMORY_TOOL = "remember"
MEMORY_SCHEMA = {
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
#: The system message of the several-calls preset (``agent:multiturn``).
PARALLEL_SYSTEM = (
    "You solve a task by calling tools. You may call several tools in one turn; they run in "
    "order, and you see every result before your next turn."
)
_ACTION_LINE = re.compile(r"^\s*Action\s*:", re.IGNORECASE | re.MULTILINE)
_NOTE_LINE = re.compile(r"^\s*Note\s*:\s*(.+)$", re.IGNORECASE | re.MULTILINE)


class StepLimitReached(RuntimeError):
    """The agent's ``max_steps`` budget is spent (the episode ends truncated: ``max_steps``)."""


class MultiStepAgent:
    """A chat model acting on an env, one env action per step, over any OpenAI-compatible
    endpoint (a :class:`~agentgym_envs.benchmarks.ChatClient`).

    The agent keeps its own conversation, opened as AgentGym's are (the instructions as the
    first user message, the acknowledgement, then the first observation), so re-asks and
    scratchpad turns stay in it. With ``parallel_calls`` one model turn may call several env
    tools: they go to the env one per step without asking the model again, each result coming
    back as the ``tool`` message answering its call; the queue stops early when the env ends
    the episode or answers a call with an error. A malformed reply (no tool call, bad JSON, an
    unknown tool; in ReAct no ``Action:`` line) is answered with what is wrong and asked again
    at most ``max_reasks`` times per env step; after that the reply goes to the env, which
    answers it as an invalid action. ``max_reasks=0`` sends every reply to the env as it is.

    Args:
        client: a :class:`~agentgym_envs.benchmarks.ChatClient` (or anything with its
            ``chat`` and ``sampling``).
        fmt: ``"react"`` (Thought/Action text, read by the family's AgentGym parser) or
            ``"tools"`` (native tool calls).
        **kwargs: ``parallel_calls`` (several tool calls per model call, tools only),
            ``scratchpad`` (the ``remember`` tool; in ReAct, ``Note:`` lines), ``max_reasks``,
            ``max_memory_turns`` (model turns per env step that only write notes),
            ``max_steps`` (env actions per episode; past it :class:`StepLimitReached`),
            ``max_history_turns`` (exchanges kept in the prompt), ``system`` (a system
            message first; with ``parallel_calls`` it defaults to :data:`PARALLEL_SYSTEM`) and
            ``seed`` (sampling seed when the client samples).

    ``stats`` holds per-call latency and tokens, ``usage`` the totals, ``memory`` the notes.
    One agent can play episode after episode: a reset observation starts a fresh conversation
    and scratchpad; ``stats`` keeps counting.
    """

    def __init__(self, client: Any, fmt: str = "react", **kwargs: Any) -> None:
        from agentgym_envs.benchmarks.llm import Sampling

        if fmt not in ("react", "tools"):
            raise ValueError(f"format {fmt!r} is not a chat format: use 'react' or 'tools'")
        options = dict(kwargs)
        self.parallel_calls = bool(options.pop("parallel_calls", False))
        self.scratchpad = bool(options.pop("scratchpad", False))
        self.max_reasks = int(options.pop("max_reasks", 0))
        self.max_memory_turns = int(options.pop("max_memory_turns", 2))
        self.max_steps = _count(options.pop("max_steps", None), "max_steps")
        self.max_history_turns = _count(options.pop("max_history_turns", None), "max_history_turns")
        # several calls per turn are explained in a system message (some servers, e.g.
        # llama.cpp's tool-call template, also stall on a tool prompt without one)
        self.system: str | None = options.pop(
            "system", PARALLEL_SYSTEM if self.parallel_calls else None
        )
        seed = options.pop("seed", None)
        if options:
            raise TypeError(f"unknown MultiStepAgent options: {', '.join(sorted(options))}")
        base = client.sampling
        sample_seed = (
            base.seed if base.seed is not None else (seed if base.temperature > 0 else None)
        )
        self.client, self.format = client, fmt
        self.sampling = Sampling(
            base.temperature, base.top_p, base.max_tokens, sample_seed, base.stop
        )
        self.stats = AgentStats()
        self.usage = self.stats.usage
        self.memory: list[str] = []
        self.history: Conversation | None = None
        self.env_tools: list[dict[str, Any]] = []
        self.steps = 0
        self._queue: deque[dict[str, Any]] = deque()
        self._fallback: Any = ""
        self._waiting: str | None = None  # id of the call whose result the env sends next

    # -- the policy ------------------------------------------------------------------------
    def __call__(self, observation: str, info: dict[str, Any]) -> Any:
        if self.history is not None and "env_observation" in info:  # a reset: a new episode
            self.history, self.memory, self._waiting, self.steps = None, [], None, 0
            self._queue.clear()
        self._observe(observation, info)
        if self.max_steps is not None and self.steps >= self.max_steps:
            raise StepLimitReached(f"max_steps={self.max_steps} env actions taken")
        if not self._queue:
            self._think()
        self.steps += 1
        if not self._queue:  # re-asks spent (or none allowed): the env answers the reply
            return self._fallback
        item = self._queue.popleft()
        if self.format == "react":
            return item
        self._waiting = item["id"]
        return {"role": "assistant", "content": "", "tool_calls": [item]}

    def _observe(self, observation: str, info: dict[str, Any]) -> None:
        if self.history is None:
            self.env_tools = list(info.get("tools") or [])
            self.history = Conversation.start(observation, info, layout="user", system=self.system)
        elif self._waiting is not None:
            self.history.add_answer(observation, [self._waiting])
            self._waiting = None
            if info.get("error") and self._queue:
                for call in self._queue:
                    self.history.add_answer("Not run: the previous call failed.", [call["id"]])
                self._queue.clear()
        else:
            self.history.add_answer(observation)

    def _prompt(self) -> list[dict[str, Any]]:
        messages = self.history.messages(self.max_history_turns)  # type: ignore[union-attr]
        if not self.memory:
            return messages
        pad = "Your scratchpad:\n" + "\n".join(f"- {n}" for n in self.memory)
        if messages and messages[0]["role"] == "system":
            return [{**messages[0], "content": f"{messages[0]['content']}\n\n{pad}"}, *messages[1:]]
        return [{"role": "system", "content": pad}, *messages]

    def _tools(self) -> list[dict[str, Any]] | None:
        if self.format != "tools":
            return None
        return [*self.env_tools, MEMORY_SCHEMA] if self.scratchpad else self.env_tools

    def _think(self) -> None:
        """Ask the model until a reply acts on the env (or the re-ask budget runs out)."""
        reasks = memory_turns = 0
        while True:
            reply, latency = timed_chat(
                self.client, self._prompt(), tools=self._tools(), sampling=self.sampling
            )
            read = self._read_tools(reply) if self.format == "tools" else self._read_react(reply)
            actions, notes, problem, message = read
            if problem is None and not actions and memory_turns >= self.max_memory_turns:
                problem = "act on the environment now"
            if problem is None:
                self.history.add_reply(Message.from_chat(message))  # type: ignore[union-attr]
                for note_id, note in notes:
                    self.memory.append(note)
                    if note_id is not None:
                        self.history.add_answer("Noted.", [note_id])  # type: ignore[union-attr]
                if actions:
                    self.stats.record(latency, reply.usage, "action", len(actions))
                    self._queue.extend(actions)
                    return
                self.stats.record(latency, reply.usage, "memory", len(notes))
                memory_turns += 1
                continue
            if self._give_up(reply, latency, problem, reasks):
                return
            reasks += 1

    def _give_up(self, reply: Any, latency: float, problem: str, reasks: int) -> bool:
        """A malformed reply: ``True`` when it goes to the env, else it is answered and the
        model asked again."""
        raw: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            raw["tool_calls"] = reply.tool_calls
        self._fallback = raw if self.format == "tools" else reply.content
        if reasks >= self.max_reasks:
            self.stats.record(latency, reply.usage, "gave_up" if self.max_reasks else "action")
            logger.debug("reply goes to the env as it is: %s", problem)
            text = {"role": "assistant", "content": reply.content}
            self.history.add_reply(Message.from_chat(text))  # type: ignore[union-attr]
            return True
        self.stats.record(latency, reply.usage, "retry", len(reply.tool_calls))
        self.history.add_reply(Message.from_chat({"role": "assistant", "content": reply.content}))  # type: ignore[union-attr]
        what = "a tool call" if self.format == "tools" else "an 'Action:' line"
        self.history.add_answer(f"Error: {problem}. Reply with {what}.")  # type: ignore[union-attr]
        return False

    def _read_tools(self, reply: Any) -> tuple[list, list, str | None, dict[str, Any]]:
        parsed = parse_tool_call(
            {"role": "assistant", "content": reply.content, "tool_calls": reply.tool_calls}
        )
        n = self.usage["calls"]
        calls = [c.as_openai(f"call_{n}_{i}") for i, c in enumerate(parsed.calls)]
        names = {t.get("function", t).get("name") for t in self.env_tools}
        env_calls = [c for c in calls if c["function"]["name"] in names]
        notes = [c for c in calls if self.scratchpad and c["function"]["name"] == MEMORY_TOOL]
        unknown = [c["function"]["name"] for c in calls if c not in env_calls + notes]
        problem = parsed.error
        if problem is None and unknown:
            problem = f"unknown tool {unknown[0]!r}: use one of {', '.join(sorted(names))}"
        if problem is None and not env_calls and not notes:
            problem = "the reply has no tool call"
        if not self.parallel_calls:
            env_calls = env_calls[:1]
        kept = [c for c in calls if c in env_calls or c in notes]
        message = {"role": "assistant", "content": reply.content, "tool_calls": kept}
        return env_calls, [(c["id"], str(_argument(c, "note"))) for c in notes], problem, message

    def _read_react(self, reply: Any) -> tuple[list, list, str | None, dict[str, Any]]:
        text = reply.content
        notes = [(None, m.strip()) for m in _NOTE_LINE.findall(text)] if self.scratchpad else []
        has_action = bool(_ACTION_LINE.search(text))
        problem = None
        if self.max_reasks and not has_action and not notes:
            problem = "the reply has no 'Action:' line"
        if not self.max_reasks:
            has_action = True  # every reply goes to the env, as AgentGym's loop sends it
        message = {"role": "assistant", "content": text}
        actions = [text] if has_action and problem is None else []
        return actions, notes, problem, message

    def conversation(self) -> list[dict[str, Any]]:
        """The agent's conversation as AgentTraj turns (re-asks and notes included)."""
        return self.history.agenttraj() if self.history is not None else []

    def messages(self) -> list[dict[str, Any]]:
        """The agent's conversation as OpenAI chat messages."""
        return self.history.messages() if self.history is not None else []


def _count(value: Any, name: str) -> int | None:
    """``None`` or a count >= 0 (else a ``ValueError`` that says so)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a whole number >= 0 or None, got {value!r}")
    return value


def _argument(call: dict[str, Any], name: str) -> Any:
    try:
        return json.loads(call["function"]["arguments"] or "{}").get(name, "")
    except (ValueError, AttributeError):
        return ""


__all__ = ["MEMORY_TOOL", "PARALLEL_SYSTEM", "MultiStepAgent", "StepLimitReached"]
