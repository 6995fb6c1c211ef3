"""Loading and validating AgentTraj records from every supported source."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agentgym_envs.datasets import Trajectory, load_agenttraj, save_agenttraj, validate_record
from agentgym_envs.errors import BadDataError

FIXTURES = Path(__file__).parent / "fixtures"
SMALL_JSON = FIXTURES / "agenttraj_small.json"
SMALL_JSONL = FIXTURES / "agenttraj_small.jsonl"
MALFORMED = FIXTURES / "malformed.jsonl"


def _records(trajs):
    return [t.to_record() for t in trajs]


def test_json_file_in_agentgym_shape_loads():
    trajs = load_agenttraj(SMALL_JSON)
    raw = json.loads(SMALL_JSON.read_text())
    assert len(trajs) == len(raw) == 6
    assert not trajs.problems
    first = trajs[0]
    assert first.item_id == "wordle_3499"
    assert first.conversations[0].role == "human" and first.conversations[0].loss is None
    assert first.conversations[1].value == "Ok." and first.conversations[1].loss is False
    assert first.start == 2
    assert first.actions[0].startswith("Thought:\n")
    # records read back exactly as AgentGym wrote them
    assert _records(trajs) == raw


def test_json_jsonl_parquet_and_folder_agree(tmp_path):
    pytest.importorskip("pyarrow", reason='Parquet needs pip install "agentgym-envs[datasets]"')
    from_json = _records(load_agenttraj(SMALL_JSON))
    assert _records(load_agenttraj(SMALL_JSONL)) == from_json
    parquet = save_agenttraj(load_agenttraj(SMALL_JSON), tmp_path / "train.parquet")
    assert _records(load_agenttraj(parquet)) == from_json
    folder = tmp_path / "set"
    (folder / "part").mkdir(parents=True)
    shutil.copy(SMALL_JSONL, folder / "part" / "a.jsonl")
    (folder / "dataset_info.json").write_text(json.dumps({"description": "metadata, not records"}))
    assert _records(load_agenttraj(folder)) == from_json


def test_records_in_memory_and_limit():
    raw = json.loads(SMALL_JSON.read_text())
    trajs = load_agenttraj(raw, limit=2)
    assert [t.item_id for t in trajs] == ["wordle_3499", "wordle_3500"]


def test_malformed_record_rejected_with_its_position():
    with pytest.raises(BadDataError) as err:
        load_agenttraj(MALFORMED)
    message = str(err.value)
    assert "malformed.jsonl:2" in message and "maze5" in message and "\n" not in message


def test_malformed_records_skipped_and_reported():
    trajs = load_agenttraj(MALFORMED, errors="skip")
    assert len(trajs) == 1 and trajs[0].item_id == "maze_5"
    positions = [p.position.rsplit(":", 1)[1] for p in trajs.problems]
    # line 9, torn (no newline after it), is skipped with a warning: not a problem record
    assert positions == [str(n) for n in range(2, 9)]
    messages = " | ".join(p.message for p in trajs.problems)
    for fragment in (
        "not of the form",
        "'from' must be",
        "'loss' must be",
        "null",
        "in a row",
        "turn 0 must be",
        "'reward'",
    ):
        assert fragment in messages


@pytest.mark.parametrize(
    "record, fragment",
    [
        ([], "JSON object"),
        ({"conversations": []}, "missing 'item_id'"),
        ({"item_id": "maze_1", "conversations": "hi"}, "non-empty list"),
        (
            {"item_id": "maze_1", "conversations": [{"from": "human", "loss": True, "value": "x"}]},
            "human turn has loss true",
        ),
        (
            {"item_id": "maze_1", "conversations": [{"from": "human", "loss": None, "value": 3}]},
            "'value' must be a string",
        ),
        (
            {
                "item_id": "maze_1",
                "conversations": [{"from": "human", "value": "x"}],
                "success": "yes",
            },
            "'success'",
        ),
        (
            {
                "item_id": "maze_1",
                "conversations": [{"from": "human", "value": "x"}],
                "outcome": "won",
            },
            "'outcome' must be one of success, failure",
        ),
        (
            {
                "item_id": "maze_1",
                "conversations": [{"from": "human", "value": "x"}],
                "reward_valid": "no",
            },
            "'reward_valid' must be true or false",
        ),
    ],
)
def test_validation_messages(record, fragment):
    traj, problems = validate_record(record, "here")
    assert traj is None and problems and fragment in problems[0].message
    assert str(problems[0]).startswith("here: ")


def test_extra_keys_reward_and_success_are_kept():
    rec = {
        "item_id": "maze_1",
        "conversations": [{"from": "human", "loss": None, "value": "x"}],
        "reward": 1,
        "success": True,
        "model": "m",
    }
    traj, problems = validate_record(rec)
    assert (
        not problems
        and traj.reward == 1.0
        and traj.success is True
        and traj.extra == {"model": "m"}
    )
    assert traj.to_record() == {**rec, "reward": 1.0}


def test_outcome_and_family():
    t = load_agenttraj(SMALL_JSON)
    alias = next(x for x in t if x.item_id == "lmrlgym_maze_3")
    assert alias.family == "maze" and alias.prefix == "lmrlgym_maze" and alias.index == 3
    assert alias.outcome() is None and alias.outcome(unlabeled=True) is True
    failed = next(x for x in t if x.reward == 0.0)
    assert failed.outcome() is False
    assert Trajectory("sciworld_1", [], reward=100.0).outcome() is True


def test_ended_by_and_reward_valid_round_trip():
    conv = [{"from": "human", "loss": None, "value": "x"}]
    rec = {"item_id": "maze_1", "conversations": conv, "reward": 0.0, "success": False}
    broken = {**rec, "outcome": "env_error", "reward_valid": False, "error": "boom"}
    traj, problems = validate_record(broken)
    assert not problems and traj.ended_by == "env_error" and traj.reward_valid is False
    assert traj.to_record() == broken
    # AgentGym's own records say neither: no outcome, and their reward is taken as valid
    plain, _ = validate_record(rec)
    assert plain.ended_by is None and plain.reward_valid is True


def test_hub_id_offline_is_one_line_error(tmp_path, monkeypatch):
    pytest.importorskip("huggingface_hub")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    with pytest.raises(BadDataError) as err:
        load_agenttraj("AgentGym/AgentTraj-L")
    message = str(err.value)
    assert "AgentGym/AgentTraj-L" in message and "local path" in message and "\n" not in message


def test_missing_path_and_bad_suffix(tmp_path):
    with pytest.raises(BadDataError, match="no such file"):
        load_agenttraj(tmp_path / "nope.jsonl")
    bad = tmp_path / "data.csv"
    bad.write_text("a,b\n")
    with pytest.raises(BadDataError, match="unsupported file type"):
        load_agenttraj(bad)
    with pytest.raises(ValueError, match="errors="):
        load_agenttraj(SMALL_JSON, errors="ignore")  # type: ignore[arg-type]


def test_save_round_trip_all_formats(tmp_path):
    pytest.importorskip("pyarrow", reason='Parquet needs pip install "agentgym-envs[datasets]"')
    trajs = load_agenttraj(SMALL_JSON)
    for name in ("out.json", "out.jsonl", "out.parquet"):
        path = save_agenttraj(trajs, tmp_path / name)
        assert _records(load_agenttraj(path)) == _records(trajs)
    with pytest.raises(BadDataError):
        save_agenttraj(trajs, tmp_path / "out.txt")
