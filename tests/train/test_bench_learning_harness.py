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
        "harness": {"env": "AgentGym/Wordle-v0", "harnesses": {"kilocode": {"paired": None}}},
    }
    before = _arm([False] * 20, [0] * 20)
    after = _arm([False] * 20, [1] * 12 + [0] * 8)
    new = {"env": "AgentGym/Wordle-v0", "seconds": 5.0, "harnesses": {"cline": {}}}
    new["harnesses"]["cline"]["paired"] = paired(before, after)
    results["harness"] = bench.merge_harness(results["harness"], new)
    assert set(results["harness"]["harnesses"]) == {"kilocode", "cline"}
    assert results["harness"]["seconds"] == 5.0
    assert results["families"] == {"AgentGym/BabyAI-v0": {"before": {"success": 0.0}}}
    written = bench.plots({"harness": results["harness"]}, tmp_path)
    assert written == [tmp_path / "harness_loop.png"]
    assert written[0].stat().st_size > 1000
