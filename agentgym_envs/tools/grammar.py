"""AgentGym's tool-action grammar, and JSON tool calls, parsed into ``(tool, arguments)``.

AgentGym's tool envs read ``Action: <tool> with Action Input: <dict>`` from the model's reply
(``reference/tool-envs.md`` section 1). :func:`parse_tool_action` accepts that grammar as
models really write it, and the JSON tool calls the function-calling wrapper produces:

* a whole ReAct reply (``Thought: ...`` then the action line) or just the action, with or
  without the ``Action:`` prefix (the ReAct wrapper strips it), the tool name optionally in
  brackets or backticks (``[get_tasks]``);
* the input as a JSON object or a Python dict literal (AgentGym ``eval``s it; we never
  evaluate code, but ``'single quotes'``, ``True``/``None`` and JSON's ``true``/``null`` are
  all read), spanning several lines if it must; ``{}`` or nothing for tools without arguments;
* text after a complete input (a hallucinated ``Observation:``) is ignored;
* a JSON tool call ``{"name": ..., "arguments": {...}}`` (also ``{"tool": ..., "args": ...}``,
  OpenAI's ``{"type": "function", "function": {...}}``, or inside ``<tool_call>`` tags).

The function is pure and never raises; a reply it cannot read gives ``error`` set and, for a
reply with no action at all, AgentGym's exact format-error text (:data:`FORMAT_ERROR`).
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from typing import Any

#: AgentGym's observation for a reply it cannot parse (two spaces and the unbalanced quote are theirs).
FORMAT_ERROR = 'Format error, please response in the format of  "Action: [your action] with Action Input: [your action input]'

_MARKER = re.compile(r"with\s+Action\s*Input\s*:", re.IGNORECASE)
_NAME_BEFORE = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*)[\]`'\"*)\s]*$")
_TOOL_CALL_TAG = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_FENCE = re.compile(r"^```[a-zA-Z]*\s*\n?(.*?)\n?```\s*$", re.DOTALL)
_JSON_WORDS = re.compile(r"\b(true|false|null)\b")


@dataclass(frozen=True)
class ParsedAction:
    """A parsed action: ``tool`` and ``arguments``, or ``error`` saying what is wrong."""

    tool: str | None
    arguments: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    #: True when the reply had no recognisable action at all (AgentGym's format error).
    format_error: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None


def _balanced_end(text: str, start: int) -> int | None:
    """Index just past the bracket group opening at ``text[start]`` (quotes respected)."""
    pairs = {"{": "}", "[": "]", "(": ")"}
    stack = [pairs[text[start]]]
    quote: str | None = None
    i = start + 1
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in pairs:
            stack.append(pairs[ch])
        elif ch in ")]}":
            if not stack or ch != stack[-1]:
                return None
            stack.pop()
            if not stack:
                return i + 1
        i += 1
    return None


def _literal(text: str) -> Any:
    """A JSON value or Python literal; raises ``ValueError`` when ``text`` is neither."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    for candidate in (
        text,
        _JSON_WORDS.sub(
            lambda m: {"true": "True", "false": "False", "null": "None"}[m.group(1)], text
        ),
    ):
        try:
            return ast.literal_eval(candidate)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    raise ValueError("not a JSON object or Python literal")


def parse_input(rest: str) -> tuple[Any, str | None]:
    """The action input at the start of ``rest``: ``(value, None)`` or ``(None, problem)``."""
    rest = rest.strip()
    fence = _FENCE.match(rest)
    if fence:
        rest = fence.group(1).strip()
    if rest.startswith("`") and rest.count("`") >= 2:
        rest = rest.strip("`").strip()
    if not rest or rest.lower() in ("none", "null", "{}", "n/a", "no input", "empty"):
        return {}, None
    if rest[0] in "{[(":
        end = _balanced_end(rest, 0)
        if end is None:
            return None, "the action input has unbalanced brackets"
        chunk = rest[:end]
    else:
        chunk = rest.splitlines()[0].strip()
    try:
        value = _literal(chunk)
    except ValueError:
        return None, "Parameters in action input are not valid, please change your action input."
    return value, None


def _from_json_call(text: str) -> ParsedAction | None:
    """A JSON tool call in ``text``, or ``None`` when ``text`` is not one."""
    stripped = text.strip()
    tag = _TOOL_CALL_TAG.search(stripped)
    if tag:
        stripped = tag.group(1).strip()
    fence = _FENCE.match(stripped)
    if fence:
        stripped = fence.group(1).strip()
    if not stripped.startswith("{"):
        return None
    end = _balanced_end(stripped, 0)
    if end is None:
        return None
    try:
        obj = _literal(stripped[:end])
    except ValueError:
        return None
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("function"), dict):
        obj = obj["function"]
    name = obj.get("name", obj.get("tool", obj.get("action")))
    if not isinstance(name, str) or not name.strip():
        return None
    raw = obj.get("arguments", obj.get("parameters", obj.get("args", obj.get("action_input", {}))))
    if isinstance(raw, str):
        raw, problem = parse_input(raw)
        if problem:
            return ParsedAction(name.strip(), {}, problem)
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        return ParsedAction(
            name.strip(),
            {},
            f"the arguments of {name.strip()!r} must be a dict, got {type(raw).__name__}",
        )
    return ParsedAction(name.strip(), {str(k): v for k, v in raw.items()})


def parse_tool_action(text: str) -> ParsedAction:
    """Read one tool call from ``text`` (see the module docstring); never raises."""
    try:
        return _parse(text if isinstance(text, str) else str(text))
    except Exception as exc:  # pragma: no cover - a last line of defence: the env must not crash
        return ParsedAction(None, {}, f"could not read the action ({type(exc).__name__})", True)


def _parse(text: str) -> ParsedAction:
    markers = list(_MARKER.finditer(text))
    if not markers:
        call = _from_json_call(text)
        if call is not None:
            return call
        return ParsedAction(None, {}, "no 'Action: <tool> with Action Input: <input>' found", True)
    first = markers[0]
    before = text[: first.start()]
    line = before.splitlines()[-1] if before.strip() else ""
    name_match = _NAME_BEFORE.search(line.rstrip())
    if not name_match:
        return ParsedAction(None, {}, "no tool name before 'with Action Input:'", True)
    name = name_match.group(1)
    value, problem = parse_input(text[first.end() :])
    if problem:
        return ParsedAction(name, {}, problem)
    if not isinstance(value, dict):
        return ParsedAction(
            name,
            {},
            f'the action input must be a dict such as {{"name": "value"}}, got {type(value).__name__}',
        )
    if len(markers) > 1:
        later = [m for m in markers[1:] if m.start() > first.end()]
        if later:
            tail = text[first.end() :]
            end = _balanced_end(tail.strip(), 0) if tail.strip()[:1] in "{[(" else None
            consumed = len(tail) - len(tail.lstrip()) + (end or 0)
            if any(m.start() >= first.end() + consumed for m in later):
                return ParsedAction(
                    name, {}, "more than one action in the reply: send one action per turn"
                )
    return ParsedAction(name, {str(k): v for k, v in value.items()})


__all__ = ["FORMAT_ERROR", "ParsedAction", "parse_input", "parse_tool_action"]
