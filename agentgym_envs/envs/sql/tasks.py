"""BIRD SQL task sources: the embedded generated databases, or a BIRD release on disk."""

from __future__ import annotations

import csv
import functools
import json
import logging
import os
import random
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from agentgym_envs.core import Task, TaskSource
from agentgym_envs.envs.sql.build import cache_base, ensure_databases, ensure_questions
from agentgym_envs.envs.sql.databases import all_specs
from agentgym_envs.envs.sql.questions import Question
from agentgym_envs.errors import BadDataError, BadTaskError
from agentgym_envs.spec import family_record

log = logging.getLogger(__name__)

TEST_SIZE = 200  # AgentEval's BIRD split
#: AgentGym's sqlgym item ids: BIRD train is 0..9427, BIRD dev 9428..10961.
BIRD_TRAIN_ITEMS = 9428
BIRD_DEV_ITEMS = 1534
BIRD_PATH_ENV = "AGENTGYM_BIRD_PATH"
_SPLIT_SEED = 20240605


@dataclass(frozen=True)
class SQLTask(Task):
    """A question over one SQLite database, with BIRD's evidence and the gold SQL."""

    db_id: str = ""
    db_path: str = ""
    question: str = ""
    evidence: str = ""
    gold_sql: str = ""
    difficulty: str = ""
    #: The question asks for an order: results are compared as sequences.
    ordered: bool = False
    #: ``(table.column, note)`` pairs shown under the schema.
    notes: tuple[tuple[str, str], ...] = ()
    summary: str = ""
    #: Template name (embedded) or BIRD's ``question_id``.
    source: str = ""
    #: BIRD's ``*_tables.json`` beside the questions (empty: schemas come from the databases).
    tables_path: str = ""


#: BIRD dev's difficulty mix (925 simple, 465 moderate, 144 challenging of 1,534).
DIFFICULTY_SHARE = {"simple": 0.603, "moderate": 0.303, "challenging": 0.094}


def _split_questions(questions: list[Question]) -> dict[str, list[Question]]:
    """Test: 200 questions with every (database, template) at least once and otherwise BIRD
    dev's difficulty mix; train: the rest (every template keeps at least one question)."""
    groups: dict[tuple[str, str], list[Question]] = defaultdict(list)
    for q in questions:
        groups[(q.db_id, q.template)].append(q)
    rng = random.Random(_SPLIT_SEED)
    keys = sorted(groups)
    for key in keys:
        rng.shuffle(groups[key])
        if len(groups[key]) < 2:
            raise RuntimeError(f"template {key} has fewer than two questions")
    taken = {key: 1 for key in keys}
    by_level: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for key in keys:
        by_level[groups[key][0].difficulty].append(key)
    target = {
        level: max(len(by_level[level]), round(TEST_SIZE * share))
        for level, share in DIFFICULTY_SHARE.items()
    }
    target["simple"] = TEST_SIZE - target["moderate"] - target["challenging"]
    for level in DIFFICULTY_SHARE:
        need = target[level] - len(by_level[level])
        while need > 0:
            order = [k for k in by_level[level] if taken[k] < len(groups[k]) - 1]
            if not order:
                raise RuntimeError(f"not enough {level} questions for the test split")
            rng.shuffle(order)
            for key in order[:need]:
                taken[key] += 1
                need -= 1
    test = [q for key in keys for q in groups[key][: taken[key]]]
    train = [q for key in keys for q in groups[key][taken[key] :]]
    rng.shuffle(train)
    rng.shuffle(test)
    return {"train": train, "test": test}


@functools.lru_cache(maxsize=8)
def _embedded(root: str) -> tuple[dict[str, str], dict[str, list[Question]]]:
    paths, questions = ensure_questions(root)
    return {k: str(v) for k, v in paths.items()}, _split_questions(questions)


def _bird_index(self: TaskSource, split: str, task_id: int) -> int:
    """AgentGym's sqlgym numbering: train items from 0, test (BIRD dev) items from 9428."""
    return task_id if split == "train" else BIRD_TRAIN_ITEMS + task_id


def _bird_locate(self: TaskSource, index: int) -> tuple[str, int]:
    if 0 <= index < min(BIRD_TRAIN_ITEMS, self.size("train")):
        return "train", index
    if BIRD_TRAIN_ITEMS <= index < BIRD_TRAIN_ITEMS + self.size("test"):
        return "test", index - BIRD_TRAIN_ITEMS
    raise BadTaskError(
        f"item index {index} is not in this task source: train holds 0..{self.size('train') - 1}, "
        f"test (BIRD dev) {BIRD_TRAIN_ITEMS}..{BIRD_TRAIN_ITEMS + self.size('test') - 1}"
    )


