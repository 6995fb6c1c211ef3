"""Speed and memory of every registered env: reset/step latency, steps/s, RSS per instance.

    python benchmarks/bench_envs.py                    # every installed id
    python benchmarks/bench_envs.py --ids Wordle-v0 Maze-v0 --steps 5000 --instances 1000

Step latency is the env's own ``step`` (the expert's thinking time is excluded). The
in-process baseline is the same env behind ``gymnasium.make``'s default wrappers, so the ratio
shows what the wrapper stack costs; AgentGym's own HTTP servers, measured in
reference/agentgym.md, took 3-5 ms per step for Maze, Wordle and TextCraft and 12 ms for BabyAI.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time

import gymnasium as gym

import agentgym_envs
from agentgym_envs.spec import ENV_INFO, resolve_id

AGENTGYM_STEP_MS = {"wordle": 4.6, "maze": 3.1, "textcraft": 4.2, "babyai": 12.0}


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def measure(env: gym.Env, steps: int, split: str) -> dict[str, float]:
    base = env.unwrapped
    expert = agentgym_envs.expert_policy(env)
    n_tasks = base.tasks.size(split)
    step_t: list[float] = []
    reset_t: list[float] = []
    task = 0
    t0 = time.perf_counter()
    obs, info = env.reset(seed=0, options={"split": split, "task_id": 0})
    reset_t.append(time.perf_counter() - t0)
    turns = 0
    while len(step_t) < steps:
        action = expert(obs, info)
        t0 = time.perf_counter()
        obs, _, terminated, truncated, info = env.step(action)
        step_t.append(time.perf_counter() - t0)
        turns += 1
        if terminated or truncated or turns >= 200:
            task = (task + 1) % n_tasks
            t0 = time.perf_counter()
            obs, info = env.reset(seed=task, options={"split": split, "task_id": task})
            reset_t.append(time.perf_counter() - t0)
            turns = 0
    return {
        "step_p50_us": statistics.median(step_t) * 1e6,
        "step_p95_us": pct(step_t, 0.95) * 1e6,
        "steps_per_s": len(step_t) / sum(step_t),
        "reset_p50_us": statistics.median(reset_t) * 1e6,
        "reset_p95_us": pct(reset_t, 0.95) * 1e6,
        "resets": len(reset_t),
    }


def memory_per_instance(env_id: str, n: int) -> float:
    gc.collect()
    envs = [gym.make(env_id).unwrapped for _ in range(2)]  # warm caches shared per process
    for e in envs:
        e.reset(seed=0, options={"split": "test", "task_id": 0})
    gc.collect()
    before = rss_bytes()
    envs = []
    for i in range(n):
        e = gym.make(env_id).unwrapped
        e.reset(seed=i, options={"split": "test", "task_id": i % e.tasks.size("test")})
        envs.append(e)
    gc.collect()
    return (rss_bytes() - before) / n


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", nargs="*", help="env ids (default: every installed id)")
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--instances", type=int, default=1000)
    parser.add_argument("--split", default="test")
    args = parser.parse_args(argv)
    ids = (
        [resolve_id(i) for i in args.ids]
        if args.ids
        else [i for i, info in ENV_INFO.items() if info.installed]
    )
    header = (
        f"{'env id':34} {'step p50 us':>11} {'p95 us':>9} {'steps/s':>10} {'reset p50 us':>12} "
        f"{'p95 us':>9} {'KB/instance':>11} {'wrapped/raw':>11} {'vs AgentGym':>11}"
    )
    print(header)
    print("-" * len(header))
    for env_id in ids:
        raw = measure(gym.make(env_id).unwrapped, args.steps, args.split)
        wrapped = measure(gym.make(env_id), args.steps, args.split)
        kb = memory_per_instance(env_id, args.instances) / 1024 if args.instances else float("nan")
        family = ENV_INFO[env_id].family
        ref = AGENTGYM_STEP_MS.get(family)
        vs = f"{ref * 1000 / raw['step_p50_us']:.0f}x" if ref else "-"
        print(
            f"{env_id:34} {raw['step_p50_us']:11.1f} {raw['step_p95_us']:9.1f} {raw['steps_per_s']:10.0f} "
            f"{raw['reset_p50_us']:12.1f} {raw['reset_p95_us']:9.1f} {kb:11.1f} "
            f"{wrapped['step_p50_us'] / raw['step_p50_us']:10.2f}x {vs:>11}"
        )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
