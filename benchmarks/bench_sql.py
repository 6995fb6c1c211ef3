"""Speed of the BIRD SQL envs: fresh build, first and later resets, query steps.

    python benchmarks/bench_sql.py                 # defaults: 2 passes over the 200 test tasks
    python benchmarks/bench_sql.py --passes 5

Figures printed:
* fresh machine: a new process with an empty cache folder builds the six databases and the
  question set, then makes the env and resets it (imports included);
* resets: the first reset per database (schema inspection through SQLAlchemy) and later ones;
* steps: answering with the gold SQL (execute + compare with the cached gold result) and an
  exploratory query in the interactive env, against a baseline measured in the same run: the
  same SQL on a plain ``sqlite3`` connection with ``fetchall()`` (what AgentGym's sqlgym does,
  without its HTTP round trip), so the ratio is the cost of the safety layer and scoring;
* a runaway query's interruption time against its time limit.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

FRESH = r"""
import json, resource, sys, time
t0 = time.perf_counter()
from agentgym_envs.envs.sql import build
from agentgym_envs.envs.sql.env import BirdSQLEnv
t_import = time.perf_counter()
build.ensure_databases(sys.argv[1])
t_db = time.perf_counter()
build.ensure_questions(sys.argv[1])
t_q = time.perf_counter()
env = BirdSQLEnv(cache_dir=sys.argv[1])
env.reset(seed=0, options={"split": "test", "task_id": 0})
t_reset = time.perf_counter()
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"import": t_import - t0, "databases": t_db - t_import, "questions": t_q - t_db,
                  "first_reset": t_reset - t_q, "total": t_reset - t0, "cpu": ru.ru_utime + ru.ru_stime}))
"""


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def ms(values: list[float]) -> str:
    return f"p50 {statistics.median(values) * 1e3:7.3f} ms   p95 {pct(values, 0.95) * 1e3:7.3f} ms   (n={len(values)})"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passes", type=int, default=2, help="passes over the test tasks")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [sys.executable, "-c", FRESH, tmp], capture_output=True, text=True, check=True
        )
        fresh = json.loads(out.stdout.strip().splitlines()[-1])
    print("fresh machine (new process, empty cache):")
    print(
        f"  imports {fresh['import']:.2f} s, build 6 databases {fresh['databases']:.2f} s, "
        f"questions {fresh['questions']:.2f} s, env + first reset {fresh['first_reset']:.2f} s "
        f"-> first reset after {fresh['total']:.2f} s wall, {fresh['cpu']:.2f} s CPU (target < 5 s; wall time "
        "exceeds CPU time only when other processes compete for the cores)"
    )

    from agentgym_envs.envs.sql.env import BirdSQLEnv, parse_action
    from agentgym_envs.envs.sql.expert import SQLExpert

    t0 = time.perf_counter()
    env = BirdSQLEnv()
    print(f"env construction on a warm cache: {(time.perf_counter() - t0) * 1e3:.1f} ms")
    n = env.tasks.size("test")
    first_per_db: list[float] = []
    resets: list[float] = []
    answer: list[float] = []
    baseline: list[float] = []
    seen: set[str] = set()
    expert = SQLExpert(env)
    for p in range(args.passes):
        for i in range(n):
            t0 = time.perf_counter()
            obs, info = env.reset(seed=i, options={"split": "test", "task_id": i})
            dt = time.perf_counter() - t0
            if env.task.db_id not in seen:
                seen.add(env.task.db_id)
                first_per_db.append(dt)
            elif p > 0:
                resets.append(dt)
            action = expert(obs, info)
            if p > 0:  # gold results are cached after the first pass, as in a training run
                t0 = time.perf_counter()
                _, reward, *_ = env.step(action)
                answer.append(time.perf_counter() - t0)
                assert reward == 1.0
                con = sqlite3.connect(env.task.db_path)
                t0 = time.perf_counter()
                con.execute(parse_action(action)[1]).fetchall()
                baseline.append(time.perf_counter() - t0)
                con.close()
            else:
                env.step(action)

    ienv = BirdSQLEnv(interactive=True)
    rng = np.random.default_rng(0)
    explore: list[float] = []
    explore_base: list[float] = []
    for i in range(n):
        ienv.reset(options={"split": "test", "task_id": i})
        sql = ienv.random_query(rng)
        t0 = time.perf_counter()
        ienv.step(sql)
        explore.append(time.perf_counter() - t0)
        con = sqlite3.connect(ienv.task.db_path)
        t0 = time.perf_counter()
        try:
            con.execute(sql).fetchall()
        except sqlite3.Error:
            pass
        explore_base.append(time.perf_counter() - t0)
        con.close()

    print("resets:")
    print(f"  first reset per database (SQLAlchemy inspection): {ms(first_per_db)}")
    print(f"  later resets:                                     {ms(resets)}  (target < 5 ms)")
    print("steps:")
    print(f"  answer with gold SQL (run + score): {ms(answer)}  (target < 10 ms)")
    print(f"  baseline plain sqlite3 same SQL:    {ms(baseline)}")
    print(f"  ratio (p50): {statistics.median(answer) / statistics.median(baseline):.2f}x")
    print(f"  exploratory query (interactive):    {ms(explore)}")
    print(f"  baseline plain sqlite3 same SQL:    {ms(explore_base)}")
    print(f"  ratio (p50): {statistics.median(explore) / statistics.median(explore_base):.2f}x")

    limit = 1.0
    slow = BirdSQLEnv(interactive=True, timeout=limit)
    slow.reset(options={"split": "test", "task_id": 0})
    t0 = time.perf_counter()
    obs = slow.step(
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c"
    )[0]
    print(
        f"runaway recursive CTE with a {limit:g} s limit: interrupted after {time.perf_counter() - t0:.3f} s ({obs[:45]}...)"
    )


if __name__ == "__main__":
    main()
