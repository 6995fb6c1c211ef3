"""Training data from stored experience: SFT, DPO and KTO pairs, reward-model data.

Episodes are chosen by version, env, outcome and feedback (:func:`select_episodes`) and turned
into :class:`~agentgym_envs.datasets.Trajectory` objects, then into records by the
``datasets`` converters (:func:`~agentgym_envs.datasets.to_sft`,
:func:`~agentgym_envs.datasets.to_dpo_pairs`, :func:`~agentgym_envs.datasets.to_chat_messages`).
People's feedback shapes the data: an outcome judged ``good``/``bad`` by a person decides the
episode's success over the env's verdict, and an action judged ``bad`` is not trained on (its
``loss`` becomes false in the SFT mask).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agentgym_envs.errors import AgentGymError

logger = logging.getLogger(__name__)

FORMATS = ("sft", "dpo", "kto", "rm", "agenttraj")


def select_episodes(
    store,
    *,
    versions: Iterable[str] | None = None,
    envs: Iterable[str] | None = None,
    outcome: str | None = None,
    feedback: str | None = None,
    runs: Iterable[int] | None = None,
) -> list[int]:
    """Ids of the episodes that pass every filter.

    ``versions``: ``name@version`` labels. ``envs``: env ids (short names work).
    ``outcome``: ``success`` / ``failure`` (the judged outcome: a person's label if any, else
    the env's). ``feedback``: ``good`` / ``bad`` (a person labelled the outcome so),
    ``human`` (has any human feedback), ``no-bad`` (no human ``bad`` label on it or its steps).
    """
    from sqlalchemy import select

    from agentgym_envs.experience.models import Episode, Run
    from agentgym_envs.experience.versions import get_version
    from agentgym_envs.spec import resolve_id

    if outcome not in (None, "success", "failure"):
        raise AgentGymError(f"outcome {outcome!r}: use 'success' or 'failure'")
    if feedback not in (None, "good", "bad", "human", "no-bad"):
        raise AgentGymError(f"feedback filter {feedback!r}: use good, bad, human or no-bad")
    q = select(Episode.id).join(Run, Episode.run_id == Run.id)
    with store.session() as s:
        if versions:
            ids = [get_version(store, v, session=s).id for v in versions]
            q = q.where(Run.version_id.in_(ids))
        if envs:
            q = q.where(Episode.env_id.in_([_env(e, resolve_id) for e in envs]))
        if runs:
            q = q.where(Episode.run_id.in_(list(runs)))
        ids = list(s.scalars(q.order_by(Episode.id)))
        if outcome is None and feedback is None:
            return ids
        judged = _human_judgements(s, ids)
        success = dict(
            s.execute(select(Episode.id, Episode.success).where(Episode.id.in_(ids))).all()
        )
    out = []
    for i in ids:
        outcome_label, has_human, any_bad = judged.get(i, (None, False, False))
        ok = success[i] if outcome_label is None else outcome_label == "good"
        if (outcome == "success" and not ok) or (outcome == "failure" and ok):
            continue
        if feedback in ("good", "bad") and outcome_label != feedback:
            continue
        if feedback == "human" and not has_human:
            continue
        if feedback == "no-bad" and any_bad:
            continue
        out.append(i)
    return out


def _env(name: str, resolve) -> str:
    try:
        return resolve(name)
    except Exception:
        return name


def _human_judgements(session, ids: list[int]) -> dict[int, tuple[str | None, bool, bool]]:
    """episode -> (latest human outcome label, has human feedback, any human 'bad')."""
    from sqlalchemy import select

    from agentgym_envs.experience.models import Feedback

    out: dict[int, tuple[str | None, bool, bool]] = {}
    rows = session.execute(
        select(Feedback.episode_id, Feedback.target, Feedback.label)
        .where(Feedback.source == "human", Feedback.episode_id.in_(ids))
        .order_by(Feedback.id)
    )
    for ep, target, label in rows:
        last, _has, bad = out.get(ep, (None, False, False))
        if target == "outcome" and label is not None:
            last = label
        out[ep] = (last, True, bad or label == "bad")
    return out


def trajectories(store, episode_ids: Iterable[int], *, mask_bad_actions: bool = True) -> list:
    """Stored episodes as :class:`~agentgym_envs.datasets.Trajectory` (with ``reward``,
    ``success`` as judged, and the episode's id, env and version in ``extra``)."""
    from sqlalchemy import select
    from sqlalchemy.orm import selectinload

    from agentgym_envs.datasets.agenttraj import Trajectory, Turn
    from agentgym_envs.experience.models import Episode, Run

    ids = list(episode_ids)
    out = []
    with store.session() as s:
        judged = _human_judgements(s, ids)
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            eps = s.scalars(
                select(Episode)
                .where(Episode.id.in_(chunk))
                .options(
                    selectinload(Episode.steps),
                    selectinload(Episode.feedback),
                    selectinload(Episode.run).selectinload(Run.version),
                )
                .order_by(Episode.id)
            )
            for ep in eps:
                bad_turns = set()
                if mask_bad_actions:
                    by_id = {st.id: st for st in ep.steps}
                    bad_turns = {
                        by_id[f.step_id].turn
                        for f in ep.feedback
                        if f.source == "human" and f.label == "bad" and f.step_id in by_id
                    }
                turns = []
                for i, t in enumerate(ep.conversation):
                    loss = t.get("loss")
                    if i in bad_turns:
                        loss = False
                    turns.append(Turn(t["from"], str(t.get("value", "")), loss))
                label = judged.get(ep.id, (None, False, False))[0]
                success = ep.success if label is None else label == "good"
                run = ep.run
                extra = {
                    "episode_id": ep.id,
                    "env_id": ep.env_id,
                    "version": run.version.label if run.version is not None else None,
                    "outcome": ep.outcome,
                    "reward_valid": ep.outcome != "env_error",
                }
                out.append(Trajectory(ep.item_id, turns, float(ep.score), bool(success), extra))
    return out


def _kto(trajs) -> list[dict[str, Any]]:
    from agentgym_envs.datasets.export import to_chat_messages

    out = []
    for t in trajs:
        messages = to_chat_messages(t)
        # the prompt is everything up to the first agent reply after conversation_start
        cut = next(
            (i for i in range(t.start, len(messages)) if messages[i]["role"] == "assistant"),
            len(messages),
        )
        out.append(
            {
                "item_id": t.item_id,
                "prompt": messages[:cut],
                "completion": messages[cut:],
                "label": bool(t.success),
                "reward": t.reward,
            }
        )
    return out


def _reward_model(store, trajs) -> list[dict[str, Any]]:
    """Outcome records (the conversation, its score and judged success) and process records
    (the conversation up to one judged action, and that judgement)."""
    from agentgym_envs.benchmarks.report import score_scale
    from agentgym_envs.datasets.export import to_chat_messages
    from agentgym_envs.experience.feedback import list_feedback

    out = []
    for t in trajs:
        messages = to_chat_messages(t)
        env_id = t.extra["env_id"]
        out.append(
            {
                "kind": "outcome",
                "item_id": t.item_id,
                "messages": messages,
                "reward": (t.reward or 0.0) / score_scale(env_id),
                "success": bool(t.success),
            }
        )
        for f in list_feedback(store, episode_id=t.extra["episode_id"]):
            if f["target"] != "action" or (f["label"] is None and f["score"] is None):
                continue
            turn = _step_turn(t, f["step_index"])
            if turn is None:
                continue
            out.append(
                {
                    "kind": "action",
                    "item_id": t.item_id,
                    "messages": messages[: turn + 1],
                    "label": f["label"],
                    "score": f["score"],
                    "source": f["source"],
                    "author": f["author"],
                }
            )
    return out


def _step_turn(traj, step_index: int | None) -> int | None:
    if step_index is None:
        return None
    gpt = [
        i for i in range(traj.start, len(traj.conversations)) if traj.conversations[i].role == "gpt"
    ]
    return gpt[step_index] if 0 <= step_index < len(gpt) else None


def export_training(
    store,
    fmt: str,
    path: str | os.PathLike[str] | None = None,
    *,
    train_on: str = "loss",
    mask_bad_actions: bool = True,
    keep_invalid: bool = False,
    include_failed: bool = False,
    **filters: Any,
) -> list[dict[str, Any]]:
    """Filtered experience (see :func:`select_episodes`) as ``fmt`` records, written as JSONL
    to ``path`` if given.

    SFT imitates: without an ``outcome`` filter it takes the successful episodes only (as
    judged: a person's outcome label overrides the env's verdict), as AgentTraj does;
    ``include_failed`` takes every episode; ``agenttraj`` chooses alike. The other formats
    need both kinds and take all.

    ``sft``: :func:`~agentgym_envs.datasets.to_sft` records (messages + loss mask). ``dpo``:
    :func:`~agentgym_envs.datasets.to_dpo_pairs` (good vs bad trajectories of one task).
    ``kto``: one record per trajectory (prompt, completion, desirable label). ``rm``:
    reward-model records, outcomes and judged actions. ``agenttraj``: AgentTraj records
    (``conversations`` with each turn's ``loss``, ``success`` as judged, the episode's id,
    env and version), what :func:`~agentgym_envs.datasets.load_agenttraj` and the ``sft``
    training stage read. Episodes the environment failed
    (outcome ``env_error``) carry no valid reward and are left out unless ``keep_invalid``.
    """
    from agentgym_envs.datasets.export import split_invalid, to_dpo_pairs, to_sft

    if fmt not in FORMATS:
        raise AgentGymError(f"training format {fmt!r}: use one of {', '.join(FORMATS)}")
    if fmt in ("sft", "agenttraj") and not include_failed and filters.get("outcome") is None:
        filters["outcome"] = "success"
    trajs = trajectories(
        store, select_episodes(store, **filters), mask_bad_actions=mask_bad_actions
    )
    if not keep_invalid:
        trajs, invalid = split_invalid(trajs)
        if invalid:
            logger.warning(
                "%d episode(s) left out: the env failed (reward not valid)", len(invalid)
            )
    if fmt == "sft":
        records = []
        for t in trajs:
            rec = to_sft(t, train_on=train_on)  # type: ignore[arg-type]
            rec["success"] = bool(t.success)
            rec["episode_id"] = t.extra["episode_id"]
            records.append(rec)
    elif fmt == "agenttraj":
        records = [t.to_record() for t in trajs]
    elif fmt == "dpo":
        records = to_dpo_pairs(trajs, keep_invalid=True)  # already filtered
    elif fmt == "kto":
        records = _kto(trajs)
    else:
        records = _reward_model(store, trajs)
    if path is not None:
        write_jsonl(path, records)
    return records


def write_jsonl(path: str | os.PathLike[str], records: Iterable[dict[str, Any]]) -> None:
    """``records`` as JSON lines in ``path`` (its folder made if needed)."""
    p = Path(path).expanduser()
    p.parent.mkdir(parents=True, exist_ok=True)
    with p.open("w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


__all__ = ["FORMATS", "export_training", "select_episodes", "trajectories", "write_jsonl"]
