"""The BIRD SQL envs: observations, parsing, execution-accuracy reward, safety, interactive
mode, tools, and the expert."""

from __future__ import annotations

import hashlib
import pickle
import sys

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("sqlalchemy")

import agentgym_envs
from agentgym_envs.envs.sql.env import BirdSQLEnv, parse_action
from agentgym_envs.envs.sql.execution import QueryError, SafeDatabase, format_result, results_match
from agentgym_envs.errors import MissingExtraError

#: Our richer one-shot variant: CREATE TABLE schema, evidence, result tables, strict scoring.
RICH = {
    "schema": "ddl",
    "evidence": True,
    "result": "table",
    "comparison": "multiset",
    "float_places": 6,
    "ordered": True,
}


@pytest.fixture(scope="module")
def env():
    e = BirdSQLEnv(timeout=1.0, **RICH)
    yield e
    e.close()


@pytest.fixture(scope="module")
def agentgym_env():
    e = BirdSQLEnv(timeout=1.0)
    yield e
    e.close()


@pytest.fixture(scope="module")
def ienv():
    e = BirdSQLEnv(interactive=True, timeout=1.0)
    yield e
    e.close()


def _find(env, template: str, split: str = "test") -> int:
    for i in range(env.tasks.size(split)):
        if env.tasks.get(split, i).source == template:
            return i
    raise LookupError(template)


def _sha(path: str) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


# -- observation ------------------------------------------------------------------------------
def test_observation_has_schema_examples_notes_question_and_evidence(env):
    obs, info = env.reset(
        seed=0, options={"split": "test", "task_id": _find(env, "students_by_year_city")}
    )
    task = env.task
    assert obs.startswith("Database: school (SQLite). A university")
    assert "CREATE TABLE students (" in obs and "PRIMARY KEY (student_id)" in obs
    assert "FOREIGN KEY(advisor_id) REFERENCES teachers (teacher_id)" in obs
    assert "/* 3 example rows from students:" in obs
    assert "- students.enr_yr: year the student enrolled" in obs
    assert f"Question: {task.question}\nEvidence: {task.evidence}" in obs
    assert obs.rstrip().endswith("Answer with one SQLite query.")
    assert info["db_id"] == "school" and info["difficulty"] == "simple"
    assert env.item_id == f"sqlgym_{9428 + task.task_id}"


# -- parsing ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Thought: count them.\n\nAction: ```sql\nSELECT COUNT(*) FROM t;\n```",
            (False, "SELECT COUNT(*) FROM t"),
        ),
        ("```sql SELECT 1```", (False, "SELECT 1")),
        ("```sqlite\nSELECT 2\n```", (False, "SELECT 2")),
        ("```\nSELECT 3\n```", (False, "SELECT 3")),
        (
            "```sql\nSELECT 1\n``` then ```sql\nSELECT 2\n```",
            (False, "SELECT 2"),
        ),  # AgentGym: the last fence
        ("SELECT name FROM t WHERE x = 'a;b';", (False, "SELECT name FROM t WHERE x = 'a;b'")),
        ("Thought: easy\nAction: SELECT 4", (False, "SELECT 4")),
        ("submit SELECT 5", (True, "SELECT 5")),
        ("Action: submit ```sql\nSELECT 6\n```", (True, "SELECT 6")),
        ("Thought: done.\nAction: Submit: SELECT 7;", (True, "SELECT 7")),
        ("```sql\nSELECT 8", (False, "SELECT 8")),  # unterminated fence
        ("", (False, "")),
    ],
)
def test_parse_action(text, expected):
    assert parse_action(text) == expected


# -- reward -----------------------------------------------------------------------------------
def test_results_match_rules():
    gold = [(1, "a"), (2, "b"), (2, "b")]
    assert results_match([(2, "b"), (1, "a"), (2, "b")], gold)
    assert not results_match([(2, "b"), (1, "a"), (2, "b")], gold, ordered=True)
    assert not results_match([(1, "a"), (2, "b")], gold)  # multiset: duplicates count
    assert results_match([(1, "a"), (2, "b")], gold, comparison="set")  # BIRD's evaluation.py
    assert not results_match([("a", 1), ("b", 2), ("b", 2)], gold)  # column order matters
    assert results_match([(33.33333333333333,)], [(33.333333333333336,)])
    assert not results_match([(33.33333333333333,)], [(33.333333333333336,)], float_places=None)
    assert results_match([(2.0,)], [(2,)]) and not results_match([], [(1,)])
    assert not results_match([(None,)], [(0,)])


