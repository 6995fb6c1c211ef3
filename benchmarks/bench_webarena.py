"""WebArena speed, scale and difficulty: data build, reset, step, parallel envs, tree sizes.

    python benchmarks/bench_webarena.py                  # every test task, 1/8/32 envs
    python benchmarks/bench_webarena.py --quick          # 8 tasks, 1/8 envs
    python benchmarks/bench_webarena.py --only-parallel  # the parallel comparison alone

Measures, in one run:
* the sites' data build, cold (a fresh cache folder, in a subprocess): seconds and disk size;
* difficulty: the median accessibility-tree size (lines of the observation) and the expert's
  steps to solve, next to WebArena's figures (trees cut to 1,920 tokens by its run.py; 30
  steps at most, AgentGym 25 rounds);
* parallel scale: N envs in one process share one Chromium, each in its own thread playing
  the expert over the test tasks for a fixed time: steps/s in all and CPU per step (this
  process and its browser), at N = 1, 8, 32, for three modes in the same run, each in a fresh
  process: ``before`` (the package as it was at ``--baseline``, by default the commit before
  the shared launch: concurrent first resets each launched a Chromium of their own, and the
  full Chromium build), ``full Chromium`` (this code with ``AGENTGYM_CHROMIUM=/usr/bin/chromium``)
  and ``headless shell`` (this code's default: Debian's ``chromium-headless-shell``);
* the cold start (sites started, Chromium launched, first reset) once per process;
* ``reset`` (fresh database copy + fresh browser context + start page + tree) and ``step``
  (the expert's actions: clicks, typing, form posts, each followed by the tree) medians;
* the tree alone (CDP ``getFullAXTree`` + ``DOMSnapshot`` + text) median;
* memory: Python process RSS and Chromium's (all its processes, PSS where readable) with 1, 5
  and 10 live envs, each on its own task page; per-env cost = growth / envs.
Goals (issue 15): reset < 1 s, step < 150 ms median, < 150 MB per live env beyond the shared
browser. AgentGym's README: 1 env 1717 MB, 5 envs 4702 MB, 10 envs 8450 MB, 20 envs 16310 MB;
WebArena's maintainer measured 3.4-4.7 s a step (web-arena-x/webarena#66).
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil

from agentgym_envs.envs.webarena.env import WebArenaEnv
from agentgym_envs.envs.webarena.expert import WebArenaExpert

AGENTGYM_MB = {1: 1717, 5: 4702, 10: 8450, 20: 16310}
#: The package before envs shared one Chromium launch and used the headless shell.
BASELINE = "999404d47735842f0a554f34fba654a0f61a5329"
ROOT = Path(__file__).resolve().parent.parent
WEBARENA_STEP_S = (3.4, 4.7)


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
            if child.name().startswith("chromium"):
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
    sizes, to_solve = [], []
    for task_id in tasks:
        t0 = time.perf_counter()
        obs, info = env.reset(options={"split": "test", "task_id": task_id})
        resets.append(time.perf_counter() - t0)
        done, n = False, 0
        while not done:
            sizes.append(tree_lines(obs))
            action = expert(obs, info)
            t0 = time.perf_counter()
            obs, reward, done, _, info = env.step(action)
            n += 1
            if not done:
                steps.append(time.perf_counter() - t0)
        solved += reward == 1.0
        to_solve.append(n)
        for _ in range(3):
            t0 = time.perf_counter()
            env._run(env._observe)
            trees.append(time.perf_counter() - t0)
    env.close()
    print(f"expert solved {solved}/{len(tasks)} test tasks")
    print(f"reset        {ms(resets)}")
    print(f"step         {ms(steps)}   (browser action + tree)")
    print(f"tree alone   {ms(trees)}")
    print(
        f"difficulty: median tree {statistics.median(sizes):.0f} lines (max {max(sizes)}; "
        f"WebArena cuts trees at 1,920 tokens), median steps to solve "
        f"{statistics.median(to_solve):.0f} (max {max(to_solve)}; WebArena allows 30, "
        "AgentGym 25 rounds)"
    )


def random_baseline(tasks: list[int], rounds: int = 25) -> None:
    """The random policy (well-formed clicks, typing, scrolls, guessed stops) over the tasks,
    AgentGym's 25 rounds each."""
    import numpy as np

    env = WebArenaEnv()
    rng = np.random.default_rng(0)
    scores = []
    for task_id in tasks:
        env.reset(seed=0, options={"split": "test", "task_id": task_id})
        reward, done, n = 0.0, False, 0
        while not done and n < rounds:
            _, reward, done, _, _ = env.step(env.random_action(rng))
            n += 1
        scores.append(reward if done else 0.0)
    env.close()
    print(f"random policy: mean score {statistics.mean(scores):.3f} over {len(tasks)} test tasks")


