"""Import benchmark runs and trajectory recordings into the store, idempotently.

Two kinds of input are understood:

* a **benchmark run folder** written by ``agentgym bench`` / :func:`run_benchmark`
  (``run.json`` with the settings, ``results.jsonl`` with one episode per line: env id, item id,
  sample, reward, success, turns, times, tokens, the AgentTraj conversation, and per-turn
  ``latency`` -- each step's latency is the policy's seconds for that turn);
* a **recording**: AgentTraj JSONL as :class:`~agentgym_envs.wrappers.RecordTrajectory`
  writes it (``item_id``, ``conversations``, ``reward``, ``success``), or any AgentTraj file.

A run is identified by where it was read (its resolved path) and an episode by its key within
the run (``env|item|sample`` for benchmark results, the hash of the record's content for
recordings -- not its line number, so an edited file re-imports without duplicates), so
importing the same thing twice adds nothing, and importing a run that has grown since adds only
the new episodes. Episodes are written in transactions that each hold whole episodes (with
their steps and automatic feedback): an import killed midway leaves every episode either fully
stored or absent, and the next import picks up the rest. Two imports of one file at once both
succeed (an episode the other one stored first counts as skipped).

A bad line never costs the good ones: a line that is not UTF-8, not JSON (or nested too deep to
read), not a record, or holds what a database cannot store the same way on SQLite and
PostgreSQL (NaN or infinite numbers, NUL characters, lone surrogates, integers past 32 bits,
text longer than its column) is left out and reported in :attr:`ImportReport.problems` with its
file and line number.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentgym_envs.errors import BadDataError
from agentgym_envs.experience.models import utcnow

logger = logging.getLogger(__name__)

RESULTS_FILE = "results.jsonl"
CONFIG_FILE = "run.json"

#: Benchmark truncation reasons -> the env contract's ``info["outcome"]`` names.
_TRUNCATION_OUTCOME = {
    "max_rounds": "turn_limit",
    "context_length": "token_limit",
    "time_limit": "time_limit",
}


@dataclass
class ImportReport:
    """What an import did: runs touched, episodes added and already present, time taken."""

    runs: list[int] = field(default_factory=list)
    added: int = 0
    skipped: int = 0
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        """Episodes added per second."""
        return self.added / self.seconds if self.seconds > 0 else 0.0


# -- conversations -> steps ------------------------------------------------------------------
def conversation_start(conversation: list[dict[str, Any]]) -> int:
    """Index of the first turn after AgentGym's ``conversation_start`` (instructions + "Ok.")."""
    c = conversation
    if (
        len(c) >= 2
        and c[0].get("from") == "human"
        and c[1].get("from") == "gpt"
        and c[1].get("loss") is False
    ):
        return 2
    return 0


