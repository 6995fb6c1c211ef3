"""An exclusive lock between processes, held on a lock file (``fcntl.flock``).

The lock goes with the open file: a process that dies holding it lets go at once, so a lock
file left on disk never blocks anyone.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def file_lock(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold the exclusive lock of ``path`` (created with its folder if missing) for the block;
    wait for it while another process holds it. Without ``fcntl`` (Windows) there is no lock."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


__all__ = ["file_lock"]
