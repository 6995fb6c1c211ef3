"""The SciWorld environment: ScienceWorld as AgentGym serves it, on a bare, pooled simulator."""

from __future__ import annotations

import logging
import threading
import weakref
from typing import Any

import numpy as np

from agentgym_envs.core import StepResult, TextEnv
from agentgym_envs.envs.sciworld.java import require_java
from agentgym_envs.envs.sciworld.simulator import (
    GOLD_HEAP_MB,
    Simulator,
    SimulatorError,
    SimulatorPool,
    default_pool,
)
from agentgym_envs.envs.sciworld.tasks import SciWorldTask, SciWorldTasks, gold_data
from agentgym_envs.errors import BadTaskError, require
from agentgym_envs.tools.tool import Tool, param, schema

logger = logging.getLogger(__name__)

#: ScienceWorld's default ``envStepLimit`` (AgentGym keeps it): done once moves exceed it.
STEP_LIMIT = 100
UNKNOWN_ACTION = "No known action matches that input."
SIMPLIFICATIONS = (
    "teleportAction",
    "selfWateringFlowerPots",
    "openContainers",
    "openDoors",
    "noElectricalAction",
)
REWARD_MODES = ("score", "delta")

#: The action grammar AgentGym's SciWorld prompt lists: (template, description).
ACTIONS: tuple[tuple[str, str], ...] = (
    ("open OBJ", "open a container"),
    ("close OBJ", "close a container"),
    ("activate OBJ", "activate a device"),
    ("deactivate OBJ", "deactivate a device"),
    ("connect OBJ to OBJ", "connect electrical components"),
    ("disconnect OBJ", "disconnect electrical components"),
    ("use OBJ", "use a device/item"),
    ("use OBJ on OBJ", "use a device/item on another object"),
    ("look around", "describe the current room"),
    ("look at OBJ", "describe an object in detail"),
    ("look in OBJ", "describe a container's contents"),
    ("read OBJ", "read a note or book"),
    ("move OBJ to OBJ", "move an object to a container"),
    ("pick up OBJ", "move an object to the inventory"),
    ("put down OBJ", "drop an inventory item"),
    ("pour OBJ into OBJ", "pour a liquid into a container"),
    ("dunk OBJ into OBJ", "dunk a container into a liquid"),
    ("mix OBJ", "chemically mix a container"),
    ("go to LOC", "move to a new location"),
    ("eat OBJ", "eat a food"),
    ("flush OBJ", "flush a toilet"),
    ("focus on OBJ", "signal intent on a task object (a wrong focus ends the episode)"),
    ("wait", "take no action for 10 iterations"),
    ("wait1", "take no action for 1 iteration"),
    ("task", "describe the current task"),
    ("inventory", "list your inventory"),
)

_GOLD_CACHE: dict[tuple[str, int], tuple[str, ...]] = {}
_GOLD_LOCK = threading.Lock()
_GOLD_POOL: SimulatorPool | None = None


def gold_actions(task_name: str, variation: int) -> list[str]:
    """ScienceWorld's gold action sequence for a task variation.

    Shipped for every clean test task (``data/gold.json.gz``, made by
    ``scripts/gen_sciworld_gold.py``); any other variation is generated once by the simulator
    in a JVM of its own (0.2-3 s) and kept for the rest of the process.
    """
    key = (task_name, int(variation))
    shipped = gold_data()["gold"].get(f"{task_name}/{int(variation)}")
    if shipped is not None:
        return list(shipped)
    global _GOLD_POOL
    with _GOLD_LOCK:
        if key not in _GOLD_CACHE:
            if _GOLD_POOL is None:
                _GOLD_POOL = SimulatorPool(per_jvm=1, heap=GOLD_HEAP_MB)
            sim = _GOLD_POOL.acquire()
            try:
                sim.load(task_name, variation, gold_path=True)
                _GOLD_CACHE[key] = tuple(sim.gold_actions())
            finally:
                sim.release()
        return list(_GOLD_CACHE[key])


