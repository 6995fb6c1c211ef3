"""The BabyAI environment."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from agentgym_envs.core import StepResult, TextEnv
from agentgym_envs.envs.babyai import view as V
from agentgym_envs.envs.babyai.levels import make_level, reset_level
from agentgym_envs.envs.babyai.tasks import BabyAITask, BabyAITasks
from agentgym_envs.errors import require
from agentgym_envs.tools.tool import Tool, Toolkit, param, schema

NOT_RECOGNIZED = V.NOT_RECOGNIZED
COMPLETED = "\n The task is completed."


def agentgym_goal(mission: str) -> str:
    """The goal text AgentGym shows: minigrid's mission with ``then`` and ``after you``
    rewritten to ``and`` (its server does exactly these two replacements)."""
    return mission.replace("then", "and").replace("after you", "and")


class BabyAIEnv(TextEnv):
    """Carry out a BabyAI mission in a grid world, seeing only the 7x7 cells ahead.

    ## Description
    AgentGym's BabyAI: minigrid's BabyAI levels (40 of them, AgentGym's list and order)
    described in words, played with high-level actions that the env expands into minigrid's
    low-level actions. Missions: go to / pick up / open / put next to, alone or in sequences;
    some need keys for locked doors or blockers moved.

    By default the env reproduces AgentGym's BabyAI server (``agentenv-babyai`` at AgentGym
    commit 3ef9235, which runs minigrid 2.3) on today's minigrid, byte for byte: the same item
    builds the same grid and mission (minigrid 2.3's level parameters are restored where newer
    minigrid changed them), and every observation, action list, refusal text, reward, score
    and episode end is the one AgentGym's server sends. Golden transcripts recorded from
    AgentGym's own server (``tests/fixtures/agentgym/babyai.json``) are replayed by the tests.

    ## Action Space
    AgentGym's actions, matched after lower-casing and stripping the text:
    ``turn left``, ``turn right``, ``move forward`` (offered unless a wall or box is right
    ahead), ``pickup <obj> <n>`` (hands empty), ``drop``, ``go to <obj> <n>``,
    ``go through <open door> <n>``, ``toggle and go through <closed or locked door> <n>``
    (a locked one only while carrying its key), ``toggle`` (a closed door right ahead) and
    any text containing ``check`` (lists the actions). ``<obj>`` is named as the view names
    it (``red ball 1``, ``grey closed door 2``). A macro runs its planned low-level steps
    until one leaves the view unchanged. ``info["available_actions"]`` is the offered list;
    any other action is answered with AgentGym's text (``You cannot pickup red ball 2, as
    there is no path leading to it.``, ``The action is not recognized. Please check valid
    actions.``, ``No change in state.`` for an empty action) and changes nothing.

    AgentGym's server refuses ``toggle`` on a box or an open door (not recognized), which
    leaves some missions unsolvable: a key inside a box (``KeyInBox``, test items 25 and 65)
    and "open" an already open door (test items 36, 38, 39); :attr:`unsolvable_test_tasks`
    lists them. ``toggle_any=True`` (ours, off by default) lets ``toggle`` open a box or close
    an open door right ahead; the action is never listed, so every text stays AgentGym's.

    ## Observation Space
    Reset: ``Your goal: <goal>`` (minigrid's mission with ``then`` and ``after you`` written
    ``and``), a newline, then the view; each step: the view after the action (or the refusal
    text, or the action list for ``check``). The view lists visible objects nearest first,
    numbered per view (``There is a grey key 1 1 steps in front of you and 1 steps to your
    left.``, sentences separated by two spaces), then ``The room has walls around you.``, the
    wall or box straight ahead (``You are facing a wall 3 steps away.``) and what is carried.
    ``\\n The task is completed.`` follows the view when minigrid ends the mission (also when it
    ends it as failed, as AgentGym writes it). Then ``\\nAvailable actions: ["turn left", ...]``
    (``show_actions=False`` drops it).

    ## Starting State
    The task's level generated with the task's seed, as AgentGym's server builds it: item
    ``i`` is level ``i % 40`` of AgentGym's list with seed ``i // 40``.

    ## Rewards
    The reward AgentGym's server returns: minigrid's reward of the last low-level step run
    (``1 - 0.9 * low_level_steps / max_steps`` on the step that completes the mission),
    repeated on refused actions and ``check``. ``info["score"]`` is AgentGym's ``score``, the
    running sum of these rewards (what AgentGym's client reports), so rewards sum to the score.

    ## Episode End
    Terminated as AgentGym's server ends it: when minigrid ends the mission with a reward above
    0.5. A success scoring 0.5 or less, or a failure (a wrong door in a ``Debug`` level), shows
    ``The task is completed.`` but does not end the episode, and minigrid's step budget ends
    nothing either; a turn limit (AgentGym's max rounds: 20) is the wrapper's job.

    ## Information
    ``available_actions``, ``level``, ``seed``, ``mission`` (minigrid's own wording),
    ``item_id``, ``low_level_steps``, ``score`` (every step); ``success`` as everywhere.

    ## Arguments
    ``show_actions``: append the action list to observations (default ``True``).
    ``toggle_any``: see Action Space (default ``False``: AgentGym's rules). ``object_ids``: ``"view"``, the only
    numbering (per view, as AgentGym's server numbers objects).

    ## Version History
    v0: minigrid >= 3; since the AgentGym-parity revision, AgentGym's server reproduced byte for
    byte (levels as in minigrid 2.3, per-view numbering, AgentGym's texts, path planning,
    rewards, score and episode end); the per-episode numbering option was removed.
    """

    family = "babyai"
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    @property
    def unsolvable_test_tasks(self) -> tuple[int, ...]:
        """Test tasks no policy can solve with AgentGym's actions (see Action Space)."""
        return () if self.toggle_any else (25, 36, 38, 39, 65)

    def __init__(
        self,
        object_ids: str = "view",
        show_actions: bool = True,
        toggle_any: bool = False,
        render_mode: str | None = None,
    ) -> None:
        if object_ids != "view":
            raise ValueError(
                f"object_ids {object_ids!r} is not supported: objects are numbered per view "
                "as AgentGym numbers them (object_ids='view')"
            )
        require("minigrid", "babyai")  # fail at make time, with the mend, when the extra is missing
        super().__init__(BabyAITasks(), render_mode=render_mode)
        self.object_ids = object_ids
        self.show_actions = show_actions
        self.toggle_any = toggle_any
        self._levels: dict[str, Any] = {}
        self.mg: Any = None
        self.goal = ""
        self._image: Any = None
        self._view: V.View | None = None
        self._reward = 0.0

    # -- episode ------------------------------------------------------------------------
    def _begin(self, task: BabyAITask) -> tuple[str, dict[str, Any]]:
        mg = self._levels.get(task.level)
        if mg is None:
            mg = self._levels[task.level] = make_level(task.level)
        self.mg = mg
        obs = reset_level(mg, task.seed)
        self.goal = agentgym_goal(mg.mission)
        self._image = obs["image"]
        self._view = V.look(mg, self._image)
        self._reward = 0.0
        return f"Your goal: {self.goal}\n{self._view.text}{self._action_line()}", self._extra()

    def _extra(self) -> dict[str, Any]:
        task: BabyAITask = self.task  # type: ignore[assignment]
        return {
            "level": task.level,
            "seed": task.seed,
            "mission": self.mg.mission,
            "item_id": f"babyai_{task.index}",
            "low_level_steps": int(self.mg.step_count),
        }

    def _act(self, action: str) -> StepResult:
        assert self._view is not None
        text = action.lower().strip()
        view = self._view
        error = None
        if "check" in text:
            reply = V.CHECK_PREFIX + ", ".join(view.actions)
        elif not text:
            reply, error = V.NO_CHANGE, "empty action"
        elif text in view.actions:
            plan = view.actions[text]
            reply = self._run(plan) if plan else V.NO_CHANGE
        elif text == "toggle" and self.toggle_any and self._front_toggles():
            reply = self._run([V.TOGGLE])
        else:
            reply = view.errors.get(text, NOT_RECOGNIZED)
            error = (
                reply if text in view.errors else f"{action.strip()[:60]!r} is not an action here"
            )
        reward = self._reward
        self.score += reward
        return StepResult(
            reply + self._action_line(),
            reward=reward,
            terminated=self.success,
            error=error,
            info=self._extra(),
        )

    def _run(self, plan: list[int]) -> str:
        """Run low-level steps as AgentGym's server does: stop after a step that leaves the
        egocentric image unchanged; the last step's reward and end flag count."""
        mg = self.mg
        last = self._image
        for action in plan:
            obs, reward, ended, _, _ = mg.step(action)
            if np.array_equal(obs["image"], last):
                break
            last = obs["image"]
        self._image = obs["image"]
        self._view = V.look(mg, self._image)
        text = self._view.text
        if ended:
            text += COMPLETED
        self._reward = float(reward)
        done = bool(ended) and self._reward > 0.5
        if self._reward == 1 and not done:
            done = True
            text += COMPLETED
        self.success = done
        return text

    def _front_toggles(self) -> bool:
        """Whether ``toggle`` changes the cell ahead although AgentGym does not offer it."""
        mg = self.mg
        fx, fy = (int(v) for v in mg.front_pos)
        if not (0 <= fx < mg.width and 0 <= fy < mg.height):
            return False
        front = mg.grid.get(fx, fy)
        return front is not None and (
            front.type == "box" or (front.type == "door" and front.is_open)
        )

    def _action_line(self) -> str:
        if not self.show_actions or self._view is None:
            return ""
        return V.action_line(self._view.actions)

    @property
    def view(self) -> V.View | None:
        """What the agent sees now (its text and the actions it offers); None before reset."""
        return self._view

    def available_actions(self) -> list[str]:
        return list(self._view.actions) if self._view is not None else []

    def close(self) -> None:
        for mg in self._levels.values():
            mg.close()
        self._levels.clear()
        super().close()

    # -- rendering and prompts --------------------------------------------------------------
    def render(self) -> Any:
        """``ansi``: the last observation and minigrid's text grid; ``rgb_array``: minigrid's
        full-grid picture (what AgentGym's ``/render`` means to show)."""
        if self.mg is None:
            return None
        if self.render_mode == "rgb_array":
            return self.mg.get_frame(highlight=False, tile_size=32)
        if self.render_mode == "ansi":
            return self._last_observation + "\n\n" + self.mg.pprint_grid()
        return None

    def instructions(self) -> str:
        return (
            "You are an exploration master that wants to finish every goal you are given. Every "
            "round you get an observation of what you see in front of you, and you answer with "
            "one action to accomplish the given goal.\n\n"
            "You can use the following actions:\n"
            "- turn right\n- turn left\n- move forward\n"
            "- go to <obj> <id>: walk up to an object you can see and face it\n"
            "- pickup <obj> <id>: walk up to an object and pick it up (you can carry one object)\n"
            "- drop: put down what you carry, in front of you\n"
            "- go through <door> <id>: <door> must be an open door\n"
            "- toggle and go through <door> <id>: <door> can be a closed door or a locked door. "
            "To open a locked door you need to carry a key of the same color as the door.\n"
            "- toggle: open the closed door right in front of you (a locked one needs its key); "
            "it also opens a box in front of you\n"
            "- check available actions\n"
            "Objects are named as the observation names them, numbered afresh in each view, e.g. "
            "'go to red ball 1', 'pickup grey key 2', 'toggle and go through blue closed door 1'."
        )

    def tool_schemas(self) -> list[dict[str, Any]]:
        def tool(name: str, description: str, arg: str | None = None) -> Tool:
            named = param("string", "as the observation names it, e.g. 'red ball 1'")
            return Tool(name, description, parameters=schema(**({arg: named} if arg else {})))

        return Toolkit(
            [
                tool("turn_left", "Turn 90 degrees to the left."),
                tool("turn_right", "Turn 90 degrees to the right."),
                tool("move_forward", "Move one cell forward."),
                tool("go_to", "Walk up to a visible object and face it.", "object"),
                tool("pickup", "Walk up to a visible object and pick it up.", "object"),
                tool("go_through", "Walk into the doorway of a visible open door.", "door"),
                tool(
                    "toggle_and_go_through",
                    "Open a visible closed (or locked, with its key) door and step in.",
                    "door",
                ),
                tool("toggle", "Open or close the door, or open the box, right in front of you."),
                tool("drop", "Put down the carried object in front of you."),
                tool("check_available_actions", "List the actions you can take now."),
            ]
        ).openai_schemas()

    def action_from_tool_call(self, name: str, arguments: dict[str, Any]) -> str:
        simple = {
            "turn_left": "turn left",
            "turn_right": "turn right",
            "move_forward": "move forward",
            "toggle": "toggle",
            "drop": "drop",
            "check_available_actions": "check available actions",
        }
        if name in simple:
            return simple[name]
        verbs = {
            "go_to": ("go to", "object"),
            "pickup": ("pickup", "object"),
            "go_through": ("go through", "door"),
            "toggle_and_go_through": ("toggle and go through", "door"),
        }
        if name not in verbs:
            raise ValueError(f"unknown tool {name!r}: use one of {', '.join([*simple, *verbs])}")
        verb, arg = verbs[name]
        if not str(arguments.get(arg, "")).strip():
            raise ValueError(f"tool {name!r} needs the argument {arg!r}")
        return f"{verb} {arguments[arg]}"
