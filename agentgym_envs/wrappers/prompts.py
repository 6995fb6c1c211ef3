"""Conversation starts: ours by default, AgentGym's read from the user's own copy on request.

Every AgentGym conversation opens with the family's ``conversation_start`` (an instruction turn
and the model's acknowledgement), then the first observation as AgentGym's client formats it.
This package does not ship AgentGym's prompt prose; :func:`agentgym_start` reads it from

* an AgentTraj file (``.json`` list or ``.jsonl``): the first two turns of the first record of
  the family, and for Maze and Wordle the client's text of the first observation turn; or
* an AgentGym checkout (its root, ``agentenv/`` or ``agentenv/agentenv/envs/``): the client
  module named by the family record (:attr:`~agentgym_envs.spec.Family.agentgym_client`) is
  parsed with :mod:`ast`, never imported: the class's ``conversation_start``, or for ALFWorld,
  WebShop and SciWorld its adapter's ``conversation_start_dict`` entry for the ReAct format;
  Maze's ``_fully_first_observation`` and Wordle's ``first_observation``.

:func:`first_turn` then builds AgentGym's first human turn from the env's first observation:
Maze's client puts its rules text and a newline before it, Wordle's sends its rules text with
the vocabulary (``/filtered_vocab``) in place of ``{{vocab}}`` instead of the server's text,
ALFWorld's adds an ``AVAILABLE ACTIONS:`` line; every other client sends the observation.
"""

from __future__ import annotations

import ast
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from agentgym_envs.errors import BadDataError
from agentgym_envs.spec import FAMILIES, Family, family_for_prefix

#: The acknowledgement our own prompt set answers its instructions with.
OUR_ACK = "Ok."
PROMPT_SETS = ("ours", "agentgym")

# The client attribute holding the text a client puts in the first observation turn.
_FIRST_OBSERVATION_ATTRS = ("_fully_first_observation", "first_observation")
_VOCAB = "{{vocab}}"


@dataclass(frozen=True)
class ConversationStart:
    """How a conversation opens: the instruction turn, the acknowledgement and, for clients
    that send their own text as the first observation turn, that text.

    Attributes:
        prompt_set: ``"ours"`` or ``"agentgym"``.
        instruction: the first (human / user) turn.
        ack: the model's reply to it (``loss: false`` in AgentTraj).
        first_observation: the client's first-turn text (Maze, Wordle), else ``None``.
        source: where the texts were read (a path), ``""`` for ours.
    """

    prompt_set: str
    instruction: str
    ack: str
    first_observation: str | None = None
    source: str = ""


def first_turn(
    family: str, observation: str, info: dict[str, Any], start: ConversationStart | None, env: Any
) -> str:
    """AgentGym's first human turn for ``family`` given the env's first ``observation``.

    With our prompt set (``start`` ``None`` or ``prompt_set == "ours"``) the observation as it is.
    """
    if start is None or start.prompt_set != "agentgym":
        return observation
    text = start.first_observation
    record = FAMILIES.get(family)
    style = record.first_turn if record is not None else "observation"
    if style == "rules_then_observation" and text:
        return f"{text}\n{observation}"
    if style == "vocab_in_rules" and text:
        vocab = getattr(env, "filtered_vocab", None)
        return text.replace(_VOCAB, "\n".join(vocab)) if vocab else text
    if style == "actions_line" and "\nAVAILABLE ACTIONS: " not in observation:
        actions = info.get("available_actions") or []
        return f"{observation}\nAVAILABLE ACTIONS: {','.join(actions)}"
    return observation


