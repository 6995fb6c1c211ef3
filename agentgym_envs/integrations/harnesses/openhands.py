"""OpenHands (PyPI ``openhands-sdk`` + ``openhands-tools``): its default agent, headless, with our
env as an MCP server.

``openhands-sdk`` needs Python >= 3.12 and pins its own ``litellm``, ``fastmcp`` and
``pydantic``, so it lives in a venv of its own (``<harness folder>/venvs/openhands``). The
episode runs :mod:`~agentgym_envs.integrations.harnesses.drivers.openhands_run` with that venv's
Python: OpenHands's default agent -- its own system prompt and its terminal, file editor and
task tracker tools (no browser) -- with ``mcp_config`` naming our MCP server ``agentgym`` and
its LLM (LiteLLM, ``openai/<model>``) at the gateway, in a ``Conversation`` whose workspace
is the episode's folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentgym_envs.integrations.harnesses.base import MCP_NAME, Episode, Harness

_DRIVER = Path(__file__).with_name("drivers") / "openhands_run.py"


class OpenHands(Harness):
    name = "openhands"
    title = "OpenHands"
    package = "openhands-sdk==1.58.2 openhands-tools==1.58.2"
    kind = "pip"
    module = "openhands.sdk,openhands.tools"
    python = "3.12"

    def environment(self, episode: Episode) -> dict[str, str]:
        env = super().environment(episode)
        env.update(
            OPENHANDS_SUPPRESS_BANNER="1",
            LITELLM_LOCAL_MODEL_COST_MAP="True",  # no download of LiteLLM's price list
            LMNR_PROJECT_API_KEY="",
        )
        env.pop("PYTHONPATH", None)  # the venv's own packages only
        return env

    def sandbox_paths(self, episode: Episode, executable: str) -> list[Path]:
        return [*super().sandbox_paths(episode, executable), _DRIVER]

    def configure(self, episode: Episode, executable: str) -> None:
        config = {
            "model": episode.model,
            "base_url": episode.model_url,
            "api_key": episode.api_key,
            "mcp_servers": {
                # OpenHands does not prefix MCP tools, and refuses two tools of one name (its
                # ``finish`` and the tool families'): ours come as ``agentgym_<tool>``
                MCP_NAME: {
                    "url": f"{episode.mcp_url}&prefix={MCP_NAME}_",
                    "transport": "http",
                    "timeout": 300,
                }
            },
            "workspace": str(episode.workdir),
            "persistence_dir": str(episode.home / ".openhands" / "conversations"),
            "prompt": episode.prompt,
            "max_iterations": 100,
            # a local model on a busy CPU takes minutes a call: OpenHands's own 300 s per
            # call cut episodes short; the episode's time limit bounds them instead
            "llm_timeout": max(300, int(episode.timeout)),
        }
        (episode.home / "openhands.json").write_text(json.dumps(config, indent=2))

    def command(self, episode: Episode, executable: str) -> list[str]:
        return [executable, str(_DRIVER), str(episode.home / "openhands.json")]

    def result(self, episode: Episode, log: Path) -> dict[str, Any]:
        for line in reversed(log.read_text(errors="replace").splitlines()):
            if line.startswith('{"agentgym_openhands"'):
                try:
                    data = json.loads(line)["agentgym_openhands"]
                except (ValueError, KeyError):
                    return {}
                return {"harness_finish": data.get("status")}
        return {}


HARNESS = OpenHands()

__all__ = ["HARNESS", "OpenHands"]
