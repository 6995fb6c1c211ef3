"""The ReAct example script runs and wins its episode."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import gymnasium as gym

import agentgym_envs  # noqa: F401  (registers the ids)

ROOT = Path(__file__).resolve().parents[2]


def test_react_episode_example(tmp_path: Path) -> None:
    out = tmp_path / "episodes.jsonl"
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples" / "react_episode.py"),
            "--task",
            "2",
            "--record",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    # the scripted model's first reply has no Action: line; AgentGym's Wordle client sends it
    # whole as the guess, which the game rejects
    assert "\ninvalid word" in result.stdout
    assert "end: terminated; success=True score=1.0" in result.stdout
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    env = gym.make("AgentGym/Wordle-v0")
    env.reset(options={"split": "test", "task_id": 2})
    assert record["item_id"] == env.unwrapped.item_id and record["success"] is True
