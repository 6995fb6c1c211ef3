import gymnasium as gym

import agentgym_envs  # noqa: F401  (registers the ids)
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
