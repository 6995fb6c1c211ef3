"""The ALFWorld environment."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

from agentgym_envs.core import StepResult, TextEnv
from agentgym_envs.envs.alfworld.tasks import (
    DATA_DIR,
    AlfworldTask,
    GeneratedAlfworldTasks,
    OfficialAlfworldTasks,
    default_data_path,
)
from agentgym_envs.envs.alfworld.world import GRAMMARS, NOTHING, Engine
from agentgym_envs.tools.tool import Tool, Toolkit, param, schema

log = logging.getLogger(__name__)

BACKENDS = ("native", "alfworld")
_SPACES = re.compile(r"\s+")


def agentgym_reset_view(raw: str) -> str:
    """AgentGym's first observation: the banner dropped, room and task joined by one newline."""
    return "\n".join(raw.split("\n\n")[1:])


def agentgym_step_view(raw: str) -> str:
    """AgentGym's ``process_ob``: ``You arrive at loc N. `` (0.3.3 grammar) is cut off."""
    if raw.startswith("You arrive at loc "):
        return raw[raw.find(". ") + 2 :]
    return raw


def with_actions_line(observation: str, actions: list[str]) -> str:
    """What AgentGym's ALFWorld client hands the model as the first turn: its ``observe()``
    appends the admissible commands, comma-joined without spaces, on a line of their own."""
    return f"{observation}\nAVAILABLE ACTIONS: {','.join(actions)}"


def normalize_command(action: str) -> str:
    """Case, surrounding blanks, repeated spaces and a final period do not matter."""
    text = _SPACES.sub(" ", action.strip().lower())
    return text[:-1].rstrip() if text.endswith(".") else text


