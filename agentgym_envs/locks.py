"""File locks between processes: one exclusive ``flock`` helper for every caller.

:func:`file_lock` waits for the lock (one process builds or installs something, the others
wait for it); :func:`hold_lock` takes a lock without waiting and keeps it until its handle is
closed (a run folder one process writes to: a second one is told who holds it). Both are
``fcntl`` locks, freed by the operating system when the process ends, however it ends.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO


class LockHeld(OSError):
    """The lock is held by another process; :attr:`holder` is what that process wrote in it."""

    def __init__(self, path: Path, holder: str) -> None:
        super().__init__(f"{path} is locked by {holder}")
        self.path = path
        self.holder = holder


@contextlib.contextmanager
def file_lock(path: str | os.PathLike[str]) -> Iterator[IO[str]]:
    """Hold an exclusive lock on ``path`` (created, parent folders too) for the ``with`` block;
    waits while another process holds it.

    Example::

        with file_lock(cache / "build.lock"):
            if not done.exists():
                build()
    """
    import fcntl

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield handle
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def hold_lock(path: str | os.PathLike[str], note: str) -> IO[str]:
    """Take the lock on ``path`` without waiting and write ``note`` (who holds it) into it;
    the lock lasts until the returned handle is closed or the process ends.

    Raises:
        LockHeld: another process holds it (its ``holder`` is the note that process wrote).
    """
    import fcntl

    path = Path(path)
    handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - the caller closes it
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise LockHeld(path, holder) from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{note}\n")
    handle.flush()
    return handle


__all__ = ["LockHeld", "file_lock", "hold_lock"]
