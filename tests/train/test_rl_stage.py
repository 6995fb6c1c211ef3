"""The ``rl`` stage's GRPO with dynamic sampling, on the tiny model with TRL's own trainer:
a group whose rewards are all alike is set aside and another train task's group played in its
place (bounded, counted), several groups a step, every step's reward written down."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest

from agentgym_envs.train.folder import RunFolder
from agentgym_envs.train.settings import TrainError, TrainSettings

from .test_train import HELD_OUT_ENV as ENV
from .test_train import SMALL

#: test_train's small run, shorter episodes, two groups a step and room for three redraws.
TINY = {**SMALL, "train_items": 4, "eval_items": 2, "max_rounds": 2, "rl_tasks": 2, "rl_redraws": 3}


def _steps(folder: Path) -> list[dict]:
    return [json.loads(x) for x in (folder / "rl" / "steps.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def rl_run(tiny_model, tmp_path_factory):
    from agentgym_envs.train import rl

    settings = TrainSettings(model=str(tiny_model), **TINY)
    out = tmp_path_factory.mktemp("rl") / "run"
    with RunFolder(out, settings) as folder:
        figures = rl.run(folder, Path(tiny_model))
        path = folder.path
    return settings, path, figures


def test_groups_without_reward_spread_are_set_aside_and_replaced(rl_run) -> None:
    settings, out, figures = rl_run
    steps = _steps(out)
    assert [s["step"] for s in steps] == [1, 2]
    size = settings.rl_generations
    for line in steps:
        groups = line["groups"]
        kept = [g for g in groups if g["kept"]]
        aside = [g for g in groups if not g["kept"]]
        # the trainer gets rl_tasks groups a step, whatever was set aside on the way
        assert len(kept) == settings.rl_tasks
        assert line["groups_set_aside"] == len(aside) <= settings.rl_redraws
        assert line["episodes"] == size * len(groups) == len(line["rewards"])
        for group in groups:
            assert len(group["rewards"]) == size
        # only a group whose rewards are all alike is set aside...
        for group in aside:
            assert len(set(group["rewards"])) == 1
        # ...and one is kept without spread only once the step's redraws are spent
        if any(len(set(g["rewards"])) == 1 for g in kept):
            assert len(aside) == settings.rl_redraws
        # every group set aside was replaced by another train task of the same env
        tasks = [g["task"] for g in groups]
        assert all(t.startswith(f"{ENV}#") for t in tasks)
        for before, after in pairwise(groups):
            if not before["kept"]:
                assert after["task"] != before["task"]
    assert figures["steps"] == settings.rl_steps
    assert figures["episodes"] == sum(s["episodes"] for s in steps)
    assert figures["groups_set_aside_per_step"] == [s["groups_set_aside"] for s in steps]
    assert (out / "rl" / "model" / "config.json").is_file()


def test_every_step_records_its_train_reward(rl_run) -> None:
    settings, out, figures = rl_run
    steps = _steps(out)
    assert len(figures["reward_per_step"]) == settings.rl_steps
    for line, reward in zip(steps, figures["reward_per_step"], strict=True):
        valid = [r for r in line["rewards"] if r is not None]
        assert reward == pytest.approx(sum(valid) / len(valid))
        assert 0.0 <= line["success"] <= 1.0
        trained = [r for g in line["groups"] if g["kept"] for r in g["rewards"] if r is not None]
        assert line["reward_trained"] == pytest.approx(sum(trained) / len(trained), abs=1e-3)


def test_redraws_come_from_train_tasks_the_dataset_does_not_hold(tiny_model) -> None:
    from agentgym_envs.train.rl import redraw_rows, task_rows

    settings = TrainSettings(model=str(tiny_model), **TINY)
    rows, pool = task_rows(settings), redraw_rows(settings)
    assert len(rows) == settings.rl_steps * settings.rl_tasks
    assert len(pool[ENV]) == settings.rl_steps * settings.rl_redraws
    ids = [r["task_id"] for r in rows] + [r["task_id"] for r in pool[ENV]]
    assert len(set(ids)) == len(ids)
    assert {r["split"] for r in [*rows, *pool[ENV]]} == {"train"}
    assert redraw_rows(TrainSettings(model=str(tiny_model), **{**TINY, "rl_redraws": 0})) == {}


def test_scaling_inter_grows_the_turn_limit_over_the_steps(tiny_model, tmp_path) -> None:
    from agentgym_envs.train import rl

    settings = TrainSettings(
        model=str(tiny_model),
        **{**TINY, "max_rounds": 3, "rl_steps": 3, "rl_tasks": 1, "rl_redraws": 0},
        curriculum="scaling-inter",
    )
    with RunFolder(tmp_path / "run", settings) as folder:
        figures = rl.run(folder, Path(tiny_model))
        steps = _steps(folder.path)
    # ScalingInter-RL's three stages up to max_rounds, one step each, the first one included
    assert figures["max_turns_per_step"] == [1, 2, 3]
    assert [s["max_turns"] for s in steps] == [1, 2, 3]


def test_bad_rl_group_settings_are_refused_with_the_mend() -> None:
    with pytest.raises(TrainError, match="rl_tasks=0: use 1 or more"):
        TrainSettings(rl_tasks=0)
    with pytest.raises(TrainError, match="rl_redraws=-1: use 0 or more"):
        TrainSettings(rl_redraws=-1)