def agentgym_start(family: Family, source: str | os.PathLike[str]) -> ConversationStart:
    """AgentGym's conversation start for ``family``, read from ``source`` (see module docstring).

    A source that lacks the family is a :class:`~agentgym_envs.errors.BadDataError` saying so.
    """
    path = Path(source).expanduser()
    if not path.exists():
        raise BadDataError(
            f"prompts source {str(path)!r} not found: give an AgentTraj file or an AgentGym "
            "checkout"
        )
    key = str(path.resolve())
    stamp = path.stat().st_mtime_ns
    if path.is_dir() and _envs_dir(path) is not None:
        return _from_checkout(key, stamp, family.name)
    files = sorted(p for p in path.glob("*.json*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        found = _from_agenttraj(str(file), file.stat().st_mtime_ns).get(family.name)
        if found is not None:
            return found
    raise BadDataError(
        f"{path} has no {family.display_name} record (item ids {', '.join(family.prefixes)}): "
        "give an AgentTraj file with one, or an AgentGym checkout"
    )


# -- AgentTraj files ---------------------------------------------------------------------------
def _records(path: Path) -> list[Any]:
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = []
        for line in text.splitlines():
            if line.strip():
                try:
                    data.append(json.loads(line))
                except json.JSONDecodeError:
                    continue
    return data if isinstance(data, list) else [data]


@lru_cache(maxsize=16)
def _from_agenttraj(path: str, stamp: int) -> dict[str, ConversationStart]:
    found: dict[str, ConversationStart] = {}
    for record in _records(Path(path)):
        if not isinstance(record, dict) or not isinstance(record.get("item_id"), str):
            continue
        family = family_for_prefix(record["item_id"].rsplit("_", 1)[0])
        turns = record.get("conversations")
        if family is None or family.name in found or not _opening(turns):
            continue
        first = None
        if family.name in ("maze", "wordle") and len(turns) > 2:
            first = str(turns[2].get("value", ""))
            if family.name == "maze":  # the client's text, a newline, the server's one line
                first = first.rsplit("\n", 1)[0] if "\n" in first else None
        found[family.name] = ConversationStart(
            "agentgym", str(turns[0]["value"]), str(turns[1]["value"]), first, path
        )
    return found


def _opening(turns: Any) -> bool:
    return (
        isinstance(turns, list)
        and len(turns) >= 2
        and all(isinstance(t, dict) and isinstance(t.get("value"), str) for t in turns[:2])
        and turns[0].get("from") == "human"
        and turns[1].get("from") == "gpt"
    )


# -- AgentGym checkouts ------------------------------------------------------------------------
def _envs_dir(root: Path) -> Path | None:
    for candidate in (root / "agentenv" / "agentenv" / "envs", root / "agentenv" / "envs", root):
        if candidate.name == "envs" and candidate.is_dir() and any(candidate.glob("*.py")):
            return candidate
    return None


@lru_cache(maxsize=64)
def _from_checkout(root: str, stamp: int, family_name: str) -> ConversationStart:
    from agentgym_envs.spec import family_record

    family = family_record(family_name)
    if family.agentgym_client is None:
        raise BadDataError(f"{family.display_name} has no AgentGym client to read a prompt from")
    module, cls = family.agentgym_client
    path = (_envs_dir(Path(root)) or Path(root)) / f"{module}.py"
    if not path.is_file():
        raise BadDataError(f"{path} not found: is {root} an AgentGym checkout?")
    classes = {
        n.name: n
        for n in ast.parse(path.read_text(encoding="utf-8")).body
        if isinstance(n, ast.ClassDef)
    }
    if cls not in classes:
        raise BadDataError(f"{path} has no class {cls}: is {root} an AgentGym checkout?")
    attrs = _class_attrs(classes[cls])
    start = attrs.get("conversation_start")
    if start is None and isinstance(attrs.get("adapter_cls"), ast.Name):
        adapter = classes.get(attrs["adapter_cls"].id)
        table = _class_attrs(adapter).get("conversation_start_dict") if adapter else None
        start = _react_entry(table)
    if start is None:
        raise BadDataError(f"{path}: {cls} has no conversation_start this reader understands")
    try:
        turns = _literal(start)
        first = next((_literal(attrs[a]) for a in _FIRST_OBSERVATION_ATTRS if a in attrs), None)
        return ConversationStart(
            "agentgym", str(turns[0]["value"]), str(turns[1]["value"]), first, str(path)
        )
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise BadDataError(f"{path}: cannot read {cls}.conversation_start ({exc})") from None


def _class_attrs(node: ast.ClassDef) -> dict[str, ast.expr]:
    out: dict[str, ast.expr] = {}
    for stmt in node.body:
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    out[target.id] = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value:
            out[stmt.target.id] = stmt.value
    return out


def _react_entry(table: ast.expr | None) -> ast.expr | None:
    if not isinstance(table, ast.Dict):
        return None
    for key, value in zip(table.keys, table.values):
        if isinstance(key, ast.Attribute) and key.attr == "REACT":
            return value
        if isinstance(key, ast.Constant) and key.value == "react":
            return value
    return None


def _literal(node: ast.expr) -> Any:
    """The value of the literal forms AgentGym writes prompts in: strings (``.strip()``,
    ``+``, f-strings without fields), tuples, lists, dicts, ``ConversationMessage({...})``."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List)):
        return [_literal(e) for e in node.elts]
    if isinstance(node, ast.Dict):
        return {_literal(k): _literal(v) for k, v in zip(node.keys, node.values) if k is not None}
    if isinstance(node, ast.JoinedStr):
        return "".join(str(_literal(v)) for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _literal(node.left) + _literal(node.right)
    if isinstance(node, ast.Call) and not node.keywords:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "strip" and not node.args:
            return str(_literal(func.value)).strip()
        if isinstance(func, ast.Name) and len(node.args) == 1:  # ConversationMessage({...})
            return _literal(node.args[0])
    raise ValueError(f"line {getattr(node, 'lineno', '?')} is not a literal")


__all__ = ["OUR_ACK", "PROMPT_SETS", "ConversationStart", "agentgym_start", "first_turn"]
