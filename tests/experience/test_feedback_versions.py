"""Feedback (human and automatic, exported) and agent versions (compare, promote, roll back)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from agentgym_envs.errors import AgentGymError
from agentgym_envs.experience import (
    add_feedback,
    compare_versions,
    current_version,
    export_feedback,
    import_path,
    list_feedback,
    list_versions,
    promote,
    register_version,
    rollback_if_worse,
)
from agentgym_envs.experience.models import Episode
from agentgym_envs.experience.versions import promotion_history


def _episode(store, *, success: bool, min_turns: int = 2) -> Episode:
    with store.session() as s:
        return s.scalars(
            select(Episode)
            .where(Episode.success.is_(success), Episode.turns >= min_turns)
            .options(selectinload(Episode.steps))
            .order_by(Episode.id)
        ).first()


def test_feedback_on_actions_and_outcomes_is_attributed_and_exported(store, bench_runs):
    import_path(store, bench_runs["expert"])
    ep = _episode(store, success=True)
    a = add_feedback(store, ep.id, step_index=1, label="bad", comment="detour", author="ann")
    b = add_feedback(store, ep.id, label="good", score=0.9, author="bob")
    assert (a["target"], a["step_index"], a["label"], a["author"]) == ("action", 1, "bad", "ann")
    assert a["action"] == ep.steps[1].action
    assert (b["target"], b["score"], b["source"]) == ("outcome", 0.9, "human")
    human = list_feedback(store, source="human")
    assert [f["id"] for f in human] == [a["id"], b["id"]]
    assert all(f["created_at"] for f in human)
    auto = list_feedback(store, source="auto", episode_id=ep.id)
    assert [(f["label"], f["author"]) for f in auto] == [("good", f"env:{ep.env_id}")]
    lines = [json.loads(x) for x in export_feedback(store, source="human").splitlines()]
    assert [(x["author"], x["label"], x["version"]) for x in lines] == [
        ("ann", "bad", a["version"]),
        ("bob", "good", a["version"]),
    ]
    rows = list(csv.DictReader(io.StringIO(export_feedback(store, fmt="csv", author="ann"))))
    assert [(r["author"], r["comment"], r["step_index"]) for r in rows] == [("ann", "detour", "1")]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"label": "meh", "author": "a"}, "use 'good' or 'bad'"),
        ({"author": "a"}, "empty feedback"),
        ({"label": "good", "author": " "}, "needs an author"),
        ({"label": "good", "author": "a", "step_index": 999}, "has no step 999"),
        ({"score": float("nan"), "author": "a"}, "NaN"),
    ],
)
def test_bad_feedback_is_refused_with_the_mend(sqlite_store, bench_runs, kwargs, message):
    import_path(sqlite_store, bench_runs["expert"])
    ep = _episode(sqlite_store, success=True)
    with pytest.raises(AgentGymError, match=message):
        add_feedback(sqlite_store, ep.id, **kwargs)
    with pytest.raises(AgentGymError, match="no episode"):
        add_feedback(sqlite_store, 10**6, label="good", author="a")


def test_versions_register_compare_promote_and_roll_back(store, bench_runs):
    register_version(store, "agent", "1", model="expert", notes="baseline")
    register_version(store, "agent", "2", model="random", parent="agent@1")
    import_path(store, bench_runs["expert"], version="agent@1")
    import_path(store, bench_runs["random"], version="agent@2")
    rows = {v["label"]: v for v in list_versions(store)}
    assert rows["agent@2"]["parent"] == "agent@1" and rows["agent@1"]["episodes"] == 20
    assert rows["agent@1"]["success_rate"] == 1.0 and rows["agent@2"]["success_rate"] < 0.5
    cmp = compare_versions(store, "agent@1", "agent@2", n_boot=2000)
    assert sum(e.paired_items for e in cmp.envs) == 20
    assert cmp.overall_success.verdict == "A better"
    with pytest.raises(AgentGymError, match="unknown agent version 'agent@9'"):
        compare_versions(store, "agent@1", "agent@9")

    promote(store, "agent@1", author="ann")
    promote(store, "agent@2", author="ann", reason="new model")
    assert current_version(store, "agent").label == "agent@2"
    decision = rollback_if_worse(store, "agent", n_boot=2000)
    assert decision.rolled_back and decision.previous == "agent@1"
    assert current_version(store, "agent").label == "agent@1"
    history = promotion_history(store, "agent")
    assert [(h["version"], h["action"]) for h in history] == [
        ("agent@1", "promote"),
        ("agent@2", "promote"),
        ("agent@1", "rollback"),
    ]
    assert "significantly worse" in history[-1]["reason"]
    assert {v["label"]: v["current"] for v in list_versions(store)} == {
        "agent@1": True,
        "agent@2": False,
    }


def test_no_rollback_when_the_new_version_is_as_good(sqlite_store, bench_runs, tmp_path):
    import shutil

    twin = tmp_path / "twin"
    shutil.copytree(bench_runs["expert"], twin)
    import_path(sqlite_store, bench_runs["expert"], version="agent@1")
    import_path(sqlite_store, twin, version="agent@2")
    promote(sqlite_store, "agent@1")
    promote(sqlite_store, "agent@2")
    decision = rollback_if_worse(sqlite_store, "agent", n_boot=2000)
    assert not decision.rolled_back and decision.reason == "not significantly worse"
    assert current_version(sqlite_store, "agent").label == "agent@2"
    with pytest.raises(AgentGymError, match="no promoted version"):
        rollback_if_worse(sqlite_store, "nobody")
