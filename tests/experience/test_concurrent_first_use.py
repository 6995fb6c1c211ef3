"""Several processes importing at once into a store nobody has opened yet: the first opens
migrate one at a time (a lock file next to a SQLite file, an advisory lock on PostgreSQL), so
every import succeeds and the schema is made once."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

PROCESSES = 8

#: Waits for the start file, then opens the (fresh) store and imports its run folder.
_IMPORTER = """
import os, sys, time
from agentgym_envs.experience import open_store
from agentgym_envs.experience.ingest import import_path
url, run, ready, go = sys.argv[1:]
open(ready, "w").close()
while not os.path.exists(go):
    time.sleep(0.001)
store = open_store(url)
report = import_path(store, run)
print(report.added, store.revision())
store.close()
"""


def _import_at_once(tmp_path, url, runs):
    go = tmp_path / "go"
    procs = []
    for i in range(PROCESSES):
        ready = tmp_path / f"ready{i}"
        procs.append(
            (
                ready,
                subprocess.Popen(
                    [sys.executable, "-c", _IMPORTER, url, str(runs[i]), str(ready), str(go)],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    env={**os.environ, "PYTHONPATH": os.getcwd()},
                ),
            )
        )
    deadline = time.monotonic() + 600
    while not all(ready.exists() for ready, _ in procs):
        assert time.monotonic() < deadline, "the importers did not start"
        assert all(p.poll() is None for _, p in procs), [p.communicate() for _, p in procs]
        time.sleep(0.05)
    go.touch()  # all of them open the store now
    results = [p.communicate(timeout=600) for _, p in procs]
    for (_, p), (_out, err) in zip(procs, results):
        assert p.returncode == 0, err[-1500:]
    return [out.split() for out, _ in results]


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_url(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "store" / "experience.db")
    return request.getfixturevalue("postgres").create_database()


def test_concurrent_first_imports_into_a_fresh_store_all_succeed(tmp_path, fresh_url, bench_runs):
    from agentgym_envs.experience import open_store
    from agentgym_envs.experience.models import Episode

    # a run folder of its own per process: the migrations are what they contend for
    runs = []
    for i in range(PROCESSES):
        source = bench_runs["expert" if i % 2 else "random"]
        copy = tmp_path / "runs" / f"run{i}"
        copy.mkdir(parents=True)
        for f in source.iterdir():
            if f.is_file():
                (copy / f.name).write_bytes(f.read_bytes())
        runs.append(copy)
    outputs = _import_at_once(tmp_path, fresh_url, runs)
    added = [int(added) for added, _ in outputs]
    assert all(n > 0 for n in added) and len({rev for _, rev in outputs}) == 1
    with open_store(fresh_url) as store, store.session() as s:
        assert s.query(Episode).count() == sum(added)
