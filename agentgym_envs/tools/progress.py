"""AgentBoard's progress rate: the share of a task's subgoals the agent has reached.

Every tool call the env serves is a :class:`Record` (tool, arguments, result). A task lists
its :class:`Subgoal` s; a subgoal is reached when some record, not already used for another
subgoal, shows its value:

* a subgoal tied to a ``tool`` is reached by a successful call of that tool whose result
  *contains* the value (the value itself, a dict whose items include the value's items, or an
  element of a list, at any depth) -- "the agent looked up New York's coordinates", "the agent
  fetched the rain for 2023-06-14";
* a subgoal without a tool (the answer) is reached by a record whose whole result equals the
  value -- as in AgentGym, where a tool result equal to the answer counts as well as the
  ``finish`` answer. "Equals" is AgentGym's Python ``==`` on a successful call's result
  (``answer_match="agentgym"``) or :func:`~agentgym_envs.tools.answers.answers_match`
  (``"lenient"``).

Matching is one-to-one (a multiset match, in subgoal order) and the rate is a running maximum,
as AgentBoard computes it.

:class:`AgentGymScoring` gives a :class:`~agentgym_envs.tools.env.ToolEnv` family AgentGym's
answer comparison, its reading of unparseable replies and the reward its server sends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentgym_envs.tools.answers import agentgym_equal, answers_match


@dataclass(frozen=True)
class Subgoal:
    """One milestone of a task: ``value`` shown by a call of ``tool`` (or the answer if ``None``)."""

    value: Any
    tool: str | None = None
    description: str = ""


@dataclass(frozen=True)
class Record:
    """One served tool call."""

    tool: str
    arguments: Mapping[str, Any]
    result: Any
    ok: bool = True


def contains(result: Any, value: Any, depth: int = 0) -> bool:
    """Whether ``value`` appears in ``result`` (see the module docstring)."""
    if depth > 12:
        return False
    if answers_match(result, value):
        return True
    if isinstance(value, Mapping) and isinstance(result, Mapping):
        folded = {str(k).casefold(): v for k, v in result.items()}
        if all(
            str(k).casefold() in folded and answers_match(folded[str(k).casefold()], v)
            for k, v in value.items()
        ):
            return True
    if isinstance(result, Mapping):
        return any(contains(v, value, depth + 1) for v in result.values())
    if isinstance(result, Sequence) and not isinstance(result, str):
        return any(contains(v, value, depth + 1) for v in result)
    return False


def reached(subgoal: Subgoal, record: Record, answer_match: str = "lenient") -> bool:
    if subgoal.tool is None:
        if answer_match == "agentgym":
            # a failed call is recorded by AgentGym as "Calling X with {...} failed", never the answer
            return record.ok and agentgym_equal(record.result, subgoal.value)
        return answers_match(record.result, subgoal.value)
    return record.ok and record.tool == subgoal.tool and contains(record.result, subgoal.value)


@dataclass
class ProgressTracker:
    """The running progress rate of one episode."""

    subgoals: tuple[Subgoal, ...]
    #: How the answer subgoal is compared: ``"lenient"`` or ``"agentgym"`` (Python ``==``).
    answer_match: str = "lenient"
    records: list[Record] = field(default_factory=list)
    rate: float = 0.0
    met: tuple[bool, ...] = ()

    def __post_init__(self) -> None:
        self.met = tuple(False for _ in self.subgoals)

    def add(self, record: Record) -> float:
        """Add a served call; return the progress rate (running max)."""
        self.records.append(record)
        self.met = self._match()
        if self.subgoals:
            self.rate = max(self.rate, sum(self.met) / len(self.subgoals))
        return self.rate

    def _match(self) -> tuple[bool, ...]:
        unused = list(range(len(self.records)))
        met = []
        for goal in self.subgoals:
            for j in unused:
                if reached(goal, self.records[j], self.answer_match):
                    unused.remove(j)
                    met.append(True)
                    break
            else:
                met.append(False)
        return tuple(met)


#: What AgentGym's tool servers find in a reply: ``<text> with Action Input: <input>`` on the
#: reply's last line (``.`` does not cross lines, ``$`` is the end of the text).
#: AgentGym's complaint (inside ``ERROR | Exception(...)``) about an input it cannot ``eval``.


__all__ = ["ProgressTracker", "Record", "Subgoal", "contains", "reached"]
