"""The base every agentgym-envs environment stands on.

``TextEnv`` is a ``gymnasium.Env[str, str]``: observations and actions are strings from one
shared charset. A family subclasses it, gives it a :class:`TaskSource`, and implements two
hooks, :meth:`TextEnv._begin` (start a task) and :meth:`TextEnv._act` (apply one action).
The base class owns seeding, task selection, bounds and the ``info`` contract. An action
reaches the family exactly as sent (non-ASCII included) and the observation is the game's own
text, as AgentGym's servers pass them; :func:`normalize_text` is a helper for code that wants
ASCII, never applied on the way in or out. The contract:

* every ``info`` carries ``task_id``, ``split``, ``success`` and ``score`` (the graded result so
  far; final once the episode has ended), and ``available_actions`` where the set is finite;
* an action that cannot be parsed or executed is returned as feedback in the observation with
  ``info["error"]`` saying why -- never as an exception;
* stepping a finished episode is feedback too, until ``reset()``;
* the step that ends an episode says why in ``info["outcome"]`` (one of :data:`OUTCOMES`) and
  whether its reward can be trusted in ``info["reward_valid"]`` (false when the environment,
  not the agent, failed); wrappers that cut an episode short set the limit's outcome, and
  :func:`episode_outcome` reads it from any final step.
"""

from __future__ import annotations

import abc
import re
import string
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from agentgym_envs import bounds
from agentgym_envs.errors import BadTaskError

#: The characters :meth:`TextSpace.sample` draws from: printable ASCII, tab and newline, plus a
#: few accented letters, typographic punctuation, CJK and an emoji, so that random samples
#: exercise non-ASCII text too. A :class:`TextSpace` *contains* any text (see there).
TEXT_CHARSET: str = (
    string.ascii_letters
    + string.digits
    + string.punctuation
    + " \t\n"
    + "\u00e9\u00fc\u00f1\u00df\u2019\u201c\u201d\u2013\u2026\u00a0\u4e2d\U0001f642"
)
MAX_OBSERVATION_CHARS = 1_000_000
MAX_ACTION_CHARS = 16_384
SPLITS = ("train", "test")

#: Why an episode ended: ``info["outcome"]`` on its last step. ``sandbox_violation`` is a
#: harness episode whose harness tried something the sandbox refused (a write outside its
#: folders, a secret read, a connection elsewhere: :mod:`agentgym_envs.integrations.sandbox`);
#: its reward is never valid.
OUTCOMES = (
    "success",
    "failure",
    "invalid_action",
    "turn_limit",
    "token_limit",
    "time_limit",
    "env_error",
    "sandbox_violation",
)
#: ``info["truncation_reason"]`` values (wrappers, rollout loops, benchmarks) -> outcome.
TRUNCATION_OUTCOMES = {
    "turn_limit": "turn_limit",
    "max_episode_steps": "turn_limit",
    "max_rounds": "turn_limit",
    "token_limit": "token_limit",
    "context_length": "token_limit",
    "wall_clock": "time_limit",
    "time_limit": "time_limit",
    "env_error": "env_error",
}

_PUNCTUATION_MAP = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u2026": "...",
        "\u00a0": " ",
        "\u2009": " ",
        "\u202f": " ",
        "\r": "",
        "\u00d7": "x",
        "\u00b0": " deg",
        "\u20ac": "EUR",
        "\u00a3": "GBP",
    }
)
_ASCII = frozenset(string.ascii_letters + string.digits + string.punctuation + " \t\n")
_OUTSIDE = re.compile(r"[^\t\n\x20-\x7e]")


def normalize_text(text: str) -> str:
    """Map ``text`` to printable ASCII (plus tab and newline), for code that wants ASCII.

    Typographic punctuation becomes its ASCII twin, accented letters lose their accents, and
    anything else (emoji, control characters) is dropped. Envs never apply it to actions or
    observations: AgentGym's servers pass text through as it is, so ``mov\u00e9 right`` must
    stay an unknown action rather than become ``move right``.
    """
    if _OUTSIDE.search(text) is None:
        return text
    text = text.translate(_PUNCTUATION_MAP)
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if c in _ASCII)


