"""``ToolEnv``: the env every tool-use family (Weather, Movie, Academia, Sheet, TODOList) is.

A family gives a :class:`~agentgym_envs.tools.tool.Toolkit` (its tools, over its backend), a
task source of :class:`ToolTask` s and a way to build a fresh backend for a task. The base
class plays AgentGym's tool protocol (``reference/tool-envs.md``):

* reset: ``Now new trial starts.\\nYou should perform actions to accomplish the goal: <goal>\\n
  Give me one action.``;
* step: the reply is read by :func:`~agentgym_envs.tools.grammar.parse_tool_action`, the call
  validated against the tool's schema and served; the observation is ``Observation: <result>\\n
  Give me one action.`` (errors as ``ERROR | <what is wrong>``); a reply without an action
  gets AgentGym's format-error text;
* ``finish`` ends the episode with the answer.

Grading: ``info["progress"]`` is AgentBoard's progress rate over the task's subgoals; ``score``
is the reward AgentGym reports for the family (see each env's docstring), and the step reward is
its increase, so an episode's rewards sum to its score; ``success`` is set when the final answer
(or final state) is right.
"""

from __future__ import annotations

import abc
import json
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from agentgym_envs.core import StepResult, Task, TextEnv
from agentgym_envs.tools.agentgym import AgentGymScoring
from agentgym_envs.tools.answers import answers_match, canonical
from agentgym_envs.tools.grammar import FORMAT_ERROR, parse_tool_action
from agentgym_envs.tools.progress import ProgressTracker, Record, Subgoal
from agentgym_envs.tools.tool import Tool, ToolError, Toolkit, action_text, schema, tool_text

START_TEXT = "Now new trial starts.\nYou should perform actions to accomplish the goal: {goal}\nGive me one action."
STEP_TEXT = "Observation: {text}\nGive me one action."

PROMPT_HEAD = (
    "You are an autonomous intelligent agent. You can use actions to help people solve problems.\n"
    "We detail name, description, input(parameters) and output(returns) of each action as follows:\n"
)
PROMPT_FORMAT = (
    "Please refer to the format of examples below to solve the requested goal. Please provide your "
    "thought to solve the question. You should give the thought with no more than 3 sentences. You "
    "need to give your thought together with your action!\n\n"
    "Your response must be in the format of:\n"
    "Thought: [your thought]\n\n"
    "Action: [your action] with Action Input: [your action input]\n\n"
    "Here is an example:\n\n"
)


@dataclass(frozen=True)
class PlanStep:
    """One step of a task's solution: a tool call and the thought that goes with it."""

    tool: str
    arguments: dict[str, Any]
    thought: str = ""

    def action(self) -> str:
        thought = self.thought or (
            f"I will call {self.tool}." if self.tool != "finish" else "I have the answer."
        )
        return f"Thought: {thought}\n\n{action_text(self.tool, self.arguments)}"


@dataclass(frozen=True)
class ToolTask(Task):
    """A tool-use task: the goal, the gold answer, subgoals and a solution plan."""

    goal: str
    answer: Any
    subgoals: tuple[Subgoal, ...]
    plan: tuple[PlanStep, ...]
    difficulty: str = "easy"
    kind: str = ""


def finish_tool(with_answer: bool = True) -> Tool:
    if with_answer:
        return Tool(
            "finish",
            "Call this action when you have the answer to the goal; it ends the task.",
            _finish,
            {
                "type": "object",
                "properties": {
                    "answer": {"description": "the final answer (text, number, list or dict)"}
                },
                "required": ["answer"],
                "additionalProperties": False,
            },
            "the answer",
        )
    return Tool(
        "finish",
        "Call this action when the goal is done; it ends the task.",
        _finish_state,
        schema(),
        "the final state",
    )


def _finish(backend: Any, answer: Any) -> Any:
    return canonical(answer)


def _finish_state(backend: Any) -> Any:
    return backend.final_state()


def check_valid_actions_tool() -> Tool:
    return Tool(
        "check_valid_actions",
        "Get the names of the valid actions.",
        _check_valid_actions,
        schema(),
        "a list of action names",
    )


def _check_valid_actions(backend: Any) -> str:  # the env answers this one itself
    raise ToolError("check_valid_actions is answered by the env")


