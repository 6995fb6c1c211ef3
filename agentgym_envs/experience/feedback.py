"""Feedback on actions and outcomes: given by people, derived from the env, exported.

A person judges one action (a step) or a whole outcome (an episode) with a label (``good`` /
``bad``), a score, a comment, or any of them, through the dashboard, its HTTP API or the
CLI. The env's own verdict is stored on import as ``source="auto"`` feedback (author
``env:<env id>``): the outcome from ``success`` and ``score``, and each action from its step
reward where the input recorded one. Every entry carries its author and time.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from pathlib import Path
from typing import Any

from agentgym_envs.errors import AgentGymError

LABELS = ("good", "bad")
SOURCES = ("human", "auto")


def add_feedback(
    store,
    episode_id: int,
    *,
    step_index: int | None = None,
    label: str | None = None,
    score: float | None = None,
    comment: str = "",
    author: str,
    source: str = "human",
) -> dict[str, Any]:
    """Store one judgement of episode ``episode_id`` (its outcome) or of its step ``step_index``
    (an action); returns the stored entry as a dict."""
    from sqlalchemy import select

    from agentgym_envs.experience.models import Episode, Feedback, Step

    if label is not None and label not in LABELS:
        raise AgentGymError(f"feedback label {label!r}: use 'good' or 'bad' (or give a score)")
    if label is None and score is None and not comment.strip():
        raise AgentGymError("empty feedback: give a label (good/bad), a score or a comment")
    if source not in SOURCES:
        raise AgentGymError(f"feedback source {source!r}: use 'human' or 'auto'")
    if not str(author).strip():
        raise AgentGymError("feedback needs an author (who gave it)")
    if score is not None:
        score = float(score)
        if math.isnan(score):
            raise AgentGymError("feedback score is NaN: give a number")
    with store.session() as s:
        ep = s.get(Episode, episode_id)
        if ep is None:
            raise AgentGymError(f"no episode {episode_id} in the store")
        step = None
        if step_index is not None:
            step = s.scalars(
                select(Step).where(Step.episode_id == episode_id, Step.index == step_index)
            ).one_or_none()
            if step is None:
                raise AgentGymError(
                    f"episode {episode_id} has no step {step_index}: its steps are 0..{len(ep.steps) - 1}"
                )
        fb = Feedback(
            episode_id=episode_id,
            step_id=step.id if step is not None else None,
            target="action" if step is not None else "outcome",
            label=label,
            score=score,
            comment=comment,
            author=str(author).strip(),
            source=source,
        )
        s.add(fb)
        s.flush()
        return _entry(fb, ep, step)


def _entry(fb, ep, step) -> dict[str, Any]:
    run = ep.run
    return {
        "id": fb.id,
        "episode_id": ep.id,
        "run_id": run.id,
        "run": run.name,
        "version": run.version.label if run.version is not None else None,
        "env_id": ep.env_id,
        "item_id": ep.item_id,
        "target": fb.target,
        "step_index": step.index if step is not None else None,
        "action": step.action if step is not None else None,
        "label": fb.label,
        "score": fb.score,
        "comment": fb.comment,
        "author": fb.author,
        "source": fb.source,
        "created_at": fb.created_at.isoformat() if fb.created_at else None,
    }


def list_feedback(
    store,
    *,
    episode_id: int | None = None,
    source: str | None = None,
    author: str | None = None,
    limit: int | None = None,
    newest_first: bool = False,
) -> list[dict[str, Any]]:
    """Stored feedback (oldest first, or newest first; at most ``limit``) with its context
    (run, version, env, item, action)."""
    from sqlalchemy import select
    from sqlalchemy.orm import joinedload

    from agentgym_envs.experience.models import Episode, Feedback, Run

    q = select(Feedback).options(
        joinedload(Feedback.episode).joinedload(Episode.run).joinedload(Run.version),
        joinedload(Feedback.step),
    )
    if episode_id is not None:
        q = q.where(Feedback.episode_id == episode_id)
    if source is not None:
        q = q.where(Feedback.source == source)
    if author is not None:
        q = q.where(Feedback.author == author)
    q = q.order_by(Feedback.id.desc() if newest_first else Feedback.id)
    if limit is not None:
        q = q.limit(limit)
    with store.session() as s:
        return [_entry(fb, fb.episode, fb.step) for fb in s.scalars(q).unique()]


def count_feedback(store, *, source: str | None = None) -> int:
    """How many feedback entries are stored (of ``source``, if given)."""
    from sqlalchemy import func, select

    from agentgym_envs.experience.models import Feedback

    q = select(func.count(Feedback.id))
    if source is not None:
        q = q.where(Feedback.source == source)
    with store.session() as s:
        return int(s.scalar(q))


def export_feedback(
    store, path: str | os.PathLike[str] | None = None, *, fmt: str = "jsonl", **filters: Any
) -> str:
    """Feedback as JSONL (one entry a line) or CSV; written to ``path`` if given, returned too."""
    rows = list_feedback(store, **filters)
    if fmt == "jsonl":
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    elif fmt == "csv":
        buf = io.StringIO()
        fields = list(rows[0]) if rows else ["id"]
        writer = csv.DictWriter(buf, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
        text = buf.getvalue()
    else:
        raise AgentGymError(f"feedback export format {fmt!r}: use 'jsonl' or 'csv'")
    if path is not None:
        Path(path).expanduser().write_text(text, encoding="utf-8")
    return text


__all__ = [
    "LABELS",
    "SOURCES",
    "add_feedback",
    "count_feedback",
    "export_feedback",
    "list_feedback",
]
