"""``agentgym experience export sft --format harness``: Cline's real episodes (the expert as its
model, through the recording gateway) imported into the store and exported in Cline's own
format -- its system prompt, tool schemas and tool calls exactly as the gateway recorded them,
each call valid against the schema the row carries; a person's outcome label decides which
episodes are exported."""

from __future__ import annotations

import json
import os

import pytest

pytest.importorskip("mcp")
jsonschema = pytest.importorskip("jsonschema")

from typer.testing import CliRunner

from agentgym_envs.agents.harness_expert import HarnessExpertServer
from agentgym_envs.cli import app
from agentgym_envs.experience import add_feedback, import_path, open_store, select_episodes
from agentgym_envs.experience.harness_data import export_harness_sft
from agentgym_envs.integrations.harnesses import get_harness, run_harness

ENV = "AgentGym/Wordle-v0"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    harness = get_harness("cline")
    if harness.locate() is None:
        message = f"Cline is not installed: {harness.install_command()}"
        if os.environ.get("AGENTGYM_REQUIRE_HARNESSES") == "1":
            pytest.fail(message)
        pytest.skip(message)
    out = tmp_path_factory.mktemp("cline-runs")
    with HarnessExpertServer([ENV]) as expert:
        results = [run_harness("cline", ENV, t, expert.base_url, out=out) for t in (0, 1)]
    assert [r.outcome for r in results] == ["success", "success"]
    return out


def test_exported_rows_keep_clines_format_and_validate_against_their_tools(recorded, tmp_path):
    db = str(tmp_path / "store.db")
    store = open_store(db)
    import_path(store, recorded / "agenttraj.jsonl", version="cline@expert")
    target = tmp_path / "sft.jsonl"
    runner = CliRunner()
    done = runner.invoke(
        app,
        ["experience", "export", "sft", "--format", "harness", "-o", str(target), "--db", db],
    )
    assert done.exit_code == 0, done.output
    assert "2 harness-format sft records" in done.output
    rows = [json.loads(line) for line in target.open()]
    chats = {c["session"]: c for c in map(json.loads, (recorded / "chat.jsonl").open())}
    assert len(rows) == 2
    for row in rows:
        chat = chats[row["session"]]
        assert row["messages"] == chat["messages"] and row["tools"] == chat["tools"]
        assert "You are Cline" in json.dumps(row["messages"][0])
        assert row["monotonic"] in (True, False) and row["success"] is True
        schemas = {t["function"]["name"]: t["function"]["parameters"] for t in row["tools"]}
        calls = [c for m in row["messages"] for c in m.get("tool_calls") or []]
        assert calls
        for call in calls:  # each call as sent: a JSON string of arguments valid for its tool
            args = json.loads(call["function"]["arguments"])
            jsonschema.validate(args, schemas[call["function"]["name"]])
        assert [m["role"] == "assistant" for m in row["messages"]] == row["loss"]


def test_a_persons_label_decides_what_is_exported(recorded, tmp_path):
    store = open_store(tmp_path / "store.db")
    import_path(store, recorded / "agenttraj.jsonl", version="cline@expert")
    first = select_episodes(store, versions=["cline@expert"])[0]
    add_feedback(store, first, label="bad", comment="solved by luck", author="reviewer")
    rows = export_harness_sft(store, tmp_path / "sft.jsonl", versions=["cline@expert"])
    assert [r["episode_id"] for r in rows] != [] and first not in [r["episode_id"] for r in rows]
    assert len(export_harness_sft(store, include_failed=True)) == 2


def test_bad_formats_are_one_line_errors(tmp_path):
    runner = CliRunner()
    db = str(tmp_path / "s.db")
    out = str(tmp_path / "x.jsonl")
    bad = runner.invoke(
        app, ["experience", "export", "dpo", "--format", "harness", "-o", out, "--db", db]
    )
    # the console entry point prints the error's one line (agentgym_envs.cli.main)
    assert bad.exit_code != 0 and "--format harness is for sft exports" in str(bad.exception)
    odd = runner.invoke(
        app, ["experience", "export", "sft", "--format", "chat", "-o", out, "--db", db]
    )
    assert odd.exit_code != 0 and "use agenttraj (the default) or harness" in str(odd.exception)
