"""The embedded databases and questions: deterministic builds, repair, and gold queries that
return non-empty, unambiguous results."""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")

from agentgym_envs.envs.sql.build import (
    GENERATOR_VERSION,
    cache_root,
    ensure_databases,
    sha256_file,
)
from agentgym_envs.envs.sql.databases import all_specs
from agentgym_envs.envs.sql.execution import results_match
from agentgym_envs.envs.sql.tasks import TEST_SIZE, EmbeddedSQLTasks


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The databases built twice, in two fresh folders."""
    a, b = tmp_path_factory.mktemp("a"), tmp_path_factory.mktemp("b")
    return ensure_databases(a), ensure_databases(b), a


@pytest.fixture(scope="module")
def tasks():
    return EmbeddedSQLTasks()


def _ro(path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def test_builds_are_byte_identical(built):
    first, second, _ = built
    assert sorted(first) == ["flights", "football", "hospital", "library", "retail", "school"]
    for name in first:
        assert first[name].read_bytes() == second[name].read_bytes(), name
    assert (
        first["school"].parent == cache_root(built[2])
        and first["school"].parent.name == f"v{GENERATOR_VERSION}"
    )


def test_damaged_or_missing_database_is_rebuilt(built, caplog):
    paths, _, base = built
    path = paths["retail"]
    good = sha256_file(path)
    data = bytearray(path.read_bytes())
    data[4096:4196] = bytes(b ^ 0xFF for b in data[4096:4196])
    path.write_bytes(bytes(data))
    assert sha256_file(path) != good
    ensure_databases(base)
    assert sha256_file(path) == good
    assert "damaged" in caplog.text
    paths["library"].unlink()
    ensure_databases(base)
    assert (
        paths["library"].is_file()
        and sha256_file(paths["library"])
        == paths["library"].with_suffix(".sha256").read_text().split()[0]
    )


def test_each_database_is_realistic(built):
    paths = built[0]
    for spec in all_specs():
        con = _ro(paths[spec.name])
        tables = [
            r[0]
            for r in con.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        assert 5 <= len(tables) <= 12, (spec.name, tables)
        rows = {t: con.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}
        assert sum(rows.values()) >= 4000 and all(n > 0 for n in rows.values()), (spec.name, rows)
        fks = sum(len(con.execute(f'PRAGMA foreign_key_list("{t}")').fetchall()) for t in tables)
        assert fks >= 4, spec.name
        assert all(any(c[5] for c in con.execute(f'PRAGMA table_info("{t}")')) for t in tables), (
            f"{spec.name}: a table lacks a primary key"
        )
        assert con.execute("PRAGMA foreign_key_check").fetchall() == []
        # dates and missing values, as real data has
        ddl = " ".join(
            r[0] for r in con.execute("SELECT sql FROM sqlite_master WHERE type = 'table'")
        )
        assert re.search(r"date|_dt|_ts|dob|dep", ddl), spec.name
        nulls = 0
        for t in tables:
            for col in con.execute(f'PRAGMA table_info("{t}")').fetchall():
                if not col[3]:
                    nulls += con.execute(
                        f'SELECT COUNT(*) FROM "{t}" WHERE "{col[1]}" IS NULL'
                    ).fetchone()[0]
        assert nulls > 0, spec.name
        # every note names a real column
        for key in spec.column_notes:
            table, column = key.split(".")
            assert column in [c[1] for c in con.execute(f'PRAGMA table_info("{table}")')], key
        con.close()


def test_splits_sizes_and_coverage(tasks):
    assert tasks.size("test") == TEST_SIZE and tasks.size("train") > 2000
    test = [tasks.get("test", i) for i in range(TEST_SIZE)]
    train = [tasks.get("train", i) for i in range(tasks.size("train"))]
    assert not {(t.db_id, t.question) for t in test} & {(t.db_id, t.question) for t in train}
    assert len({(t.db_id, t.question) for t in train}) == len(train)
    mix = Counter(t.difficulty for t in test)
    assert mix == {"simple": 115, "moderate": 61, "challenging": 24}  # near BIRD dev's 60/30/9 %
    assert {t.db_id for t in test} == {s.name for s in all_specs()}
    templates = {(s.name, t.name) for s in all_specs() for t in s.templates}
    assert {(t.db_id, t.source) for t in test} == templates, (
        "every template appears in the test split"
    )
    sql = " ".join(t.gold_sql.upper() for t in test)
    for feature in (
        " JOIN ",
        "GROUP BY",
        "HAVING",
        "ORDER BY",
        "LIMIT",
        "(SELECT",
        "JULIANDAY",
        "STRFTIME",
        "CASE WHEN",
        " OVER (",
        "DISTINCT",
    ):
        assert feature in sql, feature
    assert all(t.evidence or t.difficulty == "simple" for t in test)


def _check_gold(task) -> None:
    con = _ro(task.db_path)
    try:
        rows = con.execute(task.gold_sql).fetchall()
        assert rows, f"empty gold result: {task.gold_sql}"
        assert any(v is not None for r in rows for v in r), task.gold_sql
        # SQLite returns unordered rows in reverse under this pragma: a result that depends on
        # how ties or unordered rows happen to be scanned would change.
        con.execute("PRAGMA reverse_unordered_selects = ON")
        again = con.execute(task.gold_sql).fetchall()
        assert results_match(again, rows, ordered=task.ordered, float_places=None), (
            f"ambiguous: {task.gold_sql}"
        )
        if task.ordered:
            assert re.search(r"ORDER BY", task.gold_sql, re.IGNORECASE)
    finally:
        con.close()


def test_every_test_gold_query_is_nonempty_and_unambiguous(tasks):
    for i in range(tasks.size("test")):
        _check_gold(tasks.get("test", i))


def test_train_gold_queries_are_nonempty_and_unambiguous(tasks):
    n = tasks.size("train")
    for i in range(0, n, 7):  # a spread sample: the generator checks each one at build time
        _check_gold(tasks.get("train", i))


def test_question_values_come_from_the_data(tasks):
    task = next(
        tasks.get("test", i)
        for i in range(TEST_SIZE)
        if tasks.get("test", i).source == "course_by_code"
    )
    code = re.search(r"code (\S+?),", task.question).group(1)
    con = _ro(task.db_path)
    assert con.execute("SELECT COUNT(*) FROM courses WHERE code = ?", (code,)).fetchone()[0] == 1


def _top_level(sql: str, keyword: str) -> int:
    """Index of the last ``keyword`` outside parentheses and quotes (-1 if none)."""
    depth, quote, found = 0, None, -1
    upper = sql.upper()
    for i, ch in enumerate(sql):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0 and upper.startswith(keyword, i):
            found = i
    return found


def _limit_keys(con: sqlite3.Connection, sql: str) -> tuple[int, list] | None:
    """For ``SELECT ... FROM ... ORDER BY e LIMIT k``: k and the ordering keys of all rows."""
    order, limit, frm = (
        _top_level(sql, " ORDER BY "),
        _top_level(sql, " LIMIT "),
        _top_level(sql, " FROM "),
    )
    if min(order, limit) < 0 or not (0 < frm < order < limit):
        return None
    first = _top_level(sql[:frm], " FROM ")
    frm = first if first > 0 else frm
    expr = re.sub(r"\s+(ASC|DESC)\s*$", "", sql[order + 10 : limit], flags=re.IGNORECASE)
    k = int(sql[limit + 7 :].strip())
    cur = con.execute(sql[:limit])
    names = [d[0].lower() for d in cur.description]
    if expr.strip().lower() in names:  # ORDER BY an output alias
        column = names.index(expr.strip().lower())
        return k, [row[column] for row in cur.fetchall()]
    keyed = f"{sql[:frm]}, {expr} AS check_key {sql[frm:limit]}"
    return k, [row[-1] for row in con.execute(keyed).fetchall()]


def test_top_k_answers_have_no_tie_at_the_cutoff(tasks):
    """Rebuilt from the gold SQL alone: a LIMIT k question has distinct ordering keys around
    the k-th row, so no tie decides which rows are in the answer (or in which order)."""
    checked = 0
    for i in range(tasks.size("test")):
        task = tasks.get("test", i)
        con = _ro(task.db_path)
        found = _limit_keys(con, task.gold_sql)
        con.close()
        if found is None:
            continue
        k, keys = found
        head = keys[: k + 1]
        assert len(set(head)) == len(head), f"tie within the top {k}: {task.gold_sql}"
        checked += 1
    assert checked >= 20


def test_the_tie_check_catches_a_tie(tasks):
    con = _ro(tasks.db_paths["school"])
    k, keys = _limit_keys(con, "SELECT student_id FROM students ORDER BY enr_yr LIMIT 1")
    assert k == 1 and keys[0] == keys[1]


def test_env_rebuilds_a_database_deleted_while_it_runs(built):
    from agentgym_envs.envs.sql.env import BirdSQLEnv

    env = BirdSQLEnv(cache_dir=built[2])
    assert env.tasks.root == str(cache_root(built[2]))
    task_id = next(i for i in range(TEST_SIZE) if env.tasks.get("test", i).db_id == "hospital")
    path = env.tasks.get("test", task_id).db_path
    env.close()
    os_path = Path(path)
    os_path.unlink()
    _obs, info = env.reset(options={"split": "test", "task_id": task_id})
    assert os_path.is_file() and info["db_id"] == "hospital"
    assert env.step(f"```sql\n{env.task.gold_sql}\n```")[1] == 1.0
