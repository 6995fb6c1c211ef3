import gymnasium as gym

import agentgym_envs
from agentgym_envs.envs.wordle.expert import WordleExpert
from agentgym_envs.rollout import run_episode
from agentgym_envs.rollout.vector import collect, collect_with, make_vector_env


def test_sync_vector_env_returns_strings():
    venv = make_vector_env("AgentGym/Wordle-v0", 2)
    obs, _ = venv.reset(seed=0, options={"split": "test", "task_id": 0})
    assert all(isinstance(o, str) and len(o) > 10 and not set(o) <= {"0"} for o in obs)
    obs, *_ = venv.step(["hello", "crane"])
    assert all(isinstance(o, str) and not set(o) <= {"0"} for o in obs)
    venv.close()


def test_async_vector_env_returns_real_strings():
    venv = make_vector_env("AgentGym/Wordle-v0", 2, asynchronous=True)
    try:
        obs, _ = venv.reset(seed=0, options={"split": "test", "task_id": 1})
        assert all(isinstance(o, str) and not set(o) <= {"0"} for o in obs)
        single, _ = gym.make("AgentGym/Wordle-v0").reset(options={"split": "test", "task_id": 1})
        assert obs[0] == single
        obs, *_ = venv.step(["crane", "crane"])
        assert all(isinstance(o, str) and not set(o) <= {"0"} for o in obs)
    finally:
        venv.close()


def test_collect_expert_matches_run_episode():
    envs = [gym.make("AgentGym/Wordle-v0") for _ in range(3)]
    experts = [WordleExpert(e.unwrapped) for e in envs]
    eps = collect_with(envs, experts, range(7))
    assert [e.task_id for e in eps] == list(range(7))
    assert all(e.success and e.score == 1.0 for e in eps)
    env = gym.make("AgentGym/Wordle-v0")
    ref = run_episode(env, WordleExpert(env.unwrapped), task_id=4)
    assert eps[4].actions == ref.actions and eps[4].rewards == ref.rewards


def test_collect_constant_policy_and_max_turns():
    eps = collect("AgentGym/Wordle-v0", lambda o, i: "zzzzz", [0, 1, 2], num_envs=2, max_turns=3)
    assert len(eps) == 3
    assert all(e.turns <= 3 and not e.success for e in eps)


def test_collect_says_why_each_episode_ended():
    # a Maze expert solves task 3; a policy that never moves is cut by max_turns
    envs = [agentgym_envs.make("AgentGym/Maze-v0") for _ in range(2)]
    experts = [agentgym_envs.expert_policy(e) for e in envs]
    solved = collect_with(envs, experts, [3, 4])
    assert all(e.outcome == "success" and e.reward_valid for e in solved)
    cut = collect("AgentGym/Maze-v0", lambda o, i: "move nowhere", [3, 4], num_envs=2, max_turns=2)
    assert all(
        (e.turns, e.truncated, e.truncation_reason, e.outcome, e.reward_valid)
        == (2, True, "max_rounds", "turn_limit", True)
        for e in cut
    )
    ref = run_episode(
        agentgym_envs.make("AgentGym/Maze-v0"), lambda o, i: "x", task_id=4, max_turns=2
    )
    assert (cut[1].outcome, cut[1].truncation_reason) == (ref.outcome, ref.truncation_reason)


class _Unscorable(gym.Wrapper):
    """An env whose grader was unreachable on its first step: it says the reward is invalid."""

    def step(self, action):
        obs, reward, _, _, info = self.env.step(action)
        return obs, reward, True, False, {**info, "outcome": "env_error", "reward_valid": False}


def test_collect_carries_an_env_reported_failure():
    eps = collect(
        lambda: _Unscorable(agentgym_envs.make("AgentGym/Maze-v0")),
        lambda o, i: "move up",
        [3, 4, 5],
        num_envs=2,
    )
    assert [(e.turns, e.outcome, e.reward_valid) for e in eps] == [(1, "env_error", False)] * 3
