"""Many harness episodes at once: the real Cline playing Wordle four at a time against a
stateless expert server (each answer from its request alone, as a model's is) scores exactly as
the same tasks played one after the other, each episode in a session, HOME and process group of
its own; the run goes through the benchmark's store, so a resumed run plays only what is
missing and keeps every record once."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("mcp")
pytest.importorskip("uvicorn")

from agentgym_envs.agents.harness_expert import HarnessExpertServer
from agentgym_envs.errors import AgentGymError
from agentgym_envs.integrations.harnesses.parallel import (
    parse_tasks,
    prune_records,
    run_harness_tasks,
)
from tests.integrations.test_harnesses import _StallingExpert, installed

WORDLE = "AgentGym/Wordle-v0"


def _lines(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _played(out):
    """Per task: outcome, reward, validity, env steps and the actions sent."""
    return {
        r["task_id"]: (
            r["outcome"],
            r["reward"],
            r["reward_valid"],
            r["turns"],
            [t["value"] for t in r["conversations"] if t["from"] == "gpt"],
        )
        for r in _lines(out / "results.jsonl")
    }


@pytest.fixture(scope="module")
def stateless():
    with HarnessExpertServer([WORDLE], cache=False) as server:
        yield server


def test_twelve_tasks_four_at_a_time_score_as_twelve_serial_runs(stateless, tmp_path):
    """Three rounds of four episodes at once (twelve: as much proof as twenty was, in 60% of
    the time)."""
    installed("cline")
    tasks = list(range(12))
    serial = run_harness_tasks("cline", WORDLE, tasks, stateless.base_url, out=tmp_path / "serial")
    parallel = run_harness_tasks(
        "cline", WORDLE, tasks, stateless.base_url, out=tmp_path / "j4", concurrency=4
    )
    assert serial.ran == parallel.ran == 12
    one, four = _played(tmp_path / "serial"), _played(tmp_path / "j4")
    assert one == four
    assert all(p[:3] == ("success", 1.0, True) for p in four.values()), four
    # the tasks really differ: distinct guesses after the shared first one
    assert len({tuple(p[4]) for p in four.values()}) > 6
    # each episode its own session, with its own records and its own harness log
    results = _lines(tmp_path / "j4" / "results.jsonl")
    sessions = [r["session"] for r in results]
    assert len(set(sessions)) == 12
    chat = _lines(tmp_path / "j4" / "chat.jsonl")
    assert sorted(c["session"] for c in chat) == sorted(sessions)
    by_session = {c["session"]: c for c in chat}
    for r in results:
        assert by_session[r["session"]]["item_id"] == r["item_id"]
        assert (tmp_path / "j4" / "harness" / f"{r['session']}.log").stat().st_size > 0


def test_a_resumed_run_plays_what_is_missing_and_keeps_each_record_once(stateless, tmp_path):
    installed("cline")
    out = tmp_path / "run"
    first = run_harness_tasks(
        "cline", WORDLE, [0, 1, 2], stateless.base_url, out=out, concurrency=2
    )
    assert first.ran == 3
    # the run died after task 2's gateway records were written, before its results line
    results = _lines(out / "results.jsonl")
    lost = next(r for r in results if r["task_id"] == 2)
    kept = [r for r in results if r["task_id"] != 2]
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in kept))
    again = run_harness_tasks(
        "cline", WORDLE, [0, 1, 2], stateless.base_url, out=out, concurrency=2
    )
    assert (again.ran, again.skipped) == (1, 2)
    sessions = {r["session"] for r in _lines(out / "results.jsonl")}
    assert len(sessions) == 3 and lost["session"] not in sessions
    for name in ("agenttraj.jsonl", "chat.jsonl", "sft.jsonl"):
        assert sorted(r["session"] for r in _lines(out / name)) == sorted(sessions), name
    assert {r["task_id"]: r["outcome"] for r in again.records} == dict.fromkeys(
        [0, 1, 2], "success"
    )


def test_a_run_caps_each_episodes_model_calls(tmp_path):
    """``max_calls`` reaches each episode of a run (``agentgym harness --tasks --max-calls``),
    and a run made with a cap says so in its settings."""
    installed("cline")
    with _StallingExpert([WORDLE]) as stalling:
        run = run_harness_tasks(
            "cline", WORDLE, [0], stalling.base_url, out=tmp_path, grace=1, max_calls=2
        )
    (record,) = run.records
    assert (record["outcome"], record["reward_valid"]) == ("turn_limit", True), record["error"]
    assert json.loads((tmp_path / "run.json").read_text())["policy"]["max_calls"] == 2


def test_bench_plays_a_harness_policy(tmp_path):
    installed("cline")
    out = tmp_path / "bench"
    done = subprocess.run(
        [sys.executable, "-m", "agentgym_envs.cli", "bench", "--policy", "harness:cline"]
        + ["--envs", "Wordle-v0", "--limit", "2", "-j", "2", "--model-source", "expert"]
        + ["--out", str(out), "--no-progress"],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    results = _lines(out / "results.jsonl")
    assert [r["outcome"] for r in results] == ["success", "success"]
    assert json.loads((out / "run.json").read_text())["policy"]["harness"] == "cline"
    assert len(_lines(out / "chat.jsonl")) == 2
    family = json.loads((out / "summary.json").read_text())["config"]["families"][
        "AgentGym/Wordle-v0"
    ]
    assert (family["prompt_set"], family["parser"]) == ("harness:cline's own",) * 2


def test_a_folder_of_single_episodes_is_not_taken_for_a_run(stateless, tmp_path):
    installed("cline")
    (tmp_path / "chat.jsonl").write_text('{"session": "cline-1"}\n')
    with pytest.raises(AgentGymError, match="holds harness records of another kind of run"):
        run_harness_tasks("cline", WORDLE, [0], stateless.base_url, out=tmp_path)
    assert (tmp_path / "chat.jsonl").read_text() == '{"session": "cline-1"}\n'


def test_a_task_past_the_split_is_one_line(stateless, tmp_path):
    with pytest.raises(AgentGymError, match="has tasks 0-24 in its test split, not 25"):
        run_harness_tasks("cline", WORDLE, [3, 25], stateless.base_url, out=tmp_path)


def test_task_lists_and_ranges():
    assert parse_tasks("0-3") == [0, 1, 2, 3]
    assert parse_tasks("5, 0,2-3,3") == [5, 0, 2, 3]
    for bad in ("", "a", "3-1", "1-", "-2", "1..3"):
        with pytest.raises(ValueError, match="--tasks"):
            parse_tasks(bad)


def test_pruning_keeps_the_named_sessions_and_drops_torn_lines(tmp_path):
    (tmp_path / "sft.jsonl").write_text(
        '{"session": "a", "n": 1}\n{"session": "b"}\n{"session": "c"\n'
    )
    assert prune_records(tmp_path, {"a"}) == 1
    assert (tmp_path / "sft.jsonl").read_text() == '{"session": "a", "n": 1}\n'
    assert prune_records(tmp_path, {"a"}) == 0


@pytest.mark.parametrize(
    "args,says",
    [
        (
            ["bench", "--policy", "harness:cline", "--envs", "Wordle-v0"],
            "harness:cline needs a model",
        ),
        (
            [
                "bench",
                "--policy",
                "harness:clien",
                "--envs",
                "Wordle-v0",
                "--base-url",
                "http://x/v1",
            ],
            "did you mean 'cline'",
        ),
        (
            ["harness", "cline", "--env", "Wordle-v0", "--tasks", "3-1", "--model", "expert"],
            "runs backwards",
        ),
        (
            [
                "harness",
                "cline",
                "--env",
                "Wordle-v0",
                "--task",
                "1",
                "--tasks",
                "2",
                "--model",
                "expert",
            ],
            "not both",
        ),
    ],
)
def test_bad_harness_runs_are_one_line_errors(args, says, tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "agentgym_envs.cli", *args, "--out", str(tmp_path / "run")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "300"},
    )
    assert done.returncode != 0 and says in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_harness_that_gives_up_on_a_reply_cut_at_its_token_limit_is_a_token_limit(tmp_path):
    from agentgym_envs.integrations.gateway import Gateway
    from agentgym_envs.integrations.harnesses.runner import _ending

    gateway = Gateway(WORDLE, "http://127.0.0.1:9/v1", tmp_path, session_auth=False)
    log = tmp_path / "harness.log"
    log.write_text('{"type":"error","message":"Model reached the maximum output token limit"}\n')
    session = gateway.session("cline-cut")
    reply = {"role": "assistant", "content": "ramble"}
    session.append({"request": {}, "response": reply, "finish_reason": "stop"})
    assert _ending(gateway, "cline-cut", 1, None, log)["outcome"] == "env_error"
    session.append({"request": {}, "response": reply, "finish_reason": "length"})
    ending = _ending(gateway, "cline-cut", 1, None, log)
    assert (ending["outcome"], ending["reward_valid"]) == ("token_limit", True)
    assert "maximum output token limit" in ending["error"]
    assert _ending(gateway, "cline-cut", 0, None, log)["outcome"] == "failure"  # it stopped itself