def user_context_tools() -> list[Tool]:
    """AgentGym's ``get_user_current_date`` and ``get_user_current_location`` (Weather and
    TODOList both have them), over a backend's ``current_date`` and ``current_location``."""
    return [
        Tool(
            "get_user_current_date",
            "Get the user's current date.",
            _current_date,
            schema(),
            "the current date, 'YYYY-MM-DD'",
        ),
        Tool(
            "get_user_current_location",
            "Get the user's current city.",
            _current_location,
            schema(),
            "the user's current city",
        ),
    ]


def _current_date(backend: Any) -> str:
    return backend.current_date


def _current_location(backend: Any) -> str:
    return backend.current_location


class BaseToolEnv(TextEnv):
    """The tool protocol read leniently (any case, JSON tool calls, multi-line inputs);
    :class:`ToolEnv` adds AgentGym's servers' refusals, answer comparison and wire reward."""

    #: The family's tools, ``finish`` included.
    toolkit: ClassVar[Toolkit]
    #: The env-specific hint of AgentGym's prompt.
    hint: ClassVar[str] = ""
    #: One worked example in AgentGym's prompt format.
    example: ClassVar[str] = ""

    def __init__(self, tasks: Any, render_mode: str | None = None) -> None:
        super().__init__(tasks, render_mode=render_mode)
        self.backend: Any = None
        self.tracker = ProgressTracker(())
        self.final_answer: Any = None

    # -- hooks ------------------------------------------------------------------------------
    @abc.abstractmethod
    def _make_backend(self, task: ToolTask) -> Any:
        """A fresh backend (the episode's world) for ``task``."""

    def _score(self, finished: bool) -> float:
        """AgentGym's reward now. Default: 1.0 once the answer subgoal is reached (any record)."""
        return 1.0 if self.tracker.met and self.tracker.met[-1] else 0.0

    def _solved(self, answer: Any) -> bool:
        """Whether the ``finish`` answer solves the task."""
        task: ToolTask = self.task  # type: ignore[assignment]
        return answers_match(answer, task.answer)

    def _random_arguments(self, tool: Tool, rng: np.random.Generator) -> dict[str, Any]:
        """Plausible arguments for ``tool`` (the random baseline); families override."""
        return {}

    # -- episode ----------------------------------------------------------------------------
    def _begin(self, task: ToolTask) -> tuple[str, dict[str, Any]]:
        self.backend = self._make_backend(task)
        self.tracker = ProgressTracker(task.subgoals)
        self.final_answer = None
        return START_TEXT.format(goal=task.goal), {"progress": 0.0, "goal": task.goal}

    def _act(self, action: str) -> StepResult:
        parsed = parse_tool_action(action)
        before = self.score
        if parsed.format_error:
            return self._result(FORMAT_ERROR, before, error=parsed.error)
        name = self.toolkit.resolve(parsed.tool or "") or parsed.tool or ""
        if name not in self.toolkit:
            text = f"ERROR | Invalid action: {name}. Please choose another valid action from {list(self.toolkit)}"
            return self._result(self._step_text(text), before, error=self.toolkit.unknown(name))
        if parsed.error:
            return self._result(
                self._step_text(f"ERROR | {parsed.error}"), before, error=parsed.error, tool=name
            )
        tool = self.toolkit[name]
        arguments, problems = tool.validate(parsed.arguments)
        if problems:
            problem = "; ".join(problems)
            text = f"ERROR | {problem}. Usage: {tool.signature()}"
            return self._result(self._step_text(text), before, error=problem, tool=name)
        if name == "check_valid_actions":
            text = f"You can use following valid actions: {list(self.toolkit)}"
            return self._result(self._step_text(text), before, tool=name)
        try:
            result = tool(self.backend, arguments)
            ok = True
        except ToolError as exc:
            result, ok = str(exc), False
        self.tracker.add(Record(name, arguments, result, ok))
        finished = name == "finish"
        if finished:
            self.final_answer = result
        self.score = float(self._score(finished))
        if finished:
            self.success = bool(self._solved(result))
        text = self._step_text(tool_text(result))
        return self._result(
            text, before, error=None if ok else str(result), tool=name, terminated=finished
        )

    def _step_text(self, text: str) -> str:
        return STEP_TEXT.format(text=text)

    def _result(
        self,
        text: str,
        before: float,
        *,
        error: str | None = None,
        tool: str | None = None,
        terminated: bool = False,
    ) -> StepResult:
        info: dict[str, Any] = {"progress": float(self.tracker.rate)}
        if tool is not None:
            info["tool"] = tool
        if terminated:
            task: ToolTask = self.task  # type: ignore[assignment]
            info["answer"] = task.answer
        return StepResult(
            text, reward=self.score - before, terminated=terminated, error=error, info=info
        )

    # -- baselines and LLM hooks ------------------------------------------------------------
    def random_action(self, rng: np.random.Generator) -> str:
        names = list(self.toolkit)
        tool = self.toolkit[names[int(rng.integers(len(names)))]]
        return action_text(tool.name, self._random_arguments(tool, rng))

    def instructions(self) -> str:
        return (
            PROMPT_HEAD
            + self.toolkit.describe()
            + "\n\n"
            + (self.hint + "\n\n" if self.hint else "")
            + PROMPT_FORMAT
            + self.example
        )

    def tool_schemas(self) -> list[dict[str, Any]]:
        return self.toolkit.openai_schemas()

    def action_from_tool_call(self, name: str, arguments: dict[str, Any]) -> str:
        if name not in self.toolkit:
            raise ValueError(self.toolkit.unknown(name))
        checked, problems = self.toolkit[name].validate(arguments)
        if problems:
            raise ValueError("; ".join(problems))
        return action_text(name, checked)


