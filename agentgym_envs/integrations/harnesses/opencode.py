"""OpenCode (npm ``opencode-ai``, command ``opencode``): ``opencode run``, headless, with our env
as an MCP server.

Per episode, under the episode's own home: ``$XDG_CONFIG_HOME/opencode/opencode.json`` declares
a provider ``agentgym`` (``@ai-sdk/openai-compatible`` at the gateway, the model with its
context window) and a remote MCP server ``agentgym`` (our MCP URL); autoupdate and sharing are
off, and ``OPENCODE_DISABLE_*`` turns off what the episode does not need (the models.dev
fetch, LSP downloads, Claude Code's and the project's config, default plugins). The run is
``opencode run --auto --format json -m agentgym/<model> --dir <workdir> <prompt>``: OpenCode's
own system prompt and built-in tools, plus the env's tools from MCP (named
``agentgym_<tool>``). Its JSON events go to the harness log. OpenCode has no turn limit of its
own: the runner's deadline bounds the run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentgym_envs.integrations.harnesses.base import MCP_NAME, Episode, Harness

_DISABLED = (
    "AUTOUPDATE",
    "MODELS_FETCH",
    "LSP_DOWNLOAD",
    "CLAUDE_CODE",
    "PROJECT_CONFIG",
    "EXTERNAL_SKILLS",
    "DEFAULT_PLUGINS",
    "SHARE",
    "EMBEDDED_WEB_UI",
)


class OpenCode(Harness):
    name = "opencode"
    title = "OpenCode"
    package = "opencode-ai@1.18.33"
    binary = "opencode"

    def environment(self, episode: Episode) -> dict[str, str]:
        env = super().environment(episode)
        for what in _DISABLED:
            env[f"OPENCODE_DISABLE_{what}"] = "1"
        env["OPENCODE_PURE"] = "1"  # no external plugins
        return env

    def configure(self, episode: Episode, executable: str) -> None:
        folder = episode.home / ".config" / "opencode"
        folder.mkdir(parents=True, exist_ok=True)
        config = {
            "$schema": "https://opencode.ai/config.json",
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
                            "tool_call": True,
                            "limit": {"context": self.context, "output": self.output},
                        }
                    },
                }
            },
            "mcp": {MCP_NAME: {"type": "remote", "url": episode.mcp_url, "enabled": True}},
        }
        (folder / "opencode.json").write_text(json.dumps(config, indent=2))

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
            except (ValueError, AttributeError):
                continue
            steps, reason = steps + 1, part.get("reason")
        return {"harness_iterations": steps, "harness_finish": reason} if steps else {}


HARNESS = OpenCode()

__all__ = ["HARNESS", "OpenCode"]
