"""OpenClaw (npm ``openclaw``): ``openclaw agent exec``, one headless embedded agent run, with our
env as an MCP server.

Every 2026 release of OpenClaw needs a newer Node than Node 20 (2026.9.6: Node >= 24.16): the
npm registry's ``node`` package brings one into the harness's prefix, installed before OpenClaw
(whose install script refuses an older Node) and first on ``PATH`` for OpenClaw's install and
runs: ``agentgym harness install openclaw``.

Per episode, under the episode's own home: OpenClaw's own ``openclaw mcp set`` saves our MCP
server (streamable HTTP) as ``agentgym`` in ``~/.openclaw/openclaw.json``, and the provider
``agentgym`` (``api: openai-completions`` at the gateway) is added to the same file. The run is
``openclaw agent exec --json --model agentgym/<model> --cwd <workdir> --thinking off
--message-file <prompt>``: OpenClaw's own system prompt and tools; the env's MCP tools reach
the model directly or through OpenClaw's deferred-tool ``tool_call``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from agentgym_envs.integrations.harnesses.base import MCP_NAME, Episode, Harness, HarnessError


class OpenClaw(Harness):
    name = "openclaw"
    title = "OpenClaw"
    package = "openclaw@2026.9.6"
    node = "node@24.21.0"
    binary = "openclaw"

    def environment(self, episode: Episode) -> dict[str, str]:
        env = super().environment(episode)
        env.update(OPENCLAW_TELEMETRY="0", OPENCLAW_NO_UPDATE_CHECK="1")
        return env

    def configure(self, episode: Episode, executable: str) -> None:
        server = json.dumps({"url": episode.mcp_url, "transport": "streamable-http"})
        done = subprocess.run(
            [executable, "mcp", "set", MCP_NAME, server],
            env=self.environment(episode),
            cwd=episode.workdir,
            capture_output=True,
            text=True,
            timeout=300,
        )
        path = _config(episode)
        if done.returncode != 0 or not path.exists():
            raise HarnessError(f"openclaw mcp set failed: {(done.stderr or done.stdout)[-300:]}")
        config = json.loads(path.read_text())
        config["models"] = {
            "providers": {
                MCP_NAME: {
                    "baseUrl": episode.model_url,
                    "apiKey": episode.api_key,
                    "api": "openai-completions",
                    # a slow model (a small one on a busy CPU) may think past OpenClaw's idle
                    # timeout before its first token: the episode's deadline is the limit
                    "timeoutSeconds": int(max(60, episode.timeout)),
                    "models": [
                        {
                            "id": episode.model,
                            "name": episode.model,
                            "contextWindow": self.context,
                            "maxTokens": self.output,
                        }
                    ],
                }
            }
        }
        path.write_text(json.dumps(config, indent=2))
        (episode.home / "prompt.md").write_text(episode.prompt, encoding="utf-8")

    def command(self, episode: Episode, executable: str) -> list[str]:
        return [
            *(executable, "agent", "exec", "--json", "--thinking", "off"),
            *("--model", f"{MCP_NAME}/{episode.model}", "--cwd", str(episode.workdir)),
            *("--timeout", str(int(episode.timeout) + 30)),
            *("--message-file", str(episode.home / "prompt.md")),
        ]

    def result(self, episode: Episode, log: Path) -> dict[str, Any]:
        text = log.read_text(errors="replace")
        start = text.find('{\n  "ok"')
        if start < 0:
            return {}
        try:
            envelope, _ = json.JSONDecoder().raw_decode(text[start:])
        except ValueError:
            return {}
        return {
            "harness_finish": envelope.get("status"),
            "harness_iterations": envelope.get("assistantTurns"),
        }


def _config(episode: Episode) -> Path:
    return episode.home / ".openclaw" / "openclaw.json"


HARNESS = OpenClaw()

__all__ = ["HARNESS", "OpenClaw"]