def episode_outcome(terminated: bool, truncated: bool, info: dict[str, Any]) -> str | None:
    """Why an episode ended, from its last step (``None`` while it goes on).

    ``info["outcome"]`` wins where a wrapper or the env set it; a truncation maps through
    :data:`TRUNCATION_OUTCOMES` (an unknown reason counts as ``turn_limit``); a termination
    without an outcome is ``success`` or ``failure`` by ``info["success"]``.
    """
    if info.get("outcome") in OUTCOMES:
        return str(info["outcome"])
    if truncated and not terminated:
        return TRUNCATION_OUTCOMES.get(str(info.get("truncation_reason")), "turn_limit")
    if terminated:
        return "success" if info.get("success") else "failure"
    return None


class TextSpace(spaces.Text):
    """A ``spaces.Text`` that contains any Unicode text of an allowed length.

    Games echo what the agent sent (AgentGym's servers do, emoji included) and pages and
    product texts hold any character, so membership is not limited to a charset: every ``str``
    of ``min_length`` to ``max_length`` characters is in the space. :meth:`sample` draws from
    :data:`TEXT_CHARSET`, a small charset, so sampling stays cheap.
    """

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length


def text_space(max_length: int) -> TextSpace:
    """A :class:`TextSpace` of up to ``max_length`` characters (empty strings allowed)."""
    return TextSpace(max_length, min_length=0, charset=TEXT_CHARSET)


@dataclass(frozen=True)
class Task:
    """One task of a family: its id within a split, plus whatever the family needs.

    Families subclass this (a frozen dataclass) and add the task's data. A task writes its
    own instruction and checks its own success.
    """

    task_id: int
    split: str


class TaskSource(abc.ABC):
    """Where a family's tasks come from: generated, embedded, or loaded from user data.

    Task ids are indexes ``0 .. size(split) - 1`` within a split. Families whose original
    benchmark uses one global index (AgentGym's ``item_id``) map between the two with
    :meth:`agentgym_index` and :meth:`locate`.
    """

    #: AgentTraj / AgentEval item-id prefix (``wordle`` in ``wordle_12``).
    item_prefix: ClassVar[str] = ""
    #: Whether the tasks come from the user's copy of the original data (a loader) rather than
    #: the embedded source; see :attr:`agentgym_envs.spec.Family.stand_in`.
    user_data: ClassVar[bool] = False

    @abc.abstractmethod
    def size(self, split: str) -> int:
        """Number of tasks in ``split`` (0 when the split is empty)."""

    @abc.abstractmethod
    def _load(self, split: str, task_id: int) -> Task:
        """Build task ``task_id`` of ``split``; ids are already validated."""

    #: Splits whose task ids go on past ``size(split)``: the source builds a task from any
    #: non-negative id, as AgentGym's server seeds a game from any item index (BabyAI, LMRL's
    #: Wordle). ``size`` then only bounds the ids a reset without ``task_id`` draws from.
    open_splits: ClassVar[frozenset[str]] = frozenset()

    def splits(self) -> dict[str, int]:
        return {split: self.size(split) for split in SPLITS}

    def check(self, split: str, task_id: Any) -> int:
        """``task_id`` as an int when ``split`` holds it, else a :class:`BadTaskError` that
        says the valid range."""
        if split not in SPLITS:
            raise BadTaskError(f"unknown split {split!r}: use one of {', '.join(SPLITS)}")
        if isinstance(task_id, (bool, float)) or not isinstance(task_id, (int, np.integer)):
            raise BadTaskError(f"task_id must be an int, got {task_id!r}")
        n = self.size(split)
        if split in self.open_splits and n:
            if int(task_id) < 0:
                raise BadTaskError(f"task_id {task_id} is negative: use 0 or more")
        elif not 0 <= int(task_id) < n:
            raise BadTaskError(
                f"task_id {task_id} is out of range for split {split!r}: use 0..{n - 1}"
                if n
                else f"split {split!r} has no tasks"
            )
        return int(task_id)

    def get(self, split: str, task_id: int) -> Task:
        """Task ``task_id`` of ``split``, or a :class:`BadTaskError` that says the valid range."""
        return self._load(split, self.check(split, task_id))

    def agentgym_index(self, split: str, task_id: int) -> int:
        """AgentGym's global item index for a task (default: train first, then test)."""
        return task_id if split == "train" else self.size("train") + task_id

    def locate(self, index: int) -> tuple[str, int]:
        """Inverse of :meth:`agentgym_index`: ``(split, task_id)`` for an AgentGym item index."""
        n_train = self.size("train")
        if 0 <= index < n_train:
            return "train", index
        if n_train <= index < n_train + self.size("test"):
            return "test", index - n_train
        raise BadTaskError(
            f"item index {index} is outside 0..{n_train + self.size('test') - 1} for this task source"
        )