class AlfWorldEnv(TextEnv):
    """Household tasks in ALFWorld's text world: find, transform and place objects.

    ## Description
    ALFWorld (Shridhar et al., 2021) as AgentGym serves it: a room of receptacles (cabinets,
    countertops, a fridge, ...) holding objects, and one of six tasks -- put an object in a
    receptacle; put two; clean, heat or cool it first; or look at it under a lamp. The native
    engine plays the game as alfworld's TextWorld engine does (same replies, same lists, same
    admissible commands) in pure Python; ``backend="alfworld"`` plays the same task in
    alfworld's own engine.

    ## Action Space
    One admissible command, as listed in ``info["available_actions"]`` (AgentGym's grammar,
    alfworld 0.3.3): ``go to R``, ``open R``, ``close R``, ``take O from R``, ``put O in/on R``,
    ``clean O with R``, ``heat O with R``, ``cool O with R``, ``use O``, ``examine X``,
    ``look``, ``inventory`` (and ``slice O with K``). With ``grammar="0.4.2"``: ``move O to R``
    instead of ``put`` and a ``help`` command. A command that is not admissible replies
    ``Nothing happens.`` (the engine's text) and ``info["error"]`` says why.

    ## Observation Space
    AgentGym's texts: at reset ``You are in the middle of a room. Looking quickly around you,
    you see a cabinet 2, a cabinet 1, ...`` then ``Your task is to: put a hot apple in
    fridge.``, then, as AgentGym's client hands the first turn to the model, a line
    ``AVAILABLE ACTIONS: go to cabinet 1,go to cabinet 2,...,look`` (the admissible commands,
    comma-joined without spaces; the first observation only: later turns are the server's
    text alone). After each command the engine's reply (``You pick up the apple 1 from the
    countertop 1.``, ``On the countertop 1, you see a knife 1.``). ``raw_observations=True``
    gives the engine's texts unchanged (welcome banner, ``You arrive at loc 5.``, no actions
    line).

    ## Starting State
    The agent stands in the middle of the room; openable receptacles are closed.

    ## Rewards
    1 on the step after which the goal holds, else 0 (AgentGym's ``won``).

    ## Episode End
    Terminated when the goal holds. AgentGym's max rounds is 30.

    ## Information
    ``available_actions`` (admissible commands, sorted), ``task_type``, ``goal`` (the task
    line), ``game`` (the task's source), ``success``, ``score``.

    ## Arguments
    ``grammar``: ``"0.3.3"`` (AgentGym's, default) or ``"0.4.2"``. ``backend``: ``"native"``
    (default) or ``"alfworld"`` (needs ``pip install "agentgym-envs[alfworld]"``).
    ``data_path``: an ALFWorld data folder (default ``$ALFWORLD_DATA`` when it holds
    ``json_2.1.1``) to play the official games with AgentGym's index mapping;
    ``mappings_path``: the folder of AgentGym's ``mappings_train.json`` / ``mappings_test.json``
    (default: the data folder or its ``configs``). ``tasks``: ``"auto"``, ``"generated"`` or
    ``"official"``. ``train_size``: generated train tasks (default 2,420).
    ``raw_observations``: the engine's unprocessed texts. ``show_actions``: add the
    ``AVAILABLE ACTIONS:`` line to the first observation (default: unless
    ``raw_observations``).

    ## Version History
    v0: initial release. The first observation gained AgentGym's ``AVAILABLE ACTIONS:`` line
    (``show_actions=False`` gives the server's text alone).
    """

    family = "alfworld"

    def __init__(
        self,
        grammar: str = "0.3.3",
        backend: str = "native",
        data_path: str | Path | None = None,
        mappings_path: str | Path | None = None,
        tasks: str = "auto",
        train_size: int = 2420,
        raw_observations: bool = False,
        show_actions: bool | None = None,
        render_mode: str | None = None,
    ) -> None:
        if grammar not in GRAMMARS:
            raise ValueError(f"unknown ALFWorld grammar {grammar!r}: use '0.3.3' or '0.4.2'")
        if backend not in BACKENDS:
            raise ValueError(f"unknown ALFWorld backend {backend!r}: use 'native' or 'alfworld'")
        if tasks not in ("auto", "generated", "official"):
            raise ValueError(
                f"unknown task source {tasks!r}: use 'auto', 'generated' or 'official'"
            )
        if tasks != "generated" and data_path is None:
            env_path = default_data_path()
            if env_path and (
                tasks == "official" or (Path(env_path).expanduser() / DATA_DIR).is_dir()
            ):
                data_path = env_path
        if tasks == "official" and data_path is None:
            raise ValueError(
                "tasks='official' needs data_path= or ALFWORLD_DATA: the ALFWorld data folder"
            )
        if data_path is not None and tasks != "generated":
            source = OfficialAlfworldTasks(data_path, mappings_path)
        else:
            source = GeneratedAlfworldTasks(train_size=train_size)
        super().__init__(source, render_mode=render_mode)
        self.grammar = grammar
        self.backend_name = backend
        self.raw_observations = raw_observations
        self.show_actions = not raw_observations if show_actions is None else bool(show_actions)
        self.engine: Engine | None = None
        self._backend = None
        if backend == "alfworld":
            from agentgym_envs.envs.alfworld.backend import AlfworldBackend

            self._backend = AlfworldBackend(grammar)

    # -- episode ------------------------------------------------------------------------------
    def _begin(self, task: AlfworldTask) -> tuple[str, dict[str, Any]]:
        if self._backend is not None:
            raw = self._backend.start(task)
        else:
            self.engine = Engine(task.scene, task.goal, self.grammar)
            raw = self.engine.intro()
        obs = raw if self.raw_observations else agentgym_reset_view(raw)
        if self.show_actions:
            obs = with_actions_line(obs, self.available_actions() or [])
        return obs, self._extra()

    def _extra(self) -> dict[str, Any]:
        task: AlfworldTask = self.task  # type: ignore[assignment]
        return {"task_type": task.goal.task_type, "goal": task.goal.text, "game": task.game}

    def _act(self, action: str) -> StepResult:
        command = normalize_command(action)
        if self._backend is not None:
            admissible = self._backend.admissible
            raw, won = self._backend.step(command)
        else:
            engine = self.engine
            assert engine is not None
            admissible = engine.commands()
            raw = engine.step(command)
            won = engine.won
        error = None
        if command not in admissible:
            error = f"{command[:80]!r} is not an admissible command now: choose one of info['available_actions']"
            if raw != NOTHING:  # pragma: no cover - both engines answer this way
                log.debug("inadmissible %r answered %r", command, raw)
        obs = raw if self.raw_observations else agentgym_step_view(raw)
        if won:
            self.success, self.score = True, 1.0
        return StepResult(
            obs, reward=1.0 if won else 0.0, terminated=won, error=error, info=self._extra()
        )

    def available_actions(self) -> list[str] | None:
        if self._backend is not None:
            return list(self._backend.admissible)
        if self.engine is None:
            return None
        return self.engine.admissible()

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        return self._last_observation

    def close(self) -> None:
        if self._backend is not None:
            self._backend.close()
        super().close()

    # -- LLM hooks ----------------------------------------------------------------------------
    def instructions(self) -> str:
        put = "move OBJ to RECEP" if self.grammar == "0.4.2" else "put OBJ in/on RECEP"
        return (
            "You are in a household and must complete the task you are given. At the start you see "
            "the receptacles of the room and your task; each turn you send one command and read what "
            "happens. Commands (OBJ and RECEP are names you have seen, with their number, like "
            "'apple 1' or 'countertop 2'):\n"
            "  go to RECEP          walk to a receptacle and see what is on or in it\n"
            "  open RECEP / close RECEP\n"
            "  take OBJ from RECEP  pick an object up (you can hold one thing at a time)\n"
            f"  {put:<20} place the object you hold\n"
            "  clean OBJ with RECEP / heat OBJ with RECEP / cool OBJ with RECEP\n"
            "                       clean at a sinkbasin, heat with a microwave, cool with a fridge\n"
            "  use OBJ              switch on a lamp\n"
            "  examine OBJ / examine RECEP, look, inventory\n"
            "A command that does not apply replies 'Nothing happens.'. To look at an object under a "
            "lamp, hold the object and use the lamp where it stands.\n"
            "Example: 'Your task is to: put a hot apple in fridge.' -> go to countertop 1 -> take apple 1 "
            "from countertop 1 -> go to microwave 1 -> heat apple 1 with microwave 1 -> go to fridge 1 -> "
            f"open fridge 1 -> {put.replace('OBJ', 'apple 1').replace('RECEP', 'fridge 1')}"
        )

    _TOOLS: dict[str, tuple[str, tuple[str, ...]]] = {
        "go_to": ("Walk to a receptacle.", ("receptacle",)),
        "open": ("Open a receptacle.", ("receptacle",)),
        "close": ("Close a receptacle.", ("receptacle",)),
        "take": ("Take an object from a receptacle.", ("object", "receptacle")),
        "put": ("Put the object you hold in or on a receptacle.", ("object", "receptacle")),
        "clean": ("Clean the held object with a sinkbasin.", ("object", "receptacle")),
        "heat": ("Heat the held object with a microwave.", ("object", "receptacle")),
        "cool": ("Cool the held object with a fridge.", ("object", "receptacle")),
        "use": ("Use (switch on) an object such as a lamp.", ("object",)),
        "examine": ("Examine a receptacle or the held object.", ("target",)),
        "look": ("Look around where you stand.", ()),
        "inventory": ("List what you carry.", ()),
    }

    def tool_schemas(self) -> list[dict[str, Any]]:
        def named(p: str) -> dict[str, Any]:
            return param("string", f"the {p}'s name with its number, e.g. 'apple 1'")

        tools = [
            Tool(name, description, parameters=schema(**{p: named(p) for p in params}))
            for name, (description, params) in self._TOOLS.items()
        ]
        return Toolkit(tools).openai_schemas()

    def action_from_tool_call(self, name: str, arguments: dict[str, Any]) -> str:
        if name not in self._TOOLS:
            raise ValueError(f"unknown tool {name!r}: use one of {', '.join(self._TOOLS)}")
        params = self._TOOLS[name][1]
        missing = [p for p in params if not str(arguments.get(p, "")).strip()]
        if missing:
            raise ValueError(f"tool {name!r} needs {', '.join(missing)}")
        a = {p: str(arguments[p]).strip() for p in params}
        if name == "go_to":
            return f"go to {a['receptacle']}"
        if name == "take":
            return f"take {a['object']} from {a['receptacle']}"
        if name == "put":
            if self.grammar == "0.4.2":
                return f"move {a['object']} to {a['receptacle']}"
            return f"put {a['object']} in/on {a['receptacle']}"
        if name in ("clean", "heat", "cool"):
            return f"{name} {a['object']} with {a['receptacle']}"
        if name in ("open", "close"):
            return f"{name} {a['receptacle']}"
        if name == "use":
            return f"use {a['object']}"
        if name == "examine":
            return f"examine {a['target']}"
        return name
