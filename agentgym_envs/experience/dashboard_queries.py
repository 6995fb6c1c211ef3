"""What the dashboard's pages and API read from the store: plain data, no HTTP.

A missing run, episode or A/B test raises :class:`NotFound`; the dashboard answers it with a 404.
"""

import math
from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.orm import selectinload

from agentgym_envs.experience.dashboard import PAGE_SIZE
from agentgym_envs.experience.feedback import list_feedback
from agentgym_envs.experience.models import (
    ABTest,
    AgentVersion,
    Episode,
    Feedback,
    Run,
    success_rate,
)


class NotFound(LookupError):
    """A run, episode or A/B test that the store does not have (the message names it)."""

    def __init__(self, what: str) -> None:
        super().__init__(f"{what} not found")


#: Ids a database row can have (a 32-bit INTEGER key): any other is not found, never a query.
ID_RANGE = range(1, 2**31)


def _get(s, model, key: int, what: str):
    row = s.get(model, key) if key in ID_RANGE else None
    if row is None:
        raise NotFound(f"{what} {key}")
    return row


def home(store) -> dict[str, Any]:
    """The runs with their episode count, success rate and mean score; the mean score per
    version and env (``(label, env_id, mean raw score)`` rows); the totals; the A/B tests."""
    with store.session() as s:
        runs = s.execute(
            select(Run, func.count(Episode.id), success_rate(), func.avg(Episode.score))
            .outerjoin(Episode, Episode.run_id == Run.id)
            .group_by(Run.id)
            .order_by(Run.id.desc())
            .options(selectinload(Run.version))
        ).all()
        per_env = s.execute(
            select(AgentVersion.name, AgentVersion.version, Episode.env_id, func.avg(Episode.score))
            .join(Run, Run.version_id == AgentVersion.id)
            .join(Episode, Episode.run_id == Run.id)
            .group_by(AgentVersion.id, AgentVersion.name, AgentVersion.version, Episode.env_id)
        ).all()
        counts = {
            "episodes": s.scalar(select(func.count(Episode.id))),
            "versions": s.scalar(select(func.count(AgentVersion.id))),
            "feedback": s.scalar(select(func.count(Feedback.id)).where(Feedback.source == "human")),
        }
        tests = s.scalars(select(ABTest).order_by(ABTest.id.desc())).all()
    scores = [(f"{n}@{v}", e, float(x)) for n, v, e, x in per_env]
    return {"runs": runs, "scores": scores, "counts": counts, "tests": tests}


def _episode_rows(run_id: int, env_id: str | None, outcome: str | None):
    """The query of a run's episodes (filtered), each with its count of human feedback."""
    human = (
        select(Feedback.episode_id, func.count(Feedback.id).label("n"))
        .where(Feedback.source == "human")
        .group_by(Feedback.episode_id)
        .subquery()
    )
    q = (
        select(
            Episode.id,
            Episode.env_id,
            Episode.item_id,
            Episode.sample,
            Episode.outcome,
            Episode.success,
            Episode.score,
            Episode.turns,
            func.coalesce(human.c.n, 0),
        )
        .outerjoin(human, human.c.episode_id == Episode.id)
        .where(Episode.run_id == run_id)
    )
    if env_id:
        q = q.where(Episode.env_id == env_id)
    if outcome:
        q = q.where(Episode.outcome == outcome)
    return q


