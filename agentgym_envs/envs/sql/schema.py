"""The schema part of an observation: CREATE statements from SQLAlchemy's inspection of the
database, a few example rows per table, and notes on cryptic columns."""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentgym_envs.envs.sql.execution import _uri
from agentgym_envs.errors import require

EXAMPLE_ROWS = 3
_MAX_CELL = 40
_cache: dict[tuple, SchemaInfo] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class SchemaInfo:
    """What the observation and the random policy need to know about one database."""

    text: str
    #: table -> column names, in declaration order.
    columns: dict[str, tuple[str, ...]]
    #: table -> a few example rows (for values a random query can filter on).
    samples: dict[str, tuple[tuple, ...]]
    #: table -> primary key column names.
    primary_keys: dict[str, tuple[str, ...]]


def _cell(value: Any) -> str:
    if value is None:
        return "NULL"
    text = value.hex() if isinstance(value, bytes) else " ".join(str(value).split())
    return text if len(text) <= _MAX_CELL else text[: _MAX_CELL - 3] + "..."


def _inspect(path: Path, notes: tuple[tuple[str, str], ...], example_rows: int) -> SchemaInfo:
    sa = require("sqlalchemy", "sql")
    from sqlalchemy.schema import CreateTable

    engine = sa.create_engine(
        "sqlite://",
        creator=lambda: sqlite3.connect(_uri(path), uri=True),
        poolclass=sa.pool.NullPool,
    )
    try:
        metadata = sa.MetaData()
        metadata.reflect(bind=engine)
        blocks, columns, samples, pks = [], {}, {}, {}
        with engine.connect() as con:
            for table in metadata.sorted_tables:
                ddl = str(CreateTable(table).compile(engine)).strip()
                ddl = "\n".join(
                    line.rstrip().replace("\t", "    ") for line in ddl.splitlines() if line.strip()
                )
                columns[table.name] = tuple(c.name for c in table.columns)
                pks[table.name] = tuple(c.name for c in table.primary_key.columns)
                rows = (
                    con.execute(sa.select(table).limit(example_rows)).fetchall()
                    if example_rows
                    else []
                )
                samples[table.name] = tuple(tuple(r) for r in rows)
                block = ddl
                if rows:
                    lines = [" | ".join(columns[table.name])] + [
                        " | ".join(_cell(v) for v in r) for r in rows
                    ]
                    block += (
                        f"\n/* {len(rows)} example rows from {table.name}:\n"
                        + "\n".join(lines)
                        + "\n*/"
                    )
                blocks.append(block)
    finally:
        engine.dispose()
    text = "\n\n".join(blocks)
    if notes:
        text += "\n\nColumn notes:\n" + "\n".join(f"- {col}: {note}" for col, note in notes)
    return SchemaInfo(text, columns, samples, pks)


def schema_info(
    path: str | Path, notes: tuple[tuple[str, str], ...] = (), example_rows: int = EXAMPLE_ROWS
) -> SchemaInfo:
    """The (cached) schema description of the SQLite file at ``path``."""
    p = Path(path)
    st = p.stat()
    key = (str(p.resolve()), st.st_mtime_ns, st.st_size, notes, example_rows)
    with _lock:
        info = _cache.get(key)
    if info is None:
        info = _inspect(p, notes, example_rows)
        with _lock:
            _cache[key] = info
    return info


# -- sqlgym's prose schema ----------------------------------------------------------------------
def _column_type(declared: str) -> str:
    t = (declared or "").lower()
    if any(k in t for k in ("int", "real", "floa", "doub", "num", "dec")):
        return "number"
    if any(k in t for k in ("date", "time")):
        return "time"
    return "text"


