"""A training run's experience store: every episode its stages play, under a model version.

``<out>/experience.db`` is the experience platform's own store (SQLite), filled by its own
importer (:func:`~agentgym_envs.experience.import_path`) from the benchmark runner's folders:
``collect`` adds the expert's train-split episodes as ``expert@collect``; each ``eval`` adds
its model's held-out episodes as ``<model>@base``, ``@sft`` or ``@rl``, each version registered
with its parent (``sft`` from ``base``, ``rl`` from ``sft``). Imports are idempotent, so a
resumed stage adds only what is new. The store is what ``agentgym experience`` (dashboard,
A/B tests, exports) reads: ``agentgym experience versions list --db <out>/experience.db``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from agentgym_envs.train.folder import RunFolder

logger = logging.getLogger(__name__)

#: The store's file in the run folder.
STORE_FILE = "experience.db"
#: Each trained model's parent version.
PARENTS = {"base": None, "sft": "base", "rl": "sft"}


def model_name(folder: RunFolder) -> str:
    """The run's model as a version name (``smollm2``, a folder's or an id's last part)."""
    return Path(folder.settings.model).name or "model"


def record(folder: RunFolder, runner_dir: Path, label: str) -> dict[str, Any]:
    """Import the runner folder of stage ``label`` (``collect``, ``eval:base``...) into the run's
    store; returns ``{"store": {"version", "added", "skipped"}}`` for the stage's line (empty
    without the experience extra, which ``agentgym-envs[train]`` includes)."""
    try:
        from agentgym_envs.experience import import_path, open_store, register_version
    except ImportError:
        logger.info('no experience store: pip install "agentgym-envs[experience]"')
        return {}
    store = open_store(folder.path / STORE_FILE)
    try:
        if label == "collect":
            name, version = "expert", "collect"
            register_version(store, name, version, model="expert policy")
        else:
            name, version = model_name(folder), label.split(":", 1)[1]
            chain = [version]
            while PARENTS.get(chain[-1]):
                chain.append(PARENTS[chain[-1]])
            for v in reversed(chain):  # parents first
                parent = PARENTS.get(v)
                register_version(
                    store,
                    name,
                    v,
                    model=f"{folder.settings.model} ({v})",
                    parent=f"{name}@{parent}" if parent else None,
                )
        report = import_path(store, runner_dir, version=f"{name}@{version}")
    finally:
        store.close()
    return {
        "store": {
            "version": f"{name}@{version}",
            "added": report.added,
            "skipped": report.skipped,
        }
    }


__all__ = ["PARENTS", "STORE_FILE", "model_name", "record"]