class EmbeddedSQLTasks(TaskSource):
    """Questions over six generated SQLite databases (school, retail, football, hospital,
    library, flights), built on first use into ``cache_dir`` (see :func:`cache_root`).

    The test split holds 200 questions: every template at least once, otherwise in BIRD dev's
    difficulty mix (115 simple, 61 moderate, 24 challenging); the train split holds the other
    2,943. Item ids are numbered as AgentGym numbers BIRD's: train from 0, test from 9428
    (the numbering :func:`export_bird_folder` gives AgentGym's server).
    """

    item_prefix = family_record("sql").item_prefix

    def __init__(self, cache_dir: str | os.PathLike | None = None) -> None:
        paths, self._split = _embedded(str(cache_base(cache_dir)))
        self.db_paths = paths
        #: The folder in use (the temp folder if the default cache was not writable).
        self.root = str(Path(paths["school"]).parent)
        specs = {s.name: s for s in all_specs()}
        self._notes = {name: tuple(spec.column_notes.items()) for name, spec in specs.items()}
        self._summary = {name: spec.summary for name, spec in specs.items()}

    def size(self, split: str) -> int:
        return len(self._split.get(split, ()))

    def _load(self, split: str, task_id: int) -> SQLTask:
        q = self._split[split][task_id]
        return SQLTask(
            task_id,
            split,
            db_id=q.db_id,
            db_path=self.db_paths[q.db_id],
            question=q.question,
            evidence=q.evidence,
            gold_sql=q.sql,
            difficulty=q.difficulty,
            ordered=q.ordered,
            notes=self._notes[q.db_id],
            summary=self._summary[q.db_id],
            source=q.template,
        )

    def repair(self) -> None:
        """Rebuild any database file that went missing or was damaged since loading."""
        ensure_databases(Path(self.root).parent)

    agentgym_index = _bird_index
    locate = _bird_locate


# -- BIRD's own release ----------------------------------------------------------------------
_REQUIRED = ("db_id", "question", "SQL")


def _find_json(root: Path, mode: str) -> Path | None:
    for candidate in (
        root / mode / f"{mode}.json",
        root / f"{mode}.json",
        *sorted(root.glob(f"{mode}*/{mode}.json")),
    ):
        if candidate.is_file():
            return candidate
    return None


def _read_records(path: Path) -> list[dict]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadDataError(
            f"BIRD file {str(path)!r} is not valid JSON ({exc}): use BIRD's train.json/dev.json"
        ) from None
    if not isinstance(data, list):
        raise BadDataError(f"BIRD file {str(path)!r} must hold a JSON list of questions")
    for i, rec in enumerate(data):
        missing = [
            k for k in _REQUIRED if not isinstance(rec, dict) or not isinstance(rec.get(k), str)
        ]
        if missing:
            raise BadDataError(f"BIRD file {str(path)!r}: question {i} lacks {', '.join(missing)}")
    return data


def _column_notes(db_dir: Path) -> tuple[tuple[str, str], ...]:
    """BIRD's ``database_description/<table>.csv`` files as (table.column, description) notes."""
    folder = db_dir / "database_description"
    notes: list[tuple[str, str]] = []
    if not folder.is_dir():
        return ()
    for csv_path in sorted(folder.glob("*.csv")):
        try:
            with open(csv_path, encoding="utf-8", errors="replace", newline="") as f:
                for row in csv.DictReader(f):
                    row = {
                        (k or "").strip().lstrip("\ufeff"): (v or "").strip()
                        for k, v in row.items()
                    }
                    column = row.get("original_column_name", "")
                    parts = [row.get("column_description", ""), row.get("value_description", "")]
                    text = "; ".join(" ".join(p.split()) for p in parts if p and p.lower() != "nan")
                    if column and text:
                        notes.append((f"{csv_path.stem}.{column}", text[:300]))
        except (OSError, csv.Error) as exc:
            log.warning("skipping BIRD column descriptions %s: %s", csv_path, exc)
    return tuple(notes)


