"""WebShop in three ways: the text env with the expert, a random baseline, and the web shop.

pip install "agentgym-envs[webshop]"
python examples/webshop.py            # text env
agentgym serve-shop --port 3000       # then open http://127.0.0.1:3000/ in a browser
"""

import gymnasium as gym

import agentgym_envs
from agentgym_envs.benchmarks.policies import random_policy
from agentgym_envs.rollout import run_episode

env = gym.make("AgentGym/WebShop-v0")  # 10,000 generated products, built once per process
expert = agentgym_envs.expert_policy(env)

episode = run_episode(env, expert, task_id=0, split="test", seed=0, max_turns=10)
for obs, action in zip(episode.observations, episode.actions):
    print(obs[:160] + ("..." if len(obs) > 160 else ""))
    print(">", action)
print(f"expert score {episode.score:.2f} in {episode.turns} turns")

scores = [
    run_episode(
        env, random_policy(env, seed=i), task_id=i, split="test", seed=i, max_turns=10
    ).score
    for i in range(20)
]
print(f"random policy mean score over 20 test tasks: {sum(scores) / len(scores):.3f}")
