"""How AgentGym's clients read a model reply, one pure function per family style.

AgentGym's client for each family (``agentenv/agentenv/envs/<family>.py`` at commit 3ef9235)
turns the model's reply into the action it sends to the server; the family record names the
style (:attr:`agentgym_envs.spec.Family.reply_parser`):

``single_action`` (BabyAI, TextCraft)
    Every match of ``Action:\\s*(.*?)(?=\\n|$)``; more than one is answered by the client itself
    with :data:`MULTIPLE_ACTIONS_TEXT` (no server step); else the one match (``""`` without
    any), with every character outside ``[A-Za-z0-9, ]`` removed and runs of whitespace
    collapsed to one space.
``last_action`` (ALFWorld, WebShop, SciWorld: ``BaseAdapter.parse_react``)
    A reply ending in ``</s>`` loses its last five characters (the client's own slice); the
    action is the text after the last ``Action:``, stripped. Without ``Action:`` the whole
    reply is the action if it holds ``search[`` or ``click[``, else the action is ``""``.
``between_actions`` (Maze, Wordle)
    The same ``</s>`` slice; the text between the first and the second ``Action:``, stripped,
    or the whole reply, stripped, when it has none.
``sql_block`` (BIRD / SQLGym)
    ``reply.split("```sql")[-1].split("```")[0].strip()``: the last sql fence's content, else
    the reply up to its first fence.
``raw`` (tool families, WebArena)
    The whole reply; the env reads it (``Action: <tool> with Action Input: {...}``).

Every parser is total: any input (even a non-string) gives an :class:`AgentGymReply`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

#: AgentGym's observation for a reply with more than one ``Action:`` (BabyAI, TextCraft).
MULTIPLE_ACTIONS_TEXT = (
    "Error: Only one 'Action' is allowed per response. Please adjust your response."
)

_SINGLE = re.compile(r"Action:\s*(.*?)(?=\n|$)", re.DOTALL)
_NOT_ALNUM = re.compile(r"[^A-Za-z0-9, ]+")


@dataclass(frozen=True)
class AgentGymReply:
    """What an AgentGym client makes of one reply.

    Attributes:
        action: the text the client sends to the server (``""`` is sent too); ``None`` when the
            client answers the reply itself with ``feedback``.
        thought: the reasoning before the action, as far as the style has one.
        markers: how many ``Action:`` markers the reply has.
        feedback: the client's own observation instead of a server step (``None`` normally).
    """

    action: str | None
    thought: str = ""
    markers: int = 0
    feedback: str | None = None


def _thought(head: str) -> str:
    parts = head.split("Thought:")
    return (parts[1] if len(parts) > 1 else parts[0]).strip()


def _eos_slice(text: str) -> str:
    # AgentGym slices five characters for the four of "</s>": reproduced, not fixed.
    return text[:-5] if text.endswith("</s>") else text


def single_action(text: str) -> AgentGymReply:
    """BabyAI's and TextCraft's client (see the module docstring)."""
    matches = _SINGLE.findall(text)
    thought = _thought(text.split("Action:", 1)[0])
    if len(matches) > 1:
        return AgentGymReply(None, thought, len(matches), MULTIPLE_ACTIONS_TEXT)
    action = _NOT_ALNUM.sub("", matches[-1] if matches else "")
    return AgentGymReply(" ".join(action.split()).strip(), thought, len(matches))


def last_action(text: str) -> AgentGymReply:
    """``BaseAdapter.parse_react`` in ReAct format (ALFWorld, WebShop, SciWorld)."""
    text = _eos_slice(text)
    markers = text.count("Action:")
    parts = text.rsplit("Action:", 1)
    if len(parts) == 1:
        head, action = ("", text) if ("search[" in text or "click[" in text) else (text, "")
    else:
        head, action = parts
    return AgentGymReply(action.strip(), _thought(head), markers)


def between_actions(text: str) -> AgentGymReply:
    """The LMRL-Gym clients (Maze, Wordle)."""
    text = _eos_slice(text)
    parts = text.split("Action:")
    if len(parts) > 1:
        return AgentGymReply(parts[1].strip(), _thought(parts[0]), len(parts) - 1)
    return AgentGymReply(parts[0].strip(), "", 0)


def sql_block(text: str) -> AgentGymReply:
    """SQLGym's client: the last ```` ```sql ```` block, else the reply up to its first fence."""
    head = text.rsplit("```sql", 1)[0] if "```sql" in text else ""
    action = text.split("```sql")[-1].split("```")[0].strip()
    return AgentGymReply(action, _thought(head.split("Action:", 1)[0]), text.count("Action:"))


def raw(text: str) -> AgentGymReply:
    """The tool families' clients: the reply as it is."""
    return AgentGymReply(text, _thought(text.split("Action:", 1)[0]), text.count("Action:"))


#: The parsers by :data:`agentgym_envs.spec.ReplyParser` name.
PARSERS: dict[str, Callable[[str], AgentGymReply]] = {
    "single_action": single_action,
    "last_action": last_action,
    "between_actions": between_actions,
    "sql_block": sql_block,
    "raw": raw,
}


def parse_agentgym(style: str, text: object) -> AgentGymReply:
    """Read ``text`` as AgentGym's client of style ``style`` does; never raises.

    A non-string reply is read as ``""`` (AgentGym's clients only ever see text).
    """
    parser = PARSERS.get(style)
    if parser is None:
        raise ValueError(f"unknown reply parser {style!r}: use one of {', '.join(PARSERS)}")
    return parser(text if isinstance(text, str) else "")


__all__ = [
    "MULTIPLE_ACTIONS_TEXT",
    "PARSERS",
    "AgentGymReply",
    "between_actions",
    "last_action",
    "parse_agentgym",
    "raw",
    "single_action",
    "sql_block",
]
