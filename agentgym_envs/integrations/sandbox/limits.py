"""What a sandboxed process tree may use: memory, CPU, processes, file sizes.

Every process of the tree gets resource limits (``setrlimit`` by the sandbox's supervisor before it
starts the command, soft and hard alike, so no process inside can raise them): ``RLIMIT_AS``
(address space, per process), ``RLIMIT_CPU`` (CPU seconds, per process), ``RLIMIT_FSIZE``
(largest file written), ``RLIMIT_NOFILE`` and no core dumps. The process count is capped for
the whole tree: in a ``pids`` cgroup of its own when this process may make one (root, or a
delegated cgroup), and always with ``RLIMIT_NPROC`` set by the sandbox's supervisor inside its
user namespace (the kernel exempts a root-owned tree from ``RLIMIT_NPROC``, so as root the
cgroup is what holds). The wall-clock deadline is the caller's: it kills the tree.
"""

from __future__ import annotations

import logging
import os
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

_CGROUP_ROOT = Path("/sys/fs/cgroup")


@dataclass(frozen=True)
class Limits:
    """The limits an operator sets for one sandbox (``None``: not limited).

    Attributes:
        memory: bytes of address space per process (``RLIMIT_AS``; Node's and Bun's reserved
            ranges count, so keep it in GiB).
        processes: processes and threads of the whole tree (pids cgroup, ``RLIMIT_NPROC``).
        cpu: CPU seconds per process (``RLIMIT_CPU``: SIGXCPU, then SIGKILL).
        file_size: bytes of the largest file written (``RLIMIT_FSIZE``).
        open_files: open file descriptors per process (``RLIMIT_NOFILE``).
    """

    memory: int | None = 16 << 30
    processes: int | None = 1024
    cpu: int | None = 3600
    file_size: int | None = 1 << 30
    open_files: int | None = 65536

    def rlimits(self) -> dict[str, int]:
        """The per-process limits as ``{"RLIMIT_AS": bytes, ...}`` (for the supervisor)."""
        pairs = {
            "RLIMIT_AS": self.memory,
            "RLIMIT_CPU": self.cpu,
            "RLIMIT_FSIZE": self.file_size,
            "RLIMIT_NOFILE": self.open_files,
            "RLIMIT_NPROC": self.processes,
            "RLIMIT_CORE": 0,
        }
        return {name: int(value) for name, value in pairs.items() if value is not None}


class PidsCgroup:
    """A ``pids`` cgroup of its own under this process's, capping a tree's process count; a
    context manager that kills what is left in it and removes it. :meth:`make` returns None
    where no such cgroup can be made (no controller, no permission)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def make(cls, processes: int) -> PidsCgroup | None:
        for parent in _pids_parents():
            path = parent / f"agentgym-sandbox-{uuid.uuid4().hex[:12]}"
            try:
                path.mkdir()
            except OSError:
                continue
            try:
                (path / "pids.max").write_text(str(processes))
            except OSError:
                path.rmdir()
                continue
            return cls(path)
        return None

    @property
    def procs(self) -> Path:
        """The file a process writes its pid to, to join."""
        return self.path / "cgroup.procs"

    def pids(self) -> list[int]:
        try:
            return [int(p) for p in (self.path / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def close(self) -> None:
        """Kill every process still in the cgroup and remove it."""
        for _ in range(100):
            left = self.pids()
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.05)
        logger.warning("could not remove the sandbox cgroup %s", self.path)


def _pids_parents() -> list[Path]:
    """Where this process's ``pids`` cgroup is: cgroup v1's ``pids`` hierarchy, else v2's."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "pids" in controllers.split(","):
            found.append(_CGROUP_ROOT / "pids" / path.lstrip("/"))
        elif controllers == "":
            unified = _CGROUP_ROOT / path.lstrip("/")
            try:
                enabled = (unified / "cgroup.subtree_control").read_text().split()
            except OSError:
                continue
            if "pids" in enabled:
                found.append(unified)
    return found


__all__ = ["Limits", "PidsCgroup"]
