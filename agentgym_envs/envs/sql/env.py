"""The BIRD SQL environments: one-shot text-to-SQL (AgentGym's sqlgym) and an interactive
variant where the agent explores the database before it submits."""

from __future__ import annotations

import functools
import json
import logging
import os
import re
from collections import OrderedDict
from pathlib import Path
from typing import Any, Literal

import numpy as np

from agentgym_envs.core import StepResult, TextEnv
from agentgym_envs.deprecation import renamed_argument
from agentgym_envs.envs.sql.execution import (
    DEFAULT_MAX_ROWS,
    DEFAULT_TIMEOUT,
    Comparison,
    QueryError,
    QueryResult,
    SafeDatabase,
    format_result,
    results_match,
)
from agentgym_envs.envs.sql.tasks import BIRD_PATH_ENV, BirdTasks, EmbeddedSQLTasks, SQLTask
from agentgym_envs.errors import require
from agentgym_envs.tools.tool import Tool, Toolkit, param, schema

log = logging.getLogger(__name__)

#: BIRD's evaluation script gives each query 30 s; some of its databases are large.
BIRD_TIMEOUT = 30.0
GOLD_TIMEOUT = 60.0
_FENCE = re.compile(r"```[ \t]*([A-Za-z]*)[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_ACTION = re.compile(r"action\s*:", re.IGNORECASE)
_SUBMIT = re.compile(r"^\s*submit\b\s*:?\s*", re.IGNORECASE)
_SUBMIT_BEFORE_FENCE = re.compile(r"\bsubmit\s*:?\s*$", re.IGNORECASE)
_GOLD_CACHE = 256


def _clean(sql: str) -> str:
    sql = sql.strip()
    while sql.endswith(";"):
        sql = sql[:-1].rstrip()
    return sql


def parse_action(text: str) -> tuple[bool, str]:
    """``(submit, sql)`` from a reply.

    SQL in a ```` ```sql ```` fence is taken as AgentGym's client takes it (the last fence);
    without a fence, the text after the last ``Action:`` (or the whole reply). The word
    ``submit`` right before the SQL or its fence marks the final answer.
    """
    fences = list(_FENCE.finditer(text))
    if fences:
        sql_fences = [m for m in fences if m.group(1).lower() in ("sql", "sqlite")]
        m = (sql_fences or fences)[-1]
        return bool(_SUBMIT_BEFORE_FENCE.search(text[: m.start()])), _clean(m.group(2))
    actions = list(_ACTION.finditer(text))
    segment = text[actions[-1].end() :] if actions else text
    submit = _SUBMIT.match(segment)
    if submit:
        return True, _clean(segment[submit.end() :])
    return False, _clean(segment)


def sqlgym_action(text: str) -> str:
    """The SQL AgentGym's client sends for a reply: the text inside the last ```` ```sql ````
    fence (up to the next fence), else the whole reply, stripped."""
    return text.split("```sql")[-1].split("```")[0].strip()


def _cut(text: str) -> str:
    """AgentGym's sqlgym server shows at most 100 characters of a result, then ``...``."""
    return text[:100] + "..." if len(text) > 100 else text


@functools.lru_cache(maxsize=16)
def _read_tables(path: str) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        log.warning(
            "cannot read BIRD tables file %s (%s): deriving schemas from the databases", path, exc
        )
        return {}
    return {rec["db_id"]: rec for rec in data if isinstance(rec, dict) and "db_id" in rec}


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(value: Any) -> str:
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, bytes):
        return "X'" + value.hex() + "'"
    return repr(value)


