"""Run untrusted SQL safely on a SQLite file, and compare results as BIRD scores them.

Safety, in layers: the file is opened read-only (``mode=ro``) with ``PRAGMA query_only``; an
authorizer allows only reading (SELECT, reading columns, functions, recursive CTEs and a few
read-only schema PRAGMAs) and denies writes, ATTACH, schema changes, transactions and
``load_extension``; extension loading stays disabled; a progress handler interrupts any query
past its time limit (also while rows are fetched); SQLite limits cap one string or blob at
1 MB and the SQL text at 100,000 characters; ``printf()``/``format()`` refuse widths above
100,000 and LIKE/GLOB patterns are at most 200 characters long, while ``instr()``,
``replace()`` and ``trim()`` refuse argument sizes whose product is above 50 million (one such
call runs inside a single VM step, where the time limit cannot reach it); temporary storage
(sorts, temp b-trees) stays in memory and a query is stopped when the process grows by more
than 512 MB; and at most ``max_rows`` rows, with at most 64 MB of text and blobs, are ever
fetched. Every failure is a :class:`QueryError` with
a one-line message, never a crash or a hang.
"""

from __future__ import annotations

import math
import os
import re
import sqlite3
import time
import urllib.parse
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

DEFAULT_TIMEOUT = 5.0
DEFAULT_MAX_ROWS = 10_000
#: Largest string or blob a query may build (``zeroblob(10**9)`` would otherwise allocate 1 GB).
MAX_VALUE_BYTES = 1_000_000
#: Most text and blob bytes one result may hold (``SELECT randomblob(1000000) FROM big_table``).
MAX_RESULT_BYTES = 64_000_000
_BATCH = 64
MAX_SQL_CHARS = 100_000
_PROGRESS_OPS = 2_000
#: Longest LIKE/GLOB pattern: one LIKE costs up to (text length x pattern length) steps in a
#: single call, so a 1 MB text and a 200-character pattern still finish in well under a second.
MAX_LIKE_PATTERN = 200
#: Most work (product of the argument lengths) one instr()/replace()/trim() call may do.
MAX_FUNCTION_WORK = 50_000_000
#: How much a query may grow the process (sorts and temp tables live in memory).
MAX_TEMP_BYTES = 512 * 1024 * 1024
_MEMORY_CHECK_EVERY = 8

Comparison = Literal["multiset", "set"]

#: Largest width or precision printf() may use: SQLite repeats a ``%c`` as often as its
#: precision says without checking the time limit, so ``printf('%.*c', 2e9, 'x')`` would run
#: for half a minute inside one function call.
MAX_PRINTF_WIDTH = 100_000
_PRINTF_SPEC = re.compile(r"%([-+ 0#,!]*)(\*|\d+)?(?:\.(\*|\d+))?([a-zA-Z%])?")


class _CheckedPrintf:
    """SQLite's printf()/format(), after checking the widths and precisions it is asked for.

    The check passes the call on to SQLite's own printf in a private in-memory connection,
    so results are exactly SQLite's.
    """

    def __init__(self, owner: SafeDatabase) -> None:
        self._owner = owner
        self._sqlite = sqlite3.connect(":memory:", check_same_thread=False)

    def __call__(self, *args: Any) -> Any:
        if not args:
            return None
        fmt = args[0]
        if isinstance(fmt, str):
            k = 1
            for m in _PRINTF_SPEC.finditer(fmt):
                for part in (m.group(2), m.group(3)):
                    if part == "*":
                        value = args[k] if k < len(args) else 0
                        k += 1
                        try:
                            n = int(float(value))
                        except (TypeError, ValueError, OverflowError):
                            n = 0
                    elif part:
                        n = int(part) if len(part) < 12 else MAX_PRINTF_WIDTH + 1
                    else:
                        continue
                    if abs(n) > MAX_PRINTF_WIDTH:
                        self._owner._function_error = (
                            f"printf() width or precision {n} is above {MAX_PRINTF_WIDTH}"
                        )
                        raise ValueError(self._owner._function_error)
                if m.group(4) and m.group(4) != "%":
                    k += 1
        return self._call("printf", args)

    def _call(self, name: str, args: tuple[Any, ...]) -> Any:
        """SQLite's own ``name(*args)``, from the private connection."""
        marks = ", ".join("?" * len(args))
        return self._sqlite.execute(f"SELECT {name}({marks})", args).fetchone()[0]

    def close(self) -> None:
        self._sqlite.close()


