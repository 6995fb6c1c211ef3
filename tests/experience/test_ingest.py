"""Importing benchmark runs and recordings: complete, idempotent, and safe when killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import gymnasium as gym
from sqlalchemy import func, select

from agentgym_envs.experience import import_path
from agentgym_envs.experience.ingest import conversation_steps
from agentgym_envs.experience.models import Episode, Feedback, Run, Step
from tests.experience.conftest import wait_for


def _results(folder):
    return [
        json.loads(line)
        for line in (folder / "results.jsonl").read_text().splitlines()
        if line.strip()
    ]


def _consistent(store) -> tuple[int, list[int]]:
    """(episodes, ids of episodes whose steps or automatic feedback are incomplete)."""
    with store.session() as s:
        eps = s.execute(select(Episode.id, Episode.conversation)).all()
        steps = dict(
            s.execute(select(Step.episode_id, func.count(Step.id)).group_by(Step.episode_id)).all()
        )
        auto = dict(
            s.execute(
                select(Feedback.episode_id, func.count(Feedback.id))
                .where(Feedback.source == "auto", Feedback.target == "outcome")
                .group_by(Feedback.episode_id)
            ).all()
        )
    bad = [
        i for i, conv in eps if steps.get(i, 0) != len(conversation_steps(conv)) or auto.get(i) != 1
    ]
    return len(eps), bad


def test_import_bench_runs_is_complete_and_idempotent(store, bench_runs):
    records = _results(bench_runs["expert"]) + _results(bench_runs["random"])
    first = import_path(store, bench_runs["expert"].parent)
    assert first.added == len(records) + len(_results(bench_runs["babyai"]))
    assert first.skipped == 0
    again = import_path(store, bench_runs["expert"].parent)
    assert again.added == 0 and again.skipped == first.added
    n, bad = _consistent(store)
    assert n == first.added and bad == []
    with store.session() as s:
        runs = {r.name: r for r in s.scalars(select(Run))}
        assert set(runs) == {"expert", "random", "babyai"}
        assert runs["expert"].version.name == "expert" and runs["random"].version.name == "random"
        assert runs["expert"].config["policy"]["name"] == "expert"
        rec = next(
            r
            for r in records
            if r["env_id"].endswith("Maze-v0") and r["success"] and r["turns"] > 2
        )
        ep = s.scalars(
            select(Episode).where(
                Episode.run_id == runs["expert"].id, Episode.item_id == rec["item_id"]
            )
        ).one()
        assert (ep.env_id, ep.task_id, ep.seed, ep.turns, ep.score) == (
            rec["env_id"],
            rec["task_id"],
            rec["seed"],
            rec["turns"],
            rec["reward"],
        )
        assert ep.outcome == "success" and ep.wall_time == rec["wall_time"]
        assert len(ep.steps) == rec["turns"]
        # a step holds the observation it answered, the reply, and what came back
        conv = rec["conversations"]
        assert (ep.steps[0].observation, ep.steps[0].action, ep.steps[0].result) == (
            conv[2]["value"],
            conv[3]["value"],
            conv[4]["value"],
        )
        assert [f.label for f in ep.feedback] == ["good"]
        failed = s.scalars(
            select(Episode).where(Episode.run_id == runs["random"].id, Episode.success.is_(False))
        ).first()
        assert failed.outcome in ("failure", "turn_limit")
        assert [f.label for f in failed.feedback] == ["bad"]


def test_a_grown_run_imports_only_its_new_episodes(sqlite_store, bench_runs, tmp_path):
    lines = (bench_runs["expert"] / "results.jsonl").read_text().splitlines(keepends=True)
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text((bench_runs["expert"] / "run.json").read_text())
    (run / "results.jsonl").write_text("".join(lines[:5]) + lines[5][:40])  # torn last line
    assert import_path(sqlite_store, run).added == 5
    (run / "results.jsonl").write_text("".join(lines))
    r = import_path(sqlite_store, run)
    assert (r.added, r.skipped) == (len(lines) - 5, 5)


def test_import_recordings(store, tmp_path):
    from agentgym_envs import expert_policy
    from agentgym_envs.wrappers import RecordTrajectory

    path = tmp_path / "rec" / "maze.jsonl"
    env = RecordTrajectory(gym.make("AgentGym/Maze-v0"), path)
    act = expert_policy(env)
    for task in range(3):
        obs, info = env.reset(seed=task, options={"split": "test", "task_id": task})
        done = False
        while not done:
            obs, _r, term, trunc, info = env.step(act(obs, info))
            done = term or trunc
    env.close()
    with path.open("a") as f:
        f.write('{"item_id": "maze_9", "conv')  # a writer killed mid-record
    r = import_path(store, path)
    assert r.added == 3
    assert import_path(store, tmp_path / "rec").added == 0  # same file found through its folder
    with store.session() as s:
        eps = s.scalars(select(Episode).order_by(Episode.id)).all()
        assert [e.item_id for e in eps] == ["maze_0", "maze_1", "maze_2"]
        assert all(e.env_id == "AgentGym/Maze-v0" and e.split == "test" and e.success for e in eps)
        assert [e.task_id for e in eps] == [0, 1, 2]
        assert all(len(e.steps) == e.turns > 0 for e in eps)
        assert s.scalars(select(Run)).one().kind == "recording"


def test_a_killed_import_leaves_no_half_written_episode(store, bench_runs, tmp_path):
    base = _results(bench_runs["expert"])
    run = tmp_path / "big"
    run.mkdir()
    (run / "run.json").write_text((bench_runs["expert"] / "run.json").read_text())
    total = 0
    with (run / "results.jsonl").open("w") as f:
        for sample in range(30):
            for rec in base:
                f.write(json.dumps({**rec, "sample": sample}) + "\n")
                total += 1
    code = (
        "import sys\nfrom agentgym_envs.experience import open_store, import_path\n"
        "import_path(open_store(sys.argv[1]), sys.argv[2], batch_size=10)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code, store.url, str(run)], cwd=os.getcwd())
    try:
        assert wait_for(lambda: _count(store) > 0 or proc.poll() is not None, timeout=120)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    n, bad = _consistent(store)
    assert bad == []
    assert 0 < n < total, "the import finished before it could be killed"
    assert n % 10 == 0  # whole batches only
    again = import_path(store, run)
    assert (again.added, again.skipped) == (total - n, n)
    assert _consistent(store) == (total, [])


def _count(store) -> int:
    with store.session() as s:
        return s.scalar(select(func.count(Episode.id)))


def test_steps_take_their_latency_from_the_runs_per_turn_times(sqlite_store, bench_runs, tmp_path):
    base = [r for r in _results(bench_runs["expert"]) if r["turns"] > 1][:2]
    timed, untimed = base
    assert len(timed["latency"]["policy_s"]) == timed["turns"]
    timed = {**timed, "latency": {**timed["latency"], "policy_s": [0.25] * timed["turns"]}}
    untimed = {k: v for k, v in untimed.items() if k != "latency"}  # an older run's record
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text((bench_runs["expert"] / "run.json").read_text())
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in (timed, untimed)))
    assert import_path(sqlite_store, run).added == 2
    with sqlite_store.session() as s:
        eps = {e.item_id: e for e in s.scalars(select(Episode))}
        assert [st.latency for st in eps[timed["item_id"]].steps] == [0.25] * timed["turns"]
        assert {st.latency for st in eps[untimed["item_id"]].steps} == {None}
