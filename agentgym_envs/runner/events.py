"""The field runner's events and their JSON schemas (shipped in ``runner/schemas/``).

Every event is one flat JSON object: ``event`` (its type, which is also its NATS subject after
the configured prefix), ``event_id`` (unique; a redelivered event keeps it), ``time`` (UTC),
``node``, ``run_id``, then the type's own fields:

* ``agentgym.episode.completed.v1`` -- after each episode: ``episode_id``, ``env``, ``reward``,
  ``rounds``, ``duration_s``, ``outcome``, ``model``, ...
* ``agentgym.eval.batch.completed.v1`` -- after the last episode of one env in a run:
  ``batch_id``, ``env``, ``n_episodes``, ``mean_reward``, ...
* ``agentgym.field.status.v1`` -- when a run starts and stops: ``status``, ``config``.
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timezone
from functools import cache
from importlib import resources
from typing import Any

EPISODE_COMPLETED = "agentgym.episode.completed.v1"
BATCH_COMPLETED = "agentgym.eval.batch.completed.v1"
FIELD_STATUS = "agentgym.field.status.v1"
EVENT_TYPES = (EPISODE_COMPLETED, BATCH_COMPLETED, FIELD_STATUS)


def make_event(kind: str, *, node: str, run_id: str, **fields: Any) -> dict[str, Any]:
    """A new event of type ``kind`` with a fresh ``event_id`` and the current time."""
    if kind not in EVENT_TYPES:
        raise ValueError(f"unknown event type {kind!r}: one of {', '.join(EVENT_TYPES)}")
    return {
        "event": kind,
        "event_id": uuid.uuid4().hex,
        "time": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
        "node": node,
        "run_id": run_id,
        **fields,
    }


@cache
def event_schema(kind: str) -> dict[str, Any]:
    """The JSON schema (draft 2020-12) of event type ``kind``, read from the package data."""
    if kind not in EVENT_TYPES:
        raise ValueError(f"unknown event type {kind!r}: one of {', '.join(EVENT_TYPES)}")
    text = (
        resources.files("agentgym_envs.runner")
        .joinpath("schemas", f"{kind}.json")
        .read_text(encoding="utf-8")
    )
    return json.loads(text)


def schema_errors(event: dict[str, Any]) -> list[str]:
    """What is wrong with ``event`` against its schema (needs ``jsonschema``); ``[]`` if valid."""
    import jsonschema

    kind = event.get("event")
    if kind not in EVENT_TYPES:
        return [f"event: {kind!r} is not one of {', '.join(EVENT_TYPES)}"]
    validator = jsonschema.Draft202012Validator(event_schema(kind))
    return [
        f"{'.'.join(str(p) for p in e.absolute_path) or '(event)'}: {e.message}"
        for e in validator.iter_errors(event)
    ]


__all__ = [
    "BATCH_COMPLETED",
    "EPISODE_COMPLETED",
    "EVENT_TYPES",
    "FIELD_STATUS",
    "event_schema",
    "make_event",
    "schema_errors",
]
