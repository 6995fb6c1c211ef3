"""run_episode says why each episode ended and whether its reward can be trusted."""

from __future__ import annotations

import gymnasium as gym

import agentgym_envs
from agentgym_envs.rollout.episode import Episode, run_episode
from agentgym_envs.wrappers.limits import TurnLimit


def _maze() -> gym.Env:
    return agentgym_envs.make("AgentGym/Maze-v0")


def test_solved_episode_is_a_success() -> None:
    env = _maze()
    episode = run_episode(env, agentgym_envs.expert_policy(env), task_id=3)
    assert episode.success and episode.outcome == "success" and episode.reward_valid


def test_loop_and_wrapper_turn_limits_are_turn_limit() -> None:
    def stay(obs, info):
        return "move nowhere"

    looped = run_episode(_maze(), stay, task_id=3, max_turns=2)
    assert looped.truncation_reason == "max_rounds" and looped.outcome == "turn_limit"
    wrapped = run_episode(TurnLimit(_maze(), 2), stay, task_id=3)
    assert wrapped.truncated and wrapped.outcome == "turn_limit" and wrapped.reward_valid


def test_policy_out_of_context_is_token_limit() -> None:
    class ContextFull(Exception):
        pass

    def policy(obs, info):
        raise ContextFull

    episode = run_episode(_maze(), policy, task_id=3, stop_on={ContextFull: "context_length"})
    assert episode.turns == 0 and episode.outcome == "token_limit" and episode.reward_valid


class _Unscorable(gym.Wrapper):
    """An env whose grader was unreachable on the last step: it says the reward is invalid."""

    def step(self, action):
        obs, reward, _, _, info = self.env.step(action)
        return obs, reward, True, False, {**info, "outcome": "env_error", "reward_valid": False}


def test_env_reported_failure_reaches_the_episode() -> None:
    episode = run_episode(_Unscorable(_maze()), lambda o, i: "move up", task_id=3)
    assert episode.outcome == "env_error" and episode.reward_valid is False


def test_a_loop_of_its_own_closes_the_record_with_finish() -> None:
    env = _maze()
    _, info = env.reset(options={"split": "test", "task_id": 3})
    episode = Episode(task_id=3, split="test")
    episode.truncated, episode.truncation_reason = True, "max_rounds"
    episode.finish(info)
    assert (episode.outcome, episode.reward_valid, episode.score) == ("turn_limit", True, 0.0)