def test_expert_query_scores_one(env):
    assert (env.comparison, env.float_places) == ("multiset", 6)
    expert = agentgym_envs.expert_policy(env)
    obs, info = env.reset(seed=0, options={"split": "test", "task_id": 3})
    obs, reward, terminated, truncated, info = env.step(expert(obs, info))
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["success"] is True and info["score"] == 1.0 and info["match"] is True
    assert "Correct" in obs and info["gold_sql"] == env.task.gold_sql


def test_an_equivalent_query_scores_one_and_a_wrong_one_zero(env):
    i = _find(env, "students_by_year_city")
    env.reset(options={"split": "test", "task_id": i})
    gold = env.task.gold_sql
    rewritten = gold.replace(
        "SELECT COUNT(*) FROM students WHERE",
        "SELECT COUNT(student_id) FROM students AS s WHERE 1 = 1 AND",
    )
    assert rewritten != gold
    assert env.step(f"```sql\n{rewritten}\n```")[1] == 1.0
    env.reset(options={"split": "test", "task_id": i})
    obs, reward, terminated, _, info = env.step("```sql\nSELECT COUNT(*) FROM students\n```")
    assert (reward, terminated, info["success"], info["score"]) == (0.0, True, False, 0.0)
    assert "Wrong: the result does not match" in obs and "Result: 1 row." in obs


def test_order_matters_only_when_the_question_asks(env):
    i = _find(env, "supplier_top5")
    env.reset(options={"split": "test", "task_id": i})
    assert env.task.ordered
    reversed_sql = f"SELECT * FROM ({env.task.gold_sql}) ORDER BY 1 DESC"
    rows = env.gold_result()
    assert sorted(rows, reverse=True) != rows  # the reversal really reorders
    assert env.step(f"```sql\n{reversed_sql}\n```")[1] == 0.0
    j = _find(env, "club_roles")
    env.reset(options={"split": "test", "task_id": j})
    assert not env.task.ordered and len(env.gold_result()) > 1
    assert (
        env.step(f"```sql\nSELECT * FROM ({env.task.gold_sql}) ORDER BY 2 DESC, 1 DESC\n```")[1]
        == 1.0
    )


def test_missing_distinct_fails_multiset_but_passes_set():
    for comparison, expected in (("multiset", 0.0), ("set", 1.0)):
        e = BirdSQLEnv(comparison=comparison)
        i = _find(e, "patient_medications")
        for k in range(i, e.tasks.size("test")):
            task = e.tasks.get("test", k)
            if task.source != "patient_medications":
                continue
            no_distinct = task.gold_sql.replace("SELECT DISTINCT", "SELECT", 1)
            e.reset(options={"split": "test", "task_id": k})
            rows = e._database(task).execute(no_distinct).rows
            if len(rows) > len(set(rows)):
                assert e.step(f"```sql\n{no_distinct}\n```")[1] == expected, comparison
                break
        else:
            pytest.skip("no test question with duplicate medications")
        e.close()


def test_sql_error_is_feedback_with_the_database_message(env):
    env.reset(options={"split": "test", "task_id": _find(env, "students_by_year_city")})
    obs, reward, terminated, _, info = env.step("```sql\nSELECT nope FROM students\n```")
    assert obs.startswith("Error: no such column: nope") and reward == 0.0 and terminated
    assert info["error"] == "no such column: nope" and info["success"] is False
    env.reset(options={"split": "test", "task_id": 0})
    obs, reward, terminated, _, info = env.step("I don't know")
    assert reward == 0.0 and terminated and "error" in info
    env.reset(options={"split": "test", "task_id": 0})
    obs, reward, terminated, _, info = env.step("")
    assert "no SQL query found" in obs and terminated and reward == 0.0


