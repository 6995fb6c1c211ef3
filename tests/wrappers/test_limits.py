"""Turn and wall-clock limits, and the horizon curriculum that drives the turn limit."""

from __future__ import annotations

import gymnasium as gym
import pytest

from agentgym_envs.wrappers import (
    SCALING_INTER_PRESETS,
    HorizonCurriculum,
    HorizonSchedule,
    ReAct,
    TurnLimit,
    WallClockLimit,
)
from tests.wrappers.fakes import CounterEnv


def _noop_until_truncated(env: gym.Env, task_id: int = 2, action: str = "noop") -> tuple[int, dict]:
    env.reset(options={"split": "test", "task_id": task_id})
    turns = 0
    while True:
        _, _, terminated, truncated, info = env.step(action)
        turns += 1
        assert not terminated
        if truncated:
            return turns, info


@pytest.mark.parametrize("limit", [1, 2, 5, 13])
def test_turn_limit_truncates_at_exactly_the_configured_turn(limit: int) -> None:
    turns, info = _noop_until_truncated(TurnLimit(CounterEnv(), limit))
    assert turns == limit
    assert info["truncation_reason"] == "turn_limit"
    assert (info["success"], info["score"], info["task_id"]) == (False, 0.0, 2)


def test_turn_limit_counts_from_each_reset() -> None:
    env = TurnLimit(CounterEnv(), 3)
    for _ in range(3):
        assert _noop_until_truncated(env)[0] == 3


def test_terminating_on_the_last_turn_is_not_truncation() -> None:
    env = TurnLimit(CounterEnv(), 2)
    env.reset(options={"split": "test", "task_id": 0})  # target 2
    env.step("inc")
    _, reward, terminated, truncated, info = env.step("inc")
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert "truncation_reason" not in info and info["success"]


def test_truncating_step_keeps_success_and_score() -> None:
    # Partial progress, then cut: success/score are the env's (False / 0.0) and progress passes.
    env = TurnLimit(CounterEnv(), 2)
    env.reset(options={"split": "test", "task_id": 2})
    env.step("inc")
    _, _, _, truncated, info = env.step("inc")
    assert truncated and info["progress"] == pytest.approx(0.5)
    assert info["success"] is False and info["score"] == 0.0


def test_limit_outside_react_counts_malformed_replies() -> None:
    env = TurnLimit(ReAct(CounterEnv(), parser="strict"), 3)
    env.reset(options={"split": "test", "task_id": 2})
    env.step("no action here")
    env.step("Action: a\nAction: b")
    _, _, _, truncated, info = env.step("Thought: fine\nAction: noop")
    assert truncated and info["truncation_reason"] == "turn_limit"
    assert env.unwrapped.turns == 1


@pytest.mark.parametrize(
    "env_id, rounds",
    [("AgentGym/Wordle-v0", 8), ("AgentGym/Maze-v0", 15), ("AgentGym/MazeRandom-v0", 40)],
)
def test_default_turn_limit_is_agentgym_max_rounds_from_registry(env_id: str, rounds: int) -> None:
    assert TurnLimit(gym.make(env_id)).max_turns == rounds
    assert TurnLimit(ReAct(gym.make(env_id))).max_turns == rounds


def test_default_for_unregistered_env_is_15() -> None:
    assert TurnLimit(CounterEnv()).max_turns == 15


def test_engine_cap_from_registry_is_reported() -> None:
    env = TurnLimit(gym.make("AgentGym/Maze-v0", max_episode_steps=4), 10)
    turns, info = _noop_until_truncated(env, 0, "move up")
    assert turns == 4 and info["truncation_reason"] == "max_episode_steps"


@pytest.mark.parametrize("bad", [0, -3, 2.5, "8", True])
def test_bad_turn_limit_is_named(bad) -> None:
    with pytest.raises(ValueError, match=f"max_turns must be an int >= 1, got {bad!r}"):
        TurnLimit(CounterEnv(), bad)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_wall_clock_truncates_once_budget_is_spent() -> None:
    clock = FakeClock()
    env = WallClockLimit(CounterEnv(), 300, clock=clock)
    env.reset(options={"split": "test", "task_id": 2})
    clock.now += 299.0
    _, _, _, truncated, info = env.step("noop")
    assert not truncated and info["elapsed_seconds"] == pytest.approx(299.0)
    clock.now += 1.0
    _, _, terminated, truncated, info = env.step("inc")
    assert truncated and not terminated and info["truncation_reason"] == "wall_clock"
    assert (info["outcome"], info["reward_valid"]) == ("time_limit", True)
    assert (info["success"], info["score"]) == (False, 0.0)
    env.reset(options={"split": "test", "task_id": 2})  # the budget restarts
    _, _, _, truncated, info = env.step("noop")
    assert not truncated and info["elapsed_seconds"] == 0.0


def test_wall_clock_default_and_bad_values() -> None:
    assert WallClockLimit(CounterEnv()).max_seconds == 300.0
    for bad in (0, -1, float("inf"), "300", None):
        with pytest.raises(ValueError, match="max_seconds must be a finite number > 0"):
            WallClockLimit(CounterEnv(), bad)
    with pytest.raises(TypeError, match="clock"):
        WallClockLimit(CounterEnv(), 5, clock=3.0)


