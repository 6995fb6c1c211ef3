"""Maze's rules: AgentGym's layout, start order and texts, walls, goal, cap, generated mazes."""

from __future__ import annotations

import numpy as np
import pytest

from agentgym_envs.envs.maze.env import MazeEnv, describe
from agentgym_envs.envs.maze.layouts import (
    DOUBLE_T,
    DOUBLE_T_GOAL,
    FREE,
    double_t_starts,
    shortest_path,
)
from agentgym_envs.errors import BadTaskError


def _reset(env: MazeEnv, task_id: int):
    return env.reset(options={"split": "test", "task_id": task_id})


def test_starts_are_every_free_cell_but_the_goal_in_agentgym_order():
    starts = double_t_starts()
    free = {tuple(int(v) for v in rc) for rc in np.argwhere(DOUBLE_T == FREE)}
    assert len(starts) == 25 and set(starts) == free - {DOUBLE_T_GOAL}
    # AgentGym walks the left stem down before the right half: (1, 11) then (2, 3).
    assert starts[9:13] == [(1, 11), (2, 3), (3, 3), (4, 3)]
    assert starts[18:20] == [(7, 6), (5, 7)]


def test_first_observation_and_actions_in_agentgym_order():
    env = MazeEnv()
    obs, info = _reset(env, 0)
    assert obs == (
        "The goal is at position 8, 6. Your current position is at position 1, 1. "
        "There are walls to your left, above you, below you."
    )
    assert info["available_actions"] == ["move left", "move right", "move up", "move down"]


def test_two_digit_coordinates_are_written_plainly():
    text = describe(DOUBLE_T, (1, 10), DOUBLE_T_GOAL)
    assert "position 1, 10. There are walls above you, below you." in text
    assert not text.endswith("\n")


def test_wall_blocks_move_and_open_side_moves():
    env = MazeEnv()
    _reset(env, 0)  # (1, 1): walls left, up, down
    for blocked in ("move left", "move up", "move down"):
        obs, reward, terminated, _, info = env.step(blocked)
        assert info["position"] == (1, 1) and reward == 0 and not terminated and "error" not in info
    obs, *_, info = env.step("move right")
    assert info["position"] == (1, 2)
    assert obs.endswith("There are walls above you, below you.")


@pytest.mark.parametrize(
    "action", ["Move right", "move right.", "right", " move right", "move  right"]
)
def test_only_exact_moves_move(action):
    env = MazeEnv()
    before, _ = _reset(env, 0)
    obs, reward, terminated, _, info = env.step(action)
    assert info["position"] == (1, 1) and obs == before and reward == 0 and not terminated
    assert "not a move" in info["error"]


def test_reaching_goal_is_success_with_newline():
    env = MazeEnv()
    _reset(env, double_t_starts().index((7, 6)))
    obs, reward, terminated, _, info = env.step("move down")
    assert (obs, reward, terminated) == ("Success\n", 1.0, True)
    assert info["success"] is True and info["score"] == 1.0 and info["agentgym_reward"] == 1.0


def test_engine_cap_fails_on_the_step_after_50():
    env = MazeEnv()
    _reset(env, 0)
    for _ in range(50):
        obs, reward, terminated, _, info = env.step("move up")
        assert not terminated and obs.startswith("The goal") and info["agentgym_reward"] == 0.0
    obs, reward, terminated, truncated, info = env.step("move right")
    assert (obs, reward, terminated, truncated) == ("Failure\n", 0.0, True, False)
    assert info["agentgym_reward"] == -1.0 and info["success"] is False and info["score"] == 0.0
    assert info["position"] == (1, 1)  # the capped step does not move


def test_engine_cap_counts_invalid_actions_and_can_be_changed():
    env = MazeEnv(max_steps=3)
    _reset(env, 0)
    for action in ("jump", "move up", "Move right"):
        assert not env.step(action)[2]
    assert env.step("move right")[0] == "Failure\n"
    env = MazeEnv(max_steps=None)
    _reset(env, 0)
    assert not any(env.step("move up")[2] for _ in range(200))
    with pytest.raises(ValueError, match="max_steps"):
        MazeEnv(max_steps=0)


def test_item_25_the_goal_cell_is_a_one_line_error():
    tasks = MazeEnv().tasks
    assert tasks.locate(24) == ("test", 24)
    with pytest.raises(BadTaskError) as err:
        tasks.locate(25)
    assert "goal cell" in str(err.value) and "use 0..24" in str(err.value)
    assert "\n" not in str(err.value)
    with pytest.raises(BadTaskError, match="use 0..24"):
        tasks.locate(26)


def test_random_mazes_are_perfect_and_solvable():
    env = MazeEnv(layout="random", rows=5, cols=6)
    for task_id in range(20):
        _reset(env, task_id)
        grid, task = env.task.grid, env.task
        assert grid.shape == (11, 13)
        free = int((grid == FREE).sum())
        # a perfect maze on R*C rooms has R*C rooms + (R*C - 1) open walls
        assert free == 2 * 30 - 1
        assert len(shortest_path(grid, task.start, task.goal)) - 1 >= 6


def test_random_maze_splits_differ_and_are_seeded():
    a, b = MazeEnv(layout="random"), MazeEnv(layout="random")
    a.reset(options={"split": "train", "task_id": 5})
    b.reset(options={"split": "train", "task_id": 5})
    assert np.array_equal(a.task.grid, b.task.grid) and a.task.start == b.task.start
    b.reset(options={"split": "test", "task_id": 5})
    assert not (np.array_equal(a.task.grid, b.task.grid) and a.task.start == b.task.start)


def test_bad_layout_is_clear():
    with pytest.raises(ValueError, match="use 'double_t' or 'random'"):
        MazeEnv(layout="spiral")


def test_render_ansi_draws_the_grid():
    env = MazeEnv(render_mode="ansi")
    _reset(env, 0)
    picture = env.render().splitlines()
    assert (
        picture[2] == "#A....#.....#" and picture[9] == "######G######" and picture[10] == "#" * 13
    )
