"""Benchmark runner overhead, and a full expert sweep of every embedded test split.

    python benchmarks/bench_runner.py                     # every installed id
    python benchmarks/bench_runner.py --envs Maze-v0,Wordle-v0
    python benchmarks/bench_runner.py --skip-sweep        # overhead only

Two measurements (issue 7):

1. **Runner overhead.** :func:`run_benchmark` with the expert (concurrency 1, recording
   AgentTraj conversations to JSONL with a flush per episode) times the envs' own work (make,
   reset, step) and the expert's inside the run; the rest of its wall time is the runner's.
   Goal: the runner adds < 5 % over the envs' own time, in total over all envs. As a cross
   check, the same episodes (tasks, seeds, max rounds) also run in a bare loop (``gym.make``
   once, reset / expert / step); that comparison is noisy on a shared machine. Each side runs
   ``--repeat`` times (alternating order, after a warm-up), the fastest counts.
   Writing the reports (summary JSON, Markdown, the matplotlib PNG) is a once-per-run cost,
   timed on its own.
2. **Full sweep.** :func:`run_benchmark` with the expert over every test split of the chosen ids,
   ``--concurrency`` threads, results to a temporary folder. Goal: under a minute on 2 cores.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path

import gymnasium as gym

from agentgym_envs.benchmarks.agenteval import agenteval_items
from agentgym_envs.benchmarks.policies import expert_spec
from agentgym_envs.benchmarks.report import write_reports
from agentgym_envs.benchmarks.runner import _episode_seed, resolve_envs, run_benchmark
from agentgym_envs.spec import env_info, expert_policy


def bare_loop(env_id: str, items, max_rounds: int, seed: int = 0) -> float:
    """The envs' own cost: make, then reset / expert / step for every item, nothing else."""
    t0 = time.perf_counter()
    env = gym.make(env_id)
    for item in items:
        obs, info = env.reset(
            seed=_episode_seed(seed, item.task_id, 0),
            options={"split": item.split, "task_id": item.task_id},
        )
        policy = expert_policy(env)
        for _ in range(max_rounds):
            obs, _r, terminated, truncated, info = env.step(policy(obs, info))
            if terminated or truncated:
                break
    env.close()
    return time.perf_counter() - t0


