"""``agentgym bench`` stopped by SIGINT: the episodes that finished stay in the resumable JSONL,
the exit code is 130, and the same command again plays only the rest.

The bench runs as a real subprocess. A process a shell starts in the background without job
control inherits SIGINT *ignored* (Python then never raises ``KeyboardInterrupt``): the run
must stop all the same.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest

SAMPLES = 200  # 25 Maze tasks x 200 samples: far more than get played before the signal lands
TOTAL = 25 * SAMPLES


def _bench(out, concurrency, ignore_sigint):
    def preexec():
        if ignore_sigint:
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    return subprocess.Popen(
        [sys.executable, "-m", "agentgym_envs.cli", "bench", "--envs", "Maze-v0"]
        + ["--policy", "expert", "--n-samples", str(SAMPLES), "-j", str(concurrency)]
        + ["--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
        preexec_fn=preexec,
    )


def _lines(out):
    path = out / "results.jsonl"
    return path.read_bytes().count(b"\n") if path.is_file() else 0


@pytest.mark.parametrize(
    ("concurrency", "ignore_sigint"), [(1, True), (2, False)], ids=["inherited-ignore", "j2"]
)
def test_sigint_stops_bench_keeps_what_finished_and_a_rerun_resumes(
    tmp_path, concurrency, ignore_sigint
):
    out = tmp_path / "run"
    proc = _bench(out, concurrency, ignore_sigint)
    try:
        deadline = time.monotonic() + 600
        while _lines(out) < 100:
            assert proc.poll() is None, proc.communicate()[1].decode()[-2000:]
            assert time.monotonic() < deadline, "no results within 600 s"
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err.decode()[-2000:]
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert 100 <= len(records) < TOTAL  # stopped, and what finished is kept
    assert "run the same command again to resume" in err.decode()
    kept = Counter((r["item_id"], r["sample"]) for r in records)
    assert set(kept.values()) == {1}

    again = _bench(out, concurrency, False)
    stdout, err = again.communicate(timeout=600)
    assert again.returncode == 0, err.decode()[-2000:]
    assert f"{len(records)} resumed" in " ".join(stdout.decode().split())
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    every = Counter((r["item_id"], r["sample"]) for r in records)
    assert len(every) == TOTAL and set(every.values()) == {1}
