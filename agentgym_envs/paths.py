"""Where agentgym-envs keeps what it builds once per machine: one cache folder for everything.

:func:`cache_root` is the one place that reads ``$AGENTGYM_ENVS_CACHE`` and the XDG cache
folder; every cached thing (the SQL databases, the WebArena sites' data, TextWorld games, the
local model and its conversion, ecosystem venvs) lives in a folder below it.
"""

from __future__ import annotations

import os
from pathlib import Path

#: Names the cache folder itself (every part of the package's cache lives below it).
CACHE_ENV = "AGENTGYM_ENVS_CACHE"


def cache_root(*parts: str) -> Path:
    """The package's cache folder, absolute: ``$AGENTGYM_ENVS_CACHE``, else
    ``$XDG_CACHE_HOME/agentgym-envs``, else ``~/.cache/agentgym-envs``; ``parts`` joined below
    it (``cache_root("sql")``). Nothing is created."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        base = Path(explicit).expanduser()
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "agentgym-envs"
    return base.joinpath(*parts).resolve()


__all__ = ["CACHE_ENV", "cache_root"]
