"""Speed of AgentGym/TextCraft-v0: recipe build, reset and step latency, steps/s.

    python benchmarks/bench_textcraft.py               # the 100 test tasks, expert + random play
    python benchmarks/bench_textcraft.py --turns 40

Baselines in the same run: the same env behind ``gymnasium.make``'s wrappers (what the wrapper
stack costs) and a bare dict update (the floor for any inventory step). AgentGym's TextCraft
server, measured in reference/agentgym.md, took 4.2 ms median per step over HTTP.
"""

from __future__ import annotations

import argparse
import statistics
import time

import gymnasium as gym
import numpy as np

import agentgym_envs  # noqa: F401  (registers the ids)
from agentgym_envs.envs.textcraft.expert import TextCraftExpert
from agentgym_envs.envs.textcraft.recipes import from_minecraft_data

AGENTGYM_STEP_MS = 4.2


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def row(name: str, times: list[float]) -> None:
    print(
        f"{name:34} {statistics.median(times) * 1e6:9.1f} {pct(times, 0.95) * 1e6:9.1f} "
        f"{len(times) / sum(times):11.0f} {len(times):7d}"
    )


def play(
    env: gym.Env, turns: int, rng: np.random.Generator
) -> tuple[list[float], list[float], list[float]]:
    base = env.unwrapped
    expert = TextCraftExpert(base)
    resets, expert_steps, random_steps = [], [], []
    for policy, times in (("expert", expert_steps), ("random", random_steps)):
        for task in range(base.tasks.size("test")):
            t0 = time.perf_counter()
            obs, info = env.reset(seed=task, options={"split": "test", "task_id": task})
            resets.append(time.perf_counter() - t0)
            for _ in range(turns):
                action = expert(obs, info) if policy == "expert" else base.random_action(rng)
                t0 = time.perf_counter()
                obs, _, terminated, _, info = env.step(action)
                times.append(time.perf_counter() - t0)
                if terminated:
                    break
    return resets, expert_steps, random_steps


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20, help="turns per episode (AgentGym: 20)")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    from_minecraft_data()
    build = time.perf_counter() - t0
    rng = np.random.default_rng(0)
    play(gym.make("AgentGym/TextCraft-v0").unwrapped, 3, rng)  # warm-up: caches, allocator
    resets, expert_steps, random_steps = play(
        gym.make("AgentGym/TextCraft-v0").unwrapped, args.turns, rng
    )
    _, wrapped_expert, wrapped_random = play(gym.make("AgentGym/TextCraft-v0"), args.turns, rng)
    floor = []
    inventory: dict[str, int] = {}
    for _i in range(20_000):
        t0 = time.perf_counter()
        inventory["oak planks"] = inventory.get("oak planks", 0) + 4
        floor.append(time.perf_counter() - t0)
    print(f"recipe book from minecraft-data: {build * 1e3:.0f} ms (once per process)")
    print(f"{'measure':34} {'p50 us':>9} {'p95 us':>9} {'per second':>11} {'n':>7}")
    print("-" * 74)
    row("reset", resets)
    row("step, expert actions", expert_steps)
    row("step, random actions", random_steps)
    row("step, gymnasium.make wrappers", wrapped_expert + wrapped_random)
    row("baseline: bare dict update", floor)
    med = statistics.median(expert_steps + random_steps) * 1e3
    wrapped = statistics.median(wrapped_expert + wrapped_random) * 1e3
    print("-" * 74)
    print(
        f"step median {med * 1e3:.1f} us; wrappers x{wrapped / med:.2f}; "
        f"{AGENTGYM_STEP_MS / med:.0f}x faster than AgentGym's server median ({AGENTGYM_STEP_MS} ms)"
    )


if __name__ == "__main__":
    main()
