"""The raw-Python path: ``@agent`` on your own loop or policy, recorded as AgentTraj.

Run: ``python examples/agents_raw.py``
"""

from __future__ import annotations

from agentgym_envs import expert_policy
from agentgym_envs.benchmarks import run_benchmark
from agentgym_envs.integrations.raw import agent


@agent
def my_loop(env):
    """Your own loop: the env is pinned to the task being run; every step is recorded."""
    obs, info = env.reset()
    solver = expert_policy(env)  # stands in for your model
    while True:
        obs, _, terminated, truncated, info = env.step(solver(obs, info))
        if terminated or truncated:
            return


@agent(name="go-right")
def go_right(observation, info):
    """A policy: (observation, info) -> action; our loop plays it."""
    return "move right"


def main() -> None:
    record = my_loop.run("Maze-v0", task_id=3)
    print(f"my_loop: {record['item_id']} success={record['success']} turns={record['turns']}")
    result = run_benchmark("Maze-v0", go_right.spec(), limit=5, max_rounds=5, reports=False)
    print(result.summary.to_markdown())


if __name__ == "__main__":
    main()