def test_first_limit_reached_gives_the_reason() -> None:
    clock = FakeClock()
    env = WallClockLimit(TurnLimit(CounterEnv(), 2), 10, clock=clock)
    env.reset(options={"split": "test", "task_id": 2})
    env.step("noop")
    clock.now += 50
    _, _, _, truncated, info = env.step("noop")
    assert truncated and info["truncation_reason"] == "turn_limit"
    assert info["outcome"] == "turn_limit"  # the first limit's reason is the outcome too


def test_make_llm_env_ends_a_truncated_episode_with_its_outcome() -> None:
    from agentgym_envs.wrappers import make_llm_env

    env = make_llm_env("AgentGym/Maze-v0", max_rounds=2)
    env.reset(seed=0, options={"split": "test", "task_id": 0})
    env.step("Thought: hm\nAction: move up")
    _, _, terminated, truncated, info = env.step("Thought: hm\nAction: move up")
    assert truncated and not terminated
    assert (info["truncation_reason"], info["outcome"]) == ("turn_limit", "turn_limit")


# -- horizon curriculum -------------------------------------------------------------------


def test_schedule_matches_agentgym_rl_stepwise_scheduler() -> None:
    schedule = HorizonSchedule([10, 20, 30], 100)
    assert schedule.count == 1  # AgentGym-RL's global step starts at 1
    seen = {}
    for step in range(1, 301):
        assert schedule.set_step(step) == schedule.rounds_at(step)
        seen.setdefault(schedule.current, step)
    assert seen == {10: 1, 20: 100, 30: 200}
    assert schedule.set_step(10_000) == 30


def test_schedule_step_advances() -> None:
    schedule = HorizonSchedule([6, 13, 20], 100)
    assert schedule.current == 6
    schedule.step(98)
    assert schedule.current == 6
    assert schedule.step() == 13


def test_presets_are_agentgym_rl_schedules() -> None:
    assert SCALING_INTER_PRESETS["textcraft"] == ((10, 20, 30), 100)
    assert SCALING_INTER_PRESETS["babyai"] == ((6, 13, 20), 100)
    assert SCALING_INTER_PRESETS["sciworld"] == ((10, 20, 30), 100)
    assert SCALING_INTER_PRESETS["searchqa"] == ((5, 8, 10), 100)
    assert SCALING_INTER_PRESETS["webarena"] == ((8, 12, 15), 80)
    webarena = HorizonSchedule.preset("WebArena")
    assert (webarena.rounds, webarena.interval, webarena.set_step(80)) == ((8, 12, 15), 80, 12)
    with pytest.raises(
        ValueError, match="unknown ScalingInter-RL preset 'babyia': did you mean 'babyai'"
    ):
        HorizonSchedule.preset("babyia")


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"rounds": []}, "rounds must be a non-empty list"),
        ({"rounds": [10, 0]}, "each of rounds must be an int >= 1, got 0"),
        ({"rounds": [10], "interval": 0}, "interval must be an int >= 1, got 0"),
        ({"rounds": [10], "unit": "epoch"}, "unit='epoch'"),
        ({"rounds": [10], "start": -1}, "start must be an int >= 0, got -1"),
    ],
)
def test_bad_schedules_are_named(kwargs, fragment) -> None:
    with pytest.raises(ValueError, match=fragment.replace("[", r"\[")):
        HorizonSchedule(**kwargs)


def test_curriculum_drives_turn_limit_by_training_step() -> None:
    schedule = HorizonSchedule([2, 4], interval=10)
    env = HorizonCurriculum(CounterEnv(), schedule)
    assert _noop_until_truncated(env)[0] == 2
    schedule.set_step(10)  # the trainer advances; the next episode gets the longer horizon
    turns, info = _noop_until_truncated(env)
    assert turns == 4 and info["truncation_reason"] == "turn_limit"
    assert env.set_global_step(1) == 2
    assert _noop_until_truncated(env)[0] == 2


def test_limit_does_not_change_mid_episode() -> None:
    schedule = HorizonSchedule([2, 4], interval=10)
    env = HorizonCurriculum(CounterEnv(), schedule)
    _, info = env.reset(options={"split": "test", "task_id": 2})
    assert info["horizon"] == 2
    schedule.set_step(50)
    env.step("noop")
    assert env.step("noop")[3]


def test_curriculum_per_episode_and_shared_between_envs() -> None:
    schedule = HorizonSchedule([1, 3], interval=4, unit="episode")
    envs = [HorizonCurriculum(CounterEnv(), schedule) for _ in range(2)]
    horizons = [
        envs[i % 2].reset(options={"split": "test", "task_id": 2})[1]["horizon"] for i in range(6)
    ]
    assert horizons == [1, 1, 1, 1, 3, 3]


def test_curriculum_auto_uses_family_preset() -> None:
    env = CounterEnv()
    env.family = "babyai"  # pretend: only the family name matters for the preset
    assert HorizonCurriculum(env).max_turns == 6
    with pytest.raises(ValueError, match="unknown ScalingInter-RL preset 'counter'"):
        HorizonCurriculum(CounterEnv())


def test_curriculum_in_sync_vector_env_via_call() -> None:
    envs = gym.vector.SyncVectorEnv(
        [lambda: HorizonCurriculum(CounterEnv(), [2, 5], interval=100) for _ in range(2)]
    )
    envs.call("set_global_step", 150)
    assert list(envs.get_attr("max_turns")) == [2, 2]
    envs.reset(options={"split": "test", "task_id": 2})
    assert list(envs.get_attr("max_turns")) == [5, 5]
