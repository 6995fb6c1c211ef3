"""``Tool``: a name, a description, a JSON schema of its arguments and a pure function.

A tool's function takes the family's backend (the world the episode plays in) and the
validated keyword arguments, and returns a Python value (a dict, list, string or number) that
the env shows as text the way AgentGym's tool servers do (``str(result)``). A domain failure
("start_date should be earlier than current_date") is a :class:`ToolError`; the env shows its
message as the observation.

Arguments are checked against the schema by :func:`validate_arguments` before the function
runs. Like the live services behind AgentGym, numbers given as numeric strings and ids given
as numbers are accepted (they are coerced to the schema's type); anything else that does not
fit is a problem named in the feedback.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from agentgym_envs.errors import unknown_name

_TYPE_NAMES = {
    "string": "string",
    "number": "number",
    "integer": "integer",
    "boolean": "boolean",
    "array": "array",
    "object": "object",
}


class ToolError(Exception):
    """A tool call that is well formed but cannot be served; the message is the observation."""


def param(
    type: str | list[str],
    description: str,
    *,
    enum: Iterable[Any] | None = None,
    items: dict[str, Any] | None = None,
    pattern: str | None = None,
    minimum: float | None = None,
    maximum: float | None = None,
    required: bool = True,
) -> dict[str, Any]:
    """One argument's JSON schema (``required`` is read by :func:`schema`, then dropped)."""
    kinds = type if isinstance(type, list) else [type]
    unknown = [k for k in kinds if k not in _TYPE_NAMES]
    if unknown:
        raise ValueError(
            f"unknown JSON schema type {unknown[0]!r}: use one of {', '.join(_TYPE_NAMES)}"
        )
    spec: dict[str, Any] = {"type": type, "description": description}
    if enum is not None:
        spec["enum"] = list(enum)
    if items is not None:
        spec["items"] = items
    if pattern is not None:
        spec["pattern"] = pattern
    if minimum is not None:
        spec["minimum"] = minimum
    if maximum is not None:
        spec["maximum"] = maximum
    if not required:
        spec["x-optional"] = True
    return spec