# -- safety -----------------------------------------------------------------------------------
HOSTILE = {
    "drop": "DROP TABLE students",
    "insert": "INSERT INTO departments VALUES (99, 'Evil', 'Nowhere', 1)",
    "update": "UPDATE teachers SET salary = 0",
    "delete": "DELETE FROM enrollments",
    "attach": "ATTACH DATABASE '{tmp}/evil.db' AS evil",
    "vacuum_into": "VACUUM INTO '{tmp}/copy.db'",
    "pragma": "PRAGMA journal_mode = WAL",
    "extension": "SELECT load_extension('/usr/lib/x86_64-linux-gnu/libsqlite3.so')",
    "temp_table": "CREATE TEMP TABLE t AS SELECT * FROM students",
    "endless_cte": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c",
    "cross_join": "SELECT COUNT(*) FROM enrollments a, enrollments b, enrollments c",
    "huge_blob": "SELECT zeroblob(2000000000)",
    "blob_flood": "SELECT randomblob(900000) FROM enrollments",
    "two_statements": "SELECT 1; DROP TABLE students",
    # one printf() call that repeats a character 2e9 times never reaches the time limit check
    "printf_repeat": "SELECT length(printf('%.*c', 2000000000, 'x'))",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_queries_are_feedback_and_leave_the_file_unchanged(name, tmp_path):
    e = BirdSQLEnv(timeout=0.5, **RICH)
    i = _find(e, "students_by_year_city")
    path = e.tasks.get("test", i).db_path
    before = _sha(path)
    sql = HOSTILE[name].format(tmp=tmp_path)
    e.reset(options={"split": "test", "task_id": i})
    obs, reward, terminated, _, info = e.step(f"```sql\n{sql}\n```")
    assert obs.startswith("Error: ") and reward == 0.0 and terminated and info["error"]
    if name in ("endless_cte", "cross_join"):
        assert "time limit" in info["error"]
    elif name == "blob_flood":
        assert "result is larger than 64 MB" in info["error"]
    elif name == "printf_repeat":
        assert "printf() width or precision 2000000000 is above 100000" in info["error"]
    elif name not in ("huge_blob", "two_statements"):
        assert "not authorized" in info["error"] and "read-only" in info["error"]
    # the env still works, and nothing was written anywhere
    e.reset(options={"split": "test", "task_id": i})
    assert e.step(agentgym_envs.expert_policy(e)("", {}))[1] == 1.0
    assert _sha(path) == before
    assert list(tmp_path.iterdir()) == []
    e.close()


def test_row_cap_and_timeout_are_configurable(env):
    path = env.tasks.db_paths["school"]
    with SafeDatabase(path, timeout=0.2, max_rows=5) as db:
        result = db.execute("SELECT * FROM enrollments")
        assert len(result.rows) == 5 and result.truncated
        assert "more than 5 rows" in format_result(result)
        with pytest.raises(QueryError, match="0.2 s time limit"):
            db.execute(
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT SUM(x) FROM c"
            )
        assert db.execute("PRAGMA table_info(students)").rows  # read-only schema pragmas work
        with pytest.raises(QueryError, match="one statement"):
            db.execute("SELECT 1; SELECT 2")
        # printf() and format() still work as SQLite's own within the width limit
        assert db.execute(
            "SELECT printf('%.2f|%5d|%-4s|%%|%!.3c', 3.14159, 42, 'ab', 'y'), format('%s', NULL)"
        ).rows == [("3.14|   42|ab  |%|yyy", "")]


# -- interactive ------------------------------------------------------------------------------
def test_interactive_explore_then_submit(ienv):
    obs, info = ienv.reset(seed=0, options={"split": "test", "task_id": 0})
    assert "submit <SQL query>" in obs
    obs, reward, terminated, _, info = ienv.step(
        "Action: ```sql\nSELECT * FROM sqlite_master WHERE type = 'table'\n```"
    )
    assert not terminated and reward == 0.0 and obs.startswith("Result: ") and info["rows"] > 0
    obs, reward, terminated, _, info = ienv.step("SELECT nope")
    assert not terminated and obs.startswith("Error: ") and info["error"]
    obs, reward, terminated, _, info = ienv.step(
        f"Action: submit ```sql\n{ienv.task.gold_sql}\n```"
    )
    assert (
        terminated
        and reward == 1.0
        and info["success"]
        and ienv.queries[0].startswith("SELECT * FROM sqlite_master")
    )


def test_interactive_results_are_truncated_with_the_row_count(ienv):
    ienv.reset(options={"split": "test", "task_id": _find(ienv, "students_by_year_city")})
    obs = ienv.step("SELECT * FROM students")[0]
    assert obs.startswith("Result: 1500 rows, showing the first 20.") and obs.count("\n") == 21


def test_interactive_expert_explores_once_then_submits(ienv):
    expert = agentgym_envs.expert_policy(ienv)
    obs, info = ienv.reset(options={"split": "test", "task_id": 5})
    first = expert(obs, info)
    assert "submit" not in first and "LIMIT 3" in first
    obs, reward, terminated, _, info = ienv.step(first)
    assert not terminated and obs.startswith("Result: 3 rows.")
    obs, reward, terminated, _, info = ienv.step(expert(obs, info))
    assert terminated and reward == 1.0


def test_random_policy_queries_run_and_score_zero(env, ienv):
    rng = np.random.default_rng(0)
    for e in (env, ienv):
        ran = 0
        for task_id in range(30):
            e.reset(options={"split": "test", "task_id": task_id})
            action = e.random_action(rng)
            _submit, sql = parse_action(action)
            assert sql.upper().startswith("SELECT")
            try:
                e._database(e.task).execute(sql)
                ran += 1
            except QueryError:
                pass
            assert e.step(action)[1] == 0.0
        assert ran >= 25


# -- tools, pickling, registry ---------------------------------------------------------------
def test_tool_calls(env, ienv):
    assert [t["function"]["name"] for t in env.tool_schemas()] == ["submit_sql"]
    assert [t["function"]["name"] for t in ienv.tool_schemas()] == ["run_sql", "submit_sql"]
    assert parse_action(env.action_from_tool_call("submit_sql", {"sql": "SELECT 1"})) == (
        False,
        "SELECT 1",
    )
    assert parse_action(ienv.action_from_tool_call("submit_sql", {"sql": "SELECT 1"})) == (
        True,
        "SELECT 1",
    )
    assert parse_action(ienv.action_from_tool_call("run_sql", {"sql": "SELECT 1"})) == (
        False,
        "SELECT 1",
    )
    with pytest.raises(ValueError, match="unknown tool 'run_sql'"):
        env.action_from_tool_call("run_sql", {"sql": "SELECT 1"})
    assert "```sql" in env.instructions() and "submit" in ienv.instructions()


def test_pickled_env_reopens_its_database(ienv):
    ienv.reset(options={"split": "test", "task_id": 2})
    clone = pickle.loads(pickle.dumps(ienv))
    assert clone._db is None
    assert (
        clone.step("SELECT COUNT(*) FROM sqlite_master")[0]
        == ienv.step("SELECT COUNT(*) FROM sqlite_master")[0]
    )
    clone.close()


def test_gym_make_and_registry():
    for env_id, rounds in (("AgentGym/BIRD-v0", 1), ("AgentGym/BIRDInteractive-v0", 10)):
        info = agentgym_envs.env_info(env_id)
        assert (
            info.max_rounds == rounds
            and info.item_prefix == "sqlgym"
            and info.extra == "sql"
            and info.installed
        )
        e = gym.make(env_id)
        assert e.unwrapped.interactive == (rounds > 1)
        e.close()


def test_missing_extra_is_one_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "sqlalchemy", None)
    with pytest.raises(MissingExtraError) as err:
        BirdSQLEnv()
    assert (
        str(err.value)
        == 'sqlalchemy is not installed (needed by this environment): pip install "agentgym-envs[sql]"'
    )


