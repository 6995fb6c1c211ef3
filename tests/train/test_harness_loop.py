"""The harness loop on a tiny setting with the real Cline process, the real recording gateway,
the real experience store and SmolLM2 trained and served on CPU: teacher episodes succeed,
their harness-format rows validate against the tools they carry, one SFT step runs, both arms
play the held-out task in Cline and are compared from the store; a second run resumes without
playing or training again. What the models score is measured, not asserted (a 135M model)."""

from __future__ import annotations

import json
import os

import pytest

pytest.importorskip("mcp")
pytest.importorskip("torch")
pytest.importorskip("trl")
pytest.importorskip("sqlalchemy")
pytest.importorskip("jsonschema")

from agentgym_envs.core import OUTCOMES
from agentgym_envs.datasets.harness import row_problems
from agentgym_envs.experience import list_versions, open_store
from agentgym_envs.integrations.harnesses import get_harness
from agentgym_envs.train import harness_loop


@pytest.fixture(scope="module")
def cline():
    harness = get_harness("cline")
    if harness.locate() is None:
        message = f"Cline is not installed: {harness.install_command()}"
        if os.environ.get("AGENTGYM_REQUIRE_HARNESSES") == "1":
            pytest.fail(message)
        pytest.skip(message)
    from agentgym_envs.benchmarks.local_llm import local_llm_available

    reason = local_llm_available("transformers")
    if reason:
        pytest.skip(reason)
    return harness


SETTINGS = {
    "harnesses": ["cline"],
    "env": "Wordle-v0",
    "train": 1,
    "heldout": 1,
    "epochs": 1,
    "max_length": 256,
    "reply_tokens": 8,
    "timeout": 120.0,  # a setting of the loop (a text-answering model runs to it), not a check
}


@pytest.fixture(scope="module")
def ran(cline, tmp_path_factory):
    out = tmp_path_factory.mktemp("harness-loop")
    return out, harness_loop.run(out, **SETTINGS)


def test_the_loop_runs_in_the_real_harness_and_compares_both_arms(ran):
    out, result = ran
    json.dumps(result)  # JSON-able, as bench_learning writes it
    cline = result["harnesses"]["cline"]
    assert cline["teacher"]["episodes"] == cline["teacher"]["successes"] == 1
    assert cline["teacher"]["episode_seconds"]["total"] > 0
    assert cline["sft"]["rows"] == cline["sft"]["valid_rows"] == 1
    assert cline["sft"]["steps"] == 1 and cline["sft"]["loss_first"] > 0
    rows = [json.loads(line) for line in (out / "cline" / "sft-harness.jsonl").open()]
    assert len(rows) == 1 and row_problems(rows[0]) == []
    row = rows[0]
    assert "You are Cline" in json.dumps(row["messages"][0])
    assert any(t["function"]["name"].endswith("guess") for t in row["tools"])
    assert row["loss"] == [m["role"] == "assistant" for m in row["messages"]]
    for arm in ("before", "after"):
        summary = cline[arm]
        assert summary["episodes"] == 1 and set(summary["outcomes"]) <= set(OUTCOMES)
        n = summary["model_calls"]
        assert summary["valid_tool_calls"] + summary["text_only"] <= n
        assert summary["valid_rate"] is None if n == 0 else 0 <= summary["valid_rate"] <= 1
    assert cline["ab"]["tasks"] == 1 and 0 <= cline["ab"]["success"]["p_value"] <= 1
    paired = cline["paired"]
    assert paired["items"] == 1 and 0 <= paired["success_p"] <= 1
    for arm in ("before", "after"):
        episode = next(iter(cline[arm]["episodes_by_item"].values()))
        assert episode["model_calls"] == cline[arm]["model_calls"]  # one episode: its calls
        assert paired[arm]["valid_call_episodes"] == (episode["valid_tool_calls"] > 0)
        low, high = paired[arm]["success_ci"]
        assert low <= paired[arm]["success"] <= high
    assert (out / "cline" / "sft-model" / "model.safetensors").is_file()
    labels = {v["label"]: v["episodes"] for v in list_versions(open_store(out / "experience.db"))}
    assert labels == {"cline@teacher": 1, "smollm2-cline@base": 1, "smollm2-cline@sft": 1}


def test_a_second_run_resumes_without_playing_or_training_again(ran):
    out, first = ran
    again = harness_loop.run(out, **SETTINGS)
    for arm in ("before", "after"):
        assert again["harnesses"]["cline"][arm] == first["harnesses"]["cline"][arm]
    assert again["harnesses"]["cline"]["sft"] == first["harnesses"]["cline"]["sft"]
    lines = (out / "cline" / "smollm2-sft" / "agenttraj.jsonl").read_text().splitlines()
    assert len(lines) == 1
