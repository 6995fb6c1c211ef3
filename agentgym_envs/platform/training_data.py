"""An agent's executions as training records: what ``GET /v1/agents/{id}/training-data`` (the
SDK's ``export_training_data``) answers and what a training job's ``export`` stage trains on,
read from the platform's own tables in the caller's tenant session."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from agentgym_envs.experience.models import AgentVersion, Episode
from agentgym_envs.experience.training import export_training, select_episodes
from agentgym_envs.platform.db import SessionStore


def agent_versions(s, agent_name: str) -> list[str]:
    """The versions of an agent (``1.0.0``), oldest first."""
    return list(
        s.scalars(
            select(AgentVersion.version)
            .where(AgentVersion.name == agent_name)
            .order_by(AgentVersion.id)
        )
    )


def agent_labels(s, agent_name: str) -> list[str]:
    """The ``name@version`` labels of an agent's versions, oldest first."""
    return [f"{agent_name}@{v}" for v in agent_versions(s, agent_name)]


def agent_records(
    s,
    agent_name: str,
    fmt: str = "sft",
    *,
    outcome: str | None = None,
    feedback: str | None = None,
    include_failed: bool = False,
) -> list[dict[str, Any]]:
    """The executions of agent ``agent_name`` (every version) as ``fmt`` records
    (:func:`~agentgym_envs.experience.training.export_training`'s formats), in session ``s``
    (bound to the organisation: row-level security)."""
    labels = agent_labels(s, agent_name)
    if not labels:
        return []
    store = SessionStore(s)
    ids = select_episodes(store, versions=labels, outcome=outcome, feedback=feedback)
    if not ids:
        return []
    runs = sorted(set(s.scalars(select(Episode.run_id).where(Episode.id.in_(ids)))))
    return export_training(
        store, fmt, include_failed=include_failed, runs=runs, outcome=outcome, feedback=feedback
    )


__all__ = ["agent_labels", "agent_records", "agent_versions"]
