"""OpenCode (npm ``opencode-ai``, command ``opencode``): ``opencode run``, headless, with our env
as an MCP server.

KiloCode is a fork of OpenCode, and the two are configured and run alike: this is
:class:`~agentgym_envs.integrations.harnesses.kilocode.KiloCode` with OpenCode's package, its
configuration file and its switches. Per episode, under the episode's own home:
``$XDG_CONFIG_HOME/opencode/opencode.json`` declares a provider ``agentgym``
(``@ai-sdk/openai-compatible`` at the gateway, the model with its context window) and a remote
MCP server ``agentgym`` (our MCP URL); autoupdate and sharing are off, ``OPENCODE_DISABLE_*``
turns off what the episode does not need (auto-update, the models.dev fetch, LSP downloads,
Claude Code's and the project's config, external skills, default plugins, sharing, the web UI)
and ``OPENCODE_PURE=1`` loads no external plugin. The run is ``opencode run --auto --format
json -m agentgym/<model> --dir <workdir> <prompt>``: OpenCode's own system prompt and built-in
tools, plus the env's tools from MCP (named ``agentgym_<tool>``). Its JSON events go to the
harness log. OpenCode has no turn limit of its own: the runner's deadline bounds the run.
"""

from __future__ import annotations

from agentgym_envs.integrations.harnesses.base import Episode, Harness
from agentgym_envs.integrations.harnesses.kilocode import KiloCode

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


class OpenCode(KiloCode):
    name = "opencode"
    title = "OpenCode"
    package = "opencode-ai@1.18.33"
    binary = "opencode"
    config = ("opencode", "opencode.json")
    schema = "https://opencode.ai/config.json"

    def environment(self, episode: Episode) -> dict[str, str]:
        env = Harness.environment(self, episode)  # none of Kilo's own variables
        for what in _DISABLED:
            env[f"OPENCODE_DISABLE_{what}"] = "1"
        env["OPENCODE_PURE"] = "1"  # no external plugins
        return env


HARNESS = OpenCode()

__all__ = ["HARNESS", "OpenCode"]