def tree_lines(observation: str) -> int:
    """The accessibility tree's lines in an observation (between the tab line and URL:)."""
    body = observation.split("\nURL: ", 1)[0]
    return sum(1 for line in body.splitlines() if line.lstrip().startswith("["))


def build_cold() -> None:
    """The sites' data built in a fresh cache folder, in a fresh process."""
    with tempfile.TemporaryDirectory() as tmp:
        code = (
            "import json; from agentgym_envs.envs.webarena.sites.build import build;"
            "b = build(); print(json.dumps(json.loads((b.root / 'build.json').read_text())))"
        )
        env = {**os.environ, "AGENTGYM_ENVS_CACHE": tmp}
        t0 = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        wall = time.perf_counter() - t0
        facts = json.loads(out.stdout.strip().splitlines()[-1])
        on_disk = subprocess.run(["du", "-sm", tmp], capture_output=True, text=True).stdout
    print(
        f"data build (cold): {facts['seconds']:.1f} s (git repositories "
        f"{facts['repos_seconds']:.1f} s, database {facts['db_seconds']:.1f} s; process "
        f"{wall:.1f} s), {facts['bytes'] / 2**20:.0f} MB of files, {on_disk.split()[0]} MB on "
        f"disk, database {facts['db_bytes'] / 2**20:.0f} MB (copied per episode)"
    )


def _play(
    k: int,
    count: int,
    ready: threading.Barrier,
    stop: threading.Event,
    totals: list[int],
    n_test: int,
) -> None:
    """Env ``k`` of ``count``: reset once (warm-up), wait for the others, then the expert over
    the test tasks until ``stop``; its steps counted in ``totals[k]``."""
    env = WebArenaEnv(action_timeout=120)
    expert = WebArenaExpert(env)
    task = k
    obs, info = env.reset(options={"split": "test", "task_id": task % n_test})
    ready.wait()
    while not stop.is_set():
        done = False
        while not done and not stop.is_set():
            obs, _, done, _, info = env.step(expert(obs, info))
            totals[k] += 1
        task += count
        if not stop.is_set():
            obs, info = env.reset(options={"split": "test", "task_id": task % n_test})
    env.close()


def tree_cpu() -> dict[int, float]:
    """CPU seconds so far of this process and each of its descendants (the browser's)."""
    me = psutil.Process()
    out = {}
    for proc in [me, *me.children(recursive=True)]:
        try:
            times = proc.cpu_times()
            out[proc.pid] = times.user + times.system
        except psutil.Error:
            continue
    return out


def run_threads(count: int, seconds: float, start_at: float | None = None) -> dict[str, float]:
    """Steps ``count`` envs (threads, one Chromium) take in ``seconds`` once every env has
    had its first reset (from ``start_at``, an epoch time, when given: the processes of a
    multi-process run start together), the CPU seconds this process and its browser spent
    meanwhile, and how many times Chromium was launched."""
    from agentgym_envs.envs.webarena.browser import host

    n_test = WebArenaEnv().tasks.size("test")
    ready = threading.Barrier(count + 1)
    stop = threading.Event()
    totals = [0] * count
    with ThreadPoolExecutor(count) as pool:
        jobs = [pool.submit(_play, k, count, ready, stop, totals, n_test) for k in range(count)]
        ready.wait()
        if start_at is not None:
            time.sleep(max(0.0, start_at - time.time()))
        before, cpu_before = sum(totals), tree_cpu()
        time.sleep(seconds)
        steps, cpu_after = sum(totals) - before, tree_cpu()
        stop.set()
        for job in jobs:
            job.result()
    cpu = sum(v - cpu_before.get(pid, 0.0) for pid, v in cpu_after.items())
    return {"steps": steps, "cpu": cpu, "launches": host().launches}


