"""The experience loop with the real store (SQLite): episodes and feedback in, a version trained
on the store's export promoted after a significant A/B on held-out tasks, and a deliberately
worse version (its actions shuffled) rolled back -- both in one run."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("scipy")

from agentgym_envs.errors import AgentGymError
from agentgym_envs.experience import list_feedback, list_versions, open_store
from agentgym_envs.experience.versions import promotion_history
from agentgym_envs.train import experience_loop


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    out = tmp_path_factory.mktemp("experience-loop")
    return out, experience_loop.run(out, n_boot=200)


def test_the_trained_version_is_promoted_and_the_worse_one_rolled_back(ran):
    out, result = ran
    json.dumps(result)  # JSON-able, as bench_learning writes it
    good, bad = result["candidates"]
    assert good["version"] == "agent@1" and good["decision"] == "promoted"
    assert good["ab"]["significant"] and good["ab"]["diff"] > 0 and good["ab"]["p_value"] < 0.05
    assert bad["version"] == "agent@2" and bad["decision"] == "rolled_back"
    assert bad["ab"]["significant"] and bad["ab"]["diff"] < 0
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
    assert [v["label"] for v in result["versions"] if v["current"]] == ["agent@1"]


def test_held_out_tasks_are_never_trained_on_and_feedback_shapes_the_data(ran):
    out, result = ran
    assert not set(result["train_tasks"]) & set(result["heldout_tasks"])
    assert len(result["heldout_tasks"]) == good_tasks(result)
    trained = {json.loads(line)["item_id"] for line in (out / "sft.jsonl").open()}
    held = {f"maze_{t}" for t in result["heldout_tasks"]}
    assert trained and not trained & held
    store = open_store(out / "experience.db")
    human = list_feedback(store, source="human")
    assert result["feedback"]["human"] == len(human) >= 1
    assert result["feedback"]["auto"] > 0
    # the teacher action a person judged bad is not trained on
    judged = [f for f in human if f["target"] == "action"]
    assert judged and judged[0]["label"] == "bad"


def good_tasks(result):
    return result["candidates"][0]["ab"]["tasks"]


def test_a_second_run_reuses_the_store(ran):
    out, first = ran
    again = experience_loop.run(out, n_boot=200)
    assert again["current"] == "agent@1"
    assert again["episodes"] == {**first["episodes"]}
    assert again["feedback"] == first["feedback"]


def test_bad_settings_are_one_line_errors(tmp_path):
    with pytest.raises(AgentGymError, match="holdout_every=1: use 2 or more"):
        experience_loop.run(tmp_path, holdout_every=1)
