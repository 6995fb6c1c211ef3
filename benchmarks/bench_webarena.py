"""WebArena speed and memory: reset, step (with the accessibility tree) and memory per live env.

    python benchmarks/bench_webarena.py            # every test task, 1/5/10 live envs
    python benchmarks/bench_webarena.py --quick    # 8 tasks, 1/5 live envs

Measures, in one run:
* the cold start (sites started, Chromium launched, first reset) once per process;
* ``reset`` (fresh database copy + fresh browser context + start page + tree) and ``step``
  (the expert's actions: clicks, typing, form posts, each followed by the tree) medians;
* the tree alone (CDP ``getFullAXTree`` + ``DOMSnapshot`` + text) median;
* memory: Python process RSS and Chromium's (all its processes, PSS where readable) with 1, 5
  and 10 live envs, each on its own task page; per-env cost = growth / envs.
Goals (issue 15): reset < 1 s, step < 150 ms median, < 150 MB per live env beyond the shared
browser. AgentGym's README: 1 env 1717 MB, 5 envs 4702 MB, 10 envs 8450 MB, 20 envs 16310 MB.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

import psutil

from agentgym_envs.envs.webarena.env import WebArenaEnv
from agentgym_envs.envs.webarena.expert import WebArenaExpert

AGENTGYM_MB = {1: 1717, 5: 4702, 10: 8450, 20: 16310}


def ms(values: list[float]) -> str:
    values = sorted(values)
    return (
        f"median {statistics.median(values) * 1e3:7.1f} ms  p90 "
        f"{values[int(0.9 * (len(values) - 1))] * 1e3:7.1f} ms  (n={len(values)})"
    )


def memory_mb() -> tuple[float, float]:
    """(this process RSS, Chromium's processes PSS/RSS) in MB."""
    me = psutil.Process()
    own = me.memory_info().rss / 2**20
    browser = 0.0
    for child in me.children(recursive=True):
        try:
            if child.name() == "chromium":
                full = child.memory_full_info()
                browser += getattr(full, "pss", full.rss) / 2**20
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return own, browser


def speed(tasks: list[int]) -> None:
    t0 = time.perf_counter()
    env = WebArenaEnv()
    env.reset(options={"split": "test", "task_id": tasks[0]})
    print(f"cold start (sites + Chromium + first reset): {time.perf_counter() - t0:6.2f} s")
    expert = WebArenaExpert(env)
    resets, steps, trees, solved = [], [], [], 0
    for task_id in tasks:
        t0 = time.perf_counter()
        obs, info = env.reset(options={"split": "test", "task_id": task_id})
        resets.append(time.perf_counter() - t0)
        done = False
        while not done:
            action = expert(obs, info)
            t0 = time.perf_counter()
            obs, reward, done, _, info = env.step(action)
            if not done:
                steps.append(time.perf_counter() - t0)
        solved += reward == 1.0
        for _ in range(3):
            t0 = time.perf_counter()
            env._run(env._observe)
            trees.append(time.perf_counter() - t0)
    env.close()
    print(f"expert solved {solved}/{len(tasks)} test tasks")
    print(f"reset        {ms(resets)}")
    print(f"step         {ms(steps)}   (browser action + tree)")
    print(f"tree alone   {ms(trees)}")


def memory(counts: list[int]) -> None:
    gc.collect()
    probe = WebArenaEnv()
    probe.reset(options={"split": "test", "task_id": 0})
    probe.close()
    time.sleep(1.0)
    base_py, base_browser = memory_mb()
    print(
        f"shared: Python process {base_py:6.0f} MB (sites + Playwright), "
        f"Chromium (no page open) {base_browser:6.0f} MB"
    )
    envs: list[WebArenaEnv] = []
    n_test = WebArenaEnv().tasks.size("test")
    for count in counts:
        while len(envs) < count:
            env = WebArenaEnv()
            env.reset(options={"split": "test", "task_id": len(envs) % n_test})
            envs.append(env)
        time.sleep(1.0)
        py, browser = memory_mb()
        total = (py - base_py) + (browser - base_browser)
        ref = AGENTGYM_MB.get(count)
        versus = f"   AgentGym: {ref} MB" if ref else ""
        print(
            f"{count:3d} live envs: +{total:7.1f} MB total, {total / count:6.1f} MB per env "
            f"(Python +{py - base_py:5.1f}, Chromium +{browser - base_browser:6.1f}){versus}"
        )
    for env in envs:
        env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n_test = WebArenaEnv().tasks.size("test")
    speed(list(range(8 if args.quick else n_test)))
    memory([1, 5] if args.quick else [1, 5, 10])


if __name__ == "__main__":
    main()