class BirdTasks(TaskSource):
    """BIRD's own questions from a release folder, indexed as AgentGym's ``sqlgym`` server does.

    ``path`` holds ``train/train.json`` with ``train/train_databases/<db_id>/<db_id>.sqlite``
    and/or ``dev/dev.json`` with ``dev/dev_databases/...`` (the JSON files may also sit in
    ``path`` itself, next to their ``*_databases`` folder). The train split is BIRD train
    (AgentGym items 0-9427), the test split BIRD dev (items 9428-10961). Column descriptions
    from ``database_description/*.csv`` are shown where BIRD has them.
    """

    item_prefix = family_record("sql").item_prefix
    user_data = True

    def __init__(self, path: str | os.PathLike) -> None:
        root = Path(path).expanduser()
        if not root.is_dir():
            raise BadDataError(
                f"BIRD folder {str(root)!r} not found: pass data_path= (or set {BIRD_PATH_ENV}) to a BIRD release folder"
            )
        self.root = root
        self._records: dict[str, list[dict]] = {"train": [], "test": []}
        self._db_dir: dict[str, Path] = {}
        self._tables: dict[str, str] = {}
        found = False
        for split, mode in (("train", "train"), ("test", "dev")):
            js = _find_json(root, mode)
            if js is None:
                continue
            found = True
            db_dir = js.parent / f"{mode}_databases"
            if not db_dir.is_dir():
                raise BadDataError(
                    f"BIRD folder {str(root)!r}: {mode}.json has no {mode}_databases folder beside it ({str(db_dir)!r})"
                )
            records = _read_records(js)
            for db_id in sorted({r["db_id"] for r in records}):
                sqlite_file = db_dir / db_id / f"{db_id}.sqlite"
                if not sqlite_file.is_file():
                    raise BadDataError(
                        f"BIRD folder {str(root)!r}: database {str(sqlite_file)!r} is missing"
                    )
            self._records[split] = records
            self._db_dir[split] = db_dir
            tables = js.parent / f"{mode}_tables.json"
            self._tables[split] = str(tables) if tables.is_file() else ""
        if not found:
            raise BadDataError(
                f"BIRD folder {str(root)!r} has neither train/train.json nor dev/dev.json: point data_path= at the unzipped BIRD release"
            )
        self._notes: dict[tuple[str, str], tuple[tuple[str, str], ...]] = {}

    def size(self, split: str) -> int:
        return len(self._records.get(split, ()))

    def _load(self, split: str, task_id: int) -> SQLTask:
        rec = self._records[split][task_id]
        db_id = rec["db_id"]
        db_dir = self._db_dir[split] / db_id
        key = (split, db_id)
        if key not in self._notes:
            self._notes[key] = _column_notes(db_dir)
        return SQLTask(
            task_id,
            split,
            db_id=db_id,
            db_path=str(db_dir / f"{db_id}.sqlite"),
            question=rec["question"],
            evidence=str(rec.get("evidence") or "").strip(),
            gold_sql=rec["SQL"].strip(),
            difficulty=str(rec.get("difficulty") or ""),
            ordered=False,
            notes=self._notes[key],
            summary="",
            source=str(rec.get("question_id", task_id)),
            tables_path=self._tables.get(split, ""),
        )

    agentgym_index = _bird_index
    locate = _bird_locate


def export_bird_folder(
    dest: str | os.PathLike, cache_dir: str | os.PathLike | None = None, copy: bool = False
) -> Path:
    """Write the embedded questions as a BIRD release folder and return its path.

    ``dest/train/train.json`` holds the train split, ``dest/dev/dev.json`` the test split (so
    AgentGym's sqlgym server numbers them as it numbers BIRD: train items from 0, test items
    from 9428), each with its ``*_tables.json`` and ``*_databases/<db_id>/<db_id>.sqlite``
    (symbolic links to the cached databases, or copies with ``copy=True``). Loading the folder
    with ``data_path=`` plays the same tasks as the embedded source; AgentGym's own server and
    the ``sqlgym`` package can read it too.
    """
    import shutil

    from agentgym_envs.envs.sql.schema import tables_record

    source = EmbeddedSQLTasks(cache_dir)
    root = Path(dest).expanduser().resolve()
    for split, mode in (("train", "train"), ("test", "dev")):
        folder = root / mode
        (folder / f"{mode}_databases").mkdir(parents=True, exist_ok=True)
        records = []
        for i in range(source.size(split)):
            t = source.get(split, i)
            records.append(
                {
                    "question_id": i,
                    "db_id": t.db_id,
                    "question": t.question,
                    "evidence": t.evidence,
                    "SQL": t.gold_sql,
                    "difficulty": t.difficulty,
                }
            )
        tables = []
        for db_id, path in sorted(source.db_paths.items()):
            target = folder / f"{mode}_databases" / db_id / f"{db_id}.sqlite"
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.is_symlink() or target.exists():
                target.unlink()
            if copy:
                shutil.copyfile(path, target)
            else:
                target.symlink_to(path)
            tables.append(tables_record(path, db_id))
        (folder / f"{mode}.json").write_text(json.dumps(records, indent=1), encoding="utf-8")
        (folder / f"{mode}_tables.json").write_text(json.dumps(tables, indent=1), encoding="utf-8")
    return root
