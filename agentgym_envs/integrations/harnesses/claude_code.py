"""Claude Code (npm ``@anthropic-ai/claude-code``, command ``claude``): ``claude -p``, its print
mode, headless, against the gateway's Anthropic Messages endpoint, with our env as an MCP server.

Claude Code speaks Anthropic's Messages API only: ``ANTHROPIC_BASE_URL`` is the episode's
gateway session (``/s/<session>``, so it posts to ``/s/<session>/v1/messages``), which turns
each request into a chat completion for the OpenAI-compatible upstream and records it exactly as
the OpenAI route does (:mod:`~agentgym_envs.integrations.gateway_anthropic`). Every model name
it uses (main, background "haiku", "sonnet", "opus") is the episode's model. Claude Code needs
Node >= 22: the npm registry's ``node`` package is installed into its prefix first.

Per episode, under the episode's own home (``CLAUDE_CONFIG_DIR``): ``settings.json`` gives the
key through ``apiKeyHelper`` (the sandbox drops variables named like secrets, so
``ANTHROPIC_API_KEY`` would not reach it) and, in its ``env``, the output cap
``CLAUDE_CODE_MAX_OUTPUT_TOKENS``, and ``mcp.json`` names our MCP server (``type: http``)
``agentgym``. Telemetry, error reporting, auto-update and every other non-essential call are off
through Claude Code's documented variables (``DISABLE_TELEMETRY``, ``DISABLE_ERROR_REPORTING``,
``DISABLE_AUTOUPDATER``, ``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC``,
``DISABLE_NON_ESSENTIAL_MODEL_CALLS``), and ``ENABLE_TOOL_SEARCH=false`` keeps the env's tools
in the model's tool list. The run is ``claude -p --output-format stream-json --verbose --model
<model> --mcp-config mcp.json --strict-mcp-config --dangerously-skip-permissions <prompt>``:
Claude Code's own system prompt and tools, plus the env's (``mcp__agentgym__<tool>``). It
refuses ``--dangerously-skip-permissions`` as root, which the sandbox (its own unprivileged
user) never is. Its JSON events go to the harness log; ``num_turns`` and the ending are read
from the last ``result`` event.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from agentgym_envs.integrations.harnesses.base import MCP_NAME, Episode, Harness

#: Claude Code's documented switches for what an episode does not need (all set to 1).
QUIET = (
    "DISABLE_TELEMETRY",
    "DISABLE_ERROR_REPORTING",
    "DISABLE_AUTOUPDATER",
    "DISABLE_BUG_COMMAND",
    "DISABLE_COST_WARNINGS",
    "DISABLE_NON_ESSENTIAL_MODEL_CALLS",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
    "CLAUDE_CODE_DISABLE_TERMINAL_TITLE",
)


class ClaudeCode(Harness):
    name = "claude-code"
    title = "Claude Code"
    package = "@anthropic-ai/claude-code@2.1.332"
    node = "node@24.21.0"
    binary = "claude"

    def environment(self, episode: Episode) -> dict[str, str]:
        env = super().environment(episode)
        env.update(dict.fromkeys(QUIET, "1"))
        milliseconds = str(int(max(60, episode.timeout)) * 1000)
        env.update(
            CLAUDE_CONFIG_DIR=str(_config_dir(episode)),
            ANTHROPIC_BASE_URL=episode.model_url.removesuffix("/v1"),
            ANTHROPIC_MODEL=episode.model,
            ANTHROPIC_SMALL_FAST_MODEL=episode.model,
            ANTHROPIC_DEFAULT_HAIKU_MODEL=episode.model,
            ANTHROPIC_DEFAULT_SONNET_MODEL=episode.model,
            ANTHROPIC_DEFAULT_OPUS_MODEL=episode.model,
            ENABLE_TOOL_SEARCH="false",
            API_TIMEOUT_MS=milliseconds,
            MCP_TIMEOUT="60000",
            MCP_TOOL_TIMEOUT=milliseconds,
        )
        return env

    def configure(self, episode: Episode, executable: str) -> None:
        folder = _config_dir(episode)
        folder.mkdir(parents=True, exist_ok=True)
        settings = {
            "apiKeyHelper": f"echo {shlex.quote(episode.api_key)}",
            # a variable named like a secret (``*TOKEN*``) would not pass the sandbox either
            "env": {"CLAUDE_CODE_MAX_OUTPUT_TOKENS": str(self.output)},
        }
        (folder / "settings.json").write_text(json.dumps(settings, indent=2))
        servers = {MCP_NAME: {"type": "http", "url": episode.mcp_url}}
        (folder / "mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2))

    def command(self, episode: Episode, executable: str) -> list[str]:
        return [
            *(executable, "-p", "--output-format", "stream-json", "--verbose"),
            *("--model", episode.model, "--mcp-config", str(_config_dir(episode) / "mcp.json")),
            *("--strict-mcp-config", "--dangerously-skip-permissions", episode.prompt),
        ]

    def result(self, episode: Episode, log: Path) -> dict[str, Any]:
        return stream_json_result(log)


def stream_json_result(log: Path) -> dict[str, Any]:
    """``harness_finish`` and ``harness_iterations`` from the last ``result`` event of a
    ``--output-format stream-json`` log (Claude Code's, and Qwen Code's, which follows it)."""
    for line in reversed(log.read_text(errors="replace").splitlines()):
        if '"result"' not in line:
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "result":
            return {
                "harness_finish": event.get("subtype"),
                "harness_iterations": event.get("num_turns"),
            }
    return {}


def _config_dir(episode: Episode) -> Path:
    return episode.home / ".claude"


HARNESS = ClaudeCode()

__all__ = ["HARNESS", "QUIET", "ClaudeCode", "stream_json_result"]
