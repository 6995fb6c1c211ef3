"""Text-to-SQL with the BIRD envs: read a task, explore, submit, and see the safety net.

Run: ``python examples/bird_sql.py [--task 7] [--data-path /data/bird]``

With ``--data-path`` (a BIRD release folder holding ``dev/dev.json`` and
``dev/dev_databases/``) the questions are BIRD's own dev set; otherwise they come from the six
generated databases that ship with the package (built into a cache folder on first use).
"""

from __future__ import annotations

import argparse

import gymnasium as gym

import agentgym_envs  # noqa: F401  (registers the AgentGym/* ids)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", type=int, default=7, help="test task id")
    parser.add_argument("--data-path", default=None, help="a BIRD release folder")
    args = parser.parse_args()
    kwargs = {"data_path": args.data_path} if args.data_path else {}

    env = gym.make("AgentGym/BIRDInteractive-v0", **kwargs)
    obs, info = env.reset(seed=0, options={"split": "test", "task_id": args.task})
    question = obs[obs.index("Question:") :]
    print(f"[{info['db_id']}, {info['difficulty']}]\n{question}\n")

    # Explore: a hostile query is feedback, not a crash.
    for sql in ("DROP TABLE medications", "SELECT name FROM sqlite_master WHERE type = 'table'"):
        obs, reward, _, _, info = env.step(f"Action: ```sql\n{sql}\n```")
        print(f"> {sql}\n{obs}\n")

    # The final answer: here the gold query, so the reward is 1.
    gold = env.unwrapped.task.gold_sql
    obs, reward, _, _, info = env.step(f"Action: submit ```sql\n{gold}\n```")
    print(f"> submit {gold}\n{obs}\nreward {reward}, success {info['success']}")
    env.close()


if __name__ == "__main__":
    main()
