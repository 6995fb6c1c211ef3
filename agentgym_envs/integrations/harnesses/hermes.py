"""Hermes Agent (PyPI ``hermes-agent``): ``hermes -z``, its one-shot headless mode, with our env
as an MCP server.

``hermes-agent`` pins exact versions of ``openai``, ``pydantic``, ``httpx`` and more, so it
lives in a venv of its own (``<harness folder>/venvs/hermes-agent``) and runs as that venv's
``hermes`` command. Per episode, ``$HERMES_HOME/config.yaml`` (under the episode's own home)
names a ``custom`` provider at the gateway (``model.base_url``, ``model.default``) and our MCP
server under ``mcp_servers.agentgym``. The run is ``hermes -z <prompt> --usage-file <f>
--yolo --ignore-rules``: Hermes's own system prompt and tools, plus the env's tools from MCP.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentgym_envs.integrations.harnesses.base import MCP_NAME, Episode, Harness


class HermesAgent(Harness):
    name = "hermes-agent"
    title = "Hermes Agent"
    package = "hermes-agent[mcp]==0.19.0"
    kind = "pip"
    module = "run_agent,mcp"  # with its MCP extra: without it Hermes ignores MCP servers
    python = "3.11"
    context = 65536  # Hermes refuses models under 64K

    def environment(self, episode: Episode) -> dict[str, str]:
        env = super().environment(episode)
        env.update(
            HERMES_HOME=str(episode.home / ".hermes"),
            HERMES_ACCEPT_HOOKS="1",
            HERMES_INFERENCE_MODEL=episode.model,
        )
        return env

    def configure(self, episode: Episode, executable: str) -> None:
        folder = episode.home / ".hermes"
        folder.mkdir(parents=True, exist_ok=True)
        config = {
            "model": {
                "provider": "custom",
                "base_url": episode.model_url,
                "api_key": episode.api_key,
                "default": episode.model,
                "context_length": self.context,
            },
            "mcp_servers": {MCP_NAME: {"url": episode.mcp_url, "timeout": 300}},
        }
        # JSON is YAML: no YAML writer needed here
        (folder / "config.yaml").write_text(json.dumps(config, indent=2))

    def command(self, episode: Episode, executable: str) -> list[str]:
        hermes = str(Path(executable).with_name("hermes"))
        return [
            *(hermes, "-z", episode.prompt, "-m", episode.model),
            *("--usage-file", str(episode.home / "usage.json"), "--yolo", "--ignore-rules"),
        ]

    def result(self, episode: Episode, log: Path) -> dict[str, Any]:
        try:
            usage = json.loads((episode.home / "usage.json").read_text())
        except (OSError, ValueError):
            return {}
        return {"harness_iterations": usage.get("api_calls")}


HARNESS = HermesAgent()

__all__ = ["HARNESS", "HermesAgent"]
