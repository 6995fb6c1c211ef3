"""The Maze environment."""

from __future__ import annotations

from typing import Any

from agentgym_envs.core import StepResult, TextEnv
from agentgym_envs.envs.maze.layouts import FREE
from agentgym_envs.envs.maze.tasks import DoubleTMazeTasks, MazeTask, RandomMazeTasks
from agentgym_envs.tools.tool import Tool, param, schema

MOVES = {"left": (0, -1), "right": (0, 1), "up": (-1, 0), "down": (1, 0)}
#: The moves in the order AgentGym's ``/available_actions`` lists them.
ACTIONS = [f"move {d}" for d in MOVES]
_ACTION_MOVES = {f"move {d}": delta for d, delta in MOVES.items()}
#: LMRL-Gym's engine cap: the step after this many steps ends the episode with ``Failure``.
MAX_STEPS = 50
SUCCESS_TEXT = "Success\n"
FAILURE_TEXT = "Failure\n"
#: AgentGym's reward when the engine cap ends an episode (the env's own reward is 0).
CAP_REWARD = -1.0
# The wall sides in the order AgentGym's text lists them.
_SIDES = (
    ("to your right", (0, 1)),
    ("to your left", (0, -1)),
    ("above you", (-1, 0)),
    ("below you", (1, 0)),
)


def describe(grid, position: tuple[int, int], goal: tuple[int, int]) -> str:
    """AgentGym's observation: goal, current position, and the sides that have walls.

    Numbers are written plainly (``1, 10``), as AgentGym's server writes them; LMRL-Gym's own
    text spaces the digits (``1, 1 0``), which AgentGym does not use.
    """
    walls = [name for name, (dr, dc) in _SIDES if grid[position[0] + dr, position[1] + dc] != FREE]
    if not walls:
        wall_text = "There are no walls near you."
    elif len(walls) == 1:
        wall_text = f"There is a wall {walls[0]}."
    else:
        wall_text = f"There are walls {', '.join(walls)}."
    return (
        f"The goal is at position {goal[0]}, {goal[1]}. "
        f"Your current position is at position {position[0]}, {position[1]}. {wall_text}"
    )


def parse_move(action: str) -> str | None:
    """The direction of an exact ``move up|down|left|right``, else None (AgentGym's matching:
    ``Move left``, ``move left.`` and ``left`` are not moves)."""
    delta = _ACTION_MOVES.get(action)
    if delta is None:
        return None
    return action.split(" ", 1)[1]


