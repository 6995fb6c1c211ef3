"""``agentgym ray up / down`` and a bare ``--ray`` while 8 CPU-bound processes load the machine.

Ray's own ``ray start --head`` / ``ray.init()`` give up on such a machine (the raylet waits a
fixed 15 s for its agents); the package's local cluster must start, run a bench with the
expert's scores and leave no process behind -- after ``down``, after a bare ``--ray`` run, and
after its driver is SIGKILLed mid-run (the reaper ends the cluster).

The 8 burners are ordinary processes on every core (none pinned, nothing else pinned), started
by each test that runs Ray commands and ended when its last check is done, so they load the
machine only while the commands run. "No process behind" covers every kind a cluster has: the
``ray start`` processes, GCS, raylets, the dashboard and runtime-env agents, the workers and
actors (``ray::...``: Ray rewrites their command lines and the environment area with them, so
they are found by the log files and working folder they hold under the cluster's temp folder),
and the test checks that it saw each of those kinds while the cluster was up.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
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
TIMEOUT = 1800

#: CPU-bound processes loading the machine while the Ray commands run.
BURNERS = 8


#: The commands of the scale-out guide's ``ray up`` example, run here under load (the docs test
#: runs the guide's block itself too: :func:`test_the_guide_shows_the_commands_run_here`).
UP = ("ray", "up", "--workers", "2", "--cpus", "1")
BENCH = ("bench", "--envs", "Maze-v0,Wordle-v0", "--policy", "expert", "--limit", "3", "--ray")
BENCH += ("-j", "2", "--no-progress", "--out")
#: The guide's bare ``--ray`` example (a cluster for the command's duration), run here too.
BARE = ("bench", "--envs", "Maze-v0", "--policy", "expert", "--limit", "3", "--ray")
BARE += ("--no-progress", "--out")
GUIDE = Path(__file__).parents[2] / "docs" / "guides" / "scale-out.md"


@pytest.fixture(scope="module", autouse=True)
def one_cluster_at_a_time(ray_lock):
    """The Ray tests' lock for the module (xdist's ``ray-cluster`` group, tests/conftest.py)."""
    yield


@contextlib.contextmanager
def loaded():
    """:data:`BURNERS` CPU-bound processes for the block's duration; it checks they ran
    throughout (none died early, so the block's commands ran under all of them)."""
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
        for _ in range(BURNERS)
    ]
    try:
        yield
        assert [b.poll() for b in burners] == [None] * BURNERS, "a burner ended early"
    finally:
        for proc in burners:
            proc.kill()
            proc.wait()


@pytest.fixture
def scratch(tmp_path):
    """``tmp_path``; the commands' short temp folder (:func:`_temp`) is removed afterwards."""
    yield tmp_path
    link = tmp_path / "t"
    if link.is_symlink():
        shutil.rmtree(link.resolve(), ignore_errors=True)


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
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=TIMEOUT, **kw)


def _watched(tmp: Path, env: dict[str, str], *args: str) -> tuple[subprocess.Popen, str, set]:
    """Run an ``agentgym`` command to its end, looking at the cluster's processes meanwhile:
    the finished process, its output (stdout then stderr) and the kinds of process seen."""
    cmd = [sys.executable, "-m", "agentgym_envs.cli", *args]
    seen: set[str] = set()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=err, text=True)
        deadline = time.monotonic() + TIMEOUT
        while proc.poll() is None and time.monotonic() < deadline:
            seen |= _kinds(_cluster_processes(tmp))
            time.sleep(1.0)
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        out.seek(0)
        err.seek(0)
        return proc, out.read() + err.read(), seen


#: The kinds of cluster process, by name or (rewritten) command line; "worker" is any other
#: ``ray::`` process: an idle worker or an actor.
KINDS = {
    "ray start": "bin/ray start",
    "gcs_server": "gcs_server",
    "raylet": "raylet/raylet",
    "dashboard agent": "ray::DashboardAgent",
    "runtime-env agent": "ray::RuntimeEnvAgent",
}


def _kind(cmdline: str) -> str:
    found = next((kind for kind, text in KINDS.items() if text in cmdline), None)
    return found or ("worker" if cmdline.startswith("ray::") else "other")


def _cluster_processes(tmp: Path) -> dict[int, str]:
    """Processes of any cluster started under ``tmp``: pid -> kind and command line. A process
    belongs when its command line names the cluster's temp folder, or its working folder or an
    open file (its logs) is in it, or it has that folder as ``TMPDIR``."""
    marker = str(_temp(tmp))
    inside = (marker, marker + os.sep)
    found = {}
    for proc in psutil.process_iter(["pid", "cmdline"]):
        if proc.pid == os.getpid():
            continue
        try:
            cmdline = " ".join(x for x in proc.info["cmdline"] or [] if x)
            ours = (
                marker in cmdline
                or proc.cwd().startswith(inside)
                or any(f.path.startswith(inside) for f in proc.open_files())
                or proc.environ().get("TMPDIR") == marker
            )
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess, OSError):
            continue
        if ours:
            found[proc.pid] = f"{_kind(cmdline)}: {cmdline[:120]}"
    return found


def _kinds(found: dict[int, str]) -> set[str]:
    return {text.split(":", 1)[0] for text in found.values()}


def _gone(tmp: Path, within: float = 180.0) -> list[str]:
    deadline = time.monotonic() + within
    while (left := _cluster_processes(tmp)) and time.monotonic() < deadline:
        time.sleep(1.0)
    return [f"{pid} {text}" for pid, text in left.items()]


