"""The README's main command on a cold machine: install time and first-run time, timed apart.

Each run clones this checkout's ``HEAD`` into a temporary folder with a fresh venv, reads the
README's main command from the README (the block after ``<!-- main-command -->``) and runs it
there in two timed parts: the ``pip install`` (pip's cache off unless ``--cache``) and the
``agentgym bench`` run (the package's cache in a fresh folder, so the model download and its
one-time conversion are counted). ``--runs N`` repeats that N times and prints min / median /
max of each part with the load average (1 minute) at the start and end of every run: one run on
one machine is not a figure to quote. ``--all-extras`` also times ``pip install -e
".[all,test]"`` (the contributor's install, llama.cpp built from source) in a venv of its own.

    python benchmarks/bench_first_run.py                     # one cold run
    python benchmarks/bench_first_run.py --runs 3            # three, as the README quotes
    python benchmarks/bench_first_run.py --cache             # pip's cache allowed
    python benchmarks/bench_first_run.py --runs 3 --all-extras
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 120.0
ALL_EXTRAS = ["pip", "install", "-e", ".[all,test]"]


def main_command() -> tuple[list[str], list[str]]:
    """The README's main command split into its install and its run, as argument lists."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- main-command -->\s*```sh\n(.+?)\n```", text, re.S)
    if block is None:
        raise SystemExit("README.md has no <!-- main-command --> block")
    install, run = block.group(1).split(" && ", 1)
    return shlex.split(install), shlex.split(run)


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    """Seconds ``cmd`` takes; its output goes to this process's stderr; a failure stops here."""
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, stdout=sys.stderr)
    if done.returncode != 0:
        raise SystemExit(f"{shlex.join(cmd)} exited with {done.returncode}")
    return time.perf_counter() - start


def fresh(tmp: Path, cache: bool) -> tuple[Path, dict[str, str]]:
    """A clean clone of ``HEAD`` and a fresh venv in ``tmp``; the environment that uses them."""
    checkout, venv = tmp / "agentgym-envs", tmp / "venv"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(checkout)], check=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = dict(os.environ, PATH=f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}")
    env["XDG_CACHE_HOME"] = str(tmp / "cache")
    for name in ("PYTHONPATH", "AGENTGYM_ENVS_CACHE", "AGENTGYM_VENV_DIR"):
        env.pop(name, None)
    if not cache:
        env["PIP_NO_CACHE_DIR"] = "1"
    return checkout, env


def one_run(cache: bool, all_extras: bool) -> dict[str, float]:
    """Seconds of each part of one cold run, and the load average before and after it."""
    install, run = main_command()
    parts = {"load before": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory() as tmp:
        checkout, env = fresh(Path(tmp), cache)
        parts["install"] = timed(install, checkout, env)
        parts["first run"] = timed(run, checkout, env)
    parts["total"] = parts["install"] + parts["first run"]
    if all_extras:
        with tempfile.TemporaryDirectory() as tmp:
            checkout, env = fresh(Path(tmp), cache)
            parts[".[all,test]"] = timed(ALL_EXTRAS, checkout, env)
    parts["load after"] = os.getloadavg()[0]
    return parts


def report(runs: list[dict[str, float]]) -> str:
    """min / median / max of each part over ``runs``, and each run's figures."""
    names = [n for n in runs[0] if not n.startswith("load")]
    lines = [
        f"{'part':<12} {'min':>7} {'median':>7} {'max':>7}   (seconds, {len(runs)} run{'s' * (len(runs) != 1)})"
    ]
    for name in names:
        values = [r[name] for r in runs]
        lines.append(
            f"{name:<12} {min(values):>7.0f} {statistics.median(values):>7.0f} {max(values):>7.0f}"
        )
    total = statistics.median(r["total"] for r in runs)
    lines.append(
        f"median total against the README's target of {TARGET_SECONDS:.0f} s: "
        f"{total / TARGET_SECONDS:.2f}x"
    )
    lines.append(f"per run (load average before -> after, on {os.cpu_count()} cores):")
    for i, r in enumerate(runs, 1):
        figures = ", ".join(f"{n} {r[n]:.0f} s" for n in names)
        lines.append(f"  run {i}: {figures}; load {r['load before']:.1f} -> {r['load after']:.1f}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="Cold runs to time (default 1).")
    parser.add_argument("--cache", action="store_true", help="Let pip use its cache.")
    parser.add_argument(
        "--all-extras", action="store_true", help='Also time pip install -e ".[all,test]".'
    )
    args = parser.parse_args()
    if args.runs < 1:
        raise SystemExit("--runs takes a whole number from 1 up")
    runs = []
    for i in range(args.runs):
        print(f"run {i + 1} of {args.runs} ...", file=sys.stderr, flush=True)
        runs.append(one_run(args.cache, args.all_extras))
    print(report(runs))


if __name__ == "__main__":
    main()
