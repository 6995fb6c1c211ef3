"""The harness loop on a tiny setting with each measured harness's real process (Cline, Pi), the
real recording gateway, the real experience store and SmolLM2 trained and served on CPU: teacher
episodes succeed, their harness-format rows carry the harness's own system prompt and validate
against the tools they carry, one SFT step runs, both arms play the held-out task in the
harness and are compared from the store; a second run resumes without playing or training
again. Cline plays Wordle with the teacher calling the family's own tool (``guess``); Pi plays
TextCraft (the family by its option) with the teacher calling ``act`` with the action as text,
the last two decoder layers trained. What the models score is measured, not asserted (a 135M
model)."""

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
from agentgym_envs.spec import resolve_id
from agentgym_envs.train import harness_loop

#: The harnesses the loop is measured with, and a line of each one's own system prompt.
SYSTEM_PROMPTS = {"cline": "You are Cline", "pi": "operating inside pi, a coding agent harness"}


@pytest.fixture(scope="module", params=sorted(SYSTEM_PROMPTS))
def harness(request):
    harness = get_harness(request.param)
    if harness.locate() is None:
        message = f"{harness.title} is not installed: {harness.install_command()}"
        if os.environ.get("AGENTGYM_REQUIRE_HARNESSES") == "1":
            pytest.fail(message)
        pytest.skip(message)
    from agentgym_envs.benchmarks.local_llm import local_llm_available

    reason = local_llm_available("transformers")
    if reason:
        pytest.skip(reason)
    return harness.name


SETTINGS = {
    "train": 1,
    "heldout": 1,
    "epochs": 1,
    "max_length": 256,
    "reply_tokens": 8,
    "timeout": 120.0,  # a setting of the loop (a text-answering model runs to it), not a check
}
#: Per harness: the family, how the teacher acts, and the env tool its rows must call.
FAMILY = {
    "cline": ({"env": "Wordle-v0"}, "guess"),
    "pi": (
        {
            "env": "TextCraft-v0",
            "teacher_tool": "act",
            "max_calls": 3,
            "sft_layers": 2,
            "train_tasks": [7],
        },
        "act",
    ),
}


def _settings(name: str) -> dict:
    return {**SETTINGS, **FAMILY[name][0]}


@pytest.fixture(scope="module")
def ran(harness, tmp_path_factory):
    out = tmp_path_factory.mktemp(f"harness-loop-{harness}")
    return harness, out, harness_loop.run(out, harnesses=[harness], **_settings(harness))


def test_the_loop_runs_in_the_real_harness_and_compares_both_arms(ran):
    name, out, result = ran
    json.dumps(result)  # JSON-able, as bench_learning writes it
    entry = result["harnesses"][name]
    assert entry["teacher"]["episodes"] == entry["teacher"]["successes"] == 1
    assert entry["teacher"]["episode_seconds"]["total"] > 0
    assert entry["sft"]["rows"] == entry["sft"]["valid_rows"] == 1
    assert entry["sft"]["steps"] == 1 and entry["sft"]["loss_first"] > 0
    rows = [json.loads(line) for line in (out / name / "sft-harness.jsonl").open()]
    assert len(rows) == 1 and row_problems(rows[0]) == []
    row = rows[0]
    assert SYSTEM_PROMPTS[name] in json.dumps(row["messages"][0])
    tool = FAMILY[name][1]
    assert any(t["function"]["name"].endswith(tool) for t in row["tools"])
    env_calls = [
        c["function"]
        for m in row["messages"]
        for c in m.get("tool_calls") or []
        if "agentgym" in c["function"]["name"]
    ]
    assert env_calls and all(f["name"].endswith(tool) for f in env_calls)
    if tool == "act":  # TextCraft's actions as its text grammar spells them
        actions = [json.loads(f["arguments"])["action"] for f in env_calls]
        assert actions[0].startswith("get ") and actions[-1].startswith("craft ")
    if "train_tasks" in FAMILY[name][0]:  # the teacher played the ids it was given
        from agentgym_envs.benchmarks.agenteval import agenteval_items

        ids = {it.task_id: it.item_id for it in agenteval_items(result["env"], "train")}
        played = [r["item_id"] for r in harness_loop._done(out / name / "teacher")]
        assert played == [ids[t] for t in FAMILY[name][0]["train_tasks"]]
        assert result["settings"]["train_tasks"] == FAMILY[name][0]["train_tasks"]
    assert entry["env"] == result["env"] == resolve_id(FAMILY[name][0]["env"])
    assert row["loss"] == [m["role"] == "assistant" for m in row["messages"]]
    for arm in ("before", "after"):
        summary = entry[arm]
        assert summary["episodes"] == 1 and set(summary["outcomes"]) <= set(OUTCOMES)
        n = summary["model_calls"]
        assert summary["valid_tool_calls"] + summary["text_only"] <= n
        assert summary["valid_rate"] is None if n == 0 else 0 <= summary["valid_rate"] <= 1
    assert entry["ab"]["tasks"] == 1 and 0 <= entry["ab"]["success"]["p_value"] <= 1
    paired = entry["paired"]
    assert paired["items"] == 1 and 0 <= paired["success_p"] <= 1
    for arm in ("before", "after"):
        episode = next(iter(entry[arm]["episodes_by_item"].values()))
        assert episode["model_calls"] == entry[arm]["model_calls"]  # one episode: its calls
        assert paired[arm]["valid_call_episodes"] == (episode["valid_tool_calls"] > 0)
        low, high = paired[arm]["success_ci"]
        assert low <= paired[arm]["success"] <= high
    assert (out / name / "sft-model" / "model.safetensors").is_file()
    size = entry["first_request"]
    assert size["tools"] == len(row["tools"]) and 0 < size["tool_chars"] < size["chars"]
    assert size["tokens"] > 0 and size["system_chars"] > 0
    labels = {v["label"]: v["episodes"] for v in list_versions(open_store(out / "experience.db"))}
    assert labels == {f"{name}@teacher": 1, f"smollm2-{name}@base": 1, f"smollm2-{name}@sft": 1}


def test_a_second_run_resumes_without_playing_or_training_again(ran):
    name, out, first = ran
    again = harness_loop.run(out, harnesses=[name], **_settings(name))
    for arm in ("before", "after"):
        assert again["harnesses"][name][arm] == first["harnesses"][name][arm]
    assert again["harnesses"][name]["sft"] == first["harnesses"][name]["sft"]
    lines = (out / name / "smollm2-sft" / "agenttraj.jsonl").read_text().splitlines()
    assert len(lines) == 1


def test_a_bad_teacher_tool_is_one_line_before_any_work(tmp_path):
    with pytest.raises(ValueError, match="teacher_tool='guess': use one of family, act"):
        harness_loop.run(tmp_path, harnesses=["pi"], teacher_tool="guess")
    assert list(tmp_path.iterdir()) == []
