"""Can organisation B tell A's ids from ids that exist nowhere by how long the answer takes?

    python benchmarks/bench_platform_timing.py              # 400 rounds
    python benchmarks/bench_platform_timing.py --rounds 100

Starts a throwaway PostgreSQL and ``agentgym platform serve`` as the tests do, gives
organisation A an agent, executions, feedback and a job, then B asks for each of A's things
and for a missing one of the same kind, interleaved (A's, missing, missing, A's, ...), one
request at a time on one connection. Prints the latency min/median/p90/max of each kind per
endpoint, the median difference, and a Mann-Whitney U test's p-value (scipy, when installed)
of the two samples, with the load average (``os.getloadavg()``). Every answer must be a 404
with the same body but for the id (the script exits non-zero otherwise).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

MISSING = "00000000-0000-4000-8000-000000000000"


def _ms(a: list[float]) -> str:
    x = np.asarray(a) * 1000
    return (
        f"min {x.min():.2f} median {np.median(x):.2f} p90 {np.percentile(x, 90):.2f} "
        f"max {x.max():.2f} ms"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=400)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()

    import httpx

    from agentgym_envs.platform import AgentGym
    from benchmarks.bench_platform import _load, served_platform

    lines = [f"before: {_load()} ({os.cpu_count()} CPUs), {args.rounds} rounds per endpoint"]
    print(lines[0], flush=True)
    bad: list[str] = []
    with served_platform("a", "b") as (_, (a, b), url):
        with AgentGym(api_key=a.key, base_url=url) as gym:
            agent = gym.register_agent(name="Timed", description="", version="1.0.0")
            ex = gym.record_execution(agent, "q", "a", steps=[{"action": "x"}])
            gym.feedback_outcome(agent, ex.execution_id, "good")
            job = gym.queue_training(agent, "2.0.0")
        with AgentGym(api_key=b.key, base_url=url) as gym:
            b_agent = gym.register_agent(name="Timed", description="", version="1.0.0")
        endpoints = {
            "agent": ("/v1/agents/{a}", {"a": agent}),
            "execution": ("/v1/agents/{a}/executions/{e}", {"a": agent, "e": ex.execution_id}),
            "feedback": (
                "/v1/agents/{a}/executions/{e}/feedback",
                {"a": agent, "e": ex.execution_id},
            ),
            "A's execution under B's agent": (
                f"/v1/agents/{b_agent}/executions/{{e}}",
                {"e": ex.execution_id},
            ),
            "job": ("/v1/jobs/{j}", {"j": job["id"]}),
            "similar episodes": (
                "/v1/search/episodes/{p}/similar",
                {"p": str(ex.episode_id)},
            ),
        }
        with httpx.Client(
            base_url=url, headers={"Authorization": f"Bearer {b.key}"}, timeout=60
        ) as client:
            for name, (path, real) in endpoints.items():
                fake = {k: (MISSING if k != "p" else "2000000000") for k in real}
                times: dict[bool, list[float]] = {True: [], False: []}
                bodies: dict[bool, set[str]] = {True: set(), False: set()}
                for i in range(args.rounds * 2 + 4):
                    is_a = (i % 4) in (0, 3)  # A, missing, missing, A: no order effect
                    ids = real if is_a else fake
                    t = time.perf_counter()
                    r = client.get(path.format(**ids))
                    took = time.perf_counter() - t
                    if i < 4:
                        continue  # warm-up
                    times[is_a].append(took)
                    text = r.text
                    for v in ids.values():
                        text = text.replace(v, "ID")
                    bodies[is_a].add(f"{r.status_code} {text}")
                if bodies[True] != bodies[False] or len(bodies[True]) != 1:
                    bad.append(f"{name}: answers differ: {bodies}")
                diff = np.median(times[True]) - np.median(times[False])
                p = ""
                try:
                    from scipy.stats import mannwhitneyu

                    p = f", Mann-Whitney p = {mannwhitneyu(times[True], times[False]).pvalue:.3f}"
                except ImportError:
                    pass
                lines += [
                    f"{name}: A's id   {_ms(times[True])}",
                    f"{name}: missing  {_ms(times[False])}",
                    f"{name}: median A - missing = {diff * 1000:+.2f} ms{p}; "
                    f"answers {sorted(bodies[True])[0][:60]!r}",
                ]
                print("\n".join(lines[-3:]), flush=True)
        lines.append(f"after: {_load()}")
        print(lines[-1])
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")
    if bad:
        raise SystemExit("FAILED: " + "; ".join(bad))


if __name__ == "__main__":
    main()
