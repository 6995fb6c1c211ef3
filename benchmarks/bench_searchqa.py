"""SearchQA speed: world generation, BM25 indexing, reset, search step and answer step.

    python benchmarks/bench_searchqa.py           # every test task
    python benchmarks/bench_searchqa.py --quick   # 50 test tasks

AgentGym's own server searches 21M Wikipedia passages with e5 + FAISS (a GPU recommended); its
data cannot be fetched here, so there is no side-by-side figure. Prints one line per figure.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from agentgym_envs.envs.searchqa.env import SearchQAEnv
from agentgym_envs.envs.searchqa.expert import SearchQAExpert
from agentgym_envs.envs.searchqa.world import build_world


def ms(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[int(0.95 * (len(values) - 1))]
    return f"mean {statistics.fmean(values) * 1e3:.3f} / p50 {statistics.median(values) * 1e3:.3f} / p95 {p95 * 1e3:.3f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    out = sys.stdout.write

    t0 = time.perf_counter()
    world = build_world(0)
    out(
        f"world: {len(world.passages)} passages, {len(world.questions)} questions in "
        f"{time.perf_counter() - t0:.2f} s\n"
    )
    env = SearchQAEnv()
    t0 = time.perf_counter()
    env.reset(options={"split": "test", "task_id": 0})
    env.step("<search> x </search>")
    out(f"first reset + first search (BM25 index build): {time.perf_counter() - t0:.2f} s\n")

    expert = SearchQAExpert(env)
    n = 50 if args.quick else env.tasks.size("test")
    resets, searches, answers, solved = [], [], [], 0
    for task_id in range(n):
        t0 = time.perf_counter()
        obs, info = env.reset(options={"split": "test", "task_id": task_id})
        resets.append(time.perf_counter() - t0)
        for _ in range(10):
            action = expert(obs, info)
            t0 = time.perf_counter()
            obs, _, terminated, _, info = env.step(action)
            (searches if action.rstrip().endswith("</search>") else answers).append(
                time.perf_counter() - t0
            )
            if terminated:
                break
        solved += bool(info["success"])
    out(f"expert solved {solved}/{n} test tasks\n")
    out(f"reset:       {ms(resets)}\n")
    out(f"search step: {ms(searches)} ({len(searches)} searches)\n")
    out(f"answer step: {ms(answers)}\n")


if __name__ == "__main__":
    main()
