"""SciWorld: our env vs the ``scienceworld`` package's own API, side by side in one run.

    python benchmarks/bench_sciworld.py                 # full run (~6-10 min on 2 cores)
    python benchmarks/bench_sciworld.py --quick         # smaller samples

What is measured (the package's numbers are the baseline, measured in the same run):

* step: the package's ``env.step`` (what AgentGym's server calls: the action, then look,
  inventory, task description and every valid action) vs our ``env.step``, on the same tasks
  and the same actions (random valid non-focus actions, drawn from the package's valid list);
* reset: AgentGym's reset on the package (``load`` + task description + ``step("look around")``)
  vs our ``reset``, on the same random AgentGym items;
* memory per live env: one package env = one JVM (default options) vs ``--per-jvm`` of our
  envs in one pooled JVM, each env loaded and stepped 20 times;
* flat memory: one of our envs over ``--episodes`` episodes (reset + 5 steps each), JVM RSS
  and live heap after a full GC sampled every 10 % of the run.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

import numpy as np

from agentgym_envs.envs.sciworld.env import SciWorldEnv
from agentgym_envs.envs.sciworld.simulator import SimulatorPool
from agentgym_envs.envs.sciworld.tasks import SciWorldTasks, agentgym_items


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return (
        f"median {statistics.median(ms):7.1f} ms  mean {statistics.fmean(ms):7.1f} ms  "
        f"p90 {pct(ms, 0.9):7.1f} ms  (n={len(ms)})"
    )


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def package_env():
    from scienceworld import ScienceWorldEnv

    return ScienceWorldEnv("", envStepLimit=100)


def package_reset(env, name: str, var: int) -> str:
    env.load(name, var, "")
    description = env.get_task_description()
    obs, _, _, _ = env.step("look around")
    return description + "\n" + obs


def bench_step_and_reset(args, theirs, ours: SciWorldEnv) -> dict[str, float]:
    rng = np.random.default_rng(0)
    index = SciWorldTasks("agentgym")
    items = agentgym_items()
    ids = [int(i) for i in rng.choice(len(items), size=args.tasks, replace=False)]
    t_step: list[float] = []
    o_step: list[float] = []
    t_reset: list[float] = []
    o_reset: list[float] = []
    f_step: list[float] = []
    f_reset: list[float] = []
    ours_agentgym = SciWorldEnv(index="agentgym", pool=ours._pool)
    fast = SciWorldEnv(index="agentgym", pool=ours._pool, deterministic=False)
    # warm the JVMs up on a task outside the sample
    package_reset(theirs, "boil", 1)
    ours_agentgym.reset(options={"split": "train", "task_id": 1})
    fast.reset(options={"split": "train", "task_id": 1})
    for data_idx in ids:
        name, var = items[data_idx]
        assert index.get("train", data_idx).task_name == name
        started = time.perf_counter()
        package_reset(theirs, name, var)
        t_reset.append(time.perf_counter() - started)
        started = time.perf_counter()
        ours_agentgym.reset(options={"split": "train", "task_id": data_idx})
        o_reset.append(time.perf_counter() - started)
        started = time.perf_counter()
        fast.reset(options={"split": "train", "task_id": data_idx})
        f_reset.append(time.perf_counter() - started)
        actions = []
        _, _, _, info = theirs.step("look around")
        for _ in range(args.steps):
            valid = [a for a in info["valid"] if not a.startswith("focus")]
            action = str(valid[int(rng.integers(len(valid)))])
            started = time.perf_counter()
            _, _, done, info = theirs.step(action)
            t_step.append(time.perf_counter() - started)
            actions.append(action)
            if done:
                break
        for action in actions:
            started = time.perf_counter()
            _, _, terminated, _, _ = ours_agentgym.step(action)
            o_step.append(time.perf_counter() - started)
            if terminated:
                break
        for action in actions:
            started = time.perf_counter()
            _, _, terminated, _, _ = fast.step(action)
            f_step.append(time.perf_counter() - started)
            if terminated:
                break
    ours_agentgym.close()
    fast.close()
    print(f"\nstep ({len(ids)} AgentGym items x up to {args.steps} random valid actions)")
    print(f"  package env.step : {summary(t_step)}")
    print(f"  ours env.step    : {summary(o_step)}")
    print(f"  ours, deterministic=False: {summary(f_step)}")
    step_ratio = statistics.median(t_step) / statistics.median(o_step)
    print(
        f"  speed-up: median {step_ratio:.1f}x, mean "
        f"{statistics.fmean(t_step) / statistics.fmean(o_step):.1f}x, "
        f"p90 {pct(t_step, 0.9) / pct(o_step, 0.9):.1f}x  "
        f"(deterministic=False: median {statistics.median(t_step) / statistics.median(f_step):.1f}x)"
    )
    print(f"\nreset (AgentGym's: load + task description + look around; {len(ids)} items)")
    print(f"  package : {summary(t_reset)}")
    print(f"  ours    : {summary(o_reset)}")
    print(f"  ours, deterministic=False: {summary(f_reset)}")
    reset_ratio = statistics.median(t_reset) / statistics.median(o_reset)
    print(
        f"  speed-up: median {reset_ratio:.1f}x, mean "
        f"{statistics.fmean(t_reset) / statistics.fmean(o_reset):.1f}x  "
        f"(deterministic=False: median {statistics.median(t_reset) / statistics.median(f_reset):.1f}x)"
    )
    return {"step": step_ratio, "reset": reset_ratio}


def _exercise(step, reset, task_id: int, rng) -> None:
    reset(task_id)
    for _ in range(20):
        step(
            ["look around", "open door", "wait1", "inventory", "look at agent"][
                int(rng.integers(5))
            ]
        )


def bench_memory(args) -> tuple[float, float]:
    rng = np.random.default_rng(1)
    items = agentgym_items()
    n_theirs = args.package_envs
    theirs = [package_env() for _ in range(n_theirs)]
    for i, env in enumerate(theirs):
        name, var = items[(i * 997) % len(items)]
        _exercise(env.step, lambda _t, e=env, n=name, v=var: package_reset(e, n, v), 0, rng)
    their_rss = [rss_mb(env._gateway.java_process.pid) for env in theirs]
    for env in theirs:
        env.close()
    pool = SimulatorPool(per_jvm=args.per_jvm)
    ours = [SciWorldEnv(index="agentgym", pool=pool) for _ in range(args.per_jvm)]
    for i, env in enumerate(ours):
        task_id = (i * 997) % len(items)
        _exercise(
            env.step,
            lambda t, e=env: e.reset(options={"split": "train", "task_id": t}),
            task_id,
            rng,
        )
    our_total = pool.rss_mb()
    per_env = our_total / len(ours)
    their_per_env = statistics.fmean(their_rss)
    print("\nmemory per live env (each env loaded + 20 steps)")
    print(
        f"  package: {n_theirs} envs = {n_theirs} JVMs, RSS "
        f"{', '.join(f'{r:.0f}' for r in their_rss)} MB -> {their_per_env:.0f} MB per env"
    )
    print(
        f"  ours   : {len(ours)} envs in 1 JVM (heap cap {pool.heap} MB), RSS {our_total:.0f} MB "
        f"-> {per_env:.0f} MB per env"
    )
    print(f"  lighter: {their_per_env / per_env:.1f}x")
    for env in ours:
        env.close()
    pool.close()
    return per_env, their_per_env / per_env


def bench_flat_memory(args) -> float:
    pool = SimulatorPool(per_jvm=1)
    env = SciWorldEnv(index="agentgym", pool=pool)
    rng = np.random.default_rng(2)
    n_items = len(agentgym_items())
    jvm = None
    samples = []
    every = max(1, args.episodes // 10)
    started = time.perf_counter()
    for episode in range(1, args.episodes + 1):
        env.reset(options={"split": "train", "task_id": int(rng.integers(n_items))})
        for _ in range(5):
            env.step(env.random_action(rng))
        if episode == 1 or episode % every == 0:
            jvm = env.simulator.jvm
            runtime = jvm.gateway.jvm.java.lang.Runtime.getRuntime()
            jvm.gateway.jvm.java.lang.System.gc()
            heap = (runtime.totalMemory() - runtime.freeMemory()) / 2**20
            gc.collect()
            samples.append((episode, jvm.rss_mb(), heap, rss_mb_self()))
    elapsed = time.perf_counter() - started
    print(
        f"\nflat memory: one env, {args.episodes} episodes (reset + 5 random steps), {elapsed:.0f}s"
    )
    print("  episode   JVM RSS MB   live heap MB   Python RSS MB")
    for episode, rss, heap, py in samples:
        print(f"  {episode:7d}   {rss:10.0f}   {heap:12.1f}   {py:13.0f}")
    growth = samples[-1][2] - samples[1][2] if len(samples) > 2 else 0.0
    print(f"  live heap change after warm-up: {growth:+.1f} MB")
    env.close()
    pool.close()
    return growth


def rss_mb_self() -> float:
    import os

    return rss_mb(os.getpid())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller samples")
    parser.add_argument("--tasks", type=int, default=12)
    parser.add_argument("--steps", type=int, default=25)
    parser.add_argument("--per-jvm", type=int, default=8)
    parser.add_argument("--package-envs", type=int, default=4)
    parser.add_argument("--episodes", type=int, default=1000)
    args = parser.parse_args()
    if args.quick:
        args.tasks, args.steps, args.package_envs, args.episodes = 5, 15, 2, 200
    print("SciWorld: ours vs the scienceworld package's API (same run, same tasks and actions)")
    pool = SimulatorPool(per_jvm=1)
    ours = SciWorldEnv(pool=pool)
    theirs = package_env()
    ratios = bench_step_and_reset(args, theirs, ours)
    theirs.close()
    ours.close()
    pool.close()
    per_env, lighter = bench_memory(args)
    growth = bench_flat_memory(args)
    print(
        f"\nsummary: step {ratios['step']:.1f}x faster (median), reset {ratios['reset']:.1f}x faster "
        f"(median), {per_env:.0f} MB per pooled env ({lighter:.1f}x lighter), live heap "
        f"{growth:+.1f} MB over {args.episodes} episodes"
    )


if __name__ == "__main__":
    main()
