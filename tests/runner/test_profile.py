"""Profiles: the documented example validates; bad keys are one-line errors naming the key;
command-line options override the profile."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agentgym_envs.runner import ProfileError, load_profile, parse_profile, plan_field
from agentgym_envs.runner.catalog import battery_ids
from agentgym_envs.runner.cli import _profile

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "profile.yaml"


def test_example_profile_validates_and_plans():
    profile = load_profile(EXAMPLE)
    assert [e.label for e in profile.model.endpoints] == ["tensorzero", "ollama", "local"]
    assert profile.max_rounds == 15 and profile.max_seconds == 300
    assert {s.type for s in profile.sinks} == {"jsonl", "nats"}
    plans = {p.env_id: p for p in plan_field(profile)}
    assert set(battery_ids("lightweight")) < set(plans)
    assert len(plans["AgentGym/SciWorld-v0"].items) == 2
    assert plans["AgentGym/SciWorld-v0"].max_rounds == 30
    assert plans["AgentGym/SciWorld-v0"].category == "heavy"
    assert [it.task_id for it in plans["AgentGym/WebShop-v0"].items] == [0, 5, 9]
    smoke = plan_field(profile, ["smoke"])
    assert [p.short for p in smoke] == ["BabyAI-v0", "TextCraft-v0", "Maze-v0", "Wordle-v0"]


def test_defaults_are_agentgyms_field_setup():
    profile = parse_profile({})
    assert (profile.max_rounds, profile.max_seconds, profile.repeat) == (15, 300.0, 1)
    assert [p.max_rounds for p in plan_field(profile, ["Wordle"])] == [15]
    family = parse_profile({"max_rounds": "family"})
    assert [p.max_rounds for p in plan_field(family, ["Wordle"])] == [8]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"max_rounds": 0}, "p.yaml: max_rounds: use a number >= 1 or 'family'"),
        ({"repeat": "lots"}, "p.yaml: repeat: Input should be a valid integer"),
        ({"envs": ["Maze", {"id": "Wordle", "episodes": 0}]}, "p.yaml: envs[1].episodes:"),
        ({"model": {"policy": "openai"}}, "p.yaml: model: policy openai needs endpoints"),
        ({"model": {"endpoints": [{"base_url": "localhost:1"}]}}, "p.yaml: model.endpoints[0]:"),
        ({"sinks": [{"type": "webhook"}]}, "p.yaml: sinks[0].url: Field required"),
        ({"sinks": [{"type": "nats", "servrs": []}]}, "p.yaml: sinks[0].servrs: unknown key"),
        ({"concurency": 2}, "p.yaml: concurency: unknown key"),
    ],
)
def test_invalid_profile_is_one_line_naming_the_key(data, message):
    with pytest.raises(ProfileError) as err:
        parse_profile(data, "p.yaml")
    text = str(err.value)
    assert text.startswith(message) and "\n" not in text


def test_cli_reports_a_bad_profile_in_one_line_with_exit_code_2(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("model:\n  policy: expert\n  temperature: hot\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "agentgym_envs.cli", "run", "--config", str(bad), "--dry-run"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 2
    expected = "error: bad.yaml: model.temperature: Input should be a valid number"
    assert proc.stderr.strip().splitlines() == [f"{expected}, unable to parse string as a number"]


def test_toml_profile_and_command_line_overrides(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text(
        'name = "t"\nrepeat = 2\nepisodes = 4\nenvs = ["Maze"]\n'
        '[model]\npolicy = "openai"\nname = "m"\n'
        '[[model.endpoints]]\nname = "ollama"\nbase_url = "http://127.0.0.1:11434/v1"\n',
        encoding="utf-8",
    )
    profile = load_profile(path)
    assert profile.repeat == 2 and profile.model.endpoints[0].label == "ollama"
    options = {
        "config": str(path),
        "repeat": 3,
        "episodes": None,
        "base_url": "http://127.0.0.1:3000/openai/v1",
        "model": "other",
        "out": str(tmp_path / "o"),
    }
    merged = _profile(options)
    assert (merged.repeat, merged.episodes, merged.model.name) == (3, 4, "other")
    assert [e.label for e in merged.model.endpoints] == [
        "command line",
        "ollama",
    ]  # the command line's endpoint is tried first
    assert merged.output == str(tmp_path / "o")


def test_unparseable_profile_is_one_line(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("envs: [Maze\nrepeat: 2\n", encoding="utf-8")
    with pytest.raises(ProfileError) as err:
        load_profile(path)
    assert str(err.value).startswith("p.yaml: cannot parse:") and "\n" not in str(err.value)
