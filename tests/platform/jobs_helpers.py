"""Helpers of the training-job tests: an agent with judged executions recorded through the SDK,
and a real ``agentgym platform worker`` process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from agentgym_envs.platform import AgentGym
from tests.platform.conftest import REPO

#: (question, the tool the agent calls, whether a person judged the outcome good)
TICKETS = [
    ("where is my order", "lookup(order)", True),
    ("I want a refund", "refund(order)", True),
    ("where is my order", "lookup(order)", True),
    ("my parcel is late", "lookup(order)", True),
    ("cancel my plan", "refund(order)", False),
]


def judged_agent(gym: AgentGym, name: str, version: str = "1.0.0") -> str:
    """Register agent ``name`` and record :data:`TICKETS` through the SDK, each execution with
    its step and a person's judgement of the outcome (one action judged bad too)."""

    def support(query, history, trace):
        tool = dict((q, t) for q, t, _ in TICKETS)[query]
        trace.step(tool, observation=query, result="done")
        return f"Done: {tool}"

    agent_id = gym.register_agent(name=name, description="support", version=version, agent=support)
    for i, (query, _, good) in enumerate(TICKETS):
        ex = gym.execute_with_feedback(agent_id=agent_id, input_data=query, context=[])
        gym.feedback_outcome(agent_id, ex.execution_id, "good" if good else "bad")
        if i == 1:
            gym.feedback_action(agent_id, ex.execution_id, 0, "good", comment="right tool")
    return agent_id


def start_worker(
    app_url: str, artifacts: Path, *options: str, env: dict[str, str] | None = None
) -> subprocess.Popen:
    """``agentgym platform worker`` (this worktree's code) as the service's role."""
    environ = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    cmd = [sys.executable, "-m", "agentgym_envs.cli", "platform", "worker"]
    return subprocess.Popen(
        [*cmd, "--database-url", app_url, "--artifacts", str(artifacts), *options],
        env=environ,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def stop_worker(proc: subprocess.Popen) -> tuple[int, str]:
    """SIGTERM (the graceful stop) and its exit code and log."""
    proc.terminate()
    try:
        _, err = proc.communicate(timeout=180)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return proc.returncode, err
