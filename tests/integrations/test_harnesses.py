"""The pre-built harnesses, each run as its real process against our recording gateway and MCP
server: with the family's expert as the model, every harness reaches the expert's success on a
game (Wordle) and a tool family (Weather), and the recorded trajectory is the harness's own
(its system prompt, its tools, its names for ours), scored by the env. A harness that is not
installed is skipped with its install command, or fails the test when
``AGENTGYM_REQUIRE_HARNESSES=1`` (CI installs them all: ``.ci/run``). A harness that dies or hangs mid-episode ends
it as env_error / time_limit with reward_valid false; bad names are one-line errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading

import gymnasium as gym
import pytest

pytest.importorskip("mcp")
pytest.importorskip("uvicorn")

from agentgym_envs.agents.harness_expert import HarnessExpertServer, _unwrap
from agentgym_envs.datasets.harness import harness_sft_row, row_problems
from agentgym_envs.integrations.harnesses import get_harness, names
from agentgym_envs.integrations.harnesses.cline import Cline
from agentgym_envs.integrations.harnesses.install import missing_prerequisite
from agentgym_envs.integrations.harnesses.runner import run_harness
from agentgym_envs.integrations.sandbox.view import python_prefixes

#: A game and a tool family, with tasks the expert solves in a few steps.
FAMILIES = [("AgentGym/Wordle-v0", 0, 3), ("AgentGym/Weather-v0", 0, 5)]
#: How each harness's own system prompt introduces it.
SIGNATURES = {
    "cline": "You are Cline",
    "kilocode": "You are Kilo",
    "openhands": "OpenHands",
    "hermes-agent": "Hermes",
    "openclaw": "OpenClaw",
    "qwen-code": "You are Qwen Code",
    "opencode": "You are opencode",
    "pi": "operating inside pi",
    "claude-code": "Claude Agent SDK",
    "codex": "running in the Codex CLI",
}


def _searched(chat):
    """Tool names a harness's tool search returned (OpenClaw's deferred tools)."""
    return [
        name
        for m in chat["messages"]
        if m["role"] == "tool"
        for name in re.findall(r"[\w.:-]*agentgym[\w.:-]*", json.dumps(m["content"]))
    ]


def installed(name: str):
    harness = get_harness(name)
    if harness.locate() is None:
        missing = f"{harness.title} is not installed: {harness.install_command()}"
        lacking = missing_prerequisite(harness)
        if os.environ.get("AGENTGYM_REQUIRE_HARNESSES") == "1" and lacking is None:
            pytest.fail(f"{missing} (AGENTGYM_REQUIRE_HARNESSES=1: run agentgym harness install)")
        pytest.skip(f"{missing} ({lacking})" if lacking else missing)
    return harness


@pytest.fixture(scope="module")
def expert():
    with HarnessExpertServer([env_id for env_id, _, _ in FAMILIES]) as server:
        yield server


def _item_id(env_id, task):
    env = gym.make(env_id)
    env.reset(options={"task_id": task, "split": "test"})
    item = env.unwrapped.item_id
    env.close()
    return item


def _records(out):
    return {
        name: json.loads((out / f"{name}.jsonl").read_text().splitlines()[-1])
        for name in ("agenttraj", "chat", "sft")
    }


@pytest.mark.parametrize("env_id,task,steps", FAMILIES, ids=lambda v: str(v).split("/")[-1])
@pytest.mark.parametrize("name", names())
def test_harness_reaches_the_experts_success(name, env_id, task, steps, expert, tmp_path):
    harness = installed(name)
    result = run_harness(harness, env_id, task, expert.base_url, out=tmp_path, timeout=600)
    assert (result.outcome, result.success, result.reward, result.reward_valid) == (
        "success",
        True,
        1.0,
        True,
    ), result.error
    assert result.env_steps == steps
    assert result.tokens["prompt_tokens"] > 0 and result.model_calls > steps - 1
    records = _records(tmp_path)
    traj, chat = records["agenttraj"], records["chat"]
    assert traj["item_id"] == _item_id(env_id, task)
    assert traj["harness"] == name and traj["outcome"] == "success" and traj["reward"] == 1.0
    # the harness's own prompt and tools, with ours among them under its names
    system = next(m for m in chat["messages"] if m["role"] == "system")
    assert SIGNATURES[name] in json.dumps(system["content"])
    offered = [t["function"]["name"] for t in chat["tools"]]
    assert [n for n in offered if "agentgym" not in n]  # the harness's own tools
    # the env's tools, called under the harness's names for them (directly or by name)
    called = [
        _unwrap(c)[0]
        for m in chat["messages"]
        if m["role"] == "assistant"
        for c in m.get("tool_calls") or []
    ]
    ours = [n for n in called if "agentgym" in n]
    assert len(ours) == steps and set(ours) <= set(offered) | set(_searched(chat))
    assert "The episode has already started" in traj["conversations"][0]["value"]
    assert records["sft"]["reward"] == 1.0 and any(records["sft"]["loss_mask"])
    # the harness-format SFT row: its tool calls valid against the schemas it carries
    assert row_problems(harness_sft_row(chat)) == []
    assert os.path.getsize(result.log) > 0


class _CrashingCline(Cline):
    """The real Cline, killed (SIGKILL) as soon as the gateway has recorded its first model call
    (on an idle machine Cline plays the whole Wordle task within 0.15 s: the watcher polls every
    5 ms so that the kill lands before the third guess)."""

    def command(self, episode, executable):
        killer = (
            "import os, signal, subprocess, sys, time\n"
            "log, cmd = sys.argv[1], sys.argv[2:]\n"
            "p = subprocess.Popen(cmd)\n"
            "while p.poll() is None:\n"
            "    if os.path.exists(log) and os.path.getsize(log) > 0:\n"
            "        p.send_signal(signal.SIGKILL); p.wait(); os._exit(137)\n"
            "    time.sleep(0.005)\n"
            "sys.exit(p.returncode)\n"
        )
        return [
            sys.executable,
            "-c",
            killer,
            self._log(episode),
            *super().command(episode, executable),
        ]

    def _log(self, episode):
        session = episode.model_url.split("/s/")[1].split("/")[0]
        return str(self.out / "sessions" / f"{session}.jsonl")

    def sandbox_paths(self, episode, executable):
        # the watcher's Python and the gateway's session log, read-only in the sandbox
        (self.out / "sessions").mkdir(parents=True, exist_ok=True)
        watcher = [*python_prefixes(sys.executable), self.out / "sessions"]
        return [*super().sandbox_paths(episode, executable), *watcher]


def test_harness_killed_mid_episode_is_an_env_error(expert, tmp_path):
    installed("cline")
    crashing = _CrashingCline()
    crashing.out = tmp_path
    result = run_harness(crashing, "Wordle-v0", 0, expert.base_url, out=tmp_path, timeout=300)
    assert result.outcome == "env_error" and result.reward_valid is False
    assert result.reward is None and result.returncode == 137
    assert "exited with code 137" in result.error
    traj = _records(tmp_path)["agenttraj"]
    assert traj["outcome"] == "env_error" and traj["reward"] is None
    assert traj["reward_valid"] is False and traj["env_steps"] < 3


class _StallingExpert(HarnessExpertServer):
    """The expert, until it stops answering (after its second answer) until released."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.release = threading.Event()

    def complete(self, body):
        if self.requests >= 2:
            self.release.wait(600)
        return super().complete(body)

    def stop(self):
        self.release.set()
        super().stop()


