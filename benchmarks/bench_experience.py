"""Experience store speed: import rate and dashboard page times on 10,000 episodes.

    python benchmarks/bench_experience.py                    # SQLite in a temp folder
    python benchmarks/bench_experience.py --episodes 2000    # smaller
    python benchmarks/bench_experience.py --db postgresql://user@127.0.0.1:5432/db

Makes real episodes with the benchmark runner (expert and random on Maze and Wordle), repeats
them as samples up to ``--episodes`` in total, writes them as two run folders, imports them (episodes/s), imports again (the idempotent no-op), then times
each dashboard page over HTTP through FastAPI's test client (median of ``--repeat`` requests).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path


def _runs(root: Path, episodes: int) -> list[Path]:
    from agentgym_envs.benchmarks.policies import expert_spec, random_spec
    from agentgym_envs.benchmarks.runner import run_benchmark

    folders = []
    per_policy = episodes // 2
    for name, spec in (("expert", expert_spec()), ("random", random_spec())):
        base = run_benchmark("Maze-v0,Wordle-v0", spec, out=None, reports=False).records
        folder = root / name
        folder.mkdir()
        (folder / "run.json").write_text(
            json.dumps({"policy": spec.describe(), "format": "plain", "split": "test"})
        )
        with (folder / "results.jsonl").open("w") as f:
            for i in range(per_policy):
                rec = base[i % len(base)]
                f.write(json.dumps({**rec, "sample": i // len(base)}) + "\n")
        folders.append(folder)
    return folders


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--db", default=None, help="Store URL (default: SQLite in a temp folder).")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)

    from fastapi.testclient import TestClient
    from sqlalchemy import select

    from agentgym_envs.experience import create_app, import_path, open_store
    from agentgym_envs.experience.models import Episode, Run

    out = sys.stdout.write
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folders = _runs(root, args.episodes)
        store = open_store(args.db or root / "experience.db")
        out(f"store: {store}\n")
        t0 = time.perf_counter()
        added = sum(import_path(store, f).added for f in folders)
        dt = time.perf_counter() - t0
        out(f"import: {added} episodes in {dt:.2f} s = {added / dt:.0f} episodes/s\n")
        t0 = time.perf_counter()
        again = sum(import_path(store, f).skipped for f in folders)
        out(f"re-import (no-op): {again} episodes checked in {time.perf_counter() - t0:.2f} s\n")

        with store.session() as s:
            run_id = s.scalars(select(Run.id).order_by(Run.id)).first()
            ep_id = s.scalars(
                select(Episode.id).where(Episode.turns >= 5).order_by(Episode.id.desc())
            ).first()
            labels = [r.version.label for r in s.scalars(select(Run).order_by(Run.id))]
        client = TestClient(create_app(store))
        pages = [
            "/",
            f"/runs/{run_id}",
            f"/runs/{run_id}?page_no=20",
            f"/episodes/{ep_id}",
            f"/api/episodes/{ep_id}/views",
            "/versions",
            f"/versions?a={labels[0]}&b={labels[1]}",
            "/feedback?source=",
            "/api/feedback/export?fmt=jsonl",
        ]
        out(
            f"dashboard page times on {added} episodes (median of {args.repeat}; first request in brackets):\n"
        )
        for page in pages:
            times = []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                r = client.get(page)
                times.append(time.perf_counter() - t0)
                if r.status_code != 200:
                    out(f"  {page}: HTTP {r.status_code}\n")
                    break
            out(
                f"  {page:45s} {1000 * statistics.median(times):8.1f} ms  [{1000 * times[0]:.1f} ms]\n"
            )
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