class SciWorldEnv(TextEnv):
    """ScienceWorld's elementary-science tasks, as AgentGym's SciWorld server plays them.

    ## Description
    The agent is in a house with rooms, containers, devices, living things and substances and
    must carry out a science task (boil water, find a living thing, test conductivity, mix a
    paint colour, ...), usually first focusing on the task's object. 23 of ScienceWorld's 30
    tasks (AgentGym leaves out grow-plant, grow-fruit, inclined planes and genetics), thousands
    of variations. Runs the ``scienceworld`` package's simulator (Java) directly: the bare step,
    with valid actions, look, inventory and gold paths computed only when asked, the simulator
    reused across episodes, several simulators per capped-heap JVM.

    ## Action Space
    One action in ScienceWorld's grammar (as AgentGym's prompt lists it), e.g. ``open door to
    kitchen``, ``go to kitchen``, ``pick up thermometer``, ``focus on water``, ``pour cup into
    pot``, ``wait1``. An action the simulator can't match is answered ``No known action matches
    that input.`` (``info["error"]`` set) and costs no time; an ambiguous one is answered with a
    numbered list, and the next action picks the number.

    ## Observation Space
    Reset: the task description, a newline, then the ``look around`` text (exactly AgentGym's
    first observation). Step: the simulator's answer to the action, whatever the action's
    text (Unicode, control characters and empty actions reach the simulator as sent).

    Object order is not fixed by AgentGym's server: it lists the objects of a room (and the
    items of a container) in its JVM's identity-hash order, which depends on the JVM and, in
    the package's own API, can change between loads of the same item. This env runs JVMs
    with constant hash codes (``deterministic=True``), so its order is always the same but
    not always AgentGym's: of the 200 test items, 171 first observations are byte-identical to
    AgentGym's server and 29 hold the same lines in another order (measured against
    AgentGym 3ef9235 on scienceworld 1.2.3). Texts are therefore compared with AgentGym's as
    multisets of lines (``tests/fixtures/agentgym/sciworld.jsonl.gz``).

    ## Starting State
    The chosen task variation, freshly loaded (no simplifications unless asked).

    ## Rewards
    ``reward_mode="score"`` (default, AgentGym's semantics): every step's reward is the current
    ScienceWorld score, 0-100, or -100 after focusing on a wrong object; the episode's reward
    is the last one. ``reward_mode="delta"``: the change in score (sums to the final score).

    ## Episode End
    Terminated when the simulator says the task is complete, when the score is negative (a
    wrong focus), or when the simulator's move count exceeds ``step_limit`` (100, as AgentGym).
    AgentGym's max rounds is 30 (a turn-limit wrapper).

    ## Information
    ``score`` (0-100, -100), ``success`` (score 100), ``moves``, ``task_name``, ``variation``,
    ``item_id`` (AgentGym's ``sciworld_<data_idx>``); ``task_description`` at reset;
    ``agentgym_reward`` at every step (the change in score: the ``reward`` AgentGym's server
    sends beside its ``score``). The reset's ``look around`` can already score (a few
    chemistry-mix, paint and lifespan tasks): ``score`` still starts at 0, as in AgentGym's
    client, but the reset ``info`` carries the server's ``agentgym_score`` and
    ``agentgym_reward`` (that look's score), and the first step's ``agentgym_reward`` counts
    from it, as AgentGym's server does. ``available_actions`` (every valid action,
    ~50 ms each) only with ``include_valid_actions=True``; otherwise call
    :meth:`available_actions` (cached per state). Also :meth:`look`, :meth:`inventory`,
    :meth:`goal_progress`, :meth:`gold_actions`, and AgentGym's extra server replies
    :meth:`action_hint`, :meth:`goals`, :meth:`task_description`, :meth:`object_tree`,
    :meth:`state`.

    ## Arguments
    ``index``: ``"clean"`` (ScienceWorld's train variations / 200 of its test variations, no
    overlap), ``"agentgym"`` (train task id N is AgentGym's ``sciworld_N``, 4,639 items) or
    ``"agentgym_fixed"`` (without task 2-3, AgentTraj-L's numbering). ``simplifications``:
    ScienceWorld's comma-separated simplifications or ``"easy"`` (AgentGym: none).
    ``reward_mode``: ``"score"`` or ``"delta"``. ``step_limit``: the simulator's move limit.
    ``include_valid_actions``: put ``available_actions`` in every ``info``. ``deterministic``:
    run in JVMs with constant identity hash codes (default), so the same task and actions
    always give the same text; ``False`` is ~30 % faster per step but, like the package, lists
    objects in an order that varies between loads. ``pool``: a
    :class:`~agentgym_envs.envs.sciworld.simulator.SimulatorPool` (default: one per process,
    8 simulators per JVM; ``AGENTGYM_SCIWORLD_PER_JVM`` changes the 8).

    What a pool shares: the simulators of one JVM take turns (one call at a time), and a JVM
    that freezes or dies takes every episode on it down -- each of them ends with outcome
    ``env_error`` (``reward_valid=False``) and its next ``reset`` starts on a fresh JVM. For
    episodes that must not fail together, use one simulator per JVM
    (``AGENTGYM_SCIWORLD_PER_JVM=1``, or ``pool=SimulatorPool(per_jvm=1)``): ~200 MB per env.

    ## Version History
    v0: initial release (scienceworld 1.2.3).
    """

    family = "sciworld"
    #: Its calls may wait on a process other envs share (the JVM): an HTTP server must run them
    #: off its event loop, under its per-request deadline.
    shares_process = True

    def __init__(
        self,
        index: str = "clean",
        simplifications: str = "",
        reward_mode: str = "score",
        step_limit: int = STEP_LIMIT,
        include_valid_actions: bool = False,
        deterministic: bool = True,
        pool: SimulatorPool | None = None,
        render_mode: str | None = None,
    ) -> None:
        require("scienceworld", "sciworld")
        require_java()
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"unknown reward_mode {reward_mode!r}: use 'score' or 'delta'")
        self.simplifications = _check_simplifications(simplifications)
        _check_package_version()
        super().__init__(SciWorldTasks(index), render_mode=render_mode)
        self.index = index
        self.reward_mode = reward_mode
        self.step_limit = int(step_limit)
        self.include_valid_actions = bool(include_valid_actions)
        # Valid actions cost ~50 ms per state: only in ``info`` when asked for.
        self.actions_in_info = self.include_valid_actions
        self.deterministic = bool(deterministic)
        self._pool = pool
        self._sim: Simulator | None = None
        self._finalizer: weakref.finalize | None = None
        self._valid: list[str] | None = None
        self._objects: list[str] | None = None
        self.actions_taken: list[str] = []
        self.moves = 0
        #: The score AgentGym's server last reported (from the reset's ``look around`` on).
        self._wire_score = 0.0

    # -- simulator ---------------------------------------------------------------------------
    @property
    def simulator(self) -> Simulator:
        """This env's simulator (acquired from the pool on first use, kept across episodes)."""
        if self._sim is None or self._sim.jvm.closed:
            pool = self._pool or default_pool()
            sim = pool.acquire(self.simplifications, self.deterministic)
            self._sim = sim
            self._finalizer = weakref.finalize(self, sim.release)
        return self._sim

    def close(self) -> None:
        """Hand the simulator back to the pool (its JVM stays up for the next env)."""
        if self._finalizer is not None:
            self._finalizer()
            self._finalizer = None
        self._sim = None
        super().close()

    # -- episode -----------------------------------------------------------------------------
    def _begin(self, task: SciWorldTask) -> tuple[str, dict[str, Any]]:
        try:
            self.simulator.load(task.task_name, task.variation)
        except SimulatorError as exc:  # a JVM that died or froze: once more on a fresh one
            logger.warning("%s; restarting it for this reset", exc)
            self._sim = None
            self.simulator.load(task.task_name, task.variation)
        sim = self.simulator
        description = sim.task_description()
        # AgentGym's reset: load, task description, then "look around" (it takes no time, so
        # the move count stays 0). That look can already score (chemistry-mix 8, paint 20,
        # lifespan 50): AgentGym's server replies with that score and counts its first step's
        # reward from it, while its client starts the episode at 0 (as ``score`` does here).
        out = sim.step("look around")
        self._wire_score = float(out.score)
        self._valid = self._objects = None
        self.actions_taken = []
        self.moves = 0
        info = {
            **self._extra(),
            "task_description": description,
            "agentgym_reward": self._wire_score,
            "agentgym_score": self._wire_score,
        }
        return description + "\n" + out.observation, info

    def _act(self, action: str) -> StepResult:
        self._valid = self._objects = None
        previous = self.score
        try:
            if self._sim is None or self._sim.jvm.closed:  # a fresh JVM would not know the task
                raise SimulatorError("the ScienceWorld JVM of this episode is gone")
            out = self._sim.step(action)
        except SimulatorError as exc:
            reason = f"{exc}: the episode cannot go on; call reset() to start again on a new JVM"
            return StepResult(
                f"Environment error: {reason}.",
                terminated=True,
                error=reason,
                info={**self._extra(), "outcome": "env_error", "reward_valid": False},
            )
        self.actions_taken.append(action)
        self.moves = out.moves
        self.score = float(out.score)
        self.success = out.score >= 100
        done = out.completed or out.moves > self.step_limit or out.score < 0
        reward = float(out.score) if self.reward_mode == "score" else out.score - previous
        info = {**self._extra(), "agentgym_reward": float(out.score) - self._wire_score}
        self._wire_score = float(out.score)
        error = None
        if out.observation.startswith(UNKNOWN_ACTION):
            error = f"no ScienceWorld action matches {action.strip()[:80]!r}: send 'help' for the actions"
        return StepResult(out.observation, reward=reward, terminated=done, error=error, info=info)

    def _extra(self) -> dict[str, Any]:
        task: SciWorldTask = self.task  # type: ignore[assignment]
        info: dict[str, Any] = {
            "moves": self.moves,
            "task_name": task.task_name,
            "variation": task.variation,
        }
        try:
            info["item_id"] = self.item_id
        except BadTaskError:
            pass
        return info

    # -- on demand ---------------------------------------------------------------------------
    def available_actions(self) -> list[str]:
        """Every valid action now (the simulator's enumeration, sorted; cached per state)."""
        if self.task is None:
            return []
        if self._valid is None:
            self._valid = self.simulator.valid_actions()
        return list(self._valid)

    def look(self) -> str:
        """``look around`` without spending a turn."""
        return self.simulator.look()

    def inventory(self) -> str:
        """The agent's inventory without spending a turn."""
        return self.simulator.inventory()

    def goal_progress(self) -> str:
        """The simulator's goal checklist for the current task."""
        return self.simulator.goal_progress()

    # -- AgentGym's extra server endpoints (``agentgym serve`` answers them from these) ------
    def action_hint(self) -> dict[str, list[str]]:
        """AgentGym's ``/action_hint``: the action templates and the objects in view."""
        sim = self.simulator
        return {
            "possible_actions": [str(a) for a in sim.call("getPossibleActions")],
            "possible_objects": [str(o) for o in sim.call("getPossibleObjects")],
        }

    def goals(self) -> dict[str, str]:
        """AgentGym's ``/goals``: the simulator's goal checklist."""
        return {"goals": self.goal_progress()}

    def task_description(self) -> dict[str, str]:
        """AgentGym's ``/task_description``."""
        return {"task_description": self.simulator.task_description()}

    def object_tree(self) -> dict[str, Any]:
        """AgentGym's ``/object_tree``: ScienceWorld's object tree (a JSON object)."""
        import json
        import os
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            message = self.simulator.call("getObjectTree", folder)
            if message:
                raise RuntimeError(f"ScienceWorld has no object tree: {message}")
            with open(os.path.join(folder, "objectTree.json"), encoding="utf-8") as f:
                return {"object_tree": json.load(f)}

    def state(self) -> dict[str, Any]:
        """AgentGym's ``/state``: look, inventory, task, goal progress, the first ten action
        templates and objects, the move count and the episode so far."""
        hint = self.action_hint()
        task: SciWorldTask = self.task  # type: ignore[assignment]
        return {
            "observation": self.look(),
            "inventory": self.inventory(),
            "task_description": self.simulator.task_description(),
            "goal_progress": self.goal_progress(),
            "possible_actions": hint["possible_actions"][:10],
            "possible_objects": hint["possible_objects"][:10],
            "current_moves": self.moves,
            "environment_info": {
                "task_name": task.task_name if task else None,
                "var_num": task.variation if task else None,
                "score": self.score,
                "done": self.done,
            },
        }

    def gold_actions(self) -> list[str]:
        """ScienceWorld's gold action sequence for the current task (from a fresh load)."""
        task: SciWorldTask = self.task  # type: ignore[assignment]
        if task is None:
            raise RuntimeError("call reset() first")
        return gold_actions(task.task_name, task.variation)

    def _visible_objects(self) -> list[str]:
        if self._objects is None:
            self._objects = self.simulator.possible_objects()
        return self._objects

    def random_action(self, rng: np.random.Generator) -> str:
        """A random template of the grammar filled with objects the agent can refer to now."""
        template = ACTIONS[int(rng.integers(len(ACTIONS)))][0]
        objects = self._visible_objects() or ["agent"]
        words = template.split()
        for i, word in enumerate(words):
            if word in ("OBJ", "LOC"):
                words[i] = objects[int(rng.integers(len(objects)))]
        return " ".join(words)

    # -- prompts and tools -------------------------------------------------------------------
    def instructions(self) -> str:
        lines = "\n".join(f"- {t}: {d}" for t, d in ACTIONS)
        return (
            "You are a helpful assistant doing a science experiment in ScienceWorld, a text "
            "world of rooms, containers, devices, substances and living things. Each turn you "
            "send one action and get back what happened. Your task is given in the first "
            "observation. Many tasks ask you to focus on an object first: focusing on a wrong "
            "object fails the task at once, so focus only on what the task names.\n"
            "Available actions (OBJ and LOC are names of objects and places you can see):\n"
            f"{lines}\n"
            "If the answer lists numbered choices (an ambiguous action), reply with the number.\n"
            "Examples: open door to kitchen | go to kitchen | pick up thermometer | "
            "focus on substance in metal pot | move metal pot to stove | activate stove | wait1"
        )

    def tool_schemas(self) -> list[dict[str, Any]]:
        grammar = ", ".join(t for t, _ in ACTIONS)
        act = Tool(
            "act",
            "Send one ScienceWorld action. Grammar: " + grammar + ".",
            parameters=schema(action=param("string", "e.g. 'go to kitchen'")),
        )
        return [act.openai_schema()]

    # -- pickling: a copy gets its own simulator and replays the episode so far --------------
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for key in ("_sim", "_finalizer", "_valid", "_objects"):
            state[key] = None
        if self._pool is not None and self._pool is not default_pool():
            state["_pool"] = None  # a custom pool holds processes: the copy uses the default
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self.task is not None:
            task: SciWorldTask = self.task  # type: ignore[assignment]
            sim = self.simulator
            sim.load(task.task_name, task.variation)
            sim.step_text("look around")
            for action in self.actions_taken:
                sim.step(action)


_VERSION_CHECKED = False


def _check_package_version() -> None:
    """Warn once when the installed scienceworld is not the one the shipped data was made with."""
    global _VERSION_CHECKED
    if _VERSION_CHECKED:
        return
    _VERSION_CHECKED = True
    from importlib.metadata import version

    installed, made_with = version("scienceworld"), gold_data()["scienceworld"]
    if installed != made_with:
        logger.warning(
            "scienceworld %s is installed but SciWorld's task table and gold paths were made with "
            "%s: task ids and the expert may not match (pip install scienceworld==%s)",
            installed,
            made_with,
            made_with,
        )


def _check_simplifications(value: str) -> str:
    if value in ("", "easy"):
        return value
    parts = value.split(",")
    bad = [p for p in parts if p not in SIMPLIFICATIONS]
    if bad:
        raise ValueError(
            f"unknown ScienceWorld simplification(s) {bad}: use 'easy' or a comma-separated "
            f"subset of {', '.join(SIMPLIFICATIONS)}"
        )
    return value


__all__ = ["ACTIONS", "STEP_LIMIT", "SciWorldEnv", "gold_actions"]