class BirdSQLEnv(TextEnv):
    """Answer a question about a SQLite database with one SQL query (BIRD, AgentGym's sqlgym).

    ## Description
    Each task is a BIRD-style question over a SQLite database, with a gold SQL query (and
    BIRD's *evidence*, the external knowledge hint, which AgentGym does not show). The reply is
    executed and its result compared with the gold query's result. By default the env is
    AgentGym's ``sqlgym`` server: the same observation text, the same SQL taken out of the
    reply, the same result text and reward, one turn (``AgentGym/BIRD-v0``). With
    ``interactive=True`` (``AgentGym/BIRDInteractive-v0``, our variant) the agent may first run
    exploratory queries and see their results, then ends with ``submit <sql>``; that variant
    shows the richer schema, the evidence and result tables by default.

    ## Action Space
    SQL text. By default as AgentGym's client reads a reply: the text inside the last
    ```` ```sql ```` fence up to the next fence, else the whole reply, stripped. With
    ``result="table"`` or ``interactive=True``: the last ```` ```sql ```` (or bare) fence, else the
    text after ``Action:`` or the whole reply; interactive mode takes ``submit <sql>`` (also
    ``submit ```sql ...``` ``) as the final answer. Only reading is possible: the connection is
    read-only, writes, ``ATTACH``, ``PRAGMA`` changes and extension loading are refused, each
    query has a time limit (``timeout``) and at most ``max_rows`` rows are fetched. A refused,
    failing or runaway query is feedback (``info["error"]``), never an exception.

    ## Observation Space
    Reset, by default (``schema="agentgym"``): sqlgym's prose schema, a blank line, the
    question: ``<db> contains tables such as a, b. Table a has columns such as x, y. x is the
    primary key. ... The x of b is the foreign key of y of a.\n\n<question>`` (built from BIRD's
    ``*_tables.json`` where the data has one, else from the database file; written with
    sqlgym 0.1.2's quirks). ``evidence=True`` adds ``\nEvidence: ...``. With ``schema="ddl"``:
    the database name and summary, ``CREATE TABLE`` statements (from SQLAlchemy's inspection)
    each followed by example rows, notes on cryptic columns, ``Question:`` and ``Evidence:``.
    Step, by default (``result="agentgym"``): ``str(rows)`` of the result (a Python list of
    tuples) or sqlite's error message, cut at 100 characters followed by ``...``, as
    AgentGym's server sends it -- control characters and NULs of the query that sqlite names
    in its error stay in it, as they do in AgentGym's (parity); over ``agentgym serve`` a
    lone surrogate travels as a JSON ``\\udXXX`` escape. With ``result="table"``: the result as a table with its row
    count (first 20 rows shown) or ``Error: <message>``, and on the final answer whether it
    matches.

    ## Starting State
    The chosen task's question over its database.

    ## Rewards
    Execution accuracy: 1.0 when the submitted query's result equals the gold result, else
    0.0 (also on any error). By default as sqlgym scores it: ``set(rows) == set(gold_rows)``
    with exact values (duplicates and row order ignored). Options: ``comparison="multiset"``
    (duplicates count), ``ordered=True`` (rows compared as a sequence when the question asks for
    an order), ``float_places`` (round floats first). The interactive variant defaults to
    multiset, ordered, 6 decimals on the embedded questions.

    ## Episode End
    Terminated after the single reply (``BIRD-v0``, AgentGym's max rounds 1) or after
    ``submit`` (interactive; turn limits come from the ``max_rounds`` wrapper, the engine caps
    an episode at 30 steps).

    ## Information
    ``success``, ``score`` (1.0 on a match), ``db_id``, ``difficulty`` (simple / moderate /
    challenging), and at the end ``sql`` (the submitted query), ``gold_sql`` and ``match``.
    Exploratory steps report ``rows``.

    ## Arguments
    ``interactive`` (default False). ``data_path``: a BIRD release folder (``train/train.json``,
    ``dev/dev.json``, their ``*_tables.json`` and ``*_databases/<db_id>/<db_id>.sqlite``; also
    read from ``$AGENTGYM_BIRD_PATH``): the train split is BIRD train (AgentGym items 0-9427),
    the test split BIRD dev (items 9428-10961), as AgentGym's server numbers them. Without it:
    six generated databases (school, retail, football, hospital, library, flights) built once
    into ``cache_dir`` (default ``$AGENTGYM_ENVS_CACHE/sql`` or ``~/.cache/agentgym-envs/sql``),
    with 200 test and 2,943 train questions, numbered the same way (a stand-in for BIRD;
    :func:`~agentgym_envs.envs.sql.tasks.export_bird_folder` writes them in BIRD's layout, which
    AgentGym's own server reads). ``schema``: ``"agentgym"`` or ``"ddl"``. ``evidence``: show
    BIRD's evidence. ``result``: ``"agentgym"`` or ``"table"``. ``timeout``: seconds per query
    (default 5; 30 with ``data_path``, as BIRD's evaluation allows). ``max_rows``: rows fetched
    per query (10,000). ``comparison``: ``"set"`` or ``"multiset"``. ``ordered``: compare
    ordered questions as sequences. ``float_places``: decimals floats are rounded to before
    comparing, None for exact. ``example_rows``: example rows per table in the ddl schema (3).
    ``bird_path``: ``data_path``'s old name (deprecated, removed in the next release).

    ## Version History
    v0: initial release. The observation, result text and scoring became sqlgym's by default
    (the CREATE TABLE schema, evidence, result tables and multiset scoring moved to options;
    ``BIRDInteractive-v0`` keeps them as its defaults); embedded test items are numbered from
    9428 as AgentGym numbers BIRD dev.
    """

    family = "sql"

    def __init__(
        self,
        interactive: bool = False,
        data_path: str | os.PathLike | None = None,
        cache_dir: str | os.PathLike | None = None,
        timeout: float | None = None,
        max_rows: int = DEFAULT_MAX_ROWS,
        comparison: Comparison | None = None,
        float_places: int | Literal["auto"] | None = "auto",
        example_rows: int = 3,
        schema: Literal["agentgym", "ddl"] | None = None,
        evidence: bool | None = None,
        result: Literal["agentgym", "table"] | None = None,
        ordered: bool | None = None,
        render_mode: str | None = None,
        *,
        bird_path: str | os.PathLike | None = None,
    ) -> None:
        require("sqlalchemy", "sql")
        data_path = renamed_argument("data_path", data_path, "bird_path", bird_path)
        data_path = data_path or os.environ.get(BIRD_PATH_ENV) or None
        if timeout is None:
            timeout = BIRD_TIMEOUT if data_path else DEFAULT_TIMEOUT
        if timeout <= 0 or max_rows <= 0:
            raise ValueError(f"timeout and max_rows must be positive, got {timeout} and {max_rows}")
        if comparison not in (None, "multiset", "set"):
            raise ValueError(f"unknown comparison {comparison!r}: use 'multiset' or 'set'")
        rich = bool(interactive)  # the interactive variant keeps our richer defaults
        schema = schema or ("ddl" if rich else "agentgym")
        result = result or ("table" if rich else "agentgym")
        if schema not in ("agentgym", "ddl"):
            raise ValueError(f"unknown schema {schema!r}: use 'agentgym' or 'ddl'")
        if result not in ("agentgym", "table"):
            raise ValueError(f"unknown result {result!r}: use 'agentgym' or 'table'")
        tasks = BirdTasks(data_path) if data_path else EmbeddedSQLTasks(cache_dir)
        super().__init__(tasks, render_mode=render_mode)
        self.interactive = bool(interactive)
        self.timeout = float(timeout)
        self.max_rows = int(max_rows)
        self.schema_style = schema
        self.show_evidence = rich if evidence is None else bool(evidence)
        self.result_style = result
        self.ordered = rich if ordered is None else bool(ordered)
        # sqlgym (and BIRD's evaluation) compare result sets exactly; the interactive variant
        # on generated questions counts duplicates and forgives float noise between
        # equivalent formulas (AVG(x) vs SUM(x) / COUNT(x)).
        self.comparison: Comparison = comparison or (
            "multiset" if rich and not data_path else "set"
        )
        if float_places == "auto":
            float_places = 6 if rich and not data_path else None
        self.float_places = float_places
        self.example_rows = int(example_rows)
        self.queries: list[str] = []
        self._db: SafeDatabase | None = None
        self._gold: OrderedDict[tuple[str, str], list[tuple]] = OrderedDict()
        self._tables: dict[tuple[str, str, str], dict[str, Any]] = {}

    # -- database handling -----------------------------------------------------------------
    def _database(self, task: SQLTask) -> SafeDatabase:
        if self._db is not None and str(self._db.path) == task.db_path:
            return self._db
        if self._db is not None:
            self._db.close()
            self._db = None
        try:
            self._db = SafeDatabase(task.db_path, timeout=self.timeout, max_rows=self.max_rows)
        except FileNotFoundError:
            if not isinstance(self.tasks, EmbeddedSQLTasks):
                raise
            log.warning("embedded database %s went missing: rebuilding", task.db_path)
            self.tasks.repair()
            self._db = SafeDatabase(task.db_path, timeout=self.timeout, max_rows=self.max_rows)
        return self._db

    def gold_result(self, task: SQLTask | None = None) -> list[tuple]:
        """The gold query's rows for ``task`` (default: the current one), cached."""
        task = task or self.task  # type: ignore[assignment]
        key = (task.db_path, task.gold_sql)
        if key in self._gold:
            self._gold.move_to_end(key)
            return self._gold[key]
        db = self._database(task)
        result = db.execute(
            task.gold_sql, max_rows=10**7, timeout=max(GOLD_TIMEOUT, self.timeout), max_bytes=2**40
        )
        self._gold[key] = result.rows
        if len(self._gold) > _GOLD_CACHE:
            self._gold.popitem(last=False)
        return result.rows

    def schema(self, task: SQLTask | None = None):
        """The :class:`~agentgym_envs.envs.sql.schema.SchemaInfo` of ``task``'s database."""
        from agentgym_envs.envs.sql.schema import schema_info

        task = task or self.task  # type: ignore[assignment]
        self._database(task)
        return schema_info(task.db_path, task.notes, self.example_rows)

    # -- episode ---------------------------------------------------------------------------
    def tables(self, task: SQLTask | None = None) -> dict[str, Any]:
        """BIRD's ``*_tables.json`` record of ``task``'s database (derived from the file when
        the data has no such file, as for the embedded databases)."""
        from agentgym_envs.envs.sql.schema import tables_record

        task = task or self.task  # type: ignore[assignment]
        key = (task.tables_path, task.db_path, task.db_id)
        if key not in self._tables:
            record = _read_tables(task.tables_path).get(task.db_id) if task.tables_path else None
            self._tables[key] = record or tables_record(task.db_path, task.db_id)
        return self._tables[key]

    def _begin(self, task: SQLTask) -> tuple[str, dict[str, Any]]:
        self.queries = []
        meta = {"db_id": task.db_id, "difficulty": task.difficulty}
        if self.schema_style == "agentgym":
            from agentgym_envs.envs.sql.schema import sqlgym_schema

            self._database(task)
            obs = f"{sqlgym_schema(self.tables(task))}\n\n{task.question}"
            if self.show_evidence and task.evidence:
                obs += f"\nEvidence: {task.evidence}"
            return obs, meta
        info = self.schema(task)
        head = f"Database: {task.db_id} (SQLite)" + (f". {task.summary}" if task.summary else "")
        ask = (
            "Explore the database with SQL queries if you need to; when you are ready, answer with: submit <SQL query>"
            if self.interactive
            else "Answer with one SQLite query."
        )
        obs = f"{head}\n\n{info.text}\n\nQuestion: {task.question.strip()}"
        if self.show_evidence:
            obs += f"\nEvidence: {task.evidence or 'none'}"
        return f"{obs}\n\n{ask}", meta

    def _act(self, action: str) -> StepResult:
        if self.result_style == "agentgym" and not self.interactive:
            return self._answer(sqlgym_action(action))
        submit, sql = parse_action(action)
        if self.interactive and not submit:
            return self._explore(sql)
        return self._answer(sql)

    def _error_text(self, error: QueryError) -> str:
        if self.result_style == "agentgym":
            return _cut(error.raw)
        return f"Error: {error}"

    def _explore(self, sql: str) -> StepResult:
        if not sql:
            return StepResult(
                "Error: no SQL query found. Send a query to run it, or submit <SQL query> to answer.",
                error="no SQL query in the action",
            )
        self.queries.append(sql)
        try:
            result = self._database(self.task).execute(sql)  # type: ignore[arg-type]
        except QueryError as exc:
            return StepResult(self._error_text(exc), error=str(exc))
        text = _cut(str(result.rows)) if self.result_style == "agentgym" else format_result(result)
        return StepResult(text, info={"rows": len(result.rows)})

    def _answer(self, sql: str) -> StepResult:
        task: SQLTask = self.task  # type: ignore[assignment]
        end = {"sql": sql, "gold_sql": task.gold_sql, "match": False}
        sqlgym = self.result_style == "agentgym"
        if sqlgym and not sql.replace("\x00", "").strip():
            # AgentGym's server runs the empty statement and ends the episode with "[]" (its
            # recorded transcript): the same here, with the reason in info["error"]
            why = "no SQL query in the action"
            return StepResult("[]", terminated=True, error=why, info=end)
        if not sql and not sqlgym:
            return StepResult(
                "Error: no SQL query found in the answer, so it cannot be scored. Wrong.",
                terminated=True,
                error="no SQL query in the answer",
                info=end,
            )
        try:
            gold = self.gold_result(task)
        except QueryError as exc:  # a broken gold query (possible in user data) scores nothing
            log.warning("gold SQL of %s task %d failed: %s", task.split, task.task_id, exc)
            if not sqlgym:
                return StepResult(
                    f"Error: the reference query failed ({exc}); this task cannot be scored.",
                    terminated=True,
                    error=f"gold query failed: {exc}",
                    info=end,
                )
            gold, gold_error = None, f"gold query failed: {exc}"
        else:
            gold_error = None
        db = self._database(task)
        try:
            if not sql.strip():  # sqlite runs an empty statement and returns no rows
                result = QueryResult([], [], False, 0.0)
            else:
                result = db.execute(sql, max_rows=max(self.max_rows, len(gold or ())))
        except QueryError as exc:
            text = _cut(exc.raw) if sqlgym else f"Error: {exc}\nWrong: the query did not run."
            return StepResult(text, terminated=True, error=str(exc), info=end)
        match = (
            gold is not None
            and not result.truncated
            and results_match(
                result.rows,
                gold,
                ordered=self.ordered and task.ordered,
                comparison=self.comparison,
                float_places=self.float_places,
            )
        )
        self.success, self.score = match, 1.0 if match else 0.0
        end["match"] = match
        if sqlgym:
            return StepResult(
                _cut(str(result.rows)),
                reward=self.score,
                terminated=True,
                error=gold_error,
                info=end,
            )
        verdict = (
            "Correct: the result matches the expected answer."
            if match
            else "Wrong: the result does not match the expected answer."
        )
        return StepResult(
            f"{format_result(result)}\n{verdict}", reward=self.score, terminated=True, info=end
        )

    # -- policies and prompts ----------------------------------------------------------------
    def random_query(self, rng: np.random.Generator) -> str:
        """A random but plausible query over the current database's schema."""
        info = self.schema()
        tables = sorted(info.columns)
        table = tables[int(rng.integers(len(tables)))]
        cols = info.columns[table]
        col = cols[int(rng.integers(len(cols)))]
        other = cols[int(rng.integers(len(cols)))]
        rows = info.samples.get(table) or ()
        t, c, o = _ident(table), _ident(col), _ident(other)
        kind = int(rng.integers(6))
        if kind == 0:
            return f"SELECT COUNT(*) FROM {t}"
        if kind == 1:
            return f"SELECT {c} FROM {t} LIMIT {int(rng.integers(1, 6))}"
        if kind == 2:
            agg = ("MAX", "MIN", "AVG", "SUM")[int(rng.integers(4))]
            return f"SELECT {agg}({c}) FROM {t}"
        if kind == 3:
            return f"SELECT {c}, COUNT(*) FROM {t} GROUP BY {c} ORDER BY COUNT(*) DESC LIMIT 1"
        if rows:
            row = rows[int(rng.integers(len(rows)))]
            value = row[cols.index(other)]
            cond = f"{o} IS NULL" if value is None else f"{o} = {_literal(value)}"
            if kind == 4:
                return f"SELECT COUNT(*) FROM {t} WHERE {cond}"
            return f"SELECT {c} FROM {t} WHERE {cond}"
        return f"SELECT * FROM {t} LIMIT 3"

    def random_action(self, rng: np.random.Generator) -> str:
        sql = self.random_query(rng)
        if self.interactive and rng.random() < 0.5:
            return f"submit ```sql\n{sql}\n```"
        return f"```sql\n{sql}\n```"

    def instructions(self) -> str:
        text = (
            "You are given the description of a SQLite database and a question about its data"
            + (
                ", with evidence that explains what the question's terms mean in the database"
                if self.show_evidence
                else ""
            )
            + ". Help me answer the question by operating the SQLite database with SQL.\n"
            "Explain the problem and your plan in your thoughts, then give one SQL statement in a markdown "
            "block, for example:\n"
            "Thought: The question asks for the number of students from Lakewood.\n\n"
            "Action: ```sql\nSELECT COUNT(*) FROM students WHERE home_city = 'Lakewood';\n```\n"
            "Only one SQL statement can run at a time, and the database is read-only (SELECT queries only). "
            "The result of your query is compared with the result of the correct query: return exactly the "
            "columns the question asks for, in the order it names them, and sort only when it asks for an order."
        )
        if self.interactive:
            text += (
                "\nYou may run queries to explore the data first: each one returns its result (the first rows "
                "and the row count). When you are sure, give your final answer as: submit ```sql\n<query>\n```"
            )
        else:
            text += "\nYou have one reply: your first SQL statement is your answer."
        return text

    def tool_schemas(self) -> list[dict[str, Any]]:
        sql = schema(sql=param("string", "one SQLite SELECT statement"))
        run = Tool(
            "run_sql",
            "Run an exploratory SQL query and see its result (not the final answer).",
            parameters=sql,
        )
        submit = Tool(
            "submit_sql",
            "Give the final answer: the SQL query whose result answers the question.",
            parameters=sql,
        )
        return Toolkit([run, submit] if self.interactive else [submit]).openai_schemas()

    def action_from_tool_call(self, name: str, arguments: dict[str, Any]) -> str:
        names = [t["function"]["name"] for t in self.tool_schemas()]
        if name not in names:
            raise ValueError(f"unknown tool {name!r}: use {' or '.join(repr(n) for n in names)}")
        sql = str(arguments.get("sql", ""))
        if name == "submit_sql" and self.interactive:
            return f"submit ```sql\n{sql}\n```"
        return f"```sql\n{sql}\n```"

    # -- housekeeping ------------------------------------------------------------------------
    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        super().close()

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_db"] = None  # a sqlite3 connection does not pickle; reopened on demand
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)


__all__ = ["BirdSQLEnv", "parse_action"]
