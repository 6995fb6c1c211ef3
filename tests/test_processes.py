"""The tests' process-table helpers read a table that changes under them without failing."""

from __future__ import annotations

import os
import subprocess
import sys

import psutil

from tests.processes import alive, churn, cmdline, descendants, named, names


def test_a_process_that_exited_reads_as_gone():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    [child] = [p for p in descendants(os.getpid()) if p.pid == proc.pid]
    assert alive([child]) == [child] and cmdline(child)[0] == sys.executable
    proc.kill()
    proc.wait()
    assert alive([child]) == []
    assert cmdline(child) == [] and named([child], "python") == [] and names([child]) == ["?"]
    assert descendants(proc.pid) == []


def test_walking_the_table_while_processes_start_and_exit():
    """Many walks of this process's tree while a Chromium (where there is one) and short
    processes start and exit beside them: no walk raises, and what a walk found either is
    running or reads as gone."""
    walks = 0
    with churn(pause=0.05) as counts:
        while walks < 200 or counts["short"] < 20:
            found = descendants(os.getpid())
            named(found, "chromium")
            for proc in found:
                cmdline(proc)
            alive(found)
            walks += 1
    assert counts["short"] >= 20
    assert all(isinstance(p, psutil.Process) for p in descendants(os.getpid()))
