"""One torn-line policy for every JSONL reader: a torn last line is skipped with a warning
naming ``file:line``; a bad line in the middle is an error naming ``file:line``."""

from __future__ import annotations

import json

import pytest

from agentgym_envs.datasets.agenttraj import load_agenttraj
from agentgym_envs.errors import BadDataError
from agentgym_envs.wrappers.record import read_trajectories


def _record(i: int) -> str:
    conversations = [
        {"from": "human", "loss": None, "value": "You are in a maze."},
        {"from": "gpt", "loss": True, "value": "Thought: go.\nAction: move up"},
    ]
    return json.dumps({"item_id": f"maze_{i}", "conversations": conversations, "reward": 1.0})


@pytest.fixture
def whole(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text("".join(_record(i) + "\n" for i in range(3)), encoding="utf-8")
    return path


def test_torn_last_line_is_skipped_by_both_readers(whole, caplog):
    text = whole.read_text(encoding="utf-8")
    whole.write_text(text + _record(3)[:25], encoding="utf-8")  # a writer killed mid-line
    assert [t.item_id for t in load_agenttraj(whole)] == ["maze_0", "maze_1", "maze_2"]
    assert f"{whole}:4" in caplog.text
    caplog.clear()
    assert [r["item_id"] for r in read_trajectories(whole)] == ["maze_0", "maze_1", "maze_2"]
    assert f"{whole}:4" in caplog.text


def test_bad_middle_line_is_an_error_in_both_readers(whole):
    lines = whole.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1] = lines[1][:25] + "\n"  # cut mid-line, then more records after it
    whole.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(BadDataError, match=f"{whole}:2"):
        load_agenttraj(whole)
    with pytest.raises(BadDataError, match=f"{whole}:2"):
        read_trajectories(whole)


def test_torn_line_followed_by_a_newline_is_not_torn(whole):
    # a complete last line (newline written) that is not JSON is damage, not a torn write
    whole.write_text(whole.read_text(encoding="utf-8") + "{oops\n", encoding="utf-8")
    with pytest.raises(BadDataError, match=f"{whole}:4"):
        read_trajectories(whole)
