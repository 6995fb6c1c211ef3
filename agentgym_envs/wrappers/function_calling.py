"""Native function calling: the env's actions as OpenAI tool schemas, the action a tool call.

Each family declares its tools (:meth:`~agentgym_envs.core.TextEnv.tool_schemas`, e.g. Wordle's
``guess(word)``, Maze's ``move(direction)``) and turns a validated call into its action text
(:meth:`~agentgym_envs.core.TextEnv.action_from_tool_call`). Rewards are the plain env's.

:func:`parse_tool_call` is pure and never raises. It accepts whatever an LLM client hands back:

* an OpenAI chat message (dict, or the SDK's ``ChatCompletionMessage``) with ``tool_calls``, or
  the legacy ``function_call``;
* one tool call: ``{"type": "function", "function": {"name", "arguments"}}``,
  ``{"name", "arguments"}`` or ``{"name", "parameters"}``, with arguments as an object or a JSON
  string; a list of calls;
* text: that JSON, JSON in a code fence, or Hermes/Qwen ``<tool_call>{...}</tool_call>`` tags.

A call's arguments are checked strictly (no conversions) against the tool's JSON schema by
:func:`agentgym_envs.tools.validate_arguments`, the validator the tool families use, which names
every problem.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from agentgym_envs.core import TextEnv
from agentgym_envs.errors import unknown_name
from agentgym_envs.tools.tool import validate_arguments
from agentgym_envs.wrappers.conversation import as_mapping

#: What the FunctionCalling wrapper appends to a family's instructions.
TOOLS_NOTE = "Act by calling exactly one of the provided tools per turn."

_TOOL_CALL_TAG = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_FENCE = re.compile(r"```(?:json)?\s*\n?(.*?)```", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class ToolCall:
    """One call: the tool's name, its decoded arguments, and the call id (``None`` if absent)."""

    name: str
    arguments: dict[str, Any]
    id: str | None = None

    def as_openai(self, call_id: str | None = None) -> dict[str, Any]:
        """The call as an OpenAI ``tool_calls`` entry."""
        return {
            "id": self.id or call_id or "call_0",
            "type": "function",
            "function": {"name": self.name, "arguments": json.dumps(self.arguments, default=str)},
        }


@dataclass(frozen=True)
class ParsedToolCall:
    """What :func:`parse_tool_call` found: the calls, any text content, and an error."""

    calls: tuple[ToolCall, ...] = ()
    content: str = ""
    error: str | None = None
    raw_calls: tuple[dict[str, Any], ...] = field(default=(), repr=False)

    @property
    def ok(self) -> bool:
        return self.error is None and len(self.calls) == 1

    @property
    def call(self) -> ToolCall | None:
        return self.calls[0] if len(self.calls) == 1 else None


def _decode_arguments(name: str, raw: Any) -> tuple[dict[str, Any] | None, str | None]:
    if raw is None or raw == "":
        return {}, None
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            return None, f"the arguments of {name!r} are not valid JSON ({exc})"
    raw = as_mapping(raw)
    if not isinstance(raw, Mapping):
        return None, f"the arguments of {name!r} must be a JSON object, got {type(raw).__name__}"
    return {str(k): v for k, v in raw.items()}, None


def _one_call(obj: Any) -> tuple[ToolCall | None, str | None]:
    obj = as_mapping(obj)
    if not isinstance(obj, Mapping):
        return None, f"a tool call must be an object, got {type(obj).__name__}"
    call_id = obj.get("id")
    fn = as_mapping(obj.get("function")) if "function" in obj else obj
    if not isinstance(fn, Mapping):
        return None, "a tool call's 'function' must be an object with 'name' and 'arguments'"
    name = fn.get("name")
    if not isinstance(name, str) or not name.strip():
        return None, "the tool call has no 'name'"
    raw = fn.get("arguments", fn.get("parameters", fn.get("args")))
    arguments, error = _decode_arguments(name, raw)
    if error:
        return None, error
    return ToolCall(
        name.strip(), arguments or {}, str(call_id) if call_id is not None else None
    ), None


