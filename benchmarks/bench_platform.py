"""The platform under load: 200 concurrent SDK clients recording executions, the live split's
accuracy over 10,000 routed requests, and promote/rollback while requests are routed.

    python benchmarks/bench_platform.py                    # 200 clients for 120 s
    python benchmarks/bench_platform.py --seconds 30       # shorter, on a loaded machine

Starts a throwaway PostgreSQL (as the tests do), migrates it, creates an organisation and runs
``agentgym platform serve`` (one process) as the service's own role. Then:

1. ``--clients`` AsyncClients (one event loop, each its own connection pool) each call
   ``execute_with_feedback`` in a loop for ``--seconds``; afterwards the episodes in the
   database are counted: every call that returned an execution id must be there exactly once
   (lost = an id a client was given that the database lacks, duplicated = more rows than
   distinct ids), and no call may fail; the script exits non-zero if any of these is not 0.
2. 10,000 ``route`` requests at a 70/30 split: the share of each version.
3. Routing from 50 clients while the split is promoted, rolled back and reset every half
   second: failed requests (must be 0).

Prints latency min/median/p99/max per phase with the load average (``os.getloadavg()``).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from agentgym_envs.platform import AsyncClient


def _stats(name: str, lat: list[float]) -> str:
    a = np.asarray(lat) * 1000
    if not len(a):
        return f"{name}: no requests"
    return (
        f"{name}: n={len(a)} latency ms min {a.min():.1f} median {np.median(a):.1f} "
        f"p99 {np.percentile(a, 99):.1f} max {a.max():.1f}"
    )


class _RetryCount(logging.Handler):
    """Counts the SDK's retries (its debug line per retried request)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.n = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.n += record.getMessage().startswith("retrying")


def _server_side(url: str) -> str:
    """The service's own histogram of the executions route (its ``/metrics``): how many
    requests took over 1 s and over 10 s from when the service read them."""
    import httpx

    buckets: dict[float, float] = {}
    for line in httpx.get(url + "/metrics", timeout=60).text.splitlines():
        if not line.startswith("agentgym_http_request_duration_seconds_bucket"):
            continue
        if "executions" not in line or 'method="POST"' not in line:
            continue
        le = line.split('le="')[1].split('"')[0]
        bound = float("inf") if le == "+Inf" else float(le)
        buckets[bound] = buckets.get(bound, 0.0) + float(line.rsplit(" ", 1)[1])
    if not buckets:
        return "histogram not found"
    total = buckets[float("inf")]

    def over(x: float) -> float:
        return total - max((v for k, v in buckets.items() if k <= x), default=0.0)

    return f"n={total:.0f}, over 1 s: {over(1.0):.0f}, over 10 s: {over(10.0):.0f}"


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f}"


async def record_load(url: str, key: str, clients: int, seconds: float) -> dict:
    setup = AsyncClient(api_key=key, base_url=url)
    agent_id = await setup.register_agent(name="Load", description="bench", version="1.0.0")
    await setup.aclose()
    latencies: list[float] = []
    returned: list[str] = []
    failures: list[str] = []
    trace: list[tuple[int, int, float, float]] = []  # client, call, start offset, latency
    end = time.monotonic() + seconds
    t0 = time.perf_counter()

    async def one(i: int) -> None:
        async with AsyncClient(api_key=key, base_url=url, timeout=120) as gym:
            gym.bind(
                agent_id, lambda q, ctx, trace: (trace.step("answer", observation=q), q[::-1])[1]
            )
            n = 0
            while time.monotonic() < end:
                t = time.perf_counter()
                try:
                    r = await gym.execute_with_feedback(
                        agent_id, f"client {i} call {n}", context=[i, n]
                    )
                except Exception as exc:  # counted, not raised: the report says how many
                    failures.append(f"{type(exc).__name__}: {exc}"[:200])
                else:
                    returned.append(r.execution_id)
                    latencies.append(time.perf_counter() - t)
                    trace.append((i, n, t - t0, latencies[-1]))
                n += 1

    start = time.monotonic()
    await asyncio.gather(*(one(i) for i in range(clients)))
    return {
        "agent_id": agent_id,
        "latencies": latencies,
        "returned": returned,
        "failures": failures,
        "trace": trace,
        "wall": time.monotonic() - start,
    }


