"""Harness-format SFT data from stored experience (``agentgym experience export sft --format
harness``).

The store keeps each harness episode as the AgentTraj record the recording gateway wrote; the
gateway's chat record of the same session (``chat.jsonl`` beside the imported
``agenttraj.jsonl``) keeps what the harness really sent: its system prompt, tool schemas and
native tool calls, and the token ids per model call. Episodes are chosen in the store (by
version, env, judged outcome, feedback: :func:`~agentgym_envs.experience.training.
select_episodes`) and written as :func:`~agentgym_envs.datasets.harness.harness_sft_row` rows.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from agentgym_envs.errors import AgentGymError

logger = logging.getLogger(__name__)


def _sessions(agenttraj: Path) -> dict[str, str]:
    """Episode key (as the store imported it) -> gateway session, for one recording."""
    from agentgym_envs.experience.ingest import _recording_records

    return {
        key: str(rec.get("session"))
        for key, rec in _recording_records(agenttraj)
        if rec.get("session")
    }


def _chats(folder: Path) -> dict[str, dict[str, Any]]:
    path = folder / "chat.jsonl"
    if not path.is_file():
        return {}
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and rec.get("session"):
            out[str(rec["session"])] = rec
    return out


def harness_rows(
    store, *, include_failed: bool = False, monotonic_only: bool = False, **filters: Any
) -> list[dict[str, Any]]:
    """The chosen episodes' harness-format rows (successful ones, as judged, unless
    ``include_failed`` or an ``outcome`` filter; ``monotonic_only`` drops sessions whose
    history the harness rewrote). Episodes not recorded by the gateway are skipped with a
    warning."""
    from sqlalchemy import select

    from agentgym_envs.datasets.harness import harness_sft_row
    from agentgym_envs.experience.models import Episode, Run
    from agentgym_envs.experience.training import select_episodes

    if not include_failed and filters.get("outcome") is None:
        filters["outcome"] = "success"
    ids = select_episodes(store, **filters)
    with store.session() as s:
        found = s.execute(
            select(Episode.id, Episode.key, Run.source)
            .join(Run, Episode.run_id == Run.id)
            .where(Episode.id.in_(ids))
            .order_by(Episode.id)
        ).all()
    sessions: dict[str, dict[str, str]] = {}
    chats: dict[str, dict[str, dict[str, Any]]] = {}
    rows, missing = [], 0
    for episode_id, key, source in found:
        path = Path(source or "")
        if path.suffix != ".jsonl" or not path.is_file():
            missing += 1
            continue
        if source not in sessions:
            sessions[source], chats[source] = _sessions(path), _chats(path.parent)
        chat = chats[source].get(sessions[source].get(key, ""))
        if chat is None:
            missing += 1
            continue
        row = harness_sft_row(chat)
        if monotonic_only and not row["monotonic"]:
            continue
        row["episode_id"] = episode_id
        rows.append(row)
    if missing:
        logger.warning(
            "%d episode(s) have no gateway chat record (chat.jsonl beside the imported "
            "agenttraj.jsonl): left out",
            missing,
        )
    return rows


def export_harness_sft(
    store, path: str | os.PathLike[str] | None = None, **options: Any
) -> list[dict[str, Any]]:
    """:func:`harness_rows`, written as JSONL to ``path`` if given."""
    from agentgym_envs.experience.training import write_jsonl

    rows = harness_rows(store, **options)
    if path is not None:
        if not rows:
            logger.warning("no harness episodes matched: %s is empty", path)
        write_jsonl(path, rows)
    return rows


def check_format(fmt: str, kind: str) -> None:
    """One line with the mend for an export ``--format`` that does not fit ``kind``."""
    if fmt not in ("agenttraj", "harness"):
        raise AgentGymError(f"--format {fmt!r}: use agenttraj (the default) or harness")
    if fmt == "harness" and kind != "sft":
        raise AgentGymError(f"--format harness is for sft exports, not {kind}: drop --format")


__all__ = ["check_format", "export_harness_sft", "harness_rows"]
