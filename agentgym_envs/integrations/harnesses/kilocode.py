"""KiloCode (npm ``@kilocode/cli``, command ``kilo``): ``kilo run``, headless, with our env as
an MCP server.

Per episode, under the episode's own home: ``$XDG_CONFIG_HOME/kilo/kilo.json`` declares a
provider ``agentgym`` (``@ai-sdk/openai-compatible`` at the gateway, the model with its context
window) and a remote MCP server ``agentgym`` (our MCP URL); autoupdate and sharing are off.
The run is ``kilo run --auto --format json -m agentgym/<model> <prompt>`` with
``KILO_NO_DAEMON=1``: Kilo's own system prompt and built-in tools, plus the env's tools from
MCP (named ``agentgym_<tool>``). Its JSON events go to the harness log. Kilo has no turn limit
of its own: the runner's deadline bounds the run.

The newest ``@kilocode/cli`` (7.8.x) does not install (its per-platform binaries stop at
7.7.9), so the pin is 7.7.7.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentgym_envs.integrations.harnesses.base import MCP_NAME, Episode, Harness

_DISABLED = (
    "AUTOUPDATE",
    "CLAUDE_CODE",
    "PROJECT_CONFIG",
    "EXTERNAL_SKILLS",
    "MODELS_FETCH",
    "CODEBASE_INDEXING",
    "SHARE",
    "SESSION_INGEST",
    "LSP_DOWNLOAD",
    "PRESENCE",
)


class KiloCode(Harness):
    name = "kilocode"
    title = "KiloCode"
    package = "@kilocode/cli@7.7.7"
    binary = "kilo"
    #: Its configuration file under the episode's ``XDG_CONFIG_HOME``, and that file's schema.
    config = ("kilo", "kilo.json")
    schema = "https://kilo.ai/config.json"

    def environment(self, episode: Episode) -> dict[str, str]:
        env = super().environment(episode)
        env.update(KILO_NO_DAEMON="1", KILO_TELEMETRY_LEVEL="off")
        # nothing of the user's (Claude Code config, project config, skills) and no network
        # work the episode does not need (model lists, indexing, sharing, session ingest)
        for what in _DISABLED:
            env[f"KILO_DISABLE_{what}"] = "1"
        return env

    def configure(self, episode: Episode, executable: str) -> None:
        folder = episode.home / ".config" / self.config[0]
        folder.mkdir(parents=True, exist_ok=True)
        config = {
            "$schema": self.schema,
            "autoupdate": False,
            "share": "disabled",
            "provider": {
                MCP_NAME: {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "agentgym gateway",
                    "options": {"baseURL": episode.model_url, "apiKey": episode.api_key},
                    "models": {
                        episode.model: {
                            "name": episode.model,
                            "limit": {"context": self.context, "output": self.output},
                        }
                    },
                }
            },
            "mcp": {MCP_NAME: {"type": "remote", "url": episode.mcp_url, "enabled": True}},
        }
        (folder / self.config[1]).write_text(json.dumps(config, indent=2))

    def command(self, episode: Episode, executable: str) -> list[str]:
        model = f"{MCP_NAME}/{episode.model}"
        return [
            *(executable, "run", "--auto", "--format", "json", "-m", model),
            *("--dir", str(episode.workdir), episode.prompt),
        ]

    def result(self, episode: Episode, log: Path) -> dict[str, Any]:
        steps, reason = 0, None
        for line in log.read_text(errors="replace").splitlines():
            if '"step_finish"' not in line:
                continue
            try:
                part = json.loads(line).get("part") or {}
            except ValueError:
                continue
            steps, reason = steps + 1, part.get("reason")
        return {"harness_iterations": steps, "harness_finish": reason} if steps else {}


HARNESS = KiloCode()

__all__ = ["HARNESS", "KiloCode"]