async def split_accuracy(url: str, key: str, requests: int, share: float) -> dict:
    async with AsyncClient(api_key=key, base_url=url, timeout=120) as gym:
        agent_id = await gym.register_agent(name="Split", description="bench", version="1.0.0")
        await gym.register_version(agent_id, "1.1.0")
        await gym.create_ab_test(agent_id, {"1.0.0": 100 - 100 * share, "1.1.0": 100 * share})
        sem = asyncio.Semaphore(50)
        lat: list[float] = []

        async def route(i: int) -> str:
            async with sem:
                t = time.perf_counter()
                a = await gym.route(agent_id, f"user-{i}")
                lat.append(time.perf_counter() - t)
                return a.version

        versions = await asyncio.gather(*(route(i) for i in range(requests)))
    return {"share": versions.count("1.1.0") / requests, "latencies": lat}


async def flip_under_load(url: str, key: str, seconds: float) -> dict:
    async with AsyncClient(api_key=key, base_url=url, timeout=120) as admin:
        agent_id = await admin.register_agent(name="Flip", description="bench", version="1.0.0")
        await admin.register_version(agent_id, "1.1.0")
        await admin.create_ab_test(agent_id, {"1.0.0": 80, "1.1.0": 20})
        end = time.monotonic() + seconds
        ok, failed, flips = 0, [], 0

        async def router(w: int) -> None:
            nonlocal ok
            async with AsyncClient(api_key=key, base_url=url, timeout=120, retries=0) as gym:
                i = 0
                while time.monotonic() < end:
                    try:
                        await gym.route(agent_id, f"w{w}-{i}")
                        ok += 1
                    except Exception as exc:
                        failed.append(str(exc)[:200])
                    i += 1

        async def flipper() -> None:
            nonlocal flips
            while time.monotonic() < end:
                await admin.promote(agent_id, "1.1.0")
                await admin.rollback(agent_id)
                await admin.create_ab_test(agent_id, {"1.0.0": 80, "1.1.0": 20})
                flips += 3
                await asyncio.sleep(0.5)

        await asyncio.gather(flipper(), *(router(w) for w in range(50)))
    return {"routed": ok, "failed": failed, "flips": flips, "agent_id": agent_id}


