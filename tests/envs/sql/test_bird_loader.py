"""BIRD's own release layout: a tiny BIRD-format folder written here, served with AgentGym's
item indexes (train 0-9427, dev 9428-10961)."""

from __future__ import annotations

import json
import sqlite3

import gymnasium as gym
import pytest

pytest.importorskip("sqlalchemy")

import agentgym_envs
from agentgym_envs.envs.sql.env import BirdSQLEnv
from agentgym_envs.envs.sql.tasks import BIRD_TRAIN_ITEMS, BirdTasks
from agentgym_envs.errors import BadDataError, BadTaskError

ZOO = """
CREATE TABLE keepers (keeper_id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE animals (animal_id INTEGER PRIMARY KEY, name TEXT, species TEXT, wt_kg REAL,
                      keeper_id INTEGER REFERENCES keepers (keeper_id));
INSERT INTO keepers VALUES (1, 'Ada'), (2, 'Bo');
INSERT INTO animals VALUES (1, 'Leo', 'lion', 190.5, 1), (2, 'Nala', 'lion', 126.0, 1),
                           (3, 'Dumbo', 'elephant', 5400.0, 2), (4, 'Kaa', 'python', 75.2, NULL);
"""
SHOP = """
CREATE TABLE "order lines" (id INTEGER PRIMARY KEY, item TEXT, qty INTEGER);
INSERT INTO "order lines" VALUES (1, 'pen', 2), (2, 'ink', 1), (3, 'pen', 5);
"""

DEV = [
    {
        "question_id": 0,
        "db_id": "zoo",
        "question": "How many lions are there?",
        "evidence": "lion refers to species = 'lion'",
        "SQL": "SELECT COUNT(*) FROM animals WHERE species = 'lion'",
        "difficulty": "simple",
    },
    {
        "question_id": 1,
        "db_id": "zoo",
        "question": "Which animals does Ada keep?",
        "evidence": "",
        "SQL": "SELECT a.name FROM animals AS a JOIN keepers AS k ON a.keeper_id = k.keeper_id WHERE k.name = 'Ada'",
        "difficulty": "moderate",
    },
    {
        "question_id": 2,
        "db_id": "zoo",
        "question": "List the species of animals heavier than 100 kg.",
        "evidence": "wt_kg is the weight",
        "SQL": "SELECT DISTINCT species FROM animals WHERE wt_kg > 100",
        "difficulty": "simple",
    },
]
TRAIN = [
    {
        "db_id": "shop",
        "question": "How many pens were ordered?",
        "evidence": "",
        "SQL": "SELECT SUM(qty) FROM `order lines` WHERE item = 'pen'",
    },
    {
        "db_id": "shop",
        "question": "What items were ordered?",
        "evidence": "",
        "SQL": "SELECT item FROM `order lines`",
    },
]


