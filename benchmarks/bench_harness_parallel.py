"""Harness episodes per minute at 1, 4 and 8 at once, per harness.

    python benchmarks/bench_harness_parallel.py                        # every installed harness
    python benchmarks/bench_harness_parallel.py --harnesses cline --jobs 1,4 --episodes 4

Each harness plays the first ``--episodes`` Wordle tasks with the family's expert as the model
(one expert chat server, answering in the harness's tool-call format), ``--jobs`` at a time,
through :func:`~agentgym_envs.integrations.harnesses.parallel.run_harness_tasks` -- the real
harness processes, one recording gateway, one session per episode. Each setting runs
``--repeats`` times; printed per harness and setting: episodes per minute (min / median / max
over the repeats), the wall seconds of one episode (min / median / max over every episode),
how many succeeded, and the 1-minute load average before and after. The expert answers
instantly, so the figures are the harness's own cost (its start-up, its prompts, its MCP
calls) on this machine; a real model adds its own time to every call.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from agentgym_envs.agents.harness_expert import HarnessExpertServer
from agentgym_envs.integrations.harnesses import get_harness, names
from agentgym_envs.integrations.harnesses.parallel import run_harness_tasks

ENV = "AgentGym/Wordle-v0"


def spread(values: list[float], digits: int = 1) -> str:
    return "/".join(
        f"{v:.{digits}f}" for v in (min(values), statistics.median(values), max(values))
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--harnesses", default=",".join(names()))
    parser.add_argument("--jobs", default="1,4,8")
    parser.add_argument("--episodes", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=900.0)
    args = parser.parse_args()
    jobs = [int(j) for j in args.jobs.split(",")]
    print(f"{os.cpu_count()} CPU cores; {args.episodes} Wordle episodes per run, expert model")
    print(
        "| harness | at once | episodes/min min/median/max | episode s min/median/max | "
        "success | load before/after |"
    )
    print("|---|---|---|---|---|---|")
    with HarnessExpertServer([ENV]) as expert, tempfile.TemporaryDirectory() as tmp:
        for name in args.harnesses.split(","):
            if get_harness(name).locate() is None:
                print(f"| {name} | - | not installed | | | |")
                continue
            for j in jobs:
                rates, walls, ok, total = [], [], 0, 0
                before = os.getloadavg()[0]
                for repeat in range(args.repeats):
                    out = Path(tmp) / f"{name}-{j}-{repeat}"
                    started = time.monotonic()
                    run = run_harness_tasks(
                        name,
                        ENV,
                        list(range(args.episodes)),
                        expert.base_url,
                        out=out,
                        concurrency=j,
                        timeout=args.timeout,
                    )
                    wall = time.monotonic() - started
                    rates.append(len(run.records) / wall * 60)
                    walls += [r["wall_time"] for r in run.records]
                    ok += sum(bool(r["success"]) for r in run.records)
                    total += len(run.records)
                after = os.getloadavg()[0]
                print(
                    f"| {name} | {j} | {spread(rates)} | {spread(walls)} | {ok}/{total} | "
                    f"{before:.1f}/{after:.1f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
