"""Qwen Code (npm ``@qwen-code/qwen-code``, command ``qwen``): its one-shot headless mode, with
our env as an MCP server.

Qwen Code needs Node >= 22: the npm registry's ``node`` package brings one into the harness's
prefix, installed first and first on ``PATH`` for its install and runs.

Per episode, under the episode's own home: ``~/.qwen/settings.json`` selects the ``openai``
auth type with the model declared under ``modelProviders.openai`` (``baseUrl`` the gateway, the
context window in its ``generationConfig``, and its stream guards -- ``streamIdleTimeoutMs`` and
``QWEN_STREAM_MAX_LIFETIME_MS``, 240 s and 15 min by default -- set to the episode's deadline:
a local model on a loaded CPU can take longer than 240 s to its first token of Qwen Code's long
prompt, and the runner's deadline bounds the episode anyway; the key is the ``--openai-api-key`` flag, as the
sandbox drops variables named like secrets), names our MCP
server (streamable HTTP, ``httpUrl``) ``agentgym``, and turns off auto-update, usage statistics,
telemetry, the folder-trust prompt and managed auto-memory (whose extraction subagent made
model calls of its own after the episode's answer). The run is ``qwen --yolo --output-format stream-json -m
<model> <prompt>``: Qwen Code's own system prompt and built-in tools, plus the env's tools from
MCP (named ``mcp__agentgym__<tool>``), sent with native tool calling. Its JSON events go to the
harness log; the run's ``num_turns`` and ending are read from the last ``result`` event.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentgym_envs.integrations.harnesses.base import MCP_NAME, Episode, Harness
from agentgym_envs.integrations.harnesses.claude_code import stream_json_result


class QwenCode(Harness):
    name = "qwen-code"
    title = "Qwen Code"
    package = "@qwen-code/qwen-code@0.24.4"
    node = "node@24.21.0"
    binary = "qwen"

    def environment(self, episode: Episode) -> dict[str, str]:
        env = super().environment(episode)
        env.update(
            QWEN_TELEMETRY_ENABLED="false",
            QWEN_USAGE_STATISTICS_ENABLED="false",
            QWEN_CODE_NO_RELAUNCH="1",  # one process: the runner's deadline reaches it all
            QWEN_CODE_SUPPRESS_YOLO_WARNING="1",  # the runner's sandbox is the sandbox
            QWEN_STREAM_MAX_LIFETIME_MS=str(_deadline_ms(episode)),
        )
        return env

    def configure(self, episode: Episode, executable: str) -> None:
        folder = episode.home / ".qwen"
        folder.mkdir(parents=True, exist_ok=True)
        settings = {
            "security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": False}},
            "model": {"name": episode.model},
            "modelProviders": {
                "openai": [
                    {
                        "id": episode.model,
                        "name": episode.model,
                        "baseUrl": episode.model_url,
                        "generationConfig": {
                            "contextWindowSize": self.context,
                            "timeout": _deadline_ms(episode),
                            "streamIdleTimeoutMs": _deadline_ms(episode),
                            "maxRetries": 1,
                        },
                    }
                ]
            },
            "mcpServers": {
                MCP_NAME: {
                    "httpUrl": episode.mcp_url,
                    "timeout": _deadline_ms(episode),
                    # the env's tools in the model's tool list, not behind its tool search
                    "alwaysLoadTools": True,
                }
            },
            "general": {"enableAutoUpdate": False, "chatRecording": False},
            # no managed auto-memory: its extraction subagent runs after the answer (4-5 more
            # model calls of 1,024 tokens each on the local model, minutes apiece), and the
            # episode's home, where it would keep its memories, is gone after the episode
            "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
        }
        (folder / "settings.json").write_text(json.dumps(settings, indent=2))

    def command(self, episode: Episode, executable: str) -> list[str]:
        return [
            *(executable, "--yolo", "--output-format", "stream-json", "-m", episode.model),
            # the key as a flag: the sandbox drops every variable named like a secret
            *("--auth-type", "openai", "--openai-api-key", episode.api_key, episode.prompt),
        ]

    def result(self, episode: Episode, log: Path) -> dict[str, Any]:
        return stream_json_result(log)


def _deadline_ms(episode: Episode) -> int:
    """The episode's deadline in milliseconds (at least a minute): the longest a model call
    may take or a stream stay silent."""
    return int(max(60, episode.timeout)) * 1000


HARNESS = QwenCode()

__all__ = ["HARNESS", "QwenCode"]