class _CheckedStringFunction:
    """SQLite's ``instr``/``replace``/``trim`` family after a check of the work they would do.

    Text arguments are answered in Python with SQLite's semantics (character positions, an
    empty pattern leaves ``replace`` unchanged, ``trim`` strips a set of characters, by
    default spaces); anything else goes to SQLite's own function in a private connection.
    """

    def __init__(self, owner: SafeDatabase, name: str) -> None:
        self._owner = owner
        self.name = name

    def __call__(self, *args: Any) -> Any:
        sizes = [len(a) if isinstance(a, (str, bytes)) else 32 for a in args[:2]]
        if len(sizes) == 2 and sizes[0] * sizes[1] > MAX_FUNCTION_WORK:
            self._owner._function_error = (
                f"{self.name}() on a {sizes[0]}-character value and a {sizes[1]}-character "
                f"argument is above the limit of {MAX_FUNCTION_WORK} steps for one call"
            )
            raise ValueError(self._owner._function_error)
        if args and all(isinstance(a, str) for a in args):
            name = self.name
            if name == "instr" and len(args) == 2:
                return args[0].find(args[1]) + 1
            if name == "replace" and len(args) == 3:
                return args[0] if args[1] == "" else args[0].replace(args[1], args[2])
            if name in ("trim", "ltrim", "rtrim") and len(args) in (1, 2):
                chars = args[1] if len(args) == 2 else " "
                strip = {"trim": str.strip, "ltrim": str.lstrip, "rtrim": str.rstrip}[name]
                return strip(args[0], chars)
        return self._owner._printf._call(self.name, args)


