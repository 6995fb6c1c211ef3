"""Codex CLI (npm ``@openai/codex``, command ``codex``): ``codex exec``, headless, against the
gateway's Responses endpoint, with our env as an MCP server.

The pinned Codex (0.171.0) speaks only OpenAI's Responses API to a custom provider
(``wire_api = "chat"`` is refused: "no longer supported"), so its provider's ``base_url`` is the
episode's gateway session and it posts to ``/s/<session>/v1/responses``, which turns each
request into a chat completion for the upstream and records it exactly as the chat route does
(:mod:`~agentgym_envs.integrations.gateway_responses`).

Per episode, under the episode's own home (``CODEX_HOME``): ``config.toml`` declares the
provider ``agentgym`` (``wire_api = "responses"``, the key as ``experimental_bearer_token``:
the sandbox drops variables named like secrets), the model and its context window, our MCP
server (streamable HTTP, ``url``) as ``agentgym``, no approvals (``approval_policy = "never"``),
Codex's own sandbox off (the runner's sandbox is the sandbox), and update checks, analytics,
feedback and history off. The run is ``codex exec --json --skip-git-repo-check
--dangerously-bypass-approvals-and-sandbox -C <workdir> -m <model> <prompt>``: Codex's own
system prompt and tools (``shell``, ``apply_patch``...), plus the env's from MCP. Its JSON
events go to the harness log.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentgym_envs.integrations.harnesses.base import MCP_NAME, Episode, Harness

#: The ``codex exec --json`` items a model reply makes.
_STEPS = ("agent_message", "mcp_tool_call", "command_execution", "file_change", "web_search")


def _toml(value: Any) -> str:
    """A TOML value (strings as basic strings, which JSON's escapes are valid in)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return json.dumps(str(value))


def _table(name: str, values: dict[str, Any]) -> str:
    lines = [f"[{name}]"] if name else []
    lines += [f"{key} = {_toml(value)}" for key, value in values.items()]
    return "\n".join(lines) + "\n"


class Codex(Harness):
    name = "codex"
    title = "Codex CLI"
    package = "@openai/codex@0.171.0"
    binary = "codex"

    def environment(self, episode: Episode) -> dict[str, str]:
        env = super().environment(episode)
        env["CODEX_HOME"] = str(_home(episode))
        return env

    def configure(self, episode: Episode, executable: str) -> None:
        folder = _home(episode)
        folder.mkdir(parents=True, exist_ok=True)
        seconds = int(max(60, episode.timeout))
        top = {
            "model": episode.model,
            "model_provider": MCP_NAME,
            "model_context_window": self.context,
            "approval_policy": "never",
            "sandbox_mode": "danger-full-access",
            "check_for_update_on_startup": False,
        }
        provider = {
            "name": "agentgym gateway",
            "base_url": episode.model_url,
            "wire_api": "responses",
            "experimental_bearer_token": episode.api_key,
            "request_max_retries": 1,
            "stream_max_retries": 1,
            "stream_idle_timeout_ms": seconds * 1000,
        }
        server = {"url": episode.mcp_url, "startup_timeout_sec": 60, "tool_timeout_sec": seconds}
        config = "\n".join(
            [
                _table("", top),
                _table("analytics", {"enabled": False}),
                _table("feedback", {"enabled": False}),
                _table("history", {"persistence": "none"}),
                _table(f"model_providers.{MCP_NAME}", provider),
                _table(f"mcp_servers.{MCP_NAME}", server),
            ]
        )
        (folder / "config.toml").write_text(config)

    def command(self, episode: Episode, executable: str) -> list[str]:
        return [
            *(executable, "exec", "--json", "--skip-git-repo-check"),
            *("--dangerously-bypass-approvals-and-sandbox", "-C", str(episode.workdir)),
            *("-m", episode.model, episode.prompt),
        ]

    def result(self, episode: Episode, log: Path) -> dict[str, Any]:
        steps = 0  # the items the model's replies made: tool calls and messages
        for line in log.read_text(errors="replace").splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if not isinstance(event, dict) or event.get("type") != "item.completed":
                continue
            item = event.get("item") if isinstance(event.get("item"), dict) else {}
            steps += item.get("type") in _STEPS
        return {"harness_iterations": steps} if steps else {}


def _home(episode: Episode) -> Path:
    return episode.home / ".codex"


HARNESS = Codex()

__all__ = ["HARNESS", "Codex"]
