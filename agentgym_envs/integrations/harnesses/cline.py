"""Cline (npm ``cline``): its CLI, headless, with our env as an MCP server.

Per episode, under the episode's own home (``--data-dir``, so Cline runs sandboxed on a local
backend, and ``CLINE_SESSION_BACKEND_MODE=local``: no hub daemon outlives the run): Cline's own
``cline auth -p openai-compatible -b <gateway>/v1`` writes the provider, and
``settings/cline_mcp_settings.json`` names our MCP server (streamable HTTP) as ``agentgym``.
The run is ``cline --json --auto-approve true -c . --data-dir <dir> -t <timeout> <prompt>``
in the episode's workdir: Cline's own system prompt and built-in tools, plus the env's tools from MCP, sent
with native tool calling. Its JSON events go to the harness log; the run's ``finishReason``
and ``iterations`` are read from the last ``run_result`` event.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from agentgym_envs.integrations.harnesses.base import MCP_NAME, Episode, Harness, HarnessError


class Cline(Harness):
    name = "cline"
    title = "Cline"
    package = "cline@3.0.65"
    binary = "cline"

    def environment(self, episode: Episode) -> dict[str, str]:
        env = super().environment(episode)
        env.update(
            CLINE_DIR=str(episode.home / ".cline"),
            CLINE_DATA_DIR=str(_data_dir(episode)),
            # no background hub daemon that would outlive the run; no self-update
            CLINE_SESSION_BACKEND_MODE="local",
            CLINE_NO_AUTO_UPDATE="1",
        )
        return env

    def configure(self, episode: Episode, executable: str) -> None:
        data = _data_dir(episode)
        settings = data / "settings"
        settings.mkdir(parents=True, exist_ok=True)
        servers = {
            MCP_NAME: {
                "type": "streamableHttp",
                "url": episode.mcp_url,
                "timeout": int(max(60, episode.timeout)),
            }
        }
        (settings / "cline_mcp_settings.json").write_text(
            json.dumps({"mcpServers": servers}, indent=2)
        )
        # the provider is written by Cline's own ``auth`` command
        auth = [executable, "auth", "-p", "openai-compatible", "-k", episode.api_key]
        auth += ["-m", episode.model, "-b", episode.model_url, "--data-dir", str(data)]
        limit = max(120.0, float(episode.timeout))  # a loaded machine is slow to start Node
        try:
            done = subprocess.run(
                auth, env=self.environment(episode), capture_output=True, text=True, timeout=limit
            )
        except subprocess.TimeoutExpired:
            raise HarnessError(
                f"cline auth took over {limit:.0f} s (the machine may be overloaded): "
                "give the episode a longer --timeout"
            ) from None
        if done.returncode != 0:
            raise HarnessError(f"cline auth failed: {(done.stderr or done.stdout)[-300:]}")

    def command(self, episode: Episode, executable: str) -> list[str]:
        return [
            executable,
            "--json",
            "--auto-approve",
            "true",
            # the runner starts Cline in the workdir: "." keeps its system prompt's "Working
            # Directory" line the same in every episode, so a local model's prefix cache
            # serves the whole first request of every episode after the first
            "-c",
            ".",
            "--data-dir",
            str(_data_dir(episode)),
            "-t",
            str(int(episode.timeout) + 30),  # the runner's deadline comes first
            episode.prompt,
        ]

    def result(self, episode: Episode, log: Path) -> dict[str, Any]:
        for line in reversed(log.read_text(errors="replace").splitlines()):
            if '"run_result"' not in line:
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue
            return {
                "harness_finish": event.get("finishReason"),
                "harness_iterations": event.get("iterations"),
            }
        return {}


def _data_dir(episode: Episode) -> Path:
    return episode.home / ".cline" / "data"


HARNESS = Cline()

__all__ = ["HARNESS", "Cline"]
