"""The core's bounds: action length, observation length, the step budget, size errors."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import agentgym_envs  # noqa: F401  (registers the ids)
from agentgym_envs import bounds
from agentgym_envs.core import MAX_ACTION_CHARS, StepResult
from agentgym_envs.envs.wordle.env import WordleEnv
from agentgym_envs.errors import BadTaskError


class _Spinner(WordleEnv):
    """A Wordle whose step does what the test says (the family's tasks and texts otherwise)."""

    behaviour = "spin"

    def _act(self, action: str) -> StepResult:
        if self.behaviour == "spin":
            while True:
                bounds.checkpoint()
        if self.behaviour == "memory":
            raise MemoryError
        if self.behaviour == "recursion":
            return self._act(action)
        if self.behaviour == "overflow":
            return StepResult(str(10.0 ** int(action)))
        return StepResult("x" * 3_000_000)


def _env(behaviour: str) -> _Spinner:
    env = _Spinner()
    env.behaviour = behaviour
    env.reset(seed=0, options={"task_id": 0})
    return env


def test_oversize_action_is_feedback_naming_the_limit():
    env = gym.make("AgentGym/Wordle-v0").unwrapped
    env.reset(seed=0, options={"task_id": 0})
    obs, reward, terminated, truncated, info = env.step("a" * (MAX_ACTION_CHARS + 1))
    assert str(MAX_ACTION_CHARS) in obs and str(MAX_ACTION_CHARS) in info["error"]
    assert (reward, terminated, truncated) == (0.0, False, False)
    # the episode goes on: an ordinary guess still works
    word = env.random_action(np.random.default_rng(0))
    assert "error" not in env.step(word)[4]


def test_step_budget_stops_pure_python_work():
    env = _env("spin")
    env.step_budget = 0.2
    obs, _, terminated, _, info = env.step("anything")
    assert "budget" in info["error"] and "0.2 s" in obs
    assert not terminated


@pytest.mark.parametrize("behaviour", ["memory", "recursion", "overflow"])
def test_size_errors_become_feedback(behaviour):
    env = _env(behaviour)
    obs, _, _, _, info = env.step("400")
    assert info["error"].startswith(("MemoryError", "RecursionError", "OverflowError"))
    assert obs.startswith("Invalid action")


def test_every_observation_fits_the_declared_space():
    env = _env("huge")
    obs = env.step("x")[0]
    assert env.observation_space.contains(obs)
    assert obs.endswith(f"the limit is {env.observation_space.max_length}]")


def test_reset_options_that_are_not_a_dict_say_so():
    env = gym.make("AgentGym/Wordle-v0").unwrapped
    with pytest.raises(BadTaskError, match="reset options must be a dict"):
        env.reset(options=[("task_id", 0)])


def test_user_regex_runs_under_a_time_limit():
    pattern = bounds.compile_user_regex(r"(a|aa)+$")
    with pytest.raises(bounds.LimitExceeded, match="time limit"):
        bounds.regex_search(pattern, "a" * 60 + "!", timeout=0.2)
    assert bounds.regex_search(bounds.compile_user_regex("b+"), "abba")
    with pytest.raises(bounds.LimitExceeded, match="length"):
        bounds.compile_user_regex("a" * (bounds.MAX_REGEX_CHARS + 1))
    with pytest.raises(ValueError):
        bounds.compile_user_regex("(")
