"""Hostile recordings (#31.4): every good line is kept, every bad one reported with its line
number, the same way on SQLite and on a real PostgreSQL; keys follow content, not line
numbers; two imports of one file at once both succeed."""

from __future__ import annotations

import json
import subprocess
import sys

from sqlalchemy import func, select

from agentgym_envs.experience import import_path
from agentgym_envs.experience.models import Episode


def _good(n: int) -> str:
    return json.dumps(
        {
            "item_id": f"maze_{n}",
            "conversations": [
                {"from": "human", "value": f"task {n}", "loss": None},
                {"from": "gpt", "value": "Action: move up", "loss": True},
            ],
            "reward": 1.0,
            "success": True,
        }
    )


#: Bad lines: what each one is, and its text.
BAD = {
    "deep": "[" * 100_000 + "]" * 100_000,
    "ints as turns": json.dumps({"item_id": "maze_1", "conversations": [1, 2, 3]}),
    "nan reward": _good(90).replace('"reward": 1.0', '"reward": NaN'),
    "infinite reward": _good(91).replace('"reward": 1.0', '"reward": 1e999'),
    "long id": _good(92).replace("maze_92", "maze_" + "9" * 500),
    "nul": _good(93).replace("task 93", "task\\u000093"),
    "huge sample": _good(94).replace('"success": true', '"success": true, "sample": 99999999999'),
    "torn": _good(95)[:30],
    "not an object": "[1, 2]",
}


def _write(path, lines: list[bytes]) -> None:
    path.write_bytes(b"\n".join(lines) + b"\n")


def _count(store) -> int:
    with store.session() as s:
        return s.scalar(select(func.count(Episode.id)))


def test_bad_lines_are_reported_and_good_ones_kept(store, tmp_path):
    lines: list[tuple[bytes, bool]] = [(_good(0).encode(), True)]
    for n, text in enumerate(BAD.values(), 1):
        lines += [(text.encode(), False), (_good(n).encode(), True)]
    lines.insert(3, (b'{"item_id": "maze_7", "conversations": [], "x": "\xff\xfe"}', False))
    path = tmp_path / "rec.jsonl"
    _write(path, [line for line, _ in lines])
    report = import_path(store, path)
    assert report.added == sum(ok for _, ok in lines) == _count(store)
    reported = sorted(int(p.split(f"{path}:")[1].split(":")[0]) for p in report.problems)
    assert reported == [n for n, (_, ok) in enumerate(lines, 1) if not ok], report.problems
    assert all(p.endswith("skipped") for p in report.problems)


def test_keys_follow_content_not_line_numbers(store, tmp_path):
    path = tmp_path / "rec.jsonl"
    _write(path, [_good(1).encode(), b"", _good(2).encode()])
    assert import_path(store, path).added == 2
    _write(path, [_good(1).encode(), _good(2).encode(), _good(3).encode()])  # blank line gone
    again = import_path(store, path)
    assert (again.added, again.skipped) == (1, 2) and _count(store) == 3


def test_two_imports_of_one_file_at_once_both_succeed(store, tmp_path):
    path = tmp_path / "rec.jsonl"
    _write(path, [_good(n).encode() for n in range(300)])
    url = store.engine.url.render_as_string(hide_password=False)
    cmd = [sys.executable, "-c", "from agentgym_envs.cli import main; main()"]
    procs = [
        subprocess.Popen(
            [*cmd, "experience", "import", str(path), "--db", url],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=300)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert _count(store) == 300