def tables_record(path: str | Path, db_id: str) -> dict[str, Any]:
    """A BIRD/Spider ``*_tables.json`` record for the SQLite file at ``path``.

    Tables in creation order, columns in declaration order; the natural names are the
    database's own names (BIRD's files carry hand-written ones). A composite primary key is a
    nested list of column indices, as in BIRD's files; foreign keys are ``[from, to]`` index
    pairs, a reference without a column pointing at the referenced table's primary key.
    """
    con = sqlite3.connect(_uri(Path(path)), uri=True)
    try:
        tables = [
            r[0]
            for r in con.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid"
            )
            if not r[0].startswith("sqlite_")
        ]
        columns: list[list[Any]] = [[-1, "*"]]
        types = ["text"]
        index: dict[tuple[str, str], int] = {}
        pk_of: dict[str, list[int]] = {}
        primary: list[Any] = []
        for t, table in enumerate(tables):
            info = con.execute(f"PRAGMA table_info({_quote(table)})").fetchall()
            keyed = sorted((row[5], row[1]) for row in info if row[5])
            for row in info:
                index[(table.lower(), row[1].lower())] = len(columns)
                columns.append([t, row[1]])
                types.append(_column_type(row[2]))
            pk_of[table.lower()] = [index[(table.lower(), name.lower())] for _, name in keyed]
            if len(pk_of[table.lower()]) == 1:
                primary.append(pk_of[table.lower()][0])
            elif pk_of[table.lower()]:
                primary.append(pk_of[table.lower()])
        foreign: list[list[int]] = []
        for table in tables:
            rows = con.execute(f"PRAGMA foreign_key_list({_quote(table)})").fetchall()
            for row in sorted(rows, key=lambda r: (-r[0], r[1])):  # declaration order
                target, src, dst = row[2].lower(), row[3], row[4]
                if dst is None:
                    keys = pk_of.get(target, [])
                    dst_index = keys[row[1]] if row[1] < len(keys) else None
                else:
                    dst_index = index.get((target, dst.lower()))
                src_index = index.get((table.lower(), src.lower()))
                if src_index is not None and dst_index is not None:
                    foreign.append([src_index, dst_index])
    finally:
        con.close()
    return {
        "db_id": db_id,
        "table_names_original": list(tables),
        "table_names": list(tables),
        "column_names_original": [list(c) for c in columns],
        "column_names": [list(c) for c in columns],
        "column_types": types,
        "primary_keys": primary,
        "foreign_keys": foreign,
    }


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def sqlgym_schema(record: dict[str, Any]) -> str:
    """A database described in prose, as the ``sqlgym`` package writes it for AgentGym.

    ``record`` is one entry of BIRD's ``*_tables.json`` (its natural ``table_names`` and
    ``column_names``, lowercased): ``<db> contains tables such as a, b. Table a has columns such
    as x, y. x is the primary key. ...`` then one sentence per foreign key. The text follows
    sqlgym 0.1.2 exactly, including its quirks: a table without a single-column primary key
    still gets `` is the primary key.``, and a foreign key names the column *after* the one its
    index points to (sqlgym looks names up in a list that skips the ``*`` column).
    """
    tables = [str(t).lower() for t in record["table_names"]]
    columns = [(int(c[0]), str(c[1]).lower()) for c in record["column_names"]]
    primary = record.get("primary_keys") or []
    parts = [f"{record['db_id']} contains tables such as {', '.join(tables)}."]
    flat: list[str] = []
    for t, table in enumerate(tables):
        own, keys = [], []
        for i, (owner, name) in enumerate(columns):
            if i == 0:
                continue
            flat.append(name)
            if owner == t:
                own.append(name)
                if i in primary:
                    keys.append(name)
        parts.append(f"Table {table} has columns such as {', '.join(own)}.")
        parts.append(f"{', '.join(keys)} is the primary key.")
    for src, dst in record.get("foreign_keys") or []:
        src_name = flat[src] if src < len(flat) else columns[src][1]  # sqlgym would crash here
        dst_name = flat[dst] if dst < len(flat) else columns[dst][1]
        parts.append(
            f"The {src_name} of {tables[columns[src][0]]} is the foreign key of "
            f"{dst_name} of {tables[columns[dst][0]]}."
        )
    return " ".join(parts)