#: What a running cluster of ``agentgym ray up`` is made of (each node has its agents).
CLUSTER_KINDS = {"ray start", "gcs_server", "raylet", "dashboard agent", "runtime-env agent"}


def _records(out: Path) -> list[dict]:
    path = out / "results.jsonl"
    if not path.is_file():
        return []
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip().endswith("}")]


def test_up_bench_down_on_a_loaded_machine(scratch):
    env = _env(scratch)
    with loaded():
        up = _agentgym(env, *UP)
        assert up.returncode == 0, up.stderr[-2000:]
        assert up.stdout.startswith("export RAY_ADDRESS=127.0.0.1:")
        address = up.stdout.strip().split("=", 1)[1]
        status = _agentgym(env, "ray", "status")
        assert address in status.stdout and "worker2" in status.stdout
        running = _cluster_processes(scratch)
        assert _kinds(running) >= CLUSTER_KINDS, running
        # every node has its raylet and agents: the head and two workers
        assert sum(v.startswith("raylet:") for v in running.values()) == 3, running

        out = scratch / "run"
        bench, output, seen = _watched(scratch, {**env, "RAY_ADDRESS": address}, *BENCH, str(out))
        assert bench.returncode == 0, output[-3000:]
        assert "worker" in seen, seen  # the env actors ran in the cluster's workers
        records = _records(out)
        assert len(records) == 6 and all(r["success"] for r in records)
        # `-j 2` started two actors, one per 1-CPU worker; the head (no CPUs: drivers only)
        # played none. Both workers play only if both actors are up before the episodes run
        # out: on a loaded machine one actor may play all six while the other still starts.
        text = " ".join(output.split())  # the console wraps long lines
        where = r"((?:[\w.:]+ \d+, )*[\w.:]+ \d+)"
        stats = re.search(
            rf"ray: 6 episodes on [12] nodes, (\d+) actors .*?; per node: {where}", text
        )
        assert stats and int(stats[1]) >= 2, output[-2000:]
        played = dict(x.split(" ") for x in stats[2].split(", "))
        assert set(played) <= {"127.0.0.2", "127.0.0.3"}, played  # the workers' node IPs
        assert sum(map(int, played.values())) == 6, played

        down = _agentgym({**env, "RAY_ADDRESS": address}, "ray", "down")
        assert down.returncode == 0 and f"{address} ended" in down.stderr
        assert _gone(scratch) == []
        assert "no cluster" in _agentgym(env, "ray", "status").stderr


def test_bare_ray_cleans_up_after_a_run_and_after_its_driver_is_killed(scratch):
    env = _env(scratch)
    out = scratch / "run"
    with loaded():
        bench, output, seen = _watched(scratch, env, *BARE, str(out))
        assert bench.returncode == 0, output[-3000:]
        assert len(_records(out)) == 3
        assert CLUSTER_KINDS | {"worker"} <= seen, seen  # its own cluster, while it ran
        assert _gone(scratch) == []

        killed = scratch / "killed"
        cmd = [sys.executable, "-m", "agentgym_envs.cli", "bench", "--envs", "Maze-v0"]
        cmd += ["--policy", "expert", "--ray", "-j", "1", "--no-progress", "--out", str(killed)]
        driver = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + TIMEOUT
            while not _records(killed) and driver.poll() is None and time.monotonic() < deadline:
                time.sleep(0.5)
            assert _records(killed), "the run never recorded an episode"
            running = _cluster_processes(scratch)
            assert CLUSTER_KINDS | {"worker"} <= _kinds(running), running
            driver.send_signal(signal.SIGKILL)
            driver.wait(timeout=60)
        finally:
            if driver.poll() is None:
                driver.kill()
        assert _gone(scratch) == []


def test_the_guide_shows_the_commands_run_here():
    """The guide's example is the sequence :func:`test_up_bench_down_on_a_loaded_machine`
    runs under load (its output folder aside); the docs test runs the block as written
    (``tests/docs/test_docs_code.py``, holding the Ray tests' lock)."""
    assert '<!-- docs-test: run -->\n```bash\neval "$(agentgym ray up' in GUIDE.read_text("utf-8")
    block = GUIDE.read_text("utf-8").split('eval "$(agentgym ray up', 1)[1].split("```", 1)[0]
    lines = [x.split("#", 1)[0].strip() for x in f'eval "$(agentgym ray up{block}'.splitlines()]
    assert lines == [
        f'eval "$(agentgym {" ".join(UP)})"',
        "agentgym ray status",
        f"agentgym {' '.join(BENCH)} runs/maze-ray",
        "agentgym ray down",
    ], lines
    assert f"```bash\nagentgym {' '.join(BARE)} runs/maze-bare\n```" in GUIDE.read_text("utf-8")


def test_bad_input_is_one_line(scratch):
    env = _env(scratch)
    down = _agentgym(env, "ray", "down", "--address", "127.0.0.1:1")
    assert down.returncode == 2
    assert down.stderr.count("\n") == 1 and "agentgym ray status" in down.stderr
    nothing = _agentgym(env, "ray", "down")
    assert nothing.returncode == 2 and "RAY_ADDRESS" in nothing.stderr
    bad = _agentgym(env, "ray", "up", "--resources", "[1]")
    assert bad.returncode == 2 and "JSON object" in bad.stderr
