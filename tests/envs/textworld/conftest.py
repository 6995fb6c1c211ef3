"""Compile TextWorld's test games once per session."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

import pytest


def _compile(args: tuple[str, int, int]) -> str:
    from agentgym_envs.envs.tw_games.games import compile_game

    return str(compile_game(*args))


@pytest.fixture(scope="session")
def test_games():
    """Every test-split game, compiled into the cache (in two processes when any is missing)."""
    pytest.importorskip("textworld")
    from agentgym_envs.envs.tw_games.env import TextWorldEnv

    tasks = TextWorldEnv().tasks
    jobs = [(t.challenge, t.level, t.seed) for t in (tasks.get("test", i) for i in range(30))]
    with ProcessPoolExecutor(max_workers=2) as pool:
        return list(pool.map(_compile, jobs))
