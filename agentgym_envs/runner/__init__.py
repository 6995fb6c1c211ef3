"""The field runner: profiles, pre-flight checks, repeatable batches and episode events.

::

    from agentgym_envs.runner import load_profile, plan_field, run_profile
    result = run_profile(load_profile("profile.yaml"), ["lightweight"])

On the command line it is ``agentgym run --config profile.yaml --run BabyAI,TextCraft``
(``--dry-run``, ``--list-envs``, ``--repeat N``); see ``examples/profile.yaml``. Events
(``agentgym.episode.completed.v1``, ``agentgym.eval.batch.completed.v1``,
``agentgym.field.status.v1``) go to JSONL, NATS and webhook sinks through a disk outbox; their
JSON schemas ship in ``agentgym_envs/runner/schemas/`` (:func:`event_schema`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentgym_envs.runner.catalog import (
    battery_ids,
    env_health,
    expand,
    family_category,
)
from agentgym_envs.runner.events import (
    BATCH_COMPLETED,
    EPISODE_COMPLETED,
    EVENT_TYPES,
    FIELD_STATUS,
    event_schema,
    make_event,
    schema_errors,
)
from agentgym_envs.runner.field import (
    EXIT_ENDPOINT,
    EXIT_EPISODE_ERRORS,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PREFLIGHT,
    EXIT_USAGE,
    EnvPlan,
    FieldResult,
    FieldRunner,
    plan_field,
)
from agentgym_envs.runner.profile import Profile, ProfileError, load_profile, parse_profile


def run_profile(
    profile: Profile,
    names: list[str] | None = None,
    *,
    out: str | Path | None = None,
    config_name: str = "profile",
) -> tuple[FieldResult, dict[str, int]]:
    """Plan and play ``profile`` (``names``: envs / batteries, default its ``envs``) into
    ``out`` (default its ``output``), sending its events; returns the result and, per sink,
    the events still buffered on disk. No pre-flight: see :func:`~.preflight.preflight`."""
    from agentgym_envs.runner.endpoints import PolicyChain
    from agentgym_envs.runner.sinks import build_bus

    folder = Path(out if out is not None else profile.output).expanduser()
    plans = plan_field(profile, names)
    chain = PolicyChain(profile.model)
    bus: Any = None
    try:
        chain.start()
        bus = build_bus(profile.sinks, folder)
        result = FieldRunner(profile, plans, folder, bus, chain, config_name=config_name).run()
    finally:
        undelivered = bus.close(profile.flush_seconds) if bus is not None else {}
        chain.close()
    return result, undelivered


__all__ = [
    "BATCH_COMPLETED",
    "EPISODE_COMPLETED",
    "EVENT_TYPES",
    "EXIT_ENDPOINT",
    "EXIT_EPISODE_ERRORS",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_PREFLIGHT",
    "EXIT_USAGE",
    "FIELD_STATUS",
    "EnvPlan",
    "FieldResult",
    "FieldRunner",
    "Profile",
    "ProfileError",
    "battery_ids",
    "env_health",
    "event_schema",
    "expand",
    "family_category",
    "load_profile",
    "make_event",
    "parse_profile",
    "plan_field",
    "run_profile",
    "schema_errors",
]
