"""Speed of AgentGym/BabyAI-v0: reset and macro-step latency against raw minigrid in the same run.

    python benchmarks/bench_babyai.py                  # the 90 test tasks, 20 turns each
    python benchmarks/bench_babyai.py --tasks 40 --turns 30

A macro step ("go to red ball 1") runs several minigrid steps plus path planning and the text
view. Baselines measured here: minigrid's own ``reset`` and low-level ``step`` (unwrapped, no
text). AgentGym's BabyAI server, measured in reference/agentgym.md, took 12 ms median and
58 ms p95 per step over HTTP. Target: macro step median under 1 ms.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from agentgym_envs.envs.babyai.env import BabyAIEnv
from agentgym_envs.envs.babyai.expert import BabyAIExpert
from agentgym_envs.envs.babyai.levels import make_level

AGENTGYM_STEP_MS = (12.0, 58.2)  # median, p95 (reference/agentgym.md)


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def row(name: str, times: list[float], extra: str = "") -> None:
    print(
        f"{name:34} {statistics.median(times) * 1e3:9.3f} {pct(times, 0.95) * 1e3:9.3f} "
        f"{len(times) / sum(times):11.0f} {len(times):7d}  {extra}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=90, help="test tasks to play (max 90)")
    parser.add_argument("--turns", type=int, default=20, help="turns per episode (AgentGym: 20)")
    args = parser.parse_args(argv)
    env = BabyAIEnv()
    expert = BabyAIExpert(env)
    rng = np.random.default_rng(0)
    resets, expert_steps, random_steps = [], [], []
    low_expert, low_random = [], []
    raw_resets, raw_steps = [], []
    levels: dict[str, object] = {}
    for policy, times, lows in (
        ("expert", expert_steps, low_expert),
        ("random", random_steps, low_random),
    ):
        for task in range(args.tasks):
            t = env.tasks.get(
                "test", task
            )  # baseline: minigrid's own reset of the same level and seed
            mg = levels.get(t.level) or levels.setdefault(t.level, make_level(t.level))
            t0 = time.perf_counter()
            mg.reset(seed=t.seed)
            raw_resets.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            obs, info = env.reset(seed=task, options={"split": "test", "task_id": task})
            resets.append(time.perf_counter() - t0)
            for _ in range(args.turns):
                action = expert(obs, info) if policy == "expert" else env.random_action(rng)
                before = env.mg.step_count
                t0 = time.perf_counter()
                obs, _, terminated, _, info = env.step(action)
                times.append(time.perf_counter() - t0)
                lows.append(env.mg.step_count - before)
                if terminated:
                    break
    # baseline: minigrid's low-level step, same levels and seeds, no text
    for task in range(args.tasks):
        t = env.tasks.get("test", task)
        mg = levels[t.level]
        mg.reset(seed=t.seed)
        for _ in range(60):
            a = int(rng.integers(6))
            t0 = time.perf_counter()
            mg.step(a)
            raw_steps.append(time.perf_counter() - t0)
    print(f"{'measure':34} {'p50 ms':>9} {'p95 ms':>9} {'per second':>11} {'n':>7}")
    print("-" * 78)
    row("reset (ours, text + actions)", resets)
    row("reset (raw minigrid)", raw_resets)
    row(
        "macro step, expert actions",
        expert_steps,
        f"{np.mean(low_expert):.1f} low-level steps each",
    )
    row(
        "macro step, random valid actions",
        random_steps,
        f"{np.mean(low_random):.1f} low-level steps each",
    )
    row("low-level step (raw minigrid)", raw_steps)
    med = statistics.median(expert_steps + random_steps) * 1e3
    print("-" * 78)
    print(
        f"macro step median {med:.3f} ms: target < 1 ms {'met' if med < 1 else 'MISSED'}; "
        f"{AGENTGYM_STEP_MS[0] / med:.0f}x faster than AgentGym's server median ({AGENTGYM_STEP_MS[0]} ms), "
        f"p95 {AGENTGYM_STEP_MS[1] / (pct(expert_steps + random_steps, 0.95) * 1e3):.0f}x "
        f"({AGENTGYM_STEP_MS[1]} ms)"
    )
    per_low = sum(expert_steps + random_steps) / max(1, sum(low_expert + low_random))
    print(
        f"cost per low-level step inside macros {per_low * 1e3:.3f} ms vs raw minigrid "
        f"{statistics.fmean(raw_steps) * 1e3:.3f} ms (mean)"
    )


if __name__ == "__main__":
    main()
