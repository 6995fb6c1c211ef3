"""Ray fixtures: one Ray cluster on this machine at a time, across xdist workers."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

#: Every test module that starts Ray holds this lock while its cluster lives.
RAY_LOCK = Path(tempfile.gettempdir()) / "agentgym-envs-ray-tests.lock"

#: A sitecustomize that hides the top-level modules named in $AGENTGYM_TEST_HIDE from imports
#: in that process (as if their package were not installed there).
HIDE_MODULES = """
import importlib.machinery as _m
import os as _os

_hidden = set(filter(None, _os.environ.get("AGENTGYM_TEST_HIDE", "").split(",")))
_find = _m.PathFinder.find_spec.__func__


def _find_spec(cls, name, path=None, target=None):
    if name.split(".")[0] in _hidden:
        return None
    return _find(cls, name, path, target)


_m.PathFinder.find_spec = classmethod(_find_spec)
"""


@pytest.fixture(scope="module")
def ray_lock():
    """Held while a module's Ray cluster lives: xdist workers never run two at once (each
    cluster is a dozen processes and ~1 GB; two would starve a 2-core machine)."""
    filelock = pytest.importorskip("filelock")
    with filelock.FileLock(str(RAY_LOCK), timeout=1800):
        yield


@pytest.fixture(scope="module")
def hide_dir(tmp_path_factory) -> Path:
    """A folder for PYTHONPATH whose sitecustomize hides $AGENTGYM_TEST_HIDE's modules."""
    folder = tmp_path_factory.mktemp("hide")
    (folder / "sitecustomize.py").write_text(HIDE_MODULES)
    return folder


def pythonpath(*first: os.PathLike[str] | str) -> str:
    """``first`` ahead of the current PYTHONPATH (the worktree under test stays on it)."""
    rest = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return os.pathsep.join([*map(str, first), *rest])
