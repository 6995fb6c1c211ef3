"""AgentTraj records: load, validate, save.

A record, exactly as AgentGym releases them (``AgentGym/AgentTraj-L``)::

    {"item_id": "webshop_6",
     "conversations": [{"from": "human", "loss": null, "value": "You are web shopping..."},
                       {"from": "gpt", "loss": false, "value": "Ok."},
                       {"from": "human", "loss": null, "value": "WebShop [SEP] Instruction: ..."},
                       {"from": "gpt", "loss": true, "value": "Thought:\\n...\\n\\nAction:\\nsearch[...]"}]}

The first two turns are the env's ``conversation_start`` (its instructions and the model's
"Ok."), then env observations (``human``) alternate with the agent's ReAct replies (``gpt``).
Evaluation outputs add ``reward`` and ``success``; both are kept when present, as is any other
key. Records this package writes also say why the episode ended (``outcome``, one of
:data:`~agentgym_envs.core.OUTCOMES`) and whether its reward can be trained on
(``reward_valid``); both are checked when present and read by :attr:`Trajectory.ended_by` and
:attr:`Trajectory.reward_valid`. :func:`load_agenttraj` reads JSON (a list of records), JSONL, Parquet, a folder of those,
or a Hugging Face Hub dataset id, and validates each record: a malformed one is reported with
its position (``file.jsonl:12``) and either rejected (``errors="raise"``) or skipped
(``errors="skip"``; the problems stay on :attr:`TrajectorySet.problems`), never kept.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, overload

from agentgym_envs.core import OUTCOMES
from agentgym_envs.datasets.items import canonical_prefix, parse_item_id
from agentgym_envs.errors import BadDataError, require

logger = logging.getLogger(__name__)

ROLES = ("human", "gpt")
_SUFFIXES = (".json", ".jsonl", ".parquet")
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.\-]*/[\w.\-]+$")
#: Record keys this module interprets; any other key is carried along in ``extra``.
_KNOWN_KEYS = ("item_id", "conversations", "reward", "success")


@dataclass(frozen=True)
class Turn:
    """One conversation turn: ``role`` is AgentTraj's ``from`` (``human`` or ``gpt``)."""

    role: Literal["human", "gpt"]
    value: str
    loss: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"from": self.role, "loss": self.loss, "value": self.value}


@dataclass
class Trajectory:
    """One AgentTraj record."""

    item_id: str
    conversations: list[Turn]
    reward: float | None = None
    success: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: Where the record was read (``file.jsonl:12``), for messages.
    position: str = ""

    @property
    def prefix(self) -> str:
        """The item id's prefix as written (``lmrlgym_maze``)."""
        return parse_item_id(self.item_id)[0]

    @property
    def index(self) -> int:
        return parse_item_id(self.item_id)[1]

    @property
    def family(self) -> str:
        """Canonical family key of the item (``maze`` for ``lmrlgym_maze_3``)."""
        return canonical_prefix(self.prefix)

    @property
    def start(self) -> int:
        """Index of the first turn after AgentGym's ``conversation_start`` (0 when absent).

        ``conversation_start`` is the instruction turn and the model's untrained reply
        (``loss: false``) that open every AgentGym conversation.
        """
        c = self.conversations
        if len(c) >= 2 and c[0].role == "human" and c[1].role == "gpt" and c[1].loss is False:
            return 2
        return 0

    @property
    def actions(self) -> list[str]:
        """The agent's replies after ``conversation_start`` (one per env step)."""
        return [t.value for t in self.conversations[self.start :] if t.role == "gpt"]

    @property
    def turns(self) -> int:
        """Number of agent replies after ``conversation_start``."""
        return len(self.actions)

    @property
    def chars(self) -> int:
        return sum(len(t.value) for t in self.conversations)

    @property
    def ended_by(self) -> str | None:
        """Why the episode ended (the record's ``outcome``: ``success``, ``turn_limit``,
        ``env_error``...), ``None`` when the record does not say (AgentGym's own records)."""
        return self.extra.get("outcome")

    @property
    def reward_valid(self) -> bool:
        """Whether the reward may be trained on: the record's ``reward_valid`` (true when
        absent); false when the environment, not the agent, failed."""
        return self.extra.get("reward_valid", True) is not False

    def outcome(self, unlabeled: bool | None = None) -> bool | None:
        """Whether the trajectory succeeded: ``success`` if given, else from ``reward`` (1 or
        100 as AgentGym counts it), else ``unlabeled``."""
        if self.success is not None:
            return bool(self.success)
        if self.reward is not None:
            return self.reward in (1.0, 100.0)
        return unlabeled

    def to_record(self) -> dict[str, Any]:
        """The record as AgentGym writes it (plus ``reward``/``success``/extra keys if any)."""
        record: dict[str, Any] = {
            "conversations": [t.to_dict() for t in self.conversations],
            "item_id": self.item_id,
        }
        if self.reward is not None:
            record["reward"] = self.reward
        if self.success is not None:
            record["success"] = self.success
        record.update(self.extra)
        return record


