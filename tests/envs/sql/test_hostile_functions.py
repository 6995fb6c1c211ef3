"""SQL: single long function calls and temp storage are bounded; text functions keep SQLite's results."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from agentgym_envs.envs.sql.execution import (
    MAX_FUNCTION_WORK,
    MAX_LIKE_PATTERN,
    QueryError,
    SafeDatabase,
)


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "t.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (s TEXT, n INTEGER, b BLOB)")
    con.executemany(
        "INSERT INTO t VALUES (?, ?, ?)",
        [("  pad  ", 1, b"xyx"), ("abcabc", 22, None), (None, None, b""), ("héllo wörld", 3, b"h")],
    )
    con.commit()
    con.close()
    with SafeDatabase(path, timeout=2.0) as database:
        yield database


def test_like_between_a_huge_text_and_a_long_pattern_is_refused(db):
    pattern = "%" + "a" * 48_000 + "b"
    with pytest.raises(QueryError, match=f"limited to {MAX_LIKE_PATTERN} characters"):
        db.execute(f"SELECT (SELECT group_concat('a', '') FROM t) || zeroblob(10) LIKE '{pattern}'")
    with pytest.raises(QueryError, match="pattern too complex"):
        db.execute(f"SELECT 'x' GLOB '{'*a' * 200}'")
    assert db.execute("SELECT s FROM t WHERE s LIKE '%abc%'").rows == [("abcabc",)]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT instr(replace(hex(zeroblob(400000)), '0', 'a'), replace(hex(zeroblob(100000)), '0', 'a') || 'b')",
        "SELECT length(replace(replace(hex(zeroblob(400000)), '0', 'a'), replace(hex(zeroblob(100000)), '0', 'a') || 'b', 'x'))",
        "SELECT length(trim(replace(hex(zeroblob(400000)), '0', 'a'), replace(hex(zeroblob(200000)), '0', 'b') || 'a'))",
    ],
)
def test_quadratic_string_functions_are_refused_before_they_run(db, sql):
    done = threading.Event()
    started = time.monotonic()

    def watchdog():  # a failure here would otherwise hang the suite for minutes
        if not done.wait(120):
            db._con.interrupt()

    threading.Thread(target=watchdog, daemon=True).start()
    try:
        with pytest.raises(QueryError, match=f"above the limit of {MAX_FUNCTION_WORK}"):
            db.execute(sql)
    finally:
        done.set()
    assert time.monotonic() - started < 120


@pytest.mark.parametrize(
    "expr",
    [
        "instr(s, 'l')",
        "instr(s, '')",
        "instr(n, 2)",
        "instr(b, x'79')",
        "instr(s, NULL)",
        "replace(s, 'b', 'XY')",
        "replace(s, '', 'z')",
        "replace(n, 2, 'two')",
        "replace(b, x'78', x'00')",
        "trim(s)",
        "ltrim(s)",
        "rtrim(s, ' d')",
        "trim(s, 'ah')",
        "trim(n, 2)",
        "trim(b, x'78')",
    ],
)
def test_checked_functions_return_what_sqlite_returns(db, expr):
    ours = db.execute(f"SELECT {expr} FROM t").rows
    plain = sqlite3.connect(f"file:{db.path}?mode=ro", uri=True)
    try:
        assert ours == plain.execute(f"SELECT {expr} FROM t").fetchall()
    finally:
        plain.close()


_SORT_BOMB = """
import resource, sqlite3, sys
resource.setrlimit(resource.RLIMIT_AS, (3 * 1024**3, 3 * 1024**3))
from agentgym_envs.envs.sql.execution import QueryError, SafeDatabase
sqlite3.connect(sys.argv[1]).close()
sql = (
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 3000) "
    "SELECT randomblob(900000) AS b FROM c ORDER BY b"
)
with SafeDatabase(sys.argv[1], timeout=60) as db:
    try:
        db.execute(sql)
        print("ran")
    except QueryError as exc:
        print(exc)
"""


def test_a_sort_that_needs_gigabytes_of_temp_storage_is_stopped(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", _SORT_BOMB, str(tmp_path / "big.sqlite")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "temporary storage" in done.stdout
