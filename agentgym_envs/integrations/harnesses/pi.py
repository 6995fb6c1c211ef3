"""Pi (npm ``@mariozechner/pi-coding-agent``, command ``pi``): ``pi -p``, its print mode,
headless, with our env's MCP tools brought in by an extension of ours.

Pi has no MCP client by design (its README: "No MCP"; MCP is left to extensions). The harness
ships a small Pi extension, :file:`drivers/pi_mcp.js`, copied into the episode's home and loaded
with ``-e``: it connects to our MCP server (streamable HTTP, the URL from
``AGENTGYM_MCP_URL``), lists its tools and registers each as a Pi tool ``agentgym_<tool>`` with
the server's description and JSON schema, so the model sees them in its tool list beside Pi's
own ``read``, ``bash``, ``edit`` and ``write``.

Per episode, under the episode's own home (``PI_CODING_AGENT_DIR``): ``models.json`` declares a
provider ``agentgym`` (``api: openai-completions`` at the gateway, system prompt as a
``system`` message, no ``reasoning_effort``) and ``settings.json`` turns off the install
telemetry; ``PI_OFFLINE=1`` turns off every start-up network call (update checks included). The
run is ``pi -p --mode json --provider agentgym --model <model> --thinking off --no-session -e
<extension> <prompt>``, with the discovery of other extensions, skills, prompt templates and
context files (``AGENTS.md``) off: Pi's own system prompt and tools, plus the env's. Its JSON
events go to the harness log.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from agentgym_envs.integrations.harnesses.base import MCP_NAME, Episode, Harness

#: The Pi extension that registers an MCP server's tools as Pi tools.
EXTENSION = Path(__file__).resolve().parent / "drivers" / "pi_mcp.js"


class Pi(Harness):
    name = "pi"
    title = "Pi"
    package = "@mariozechner/pi-coding-agent@0.73.1"
    node = "node@24.21.0"  # Node 20 cannot make WebAssembly memory under the sandbox's RLIMIT_AS
    binary = "pi"

    def environment(self, episode: Episode) -> dict[str, str]:
        env = super().environment(episode)
        env.update(
            PI_CODING_AGENT_DIR=str(_agent_dir(episode)),
            PI_OFFLINE="1",
            PI_SKIP_VERSION_CHECK="1",
            PI_TELEMETRY="0",
            AGENTGYM_MCP_URL=episode.mcp_url,
            AGENTGYM_MCP_NAME=MCP_NAME,
        )
        return env

    def configure(self, episode: Episode, executable: str) -> None:
        folder = _agent_dir(episode)
        folder.mkdir(parents=True, exist_ok=True)
        models = {
            "providers": {
                MCP_NAME: {
                    "baseUrl": episode.model_url,
                    "api": "openai-completions",
                    "apiKey": episode.api_key,
                    "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
                    "models": [
                        {
                            "id": episode.model,
                            "name": episode.model,
                            "reasoning": False,
                            "input": ["text"],
                            "contextWindow": self.context,
                            "maxTokens": self.output,
                        }
                    ],
                }
            }
        }
        (folder / "models.json").write_text(json.dumps(models, indent=2))
        settings = {"enableInstallTelemetry": False, "quietStartup": True}
        (folder / "settings.json").write_text(json.dumps(settings, indent=2))
        shutil.copyfile(EXTENSION, folder / EXTENSION.name)

    def command(self, episode: Episode, executable: str) -> list[str]:
        return [
            *(executable, "-p", "--mode", "json", "--provider", MCP_NAME, "--model", episode.model),
            *("--thinking", "off", "--no-session", "-e", str(_agent_dir(episode) / EXTENSION.name)),
            *("--no-extensions", "--no-skills", "--no-prompt-templates", "--no-context-files"),
            episode.prompt,
        ]

    def result(self, episode: Episode, log: Path) -> dict[str, Any]:
        turns, reason = 0, None
        for line in log.read_text(errors="replace").splitlines():
            if '"turn_end"' not in line:
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue
            message = event.get("message") if isinstance(event, dict) else None
            if isinstance(message, dict):
                turns, reason = turns + 1, message.get("stopReason")
        return {"harness_iterations": turns, "harness_finish": reason} if turns else {}


def _agent_dir(episode: Episode) -> Path:
    return episode.home / ".pi" / "agent"


HARNESS = Pi()

__all__ = ["EXTENSION", "HARNESS", "Pi"]
