"""``Tool``: a name, a description, a JSON schema of its arguments and a pure function.

A tool's function takes the family's backend (the world the episode plays in) and the
validated keyword arguments, and returns a Python value (a dict, list, string or number) that
the env shows as text the way AgentGym's tool servers do (``str(result)``). A domain failure
("start_date should be earlier than current_date") is a :class:`ToolError`; the env shows its
message as the observation.

Arguments are checked against the schema by :func:`validate_arguments` before the function
runs. Like the live services behind AgentGym, numbers given as numeric strings and ids given
as numbers are accepted (they are coerced to the schema's type); anything else that does not
fit is a problem named in the feedback. The same function checks a model's native tool calls
strictly (:class:`~agentgym_envs.wrappers.FunctionCalling`), without conversions.

Families that are not tool-use families declare their function-calling tools the same way: a
:class:`Tool` without a function only describes the call (:meth:`TextEnv.tool_schemas
<agentgym_envs.core.TextEnv.tool_schemas>`), and the family turns the call into its action text.
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
    description: str = "",
    *,
    enum: Iterable[Any] | None = None,
    items: dict[str, Any] | None = None,
    pattern: str | None = None,
    minimum: float | None = None,
    maximum: float | None = None,
    min_items: int | None = None,
    required: bool = True,
) -> dict[str, Any]:
    """One argument's JSON schema (``required`` is read by :func:`schema`, then dropped).

    An empty ``description`` is left out of the schema.
    """
    kinds = type if isinstance(type, list) else [type]
    unknown = [k for k in kinds if k not in _TYPE_NAMES]
    if unknown:
        raise ValueError(
            f"unknown JSON schema type {unknown[0]!r}: use one of {', '.join(_TYPE_NAMES)}"
        )
    spec: dict[str, Any] = {"type": type}
    if description:
        spec["description"] = description
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
    if min_items is not None:
        spec["minItems"] = min_items
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

#: JSON-schema keywords :func:`validate_arguments` checks, or ignores as annotations.
SCHEMA_KEYWORDS = frozenset(
    [
        "type",
        "enum",
        "const",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "pattern",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minItems",
        "maxItems",
        "anyOf",
        "oneOf",
        "allOf",
        "description",
        "title",
        "default",
        "examples",
        "format",
        "strict",
    ]
)

_FAIL = object()


def validate_arguments(
    schema: Mapping[str, Any], arguments: Any, *, coerce: bool
) -> tuple[dict[str, Any], list[str]]:
    """Check ``arguments`` against an object schema; return the arguments and every problem.

    ``problems`` names each way the call breaks the schema (empty when it is valid). The
    arguments come back with only the schema's properties. With ``coerce=True`` (how the tool
    families read a call, like the live services behind AgentGym) numbers written as text,
    ids given as numbers, ``"true"``/``"false"`` and enum values in another case are converted
    to the schema's type; with ``coerce=False`` (a model's native tool call) the call must
    match the schema as it is. :data:`SCHEMA_KEYWORDS` lists the keywords checked;
    ``anyOf`` / ``oneOf`` / ``allOf`` alternatives are matched without conversions.
    """
    problems: list[str] = []
    out = _check(arguments, {"type": "object", **schema}, "arguments", coerce, problems)
    return (dict(out) if isinstance(out, Mapping) else {}), problems


def _check(
    value: Any, spec: Mapping[str, Any], path: str, coerce: bool, problems: list[str]
) -> Any:
    """``value`` checked against ``spec`` (converted when ``coerce``); problems are appended."""
    kind = spec.get("type")
    if kind is not None:
        kinds = [kind] if isinstance(kind, str) else list(kind)
        conformed = _conform(value, kinds, coerce)
        if conformed is _FAIL:
            problems.append(f"{path} must be of type {' or '.join(kinds)}, got {_short(value)}")
            return value
        value = conformed
    _check_alternatives(value, spec, path, problems)
    if "const" in spec and value != spec["const"]:
        problems.append(f"{path} must be {_short(spec['const'])}, got {_short(value)}")
    if "enum" in spec and value not in spec["enum"]:
        folded = {str(e).lower(): e for e in spec["enum"]}
        if coerce and isinstance(value, str) and value.strip().lower() in folded:
            value = folded[value.strip().lower()]
        else:
            problems.append(f"{path} must be one of {list(spec['enum'])}, got {_short(value)}")
    if isinstance(value, str):
        _check_string(value, spec, path, problems)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        _check_number(value, spec, path, problems)
    elif isinstance(value, (list, tuple)):
        value = _check_array(value, spec, path, coerce, problems)
    elif isinstance(value, Mapping):
        value = _check_object(value, spec, path, coerce, problems)
    return value


def _conform(value: Any, kinds: list[str], coerce: bool) -> Any:
    """``value`` as one of the JSON types ``kinds`` (converted when ``coerce``), or ``_FAIL``."""
    for kind in kinds:
        if _type_ok(value, kind):
            if coerce and kind == "integer" and isinstance(value, float):
                return int(value)
            if coerce and kind == "array" and isinstance(value, tuple):
                return list(value)
            return value
    if coerce:
        for kind in kinds:
            converted = _convert(value, kind)
            if converted is not _FAIL:
                return converted
    return _FAIL


def _type_ok(value: Any, kind: str) -> bool:
    if kind in ("integer", "number"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if isinstance(value, float) and not math.isfinite(value):
            return False
        return kind == "number" or isinstance(value, int) or value.is_integer()
    types = _TYPES.get(kind)
    return True if types is None else isinstance(value, types)


_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (dict,),
    "null": (type(None),),
}


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
        if kind == "number":
            return number
        return int(number) if number.is_integer() else _FAIL
    if kind == "boolean" and isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return _FAIL


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_alternatives(
    value: Any, spec: Mapping[str, Any], path: str, problems: list[str]
) -> None:
    for key in ("anyOf", "oneOf"):
        options = spec.get(key)
        if isinstance(options, list) and options:
            matches = sum(not _problems(sub, value, path) for sub in options)
            if matches == 0 or (key == "oneOf" and matches > 1):
                problems.append(
                    f"{path} must match {'exactly' if key == 'oneOf' else 'at least'} one of "
                    f"{len(options)} alternatives, got {_short(value)}"
                )
    for sub in spec.get("allOf") or []:
        problems += _problems(sub, value, path)


def _problems(spec: Mapping[str, Any], value: Any, path: str) -> list[str]:
    problems: list[str] = []
    _check(value, spec, path, False, problems)
    return problems


def _check_string(value: str, spec: Mapping[str, Any], path: str, problems: list[str]) -> None:
    if "minLength" in spec and len(value) < spec["minLength"]:
        problems.append(
            f"{path} must have at least {spec['minLength']} characters, got {_short(value)}"
        )
    if "maxLength" in spec and len(value) > spec["maxLength"]:
        problems.append(
            f"{path} must have at most {spec['maxLength']} characters, got {_short(value)}"
        )
    if "pattern" in spec and re.search(spec["pattern"], value) is None:
        hint = f" (expected format: {spec['description']})" if spec.get("description") else ""
        problems.append(f"{path} must match {spec['pattern']}{hint}, got {_short(value)}")


def _check_number(value: float, spec: Mapping[str, Any], path: str, problems: list[str]) -> None:
    for key, relation, holds in _BOUNDS:
        if key in spec and not holds(value, spec[key]):
            problems.append(f"{path} must be {relation} {spec[key]}, got {_short(value)}")


_BOUNDS: tuple[tuple[str, str, Callable[[float, float], bool]], ...] = (
    ("minimum", ">=", lambda v, b: v >= b),
    ("maximum", "<=", lambda v, b: v <= b),
    ("exclusiveMinimum", ">", lambda v, b: v > b),
    ("exclusiveMaximum", "<", lambda v, b: v < b),
)


def _check_array(
    value: list[Any] | tuple[Any, ...],
    spec: Mapping[str, Any],
    path: str,
    coerce: bool,
    problems: list[str],
) -> Any:
    if "minItems" in spec and len(value) < spec["minItems"]:
        problems.append(f"{path} must have at least {spec['minItems']} items")
    if "maxItems" in spec and len(value) > spec["maxItems"]:
        problems.append(f"{path} must have at most {spec['maxItems']} items")
    items = spec.get("items")
    if not isinstance(items, Mapping):
        return value
    checked = [_check(v, items, f"{path}[{i}]", coerce, problems) for i, v in enumerate(value)]
    return checked if coerce else value


def _check_object(
    value: Mapping[str, Any],
    spec: Mapping[str, Any],
    path: str,
    coerce: bool,
    problems: list[str],
) -> dict[str, Any]:
    """The declared properties of ``value``, checked (all of a free-form object's); missing and
    unexpected ones are problems."""
    top = path == "arguments"
    props = spec.get("properties") or {}
    for name in spec.get("required") or []:
        if name not in value:
            problems.append(f"missing argument {name!r}" if top else f"{path} is missing {name!r}")
    extra = spec.get("additionalProperties", True)
    out: dict[str, Any] = {}
    for name, item in value.items():
        where = f"argument {name!r}" if top else f"{path}.{name}"
        if name in props:
            out[name] = _check(item, props[name], where, coerce, problems)
        elif extra is False:
            label = name if top else where
            allowed = ", ".join(repr(p) for p in props) or "none"
            problems.append(f"unexpected argument {label!r} (allowed: {allowed})")
        elif isinstance(extra, Mapping):
            out[name] = _check(item, extra, where, coerce, problems)
        elif not props:  # a free-form object keeps what it holds
            out[name] = item
    return out


@dataclass(frozen=True)
class Tool:
    """One tool: what an agent sees (name, description, argument schema, returns) and the code.

    ``function(backend, **arguments)`` is pure over the backend: the same backend state and
    arguments give the same result. A tool without a function only declares a call (the
    function-calling tools of the families that are not tool-use families).
    """

    name: str
    description: str
    function: Callable[..., Any] | None = field(default=None, repr=False, compare=False)
    parameters: dict[str, Any] = field(default_factory=lambda: schema())
    returns: str = ""
    #: Other names a call may use for this tool (AgentBoard's spelling variants).
    aliases: tuple[str, ...] = ()

    @property
    def argument_names(self) -> list[str]:
        return list(self.parameters.get("properties", {}))

    def validate(self, arguments: Any) -> tuple[dict[str, Any], list[str]]:
        """The call's arguments read as the tool families read them (with conversions)."""
        return validate_arguments(self.parameters, arguments, coerce=True)

    def __call__(self, backend: Any, arguments: Mapping[str, Any]) -> Any:
        if self.function is None:
            raise TypeError(f"tool {self.name!r} declares a call and has no function to run")
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
    "SCHEMA_KEYWORDS",
    "Tool",
    "ToolError",
    "Toolkit",
    "action_text",
    "param",
    "schema",
    "tool_text",
    "validate_arguments",
]
