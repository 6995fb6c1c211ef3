"""Walking the process table in tests, tolerant of every other process on the machine.

Tests run beside other work: while a test walks its processes, others start and exit (a
process's ``/proc`` entry vanishes between listing it and reading it; psutil says
``NoSuchProcess``, a raw read says ``FileNotFoundError``). These helpers read what they can and
treat a vanished process as gone, never as an error.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

import psutil

T = TypeVar("T")

#: What reading a process that has just exited (or is not ours to read) raises.
GONE = (psutil.NoSuchProcess, psutil.AccessDenied, FileNotFoundError, ProcessLookupError)


def read(proc: psutil.Process, how: Callable[[psutil.Process], T], default: T) -> T:
    """``how(proc)``, or ``default`` when the process went away (or may not be read)."""
    try:
        return how(proc)
    except GONE:
        return default


def descendants(pid: int) -> list[psutil.Process]:
    """The processes below ``pid`` (all levels); ``[]`` when ``pid`` itself is gone."""
    try:
        return psutil.Process(pid).children(recursive=True)
    except GONE:
        return []


def alive(procs: Iterable[psutil.Process]) -> list[psutil.Process]:
    """The processes of ``procs`` still running (a zombie counts as ended)."""
    return [p for p in procs if read(p, _running, False)]


def _running(proc: psutil.Process) -> bool:
    return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE


def named(procs: Iterable[psutil.Process], prefix: str) -> list[psutil.Process]:
    """The processes of ``procs`` whose name starts with ``prefix`` (vanished ones left out)."""
    return [p for p in procs if read(p, lambda q: q.name(), "").startswith(prefix)]


def cmdline(proc: psutil.Process) -> list[str]:
    """The process's command line (``[]`` when it went away)."""
    return read(proc, lambda q: q.cmdline(), [])


def names(procs: Iterable[psutil.Process]) -> list[Any]:
    """Names of ``procs`` for an assertion message (``?`` for a vanished one)."""
    return [read(p, lambda q: q.name(), "?") for p in procs]


@contextlib.contextmanager
def churn(pause: float = 0.3) -> Iterator[dict[str, int]]:
    """Beside the ``with`` block, start and kill a Chromium in a loop (when there is one) and
    start short-lived processes in another loop, as a busy machine does; yields the counts of
    processes started so far (``chromium``, ``short``)."""
    from agentgym_envs.browser import CHROMIUM_ARGS, chromium_path

    counts = {"chromium": 0, "short": 0}
    stop = threading.Event()
    exe = chromium_path()

    def browsers() -> None:
        with tempfile.TemporaryDirectory() as profile:
            while exe and not stop.is_set():
                proc = subprocess.Popen(
                    [
                        exe,
                        *CHROMIUM_ARGS,
                        "--headless",
                        f"--user-data-dir={profile}",
                        "about:blank",
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
                counts["chromium"] += 1
                stop.wait(pause)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()

    def short() -> None:
        while not stop.is_set():
            subprocess.run(["true"], check=False)
            counts["short"] += 1
            stop.wait(0.02)

    threads = [threading.Thread(target=f, daemon=True) for f in (browsers, short)]
    for thread in threads:
        thread.start()
    try:
        yield counts
    finally:
        stop.set()
        for thread in threads:
            thread.join(60)
