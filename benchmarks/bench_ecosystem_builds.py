"""Cold builds of the ecosystem venvs (``integrations/venvs.py``): seconds per ecosystem.

Each run builds every named ecosystem's venv (agentgym-envs[<ecosystem>,tools], editable) into
a fresh ``$AGENTGYM_VENV_DIR`` with a fresh uv cache (``UV_CACHE_DIR``), so every package is
downloaded and installed: what a new machine or a CI runner without a cache pays. The
installer's progress lines and the log path are printed as the build goes. ``--runs N``
repeats it and prints min / median / max per ecosystem with the load average (1 minute) at
the start and end of each build: the machine may be shared, so a figure without its load is not
one to quote. ``--warm`` keeps one uv cache across runs (a rebuild after a version bump).

    python benchmarks/bench_ecosystem_builds.py                          # all four, once
    python benchmarks/bench_ecosystem_builds.py openenv verifiers --runs 3
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import tempfile
import time

from agentgym_envs.integrations import venvs


def build_once(name: str, cache: str | None) -> tuple[float, float, float]:
    """Seconds for one cold build of ``name`` and the 1-minute load before and after."""
    with tempfile.TemporaryDirectory(prefix=f"eco-{name}-") as tmp:
        os.environ["AGENTGYM_VENV_DIR"] = tmp
        os.environ["UV_CACHE_DIR"] = cache or os.path.join(tmp, "uv-cache")
        load_before = os.getloadavg()[0]
        start = time.perf_counter()
        venvs.ecosystem_python(name)
        return time.perf_counter() - start, load_before, os.getloadavg()[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ecosystems", nargs="*", default=list(venvs.ECOSYSTEMS))
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--warm", action="store_true", help="share one uv cache across runs")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    installer = "uv" if venvs.uv_binary() else "pip"
    results: dict[str, list[tuple[float, float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="eco-uv-cache-") as shared:
        for run in range(args.runs):
            for name in args.ecosystems:
                seconds, before, after = build_once(name, shared if args.warm else None)
                results.setdefault(name, []).append((seconds, before, after))
                print(f"run {run + 1} {name}: {seconds:.0f} s (load {before:.1f} -> {after:.1f})")
    print(f"\ncold ecosystem builds with {installer} ({os.cpu_count()} CPUs), {args.runs} run(s):")
    for name, rows in results.items():
        secs = [r[0] for r in rows]
        loads = [x for r in rows for x in r[1:]]
        print(
            f"{name:11s} min {min(secs):5.0f} s  median {statistics.median(secs):5.0f} s  "
            f"max {max(secs):5.0f} s  load {min(loads):.1f}-{max(loads):.1f}"
        )


if __name__ == "__main__":
    main()
