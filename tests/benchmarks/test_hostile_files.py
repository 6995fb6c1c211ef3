"""Run folders and recordings under abuse: two live runs on one ``--out``, files cut mid-line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import gymnasium as gym

import agentgym_envs  # noqa: F401 - registers the ids
from agentgym_envs.benchmarks.policies import random_spec
from agentgym_envs.benchmarks.report import RESULTS_FILE
from agentgym_envs.benchmarks.runner import run_benchmark
from agentgym_envs.wrappers.record import RecordTrajectory, read_trajectories, repair_torn_tail

CLI = [sys.executable, "-c", "from agentgym_envs.cli import main; main()"]
# A second process that holds a run folder open (as a live bench run does) until stdin closes.
HOLDER = """
import sys
from agentgym_envs.benchmarks.runner import ResultStore
store = ResultStore(sys.argv[1], {}, True).open()
print("holding", flush=True)
sys.stdin.read()
store.close()
"""


def _bench(out: Path) -> subprocess.CompletedProcess:
    args = ["bench", "--envs", "Maze-v0", "--policy", "random", "--limit", "3"]
    return subprocess.run(
        [*CLI, *args, "--out", str(out), "--no-progress"],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _lines(path: Path) -> list[dict]:
    raw = path.read_text(encoding="utf-8")
    assert raw.endswith("\n")
    return [json.loads(line) for line in raw.splitlines()]  # every line whole JSON


def test_second_live_run_on_one_out_is_refused_in_one_line(tmp_path):
    out = tmp_path / "run"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(out)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "holding"
        done = _bench(out)
        assert done.returncode != 0
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "in use" in lines[0] and str(holder.pid) in lines[0]
        assert (out / RESULTS_FILE).read_bytes() == b""  # the refused run wrote nothing
    finally:
        holder.communicate("", timeout=120)
    # once the other process has ended, the folder is free
    done = _bench(out)
    assert done.returncode == 0, done.stderr
    assert len(_lines(out / RESULTS_FILE)) == 3


def test_out_naming_a_file_is_one_line(tmp_path):
    target = tmp_path / "file.txt"
    target.write_text("x", encoding="utf-8")
    done = _bench(target)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "is a file" in lines[0]


def test_resume_cuts_a_torn_last_line_before_appending(tmp_path):
    run_benchmark("Maze-v0", random_spec(), out=tmp_path, limit=4)
    path = tmp_path / RESULTS_FILE
    whole = path.read_bytes()
    last_start = whole.rstrip(b"\n").rfind(b"\n") + 1
    path.write_bytes(whole[: last_start + 20])  # the run died writing its last episode
    again = run_benchmark("Maze-v0", random_spec(), out=tmp_path, limit=4)
    assert (again.ran, again.skipped) == (1, 3)
    records = _lines(path)
    assert len(records) == 4
    assert len({(r["env_id"], r["item_id"], r.get("sample", 0)) for r in records}) == 4


def _play(env: gym.Env, seed: int) -> None:
    env.reset(seed=seed)
    done = False
    while not done:
        _, _, term, trunc, _ = env.step("move up")
        done = term or trunc


def test_recording_resumed_after_a_torn_line_stays_valid(tmp_path, caplog):
    path = tmp_path / "traj.jsonl"
    env = RecordTrajectory(gym.make("AgentGym/Maze-v0", max_episode_steps=3), path)
    for seed in range(2):
        _play(env, seed)
    env.close()
    whole = path.read_bytes()
    path.write_bytes(whole + whole[:30])  # a third record cut short by a kill
    assert len(read_trajectories(path)) == 2  # torn last line skipped, with a warning
    assert f"{path}:3" in caplog.text
    env = RecordTrajectory(gym.make("AgentGym/Maze-v0", max_episode_steps=3), path)
    _play(env, 5)
    env.close()
    records = _lines(path)
    assert len(records) == 3 and all("conversations" in r for r in records)
    assert read_trajectories(path) == records


def test_repair_torn_tail_cases(tmp_path):
    path = tmp_path / "a.jsonl"
    assert repair_torn_tail(path) == 0  # missing file
    path.write_bytes(b"")
    assert repair_torn_tail(path) == 0
    path.write_bytes(b'{"a": 1}\n')
    assert repair_torn_tail(path) == 0 and path.read_bytes() == b'{"a": 1}\n'
    path.write_bytes(b'{"a": 1}\n{"b": ')
    assert repair_torn_tail(path) == 6 and path.read_bytes() == b'{"a": 1}\n'
    path.write_bytes(b'{"only": "frag')  # a torn first and only line
    assert repair_torn_tail(path) == len(b'{"only": "frag') and path.read_bytes() == b""
    big = b'{"x": "' + b"y" * 200_000  # longer than one read-back block
    path.write_bytes(b"{}\n" + big)
    assert repair_torn_tail(path) == len(big) and path.read_bytes() == b"{}\n"
