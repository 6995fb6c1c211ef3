"""Experience: a store of every episode, feedback, agent versions, A/B tests, synthetic
scenarios, training-data export and a local dashboard.

Needs the extra: ``pip install "agentgym-envs[experience]"`` (SQLAlchemy, Alembic, platformdirs,
SciPy, FastAPI, uvicorn, Jinja2, matplotlib; ``psycopg[binary]`` for PostgreSQL).

    from agentgym_envs.experience import open_store, import_path
    store = open_store()                      # SQLite under the user's data folder
    import_path(store, "bench-runs/expert")   # idempotent
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "ExperienceStore": "store",
    "open_store": "store",
    "default_url": "store",
    "data_dir": "store",
    "ImportReport": "ingest",
    "import_path": "ingest",
    "import_records": "ingest",
    "add_feedback": "feedback",
    "list_feedback": "feedback",
    "export_feedback": "feedback",
    "register_version": "versions",
    "get_version": "versions",
    "list_versions": "versions",
    "compare_versions": "versions",
    "promote": "versions",
    "current_version": "versions",
    "rollback_if_worse": "versions",
    "run_ab_test": "ab",
    "assign_arm": "ab",
    "analyse": "ab",
    "export_training": "training",
    "select_episodes": "training",
    "trajectories": "training",
    "generate_scenarios": "synthetic",
    "augment_trajectories": "synthetic",
    "PerturbObservations": "synthetic",
    "Scenario": "synthetic",
    "create_app": "dashboard",
}


def __getattr__(name: str) -> Any:
    # nothing heavy at import time: SQLAlchemy and friends load on first use
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agentgym_envs.experience' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"agentgym_envs.experience.{module}"), name)


__all__ = [
    "ExperienceStore",
    "ImportReport",
    "PerturbObservations",
    "Scenario",
    "add_feedback",
    "analyse",
    "assign_arm",
    "augment_trajectories",
    "compare_versions",
    "create_app",
    "current_version",
    "data_dir",
    "default_url",
    "export_feedback",
    "export_training",
    "generate_scenarios",
    "get_version",
    "import_path",
    "import_records",
    "list_feedback",
    "list_versions",
    "open_store",
    "promote",
    "register_version",
    "rollback_if_worse",
    "run_ab_test",
    "select_episodes",
    "trajectories",
]