def _from_object(obj: Any) -> ParsedToolCall:
    obj = as_mapping(obj)
    content = ""
    if isinstance(obj, Mapping):
        content = obj.get("content") if isinstance(obj.get("content"), str) else ""
        if obj.get("tool_calls"):
            items = obj["tool_calls"]
        elif obj.get("function_call"):
            items = [obj["function_call"]]
        elif any(key in obj for key in ("name", "function", "arguments", "parameters")):
            items = [obj]
        elif "tool_calls" in obj or "role" in obj:
            # An assistant message that answered in text: look for a call written in it.
            parsed = (
                _from_text(content)
                if content
                else ParsedToolCall(error="the reply has no tool call")
            )
            return parsed
        else:
            return ParsedToolCall(error="no tool call found: expected 'name' and 'arguments'")
    elif isinstance(obj, (list, tuple)):
        items = obj
    else:
        return ParsedToolCall(error=f"expected a tool call, got {type(obj).__name__}")
    if not isinstance(items, Sequence) or isinstance(items, (str, bytes)):
        return ParsedToolCall(content=content, error="'tool_calls' must be a list")
    calls, raws = [], []
    for item in items:
        call, error = _one_call(item)
        if error:
            return ParsedToolCall(content=content, error=error)
        calls.append(call)
        raws.append(item if isinstance(item, dict) else {})
    if not calls:
        return ParsedToolCall(content=content, error="the reply has no tool call")
    return ParsedToolCall(tuple(calls), content, None, tuple(raws))


def _json_candidates(text: str) -> list[str]:
    found = [m.group(1) for m in _TOOL_CALL_TAG.finditer(text)]
    if found:
        return found
    found = [m.group(1) for m in _FENCE.finditer(text)]
    if found:
        return found
    start = text.find("{")
    if start < 0:
        start = text.find("[")
    return [text[start:]] if start >= 0 else []


def _from_text(text: str) -> ParsedToolCall:
    stripped = text.strip()
    try:
        return _from_object(json.loads(stripped))
    except (ValueError, RecursionError):
        pass
    candidates = _json_candidates(stripped)
    if not candidates:
        return ParsedToolCall(content=text, error="the reply has no tool call")
    decoder = json.JSONDecoder()
    objects = []
    for chunk in candidates:
        chunk = chunk.strip()
        try:
            obj, _ = decoder.raw_decode(chunk)
        except (ValueError, RecursionError) as exc:
            return ParsedToolCall(content=text, error=f"the tool call is not valid JSON ({exc})")
        objects.append(obj)
    if len(objects) == 1:
        parsed = _from_object(objects[0])
    else:
        parsed = _from_object(objects)
    return ParsedToolCall(parsed.calls, text, parsed.error, parsed.raw_calls)


def parse_tool_call(action: Any) -> ParsedToolCall:
    """The tool call(s) in ``action`` (see module docstring); never raises."""
    try:
        if isinstance(action, (bytes, bytearray)):
            action = action.decode("utf-8", "replace")
        if isinstance(action, str):
            return _from_text(action)
        return _from_object(action)
    except Exception as exc:  # pragma: no cover - must never raise
        return ParsedToolCall(error=f"the tool call could not be read ({type(exc).__name__})")


def _signature(tool: Mapping[str, Any]) -> str:
    fn = tool.get("function", tool)
    params = (fn.get("parameters") or {}).get("properties", {}) or {}
    args = ", ".join(f"{k}: {v.get('type', 'any')}" for k, v in params.items())
    return f"{fn.get('name')}({args})"


