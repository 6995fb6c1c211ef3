"""AgentGym's tool servers as a mixin of :class:`~agentgym_envs.tools.env.ToolEnv`: the replies
they refuse (with their texts), their answer comparison and the reward they return per step.
"""

from __future__ import annotations

import ast
import builtins
import json
import re
from typing import Any

from agentgym_envs.tools.answers import answer_matcher
from agentgym_envs.tools.progress import ProgressTracker

PARAMS_INVALID = "Parameters in action input are not valid, please change your action input."

AGENTGYM_ACTION = re.compile(r"\s*(.*?)\s*with\s*Action Input:\s*(.*?)$")


def agentgym_parseable(text: str) -> bool:
    """Whether AgentGym's tool servers read an action in ``text`` (else they answer with
    their format-error text): the ``... with Action Input: ...`` must end the reply, on one
    line (a multi-line input or text after it is a format error there)."""
    return AGENTGYM_ACTION.search(text) is not None


class AgentGymScoring:
    """Mixin for a :class:`~agentgym_envs.tools.env.ToolEnv` family (put it first among the
    bases): AgentGym's answer comparison, its format errors and its wire reward.

    * ``answer_match="agentgym"`` compares the answer with Python ``==`` (after the ``finish``
      tool's sorting of lists), ``"lenient"`` with
      :func:`~agentgym_envs.tools.answers.answers_match`; both for ``success`` and for the
      answer subgoal (hence the score).
    * ``parser="agentgym"`` refuses what AgentGym's servers refuse, with their texts: a reply
      they cannot read (:func:`agentgym_parseable`) gets their format-error text, a last line
      without ``Action:`` their ``TypeError``, an input their ``eval`` rejects
      (:func:`agentgym_evaluable`) their ``Exception(...)``, an unknown tool name their
      ``Invalid action`` (exact names only; :attr:`aliases` lists the others they accept), a
      missing argument their ``KeyError``; and, as there, a dispatched action whose line says
      ``finish`` ends the episode. Tool calls turned into text
      (:meth:`action_from_tool_call`) are written so that ``eval`` reads them.
      ``parser="lenient"`` keeps :func:`~agentgym_envs.tools.grammar.parse_tool_action`'s
      reading (multi-line inputs, JSON literals, JSON tool calls, names in other case).
    * Every step's ``info["agentgym_reward"]`` is the reward AgentGym's server returns for
      that step (:meth:`agentgym_reward`): the running score, which AgentGym's client takes
      from the last step as the episode's reward, while the env's own step rewards are the
      score's increments (they sum to it).
    """

    answer_match: str = "agentgym"
    parser: str = "agentgym"

    def _init_agentgym(self, answer_match: str = "agentgym", parser: str = "agentgym") -> None:
        answer_matcher(answer_match)  # validates
        if parser not in ("agentgym", "lenient"):
            raise ValueError(f"unknown parser {parser!r}: use 'agentgym' or 'lenient'")
        self.answer_match = answer_match
        self.parser = parser

    def agentgym_reward(self) -> float:
        """The reward AgentGym's server would return now (default: the running score)."""
        return float(self.score)  # type: ignore[attr-defined]

    def _begin(self, task: Any) -> tuple[str, dict[str, Any]]:
        obs, info = super()._begin(task)  # type: ignore[misc]
        self.tracker = ProgressTracker(task.subgoals, answer_match=self.answer_match)
        info["agentgym_reward"] = 0.0
        return obs, info

    def _solved(self, answer: Any) -> bool:
        return answer_matcher(self.answer_match)(answer, self.task.answer)  # type: ignore[attr-defined]

    def _act(self, action: str) -> Any:
        if self.parser != "agentgym":
            result = super()._act(action)  # type: ignore[misc]
        else:
            result, dispatched = self._agentgym_refusal(action)
            if result is None:
                result = super()._act(action)  # type: ignore[misc]
            if dispatched and not result.terminated and self.agentgym_done(_agentgym_line(action)):
                # AgentGym's servers end the episode on any dispatched action whose text says
                # "finish" (``[finish]``, an input mentioning it), not only on the finish tool
                before = self.score  # type: ignore[attr-defined]
                self.score = float(self._score(True))  # type: ignore[attr-defined]
                result.reward += self.score - before  # type: ignore[attr-defined]
                result.terminated = True
                result.info["answer"] = self.task.answer  # type: ignore[attr-defined]
        result.info["agentgym_reward"] = self.agentgym_reward()
        return result

    def action_from_tool_call(self, name: str, arguments: dict[str, Any]) -> str:
        text = super().action_from_tool_call(name, arguments)  # type: ignore[misc]
        given = _agentgym_input(text)
        if self.parser == "agentgym" and not agentgym_evaluable(given):
            # JSON's true/false/null do not survive AgentGym's eval: write a Python literal
            return f"Action: {name} with Action Input: {json.loads(given)!r}"
        return text

    def agentgym_done(self, line: str) -> bool:
        """Whether AgentGym's server ends the episode after dispatching ``line`` (the action
        line it rebuilt): ``Finish`` or ``finish`` in it (Sheet: any case)."""
        return "Finish" in line or "finish" in line

    def invalid_action_text(self, name: str) -> str:
        """AgentGym's reply to an unknown tool name (Sheet's server also lists the tools)."""
        return f"ERROR | Invalid action: {name}."

    def _agentgym_refusal(self, action: str) -> tuple[Any, bool]:
        """``(reply, dispatched)``: the reply AgentGym's servers give to a reply they refuse
        before any tool runs (``None`` when the call goes on to the tools), and whether the
        server got as far as dispatching it (where its "finish" check applies)."""
        from agentgym_envs.tools.grammar import FORMAT_ERROR, parse_tool_action

        score = self.score  # type: ignore[attr-defined]
        step = self._step_text  # type: ignore[attr-defined]
        refuse = self._result  # type: ignore[attr-defined]
        parsed = parse_tool_action(action)
        if not agentgym_parseable(action):
            why = (
                parsed.error
                if parsed.format_error
                else (
                    "AgentGym reads an action only as the last line of the reply: "
                    "'Action: <tool> with Action Input: <input on one line>'"
                )
            )
            return refuse(FORMAT_ERROR, score, error=why), False
        name = agentgym_action_name(action)
        if name is None:  # the last line lacks "Action:": AgentGym's server fails to unpack
            text = "ERROR | TypeError(cannot unpack non-iterable NoneType object)"
            return refuse(
                step(text), score, error="the action line must start with 'Action:'"
            ), False
        if (parsed.error and PARAMS_INVALID in parsed.error) or not agentgym_evaluable(
            _agentgym_input(action)
        ):
            why = parsed.error or (
                "the action input is not a value AgentGym's server can read (NaN, Infinity and "
                "the like are not): write it as JSON with finite numbers"
            )
            return refuse(step(f"ERROR | Exception({PARAMS_INVALID})"), score, error=why), False
        toolkit = self.toolkit  # type: ignore[attr-defined]
        if name not in toolkit and name not in self.aliases:
            return refuse(
                step(self.invalid_action_text(name)), score, error=toolkit.unknown(name)
            ), True
        tool = toolkit[self.aliases.get(name, name)]
        arguments = parsed.arguments if isinstance(parsed.arguments, dict) else {}
        required = set(tool.parameters.get("required", []))
        missing = [a for a in tool.argument_names if a in required and a not in arguments]
        if missing:  # AgentGym's dispatch reads params[...] in the tool's argument order
            text = f"ERROR | KeyError({missing[0]!r})"
            return refuse(
                step(text), score, error=f"missing argument {missing[0]!r}", tool=tool.name
            ), False
        return None, True

    #: Other names AgentGym's server dispatches to a tool (Academia: ``neighborCheck``).
    aliases: dict[str, str] = {}