@dataclass(frozen=True)
class Problem:
    """A malformed record: where it is and what is wrong."""

    position: str
    message: str
    item_id: str | None = None

    def __str__(self) -> str:
        return f"{self.position}: {self.message}"


class TrajectorySet(Sequence[Trajectory]):
    """The trajectories read from a source, with the problems found on the way."""

    def __init__(
        self,
        trajectories: Iterable[Trajectory] = (),
        problems: Iterable[Problem] = (),
        source: str = "",
    ) -> None:
        self._items = list(trajectories)
        self.problems: list[Problem] = list(problems)
        self.source = source

    @overload
    def __getitem__(self, i: int) -> Trajectory: ...
    @overload
    def __getitem__(self, i: slice) -> TrajectorySet: ...
    def __getitem__(self, i):  # type: ignore[no-untyped-def]
        if isinstance(i, slice):
            return TrajectorySet(self._items[i], self.problems, self.source)
        return self._items[i]

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"TrajectorySet({len(self)} trajectories, {len(self.problems)} problems, source={self.source!r})"

    def families(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for t in self._items:
            out[t.family] = out.get(t.family, 0) + 1
        return out


# -- validation ----------------------------------------------------------------------------
def validate_record(
    record: Any, position: str = "record"
) -> tuple[Trajectory | None, list[Problem]]:
    """Check one record; return the trajectory (``None`` if malformed) and the problems found."""
    problems: list[Problem] = []

    def bad(message: str) -> tuple[None, list[Problem]]:
        problems.append(Problem(position, message, item_id if isinstance(item_id, str) else None))
        return None, problems

    item_id = record.get("item_id") if isinstance(record, dict) else None
    if not isinstance(record, dict):
        return bad(f"record must be a JSON object, got {type(record).__name__}")
    if "item_id" not in record:
        return bad("missing 'item_id'")
    try:
        parse_item_id(item_id)
    except BadDataError as exc:
        return bad(str(exc))
    conv = record.get("conversations")
    if conv is None:
        return bad(
            "'conversations' is null (an AgentEval item list? load it with agentgym_envs.benchmarks.load_agenteval)"
        )
    if not isinstance(conv, (list, tuple)) or not conv:
        return bad("'conversations' must be a non-empty list of turns")
    turns: list[Turn] = []
    for i, turn in enumerate(conv):
        if not isinstance(turn, dict):
            return bad(f"turn {i} must be an object with 'from', 'loss', 'value'")
        role, value, loss = turn.get("from"), turn.get("value"), turn.get("loss")
        if role not in ROLES:
            return bad(f"turn {i}: 'from' must be 'human' or 'gpt', got {role!r}")
        if not isinstance(value, str):
            return bad(f"turn {i}: 'value' must be a string, got {type(value).__name__}")
        if loss is not None and not isinstance(loss, bool):
            return bad(f"turn {i}: 'loss' must be true, false or null, got {loss!r}")
        if role == "human" and loss is True:
            return bad(f"turn {i}: a human turn has loss true (only gpt turns are trained on)")
        if turns and turns[-1].role == role:
            return bad(f"turn {i}: two {role} turns in a row (turns must alternate human/gpt)")
        turns.append(Turn(role, value, loss))
    if turns[0].role != "human":
        return bad("turn 0 must be from 'human' (the env speaks first)")
    reward = record.get("reward")
    if reward is not None:
        if (
            isinstance(reward, bool)
            or not isinstance(reward, (int, float))
            or not math.isfinite(reward)
        ):
            return bad(f"'reward' must be a finite number, got {reward!r}")
        reward = float(reward)
    success = record.get("success")
    if success is not None and not isinstance(success, bool):
        if success in (0, 1) and not isinstance(success, float):
            success = bool(success)
        else:
            return bad(f"'success' must be true or false, got {success!r}")
    outcome = record.get("outcome")
    if outcome is not None and outcome not in OUTCOMES:
        return bad(f"'outcome' must be one of {', '.join(OUTCOMES)}, got {outcome!r}")
    reward_valid = record.get("reward_valid")
    if reward_valid is not None and not isinstance(reward_valid, bool):
        return bad(f"'reward_valid' must be true or false, got {reward_valid!r}")
    extra = {k: v for k, v in record.items() if k not in _KNOWN_KEYS}
    return Trajectory(item_id.strip(), turns, reward, success, extra, position), problems


# -- readers -------------------------------------------------------------------------------
def _iter_json(path: Path) -> Iterator[tuple[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise BadDataError(
            f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}): expected a list of AgentTraj records"
        ) from None
    if isinstance(data, dict) and "item_id" in data:
        data = [data]
    if not isinstance(data, list):
        raise BadDataError(
            f"{path}: expected a JSON list of AgentTraj records, got {type(data).__name__}"
        )
    for i, record in enumerate(data):
        yield f"{path}[{i}]", record


def jsonl_lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for each non-blank line of the JSONL file ``path``: the torn-line
    policy every JSONL reader of the package shares.

    A last line that is not JSON and has no newline after it (a writer died mid-line) is skipped
    with a warning naming ``file:line``; a line that is not JSON anywhere else yields a
    :class:`BadJsonLine` (the caller raises it or skips it, naming ``file:line``).
    """
    with Path(path).open(encoding="utf-8") as f:
        line = f.readline()
        n = 1
        while line:
            following = f.readline()
            if line.strip():
                try:
                    yield n, json.loads(line)
                except json.JSONDecodeError as exc:
                    if not following and not line.endswith("\n"):
                        logger.warning(
                            "%s:%d: incomplete last line (a writer died mid-line): skipped", path, n
                        )
                    else:
                        yield n, BadJsonLine(f"{path}:{n}: not valid JSON ({exc.msg})")
            line, n = following, n + 1


@dataclass(frozen=True)
class BadJsonLine:
    """A JSONL line in the middle of a file that is not JSON (see :func:`jsonl_lines`)."""

    message: str


def _iter_jsonl(path: Path) -> Iterator[tuple[str, Any]]:
    for n, record in jsonl_lines(path):
        if isinstance(record, BadJsonLine):
            record = _Unparsable(record.message.split(": ", 1)[1])
        yield f"{path}:{n}", record


def _iter_parquet(path: Path) -> Iterator[tuple[str, Any]]:
    pq = require("pyarrow.parquet", "datasets")
    table = pq.read_table(path)
    if "item_id" not in table.column_names:
        raise BadDataError(
            f"{path}: no 'item_id' column (columns: {', '.join(table.column_names)}): not an AgentTraj file"
        )
    for i, record in enumerate(table.to_pylist()):
        # a column missing from some rows reads back as null: drop those, not real keys
        yield (
            f"{path} row {i}",
            {k: v for k, v in record.items() if v is not None or k in ("item_id", "conversations")},
        )


@dataclass(frozen=True)
class _Unparsable:
    message: str


_READERS = {".json": _iter_json, ".jsonl": _iter_jsonl, ".parquet": _iter_parquet}


def _files(path: Path) -> list[Path]:
    if path.is_file():
        if path.suffix.lower() not in _READERS:
            raise BadDataError(
                f"{path}: unsupported file type {path.suffix!r}: use .json, .jsonl or .parquet"
            )
        return [path]
    files = sorted(
        p
        for p in path.rglob("*")
        if p.is_file() and p.suffix.lower() in _READERS and not p.name.startswith(".")
    )
    if not files:
        raise BadDataError(f"{path}: no .json, .jsonl or .parquet files in this folder")
    return files


def iter_records(source: str | os.PathLike[str]) -> Iterator[tuple[str, Any]]:
    """Raw ``(position, record)`` pairs of a local file or folder, in file order.

    In a folder, a ``.json`` file that holds one object without ``item_id`` (metadata such as
    a hub's ``dataset_info.json`` or a benchmark run's ``run.json``) is not data and is passed
    over; a benchmark run folder (``results.jsonl`` + ``run.json``) reads its ``results.jsonl``.
    """
    path = Path(source).expanduser()
    if not path.exists():
        raise BadDataError(
            f"{path}: no such file or folder: pass a local .json/.jsonl/.parquet file, a folder, or a hub id"
        )
    if path.is_dir() and (path / "results.jsonl").is_file() and (path / "run.json").is_file():
        path = path / "results.jsonl"
    in_folder = path.is_dir()
    for file in _files(path):
        if in_folder and file.suffix.lower() == ".json" and _is_metadata(file):
            logger.info("passing over %s: not a list of AgentTraj records", file)
            continue
        yield from _READERS[file.suffix.lower()](file)


def _is_metadata(path: Path) -> bool:
    with path.open(encoding="utf-8") as f:
        head = f.read(256).lstrip()[:1]
    if head != "{":
        return False
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return False
    return isinstance(data, dict) and "item_id" not in data


def _download_hub(repo_id: str, revision: str | None = None) -> Path:
    hub = require("huggingface_hub", "datasets")
    try:
        local = hub.snapshot_download(
            repo_id=repo_id,
            repo_type="dataset",
            revision=revision,
            allow_patterns=["*.json", "*.jsonl", "*.parquet"],
        )
    except Exception as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise BadDataError(
            f"cannot load {repo_id!r} from the Hugging Face Hub ({type(exc).__name__}: {reason[:160]}): "
            "offline? download the files elsewhere and pass a local path (file or folder) instead"
        ) from None
    return Path(local)


def _is_hub_id(source: str) -> bool:
    return (
        bool(_HUB_ID.match(source))
        and not source.lower().endswith(_SUFFIXES)
        and not Path(source).expanduser().exists()
    )


def load_agenttraj(
    source: str | os.PathLike[str] | Iterable[dict[str, Any]],
    *,
    errors: Literal["raise", "skip"] = "raise",
    limit: int | None = None,
    revision: str | None = None,
) -> TrajectorySet:
    """Load and validate AgentTraj records.

    ``source``: a ``.json`` (list of records), ``.jsonl`` or ``.parquet`` file, a folder of
    them (read recursively, in name order), a Hugging Face Hub dataset id such as
    ``"AgentGym/AgentTraj-L"`` (downloaded when online; offline, a one-line error saying to pass
    a local path), or records already in memory. ``errors="raise"`` rejects the whole load at
    the first malformed record with a :class:`BadDataError` naming its position;
    ``errors="skip"`` leaves it out, logs a warning and lists it in ``.problems``.
    """
    if errors not in ("raise", "skip"):
        raise ValueError(f"errors={errors!r}: use 'raise' or 'skip'")
    if isinstance(source, (str, os.PathLike)):
        text = os.fspath(source)
        if _is_hub_id(text):
            records: Iterable[tuple[str, Any]] = iter_records(_download_hub(text, revision))
        else:
            records = iter_records(text)
        label = text
    else:
        records = ((f"record {i}", r) for i, r in enumerate(source))
        label = "<records>"
    trajectories: list[Trajectory] = []
    problems: list[Problem] = []
    for position, record in records:
        if limit is not None and len(trajectories) >= limit:
            break
        if isinstance(record, _Unparsable):
            traj, found = None, [Problem(position, record.message)]
        else:
            traj, found = validate_record(record, position)
        if found:
            if errors == "raise":
                raise BadDataError(
                    f"malformed AgentTraj record at {found[0]}; pass errors='skip' to leave such records out"
                )
            for p in found:
                logger.warning("skipping malformed AgentTraj record at %s", p)
            problems.extend(found)
        if traj is not None:
            trajectories.append(traj)
    return TrajectorySet(trajectories, problems, label)


def save_agenttraj(
    trajectories: Iterable[Trajectory | dict[str, Any]], path: str | os.PathLike[str]
) -> Path:
    """Write records as ``.json`` (one list, as AgentGym ships them), ``.jsonl`` or ``.parquet``."""
    out = Path(path).expanduser()
    records = [t.to_record() if isinstance(t, Trajectory) else dict(t) for t in trajectories]
    out.parent.mkdir(parents=True, exist_ok=True)
    suffix = out.suffix.lower()
    if suffix == ".json":
        out.write_text(json.dumps(records, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    elif suffix == ".jsonl":
        with out.open("w", encoding="utf-8") as f:
            for r in records:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    elif suffix == ".parquet":
        pa = require("pyarrow", "datasets")
        pq = require("pyarrow.parquet", "datasets")
        keys = list(dict.fromkeys(k for r in records for k in r))  # pyarrow infers from row 0 only
        pq.write_table(pa.Table.from_pylist([{k: r.get(k) for k in keys} for r in records]), out)
    else:
        raise BadDataError(
            f"{out}: unsupported file type {out.suffix!r}: use .json, .jsonl or .parquet"
        )
    return out


__all__ = [
    "Problem",
    "Trajectory",
    "TrajectorySet",
    "Turn",
    "iter_records",
    "load_agenttraj",
    "save_agenttraj",
    "validate_record",
]
