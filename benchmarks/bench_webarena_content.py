"""The WebArena sites' generated content: cold build time, table sizes, how diverse the texts
are, and whether the build is deterministic.

    python benchmarks/bench_webarena_content.py            # 3 cold builds
    python benchmarks/bench_webarena_content.py --runs 1   # one
    python benchmarks/bench_webarena_content.py --observations   # + first-observation lines

Each build runs in a fresh process into an empty folder (cold: no cache, imports included).
Prints min / median / max seconds with the load average before and after (``os.getloadavg()``;
on a shared machine the figures move with the load), the rows of every table, the distinct
ratio (distinct values / rows) and the most repeats of one value for the texts, a digest of
every table per build (equal digests: the same seed built the same data), and the map's size.
``--observations`` opens each site's start page in Chromium and counts the lines of the first
observation (the full page's tree, as ``viewport_only=False`` gives it, and the viewport's).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

#: (table, column) whose values should rarely repeat.
TEXTS = (
    ("shop_reviews", "title"),
    ("shop_reviews", "body"),
    ("shop_products", "name"),
    ("shop_products", "description"),
    ("forum_posts", "title"),
    ("forum_posts", "body"),
    ("forum_comments", "body"),
    ("code_issues", "title"),
    ("code_issues", "body"),
    ("code_merge_requests", "title"),
    ("code_merge_requests", "description"),
    ("code_commits", "message"),
)

_BUILD = """
import json, sys, time
t0 = time.perf_counter()
from agentgym_envs.envs.webarena.sites.build import build
from agentgym_envs.envs.webarena.sites.mapdata import city
built = build(sys.argv[1])
c = city()
print(json.dumps({"seconds": time.perf_counter() - t0, "build_seconds": built.seconds,
                  "bytes": built.bytes, "places": len(c.places),
                  "map_nodes": c.graph.number_of_nodes(), "map_edges": c.graph.number_of_edges()}))
"""


def cold_build(folder: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _BUILD, str(folder)], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def digests(db: sqlite3.Connection) -> dict[str, str]:
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    out = {}
    for table in sorted(t for t in tables if not t.startswith(("sqlite_", "articles_fts"))):
        h = hashlib.sha256()
        for row in db.execute(f"SELECT * FROM {table} ORDER BY rowid"):
            h.update(repr(tuple(row)).encode())
        out[table] = h.hexdigest()[:12]
    return out


def diversity(db: sqlite3.Connection) -> list[tuple[str, int, int, float, int]]:
    rows = []
    for table, column in TEXTS:
        n, distinct = db.execute(
            f"SELECT COUNT(*), COUNT(DISTINCT {column}) FROM {table}"
        ).fetchone()
        most = db.execute(
            f"SELECT MAX(k) FROM (SELECT COUNT(*) k FROM {table} GROUP BY {column})"
        ).fetchone()[0]
        rows.append((f"{table}.{column}", n, distinct, distinct / max(n, 1), most or 0))
    return rows


def first_observations() -> list[tuple[str, int, int]]:
    """(site, lines of the full-page tree, lines of the viewport tree) of each start page."""
    from agentgym_envs.envs.webarena.env import WebArenaEnv
    from agentgym_envs.envs.webarena.sites import SITES, server

    out = []
    for viewport_only in (False, True):
        env = WebArenaEnv(viewport_only=viewport_only)
        env.reset(seed=0, options={"split": "test", "task_id": 0})
        for site in [*SITES, "homepage"]:
            obs, *_ = env.step(
                "In summary, the next action I will perform is "
                f"```goto [{env._to_shown(server().url(site) + '/')}]```"
            )
            tree = obs.split("\n\n", 1)[1].split("\nURL: ", 1)[0]
            out.append((site, viewport_only, len(tree.splitlines())))
        env.close()
    full = {s: n for s, v, n in out if not v}
    view = {s: n for s, v, n in out if v}
    return [(s, full[s], view[s]) for s in full]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--observations", action="store_true")
    args = parser.parse_args()
    load_before = os.getloadavg()
    results, dbs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.runs):
            folder = Path(tmp) / f"run{k}"
            results.append(cold_build(folder))
            db = sqlite3.connect(next(folder.rglob("seed.db")))
            dbs.append(db)
        load_after = os.getloadavg()
        secs = [r["seconds"] for r in results]
        print(f"cold build (fresh process, empty cache), {args.runs} runs:")
        print(
            f"  seconds min {min(secs):.1f} / median {statistics.median(secs):.1f} / "
            f"max {max(secs):.1f}; data {results[0]['bytes'] / 1e6:.1f} MB"
        )
        print(
            "  load average before {:.2f} {:.2f} {:.2f}, after {:.2f} {:.2f} {:.2f} "
            "(2 cores shared: the machine is loaded)".format(*load_before, *load_after)
        )
        print(
            f"map: {results[0]['places']} places, {results[0]['map_nodes']} junctions, "
            f"{results[0]['map_edges']} directed road edges"
        )
        db = dbs[0]
        print("\nrows per table:")
        for table in sorted(digests(db)):
            print(f"  {table:24s} {db.execute(f'SELECT COUNT(*) FROM {table}').fetchone()[0]:>8,}")
        print("\ntext diversity (distinct / rows, most repeats of one value):")
        for name, n, distinct, ratio, most in diversity(db):
            print(f"  {name:34s} {n:>7,} rows {distinct:>7,} distinct  {ratio:.3f}  max x{most}")
        same = all(digests(d) == digests(db) for d in dbs[1:])
        print(f"\ndeterministic: {'yes' if same else 'NO'} ({len(dbs)} builds, every table)")
        for d in dbs:
            d.close()
    if args.observations:
        print("\nfirst observation lines per site (full page / viewport):")
        for site, full, view in first_observations():
            print(f"  {site:16s} {full:>5} / {view:>4}")


if __name__ == "__main__":
    main()