def agentgym_action_name(text: str) -> str | None:
    """The tool name AgentGym's servers read from a reply (the text between the last line's
    first ``Action:`` and ``with Action Input:``), or ``None`` when that line has no
    ``Action:``; assumes :func:`agentgym_parseable`."""
    m = AGENTGYM_ACTION.search(text)
    if m is None:
        return None
    line = f"{m.group(1)} with Action Input: {m.group(2)}"
    named = _AGENTGYM_NAME.match(line)
    return named.group(1) if named else None


def agentgym_evaluable(text: str) -> bool:
    """Whether AgentGym's ``eval`` of an action input succeeds, judged without running it:
    Python syntax naming no unknown variable (JSON's ``true``/``false``/``null`` are unknown
    there, hence its "Parameters in action input are not valid")."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return all(node.id in _BUILTINS for node in ast.walk(tree) if isinstance(node, ast.Name))


_BUILTINS = frozenset(dir(builtins))


def _agentgym_input(text: str) -> str:
    m = AGENTGYM_ACTION.search(text)
    return m.group(2) if m else ""


def _agentgym_line(text: str) -> str:
    """The action line AgentGym's servers rebuild from a reply (for their "finish" check)."""
    m = AGENTGYM_ACTION.search(text)
    return f"{m.group(1)} with Action Input: {m.group(2)}" if m else ""


_AGENTGYM_NAME = re.compile(
    r".*?Action:\s*(.*?)\s*with\s*Action Input:\s*(.*?)$", re.MULTILINE | re.DOTALL
)


__all__ = [
    "AGENTGYM_ACTION",
    "PARAMS_INVALID",
    "AgentGymScoring",
    "agentgym_action_name",
    "agentgym_evaluable",
    "agentgym_parseable",
]
