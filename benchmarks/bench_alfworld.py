"""ALFWorld speed and robustness: native engine vs alfworld's TextWorld engine, same tasks.

    python benchmarks/bench_alfworld.py                  # everything (alfworld backend if installed)
    python benchmarks/bench_alfworld.py --quick          # fewer tasks and episodes
    python benchmarks/bench_alfworld.py --no-backend     # native only

Measures, in one run:
* native reset (a fresh engine for the task; task generation cached, as in steady state, and
  uncached) and native step (the env's ``step``, expert commands, admissible commands recomputed);
* the same with ``backend="alfworld"`` on the same tasks and commands, and the ratios;
* 16 envs stepping in 16 threads give the same transcripts as one env alone;
* RSS over many episodes in one process (it must stay flat).
Goals (issue 8): native reset < 5 ms and step < 0.5 ms median; >= 50x on reset and >= 20x on step.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import threading
import time

import agentgym_envs
from agentgym_envs.benchmarks.policies import random_policy
from agentgym_envs.envs.alfworld.env import AlfWorldEnv
from agentgym_envs.envs.alfworld.tasks import _generated
from agentgym_envs.rollout import run_episode


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def play(env: AlfWorldEnv, task_ids, split="test", max_turns=60):
    """Expert episodes; returns reset times, step times, transcripts."""
    expert = agentgym_envs.expert_policy(env)
    resets, steps, transcripts = [], [], []
    for task_id in task_ids:
        t0 = time.perf_counter()
        obs, info = env.reset(seed=0, options={"split": split, "task_id": task_id})
        resets.append(time.perf_counter() - t0)
        transcript = [obs]
        for _ in range(max_turns):
            action = expert(obs, info)
            t0 = time.perf_counter()
            obs, _reward, terminated, _truncated, info = env.step(action)
            steps.append(time.perf_counter() - t0)
            transcript += [action, obs]
            if terminated:
                break
        transcripts.append(transcript)
    return resets, steps, transcripts


def ms(values) -> str:
    return f"{statistics.median(values) * 1e3:8.3f} ms (p90 {sorted(values)[int(0.9 * len(values))] * 1e3:.3f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-backend", action="store_true")
    parser.add_argument(
        "--episodes", type=int, default=10_000, help="episodes for the memory check"
    )
    args = parser.parse_args()
    n_tasks = 60 if args.quick else 200
    n_backend = 6 if args.quick else 18
    episodes = 2_000 if args.quick else args.episodes

    print(f"python {sys.version.split()[0]}, agentgym-envs {agentgym_envs.__version__}")
    env = AlfWorldEnv(tasks="generated")
    tasks = list(range(n_tasks))
    # uncached: generation + engine build
    cold = []
    for task_id in range(1000, 1000 + n_tasks):
        _generated.cache_clear() if task_id == 1000 else None
        t0 = time.perf_counter()
        env.reset(options={"split": "train", "task_id": task_id})
        cold.append(time.perf_counter() - t0)
    play(env, tasks)  # warm the task cache
    resets, steps, transcripts = play(env, tasks)
    print(f"native  reset (task cached) {ms(resets)}   [goal < 5 ms]")
    print(f"native  reset (generating)  {ms(cold)}")
    print(f"native  step                {ms(steps)}   [goal < 0.5 ms]  over {len(steps)} steps")
    print(
        f"native  expert episodes: {len(transcripts)}, mean turns {statistics.fmean(len(t) // 2 for t in transcripts):.1f}"
    )

    if not args.no_backend:
        try:
            backend = AlfWorldEnv(tasks="generated", backend="alfworld")
        except ImportError as exc:
            print(f"alfworld backend skipped: {exc}")
        else:
            # same tasks, one per task type at least; commands from the native expert
            sample = tasks[:n_backend]
            b_resets, b_steps = [], []
            native_r, native_s = [], []
            for task_id in sample:
                t0 = time.perf_counter()
                backend.reset(options={"split": "test", "task_id": task_id})
                b_resets.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                env.reset(options={"split": "test", "task_id": task_id})
                native_r.append(time.perf_counter() - t0)
                for action in transcripts[task_id][1::2]:
                    t0 = time.perf_counter()
                    backend.step(action)
                    b_steps.append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    env.step(action)
                    native_s.append(time.perf_counter() - t0)
            backend.close()
            r_ratio = statistics.median(b_resets) / statistics.median(native_r)
            s_ratio = statistics.median(b_steps) / statistics.median(native_s)
            print(
                f"alfworld reset              {ms(b_resets)}   on {len(sample)} of the same tasks"
            )
            print(
                f"alfworld step               {ms(b_steps)}   over {len(b_steps)} of the same commands"
            )
            print(f"native  reset / step on those tasks: {ms(native_r)} / {ms(native_s)}")
            print(
                f"ratio   reset {r_ratio:7.0f}x  [goal >= 50x]   step {s_ratio:6.0f}x  [goal >= 20x]"
            )

    # 16 threads, same transcripts as alone
    chunks = [tasks[i::16] for i in range(16)]
    alone = {}
    for chunk in chunks:
        _, _, ts = play(AlfWorldEnv(tasks="generated"), chunk)
        alone.update(zip(chunk, ts))
    together: dict[int, list[str]] = {}
    lock = threading.Lock()

    def worker(chunk):
        _, _, ts = play(AlfWorldEnv(tasks="generated"), chunk)
        with lock:
            together.update(zip(chunk, ts))

    threads = [threading.Thread(target=worker, args=(c,)) for c in chunks]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    same = all(together[k] == alone[k] for k in tasks)
    print(
        f"threads 16 envs x {len(chunks[0])} episodes in {wall:.2f} s: transcripts identical to alone: {same}"
    )

    # memory over many episodes in one process
    env = AlfWorldEnv(tasks="generated")
    rand = random_policy(env, seed=0)
    distinct = min(2420, episodes // 4)  # one pass fills the task cache; measure after it
    gc.collect()
    marks = []
    t0 = time.perf_counter()
    for k in range(episodes):
        run_episode(env, rand, task_id=k % distinct, split="train", seed=k, max_turns=8)
        if k + 1 in (distinct, episodes // 2, episodes):
            gc.collect()
            marks.append((k + 1, rss_mb()))
    took = time.perf_counter() - t0
    growth = marks[-1][1] - marks[0][1]
    print(
        "memory  "
        + ", ".join(f"{n} episodes {mb:.1f} MB" for n, mb in marks)
        + f"  (growth after warm-up {growth:+.1f} MB; {episodes / took:.0f} episodes/s)"
    )
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
