"""Pre-built agent harnesses (Cline, KiloCode, OpenHands, Hermes Agent, OpenClaw, Qwen Code,
OpenCode, Pi, Claude Code, Codex CLI) on our envs.

Each module declares one :class:`~agentgym_envs.integrations.harnesses.base.Harness`: its
pinned package, where it is found, the configuration it gets for one episode (model at the
recording gateway, tools at our MCP server) and its headless command line.
:func:`~agentgym_envs.integrations.harnesses.runner.run_harness` plays one episode with it::

    agentgym harness cline --env Maze-v0 --task 0 --model http://127.0.0.1:8000/v1

and :mod:`~agentgym_envs.integrations.harnesses.parallel` plays many, several at once, as a
resumable benchmark run (``--tasks 0-99 -j 4``, ``agentgym bench --policy harness:cline``).
"""

from __future__ import annotations

import importlib

from agentgym_envs.errors import unknown_name
from agentgym_envs.integrations.harnesses.base import (
    Episode,
    Harness,
    HarnessError,
    HarnessMissingError,
    harness_dir,
)

#: Harness name -> the module that declares it (its ``HARNESS``).
HARNESSES = {
    "cline": "agentgym_envs.integrations.harnesses.cline",
    "kilocode": "agentgym_envs.integrations.harnesses.kilocode",
    "openhands": "agentgym_envs.integrations.harnesses.openhands",
    "hermes-agent": "agentgym_envs.integrations.harnesses.hermes",
    "openclaw": "agentgym_envs.integrations.harnesses.openclaw",
    "qwen-code": "agentgym_envs.integrations.harnesses.qwen_code",
    "opencode": "agentgym_envs.integrations.harnesses.opencode",
    "pi": "agentgym_envs.integrations.harnesses.pi",
    "claude-code": "agentgym_envs.integrations.harnesses.claude_code",
    "codex": "agentgym_envs.integrations.harnesses.codex",
}


def names() -> list[str]:
    """Every harness name ``agentgym harness`` takes."""
    return list(HARNESSES)


def get_harness(name: str) -> Harness:
    """The harness called ``name`` (a one-line :class:`HarnessError` listing the names if none)."""
    if name not in HARNESSES:
        raise HarnessError(
            f"{unknown_name('harness', name, HARNESSES)} (harnesses: {', '.join(HARNESSES)})"
        )
    return importlib.import_module(HARNESSES[name]).HARNESS


def run_harness(*args, **kwargs):
    """:func:`agentgym_envs.integrations.harnesses.runner.run_harness`."""
    from agentgym_envs.integrations.harnesses.runner import run_harness as run

    return run(*args, **kwargs)


__all__ = [
    "HARNESSES",
    "Episode",
    "Harness",
    "HarnessError",
    "HarnessMissingError",
    "get_harness",
    "harness_dir",
    "names",
    "run_harness",
]
