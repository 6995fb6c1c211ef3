"""Ctrl-C (SIGINT) as flags a long run polls, so it stops between episodes and keeps its work.

A ``KeyboardInterrupt`` raised at an arbitrary point of the main thread can leave a lock held
and worker threads waiting on it for good; and a process started in the background by a shell
without job control inherits SIGINT *ignored*, so Python never raises one. :class:`CtrlC`
installs its own handler for the ``with`` block (ignored or not before) and turns the first
SIGINT into :attr:`CtrlC.pressed`, a second one into :attr:`CtrlC.again`.
"""

from __future__ import annotations

import signal
import threading
from typing import Any


class CtrlC:
    """SIGINT as two events (first press, second press) for the ``with`` block's duration.

    Off the main thread (where Python cannot install handlers) the events never fire and a
    KeyboardInterrupt, if any, goes to the main thread as usual. ``raise_again``: the second
    SIGINT also raises ``KeyboardInterrupt`` in the main thread (work the main thread does
    itself is then cut short, as Ctrl-C usually does).
    """

    def __init__(self, *, raise_again: bool = False) -> None:
        self.pressed = threading.Event()
        self.again = threading.Event()
        self.raise_again = raise_again
        self._previous: Any = None
        self._installed = False

    def _handle(self, signum: int, frame: Any) -> None:
        if not self.pressed.is_set():
            self.pressed.set()
            return
        self.again.set()
        if self.raise_again:
            raise KeyboardInterrupt

    def __enter__(self) -> CtrlC:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._installed = True
        return self

    def __exit__(self, *exc: object) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)
            self._installed = False


__all__ = ["CtrlC"]
