"""SearchQA task sources: the generated world's questions, or the user's QA files.

AgentGym indexes its items test first: 0..51712 are the test questions of seven data sets (NQ,
TriviaQA, PopQA, HotpotQA, 2WikiMultihopQA, MuSiQue, Bamboogle, in that order) and
51713..221327 the training questions (NQ, then HotpotQA). Both task sources here keep that
order: item ``i`` is test task ``i`` below the test size, train task ``i - n_test`` above it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentgym_envs.core import Task, TaskSource
from agentgym_envs.envs.searchqa.world import CATEGORIES, Question, world
from agentgym_envs.errors import BadDataError, BadTaskError, require
from agentgym_envs.spec import family_record

#: AgentGym's item-id ranges of its test data, by source data set (end exclusive).
AGENTGYM_TEST_RANGES = {
    "nq": (0, 3610),
    "triviaqa": (3610, 14923),
    "popqa": (14923, 29190),
    "hotpotqa": (29190, 36595),
    "2wikimultihopqa": (36595, 49171),
    "musique": (49171, 51588),
    "bamboogle": (51588, 51713),
}
#: AgentGym's item-id ranges of its training data.
AGENTGYM_TRAIN_RANGES = {"nq": (51713, 130881), "hotpotqa": (130881, 221328)}
#: Questions per category in the generated test split (7 categories, 350 questions).
TEST_PER_CATEGORY = 50


@dataclass(frozen=True)
class SearchQATask(Task):
    """A question (as AgentGym stores it: stripped, ending in ``?``) and its gold answers."""

    question: str = ""
    answers: tuple[str, ...] = ()
    data_source: str = ""
    #: The generated world's search plan (the expert's); ``None`` for loaded questions.
    plan: Question | None = field(default=None, compare=False, repr=False)


def agentgym_question(text: str) -> str:
    """AgentGym's preprocessing of a question: stripped, with ``?`` appended if missing."""
    text = text.strip()
    return text if text.endswith("?") else text + "?"


class _IndexedTasks(TaskSource):
    item_prefix = family_record("searchqa").item_prefix

    def agentgym_index(self, split: str, task_id: int) -> int:
        return task_id if split == "test" else self.size("test") + task_id

    def locate(self, index: int) -> tuple[str, int]:
        n_test = self.size("test")
        if 0 <= index < n_test:
            return "test", index
        if n_test <= index < n_test + self.size("train"):
            return "train", index - n_test
        raise BadTaskError(
            f"item index {index} is outside 0..{n_test + self.size('train') - 1} for this task source"
        )


class GeneratedQATasks(_IndexedTasks):
    """Questions about the seeded fictional world (:mod:`.world`).

    Test: 50 questions of each of the seven categories (fewer where a category is small, the
    rest filled round-robin from the others): 350. Train: every other question.
    """

    def __init__(self, seed: int = 0, n_test: int = 7 * TEST_PER_CATEGORY) -> None:
        self.seed = seed
        by_cat: dict[str, list[Question]] = {c: [] for c, _ in CATEGORIES}
        for q in world(seed).questions:
            by_cat[q.category].append(q)
        quota = {c: min(TEST_PER_CATEGORY, len(qs) // 2) for c, qs in by_cat.items()}
        test = [q for c, qs in by_cat.items() for q in qs[: quota[c]]]
        rest = {c: qs[quota[c] :] for c, qs in by_cat.items()}
        while len(test) < n_test:
            for c, qs in by_cat.items():
                if len(test) < n_test and len(rest[c]) > len(qs) // 2:
                    test.append(rest[c].pop(0))
        chosen = {id(q) for q in test}
        self._test = test
        self._train = [q for q in world(seed).questions if id(q) not in chosen]

    def size(self, split: str) -> int:
        return len(self._test if split == "test" else self._train)

    def _load(self, split: str, task_id: int) -> SearchQATask:
        q = (self._test if split == "test" else self._train)[task_id]
        return SearchQATask(
            task_id, split, agentgym_question(q.question), q.answers, q.category, plan=q
        )


def _gold(row: dict[str, Any]) -> list[str]:
    for key in ("golden_answers", "answers", "answer", "target"):
        if key in row and row[key] is not None:
            value = row[key]
            break
    else:
        gt = (row.get("reward_model") or {}).get("ground_truth") or {}
        value = gt.get("target")
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def read_qa_file(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Rows ``{"question", "answers", "data_source"}`` of a QA file.

    JSONL (FlashRAG / NQ-open lines: ``question`` with ``golden_answers``, ``answers`` or
    ``answer``), JSON (a list of such records: HotpotQA's ``question``/``answer``), or Parquet
    (AgentGym's ``test.parquet``/``train.parquet``: ``question`` and
    ``reward_model.ground_truth.target``).
    """
    p = Path(path).expanduser()
    if not p.is_file():
        raise BadDataError(f"QA file {str(p)!r} does not exist: pass a JSONL, JSON or Parquet file")
    if p.suffix == ".parquet":
        pq = require("pyarrow.parquet", "datasets")
        records = pq.read_table(p).to_pylist()
    elif p.suffix == ".json":
        records = json.loads(p.read_text(encoding="utf-8"))
        if isinstance(records, dict):
            records = records.get("data", [records])
    else:
        records = []
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise BadDataError(f"{p}:{n}: not JSON ({exc.msg})") from exc
    rows = []
    for n, rec in enumerate(records, 1):
        if not isinstance(rec, dict) or not str(rec.get("question", "")).strip():
            raise BadDataError(f"{p}: record {n} has no 'question'")
        gold = _gold(rec)
        if not gold:
            raise BadDataError(
                f"{p}: record {n} has no answers: use 'golden_answers', 'answers' or 'answer'"
            )
        rows.append(
            {
                "question": agentgym_question(str(rec["question"])),
                "answers": tuple(gold),
                "data_source": str(rec.get("data_source", "")),
            }
        )
    return rows


class QAFileTasks(_IndexedTasks):
    """The user's QA files; test files first, in the order given (AgentGym's item order when
    they are AgentGym's ``test.parquet`` and ``train.parquet``, or FlashRAG's files of the
    seven test sets and two training sets in :data:`AGENTGYM_TEST_RANGES` order)."""

    user_data = True

    def __init__(
        self,
        test: Sequence[str | os.PathLike[str]] = (),
        train: Sequence[str | os.PathLike[str]] = (),
    ) -> None:
        self._rows = {
            "test": [r for p in test for r in read_qa_file(p)],
            "train": [r for p in train for r in read_qa_file(p)],
        }
        if not self._rows["test"] and not self._rows["train"]:
            raise BadDataError("no QA rows: pass test and/or train QA files")

    def size(self, split: str) -> int:
        return len(self._rows[split])

    def _load(self, split: str, task_id: int) -> SearchQATask:
        row = self._rows[split][task_id]
        source = row["data_source"] or _agentgym_source(split, task_id, self.size("test"))
        return SearchQATask(task_id, split, row["question"], row["answers"], source)


def _agentgym_source(split: str, task_id: int, n_test: int) -> str:
    """The AgentGym data set an item index falls in, when the test files are AgentGym's."""
    if n_test != AGENTGYM_TEST_RANGES["bamboogle"][1]:
        return ""
    index = task_id if split == "test" else n_test + task_id
    for name, (lo, hi) in {**AGENTGYM_TEST_RANGES, **AGENTGYM_TRAIN_RANGES}.items():
        if lo <= index < hi:
            return name
    return ""