class PlanExpert:
    """Replays the task's solution plan through the env's grammar, one call per turn."""

    def __init__(self, env: ToolEnv) -> None:
        self.env = env

    def __call__(self, observation: str, info: dict[str, Any]) -> str:
        task: ToolTask = self.env.task  # type: ignore[assignment]
        index = self.env.turns
        if index < len(task.plan):
            return task.plan[index].action()
        step = task.plan[-1]
        return step.action()


def dumps(value: Any) -> str:
    """Compact JSON for thoughts and goals."""
    return json.dumps(value, ensure_ascii=True)


class ToolEnv(AgentGymScoring, BaseToolEnv):
    """Base of the tool-use families (see the module docstring).

    What every tool family (Weather, Movie, Academia, Sheet, TODOList) shares, stated here once:

    * Identical to AgentGym: the first observation, the ``Observation: ...\\nGive me one
      action.`` framing, the format-error text, the answer comparison and the reward its server
      returns.
    * Replies: by default a reply is read as AgentGym's servers read it: the
      ``... with Action Input: ...`` must end the reply, on one line; otherwise the observation
      is their format-error text (``Format error, please response in the format of  "Action:
      [your action] with Action Input: [your action input]``, reward unchanged). Their
      ``ERROR | ...`` texts answer a last line without ``Action:`` (``TypeError(...)``), an input
      Python's ``eval`` rejects such as JSON's ``true`` (``Exception(Parameters in action input
      are not valid, ...)``), an unknown tool name (``Invalid action: <name>.``) and a missing
      argument (``KeyError('<arg>')``); a dispatched action whose line says ``finish`` ends the
      episode, as there. ``parser="lenient"`` reads a multi-line input, text after the action,
      JSON's literals, tool names in other case and JSON tool calls, and ends only on the
      ``finish`` tool.
    * Answers (the families graded on a ``finish`` answer): compared as AgentGym compares them,
      Python ``==`` on the ``finish`` input read as a literal, lists sorted (``"18.5"`` is not
      ``18.5``, ``"Fair"`` is not ``"fair"``); ``answer_match="lenient"`` accepts other
      spellings (numbers within tolerance, units, case, list order).
    * ``info["agentgym_reward"]`` at every step is the reward AgentGym's server returns for it
      (the running score; AgentGym's client scores an episode by its last reward).

    Args:
        tasks: the family's task source.
        answer_match: ``"agentgym"`` (Python ``==``, as AgentGym compares) or ``"lenient"``.
        parser: ``"agentgym"`` (refuse what AgentGym's servers refuse, with their texts) or
            ``"lenient"``.
    """

    def __init__(
        self,
        tasks: Any,
        answer_match: str = "agentgym",
        parser: str = "agentgym",
        render_mode: str | None = None,
    ) -> None:
        super().__init__(tasks, render_mode=render_mode)
        self._init_agentgym(answer_match, parser)


__all__ = [
    "PROMPT_FORMAT",
    "PROMPT_HEAD",
    "START_TEXT",
    "STEP_TEXT",
    "BaseToolEnv",
    "PlanExpert",
    "PlanStep",
    "ToolEnv",
    "ToolTask",
    "check_valid_actions_tool",
    "dumps",
    "finish_tool",
    "user_context_tools",
]