@dataclass
class StepResult:
    """What a family's :meth:`TextEnv._act` returns."""

    observation: str
    reward: float = 0.0
    terminated: bool = False
    error: str | None = None
    info: dict[str, Any] = field(default_factory=dict)


class TextEnv(gym.Env[str, str]):
    """Base class of every agentgym-envs environment (see the module docstring).

    Subclasses set :attr:`family`, build :attr:`tasks` in ``__init__`` (then call
    ``super().__init__``), and implement :meth:`_begin` and :meth:`_act`. They update
    :attr:`success` and :attr:`score` as the episode goes; the base class reports them.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 4}
    #: Family name as in the registry (``wordle``).
    family: ClassVar[str] = ""

    def __init__(self, tasks: TaskSource, render_mode: str | None = None) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not supported: use 'ansi' or None")
        self.render_mode = render_mode
        self.tasks = tasks
        self.observation_space = text_space(MAX_OBSERVATION_CHARS)
        self.action_space = text_space(MAX_ACTION_CHARS)
        self.task: Task | None = None
        self.success = False
        self.score = 0.0
        self.done = False
        #: Counts resets, so a scripted policy can tell a new episode from the last one.
        self.episode = 0
        self.turns = 0
        self._last_observation = ""

    # -- hooks for families -------------------------------------------------------------
    @abc.abstractmethod
    def _begin(self, task: Task) -> tuple[str, dict[str, Any]]:
        """Start ``task``; return the first observation and extra info."""

    @abc.abstractmethod
    def _act(self, action: str) -> StepResult:
        """Apply one action string, exactly as the agent sent it."""

    def available_actions(self) -> list[str] | None:
        """The finite set of valid actions now, or ``None`` where the set is open."""
        return None

    def random_action(self, rng: np.random.Generator) -> str:
        """An action a uniformly random player would take now (the random baseline).

        Default: one of :meth:`available_actions`, else a random string. Families with an open
        action set override this with a random *well-formed* action (a random vocabulary word).
        """
        actions = self.available_actions()
        if actions:
            return str(actions[int(rng.integers(len(actions)))])
        n = int(rng.integers(1, 12))
        return "".join(rng.choice(list(string.ascii_lowercase + " "), size=n))

    # -- hooks for LLM wrappers (ReAct, function calling) ---------------------------------
    def instructions(self) -> str:
        """What the task is and the action grammar with examples, for an LLM prompt.

        Written by each family in the spirit of AgentGym's ``conversation_start`` (same action
        grammar); the ReAct wrapper adds the reply format. Called after ``reset()``.
        """
        return "Interact with the environment by sending exactly one action per turn."

    def tool_schemas(self) -> list[dict[str, Any]]:
        """The env's actions as OpenAI-style function tools (``{"type": "function", ...}``)."""
        return [
            {
                "type": "function",
                "function": {
                    "name": "act",
                    "description": "Send one action to the environment, in its text grammar.",
                    "parameters": {
                        "type": "object",
                        "properties": {"action": {"type": "string", "description": "the action"}},
                        "required": ["action"],
                        "additionalProperties": False,
                    },
                },
            }
        ]

    def action_from_tool_call(self, name: str, arguments: dict[str, Any]) -> str:
        """Turn a validated tool call into the env's action text.

        Raise ``ValueError`` with a message naming the problem for a call that is wrong; the
        function-calling wrapper turns it into feedback.
        """
        if name != "act":
            raise ValueError(f"unknown tool {name!r}: use 'act'")
        return str(arguments["action"])

    # -- gymnasium API ------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        if options is not None and not isinstance(options, Mapping):
            raise BadTaskError(
                f"reset options must be a dict such as {{'task_id': 0, 'split': 'test'}}, "
                f"got {type(options).__name__}"
            )
        options = dict(options or {})
        unknown = set(options) - {"task_id", "split"} - set(self.extra_reset_options)
        if unknown:
            raise BadTaskError(
                f"unknown reset option(s) {sorted(unknown)}: use 'task_id' and 'split'"
                + "".join(f", {o!r}" for o in self.extra_reset_options)
            )
        split = options.get("split", "train")
        if "task_id" in options and options["task_id"] is not None:
            task_id = options["task_id"]
        else:
            n = self.tasks.size(split) if split in SPLITS else 0
            task_id = int(self.np_random.integers(n)) if n else 0
        self.task = self.tasks.get(split, task_id)
        self.success, self.score, self.done, self.turns = False, 0.0, False, 0
        self.episode += 1
        obs, extra = self._begin(self.task)
        self._last_observation = self._fit(obs)
        return self._last_observation, self._info(extra)

    #: Whether every ``info`` lists ``available_actions``; a family whose enumeration is costly
    #: (SciWorld) turns it off and computes them on request.
    actions_in_info: bool = True

    #: Test tasks that no policy can solve under the original benchmark's rules (kept for
    #: parity); the contract's expert check skips them.
    unsolvable_test_tasks: tuple[int, ...] = ()

    #: Reset options a family accepts besides ``task_id`` and ``split``.
    extra_reset_options: ClassVar[tuple[str, ...]] = ()

    #: Seconds of work one step may use (see :mod:`agentgym_envs.bounds`); ``None``: unbounded.
    step_budget: float | None = bounds.DEFAULT_STEP_BUDGET

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if self.task is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        if self.done:
            return self._feedback(
                "The episode has ended. Call reset() to start a new one.", "episode has ended"
            )
        if not isinstance(action, str):
            return self._feedback(
                f"Invalid action: expected text, got {type(action).__name__}.",
                f"action must be a str, got {type(action).__name__}",
            )
        limit = getattr(self.action_space, "max_length", MAX_ACTION_CHARS)
        if len(action) > limit:
            return self._feedback(
                f"Invalid action: it is {len(action)} characters long, above the limit of "
                f"{limit} characters per action.",
                f"action length {len(action)} is above the limit of {limit} characters",
            )
        self.turns += 1
        try:
            with bounds.step_budget(self.step_budget):
                result = self._act(action)
        except bounds.LimitExceeded as exc:
            return self._feedback(f"Invalid action: {exc}.", str(exc))
        except (MemoryError, RecursionError, OverflowError) as exc:
            # Sizes the agent controls (a huge range, a deep nesting): refuse, don't crash.
            reason = f"{type(exc).__name__}: the action asks for more than this env allows"
            return self._feedback(f"Invalid action: {reason}.", reason)
        if result.terminated:
            self.done = True
        self._last_observation = self._fit(result.observation)
        info = self._info(result.info)
        if result.error is not None:
            info["error"] = result.error
        if result.terminated:
            if self.success:
                info.setdefault("outcome", "success")
            else:
                info.setdefault("outcome", "failure" if result.error is None else "invalid_action")
            info.setdefault("reward_valid", info["outcome"] != "env_error")
        return self._last_observation, float(result.reward), bool(result.terminated), False, info

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self._last_observation
        return None

    # -- helpers --------------------------------------------------------------------------
    def _info(self, extra: dict[str, Any]) -> dict[str, Any]:
        assert self.task is not None
        info: dict[str, Any] = {
            "task_id": self.task.task_id,
            "split": self.task.split,
            "success": bool(self.success),
            "score": float(self.score),
        }
        if self.actions_in_info:
            actions = self.available_actions()
            if actions is not None:
                info["available_actions"] = actions
        info.update(extra)
        return info

    def _fit(self, text: str) -> str:
        """``text`` cut to the declared observation space's length, saying so at the end."""
        limit = getattr(self.observation_space, "max_length", MAX_OBSERVATION_CHARS)
        if len(text) <= limit:
            return text
        note = f"\n[observation truncated: {len(text)} characters, the limit is {limit}]"
        return text[: max(0, limit - len(note))] + note[:limit]

    def _feedback(self, text: str, error: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        info = self._info({})
        info["error"] = error
        return text, 0.0, self.done, False, info

    @property
    def item_id(self) -> str:
        """AgentGym's item id of the current task (``wordle_3``)."""
        assert self.task is not None, "call reset() first"
        index = self.tasks.agentgym_index(self.task.split, self.task.task_id)
        return f"{self.tasks.item_prefix}_{index}"


__all__ = [
    "MAX_ACTION_CHARS",
    "MAX_OBSERVATION_CHARS",
    "OUTCOMES",
    "SPLITS",
    "TEXT_CHARSET",
    "TRUNCATION_OUTCOMES",
    "StepResult",
    "Task",
    "TaskSource",
    "TextEnv",
    "TextSpace",
    "episode_outcome",
    "normalize_text",
    "text_space",
]