def conversation_steps(conversation: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One step per agent reply after ``conversation_start``: the observation it answered, the
    reply, the observation that came back, and the reply's position in the conversation."""
    start = conversation_start(conversation)
    steps: list[dict[str, Any]] = []
    for i in range(start, len(conversation)):
        turn = conversation[i]
        if turn.get("from") != "gpt":
            continue
        before = conversation[i - 1] if i - 1 >= start else None
        after = conversation[i + 1] if i + 1 < len(conversation) else None
        steps.append(
            {
                "index": len(steps),
                "turn": i,
                "observation": str(before.get("value", ""))
                if before and before.get("from") == "human"
                else "",
                "action": str(turn.get("value", "")),
                "result": str(after.get("value", ""))
                if after and after.get("from") == "human"
                else None,
                "reward": turn.get("reward"),
                "latency": turn.get("latency"),
            }
        )
    return steps


def _outcome(rec: dict[str, Any]) -> str:
    if rec.get("error"):
        return "env_error"
    if rec.get("outcome"):
        return str(rec["outcome"])
    if rec.get("success"):
        return "success"
    reason = rec.get("truncation_reason")
    if reason:
        return _TRUNCATION_OUTCOME.get(str(reason), str(reason))
    return "failure"


def _as_float(value: Any, default: float | None = 0.0) -> float | None:
    try:
        return float(value) if value is not None else default
    except (TypeError, ValueError):
        return default


def _step_latencies(rec: dict[str, Any], steps: list[dict[str, Any]]) -> None:
    """Fill each step's ``latency`` from the record's per-turn policy seconds
    (``latency["policy_s"]``, written by the benchmark runner) where the turn does not carry
    one itself."""
    latency = rec.get("latency")
    times = latency.get("policy_s") if isinstance(latency, dict) else None
    if not isinstance(times, list):
        return
    for step, seconds in zip(steps, times):
        if step["latency"] is None and isinstance(seconds, (int, float)):
            step["latency"] = float(seconds)


def _episode_row(rec: dict[str, Any], key: str) -> dict[str, Any]:
    tokens = rec.get("tokens") or {}
    conversation = rec.get("conversations") or []
    steps = conversation_steps(conversation)
    _step_latencies(rec, steps)
    turns = rec.get("turns")
    return {
        "key": key,
        "env_id": str(rec.get("env_id") or ""),
        "item_id": str(rec["item_id"]),
        "split": _as_text(rec.get("split")),
        "task_id": rec.get("task_id"),
        "sample": rec.get("sample") or 0,
        "seed": rec.get("seed"),
        "outcome": _outcome(rec),
        "success": bool(rec.get("success")),
        "score": _as_float(rec.get("reward", rec.get("score")), 0.0),
        "turns": turns if turns is not None else len(steps),
        "prompt_tokens": tokens.get("prompt_tokens"),
        "completion_tokens": tokens.get("completion_tokens"),
        "wall_time": _as_float(rec.get("wall_time"), None),
        "env_time": _as_float(rec.get("env_time"), None),
        "policy_time": _as_float(rec.get("policy_time"), None),
        "truncation_reason": _as_text(rec.get("truncation_reason")),
        "error": _as_text(rec.get("error")),
        "conversation": conversation,
        "_steps": steps,
    }


def _has_nul(value: Any) -> bool:
    """Whether any string in ``value`` (keys too) holds a NUL character."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


def _as_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


#: Integers a 32-bit INTEGER column holds on every database.
_INT_RANGE = range(-(2**31), 2**31)


def check_row(row: dict[str, Any]) -> None:
    """Refuse what SQLite and PostgreSQL would not store alike (see the module docstring).

    Raises:
        ValueError: naming the field and the mend.
    """
    from sqlalchemy import Integer, String

    from agentgym_envs.experience.models import Episode

    columns = Episode.__table__.columns
    for name, value in row.items():
        column = columns.get(name)
        if column is None or value is None:
            continue
        if isinstance(column.type, String) and column.type.length:
            if not isinstance(value, str):
                raise ValueError(f"{name} must be text, got {type(value).__name__}")
            if len(value) > column.type.length:
                raise ValueError(f"{name} is {len(value)} characters, over {column.type.length}")
        whole = isinstance(value, int) and not isinstance(value, bool) and value in _INT_RANGE
        if isinstance(column.type, Integer) and name not in ("id", "run_id") and not whole:
            raise ValueError(f"{name} {value!r:.40} is not a 32-bit integer")
    try:
        text = json.dumps(row, ensure_ascii=False, allow_nan=False, default=str)
    except ValueError:
        raise ValueError(
            "holds NaN or an infinite number (write a finite number or null)"
        ) from None
    except RecursionError:
        raise ValueError("is nested too deep to store") from None
    if _has_nul(row):
        raise ValueError("holds a NUL character (PostgreSQL cannot store it)")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("holds a lone surrogate (not valid Unicode text)") from None


# -- reading inputs --------------------------------------------------------------------------
def _read_jsonl(
    path: Path, problems: list[str] | None = None
) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """(line number, raw line, record) for each whole JSON object line; other lines (a torn
    last line, invalid UTF-8, too deep, not an object) are skipped, each with a problem
    ``"<path>:<line>: <why>"`` appended to ``problems``."""

    def skip(number: int, why: str) -> None:
        logger.warning("%s:%d %s: skipped", path, number, why)
        if problems is not None:
            problems.append(f"{path}:{number}: {why}: skipped")

    with path.open("rb") as f:
        for number, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                skip(number, f"is not UTF-8 text ({exc.reason} at byte {exc.start})")
                continue
            try:
                rec = json.loads(line)
            except RecursionError:
                skip(number, "is nested too deep to read")
                continue
            except json.JSONDecodeError as exc:
                skip(number, f"is not JSON (a torn write?) ({exc.msg})")
                continue
            if isinstance(rec, dict):
                yield number, line, rec
            else:
                skip(number, f"is a JSON {type(rec).__name__}, not a record")


def find_sources(path: str | os.PathLike[str]) -> list[tuple[str, Path]]:
    """The importable things under ``path``: ``("bench", run folder)`` and ``("recording", file)``.

    A folder with ``results.jsonl`` is a benchmark run; any other ``.jsonl`` file is a
    recording; other folders are searched (sorted, so the order is stable).
    """
    p = Path(path).expanduser()
    if not p.exists():
        raise BadDataError(
            f"{p}: no such file or folder: pass a run folder (agentgym bench --out) or a .jsonl recording"
        )
    if p.is_file():
        if p.name == RESULTS_FILE:
            return [("bench", p.parent)]
        return [("recording", p)]
    if (p / RESULTS_FILE).is_file():
        return [("bench", p)]
    found: list[tuple[str, Path]] = []
    for child in sorted(p.iterdir()):
        if child.is_dir():
            found += find_sources(child)
        elif child.suffix == ".jsonl":
            found.append(("recording", child))
    return found


def _bench_records(
    folder: Path, problems: list[str] | None = None
) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    cfg_path = folder / CONFIG_FILE
    config: dict[str, Any] = {}
    if cfg_path.is_file():
        try:
            config = json.loads(cfg_path.read_text(encoding="utf-8"))
        except ValueError:
            logger.warning("%s is not JSON: importing without the run's settings", cfg_path)
    latest: dict[str, dict[str, Any]] = {}
    for number, _line, rec in _read_jsonl(folder / RESULTS_FILE, problems):
        if "env_id" not in rec or "item_id" not in rec:
            continue
        sample = rec.get("sample") or 0
        if not isinstance(sample, int) or isinstance(sample, bool):
            if problems is not None:
                problems.append(
                    f"{folder / RESULTS_FILE}:{number}: sample {sample!r} is not an int"
                )
            continue
        key = f"{rec['env_id']}|{rec['item_id']}|{sample}"
        rec["_line"] = number
        latest[key] = rec  # a resumed run appends a re-run of a failed episode: the last one counts
    return config, list(latest.items())


def _recording_records(
    path: Path, problems: list[str] | None = None
) -> list[tuple[str, dict[str, Any]]]:
    from agentgym_envs.datasets.items import default_resolver

    resolver = default_resolver()
    out: list[tuple[str, dict[str, Any]]] = []
    for number, _line, rec in _read_jsonl(path, problems):
        conversation = rec.get("conversations")
        if (
            not isinstance(rec.get("item_id"), str)
            or not isinstance(conversation, list)
            or not all(isinstance(turn, dict) for turn in conversation)
        ):
            why = "is not an AgentTraj record (item_id, conversations: a list of turn objects)"
            logger.warning("%s:%d %s: skipped", path, number, why)
            if problems is not None:
                problems.append(f"{path}:{number}: {why}: skipped")
            continue
        rec = dict(rec)
        if not rec.get("env_id"):
            try:
                ref = resolver.resolve(rec["item_id"])
                rec.update(env_id=ref.env_id, split=ref.split, task_id=ref.task_id)
            except Exception as exc:
                logger.debug("cannot link %s to an env: %s", rec["item_id"], exc)
                rec["env_id"] = rec["item_id"].rsplit("_", 1)[0]
        content = json.dumps(rec, sort_keys=True, ensure_ascii=False, default=str)
        digest = hashlib.sha1(content.encode("utf-8", "surrogatepass")).hexdigest()
        rec["_line"] = number
        out.append((f"sha1:{digest}", rec))
    return out


# -- writing ---------------------------------------------------------------------------------
def _version_for(session, config: dict[str, Any], version: Any):
    from agentgym_envs.experience.versions import get_or_register, parse_label

    if version is not None:
        if hasattr(version, "id"):
            return session.merge(version)
        name, ver = parse_label(str(version))
        return get_or_register(session, name, ver)
    policy = config.get("policy")
    if not isinstance(policy, dict) or not policy.get("name"):
        return None
    stable = json.dumps(
        {k: v for k, v in policy.items() if k != "base_url"}, sort_keys=True, default=str
    )
    ver = str(policy.get("model") or "") or "cfg-" + hashlib.sha1(stable.encode()).hexdigest()[:8]
    return get_or_register(
        session,
        str(policy["name"]),
        ver,
        model=policy.get("model"),
        config=policy,
        prompt_set=str(config.get("format")) if config.get("format") else None,
    )


def _get_run(
    session,
    *,
    source_key: str,
    kind: str,
    source: str,
    name: str,
    config: dict[str, Any],
    version,
    split: str | None,
    ab_test_id: int | None,
    arm: str | None,
):
    from sqlalchemy import select

    from agentgym_envs.experience.models import Run

    run = session.scalars(select(Run).where(Run.source_key == source_key)).one_or_none()
    if run is None:
        run = Run(
            source_key=source_key,
            kind=kind,
            source=source,
            name=name,
            config=config,
            version_id=version.id if version is not None else None,
            split=split,
            ab_test_id=ab_test_id,
            arm=arm,
        )
        session.add(run)
        session.flush()
    return run


def _write_episodes(store, run_id: int, rows: list[dict[str, Any]], auto_feedback: bool) -> None:
    """Insert whole episodes (rows, their steps, their automatic feedback) in one transaction.

    Bulk inserts (``executemany``; ids come back in order with ``RETURNING``) rather than the
    ORM's unit of work: an import is mostly this loop.
    """
    from sqlalchemy import insert

    from agentgym_envs.experience.models import Episode, Feedback, Step

    now = utcnow()
    steps_of = [row["_steps"] for row in rows]
    with store.session() as s:
        ids = s.scalars(
            insert(Episode).returning(Episode.id, sort_by_parameter_order=True),
            [
                {
                    **{k: v for k, v in row.items() if k != "_steps"},
                    "run_id": run_id,
                    "created_at": now,
                }
                for row in rows
            ],
        ).all()
        step_rows = [
            {**st, "episode_id": ep_id} for ep_id, steps in zip(ids, steps_of) for st in steps
        ]
        if step_rows:
            s.execute(insert(Step), step_rows)
        if auto_feedback:
            s.execute(insert(Feedback), _auto_feedback(s, ids, rows, step_rows, now))


def _auto_feedback(s, ids: list[int], rows: list[dict[str, Any]], step_rows, now) -> list[dict]:
    """The env's own feedback rows: each episode's outcome, and each step's reward where the
    env gave one."""
    from sqlalchemy import select

    from agentgym_envs.experience.models import Step

    feedback = [
        {
            "episode_id": ep_id,
            "step_id": None,
            "target": "outcome",
            "label": "good" if row["success"] else "bad",
            "score": row["score"],
            "comment": f"env outcome: {row['outcome']}",
            "author": f"env:{row['env_id']}",
            "source": "auto",
            "created_at": now,
        }
        for ep_id, row in zip(ids, rows)
    ]
    rewarded = {
        (st["episode_id"], st["index"]): st["reward"]
        for st in step_rows
        if st["reward"] is not None
    }
    if not rewarded:
        return feedback
    env_of = {ep_id: row["env_id"] for ep_id, row in zip(ids, rows)}
    found = s.execute(
        select(Step.id, Step.episode_id, Step.index).where(
            Step.episode_id.in_({k[0] for k in rewarded})
        )
    )
    for step_id, ep_id, index in found:
        reward = rewarded.get((ep_id, index))
        if reward is None:
            continue
        feedback.append(
            {
                "episode_id": ep_id,
                "step_id": step_id,
                "target": "action",
                "label": "good" if reward > 0 else "bad",
                "score": float(reward),
                "comment": "env step reward",
                "author": f"env:{env_of[ep_id]}",
                "source": "auto",
                "created_at": now,
            }
        )
    return feedback


def import_records(
    store,
    records: Iterable[tuple[str, dict[str, Any]]],
    *,
    source_key: str,
    kind: str,
    name: str,
    source: str = "",
    config: dict[str, Any] | None = None,
    version: Any = None,
    ab_test_id: int | None = None,
    arm: str | None = None,
    batch_size: int = 200,
    auto_feedback: bool = True,
    report: ImportReport | None = None,
) -> ImportReport:
    """Store ``(key, record)`` pairs as episodes of the run ``source_key`` (created if new).

    Records are benchmark result lines (or AgentTraj records with ``env_id`` set). Keys
    already stored for the run are skipped. Each batch of ``batch_size`` whole episodes is one
    transaction. ``version``: an :class:`AgentVersion`, a ``name@version`` label, or ``None``
    (derived from ``config["policy"]`` where present).
    """
    from sqlalchemy import select
    from sqlalchemy.exc import IntegrityError

    from agentgym_envs.experience.models import Episode

    report = report or ImportReport()
    config = dict(config or {})
    t0 = time.perf_counter()
    for attempt in range(3):  # another import may create the same run or version meanwhile
        try:
            with store.session() as s:
                ver = _version_for(s, config, version)
                run = _get_run(
                    s,
                    source_key=source_key,
                    kind=kind,
                    source=source,
                    name=name,
                    config=config,
                    version=ver,
                    split=config.get("split"),
                    ab_test_id=ab_test_id,
                    arm=arm,
                )
                run_id = run.id
                have = set(s.scalars(select(Episode.key).where(Episode.run_id == run_id)))
            break
        except IntegrityError:
            if attempt == 2:
                raise
            logger.info("another import created run %s first: using it", source_key)
    _add_new(store, run_id, records, have, report, source or source_key, batch_size, auto_feedback)
    if run_id not in report.runs:
        report.runs.append(run_id)
    report.seconds += time.perf_counter() - t0
    return report


def _add_new(
    store,
    run_id: int,
    records: Iterable[tuple[str, dict[str, Any]]],
    have: set[str],
    report: ImportReport,
    where: str,
    batch_size: int,
    auto_feedback: bool,
) -> None:
    """Write the records whose key is not in ``have`` (``batch_size`` episodes a transaction),
    counting them in ``report``; a record that cannot be read is a problem named by ``where``."""
    batch: list[dict[str, Any]] = []
    for key, rec in records:
        if key in have:
            report.skipped += 1
            continue
        have.add(key)
        line = rec.get("_line")
        try:
            row = _episode_row(rec, key)
            check_row(row)
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
            at = f"{where}:{line}" if line is not None else f"{where} {key}"
            report.problems.append(f"{at}: {exc}: skipped")
            continue
        row["_line"] = line
        batch.append(row)
        if len(batch) >= batch_size:
            _write_batch(store, run_id, batch, auto_feedback, report, where)
            batch = []
    if batch:
        _write_batch(store, run_id, batch, auto_feedback, report, where)


def _write_batch(
    store,
    run_id: int,
    batch: list[dict[str, Any]],
    auto_feedback: bool,
    report: ImportReport,
    where: str,
) -> None:
    """Write ``batch`` in one transaction; if the database refuses it, write its episodes one
    by one: one stored meanwhile by another import counts as skipped, one refused is a
    problem named by its line."""
    from sqlalchemy import select
    from sqlalchemy.exc import SQLAlchemyError

    from agentgym_envs.experience.models import Episode

    lines = [row.pop("_line", None) for row in batch]
    try:
        _write_episodes(store, run_id, batch, auto_feedback)
        report.added += len(batch)
        return
    except SQLAlchemyError as exc:
        if len(batch) == 1:
            failed: list[tuple[dict[str, Any], Any, Exception]] = [(batch[0], lines[0], exc)]
        else:
            failed = []
            for row, line in zip(batch, lines):
                try:
                    _write_episodes(store, run_id, [row], auto_feedback)
                    report.added += 1
                except SQLAlchemyError as one:
                    failed.append((row, line, one))
    with store.session() as s:
        stored = set(
            s.scalars(
                select(Episode.key).where(
                    Episode.run_id == run_id, Episode.key.in_([r["key"] for r, _, _ in failed])
                )
            )
        )
    for row, line, exc in failed:
        if row["key"] in stored:
            report.skipped += 1
        else:
            at = f"{where}:{line}" if line is not None else f"{where} {row['key']}"
            reason = str(getattr(exc, "orig", None) or exc).splitlines()[0][:200]
            report.problems.append(f"{at}: the database refused it ({reason}): skipped")


def import_path(
    store,
    path: str | os.PathLike[str],
    *,
    version: Any = None,
    name: str | None = None,
    batch_size: int = 200,
    auto_feedback: bool = True,
) -> ImportReport:
    """Import every run folder and recording under ``path`` (see the module docstring)."""
    report = ImportReport()
    t0 = time.perf_counter()
    for kind, src in find_sources(path):
        resolved = src.resolve()
        if kind == "bench":
            config, records = _bench_records(resolved, report.problems)
        else:
            config, records = {}, _recording_records(resolved, report.problems)
        import_records(
            store,
            records,
            source_key=f"{kind}:{resolved}",
            kind=kind,
            source=str(resolved),
            name=name or resolved.name,
            config=config,
            version=version,
            batch_size=batch_size,
            auto_feedback=auto_feedback,
            report=report,
        )
    report.seconds = time.perf_counter() - t0
    return report


__all__ = [
    "ImportReport",
    "conversation_start",
    "conversation_steps",
    "find_sources",
    "import_path",
    "import_records",
]
