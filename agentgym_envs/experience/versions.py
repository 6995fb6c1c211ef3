"""Agent versions: register, compare any two on their shared tasks, promote, roll back.

A version is ``name@version`` (``react-agent@2``) with the model, prompt set and config it ran
with and the version it came from. The *current* version of an agent name is the one its
latest promotion names; :func:`rollback_if_worse` promotes the previous current version back
when the newer one scores significantly worse on the same tasks. Comparisons reuse the
benchmark's paired bootstrap (:func:`agentgym_envs.benchmarks.report.compare_runs`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from agentgym_envs.errors import AgentGymError

logger = logging.getLogger(__name__)


def parse_label(label: str) -> tuple[str, str]:
    """``"name@version"`` -> ``(name, version)``."""
    name, sep, version = label.rpartition("@")
    if not sep or not name or not version:
        raise AgentGymError(
            f"agent version {label!r}: write it as name@version (e.g. react-agent@2)"
        )
    return name, version


def get_or_register(session, name: str, version: str, **fields: Any):
    """The stored version ``name@version``, registered with ``fields`` if new."""
    from sqlalchemy import select

    from agentgym_envs.experience.models import AgentVersion

    found = session.scalars(
        select(AgentVersion).where(AgentVersion.name == name, AgentVersion.version == version)
    ).one_or_none()
    if found is not None:
        return found
    fields = {k: v for k, v in fields.items() if v is not None}
    fields.setdefault("config", {})
    fields.setdefault("notes", "")
    ver = AgentVersion(name=name, version=version, **fields)
    session.add(ver)
    session.flush()
    return ver


def register_version(
    store,
    name: str,
    version: str,
    *,
    model: str | None = None,
    prompt_set: str | None = None,
    config: dict[str, Any] | None = None,
    parent: str | None = None,
    notes: str = "",
):
    """Register ``name@version`` (``parent``: a ``name@version`` label); returns the row.

    Registering an existing label again returns it unchanged.
    """
    with store.session() as s:
        parent_id = None
        if parent is not None:
            parent_id = get_version(store, parent, session=s).id
        return get_or_register(
            s,
            name,
            version,
            model=model,
            prompt_set=prompt_set,
            config=config or {},
            parent_id=parent_id,
            notes=notes,
        )


def get_version(store, label: str, *, session=None):
    """The version ``name@version``, or an error naming the known ones."""
    from sqlalchemy import select

    from agentgym_envs.errors import unknown_name
    from agentgym_envs.experience.models import AgentVersion

    name, version = parse_label(label)

    def find(s):
        row = s.scalars(
            select(AgentVersion).where(AgentVersion.name == name, AgentVersion.version == version)
        ).one_or_none()
        if row is None:
            known = [v.label for v in s.scalars(select(AgentVersion))]
            raise AgentGymError(unknown_name("agent version", label, known))
        return row

    if session is not None:
        return find(session)
    with store.session() as s:
        return find(s)


def list_versions(store) -> list[dict[str, Any]]:
    """Every version with its episode count, success rate, mean score and whether it is current."""
    from sqlalchemy import func, select

    from agentgym_envs.experience.models import AgentVersion, Episode, Run, success_rate

    with store.session() as s:
        stats = {
            vid: (n, succ, score)
            for vid, n, succ, score in s.execute(
                select(
                    Run.version_id,
                    func.count(Episode.id),
                    success_rate(),
                    func.avg(Episode.score),
                )
                .join(Episode, Episode.run_id == Run.id)
                .group_by(Run.version_id)
            )
        }
        out = []
        for v in s.scalars(select(AgentVersion).order_by(AgentVersion.name, AgentVersion.id)):
            n, succ, score = stats.get(v.id, (0, None, None))
            out.append(
                {
                    "id": v.id,
                    "label": v.label,
                    "name": v.name,
                    "version": v.version,
                    "model": v.model,
                    "prompt_set": v.prompt_set,
                    "parent": v.parent.label if v.parent else None,
                    "notes": v.notes,
                    "episodes": int(n),
                    "success_rate": None if succ is None else float(succ),
                    "score": None if score is None else float(score),
                    "created_at": v.created_at,
                }
            )
        currents = {
            name: current_version(store, name, session=s) for name in {o["name"] for o in out}
        }
    for o in out:
        cur = currents.get(o["name"])
        o["current"] = cur is not None and cur.id == o["id"]
    return out


def version_records(store, label: str, *, envs: list[str] | None = None) -> list[dict[str, Any]]:
    """The episodes of ``label`` as benchmark result records (env_id, item_id, sample,
    success, reward), the shape :func:`compare_runs` reads."""
    from sqlalchemy import select

    from agentgym_envs.experience.models import Episode, Run

    with store.session() as s:
        ver = get_version(store, label, session=s)
        q = (
            select(
                Episode.env_id,
                Episode.item_id,
                Episode.sample,
                Episode.success,
                Episode.score,
                Run.id,
            )
            .join(Run, Episode.run_id == Run.id)
            .where(Run.version_id == ver.id)
        )
        if envs:
            q = q.where(Episode.env_id.in_(envs))
        rows = s.execute(q.order_by(Episode.id)).all()
    # samples of different runs of one version must not overwrite each other
    return [
        {
            "env_id": e,
            "item_id": i,
            "sample": f"{run}:{smp}",
            "success": bool(ok),
            "reward": float(sc),
        }
        for e, i, smp, ok, sc, run in rows
    ]


def compare_versions(
    store,
    a: str,
    b: str,
    *,
    confidence: float = 0.95,
    n_boot: int = 10_000,
    seed: int = 0,
    envs: list[str] | None = None,
):
    """B minus A on the (env, item) pairs both versions ran: the benchmark's paired bootstrap
    :class:`~agentgym_envs.benchmarks.report.Comparison`."""
    from agentgym_envs.benchmarks.report import compare_runs

    return compare_runs(
        version_records(store, a, envs=envs),
        version_records(store, b, envs=envs),
        n_boot=n_boot,
        confidence=confidence,
        seed=seed,
    )


def current_version(store, name: str, *, session=None):
    """The version of agent ``name`` that its latest promotion names (``None`` if never promoted)."""
    from sqlalchemy import select

    from agentgym_envs.experience.models import Promotion

    def find(s):
        p = s.scalars(
            select(Promotion)
            .where(Promotion.agent_name == name)
            .order_by(Promotion.id.desc())
            .limit(1)
        ).first()
        return p.version if p is not None else None

    if session is not None:
        return find(session)
    with store.session() as s:
        return find(s)


def promote(store, label: str, *, author: str = "", reason: str = "", action: str = "promote"):
    """Make ``label`` the current version of its agent name (recorded with who and why)."""
    from agentgym_envs.experience.models import Promotion

    with store.session() as s:
        ver = get_version(store, label, session=s)
        s.add(
            Promotion(
                agent_name=ver.name, version_id=ver.id, action=action, reason=reason, author=author
            )
        )
        return ver


def promotion_history(store, name: str) -> list[dict[str, Any]]:
    """Promotions and rollbacks of agent ``name``, oldest first."""
    from sqlalchemy import select

    from agentgym_envs.experience.models import Promotion

    with store.session() as s:
        rows = s.scalars(
            select(Promotion).where(Promotion.agent_name == name).order_by(Promotion.id)
        )
        return [
            {
                "version": p.version.label,
                "action": p.action,
                "reason": p.reason,
                "author": p.author,
                "at": p.created_at,
            }
            for p in rows
        ]


def previous_version(store, name: str):
    """The version that was current before the current one (``None`` if there was none)."""
    history = promotion_history(store, name)
    if not history:
        return None
    current = history[-1]["version"]
    for h in reversed(history[:-1]):
        if h["version"] != current:
            return get_version(store, h["version"])
    return None


@dataclass
class RollbackDecision:
    """What :func:`rollback_if_worse` found and did."""

    current: str
    previous: str | None
    rolled_back: bool
    reason: str
    comparison: Any = None


def rollback_if_worse(
    store,
    name: str,
    *,
    confidence: float = 0.95,
    n_boot: int = 10_000,
    seed: int = 0,
    min_items: int = 5,
    author: str = "auto-rollback",
) -> RollbackDecision:
    """Roll agent ``name`` back to its previous version when the current one is significantly
    worse on the tasks both ran (success or score: the overall paired bootstrap interval of
    current minus previous lies below 0). Needs ``min_items`` shared tasks to decide."""
    cur = current_version(store, name)
    if cur is None:
        raise AgentGymError(
            f"agent {name!r} has no promoted version: promote one first (agentgym experience versions promote)"
        )
    prev = previous_version(store, name)
    if prev is None:
        return RollbackDecision(cur.label, None, False, "no previous version to roll back to")
    cmp = compare_versions(
        store, prev.label, cur.label, confidence=confidence, n_boot=n_boot, seed=seed
    )
    shared = sum(e.paired_items for e in cmp.envs)
    if shared < min_items:
        return RollbackDecision(
            cur.label, prev.label, False, f"only {shared} shared tasks (need {min_items})", cmp
        )
    worse = [
        m
        for m, d in (("success", cmp.overall_success), ("score", cmp.overall_score))
        if d is not None and d.high < 0
    ]
    if not worse:
        return RollbackDecision(cur.label, prev.label, False, "not significantly worse", cmp)
    d = cmp.overall_score if "score" in worse else cmp.overall_success
    reason = (
        f"{cur.label} is significantly worse than {prev.label} on {shared} shared tasks "
        f"({' and '.join(worse)}: {d.diff:+.3f} [{d.low:+.3f}, {d.high:+.3f}] at {confidence:.0%})"
    )
    promote(store, prev.label, author=author, reason=reason, action="rollback")
    logger.info("rolled back %s: %s", name, reason)
    return RollbackDecision(cur.label, prev.label, True, reason, cmp)


__all__ = [
    "RollbackDecision",
    "compare_versions",
    "current_version",
    "get_or_register",
    "get_version",
    "list_versions",
    "parse_label",
    "previous_version",
    "promote",
    "promotion_history",
    "register_version",
    "rollback_if_worse",
    "version_records",
]