@pytest.mark.parametrize("fmt", ["react", "tools"])
@pytest.mark.parametrize("env_id", ["AgentGym/BIRD-v0", "AgentGym/BIRDInteractive-v0"])
def test_llm_wrappers_drive_the_env(fmt, env_id):
    import json

    from agentgym_envs.wrappers import make_llm_env

    env = make_llm_env(env_id, format=fmt, max_seconds=None)
    env.reset(seed=0, options={"split": "test", "task_id": 1})
    gold = env.unwrapped.task.gold_sql
    interactive = env.unwrapped.interactive

    def call(name: str, sql: str):
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": name,
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps({"sql": sql})},
                }
            ],
        }

    if fmt == "react":
        replies = (
            ["Thought: look first.\nAction: ```sql\nSELECT COUNT(*) FROM sqlite_master\n```"]
            if interactive
            else []
        )
        replies.append(
            f"Thought: done.\nAction: {'submit ' if interactive else ''}```sql\n{gold}\n```"
        )
    else:
        replies = [call("run_sql", "SELECT 1")] if interactive else []
        replies.append(call("submit_sql", gold))
    for k, reply in enumerate(replies):
        _obs, reward, terminated, truncated, info = env.step(reply)
        assert terminated == (k == len(replies) - 1) and not truncated
    assert reward == 1.0 and info["success"]
    env.close()
