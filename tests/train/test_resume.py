"""An ``agentgym train`` process stopped mid-stage -- SIGKILL (nothing runs on the way out) and
Ctrl-C (SIGINT) -- resumes: the episodes and trainer steps it finished are kept and not played
again, the unfinished stage picks up from them, and a resume with other settings is refused
before it can mix two runs in one folder. Real processes, real signals, the tiny model."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from agentgym_envs.train.folder import RESULTS_FILE
from agentgym_envs.train.pipeline import run_stages
from agentgym_envs.train.settings import TrainSettings

from .test_train import HELD_OUT_ENV, SMALL, _small_args


def _start(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "agentgym_envs.cli", "train", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _wait_until(proc: subprocess.Popen, ready) -> None:
    """Poll until ``ready()``; the stage must still be running then (else the test is moot)."""
    while proc.poll() is None and not ready():
        time.sleep(0.1)
    assert proc.poll() is None, "the stage ended before it could be stopped"


def _kill(proc: subprocess.Popen, sig: int) -> str:
    try:
        os.killpg(proc.pid, sig)
        _, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return err


def _labels(out: Path) -> list[str]:
    file = out / RESULTS_FILE
    if not file.is_file():
        return []
    return [json.loads(x)["label"] for x in file.read_text().splitlines() if x.strip()]


def _whole_lines(path: Path) -> list[str]:
    """The complete lines of a file a kill may have cut mid-line."""
    text = path.read_text() if path.is_file() else ""
    return text[: text.rfind("\n") + 1].splitlines()


def test_sigkill_mid_eval_keeps_the_played_episodes_and_plays_only_the_rest(tiny_model, tmp_path):
    out = tmp_path / "run"
    eval_items = 16
    args = _small_args(tiny_model, eval_items=eval_items)
    proc = _start("run", str(out), "--stages", "eval", "--concurrency", "1", *args)
    episodes = out / "eval" / "base" / "results.jsonl"
    _wait_until(proc, lambda: len(_whole_lines(episodes)) >= 2)
    _kill(proc, signal.SIGKILL)
    played = _whole_lines(episodes)
    assert 2 <= len(played) < eval_items
    assert _labels(out) == []  # the stage is not finished: no line for it

    # another settings fingerprint in the same folder is refused, and touches nothing
    other = _start("run", str(out), "--stages", "eval", *_small_args(tiny_model, eval_items=17))
    _, err = other.communicate(timeout=600)
    assert other.returncode == 2 and err.count("\n") == 1
    assert "eval_items: 16 -> 17" in err and "another --out folder" in err
    assert _whole_lines(episodes) == played

    settings = TrainSettings(model=str(tiny_model), **{**SMALL, "eval_items": eval_items})
    lines = run_stages(out, settings, "eval", concurrency=1)
    assert [line["label"] for line in lines] == ["eval:base"]
    assert lines[0]["resumed_episodes"] == len(played)  # found done, not played again
    after = _whole_lines(episodes)
    assert after[: len(played)] == played  # the killed process's episodes, byte for byte
    items = [json.loads(x)["item_id"] for x in after]
    assert len(items) == eval_items == len(set(items))  # every item once, none twice
    assert lines[0]["envs"][HELD_OUT_ENV]["n"] == eval_items


def test_ctrl_c_mid_sft_says_how_to_resume_and_the_rerun_continues_from_the_saved_step(
    tiny_model, tmp_path
):
    out = tmp_path / "run"
    args = ["run", str(out), "--stages", "collect,sft", *_small_args(tiny_model, sft_epochs=40)]
    proc = _start(*args)
    trainer = out / "sft" / "trainer"
    _wait_until(proc, lambda: list(trainer.glob("checkpoint-*/trainer_state.json")))
    time.sleep(0.5)  # let the checkpoint be written whole
    err = _kill(proc, signal.SIGINT)
    assert proc.returncode == 130, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: interrupted") and "run the same command again" in last
    assert _labels(out) == ["collect"]
    collect_line = (out / RESULTS_FILE).read_text()
    collected = (out / "collect" / "bench" / "results.jsonl").read_text()
    assert not (out / "sft" / "model").exists()

    again = subprocess.run(
        [sys.executable, "-m", "agentgym_envs.cli", "train", *args],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert again.returncode == 0, again.stderr
    lines = [json.loads(x) for x in (out / RESULTS_FILE).read_text().splitlines()]
    assert [line["label"] for line in lines] == ["collect", "sft"]
    assert (out / RESULTS_FILE).read_text().startswith(collect_line)  # collect not redone
    assert (out / "collect" / "bench" / "results.jsonl").read_text() == collected
    sft = lines[1]
    assert sft["resumed_at_step"] > 0 and "checkpoint-" in sft["resumed_from"]
    assert sft["steps"] > sft["resumed_at_step"]
    assert (out / "sft" / "model" / "config.json").is_file()


def test_sigkill_mid_rl_resumes_from_the_last_saved_step(tiny_model, tmp_path) -> None:
    out = tmp_path / "run"
    change = {"rl_steps": 4}
    settings = TrainSettings(model=str(tiny_model), **{**SMALL, **change})
    run_stages(out, settings, "collect,sft")
    proc = _start("run", str(out), "--stages", "rl", *_small_args(tiny_model, **change))
    trainer = out / "rl" / "trainer"
    _wait_until(proc, lambda: list(trainer.glob("checkpoint-*/trainer_state.json")))
    time.sleep(0.5)
    _kill(proc, signal.SIGKILL)
    assert _labels(out) == ["collect", "sft"]
    saved = max(int(p.parent.name.split("-")[-1]) for p in trainer.glob("checkpoint-*/trainer_*"))

    lines = run_stages(out, settings, "rl")
    rl = lines[-1]
    assert rl["label"] == "rl" and rl["steps"] == settings.rl_steps
    assert rl["resumed_from"].endswith(f"checkpoint-{saved}")
    assert len(rl["reward_per_step"]) == settings.rl_steps  # one figure per step, none twice
    assert _labels(out) == ["collect", "sft", "rl"]
