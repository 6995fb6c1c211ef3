"""The BabyAI + TextCraft example runs and ends both episodes with success."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("minigrid")
pytest.importorskip("minecraft_data")

ROOT = Path(__file__).resolve().parents[3]


def test_example_runs_and_both_experts_succeed():
    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples" / "babyai_textcraft.py"),
            "--babyai-item",
            "0",
            "--textcraft-task",
            "5",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout
    assert "AgentGym item babyai_0" in out and "Your goal: go to the red ball" in out
    assert "Goal: craft " in out
    assert out.count("success True") == 2