def run_detail(
    store, run_id: int, env_id: str | None, outcome: str | None, page_no: int
) -> dict[str, Any]:
    """Run ``run_id``: its summary per env and one page of its episodes (filtered)."""
    with store.session() as s:
        run = _get(s, Run, run_id, "run")
        summary = s.execute(
            select(
                Episode.env_id,
                func.count(Episode.id),
                success_rate(),
                func.avg(Episode.score),
                func.avg(Episode.turns),
            )
            .where(Episode.run_id == run_id)
            .group_by(Episode.env_id)
            .order_by(Episode.env_id)
        ).all()
        q = _episode_rows(run_id, env_id, outcome)
        total = s.scalar(select(func.count()).select_from(q.subquery()))
        episodes = s.execute(
            q.order_by(Episode.id).limit(PAGE_SIZE).offset(page_no * PAGE_SIZE)
        ).all()
        version = run.version.label if run.version else None
    return {
        "run": run,
        "version": version,
        "summary": summary,
        "episodes": episodes,
        "total": total,
        "page_no": page_no,
        "pages": max(1, math.ceil(total / PAGE_SIZE)),
        "env_id": env_id or "",
        "outcome": outcome or "",
    }


def episode_detail(store, episode_id: int, *, feedback: bool = True) -> dict[str, Any]:
    """Episode ``episode_id`` as plain data: its run, fields, first observation and steps,
    and (with ``feedback``) every feedback entry on it."""
    with store.session() as s:
        ep = _get(s, Episode, episode_id, "episode")
        out = _episode_dict(ep)
    if feedback:
        out["feedback"] = list_feedback(store, episode_id=episode_id)
    return out


def _episode_dict(ep: Episode) -> dict[str, Any]:
    run = ep.run
    return {
        "id": ep.id,
        "run_id": run.id,
        "run": run.name,
        "version": run.version.label if run.version else None,
        "env_id": ep.env_id,
        "item_id": ep.item_id,
        "split": ep.split,
        "task_id": ep.task_id,
        "sample": ep.sample,
        "seed": ep.seed,
        "outcome": ep.outcome,
        "success": ep.success,
        "score": ep.score,
        "turns": ep.turns,
        "wall_time": ep.wall_time,
        "prompt_tokens": ep.prompt_tokens,
        "completion_tokens": ep.completion_tokens,
        "error": ep.error,
        "first_observation": _first_observation(ep.conversation),
        "steps": [
            {
                "index": st.index,
                "observation": st.observation,
                "action": st.action,
                "result": st.result,
                "reward": st.reward,
                "latency": st.latency,
            }
            for st in ep.steps
        ],
    }


def _first_observation(conversation: list[dict[str, Any]]) -> str:
    from agentgym_envs.experience.ingest import conversation_start

    start = conversation_start(conversation)
    return str(conversation[start].get("value", "")) if len(conversation) > start else ""


def ab_detail(store, test_id: int) -> dict[str, Any]:
    """A/B test ``test_id``: its name, settings, status, last result and per-arm totals."""
    from agentgym_envs.experience.ab import ab_records

    with store.session() as s:
        test = _get(s, ABTest, test_id, "A/B test")
        name, config, status, result = test.name, test.config, test.status, test.result
    arms = [
        {
            "label": label,
            "episodes": len(r),
            "success": sum(x["success"] for x in r) / len(r) if r else None,
            "score": sum(x["reward"] for x in r) / len(r) if r else None,
        }
        for label, r in ab_records(store, test_id).items()
    ]
    return {"name": name, "config": config, "status": status, "result": result, "arms": arms}


def runs_summary(store) -> list[dict[str, Any]]:
    """Every run with its episode and success counts."""
    with store.session() as s:
        rows = s.execute(
            select(
                Run.id,
                Run.name,
                Run.kind,
                Run.source,
                func.count(Episode.id),
                func.sum(case((Episode.success, 1), else_=0)),
            )
            .outerjoin(Episode, Episode.run_id == Run.id)
            .group_by(Run.id)
            .order_by(Run.id)
        ).all()
    return [
        {
            "id": i,
            "name": n,
            "kind": k,
            "source": src,
            "episodes": int(c),
            "successes": int(ok or 0),
        }
        for i, n, k, src, c, ok in rows
    ]


__all__ = [
    "NotFound",
    "ab_detail",
    "episode_detail",
    "home",
    "run_detail",
    "runs_summary",
]