def parallel_processes(count: int, processes: int, seconds: float) -> None:
    """Steps per second with ``count`` envs spread over ``processes`` processes, each with its
    own sites and Chromium (a vector env of subprocesses, or Ray workers)."""
    start_at = time.time() + 120.0  # every process warmed up by then
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--worker",
                str(count // processes),
                "--seconds",
                str(seconds),
                "--start-at",
                str(start_at),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(processes)
    ]
    steps = 0
    for worker in workers:
        out, _ = worker.communicate()
        steps += json.loads(out.strip().splitlines()[-1])["steps"]
    rate = steps / seconds
    print(
        f"{count:3d} envs in {processes} processes (a Chromium each): {rate:6.1f} steps/s in "
        f"all, {rate / count:5.2f} per env"
    )


def export(ref: str, into: str) -> str | None:
    """The package as it was at git ``ref``, unpacked under ``into``; None without git or
    the commit (a shallow clone)."""
    try:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", ref, "agentgym_envs"],
            capture_output=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into


def worker(count: int, seconds: float, path: str | None = None, chromium: str | None = None):
    """``run_threads`` in a fresh process (its own sites and Chromium), with the package
    from ``path`` and the browser ``chromium`` where given."""
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = path
    if chromium is not None:
        env["AGENTGYM_CHROMIUM"] = chromium
    out = subprocess.run(
        [sys.executable, __file__, "--worker", str(count), "--seconds", str(seconds)],
        env=env,
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        raise RuntimeError(f"the benchmark worker failed: {out.stderr.strip()[-500:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def parallel(counts: list[int], seconds: float, baseline: str) -> None:
    """Steps per second and CPU per step with N envs (threads) in one process, for each mode
    (see the module docstring), every measurement in a fresh process."""
    from agentgym_envs.browser import SYSTEM_CHROMIUMS

    print(f"machine: {os.cpu_count()} cores (figures scale with its load, printed per line)")
    with tempfile.TemporaryDirectory() as tmp:
        modes: list[tuple[str, str | None, str | None]] = []
        before = export(baseline, tmp)
        if before is None:
            print(f"before: commit {baseline[:9]} not in this clone; that mode is skipped")
        else:
            modes.append((f"before ({baseline[:9]})", before, None))
        shell, full = SYSTEM_CHROMIUMS
        if os.path.exists(full):
            modes.append(("full Chromium", str(ROOT), full))
        if os.path.exists(shell):
            modes.append(("headless shell", str(ROOT), shell))
        for count in counts:
            for name, path, chromium in modes:
                got = worker(count, seconds, path, chromium)
                rate = got["steps"] / seconds
                per_step = got["cpu"] / max(got["steps"], 1) * 1e3
                print(
                    f"{count:3d} envs, {name:19s}: {rate:6.1f} steps/s in all, "
                    f"{rate / count:5.2f} per env, {per_step:5.0f} ms CPU per step, "
                    f"{got['launches']:2.0f} Chromium launch(es), load "
                    f"{os.getloadavg()[0]:5.1f}"
                )
    print(f"WebArena: {1 / WEBARENA_STEP_S[1]:.2f}-{1 / WEBARENA_STEP_S[0]:.2f} steps/s per env")


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
    parser.add_argument("--seconds", type=float, default=30.0, help="per parallel level")
    parser.add_argument("--only-parallel", action="store_true", help="skip build/speed/memory")
    parser.add_argument(
        "--baseline", default=BASELINE, help="git commit of the 'before' mode (default %(default)s)"
    )
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--start-at", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(run_threads(args.worker, args.seconds, args.start_at)))
        return
    if args.only_parallel:
        parallel([1, 8] if args.quick else [1, 8, 32], args.seconds, args.baseline)
        parallel_processes(8, 2, args.seconds)
        return
    build_cold()
    n_test = WebArenaEnv().tasks.size("test")
    speed(list(range(8 if args.quick else n_test)))
    random_baseline(list(range(8 if args.quick else n_test)))
    memory([1, 8] if args.quick else [1, 8, 32])
    parallel([1, 8] if args.quick else [1, 8, 32], args.seconds, args.baseline)
    parallel_processes(8, 2, args.seconds)


if __name__ == "__main__":
    main()
