"""BIRD-v0 plays as AgentGym's sqlgym server does: golden transcripts recorded from that server
(``scripts/golden/record_sqlgym.py``) replayed here, and the sqlgym text rules on their own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")

from agentgym_envs.envs.sql.env import BirdSQLEnv, sqlgym_action
from agentgym_envs.envs.sql.schema import sqlgym_schema, tables_record
from agentgym_envs.envs.sql.tasks import BirdTasks, EmbeddedSQLTasks, export_bird_folder

FIXTURE = Path(__file__).parents[2] / "fixtures" / "agentgym" / "sqlgym.json"
GOLDEN = json.loads(FIXTURE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def env():
    e = BirdSQLEnv()
    yield e
    e.close()


@pytest.mark.parametrize("episode", GOLDEN["episodes"], ids=lambda e: str(e["item"]))
def test_golden_transcript_from_agentgyms_server(env, episode):
    split, task_id = env.tasks.locate(episode["item"])
    obs, _ = env.reset(options={"split": split, "task_id": task_id})
    assert obs == episode["first_observation"] == episode["reset_reply"][0]
    for step in episode["steps"]:
        obs, reward, terminated, truncated, _ = env.step(step["action"])
        assert (obs, reward, terminated) == (step["observation"], step["reward"], step["done"])
        assert step["info"] == {"ground_truth": env.task.gold_sql} and not truncated


def test_golden_covers_correct_wrong_and_failing_queries():
    rewards = [e["steps"][0]["reward"] for e in GOLDEN["episodes"]]
    texts = [e["steps"][0]["observation"] for e in GOLDEN["episodes"]]
    assert 1.0 in rewards and 0.0 in rewards
    assert any(t.endswith("...") and len(t) == 103 for t in texts)  # a result cut at 100 characters
    assert 'near "SELEC": syntax error' in texts and "[]" in texts


def test_the_client_takes_the_sql_from_the_last_fence():
    assert sqlgym_action("Thought: x\n\nAction: ```sql\nSELECT 1;\n```") == "SELECT 1;"
    assert sqlgym_action("```sql\nSELECT 1\n``` no, ```sql\nSELECT 2\n```") == "SELECT 2"
    assert sqlgym_action("  SELECT 3  ") == "SELECT 3"  # no fence: the whole reply
    assert sqlgym_action("Action: ```\nSELECT 4\n```") == "Action:"  # a bare fence is cut away


def test_a_reply_is_read_as_agentgyms_client_reads_it(env):
    env.reset(options={"split": "test", "task_id": 0})
    gold = env.task.gold_sql
    assert env.step(f"Thought: easy.\n\nAction: ```sql\n{gold};\n```")[1] == 1.0
    env.reset(options={"split": "test", "task_id": 0})
    obs, reward, terminated, _, info = env.step(f"Thought: easy.\n\nAction: {gold}")
    assert obs == 'near "Thought": syntax error' and reward == 0.0 and terminated and info["error"]


def test_scoring_is_sqlgyms_set_comparison(env):
    env.reset(options={"split": "test", "task_id": 0})
    gold = env.task.gold_sql
    rows = env.gold_result()
    # duplicated and reordered rows still score (set comparison), another column does not
    assert (
        env.step(f"SELECT * FROM ({gold}) UNION ALL SELECT * FROM ({gold}) ORDER BY 1 DESC")[1]
        == 1.0
    )
    env.reset(options={"split": "test", "task_id": 0})
    assert env.step("SELECT 1 WHERE 0")[1] == (1.0 if not rows else 0.0)
    assert (env.comparison, env.float_places, env.ordered) == ("set", None, False)


def test_sqlgym_schema_rules():
    record = {
        "db_id": "Zoo",
        "table_names": ["Keepers", "Animals"],
        "column_names": [
            [-1, "*"],
            [0, "Keeper ID"],
            [0, "Name"],
            [1, "Animal ID"],
            [1, "Keeper ID"],
            [1, "Pen"],
        ],
        "primary_keys": [1, [3, 5]],
        "foreign_keys": [[4, 1]],
    }
    assert sqlgym_schema(record) == (
        "Zoo contains tables such as keepers, animals. Table keepers has columns such as keeper id, name. "
        "keeper id is the primary key. Table animals has columns such as animal id, keeper id, pen.  is the "
        "primary key. The pen of animals is the foreign key of name of keepers."
    )


def test_exported_folder_plays_the_same_tasks(tmp_path):
    root = export_bird_folder(tmp_path / "bird")
    embedded, bird = EmbeddedSQLTasks(), BirdTasks(root)
    assert bird.splits() == embedded.splits()
    tables = json.loads((root / "dev" / "dev_tables.json").read_text())
    assert [t["db_id"] for t in tables] == sorted(embedded.db_paths)
    a, b = BirdSQLEnv(), BirdSQLEnv(data_path=root)
    for split, i in (("test", 0), ("test", 57), ("train", 3)):
        assert (
            a.reset(options={"split": split, "task_id": i})[0]
            == b.reset(options={"split": split, "task_id": i})[0]
        )
        gold = a.task.gold_sql
        assert a.step(gold)[:3] == b.step(gold)[:3]
    record = tables_record(embedded.db_paths["school"], "school")
    assert record["column_names"][0] == [-1, "*"] and record["foreign_keys"]
    a.close()
    b.close()


def test_richer_options(env):
    rich = BirdSQLEnv(schema="ddl", evidence=True, result="table")
    obs, _ = rich.reset(options={"split": "test", "task_id": 0})
    assert obs.startswith(f"Database: {rich.task.db_id} (SQLite)") and "CREATE TABLE" in obs
    assert f"Evidence: {rich.task.evidence or 'none'}" in obs
    assert rich.step(rich.task.gold_sql)[0].startswith("Result: ")
    prose = BirdSQLEnv(evidence=True)
    obs, _ = prose.reset(options={"split": "test", "task_id": 0})
    plain, _ = env.reset(options={"split": "test", "task_id": 0})
    assert obs.startswith(plain) and (obs == plain or "\nEvidence: " in obs)
    interactive = BirdSQLEnv(interactive=True)
    assert (interactive.schema_style, interactive.result_style, interactive.show_evidence) == (
        "ddl",
        "table",
        True,
    )
    with pytest.raises(ValueError, match="schema"):
        BirdSQLEnv(schema="json")
    for e in (rich, prose, interactive):
        e.close()