_ALLOWED = {
    sqlite3.SQLITE_SELECT,
    sqlite3.SQLITE_READ,
    sqlite3.SQLITE_FUNCTION,
    sqlite3.SQLITE_RECURSIVE,
}
_READ_PRAGMAS = {
    "table_info",
    "table_xinfo",
    "index_list",
    "index_info",
    "index_xinfo",
    "foreign_key_list",
    "table_list",
    "collation_list",
    "function_list",
    "database_list",
}
_READ_STATEMENTS = {"SELECT", "WITH", "VALUES", "EXPLAIN", "PRAGMA"}
_WRITES = {
    "INSERT",
    "UPDATE",
    "DELETE",
    "REPLACE",
    "CREATE",
    "DROP",
    "ALTER",
    "REINDEX",
    "VACUUM",
    "ANALYZE",
}
_DENIED_FUNCTIONS = {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"}
_ACTION_NAMES = {
    getattr(sqlite3, name): name.removeprefix("SQLITE_").replace("_", " ")
    for name in dir(sqlite3)
    if name.startswith("SQLITE_")
    and name.split("_", 1)[1].split("_")[0]
    in {
        "INSERT",
        "UPDATE",
        "DELETE",
        "CREATE",
        "DROP",
        "ALTER",
        "ATTACH",
        "DETACH",
        "TRANSACTION",
        "SAVEPOINT",
        "ANALYZE",
        "REINDEX",
        "PRAGMA",
    }
}


class QueryError(Exception):
    """A query that could not run; the message is one line, fit to show the agent.

    ``raw`` is what Python's ``sqlite3`` says for the same query on a plain read-only
    connection (what AgentGym's sqlgym shows), where that is known.
    """

    def __init__(self, message: str, raw: str | None = None) -> None:
        super().__init__(message)
        self.raw = message if raw is None else raw


@dataclass
class QueryResult:
    """Rows of one query (at most the row cap), their column names, and whether more existed."""

    columns: list[str]
    rows: list[tuple]
    truncated: bool
    seconds: float


def _resident_bytes() -> int:
    """This process's resident memory (0 where ``/proc`` is missing: no memory cap there)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _uri(path: str | Path) -> str:
    return "file:" + urllib.parse.quote(str(Path(path).resolve())) + "?mode=ro"


class SafeDatabase:
    """A read-only connection to one SQLite file that runs an agent's SQL without harm.

    ``timeout`` (seconds) bounds each query, ``max_rows`` the rows fetched.
    """

    def __init__(
        self, path: str | Path, timeout: float = DEFAULT_TIMEOUT, max_rows: int = DEFAULT_MAX_ROWS
    ) -> None:
        if timeout <= 0 or max_rows <= 0:
            raise ValueError("timeout and max_rows must be positive")
        self.path = Path(path)
        self.timeout = float(timeout)
        self.max_rows = int(max_rows)
        if not self.path.is_file():
            raise FileNotFoundError(f"database file {str(self.path)!r} not found")
        self._con = sqlite3.connect(
            _uri(self.path), uri=True, isolation_level=None, check_same_thread=False
        )
        self._deadline = math.inf
        self._denied: str | None = None
        self._head = ""
        con = self._con
        con.execute("PRAGMA query_only = ON")
        if hasattr(con, "enable_load_extension"):
            con.enable_load_extension(False)
        if hasattr(con, "setlimit"):  # Python >= 3.11
            con.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
            con.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
            con.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, MAX_SQL_CHARS)
            con.setlimit(sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH, MAX_LIKE_PATTERN)
        con.execute("PRAGMA temp_store = MEMORY")  # no temp files; growth is watched instead
        self._function_error: str | None = None
        self._printf = _CheckedPrintf(self)
        for name in ("printf", "format"):
            con.create_function(name, -1, self._printf, deterministic=True)
        for name, n_args in (
            ("instr", 2),
            ("replace", 3),
            ("trim", -1),
            ("ltrim", -1),
            ("rtrim", -1),
        ):
            con.create_function(
                name, n_args, _CheckedStringFunction(self, name), deterministic=True
            )
        self._memory_base = 0
        self._ticks = 0
        con.set_authorizer(self._authorize)
        con.set_progress_handler(self._progress, _PROGRESS_OPS)

    # -- guards ----------------------------------------------------------------------------
    def _authorize(self, action: int, arg1: Any, arg2: Any, db: Any, trigger: Any) -> int:
        if action in _ALLOWED:
            if action == sqlite3.SQLITE_FUNCTION and str(arg2).lower() in _DENIED_FUNCTIONS:
                self._deny(f"the function {arg2}() is not allowed")
                return sqlite3.SQLITE_DENY
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_PRAGMA and str(arg1).lower() in _READ_PRAGMAS:
            return sqlite3.SQLITE_OK
        what = _ACTION_NAMES.get(action, "this statement")
        if action == sqlite3.SQLITE_PRAGMA:
            what = f"PRAGMA {arg1}"
        self._deny(f"{what} is not allowed")
        return sqlite3.SQLITE_DENY

    def _deny(self, reason: str) -> None:
        if self._denied is None:  # the first refusal names the statement best
            self._denied = reason

    def _progress(self) -> int:
        if time.monotonic() > self._deadline:
            return 1
        self._ticks += 1
        if (
            self._ticks % _MEMORY_CHECK_EVERY == 0
            and self._memory_base
            and _resident_bytes() - self._memory_base > MAX_TEMP_BYTES
        ):
            self._memory_exceeded = True
            return 1
        return 0

    # -- running queries ---------------------------------------------------------------------
    def execute(
        self,
        sql: str,
        *,
        max_rows: int | None = None,
        timeout: float | None = None,
        max_bytes: int = MAX_RESULT_BYTES,
    ) -> QueryResult:
        """Run one read-only statement; :class:`QueryError` says why it could not."""
        cap = self.max_rows if max_rows is None else int(max_rows)
        limit = self.timeout if timeout is None else float(timeout)
        sql = sql.strip()
        if not sql:
            raise QueryError("empty query: write one SQL SELECT statement", raw="")
        if len(sql) > MAX_SQL_CHARS:
            raise QueryError(
                f"query is too long ({len(sql)} characters, at most {MAX_SQL_CHARS})",
                raw="string or blob too big",
            )
        self._denied = None
        self._function_error = None
        self._memory_exceeded = False
        self._memory_base = _resident_bytes()
        self._head = sql.split(None, 1)[0].upper().rstrip(";") if sql.split() else ""
        start = time.monotonic()
        self._deadline = start + limit
        cur = self._con.cursor()
        try:
            cur.execute(sql)
            rows = self._fetch(cur, cap + 1, max_bytes)
        except sqlite3.Warning as exc:  # "You can only execute one statement at a time."
            raise QueryError(f"{exc} Send a single SQL statement.", raw=str(exc)) from None
        except sqlite3.DatabaseError as exc:
            raise QueryError(self._explain(exc, limit), raw=self._raw(exc)) from None
        except (OverflowError, MemoryError, ValueError) as exc:
            raise QueryError(f"{type(exc).__name__}: {exc}", raw=str(exc)) from None
        finally:
            self._deadline = math.inf
            cur.close()
        columns = [d[0] for d in cur.description or ()]
        truncated = len(rows) > cap
        return QueryResult(columns, rows[:cap], truncated, time.monotonic() - start)

    @staticmethod
    def _fetch(cur: sqlite3.Cursor, n: int, max_bytes: int) -> list[tuple]:
        rows: list[tuple] = []
        size = 0
        while len(rows) < n:
            batch = cur.fetchmany(min(_BATCH, n - len(rows)))
            if not batch:
                break
            rows += batch
            size += sum(len(v) for row in batch for v in row if isinstance(v, (str, bytes)))
            if size > max_bytes:
                raise QueryError(
                    f"the result is larger than {max_bytes // 1_000_000} MB of text and blobs: select fewer rows or smaller columns"
                )
        return rows

    def _raw(self, exc: Exception) -> str:
        message = str(exc)
        if (
            "not authorized" in message or "authorization denied" in message
        ) and self._head in _WRITES:
            return "attempt to write a readonly database"  # what a plain mode=ro connection says
        return message

    def _explain(self, exc: Exception, limit: float) -> str:
        message = " ".join(str(exc).split())
        if "user-defined function raised exception" in message and self._function_error:
            return self._function_error
        if message == "interrupted" and self._memory_exceeded:
            return (
                f"query interrupted: it needed more than {MAX_TEMP_BYTES // 2**20} MB of "
                "temporary storage (sorts, temporary tables)"
            )
        if message == "interrupted":
            return f"query interrupted after the {limit:g} s time limit"
        if "pattern too complex" in message:
            return (
                f"{message} (LIKE and GLOB patterns are limited to {MAX_LIKE_PATTERN} characters)"
            )
        if "not authorized" in message or "authorization denied" in message:
            if self._head.isalpha() and self._head not in _READ_STATEMENTS:
                reason = f"{self._head} statements are not allowed"
            else:
                reason = self._denied or "this statement is not allowed"
            return f"not authorized: {reason} (the database is read-only; use SELECT queries)"
        if "readonly" in message or "read-only" in message:
            return f"{message} (the database is read-only; use SELECT queries)"
        return message

    def close(self) -> None:
        self._con.close()
        self._printf.close()

    def __enter__(self) -> SafeDatabase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- comparing results ------------------------------------------------------------------------
def _norm(value: Any, places: int | None) -> Any:
    if isinstance(value, float) and places is not None and math.isfinite(value):
        value = round(value, places)
        return int(value) if value.is_integer() else value
    return value


def normalize_rows(rows: Sequence[Sequence[Any]], places: int | None = 6) -> list[tuple]:
    """Rows as tuples, floats rounded to ``places`` decimals (None keeps them exact)."""
    return [tuple(_norm(v, places) for v in row) for row in rows]


def results_match(
    predicted: Sequence[Sequence[Any]],
    gold: Sequence[Sequence[Any]],
    *,
    ordered: bool = False,
    comparison: Comparison = "multiset",
    float_places: int | None = 6,
) -> bool:
    """BIRD's execution accuracy for one question.

    Rows are compared as tuples (column order matters, column names do not). ``ordered``:
    the row sequences must be equal, as when the question asks for an order. Otherwise
    ``"multiset"`` compares rows with their multiplicities; ``"set"`` ignores duplicates, as
    BIRD's ``evaluation.py`` and AgentGym's ``sqlgym`` do (``set(pred) == set(gold)``).
    Floats are rounded to ``float_places`` decimals first so that equivalent arithmetic
    (``AVG(x)`` and ``SUM(x) / COUNT(x)``) agrees; ``None`` compares them exactly.
    """
    p, g = normalize_rows(predicted, float_places), normalize_rows(gold, float_places)
    if ordered:
        return p == g
    if comparison == "set":
        return set(p) == set(g)
    if comparison == "multiset":
        return Counter(p) == Counter(g)
    raise ValueError(f"unknown comparison {comparison!r}: use 'multiset' or 'set'")


def format_result(
    result: QueryResult, max_rows: int = 20, max_cell: int = 60, max_chars: int = 4000
) -> str:
    """A result as a small text table with its row count (truncated sensibly)."""
    n = len(result.rows)
    count = (
        f"more than {n} rows (row cap reached)"
        if result.truncated
        else f"{n} row{'s' if n != 1 else ''}"
    )
    if not result.columns:
        return "Query ran; it returns no columns."

    def cell(v: Any) -> str:
        text = "NULL" if v is None else (v.hex() if isinstance(v, bytes) else str(v))
        text = " ".join(text.split()) if "\n" in text or "\t" in text else text
        return text if len(text) <= max_cell else text[: max_cell - 3] + "..."

    lines = [" | ".join(result.columns)]
    for row in result.rows[:max_rows]:
        lines.append(" | ".join(cell(v) for v in row))
    body = "\n".join(lines)
    if len(body) > max_chars:
        body = body[:max_chars].rsplit("\n", 1)[0] + "\n..."
    shown = min(n, max_rows, body.count("\n"))
    head = f"Result: {count}" + (f", showing the first {shown}" if shown < n else "") + "."
    return f"{head}\n{body}"
