"""ReAct text: the model writes ``Thought: ...`` / ``Action: ...``, the env gets the action.

Public, stable API (the AgentTraj replay helper in :mod:`agentgym_envs.datasets` builds on it):

``parse_react(text: str) -> ParsedReply``
    Pure function; never raises, whatever ``text`` is. ``ParsedReply`` is a frozen dataclass:

    * ``action: str | None`` -- the action text (``None`` when the reply has no usable action;
      when it has several, the first one, so a caller may still choose to send it);
    * ``thought: str`` -- the reasoning before the action (``""`` when there is none);
    * ``error: str | None`` -- ``None`` (well formed), :data:`NO_ACTION` or
      :data:`MULTIPLE_ACTIONS`;
    * ``n_actions: int`` -- how many ``Action:`` markers the reply has;
    * ``ok`` (property) -- ``error is None``.

``format_react(thought: str, action: str) -> str``
    The reply :func:`parse_react` reads back as ``(thought, action)``.

Parsing follows AgentGym's clients (``reference/agentgym.md`` section 1) and tolerates what
real models emit:

* an action marker is ``Action:`` anywhere in the text (AgentGym's regex), or ``action:`` in any
  case at the start of a line, optionally decorated with markdown (``**Action:**``,
  ``### Action:``); ``Action Input:`` (the tool families' grammar) is not a marker;
* more than one marker is :data:`MULTIPLE_ACTIONS` (AgentGym answers
  :data:`MULTIPLE_ACTIONS_TEXT`); none, or an empty action, is :data:`NO_ACTION` (AgentGym
  answers ``"Invalid Action.\\n\\n"`` plus the current observation);
* the action is the rest of the marker's line, or the next non-blank line (``Action:\\n<action>``
  as ALFWorld's and BabyAI's prompts write it); a line with an unclosed ``{``, ``[`` or ``(``, or
  an unclosed code fence, continues until it closes (JSON action inputs,
  ```` submit ```sql ...``` ```` over several lines; write other multi-line actions in a fence);
  an action that *is* a code fence is the fence's content without its language tag
  (```` Action: ```sql ...``` ```` gives the SQL); one pair of surrounding backticks or markdown
  emphasis is dropped;
* text after an end-of-sequence token (``</s>``, ``<|im_end|>``, ``<|eot_id|>``,
  ``<|endoftext|>`` ...) is ignored, and ``<think>...</think>`` blocks are reasoning: their
  markers do not count and their text is the thought when no ``Thought:`` is given.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from agentgym_envs.core import TextEnv
from agentgym_envs.spec import FAMILIES, Family, info_for
from agentgym_envs.wrappers.parsers import MULTIPLE_ACTIONS_TEXT, parse_agentgym
from agentgym_envs.wrappers.prompts import (
    OUR_ACK,
    PROMPT_SETS,
    ConversationStart,
    agentgym_start,
    first_turn,
)

NO_ACTION = "no_action"
MULTIPLE_ACTIONS = "multiple_actions"

#: The reply parsers :class:`ReAct` offers: AgentGym's client for the family, or ours.
PARSER_NAMES = ("agentgym", "strict")
#: Environment variable naming the default ``prompts_source`` for ``prompts="agentgym"``.
PROMPTS_SOURCE_ENV = "AGENTGYM_PROMPTS"
#: AgentGym's prefix for a reply without an action; the current observation follows it.
INVALID_ACTION_TEXT = "Invalid Action."

#: The reply format the ReAct wrapper appends to a family's instructions.
REPLY_FORMAT = (
    "Reply in exactly this format, with one action per reply:\n"
    "Thought: <your reasoning about the current situation and what to do next>\n"
    "Action: <exactly one action, written in the grammar above>"
)

_EOS_CUT = re.compile(
    r"<\|(?:im_end|eot_id|endoftext|end_of_text|end|END_OF_TURN_TOKEN)\|>|<end_of_turn>"
)
_EOS_TRAILING = ("</s>", "<eos>", "<|eos|>")
_THINK = re.compile(r"<think>(.*?)</think>", re.DOTALL | re.IGNORECASE)
_EMPH = r"(?:\*\*|__|\*|_)?"
_DECOR = frozenset(" \t>#*_-")
_AFTER_LINE_START = re.compile(rf"{_EMPH}[ \t]*:{_EMPH}")
_AFTER_MID_LINE = re.compile(rf"{_EMPH}:{_EMPH}")
_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_WORDS = {
    "action": re.compile("action", re.IGNORECASE),
    "thought": re.compile("thought", re.IGNORECASE),
}


def _occurrences(text: str, word: str):
    if text.isascii():
        lower = text.lower()
        p = lower.find(word)
        while p >= 0:
            yield p
            p = lower.find(word, p + 1)
    else:
        for m in _WORDS[word].finditer(text):
            yield m.start()


def _markers(text: str, word: str) -> list[tuple[int, int]]:
    """Spans of ``word:`` markers: at a line start, any case, after markdown decoration
    (``**Action:**``, ``### Action:``); or AgentGym's exact-case ``Action:`` anywhere, not
    inside a longer word."""
    capital, n = word.capitalize(), len(word)
    spans: list[tuple[int, int]] = []
    for p in _occurrences(text, word):
        if spans and p < spans[-1][1]:
            continue
        line_start = text.rfind("\n", 0, p) + 1
        match, start = None, p
        if all(c in _DECOR for c in text[line_start:p]):
            match, start = _AFTER_LINE_START.match(text, p + n), line_start
        if (
            match is None
            and text.startswith(capital, p)
            and (p == 0 or text[p - 1] not in _ASCII_LETTERS)
        ):
            match, start = _AFTER_MID_LINE.match(text, p + n), p
        if match is not None:
            spans.append((start, match.end()))
    return spans


_LANG_TAG = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]*")
_PAIRS = {"{": "}", "[": "]", "(": ")"}


@dataclass(frozen=True)
class ParsedReply:
    """What :func:`parse_react` found in one model reply."""

    action: str | None
    thought: str
    error: str | None
    n_actions: int

    @property
    def ok(self) -> bool:
        return self.error is None


def _clean(text: str) -> str:
    match = _EOS_CUT.search(text)
    if match:
        text = text[: match.start()]
    while True:
        text = text.rstrip()
        for token in _EOS_TRAILING:
            if text.endswith(token):
                text = text[: -len(token)]
                break
        else:
            return text


def _unbalanced(text: str) -> bool:
    depth = 0
    quote = ""
    escaped = False
    for ch in text:
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
            continue
        if ch == '"':
            quote = ch
        elif ch in _PAIRS:
            depth += 1
        elif ch in _PAIRS.values():
            depth -= 1
    return depth > 0


def _strip_wrapping(action: str) -> str:
    action = action.strip()
    for left, right in (("**", "**"), ("__", "__"), ("`", "`")):
        if (
            len(action) > len(left) + len(right)
            and action.startswith(left)
            and action.endswith(right)
        ):
            inner = action[len(left) : -len(right)]
            if left not in inner:
                action = inner.strip()
    return action


def _action_body(rest: str) -> str:
    """The action that starts at ``rest`` (the text right after an ``Action:`` marker)."""
    rest = rest.lstrip(" \t")
    stripped = rest.lstrip()
    if stripped.startswith("```"):
        inner = stripped[3:]
        close = inner.find("```")
        inner = inner if close < 0 else inner[:close]
        first, newline, after = inner.partition("\n")
        # ```sql\nSELECT ...```: a lone word on the opening line is a language tag, not code.
        if newline and _LANG_TAG.fullmatch(first.strip()) and after.strip():
            inner = after
        return inner.strip()
    lines = rest.split("\n")
    # ``Action:`` alone on its line: the action is on the next non-blank line.
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        return ""
    taken = [lines[0]]
    i = 1
    while i < len(lines) and (_unbalanced("\n".join(taken)) or "\n".join(taken).count("```") % 2):
        taken.append(lines[i])
        i += 1
    return _strip_wrapping("\n".join(taken))


def parse_react(text: str) -> ParsedReply:
    """Find the thought and the single action in a model's ReAct reply (see module docstring)."""
    if not isinstance(text, str):
        return ParsedReply(None, "", NO_ACTION, 0)
    try:
        return _parse(text)
    except Exception:  # pragma: no cover - the parser must never raise
        return ParsedReply(None, "", NO_ACTION, 0)


def _parse(text: str) -> ParsedReply:
    text = _clean(text.replace("\r\n", "\n").replace("\r", "\n"))
    thinking = [t.strip() for t in _THINK.findall(text)]
    text = _THINK.sub("", text)
    actions = _markers(text, "action")
    if not actions:
        thought = _thought(text, len(text)) or "\n".join(t for t in thinking if t)
        return ParsedReply(None, thought, NO_ACTION, 0)
    start, end = actions[0]
    stop = actions[1][0] if len(actions) > 1 else len(text)
    action = _action_body(text[end:stop])
    thought = _thought(text, start) or "\n".join(t for t in thinking if t)
    if len(actions) > 1:
        return ParsedReply(action or None, thought, MULTIPLE_ACTIONS, len(actions))
    if not action:
        return ParsedReply(None, thought, NO_ACTION, 1)
    return ParsedReply(action, thought, None, 1)


def _thought(text: str, limit: int) -> str:
    head = text[:limit]
    marks = _markers(head, "thought")
    if marks:
        return _strip_wrapping(head[marks[-1][1] :]).strip()
    return head.strip()


def format_react(thought: str, action: str) -> str:
    """A well-formed reply: ``Thought: <thought>`` then ``Action: <action>``."""
    thought = thought.strip()
    return (f"Thought: {thought}\n" if thought else "") + f"Action: {action.strip()}"


def family_of(env: gym.Env) -> Family | None:
    """The family record of a (wrapped) env: its registry id's, else its ``family`` name's."""
    record = info_for(env)
    if record is not None:
        return record.record
    return FAMILIES.get(getattr(env.unwrapped, "family", "") or "")


def reply_style(env: gym.Env) -> str:
    """The AgentGym reply parser for ``env`` (:attr:`~agentgym_envs.spec.Family.reply_parser`).

    An env without a family record gets ``last_action`` (AgentGym's generic ReAct parser); our
    multi-turn BIRD variant (``interactive``) reads the whole reply itself (``raw``).
    """
    family = family_of(env)
    style = family.reply_parser if family is not None else "last_action"
    if style == "sql_block" and getattr(env.unwrapped, "interactive", False):
        return "raw"
    return style


def conversation_start(
    env: gym.Env, prompts: str, source: str | os.PathLike[str] | None
) -> ConversationStart | None:
    """AgentGym's conversation start for ``env`` when ``prompts == "agentgym"``, else ``None``."""
    if prompts not in PROMPT_SETS:
        raise ValueError(f"prompts={prompts!r} is not supported: use 'ours' or 'agentgym'")
    if prompts == "ours":
        return None
    source = source or os.environ.get(PROMPTS_SOURCE_ENV)
    if not source:
        raise ValueError(
            "prompts='agentgym' reads AgentGym's prompts from your own copy: pass "
            f"prompts_source=<AgentTraj file or AgentGym checkout> (or set ${PROMPTS_SOURCE_ENV})"
        )
    family = family_of(env)
    if family is None:
        raise ValueError(
            f"{type(env.unwrapped).__name__} has no AgentGym family: use prompts='ours'"
        )
    return agentgym_start(family, source)


class ReAct(gym.Wrapper[str, str, str, str], gym.utils.RecordConstructorArgs):
    """The model's raw reply in, the family's prompt and observations out.

    On ``reset()`` the observation is the instructions, a blank line and the first turn.
    ``info["instructions"]``, ``info["ack"]``, ``info["first_turn"]`` (the first human turn) and
    ``info["env_observation"]`` (the env's own first observation) carry the parts that chat
    history and trajectory recording use; ``info["prompt_set"]`` says whose prompt it is
    (``"ours"`` or ``"agentgym"``) and ``info["reply_parser"]`` how replies are read.

    With ``parser="agentgym"`` (default) each ``step(reply)`` reads the reply as AgentGym's
    client for the family does (:mod:`agentgym_envs.wrappers.parsers`) and sends the env what
    that client would send, an empty action included; only BabyAI's and TextCraft's clients
    answer a reply themselves (several ``Action:`` lines: :data:`MULTIPLE_ACTIONS_TEXT`).
    With ``parser="strict"`` the reply is read by :func:`parse_react` (families whose env reads
    the whole reply, the tool families, get it whole once it is well formed): a reply with several
    actions gets AgentGym's error text, one without an action ``"Invalid Action.\\n\\n"`` plus
    the current observation, both with reward 0, ``info["error"]`` and
    ``info["format_error"]``, without stepping the env. ``info["thought"]`` and
    ``info["action"]`` carry what was found.

    Args:
        env: a :class:`~agentgym_envs.core.TextEnv`, possibly wrapped.
        on_invalid: strict parser only: ``"feedback"`` (default) or ``"step"``: send the env
            the first action of a multi-action reply, or the whole reply when there is no
            ``Action:``, so the env's own rules judge it.
        reply_format: text appended to our instructions (default :data:`REPLY_FORMAT`).
        include_instructions: put the instructions in the first observation (default); when
            ``False`` they are only in ``info["instructions"]`` (e.g. for a system message).
        parser: ``"agentgym"`` (default) or ``"strict"``.
        prompts: ``"ours"`` (default) or ``"agentgym"``: AgentGym's conversation start and
            first-turn formatting, read from ``prompts_source`` (an AgentTraj file or an
            AgentGym checkout; default ``$AGENTGYM_PROMPTS``).
    """

    def __init__(
        self,
        env: gym.Env,
        on_invalid: str = "feedback",
        reply_format: str = REPLY_FORMAT,
        include_instructions: bool = True,
        parser: str = "agentgym",
        prompts: str = "ours",
        prompts_source: str | os.PathLike[str] | None = None,
    ) -> None:
        if on_invalid not in ("feedback", "step"):
            raise ValueError(
                f"on_invalid={on_invalid!r} is not supported: use 'feedback' or 'step'"
            )
        if parser not in PARSER_NAMES:
            raise ValueError(f"parser={parser!r} is not supported: use 'agentgym' or 'strict'")
        if not isinstance(env.unwrapped, TextEnv):
            raise TypeError(
                f"ReAct wraps an agentgym_envs TextEnv, got {type(env.unwrapped).__name__}"
            )
        gym.utils.RecordConstructorArgs.__init__(
            self,
            on_invalid=on_invalid,
            reply_format=reply_format,
            include_instructions=include_instructions,
            parser=parser,
            prompts=prompts,
            prompts_source=None if prompts_source is None else str(prompts_source),
        )
        gym.Wrapper.__init__(self, env)
        self.on_invalid = on_invalid
        self.reply_format = reply_format
        self.include_instructions = include_instructions
        self.parser = parser
        self.style = reply_style(env) if parser == "agentgym" else "strict"
        self.start = conversation_start(env, prompts, prompts_source)
        self.prompt_set = prompts
        self._family = getattr(family_of(env), "name", "")
        # tool and search families read the reply themselves (``Action: x with Action Input``)
        self._whole_reply = reply_style(env) == "raw"
        self._observation = ""
        self._info: dict[str, Any] = {}

    @property
    def reply_parser(self) -> str:
        """How replies are read: ``agentgym:<style>`` or ``strict``."""
        return f"agentgym:{self.style}" if self.parser == "agentgym" else "strict"

    def instructions(self) -> str:
        """The instruction turn: AgentGym's (``prompts="agentgym"``), else the family's
        instructions followed by the reply format.

        Families whose instructions already state a ``Thought:`` / ``Action:`` format (the tool
        families and BIRD keep AgentGym's own wording) get no second one.
        """
        if self.start is not None:
            return self.start.instruction
        text = self.env.unwrapped.instructions().strip()
        if not self.reply_format or (_markers(text, "action") and _markers(text, "thought")):
            return text
        return f"{text}\n\n{self.reply_format}"

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        self._observation, self._info = obs, dict(info)
        instructions = self.instructions()
        first = first_turn(self._family, obs, info, self.start, self.env.unwrapped)
        info = dict(
            info,
            instructions=instructions,
            ack=self.start.ack if self.start is not None else OUR_ACK,
            first_turn=first,
            env_observation=obs,
            prompt_set=self.prompt_set,
            reply_parser=self.reply_parser,
        )
        return (f"{instructions}\n\n{first}" if self.include_instructions else first), info

    def step(self, action: str):
        if self.parser == "agentgym":
            return self._step_agentgym(action)
        parsed = parse_react(action)
        if parsed.ok or self.on_invalid == "step":
            if parsed.ok and self._whole_reply:
                env_action = _clean(action).strip()
            elif parsed.action is not None:
                env_action = parsed.action
            else:
                env_action = _clean(action).strip() if isinstance(action, str) else action
            info = {"thought": parsed.thought}
            if not parsed.ok:
                info["format_error"] = parsed.error
            return self._forward(env_action, info)
        if parsed.error == MULTIPLE_ACTIONS:
            obs = MULTIPLE_ACTIONS_TEXT
            error = f"the reply has {parsed.n_actions} 'Action:' lines: write exactly one"
        else:
            obs = f"{INVALID_ACTION_TEXT}\n\n{self._observation}"
            error = "the reply has no 'Action: <action>' line"
        return self._answer(obs, parsed.thought, error, parsed.error)

    def _step_agentgym(self, reply: str):
        read = parse_agentgym(self.style, reply)
        if read.feedback is not None:
            error = f"the reply has {read.markers} 'Action:' lines: write exactly one"
            return self._answer(read.feedback, read.thought, error, MULTIPLE_ACTIONS)
        extra: dict[str, Any] = {"thought": read.thought}
        if not read.markers and not read.action and self.style != "raw":
            extra["format_error"] = NO_ACTION
        return self._forward(read.action, extra)

    def _forward(self, env_action: Any, extra: dict[str, Any]):
        obs, reward, terminated, truncated, info = self.env.step(env_action)
        self._observation, self._info = obs, dict(info)
        return obs, reward, terminated, truncated, dict(info, action=env_action, **extra)

    def _answer(self, obs: str, thought: str, error: str, format_error: str | None):
        """The reply answered without stepping the env (reward 0)."""
        info = dict(
            self._info, thought=thought, action=None, error=error, format_error=format_error
        )
        # A finished episode stays finished: the env's own flag, as its feedback would give it.
        return obs, 0.0, bool(getattr(self.env.unwrapped, "done", False)), False, info


__all__ = [
    "INVALID_ACTION_TEXT",
    "MULTIPLE_ACTIONS",
    "MULTIPLE_ACTIONS_TEXT",
    "NO_ACTION",
    "PARSER_NAMES",
    "PROMPTS_SOURCE_ENV",
    "REPLY_FORMAT",
    "ParsedReply",
    "ReAct",
    "conversation_start",
    "family_of",
    "format_react",
    "parse_react",
    "reply_style",
]
