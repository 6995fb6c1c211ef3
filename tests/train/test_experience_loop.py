"""The experience loop with the real store (SQLite) and TRL's own trainer: episodes and feedback
in, a language model behaviour-cloned on the store's export, promoted after a significant A/B on
held-out tasks, and a deliberately worse version (trained further on the judged-failed
episodes) deployed and rolled back -- on a tiny model (``conftest.py``), end to end."""

from __future__ import annotations

import json
import sqlite3

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("scipy")

from agentgym_envs.errors import AgentGymError
from agentgym_envs.experience import (
    add_feedback,
    export_training,
    list_feedback,
    list_versions,
    open_store,
    select_episodes,
)
from agentgym_envs.experience.models import Episode
from agentgym_envs.experience.versions import promotion_history
from agentgym_envs.train import experience_loop

#: Maze-v0's 25 start cells: the odd ones trained on, the even ones held out.
TINY = dict(
    learner="sft",
    env="Maze-v0",
    holdout_every=2,
    train_items=12,
    base_items=4,
    heldout_items=13,
    max_rounds=20,
    max_tokens=3,
    sft_epochs=60.0,
    sft_lr=3e-3,
    sft_batch=6,
    sft_layers=0,
    n_boot=200,
    concurrency=4,
)


def _jsonl(path):
    return [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]


@pytest.fixture(scope="module")
def ran(tiny_model, tmp_path_factory):
    out = tmp_path_factory.mktemp("experience-loop")
    return out, experience_loop.run(out, model=str(tiny_model), **TINY)


def test_the_trained_model_is_promoted_and_the_worse_one_rolled_back(ran):
    out, result = ran
    json.dumps(result)  # JSON-able, as bench_learning writes it
    good, bad = result["candidates"]
    assert good["version"] == "agent@1" and good["decision"] == "promoted"
    ab = good["ab"]
    assert ab["significant"] and ab["diff"] > 0 and ab["p_value"] < 0.05
    assert ab["tasks"] == 13 and ab["successes_challenger"] > ab["successes_control"]
    lo, hi = ab["ci_challenger"]
    assert lo <= ab["success_challenger"] <= hi
    assert bad["version"] == "agent@2" and bad["decision"] == "rolled_back"
    assert bad["ab"]["control"] == "agent@1" and bad["ab"]["diff"] < 0
    assert result["current"] == "agent@1"
    store = open_store(out / "experience.db")
    assert [(h["version"], h["action"]) for h in promotion_history(store, "agent")] == [
        ("agent@0", "promote"),
        ("agent@1", "promote"),
        ("agent@2", "promote"),
        ("agent@1", "rollback"),
    ]
    parents = {v["label"]: v["parent"] for v in list_versions(store)}
    assert parents["agent@1"] == "agent@0" and parents["agent@2"] == "agent@1"
    # each version is a checkpoint the sft stage (TRL's SFTTrainer) wrote
    for label in ("agent@1", "agent@2"):
        trained = result["training"][label]
        assert trained["sft"]["steps"] > 0 and trained["sft"]["loss_first"] is not None
        assert (out / "versions" / label.replace("@", "-") / "sft" / "model").is_dir()