def _db(path, script: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    con.executescript(script)
    con.commit()
    con.close()


def write_bird(root, flat: bool = False):
    """A BIRD release in miniature: {train,dev}/{mode}.json and {mode}_databases/<db>/<db>.sqlite."""
    for mode, records, dbs in (("train", TRAIN, {"shop": SHOP}), ("dev", DEV, {"zoo": ZOO})):
        folder = root if flat else root / mode
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{mode}.json").write_text(json.dumps(records, indent=2))
        for db_id, script in dbs.items():
            _db(folder / f"{mode}_databases" / db_id / f"{db_id}.sqlite", script)
    desc = (root if flat else root / "dev") / "dev_databases" / "zoo" / "database_description"
    desc.mkdir(parents=True)
    (desc / "animals.csv").write_text(
        "\ufefforiginal_column_name,column_name,column_description,data_format,value_description\n"
        "wt_kg,weight,weight of the animal in kilograms,real,\n"
        "keeper_id,keeper,the keeper in charge,integer,NULL when no keeper is assigned\n",
        encoding="utf-8",
    )
    return root


@pytest.fixture
def bird(tmp_path):
    return write_bird(tmp_path / "bird")


def test_sizes_and_agentgym_item_ids(bird):
    tasks = BirdTasks(bird)
    assert tasks.splits() == {"train": 2, "test": 3}
    assert tasks.agentgym_index("train", 1) == 1
    assert tasks.agentgym_index("test", 0) == BIRD_TRAIN_ITEMS == 9428
    assert tasks.locate(9430) == ("test", 2) and tasks.locate(0) == ("train", 0)
    with pytest.raises(BadTaskError, match="9428..9430"):
        tasks.locate(5)
    task = tasks.get("test", 1)
    assert (task.db_id, task.difficulty, task.source, task.ordered) == (
        "zoo",
        "moderate",
        "1",
        False,
    )
    assert task.db_path.endswith("dev/dev_databases/zoo/zoo.sqlite")


def test_old_bird_path_keyword_still_works_with_a_warning(bird):
    with pytest.warns(DeprecationWarning, match="bird_path= is deprecated.*data_path="):
        env = BirdSQLEnv(bird_path=bird)
    assert env.tasks.user_data and env.tasks.root == BirdSQLEnv(data_path=bird).tasks.root
    with pytest.raises(TypeError, match="pass data_path= only"):
        BirdSQLEnv(data_path=bird, bird_path=bird)


def test_expert_solves_bird_questions_and_obs_shows_sqlgym_text(bird):
    env = BirdSQLEnv(data_path=bird)
    expert = agentgym_envs.expert_policy(env)
    for split in ("train", "test"):
        for i in range(env.tasks.size(split)):
            obs, info = env.reset(options={"split": split, "task_id": i})
            assert obs.endswith(f".\n\n{env.task.question}") and "Evidence" not in obs
            obs, reward, terminated, _, info = env.step(expert(obs, info))
            assert reward == 1.0 and terminated, (split, i, obs)
    obs, _ = env.reset(options={"split": "test", "task_id": 0})
    # no dev_tables.json in this folder: the prose schema is derived from the database, and
    # written as sqlgym writes it (its foreign-key sentence names the column after the key)
    assert obs == (
        "zoo contains tables such as keepers, animals. Table keepers has columns such as keeper_id, name. "
        "keeper_id is the primary key. Table animals has columns such as animal_id, name, species, wt_kg, "
        "keeper_id. animal_id is the primary key. The keeper_id of animals is the foreign key of name of keepers."
        "\n\nHow many lions are there?"
    )


def test_ddl_schema_with_evidence_and_notes(bird):
    env = BirdSQLEnv(data_path=bird, schema="ddl", evidence=True, result="table")
    obs, _ = env.reset(options={"split": "test", "task_id": 0})
    assert env.item_id == "sqlgym_9428"
    assert obs.startswith("Database: zoo (SQLite)")
    assert (
        "CREATE TABLE animals (" in obs
        and "FOREIGN KEY(keeper_id) REFERENCES keepers (keeper_id)" in obs
    )
    assert "Evidence: lion refers to species = 'lion'" in obs
    assert "- animals.wt_kg: weight of the animal in kilograms" in obs
    assert "- animals.keeper_id: the keeper in charge; NULL when no keeper is assigned" in obs
    env.reset(options={"split": "test", "task_id": 1})
    assert "Evidence: none" in env._last_observation
    env.close()


def test_bird_data_is_scored_as_sets_like_birds_evaluation(bird):
    env = BirdSQLEnv(data_path=bird)
    assert env.comparison == "set" and env.float_places is None  # exactly BIRD's evaluation.py
    assert env.timeout == 30.0 and BirdSQLEnv(data_path=bird, timeout=2).timeout == 2.0
    env.reset(options={"split": "test", "task_id": 2})
    # without DISTINCT, 'lion' comes twice: BIRD's set comparison still counts it right
    assert env.step("```sql\nSELECT species FROM animals WHERE wt_kg > 100\n```")[1] == 1.0
    strict = BirdSQLEnv(data_path=bird, comparison="multiset")
    strict.reset(options={"split": "test", "task_id": 2})
    assert strict.step("```sql\nSELECT species FROM animals WHERE wt_kg > 100\n```")[1] == 0.0
    env.reset(options={"split": "test", "task_id": 0})
    assert env.step("```sql\nSELECT COUNT(*) FROM animals\n```")[1] == 0.0


def test_environment_variable_and_flat_layout(tmp_path, monkeypatch):
    root = write_bird(tmp_path / "flat", flat=True)
    monkeypatch.setenv("AGENTGYM_BIRD_PATH", str(root))
    env = gym.make("AgentGym/BIRD-v0")
    assert env.unwrapped.tasks.splits() == {"train": 2, "test": 3}
    env.close()


def test_broken_gold_query_is_feedback(tmp_path):
    root = write_bird(tmp_path / "bird")
    records = json.loads((root / "dev" / "dev.json").read_text())
    records[0]["SQL"] = "SELECT missing_column FROM animals"
    (root / "dev" / "dev.json").write_text(json.dumps(records))
    env = BirdSQLEnv(data_path=root)
    env.reset(options={"split": "test", "task_id": 0})
    obs, reward, terminated, _, info = env.step("SELECT 1")
    # sqlgym shows the reply's result and scores 0; the error says why
    assert obs == "[(1,)]" and reward == 0.0 and terminated and "gold query failed" in info["error"]
    env = BirdSQLEnv(data_path=root, result="table")
    env.reset(options={"split": "test", "task_id": 0})
    obs, reward, terminated, _, info = env.step("SELECT 1")
    assert (
        "cannot be scored" in obs
        and reward == 0.0
        and terminated
        and "gold query failed" in info["error"]
    )


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("no_folder", "not found"),
        ("empty_folder", "neither train/train.json nor dev/dev.json"),
        ("no_databases", "dev.json has no dev_databases folder"),
        ("missing_sqlite", "zoo.sqlite' is missing"),
        ("bad_json", "is not valid JSON"),
        ("not_a_list", "must hold a JSON list"),
        ("missing_sql", "question 1 lacks SQL"),
    ],
)
def test_missing_or_malformed_folder_is_one_line_error(tmp_path, damage, message):
    import shutil

    root = tmp_path / "bird"
    if damage == "no_folder":
        root = tmp_path / "nowhere"
    elif damage == "empty_folder":
        root.mkdir()
    else:
        write_bird(root)
        shutil.rmtree(root / "train")
        dev = root / "dev"
        if damage == "no_databases":
            shutil.rmtree(dev / "dev_databases")
        elif damage == "missing_sqlite":
            (dev / "dev_databases" / "zoo" / "zoo.sqlite").unlink()
        elif damage == "bad_json":
            (dev / "dev.json").write_text("[{")
        elif damage == "not_a_list":
            (dev / "dev.json").write_text("{}")
        elif damage == "missing_sql":
            records = json.loads((dev / "dev.json").read_text())
            del records[1]["SQL"]
            (dev / "dev.json").write_text(json.dumps(records))
    with pytest.raises(BadDataError) as err:
        BirdSQLEnv(data_path=root)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_dev_only_release_keeps_agentgym_indexes(tmp_path):
    import shutil

    root = write_bird(tmp_path / "bird")
    shutil.rmtree(root / "train")
    tasks = BirdTasks(root)
    assert tasks.splits() == {"train": 0, "test": 3}
    assert tasks.agentgym_index("test", 2) == 9430 and tasks.locate(9428) == ("test", 0)