class FunctionCalling(gym.Wrapper[str, Any, str, str], gym.utils.RecordConstructorArgs):
    """The env's actions as OpenAI tools; each ``step()`` takes one tool call.

    ``reset()`` returns the family's instructions plus :data:`TOOLS_NOTE` and the first
    observation; ``info["tools"]`` (on every step) holds the tool schemas to pass to the model,
    ``info["instructions"]`` and ``info["env_observation"]`` the two parts of the prompt.
    ``step(call)`` takes anything :func:`parse_tool_call` reads; a call that cannot be read, names
    an unknown tool, has arguments that break the schema, or that the family rejects is answered
    ``"Invalid tool call: <what is wrong>"`` with reward 0 and ``info["error"]``, without stepping
    the env. A valid call is turned into the family's action text (``info["action"]``) and
    stepped; ``info["tool_calls"]`` carries the call(s) in OpenAI form, with an id.
    """

    def __init__(
        self, env: gym.Env, tools_note: str = TOOLS_NOTE, include_instructions: bool = True
    ) -> None:
        if not isinstance(env.unwrapped, TextEnv):
            raise TypeError(f"FunctionCalling wraps a TextEnv, got {type(env.unwrapped).__name__}")
        gym.utils.RecordConstructorArgs.__init__(
            self, tools_note=tools_note, include_instructions=include_instructions
        )
        gym.Wrapper.__init__(self, env)
        self.tools_note = tools_note
        self.include_instructions = include_instructions
        self._info: dict[str, Any] = {}
        self._turn = 0
        self._tools: list[dict[str, Any]] | None = None

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The family's tool schemas (OpenAI ``tools`` format), read at each ``reset()``."""
        if self._tools is None:
            self._tools = self.env.unwrapped.tool_schemas()
        return self._tools

    def instructions(self) -> str:
        text = self.env.unwrapped.instructions().strip()
        if not self.tools_note:
            return text
        signatures = "; ".join(_signature(t) for t in self.tools)
        return f"{text}\n\n{self.tools_note} Tools: {signatures}."

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        self._info, self._turn, self._tools = dict(info), 0, None
        instructions = self.instructions()
        info = dict(
            info,
            instructions=instructions,
            env_observation=obs,
            tools=self.tools,
            prompt_set="ours",
            reply_parser="tools",
        )
        return (f"{instructions}\n\n{obs}" if self.include_instructions else obs), info

    def _check(self, parsed: ParsedToolCall) -> tuple[str | None, str | None]:
        """``(action_text, None)`` for a good call, else ``(None, what is wrong)``."""
        if parsed.error:
            return None, parsed.error
        if len(parsed.calls) != 1:
            return None, f"call exactly one tool per turn, got {len(parsed.calls)} calls"
        call = parsed.calls[0]
        schemas = {t.get("function", t).get("name"): t.get("function", t) for t in self.tools}
        if call.name not in schemas:  # tolerate case: Guess -> guess, when unambiguous
            folded = [n for n in schemas if isinstance(n, str) and n.lower() == call.name.lower()]
            if len(folded) == 1:
                call = ToolCall(folded[0], call.arguments, call.id)
        if call.name not in schemas:
            return None, unknown_name("tool", call.name, schemas)
        _, problems = validate_arguments(
            schemas[call.name].get("parameters") or {}, call.arguments, coerce=False
        )
        if problems:
            return None, f"bad call to {call.name!r}: " + "; ".join(problems)
        try:
            return self.env.unwrapped.action_from_tool_call(call.name, dict(call.arguments)), None
        except (ValueError, KeyError, TypeError) as exc:
            return None, f"bad call to {call.name!r}: {exc}"

    def step(self, action: Any):
        self._turn += 1
        parsed = parse_tool_call(action)
        calls = [c.as_openai(f"call_{self._turn}_{i}") for i, c in enumerate(parsed.calls)]
        text, error = self._check(parsed)
        if error is not None:
            info = dict(
                self._info,
                tools=self.tools,
                tool_calls=calls,
                action=None,
                error=error,
                format_error="tool_call",
            )
            done = bool(getattr(self.env.unwrapped, "done", False))
            return f"Invalid tool call: {error}", 0.0, done, False, info
        obs, reward, terminated, truncated, info = self.env.step(text)
        self._info = dict(info)
        info = dict(info, tools=self.tools, tool_calls=calls, action=text)
        return obs, reward, terminated, truncated, info


__all__ = [
    "TOOLS_NOTE",
    "FunctionCalling",
    "ParsedToolCall",
    "ToolCall",
    "parse_tool_call",
]