def test_training_data_is_the_stores_judged_episodes(ran):
    out, result = ran
    store = open_store(out / "experience.db")
    good = result["training"]["agent@1"]
    data = _jsonl(out / good["data"])
    # what the sft stage read is the store's export, byte for byte
    stage_input = out / "versions" / "agent-1" / "collect" / "trajectories.jsonl"
    assert _jsonl(stage_input) == data
    judged = select_episodes(store, versions=["agent@0", "teacher@expert"], outcome="success")
    assert [r["episode_id"] for r in data] == good["episode_ids"] == judged
    # the person's labels: a teacher success judged bad is left out, a bad action masked
    labels = {(f["episode_id"], f["target"]): f for f in list_feedback(store, source="human")}
    dropped = [e for (e, t), f in labels.items() if t == "outcome" and f["label"] == "bad"]
    masked = [e for (e, t), f in labels.items() if t == "action" and f["label"] == "bad"]
    assert dropped and masked and result["feedback"]["auto"] > 0
    with store.session() as s:
        assert all(s.get(Episode, e).success for e in dropped)  # the env said success
    assert not set(dropped) & set(good["episode_ids"])
    record = next(r for r in data if r["episode_id"] == masked[0])
    gpt = [t for t in record["conversations"][2:] if t["from"] == "gpt"]
    assert gpt[0]["loss"] is False and all(t["loss"] for t in gpt[1:])
    # the worse version's data: the untrained version's judged-failed episodes only
    worse = _jsonl(out / result["training"]["agent@2"]["data"])
    assert worse and {r["version"] for r in worse} == {"agent@0"}
    assert not any(r["success"] for r in worse)


def test_a_label_flips_what_gets_trained_on(ran, tmp_path):
    out, _ = ran
    src, copy = sqlite3.connect(out / "experience.db"), sqlite3.connect(tmp_path / "experience.db")
    src.backup(copy)  # a copy of the store, write-ahead log included
    src.close()
    copy.close()
    store = open_store(tmp_path / "experience.db")
    runs = {"versions": ["agent@0", "teacher@expert"]}
    before = {r["episode_id"] for r in export_training(store, "agenttraj", **runs)}
    dropped = next(
        f["episode_id"]
        for f in list_feedback(store, source="human")
        if f["target"] == "outcome" and f["label"] == "bad"
    )
    add_feedback(store, dropped, author="second-reviewer", label="good", comment="fine after all")
    after = {r["episode_id"] for r in export_training(store, "agenttraj", **runs)}
    assert dropped not in before and after == before | {dropped}


def test_held_out_tasks_are_never_trained_on(ran):
    out, result = ran
    assert not set(result["train_tasks"]) & set(result["heldout_tasks"])
    trained = {
        r["item_id"]
        for label in ("agent@1", "agent@2")
        for r in _jsonl(out / result["training"][label]["data"])
    }
    held = {f"maze_{t}" for t in result["heldout_tasks"]}
    assert trained and not trained & held
    store = open_store(out / "experience.db")
    from agentgym_envs.experience.ab import ab_records, list_ab_tests

    (test,) = list_ab_tests(store)
    for records in ab_records(store, test["id"]).values():
        assert {r["item_id"] for r in records} == held


def test_a_second_run_resumes_without_redoing(ran, tiny_model):
    out, first = ran
    marks = {
        label: (out / "versions" / label / "results.jsonl").read_text()
        for label in ("agent-1", "agent-2")
    }
    again = experience_loop.run(out, model=str(tiny_model), **TINY)
    assert again["current"] == "agent@1"
    assert again["episodes"] == first["episodes"]
    assert again["feedback"]["human"] == first["feedback"]["human"]
    assert [c["decision"] for c in again["candidates"]] == ["promoted", "rolled_back"]
    for label, text in marks.items():  # no version trained again
        assert (out / "versions" / label / "results.jsonl").read_text() == text


def test_the_table_learner_runs_the_same_loop_in_seconds(tmp_path):
    result = experience_loop.run(tmp_path, learner="table", n_boot=200)
    assert [c["decision"] for c in result["candidates"]] == ["promoted", "rolled_back"]
    assert result["current"] == "agent@1" and result["env"] == "AgentGym/Maze-v0"


def test_bad_settings_are_one_line_errors(tmp_path):
    with pytest.raises(AgentGymError, match="holdout_every=1: use 2 or more"):
        experience_loop.run(tmp_path, learner="table", holdout_every=1)
    with pytest.raises(AgentGymError, match="unknown learner 'tabel'.*table"):
        experience_loop.run(tmp_path, learner="tabel")
    with pytest.raises(AgentGymError, match="lower train_items / heldout_items"):
        experience_loop.run(tmp_path, learner="table", heldout_items=99)
