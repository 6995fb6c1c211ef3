"""The README's main command on a cold machine: install time and first-run time, timed apart.

A clean clone of this checkout's ``HEAD`` goes into a temporary folder with a fresh venv; the
README's main command is read from the README (the block after ``<!-- main-command -->``) and
run there in two timed parts: the ``pip install`` (pip's cache off unless ``--cache``) and the
``agentgym bench`` run (the local model's cache in a fresh folder, so the one-time GGUF
conversion is counted). Printed with the README's target (2 minutes for the whole command).

    python benchmarks/bench_first_run.py            # cold: no pip cache, no model cache
    python benchmarks/bench_first_run.py --cache    # pip's cache allowed (a second install)
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 120.0


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", action="store_true", help="Let pip use its cache.")
    args = parser.parse_args()
    install, run = main_command()
    with tempfile.TemporaryDirectory() as tmp:
        checkout, venv = Path(tmp) / "agentgym-envs", Path(tmp) / "venv"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(checkout)], check=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        env = dict(os.environ, PATH=f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}")
        env["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
        env.pop("PYTHONPATH", None)
        if not args.cache:
            env["PIP_NO_CACHE_DIR"] = "1"
        install_s = timed(install, checkout, env)
        run_s = timed(run, checkout, env)
    total = install_s + run_s
    print(f"{'part':<10} {'seconds':>8}")
    print(f"{'install':<10} {install_s:>8.0f}")
    print(f"{'first run':<10} {run_s:>8.0f}")
    print(
        f"{'total':<10} {total:>8.0f}   target {TARGET_SECONDS:.0f} s: {total / TARGET_SECONDS:.2f}x"
    )
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
