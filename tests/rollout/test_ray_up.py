"""``agentgym ray up / down`` and a bare ``--ray`` on a core that 4 CPU-bound processes load.

Ray's own ``ray start --head`` / ``ray.init()`` give up on such a machine (the raylet waits a
fixed 15 s for its agents); the package's local cluster must start, run a bench with the
expert's scores and leave no process behind -- after ``down``, after a bare ``--ray`` run, and
after its driver is SIGKILLed mid-run (the reaper ends the cluster).

The burners and every command here (so every cluster process they start) are pinned to one
core: that core is loaded as 8 burners load CI's 2 cores, and the machine's other cores stay
for the tests the other xdist worker runs meanwhile (8 unpinned burners slowed those several
times: Qwen Code's local-model episode took 160 s alone, 746 s beside them).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.rollout.conftest import pythonpath

pytest.importorskip("ray")
psutil = pytest.importorskip("psutil")
pytest.importorskip("typer")

#: Seconds a command may take on a machine loaded far beyond its cores.
TIMEOUT = 900

#: The core the burners and the commands run on (the last one this process may use; ``None``
#: where the platform cannot pin processes: the whole machine then).
CORE = max(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None


#: The commands of the scale-out guide's ``ray up`` example, run here (the guide's own block is
#: not run by the docs test: see :func:`test_the_guide_shows_the_commands_run_here`).
UP = ("ray", "up", "--workers", "2", "--cpus", "1")
BENCH = ("bench", "--envs", "Maze-v0,Wordle-v0", "--policy", "expert", "--limit", "3", "--ray")
BENCH += ("-j", "2", "--no-progress", "--out")
GUIDE = Path(__file__).parents[2] / "docs" / "guides" / "scale-out.md"


def _pin() -> None:
    """In a child before it runs: only :data:`CORE` (its children inherit that)."""
    if CORE is not None:
        os.sched_setaffinity(0, {CORE})


@pytest.fixture(scope="module")
def loaded(ray_lock):
    """4 CPU-bound processes on :data:`CORE` for the module's duration."""
    burners = [
        subprocess.Popen(
            [sys.executable, "-c", "while True: pass"], start_new_session=True, preexec_fn=_pin
        )
        for _ in range(4)
    ]
    try:
        yield
    finally:
        for proc in burners:
            proc.kill()
            proc.wait()


def _temp(tmp: Path) -> Path:
    """The commands' temp folder: short (Ray's socket paths are limited), found from ``tmp``."""
    link = tmp / "t"
    if not link.exists():
        link.symlink_to(tempfile.mkdtemp(prefix="rt", dir="/tmp"))
    return link.resolve()


def _env(tmp: Path) -> dict[str, str]:
    """The commands' environment: their own temp folder (every cluster process names it in its
    ``--temp-dir``) and their own record of clusters."""
    temp = _temp(tmp)
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env.update(
        TMPDIR=str(temp),
        AGENTGYM_HOME=str(tmp / "home"),
        PYTHONPATH=pythonpath(Path.cwd()),
        RAY_USAGE_STATS_ENABLED="0",
    )
    return env


def _agentgym(env: dict[str, str], *args: str, **kw):
    cmd = [sys.executable, "-m", "agentgym_envs.cli", *args]
    return subprocess.run(
        cmd, env=env, capture_output=True, text=True, timeout=TIMEOUT, preexec_fn=_pin, **kw
    )


def _cluster_processes(tmp: Path) -> list[str]:
    """Processes of any cluster started under ``tmp`` (by command line or environment)."""
    marker = str(_temp(tmp))
    found = []
    for proc in psutil.process_iter(["pid", "cmdline"]):
        try:
            cmdline = " ".join(proc.info["cmdline"] or [])
            environ = proc.environ() if marker not in cmdline else {}
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess, OSError):
            continue
        if (marker in cmdline or environ.get("TMPDIR") == marker) and proc.pid != os.getpid():
            found.append(f"{proc.pid} {cmdline[:120]}")
    return found


def _gone(tmp: Path, within: float = 120.0) -> list[str]:
    deadline = time.monotonic() + within
    while (left := _cluster_processes(tmp)) and time.monotonic() < deadline:
        time.sleep(1.0)
    return left


def _records(out: Path) -> list[dict]:
    path = out / "results.jsonl"
    if not path.is_file():
        return []
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip().endswith("}")]