@contextmanager
def served_platform(*org_names: str) -> Iterator[tuple[Any, list[Any], str]]:
    """A scratch PostgreSQL with the service's role and the platform's tables, one organisation
    per name, and ``agentgym platform serve`` on it: ``(owner connection, orgs, url)``; all of
    it stopped and removed on exit."""
    from tests.experience.conftest import _Postgres
    from tests.platform.conftest import make_database, make_org, serve, stop

    root = Path(tempfile.mkdtemp(prefix="agentgym-bench-pg-"))
    pg = _Postgres(root)
    proc = None
    try:
        pg.start()
        if pg.error:
            raise SystemExit(f"no PostgreSQL: {pg.error}")
        import psycopg

        with psycopg.connect(
            f"host=127.0.0.1 port={pg.port} user=postgres dbname=postgres", autocommit=True
        ) as c:
            c.execute("CREATE ROLE agentgym_app LOGIN")
        owner, app = make_database(pg)
        orgs = [make_org(owner, name) for name in org_names]
        proc, url = serve(app, root / "serve.log")
        yield owner, orgs, url
    finally:
        if proc is not None:
            stop(proc)
        pg.stop()
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=120.0)
    ap.add_argument("--split-requests", type=int, default=10_000)
    ap.add_argument("--flip-seconds", type=float, default=20.0)
    ap.add_argument("--out", type=Path, default=None, help="Also write the report to this file.")
    ap.add_argument(
        "--trace",
        type=Path,
        default=None,
        help="Write each recorded call (client, call, start, latency) here as TSV.",
    )
    ap.add_argument("--record-only", action="store_true", help="Skip the split and flip phases.")
    args = ap.parse_args()

    from tests.platform.helpers import count, ids

    lines = [f"before: {_load()} ({os.cpu_count()} CPUs)"]
    problems: list[str] = []
    print(lines[0], flush=True)
    with served_platform("bench") as (owner, (org,), url):
        retries = _RetryCount()
        logging.getLogger("agentgym_envs.platform.client").addHandler(retries)
        logging.getLogger("agentgym_envs.platform.client").setLevel(logging.DEBUG)
        res = asyncio.run(record_load(url, org.key, args.clients, args.seconds))
        if args.trace:
            args.trace.write_text(
                "client\tcall\tstart_s\tlatency_s\n"
                + "".join(f"{c}\t{n}\t{s:.3f}\t{lat:.3f}\n" for c, n, s, lat in res["trace"])
            )
        where = f"r.source_key LIKE 'live:{res['agent_id']}:%'"
        rows = count(
            owner, f"SELECT count(*) FROM episodes e JOIN runs r ON r.id = e.run_id WHERE {where}"
        )
        stored = set(
            ids(
                owner,
                f"SELECT DISTINCT e.key FROM episodes e JOIN runs r ON r.id = e.run_id WHERE {where}",
            )
        )
        distinct = len(stored)
        indexed = count(
            owner,
            "SELECT count(DISTINCT x.episode_id) FROM episode_embeddings x JOIN episodes e"
            f" ON x.episode_id = e.id::text JOIN runs r ON r.id = e.run_id WHERE {where}",
        )
        returned = set(res["returned"])
        lost = len(returned - stored)  # returned to a client, absent from the database
        unasked = len(stored - returned)  # in the database, never returned (a failed call's)
        lines += [
            f"record: {args.clients} clients x {args.seconds:.0f} s: {len(res['returned'])} executions returned "
            f"({len(res['returned']) / res['wall']:.1f}/s), {len(res['failures'])} calls failed",
            f"record: in the database {rows} rows, {distinct} distinct ids; lost {lost}, "
            f"duplicated {rows - distinct}, stored but not returned {unasked}"
            f" (ids returned twice: {len(res['returned']) - len(returned)});"
            f" indexed for search {indexed}",
            _stats("record execute_with_feedback", res["latencies"]),
            _stats(
                "record, first call of each client",
                [lat for _, n, _, lat in res["trace"] if n == 0],
            ),
            _stats("record, later calls", [lat for _, n, _, lat in res["trace"] if n > 0]),
            f"record: {retries.n} requests retried by the SDK; server-side {_server_side(url)}",
            f"after record: {_load()}",
        ]
        if res["failures"]:
            lines.append(f"first failure: {res['failures'][0]}")
        bad = lost or rows != distinct or res["failures"] or len(res["returned"]) != len(returned)
        bad = bad or indexed != rows
        if bad:
            problems.append("record: executions lost, duplicated or failed")
        print("\n".join(lines[1:]), flush=True)
        if not args.record_only:  # the split and the flips
            sp = asyncio.run(split_accuracy(url, org.key, args.split_requests, 0.3))
            lines += [
                f"split: {args.split_requests} routed at 70/30: share of 1.1.0 = {100 * sp['share']:.2f}% "
                f"(configured 30%, off by {100 * abs(sp['share'] - 0.3):.2f} points)",
                _stats("split route", sp["latencies"]),
                f"after split: {_load()}",
            ]
            print("\n".join(lines[-3:]), flush=True)

            if abs(sp["share"] - 0.3) > 0.03:
                problems.append("split: share off by more than 3 points")

            fl = asyncio.run(flip_under_load(url, org.key, args.flip_seconds))
            decided = count(
                owner,
                "SELECT count(*) FROM route_decisions d JOIN routes r ON r.id = d.route_id"
                f" WHERE r.agent_id = '{fl['agent_id']}'",
            )
            if fl["failed"] or decided != fl["routed"]:
                problems.append("promote/rollback: requests failed or not recorded")
            lines += [
                f"promote/rollback under load: {fl['flips']} split changes, {fl['routed']} requests routed, "
                f"{len(fl['failed'])} failed; {decided} routing decisions in the database",
                f"after flips: {_load()}",
            ]
            print("\n".join(lines[-2:]), flush=True)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("\n".join(lines) + "\n")
    if problems:
        raise SystemExit("FAILED: " + "; ".join(problems))


if __name__ == "__main__":
    main()
