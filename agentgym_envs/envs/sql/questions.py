"""Turn question templates into verified questions with gold SQL.

A template is filled with values taken from the database itself; an instance is kept only if
its gold query returns a small, non-empty result that no tie makes ambiguous (see
:class:`~agentgym_envs.envs.sql.databases.spec.Template`).
"""

from __future__ import annotations

import random
import sqlite3
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentgym_envs.envs.sql.databases.spec import DatabaseSpec, Template


@dataclass(frozen=True)
class Question:
    """One embedded question: BIRD's fields plus the template it came from."""

    db_id: str
    template: str
    difficulty: str
    question: str
    evidence: str
    sql: str
    ordered: bool


def _sql_value(value: Any) -> str:
    if isinstance(value, str):
        return value.replace("'", "''")
    return str(value)


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def check_gold(
    con: sqlite3.Connection,
    template: Template,
    sql: str,
    keys_sql: str | None,
    top: int | None = None,
) -> list[tuple] | None:
    """The gold result if the instance is a good question, else None."""
    top = template.top if top is None and isinstance(template.top, int) else top
    rows = con.execute(sql).fetchmany(template.max_rows + 1)
    if len(rows) < max(1, template.min_rows) or len(rows) > template.max_rows:
        return None
    values = [v for row in rows for v in row]
    if all(v is None for v in values):
        return None
    if not template.allow_zero and all(v in (None, 0) for v in values):
        return None
    if keys_sql is not None:
        keys = [row[0] for row in con.execute(keys_sql).fetchall()]
        if top is not None:
            head = keys[: top + 1]
            if len(keys) < top or len(set(head)) != len(head):
                return None
        if template.ordered:
            head = keys[: len(rows)]
            if len(head) < len(rows) or len(set(head)) != len(head):
                return None
    elif template.ordered:
        raise ValueError(f"template {template.name}: an ordered question needs keys")
    return rows


def generate_questions(spec: DatabaseSpec, db_path: Path) -> list[Question]:
    """Every verified instance of ``spec``'s templates (at most ``max_instances`` each)."""
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    out: list[Question] = []
    try:
        for template in spec.templates:
            rng = random.Random(f"{spec.name}/{template.name}")
            cur = con.execute(template.params)
            names = [d[0] for d in cur.description]
            needed = _fields(template.question) | _fields(template.evidence) | _fields(template.sql)
            missing = needed - set(names)
            if missing:
                raise ValueError(
                    f"template {spec.name}.{template.name}: params lack {sorted(missing)}"
                )
            candidates = sorted(cur.fetchall(), key=repr)
            rng.shuffle(candidates)
            kept = 0
            for row in candidates:
                if kept >= template.max_instances:
                    break
                raw = dict(zip(names, row))
                if any(v is None for v in raw.values()):
                    continue
                quoted = {k: _sql_value(v) for k, v in raw.items()}
                sql = template.sql.format(**quoted)
                keys_sql = template.keys.format(**quoted) if template.keys else None
                top = raw[template.top] if isinstance(template.top, str) else template.top
                if check_gold(con, template, sql, keys_sql, top) is None:
                    continue
                out.append(
                    Question(
                        db_id=spec.name,
                        template=template.name,
                        difficulty=template.difficulty,
                        question=template.question.format(**raw),
                        evidence=template.evidence.format(**raw),
                        sql=sql,
                        ordered=template.ordered,
                    )
                )
                kept += 1
    finally:
        con.close()
    return out
