"""BabyAI and TextCraft as AgentGym plays them: an expert transcript of each, plus AgentGym ids.

Run: ``python examples/babyai_textcraft.py [--babyai-item 38] [--textcraft-task 60]``
(``pip install "agentgym-envs[babyai,textcraft]"``).

BabyAI item ``i`` is AgentGym's ``babyai_i``: level ``i % 40`` of its list, seed ``i // 40``.
Each turn is one high-level action that the env expands into minigrid steps; the final reward
is minigrid's time-discounted reward. TextCraft shows the crafting commands and the goal; the
expert fetches base items and crafts each intermediate, one batch per command.
"""

from __future__ import annotations

import argparse

import gymnasium as gym

import agentgym_envs
from agentgym_envs.rollout import run_episode


def show(env_id: str, split: str, task_id: int, max_turns: int) -> None:
    env = gym.make(env_id)
    expert = agentgym_envs.expert_policy(env)
    episode = run_episode(env, expert, task_id=task_id, split=split, seed=0, max_turns=max_turns)
    base = env.unwrapped
    print(f"== {env_id} {split} task {task_id} (AgentGym item {base.item_id})")
    print(episode.observations[0].split("\nAvailable actions")[0])
    for action, obs in zip(episode.actions, episode.observations[1:]):
        print(f"> {action}\n  {obs.split(chr(10) + 'Available actions')[0][:160]}")
    print(f"success {episode.success}, score {episode.score:.4f}, turns {episode.turns}\n")
    env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--babyai-item", type=int, default=38, help="AgentGym item index (babyai_N)"
    )
    parser.add_argument("--textcraft-task", type=int, default=60, help="TextCraft test task id")
    args = parser.parse_args()
    babyai = gym.make("AgentGym/BabyAI-v0").unwrapped
    split, task_id = babyai.tasks.locate(args.babyai_item)
    show("AgentGym/BabyAI-v0", split, task_id, max_turns=60)
    show("AgentGym/TextCraft-v0", "test", args.textcraft_task, max_turns=40)


if __name__ == "__main__":
    main()
