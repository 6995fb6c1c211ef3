"""``agentgym train`` end to end on a tiny model: every stage with TRL's own trainers, the
held-out split kept apart, a finished stage never redone, a killed one resumed, bad input
refused in one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentgym_envs.train.folder import RESULTS_FILE
from agentgym_envs.train.pipeline import run_stages
from agentgym_envs.train.settings import TrainSettings

#: Seeded random mazes: the test split's mazes are not the train split's.
HELD_OUT_ENV = "AgentGym/MazeRandom-v0"
SMALL = dict(
    envs=(HELD_OUT_ENV,),
    train_items=6,
    eval_items=5,
    max_rounds=20,
    max_tokens=3,
    sft_epochs=1.0,
    sft_lr=3e-3,
    sft_batch=3,
    sft_layers=0,
    rl_steps=2,
    rl_generations=2,
    rl_lr=1e-4,
)


def _lines(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / RESULTS_FILE).read_text().splitlines()]


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


@pytest.fixture(scope="module")
def small_run(tiny_model, tmp_path_factory):
    out = tmp_path_factory.mktemp("train") / "run"
    settings = TrainSettings(model=str(tiny_model), **SMALL)
    lines = run_stages(out, settings, "all", concurrency=2)
    return out, settings, lines


def test_every_stage_runs_writes_its_line_and_checkpoint(small_run) -> None:
    out, settings, lines = small_run
    labels = [line["label"] for line in lines]
    assert labels == ["eval:base", "collect", "sft", "eval:sft", "rl", "eval:rl"]
    assert all(line["fingerprint"] == settings.fingerprint() for line in lines)
    for stage in ("sft", "rl"):
        assert (out / stage / "model" / "config.json").is_file()
    assert (out / "collect" / "trajectories.jsonl").is_file()
    by = {line["label"]: line for line in lines}
    assert by["sft"]["steps"] > 0 and by["sft"]["loss_first"] is not None
    assert by["rl"]["steps"] == settings.rl_steps
    assert len(by["rl"]["reward_per_step"]) == settings.rl_steps
    for label in ("eval:base", "eval:sft", "eval:rl"):
        summary = by[label]["envs"][HELD_OUT_ENV]
        assert summary["n"] == settings.eval_items
        lo, hi = summary["success_ci"]
        assert 0.0 <= lo <= summary["success"] <= hi <= 1.0
    # the same call again finds every stage finished and redoes none
    again = run_stages(out, settings, "all", concurrency=2)
    assert [line["finished"] for line in again] == [line["finished"] for line in lines]
    assert len(_lines(out)) == len(lines)


def test_eval_never_sees_the_items_training_played(small_run) -> None:
    out, settings, _ = small_run
    trained = _jsonl(out / "collect" / "bench" / "results.jsonl")
    assert trained and {r["split"] for r in trained} == {"train"}
    rl_tasks = {t for line in _jsonl(out / "rl" / "steps.jsonl") for t in line["tasks"]}
    assert rl_tasks
    for model in ("base", "sft", "rl"):
        scored = _jsonl(out / "eval" / model / "results.jsonl")
        assert len(scored) == settings.eval_items and {r["split"] for r in scored} == {"test"}
        assert not {r["item_id"] for r in scored} & {r["item_id"] for r in trained}
        # not only other ids: other tasks (the mazes the model saw first differ)
        first = {r["conversations"][2]["value"] for r in scored}
        seen = {r["conversations"][2]["value"] for r in trained}
        assert not first & seen
    from agentgym_envs.train.rl import task_rows

    assert {row["split"] for row in task_rows(settings)} == {"train"}


def test_a_trivially_learnable_task_scores_higher_after_training(tiny_model, tmp_path) -> None:
    # Maze-v0 is one fixed maze: the move of each cell, cloned from the expert, solves it
    settings = TrainSettings(
        envs=("AgentGym/Maze-v0",),
        model=str(tiny_model),
        train_items=25,
        eval_items=12,
        max_rounds=12,
        max_tokens=3,
        sft_epochs=20.0,
        sft_lr=3e-3,
        sft_batch=5,
        sft_layers=0,
    )
    lines = run_stages(tmp_path / "run", settings, "collect,sft,eval")
    by = {x["label"]: x["envs"]["AgentGym/Maze-v0"] for x in lines if x["stage"] == "eval"}
    assert by["eval:sft"]["success"] > by["eval:base"]["success"]
    assert by["eval:sft"]["score"] > by["eval:base"]["score"]


def _cli(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agentgym_envs.cli", "train", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _small_args(model: Path, **change) -> list[str]:
    values = {**SMALL, **change}
    args = ["--model", str(model), "--env", HELD_OUT_ENV, "--no-progress"]
    for key, value in values.items():
        if key != "envs":
            args += [f"--{key.replace('_', '-')}", str(value)]
    return args


def test_a_killed_stage_resumes_without_redoing_or_mixing(tiny_model, tmp_path) -> None:
    out = tmp_path / "run"
    # many epochs, so the trainer has saved a checkpoint well before the stage ends
    args = ["run", str(out), "--stages", "collect,sft", *_small_args(tiny_model, sft_epochs=40)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentgym_envs.cli", "train", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    trainer = out / "sft" / "trainer"
    try:
        while proc.poll() is None and not list(trainer.glob("checkpoint-*/trainer_state.json")):
            time.sleep(0.2)
        assert proc.poll() is None, "the stage ended before it could be killed"
        time.sleep(0.5)  # let the checkpoint be written whole
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert [line["label"] for line in _lines(out)] == ["collect"]
    collected = (out / "collect" / "bench" / "results.jsonl").read_text()
    assert not (out / "sft" / "model").exists()

    settings = TrainSettings(model=str(tiny_model), **{**SMALL, "sft_epochs": 40.0})
    lines = run_stages(out, settings, "collect,sft")
    assert [line["label"] for line in lines] == ["collect", "sft"]
    assert lines[1]["resumed_from"] and "checkpoint-" in lines[1]["resumed_from"]
    assert (out / "collect" / "bench" / "results.jsonl").read_text() == collected
    assert (out / "sft" / "model" / "config.json").is_file()


def test_other_settings_in_the_same_folder_are_one_line_with_the_mend(tiny_model, tmp_path):
    out = tmp_path / "run"
    settings = TrainSettings(model=str(tiny_model), **SMALL)
    run_stages(out, settings, "collect")
    proc = _cli("run", str(out), "--stages", "collect", *_small_args(tiny_model, train_items=7))
    assert proc.returncode == 2, proc.stderr
    line = proc.stderr.strip()
    assert "\n" not in line and "train_items: 6 -> 7" in line and "another --out folder" in line


def test_missing_checkpoint_unknown_stage_and_env_are_one_line(tiny_model, tmp_path) -> None:
    proc = _cli("run", str(tmp_path / "a"), "--stages", "rl", *_small_args(tiny_model))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "--stages sft,rl" in proc.stderr

    proc = _cli("run", str(tmp_path / "b"), "--stages", "sfft")
    assert proc.returncode == 2
    assert proc.stderr.strip() == "error: unknown stage 'sfft': did you mean 'sft'?"

    proc = _cli("run", str(tmp_path / "c"), "--env", "AgentGym/BabyIA-v0")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "did you mean 'AgentGym/BabyAI-v0'" in proc.stderr

    proc = _cli("run", str(tmp_path / "d"), "--model", str(tmp_path / "nothing"))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "not a checkpoint folder" in proc.stderr


def test_every_played_episode_is_in_the_runs_experience_store(small_run) -> None:
    from agentgym_envs.experience import list_versions, open_store

    out, settings, lines = small_run
    by = {line["label"]: line for line in lines}
    played = sum(by["collect"]["played"].values())
    assert by["collect"]["store"] == {"version": "expert@collect", "added": played, "skipped": 0}
    name = settings.model.rstrip("/").rsplit("/", 1)[-1]
    for stage in ("base", "sft", "rl"):
        assert by[f"eval:{stage}"]["store"]["version"] == f"{name}@{stage}"
        assert by[f"eval:{stage}"]["store"]["added"] == settings.eval_items
    store = open_store(out / "experience.db")
    try:
        versions = {v["label"]: v for v in list_versions(store)}
    finally:
        store.close()
    assert versions["expert@collect"]["episodes"] == played
    assert versions[f"{name}@base"]["parent"] is None
    assert versions[f"{name}@sft"]["parent"] == f"{name}@base"
    assert versions[f"{name}@rl"]["parent"] == f"{name}@sft"
    for stage in ("base", "sft", "rl"):
        v = versions[f"{name}@{stage}"]
        assert v["episodes"] == settings.eval_items
        assert v["success_rate"] == by[f"eval:{stage}"]["envs"][HELD_OUT_ENV]["success"]