class MazeEnv(TextEnv):
    """Walk a grid maze to its goal, told only your position and the walls around you.

    ## Description
    AgentGym's Maze: LMRL-Gym's ``double_t_maze`` (goal at 8, 6) as AgentGym's LMRL-Gym server
    serves it, with its 25 start cells in its order; or (``layout="random"``) seeded perfect
    mazes for training diversity. Rows grow downwards (``move down`` adds 1 to the first
    coordinate), columns to the right.

    With the default layout, task ``i`` (item ``maze_i``) is AgentGym's ``game`` ``i``, and the
    texts, action matching, rewards and episode end are AgentGym's, byte for byte (checked
    against transcripts recorded from its server, ``tests/fixtures/agentgym/maze.json``).

    ## Action Space
    Exactly ``move up``, ``move down``, ``move left`` or ``move right``, as AgentGym matches
    them: ``Move left``, ``move left.`` or ``left`` are no move. A move into a wall leaves the
    position unchanged; any other text leaves it unchanged too (``info["error"]`` says why).
    Every step counts towards the engine cap.

    ## Observation Space
    ``The goal is at position 8, 6. Your current position is at position 1, 10. There are walls
    above you, below you.`` (AgentGym's text: numbers unspaced, no final newline); on reaching
    the goal ``Success\\n``; at the engine cap ``Failure\\n``.

    ## Starting State
    The task's start cell.

    ## Rewards
    1 on reaching the goal, else 0. At the engine cap AgentGym's server answers -1; the env
    gives 0 (so rewards sum to the score) and puts AgentGym's value in
    ``info["agentgym_reward"]`` (present on every step).

    ## Episode End
    Terminated at the goal, or by the engine cap: after ``max_steps`` (50) steps that did not
    reach the goal, the next step answers ``Failure\\n`` and terminates (LMRL-Gym's rule, as
    AgentGym serves it). AgentGym's max rounds is 15.

    ## Information
    ``available_actions`` (the four moves, in AgentGym's order), ``position``,
    ``agentgym_reward``, ``success``, ``score``.

    ## Arguments
    ``layout``: ``"double_t"`` (default) or ``"random"``; ``rows``/``cols``: rooms of a random
    maze (default 4 x 4); ``max_steps``: the engine cap (default 50, ``None`` for none).

    ## Version History
    v0: AgentGym parity: its start order (``maze_i`` is its ``game`` i), unspaced numbers,
    ``Success\\n``, exact-match actions, the ``Failure\\n`` cap; item 25 (the goal cell, an
    error in AgentGym) is not a task.
    """

    family = "maze"

    def __init__(
        self,
        layout: str = "double_t",
        rows: int = 4,
        cols: int = 4,
        max_steps: int | None = MAX_STEPS,
        render_mode: str | None = None,
    ) -> None:
        if layout == "double_t":
            tasks = DoubleTMazeTasks()
        elif layout == "random":
            tasks = RandomMazeTasks(rows=rows, cols=cols)
        else:
            raise ValueError(f"unknown maze layout {layout!r}: use 'double_t' or 'random'")
        if max_steps is not None and max_steps < 1:
            raise ValueError(f"max_steps must be a positive int or None, got {max_steps!r}")
        super().__init__(tasks, render_mode=render_mode)
        self.layout = layout
        self.max_steps = max_steps
        self.position: tuple[int, int] = (0, 0)
        self.steps = 0  # steps that did not reach the goal, as LMRL-Gym counts them

    def _begin(self, task: MazeTask) -> tuple[str, dict[str, Any]]:
        self.position = task.start
        self.steps = 0
        return describe(task.grid, self.position, task.goal), {"position": self.position}

    def _act(self, action: str) -> StepResult:
        task: MazeTask = self.task  # type: ignore[assignment]
        if self.max_steps is not None and self.steps >= self.max_steps:
            info = {"position": self.position, "agentgym_reward": CAP_REWARD}
            return StepResult(FAILURE_TEXT, reward=0.0, terminated=True, info=info)
        move = parse_move(action)
        error = None
        if move is None:
            error = (
                f"{action.strip()[:60]!r} is not a move: send exactly one of {', '.join(ACTIONS)}"
            )
        else:
            dr, dc = MOVES[move]
            nxt = (self.position[0] + dr, self.position[1] + dc)
            if task.grid[nxt] == FREE:
                self.position = nxt
        if self.position == task.goal:
            self.success, self.score = True, 1.0
            info = {"position": self.position, "agentgym_reward": 1.0}
            return StepResult(SUCCESS_TEXT, reward=1.0, terminated=True, info=info)
        self.steps += 1
        obs = describe(task.grid, self.position, task.goal)
        return StepResult(
            obs, error=error, info={"position": self.position, "agentgym_reward": 0.0}
        )

    def available_actions(self) -> list[str]:
        return list(ACTIONS)

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.task is None:
            return None
        task: MazeTask = self.task  # type: ignore[assignment]
        rows = []
        for r, line in enumerate(task.grid):
            chars = []
            for c, cell in enumerate(line):
                chars.append(
                    "A"
                    if (r, c) == self.position
                    else "G"
                    if (r, c) == task.goal
                    else "#"
                    if cell
                    else "."
                )
            rows.append("".join(chars))
        return self._last_observation + "\n" + "\n".join(rows)

    def instructions(self) -> str:
        return (
            "You are in a maze on a grid and must reach the goal. Positions are given as "
            "(row, column). 'move down' increases the row by 1, 'move up' decreases it, "
            "'move right' increases the column by 1, 'move left' decreases it. Each turn you "
            "are told the goal position, your current position and on which sides there are "
            "walls; you cannot move into a wall.\n"
            "Send exactly one of: move up, move down, move left, move right.\n"
            "Example: 'The goal is at position 8, 6. Your current position is at position 6, 6. "
            "There are walls to your right, to your left.' -> move down"
        )

    def tool_schemas(self) -> list[dict[str, Any]]:
        direction = param("string", enum=MOVES)
        move = Tool("move", "Move one cell in the maze.", parameters=schema(direction=direction))
        return [move.openai_schema()]

    def action_from_tool_call(self, name: str, arguments: dict[str, Any]) -> str:
        if name != "move":
            raise ValueError(f"unknown tool {name!r}: use 'move'")
        return f"move {arguments['direction']}"