def runner_loop(env_id: str, limit: int | None, out: Path):
    return run_benchmark(
        env_id, expert_spec(), out=out, limit=limit, resume=True, progress=False, reports=False
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--envs", default="all", help="ids, 'all' or 'agenteval' (default: all installed)"
    )
    parser.add_argument("--exclude", default="", help="ids to leave out (comma-separated)")
    parser.add_argument(
        "--repeat", type=int, default=3, help="timed runs per side (fastest counts)"
    )
    parser.add_argument(
        "--limit", type=int, default=None, help="tasks per env for the overhead part"
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        default=1,
        help="threads for the full sweep (1 is fastest on 2 cores: SciWorld's JVM uses both)",
    )
    parser.add_argument("--skip-sweep", action="store_true")
    parser.add_argument("--skip-overhead", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    skip = set(resolve_envs(args.exclude)) if args.exclude else set()
    env_ids = [e for e in resolve_envs(args.envs) if e not in skip]
    print(f"envs: {', '.join(e.split('/')[-1] for e in env_ids)}")

    if not args.skip_overhead:
        print(
            "\n== runner overhead (expert, concurrency 1, recording AgentTraj JSONL, flush per episode) =="
        )
        print(
            "in-run: the runner's wall time minus what it measured inside env.make/reset/step and the expert;"
        )
        print(
            "bare loop: the same episodes without the runner (fastest of --repeat, alternating order; noisy on a busy machine)"
        )
        print(
            f"{'env':<20}{'eps':>5}{'env s':>9}{'expert s':>10}{'runner s':>10}{'in-run +':>10}{'per ep':>9}"
            f"{'bare s':>9}{'vs bare':>9}"
        )
        tot = {"env": 0.0, "pol": 0.0, "wall": 0.0, "bare": 0.0, "run": 0.0, "eps": 0}
        with tempfile.TemporaryDirectory(prefix="bench-runner-") as tmp:
            for env_id in env_ids:
                items = agenteval_items(env_id, "test", limit=args.limit)
                rounds = env_info(env_id).max_rounds
                bare_loop(env_id, items[:1], rounds)  # warm caches (e.g. Wordle's opener)
                bares, runs, inrun = [], [], []
                for r in range(args.repeat):
                    out = Path(tmp) / f"{env_id.replace('/', '_')}-{r}"
                    if r % 2:
                        res = runner_loop(env_id, args.limit, out)
                        bares.append(bare_loop(env_id, items, rounds))
                    else:
                        bares.append(bare_loop(env_id, items, rounds))
                        res = runner_loop(env_id, args.limit, out)
                    runs.append(res.wall_time)
                    env_s = res.env_make_time + sum(x["env_time"] for x in res.records)
                    pol_s = sum(x["policy_time"] for x in res.records)
                    inrun.append((res.wall_time - env_s - pol_s, env_s, pol_s, res.wall_time))
                over, env_s, pol_s, wall = min(inrun)
                bare, run = min(bares), min(runs)
                n = len(items)
                for k, v in (
                    ("env", env_s),
                    ("pol", pol_s),
                    ("wall", wall),
                    ("bare", bare),
                    ("run", run),
                    ("eps", n),
                ):
                    tot[k] += v
                print(
                    f"{env_id.split('/')[-1]:<20}{n:>5}{env_s:>9.3f}{pol_s:>10.3f}{wall:>10.3f}{over / (env_s + pol_s):>10.1%}"
                    f"{over / n * 1e3:>7.2f}ms{bare:>9.3f}{(run - bare) / bare:>9.1%}"
                )
        over = tot["wall"] - tot["env"] - tot["pol"]
        print(
            f"{'total':<20}{tot['eps']:>5}{tot['env']:>9.3f}{tot['pol']:>10.3f}{tot['wall']:>10.3f}"
            f"{over / (tot['env'] + tot['pol']):>10.1%}{over / tot['eps'] * 1e3:>7.2f}ms{tot['bare']:>9.3f}"
            f"{(tot['run'] - tot['bare']) / tot['bare']:>9.1%}"
        )
        print(
            f"runner overhead over the envs' own time (make/reset/step): {over / tot['env']:.1%}; "
            f"over env + expert time: {over / (tot['env'] + tot['pol']):.1%} -> goal < 5% "
            f"{'MET' if over <= 0.05 * tot['env'] else 'NOT MET'}"
        )
        with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:
            res = run_benchmark(
                env_ids[0], expert_spec(), out=tmp, limit=2, progress=False, reports=False
            )
            t0 = time.perf_counter()
            write_reports(res.summary, tmp)
            print(
                f"writing the reports once per run (JSON, Markdown, PNG chart): {time.perf_counter() - t0:.2f} s"
            )

    if not args.skip_sweep:
        print(f"\n== full expert sweep of every test split (concurrency {args.concurrency}) ==")
        with tempfile.TemporaryDirectory(prefix="bench-sweep-") as tmp:
            t0 = time.perf_counter()
            res = run_benchmark(
                env_ids, expert_spec(), out=tmp, concurrency=args.concurrency, progress=False
            )
            wall = time.perf_counter() - t0
        for e in res.summary.envs:
            print(
                f"{e.env_id.split('/')[-1]:<22}{e.episodes:>6} episodes  success {e.success_rate:7.1%}  score {e.score:7.3f}  "
                f"episode time {e.wall_time:7.2f} s"
            )
        n = sum(e.episodes for e in res.summary.envs)
        print(
            f"{n} episodes in {wall:.1f} s wall ({n / wall:.0f} episodes/s); goal < 60 s -> {'MET' if wall < 60 else 'NOT MET'}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