def test_harness_hanging_mid_episode_is_a_time_limit(tmp_path):
    installed("cline")
    with _StallingExpert(["AgentGym/Wordle-v0"]) as stalling:
        result = run_harness("cline", "Wordle-v0", 0, stalling.base_url, out=tmp_path, timeout=30)
    assert result.outcome == "time_limit" and result.reward_valid is False
    assert result.reward is None and 28 < result.wall_time < 120
    traj = _records(tmp_path)["agenttraj"]
    assert traj["outcome"] == "time_limit" and traj["reward"] is None


def test_harness_past_its_model_call_cap_is_a_turn_limit(tmp_path):
    """``max_calls``: the harness is stopped once it made that many model calls and the env
    did not end the episode soon after: the model's doing (``turn_limit``), reward valid."""
    installed("cline")
    with _StallingExpert(["AgentGym/Wordle-v0"]) as stalling:
        result = run_harness(
            "cline", "Wordle-v0", 0, stalling.base_url, out=tmp_path, timeout=600, grace=1,
            max_calls=2,
        )  # fmt: skip
    assert (result.outcome, result.reward_valid, result.success) == ("turn_limit", True, False)
    assert result.model_calls >= 2 and result.env_steps < 3  # a call cut short counts too
    assert "cap of model calls" in result.error
    traj = _records(tmp_path)["agenttraj"]
    assert traj["outcome"] == "turn_limit" and traj["reward_valid"] is True


def _cli(*args, **env):
    return subprocess.run(
        [sys.executable, "-m", "agentgym_envs.cli", "harness", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
    )


def test_a_wrong_harness_name_is_one_line_listing_the_names():
    done = _cli("clien", "--env", "Maze-v0", "--model", "expert")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "did you mean 'cline'" in done.stderr
    for name in names():
        assert name in done.stderr


def test_a_missing_harness_is_one_line_with_its_install_command(tmp_path):
    done = _cli(
        "kilocode",
        "--env",
        "Maze-v0",
        "--model",
        "expert",
        AGENTGYM_HARNESSES=str(tmp_path),
        PATH="/usr/bin:/bin",
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert f"npm install --prefix {tmp_path / 'npm' / 'kilocode'} " in done.stderr
    assert done.stderr.rstrip().endswith(" @kilocode/cli@7.7.7")
    listing = _cli("list", AGENTGYM_HARNESSES=str(tmp_path), PATH="/usr/bin:/bin")
    assert listing.returncode == 0
    assert "kilocode" in listing.stdout and "not installed: npm install" in listing.stdout
