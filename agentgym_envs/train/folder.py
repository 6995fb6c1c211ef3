"""A training run's folder: its settings, one line per finished stage, each stage's files.

::

    <out>/run.json          the settings and their fingerprint
    <out>/results.jsonl     one JSON line per finished stage (``stage``, ``label``, figures)
    <out>/collect/          the expert's episodes (``trajectories.jsonl``, AgentTraj)
    <out>/sft/model/        the behaviour-cloned checkpoint (``sft/trainer/``: resumable state)
    <out>/rl/model/         the RL checkpoint (``rl/trainer/``: resumable state)
    <out>/eval/<model>/     the benchmark runner's folder for one model (per-episode results)

A stage is finished when its line is in ``results.jsonl``; its checkpoint is moved into place
whole just before (so a killed stage leaves no half-written model, only the trainer's own
resumable state). The folder is locked while a process works in it (an advisory lock the
kernel drops when the process dies, however it dies).
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import shutil
import time
from pathlib import Path
from typing import Any

from agentgym_envs.train.settings import TrainError, TrainSettings

logger = logging.getLogger(__name__)

RUN_FILE = "run.json"
RESULTS_FILE = "results.jsonl"
LOCK_FILE = ".lock"


class RunFolder:
    """One training run on disk (see the module docstring); a context manager holding the lock.

    Opening a folder with settings other than the ones it was started with is refused with
    the settings that differ and the mend (another folder, or the same settings).
    """

    def __init__(self, out: str | os.PathLike[str], settings: TrainSettings) -> None:
        self.path = Path(out).expanduser()
        self.settings = settings
        self._lock_fd: int | None = None

    # -- opening -------------------------------------------------------------------------
    def __enter__(self) -> RunFolder:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> RunFolder:
        if self.path.exists() and not self.path.is_dir():
            raise TrainError(f"{self.path} is a file: give a folder for the run (--out)")
        self.path.mkdir(parents=True, exist_ok=True)
        self._lock()
        run_file = self.path / RUN_FILE
        if run_file.is_file():
            kept = TrainSettings.from_dict(json.loads(run_file.read_text("utf-8"))["settings"])
            if kept.fingerprint() != self.settings.fingerprint():
                self.close()
                changed = "; ".join(kept.diff(self.settings))
                raise TrainError(
                    f"{self.path} holds a run with other settings ({changed}): "
                    "use another --out folder, or the settings in its run.json"
                )
        else:
            record = {
                "fingerprint": self.settings.fingerprint(),
                "settings": self.settings.as_dict(),
                "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            }
            write_atomic(run_file, json.dumps(record, indent=2) + "\n")
        return self

    def _lock(self) -> None:
        fd = os.open(self.path / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise TrainError(
                f"{self.path} is in use by another training process: wait for it, or use "
                "another --out folder"
            ) from None
        self._lock_fd = fd

    def close(self) -> None:
        if self._lock_fd is not None:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = None

    # -- stages --------------------------------------------------------------------------
    def stage_dir(self, *parts: str) -> Path:
        folder = self.path.joinpath(*parts)
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def results(self) -> list[dict[str, Any]]:
        """The finished stages' lines, in order (a torn last line, from a kill, is ignored)."""
        file = self.path / RESULTS_FILE
        if not file.is_file():
            return []
        out = []
        for line in file.read_text("utf-8").splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                logger.warning("%s: ignoring a torn line", file)
        return out

    def finished(self, label: str) -> dict[str, Any] | None:
        """The result line of ``label`` (``collect``, ``sft``, ``eval:sft``...), if finished."""
        return next((r for r in self.results() if r.get("label") == label), None)

    def finish(self, stage: str, label: str, figures: dict[str, Any]) -> dict[str, Any]:
        """Append the stage's line to ``results.jsonl`` (the stage is then finished)."""
        record = {
            "stage": stage,
            "label": label,
            "fingerprint": self.settings.fingerprint(),
            "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            **figures,
        }
        file = self.path / RESULTS_FILE
        text = file.read_text("utf-8") if file.is_file() else ""
        if text and not text.endswith("\n"):  # a line torn by a kill: drop it
            text = text[: text.rfind("\n") + 1]
            write_atomic(file, text)
        with file.open("a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
            f.flush()
            os.fsync(f.fileno())
        return record

    def checkpoint(self, stage: str) -> Path:
        """Where stage ``sft`` or ``rl`` keeps its finished model."""
        return self.path / stage / "model"


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def move_into_place(partial: Path, final: Path) -> None:
    """Replace ``final`` with the folder ``partial`` (a finished checkpoint appears whole)."""
    if final.exists():
        shutil.rmtree(final)
    os.replace(partial, final)


__all__ = ["RESULTS_FILE", "RUN_FILE", "RunFolder", "move_into_place", "write_atomic"]
