"""``bench_learning.py --parts harness``: a harness's entry is merged into the committed
``results.json`` without touching Persona A's figures or another harness's entry, and the
harness plot is drawn from the paired figures the loop computes (:func:`harness_loop.paired`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from agentgym_envs.train.harness_loop import paired

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location(
        "bench_learning", ROOT / "benchmarks" / "bench_learning.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _arm(wins: list[bool], valid: list[int]) -> dict:
    return {
        "episodes_by_item": {
            f"wordle_{i}": {"success": w, "score": float(w), "valid_tool_calls": v}
            for i, (w, v) in enumerate(zip(wins, valid, strict=True))
        }
    }


def test_paired_figures_count_items_both_arms_played():
    before = _arm([False] * 20, [0] * 20)
    after = _arm([False] * 18 + [True, True], [0] * 5 + [2] * 15)
    after["episodes_by_item"]["wordle_99"] = {"success": True, "score": 1.0, "valid_tool_calls": 1}
    got = paired(before, after)
    assert got["items"] == 20  # wordle_99 was not played by the base model
    assert got["after"]["success"] == 0.1 and got["before"]["success"] == 0.0
    assert got["after"]["valid_call_episodes"] == 15 and got["before"]["valid_call_rate"] == 0.0
    assert got["valid_call_p"] < 0.001 < got["success_p"] == 0.5  # 15 gains vs 2 gains
    low, high = got["after"]["valid_call_ci"]
    assert low < 0.75 < high


def test_a_harness_run_merges_into_results_and_is_plotted(bench, tmp_path):
    results = {
        "families": {"AgentGym/BabyAI-v0": {"before": {"success": 0.0}}},
        "harness": {
            "env": "AgentGym/Wordle-v0",
            "settings": {"train": 16},
            "harnesses": {"kilocode": {"paired": None}},
        },
    }
    before = _arm([False] * 20, [0] * 20)
    after = _arm([False] * 20, [1] * 12 + [0] * 8)
    new = {"env": "AgentGym/Wordle-v0", "seconds": 5.0, "harnesses": {"cline": {}}}
    new["harnesses"]["cline"]["paired"] = paired(before, after)
    results["harness"] = bench.merge_harness(results["harness"], new)
    assert set(results["harness"]["harnesses"]) == {"Wordle-v0/kilocode", "Wordle-v0/cline"}
    assert results["harness"]["seconds"] == 5.0
    assert results["families"] == {"AgentGym/BabyAI-v0": {"before": {"success": 0.0}}}
    written = bench.plots({"harness": results["harness"]}, tmp_path)
    assert written == [tmp_path / "harness_loop.png"]
    assert written[0].stat().st_size > 1000


def test_another_family_keeps_the_earlier_familys_entries_and_settings(bench, tmp_path):
    """Entries written before the family was part of the key (``"pi"``, the section's env)
    become ``Wordle-v0/pi`` with their run's settings; a TextCraft run of the same harness is
    added beside them, not over them, and both are plotted."""
    wordle = {
        "env": "AgentGym/Wordle-v0",
        "settings": {"train": 16, "heldout": 20},
        "seconds_this_call": 40.6,
        "prompt_sizes": {"pi": {"tokens": 2351}},
        "harnesses": {
            "pi": {
                "paired": paired(
                    _arm([False] * 20, [0] * 20), _arm([True] + [False] * 19, [1] * 20)
                )
            }
        },
    }
    before = _arm([False] * 40, [0] * 40)
    after = _arm([True] * 8 + [False] * 32, [1] * 40)
    textcraft = {
        "env": "AgentGym/TextCraft-v0",
        "settings": {"train": 80, "heldout": 40},
        "harnesses": {"pi": {"env": "AgentGym/TextCraft-v0", "paired": paired(before, after)}},
    }
    merged = bench.merge_harness(wordle, textcraft)
    entries = merged["harnesses"]
    assert set(entries) == {"Wordle-v0/pi", "TextCraft-v0/pi"}
    assert entries["Wordle-v0/pi"]["env"] == "AgentGym/Wordle-v0"
    assert entries["Wordle-v0/pi"]["settings"] == {"train": 16, "heldout": 20}
    assert entries["Wordle-v0/pi"]["seconds_this_call"] == 40.6
    assert merged["settings"] == {"train": 80, "heldout": 40}  # the last call's, at the top
    assert merged["prompt_sizes"] == {"pi": {"tokens": 2351}}
    assert entries["TextCraft-v0/pi"]["paired"]["success_p"] < 0.01  # 8 gains, no losses
    again = bench.merge_harness(merged, textcraft)  # a re-run replaces its own entry only
    assert again["harnesses"] == entries
    assert bench.plots({"harness": again}, tmp_path) == [tmp_path / "harness_loop.png"]


def test_task_ids_take_ranges_steps_and_name_a_bad_part(bench):
    import argparse

    parser = argparse.ArgumentParser()
    assert bench.task_ids(parser, "0-3,7") == [0, 1, 2, 3, 7]
    assert bench.task_ids(parser, "0-20:6,30") == [0, 6, 12, 18, 30]
    with pytest.raises(SystemExit):
        bench.task_ids(parser, "0-x:2", "--harness-train-tasks")