def test_up_bench_down_on_a_loaded_machine(loaded, tmp_path):
    env = _env(tmp_path)
    up = _agentgym(env, *UP)
    assert up.returncode == 0, up.stderr[-2000:]
    assert up.stdout.startswith("export RAY_ADDRESS=127.0.0.1:")
    address = up.stdout.strip().split("=", 1)[1]
    status = _agentgym(env, "ray", "status")
    assert address in status.stdout and "worker2" in status.stdout

    out = tmp_path / "run"
    bench = _agentgym({**env, "RAY_ADDRESS": address}, *BENCH, str(out))
    assert bench.returncode == 0, bench.stdout[-2000:] + bench.stderr[-2000:]
    records = _records(out)
    assert len(records) == 6 and all(r["success"] for r in records)
    # `-j 2` started two actors, one per 1-CPU worker; the head (no CPUs: drivers only) played
    # none. Both workers play only if both actors are up before the episodes run out: on a
    # loaded core one actor may play all six while the other's process still starts.
    text = " ".join(bench.stdout.split())  # the console wraps long lines
    where = r"((?:[\w.:]+ \d+, )*[\w.:]+ \d+)"
    stats = re.search(rf"ray: 6 episodes on [12] nodes, (\d+) actors .*?; per node: {where}", text)
    assert stats and int(stats[1]) >= 2, bench.stdout[-2000:]
    played = dict(x.split(" ") for x in stats[2].split(", "))
    assert set(played) <= {"127.0.0.2", "127.0.0.3"}, played  # the workers' node IPs
    assert sum(map(int, played.values())) == 6, played

    down = _agentgym({**env, "RAY_ADDRESS": address}, "ray", "down")
    assert down.returncode == 0 and f"{address} ended" in down.stderr
    assert _gone(tmp_path) == []
    assert "no cluster" in _agentgym(env, "ray", "status").stderr


def test_bare_ray_cleans_up_after_a_run_and_after_its_driver_is_killed(loaded, tmp_path):
    env = _env(tmp_path)
    out = tmp_path / "run"
    bench = _agentgym(
        env, "bench", "--envs", "Maze-v0", "--policy", "expert", "--limit", "3", "--ray",
        "--no-progress", "--out", str(out),
    )  # fmt: skip
    assert bench.returncode == 0, bench.stdout[-2000:] + bench.stderr[-2000:]
    assert len(_records(out)) == 3
    assert _gone(tmp_path) == []

    killed = tmp_path / "killed"
    cmd = [sys.executable, "-m", "agentgym_envs.cli", "bench", "--envs", "Maze-v0"]
    cmd += ["--policy", "expert", "--ray", "-j", "1", "--no-progress", "--out", str(killed)]
    driver = subprocess.Popen(
        cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=_pin
    )
    try:
        deadline = time.monotonic() + TIMEOUT
        while not _records(killed) and driver.poll() is None and time.monotonic() < deadline:
            time.sleep(0.5)
        assert _records(killed), "the run never recorded an episode"
        assert _cluster_processes(tmp_path), "the run's cluster should be up"
        driver.send_signal(signal.SIGKILL)
        driver.wait(timeout=60)
    finally:
        if driver.poll() is None:
            driver.kill()
    assert _gone(tmp_path, within=180.0) == []


def test_the_guide_shows_the_commands_run_here():
    """The guide's example is the sequence :func:`test_up_bench_down_on_a_loaded_machine`
    runs (its output folder aside): the docs test skips that block rather than start a second
    cluster beside this module's."""
    block = GUIDE.read_text("utf-8").split('eval "$(agentgym ray up', 1)[1].split("```", 1)[0]
    lines = [x.split("#", 1)[0].strip() for x in f'eval "$(agentgym ray up{block}'.splitlines()]
    assert lines == [
        f'eval "$(agentgym {" ".join(UP)})"',
        "agentgym ray status",
        f"agentgym {' '.join(BENCH)} runs/maze-ray",
        "agentgym ray down",
    ], lines


def test_bad_input_is_one_line(tmp_path):
    env = _env(tmp_path)
    down = _agentgym(env, "ray", "down", "--address", "127.0.0.1:1")
    assert down.returncode == 2
    assert down.stderr.count("\n") == 1 and "agentgym ray status" in down.stderr
    nothing = _agentgym(env, "ray", "down")
    assert nothing.returncode == 2 and "RAY_ADDRESS" in nothing.stderr
    bad = _agentgym(env, "ray", "up", "--resources", "[1]")
    assert bad.returncode == 2 and "JSON object" in bad.stderr
