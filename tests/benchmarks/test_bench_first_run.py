"""``benchmarks/bench_first_run.py``: the README's main command as it reads it, and the
report of several runs as min / median / max with the load average (no timing asserted)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_first_run.py"


def _module():
    spec = importlib.util.spec_from_file_location("bench_first_run", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_it_reads_the_readmes_main_command():
    install, run = _module().main_command()
    assert install[:3] == ["pip", "install", "-e"] and "local-llm" in install[3]
    assert run[0] == "agentgym" and "--policy" in run and "local" in run


def test_several_runs_are_reported_as_min_median_max_with_the_load():
    bench = _module()
    runs = [
        {"load before": 1.0, "install": i, "first run": 2 * i, "total": 3 * i, "load after": 2.5}
        for i in (30.0, 10.0, 20.0)
    ]
    lines = bench.report(runs).splitlines()
    assert lines[0].split()[:4] == ["part", "min", "median", "max"] and "3 runs" in lines[0]
    assert lines[1].split() == ["install", "10", "20", "30"]
    assert lines[2].split() == ["first", "run", "20", "40", "60"]
    assert lines[3].split() == ["total", "30", "60", "90"]
    assert sum("load 1.0 -> 2.5" in line for line in lines) == 3


def test_a_bad_run_count_is_one_line():
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--runs", "0"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0 and done.stderr.strip() == "--runs takes a whole number from 1 up"