def schema(**properties: dict[str, Any]) -> dict[str, Any]:
    """An object schema from :func:`param` specs, in argument order."""
    props, required = {}, []
    for name, spec in properties.items():
        spec = dict(spec)
        if not spec.pop("x-optional", False):
            required.append(name)
        props[name] = spec
    return {
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


DATE = r"^\d{4}-\d{2}-\d{2}$"


def _coerce(value: Any, spec: Mapping[str, Any], where: str, problems: list[str]) -> Any:
    kind = spec.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind else []
    out = value
    if kinds and not any(_is_type(value, k) for k in kinds):
        for k in kinds:
            converted = _convert(value, k)
            if converted is not _FAIL:
                out = converted
                break
        else:
            problems.append(
                f"{where} must be {' or '.join(_TYPE_NAMES.get(k, k) for k in kinds)}, got {_describe(value)}"
            )
            return value
    if "enum" in spec and out not in spec["enum"]:
        folded = {str(e).lower(): e for e in spec["enum"]}
        if isinstance(out, str) and out.strip().lower() in folded:
            out = folded[out.strip().lower()]
        else:
            problems.append(f"{where} must be one of {spec['enum']}, got {out!r}")
            return out
    if "pattern" in spec and isinstance(out, str) and not re.search(spec["pattern"], out):
        hint = spec.get("description", "")
        problems.append(
            f"{where} {out!r} is not in the expected format ({hint or spec['pattern']})"
        )
    if isinstance(out, (int, float)) and not isinstance(out, bool):
        if "minimum" in spec and out < spec["minimum"]:
            problems.append(f"{where} must be >= {spec['minimum']}, got {out}")
        if "maximum" in spec and out > spec["maximum"]:
            problems.append(f"{where} must be <= {spec['maximum']}, got {out}")
    if isinstance(out, list) and "items" in spec:
        out = [_coerce(v, spec["items"], f"{where}[{i}]", problems) for i, v in enumerate(out)]
    if isinstance(out, dict) and "properties" in spec:
        out = _check_object(out, spec, where, problems)
    return out


_FAIL = object()


def _is_type(value: Any, kind: str) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return (
            isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        )
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    return True


def _convert(value: Any, kind: str) -> Any:
    """The lenient conversions AgentGym's services accepted (numbers as text and back)."""
    if kind == "string" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if kind in ("number", "integer") and isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return _FAIL
        if not math.isfinite(number):
            return _FAIL
        value = number
    if kind == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    if kind == "number" and isinstance(value, float) and math.isfinite(value):
        return value
    if kind == "array" and isinstance(value, tuple):
        return list(value)
    if kind == "boolean" and isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return _FAIL


def _describe(value: Any) -> str:
    text = repr(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{type(value).__name__} {text}"


def _check_object(
    args: Mapping[str, Any], spec: Mapping[str, Any], where: str, problems: list[str]
) -> dict[str, Any]:
    props = spec.get("properties", {})
    out: dict[str, Any] = {}
    for name in spec.get("required", []):
        if name not in args:
            problems.append(
                f"missing argument {name!r}" if not where else f"{where} is missing {name!r}"
            )
    for name, value in args.items():
        if name not in props:
            if spec.get("additionalProperties", True) is False:
                known = ", ".join(props) or "none"
                problems.append(f"unexpected argument {name!r} (arguments: {known})")
            continue
        label = f"{where}.{name}" if where else f"argument {name!r}"
        out[name] = _coerce(value, props[name], label, problems)
    return out


def validate_arguments(
    arguments: Any, parameters: Mapping[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """Check ``arguments`` against an object schema; return the coerced arguments and problems.

    ``problems`` is empty when the call is valid. Supported keywords: ``type`` (one or a list),
    ``enum``, ``pattern``, ``minimum``, ``maximum``, ``items``, ``properties``, ``required``,
    ``additionalProperties``.
    """
    if not isinstance(arguments, Mapping):
        return {}, [f"the action input must be a dict of arguments, got {_describe(arguments)}"]
    problems: list[str] = []
    out = _check_object(arguments, parameters, "", problems)
    return out, problems


@dataclass(frozen=True)
class Tool:
    """One tool: what an agent sees (name, description, argument schema, returns) and the code.

    ``function(backend, **arguments)`` is pure over the backend: the same backend state and
    arguments give the same result.
    """

    name: str
    description: str
    function: Callable[..., Any] = field(repr=False, compare=False)
    parameters: dict[str, Any] = field(default_factory=lambda: schema())
    returns: str = ""
    #: Other names a call may use for this tool (AgentBoard's spelling variants).
    aliases: tuple[str, ...] = ()

    @property
    def argument_names(self) -> list[str]:
        return list(self.parameters.get("properties", {}))

    def validate(self, arguments: Any) -> tuple[dict[str, Any], list[str]]:
        return validate_arguments(arguments, self.parameters)

    def __call__(self, backend: Any, arguments: Mapping[str, Any]) -> Any:
        return self.function(backend, **arguments)

    def openai_schema(self) -> dict[str, Any]:
        """The tool as an OpenAI function tool."""
        description = self.description + (f" Returns: {self.returns}" if self.returns else "")
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": description,
                "parameters": self.parameters,
            },
        }

    def signature(self) -> str:
        return f"{self.name}({', '.join(self.argument_names)})"

    def describe(self) -> str:
        """The tool as AgentGym's prompt lists it (Name / Description / Parameters / Returns)."""
        lines = [f"Name: {self.signature()}", f"Description: {self.description}"]
        props = self.parameters.get("properties", {})
        required = set(self.parameters.get("required", []))
        lines.append("Parameters:" if props else "Parameters: None")
        for name, spec in props.items():
            kind = spec.get("type")
            kind = "/".join(kind) if isinstance(kind, list) else kind
            optional = "" if name in required else ", optional"
            lines.append(f"- {name} (Type: {kind}{optional}): {spec.get('description', '')}")
        lines.append("Returns:")
        lines.append(f"- {self.returns}" if self.returns else "- None")
        return "\n".join(lines)


class Toolkit(Mapping[str, Tool]):
    """An ordered set of tools, looked up by name."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self._tools: dict[str, Tool] = {}
        self._names: dict[str, str] = {}
        for t in tools:
            for name in (t.name, *t.aliases):
                if name in self._names:
                    raise ValueError(f"duplicate tool name {name!r}")
                self._names[name] = t.name
            self._tools[t.name] = t

    def resolve(self, name: str) -> str | None:
        """The tool a call names: exact name or alias first, then ignoring case."""
        if name in self._names:
            return self._names[name]
        folded = {n.lower(): tool for n, tool in self._names.items()}
        return folded.get(name.lower())

    def __getitem__(self, name: str) -> Tool:
        return self._tools[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._tools)

    def __len__(self) -> int:
        return len(self._tools)

    def unknown(self, name: str) -> str:
        return unknown_name("tool", name, self._tools)

    def describe(self) -> str:
        return "\n\n".join(t.describe() for t in self._tools.values())

    def openai_schemas(self) -> list[dict[str, Any]]:
        return [t.openai_schema() for t in self._tools.values()]


def tool_text(value: Any) -> str:
    """A tool result as AgentGym's servers show it: ``str(result)`` (Python repr for dicts)."""
    return value if isinstance(value, str) else str(value)


def action_text(name: str, arguments: Mapping[str, Any]) -> str:
    """The action in AgentGym's grammar: ``Action: name with Action Input: {...}``.

    Arguments are written as JSON, which is also a Python literal as long as it holds no
    ``true``/``false``/``null`` (AgentGym's servers ``eval`` the input).
    """
    return f"Action: {name} with Action Input: {json.dumps(dict(arguments), ensure_ascii=True)}"


__all__ = [
    "DATE",
    "Tool",
    "ToolError",
    "Toolkit",
    "action_text",
    "param",
    "schema",
    "tool_text",
    "validate_arguments",
]
