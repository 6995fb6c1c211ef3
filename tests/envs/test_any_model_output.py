"""Parity under any model output: non-ASCII actions reach the game as sent, and every item
index AgentGym's servers accept plays the same task here (reset options and item ids; the
wire is covered by ``tests/server/test_golden_fuzz.py``)."""

from __future__ import annotations

import gymnasium as gym
import pytest

import agentgym_envs  # noqa: F401  (registers the ids)
from agentgym_envs.core import TEXT_CHARSET, text_space
from agentgym_envs.datasets.items import resolve_item
from agentgym_envs.errors import BadTaskError


def _env(env_id: str):
    return gym.make(env_id).unwrapped


def test_text_space_holds_any_text_and_samples_cheaply():
    space = text_space(50)
    for text in ("mov\u00e9 right", "\U0001f642", "\x00\r\u202e", "", "\u4e2d" * 50):
        assert space.contains(text)
    assert not space.contains("x" * 51) and not space.contains(b"move")
    sample = space.sample()
    assert set(sample) <= set(TEXT_CHARSET)
    assert any(not c.isascii() for c in TEXT_CHARSET)


def test_maze_accented_move_is_not_a_move():
    env = _env("AgentGym/Maze-v0")
    first, _ = env.reset(options={"split": "test", "task_id": 3})
    obs, *_ = env.step("mov\u00e9 right")
    assert obs == first  # AgentGym's server: unknown action, the agent stays put
    moved, *_ = env.step("move right")
    assert moved != first


def test_babyai_emoji_is_not_recognised():
    pytest.importorskip("minigrid")
    env = _env("AgentGym/BabyAI-v0")
    env.reset(options={"split": "test", "task_id": 0})
    obs, *_ = env.step("\U0001f642")
    assert obs.startswith("The action is not recognized. Please check valid actions.")


def test_textcraft_echoes_the_action_as_sent():
    env = _env("AgentGym/TextCraft-v0")
    env.reset(options={"split": "test", "task_id": 0})
    obs, *_ = env.step("\u201cinventory.\u201d")
    assert obs == "Could not execute \u201cinventory.\u201d"


def test_wordle_accented_guess_is_invalid():
    env = _env("AgentGym/Wordle-v0")
    env.reset(options={"split": "test", "task_id": 0})
    obs, *_ = env.step("p\u00e1nic")
    assert obs == "invalid word"


def test_babyai_plays_items_past_9999():
    pytest.importorskip("minigrid")
    env = _env("AgentGym/BabyAI-v0")
    for index in (10_000, 123_456, 10**9):
        split, task_id = env.tasks.locate(index)
        assert (split, task_id) == ("train", index - 90)
        env.reset(options={"split": split, "task_id": task_id})
        assert (env.task.index, env.item_id) == (index, f"babyai_{index}")
        assert (env.task.level, env.task.seed) == (
            env.tasks.get("test", index % 40).level,
            index // 40,
        )
    with pytest.raises(BadTaskError, match="negative"):
        env.tasks.locate(-1)
    assert resolve_item("babyai_123456").task_id == 123_456 - 90


def test_wordle_plays_every_seed():
    env = _env("AgentGym/Wordle-v0")
    tasks = env.tasks
    for index in (0, 3498, 3499, 3523, 3524, 10**7):
        split, task_id = tasks.locate(index)
        assert tasks.agentgym_index(split, task_id) == index
        assert tasks.get(split, task_id).seed == index
    assert tasks.locate(-3524) == tasks.locate(3524)  # random.Random(-n) is random.Random(n)
    assert tasks.get("train", 3499).seed == 3524  # train goes on after the test seeds
    env.reset(options={"split": "train", "task_id": 3499})
    assert env.item_id == "wordle_3524"
    assert resolve_item("wordle_99999").task_id == 99999 - 25


def test_maze_and_textcraft_wrap_negative_items_as_agentgym_does():
    maze = _env("AgentGym/Maze-v0").tasks
    assert maze.locate(-26) == maze.locate(0) and maze.locate(-2) == maze.locate(24)
    with pytest.raises(BadTaskError, match="goal cell"):
        maze.locate(-1)
    textcraft = _env("AgentGym/TextCraft-v0").tasks
    assert textcraft.locate(-1) == textcraft.locate(543) == textcraft.locate(1087)
