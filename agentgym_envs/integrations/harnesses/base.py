"""What every pre-built harness integration declares, and where its installation is found.

A :class:`Harness` says how the harness is installed (npm package or PyPI package in a venv of
its own, pinned), how to find it, how to write its own configuration for one episode (its model
pointed at the recording gateway, its tools at our MCP server) and how to start it headless.
The runner (:mod:`~agentgym_envs.integrations.harnesses.runner`) does the rest.

Harnesses are looked up in the harness folder -- ``$AGENTGYM_HARNESSES``, else
``$AGENTGYM_HOME/harnesses``, else ``~/.local/share/agentgym/harnesses`` -- where
``npm install --prefix <folder> <package>@<version>`` puts the npm ones (their commands in
``node_modules/.bin``, which also holds a newer ``node`` when one is installed there) and
``<folder>/venvs/<name>`` holds the Python ones; then on ``PATH``. Nothing is ever installed
here: a missing harness is a :class:`HarnessMissingError` whose message is the install command.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentgym_envs.errors import AgentGymError

#: Environment variable naming the harness folder.
HARNESS_DIR_ENV = "AGENTGYM_HARNESSES"
#: The MCP server name every harness sees our env under.
MCP_NAME = "agentgym"


class HarnessError(AgentGymError):
    """A harness name that does not exist, or a harness that cannot run."""


class HarnessMissingError(HarnessError):
    """The harness is not installed; the message is the command that installs it."""


def harness_dir() -> Path:
    """The folder harnesses are installed into (see the module docstring)."""
    explicit = os.environ.get(HARNESS_DIR_ENV)
    if explicit:
        return Path(explicit).expanduser()
    home = os.environ.get("AGENTGYM_HOME")
    if home:
        return Path(home).expanduser() / "harnesses"
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "agentgym" / "harnesses"


@dataclass
class Episode:
    """One harness episode, as the harness integration needs it.

    ``model_url`` is the gateway's OpenAI-compatible ``/v1`` root for this session and
    ``mcp_url`` our MCP server for it (the episode already started: ``reset`` is hidden);
    ``home`` is a fresh folder that stands for ``HOME`` and every config folder of the
    harness, ``workdir`` its working directory (inside ``home``).
    """

    env_id: str
    task_id: int
    prompt: str
    model_url: str
    model: str
    mcp_url: str
    env_url: str
    home: Path
    workdir: Path
    timeout: float
    tool_names: list[str] = field(default_factory=list)
    api_key: str = "agentgym"


class Harness:
    """A pre-built agent harness: how to install, find, configure and run it.

    Subclasses set the class attributes and implement :meth:`configure` and :meth:`command`;
    :meth:`result` may read the harness's own output after the run.

    Attributes:
        name: the name ``agentgym harness <name>`` takes.
        title: the harness's own name.
        package: the pinned package (``cline@3.0.65``; for PyPI ``openhands-sdk==1.58.2``).
        kind: ``"npm"`` or ``"pip"``.
        binary: the command an npm package installs.
        module: the modules a PyPI harness imports, comma-separated (found in its venv).
        python: the Python its venv needs (``python3.12``), for the install command.
        tools: ``"mcp"`` when the harness takes MCP servers (our env's tools reach it as MCP
            tools), else how the env reaches it.
    """

    name = ""
    title = ""
    package = ""
    kind = "npm"
    binary = ""
    module = ""
    python = "python3"
    tools = "mcp"

    # -- finding it --------------------------------------------------------------------------
    def install_command(self) -> str:
        """The command that installs the pinned harness into :func:`harness_dir`."""
        folder = harness_dir()
        if self.kind == "npm":
            return f"npm install --prefix {folder} {self.package}"
        venv = folder / "venvs" / self.name
        return f"{self.python} -m venv {venv} && {venv}/bin/pip install '{self.package}'"

    def search_path(self) -> str:
        """``PATH`` for the harness: the harness folder's commands (and its ``node``) first."""
        return os.pathsep.join(
            [str(harness_dir() / "node_modules" / ".bin"), os.environ.get("PATH", "")]
        )

    def locate(self) -> str | None:
        """The harness's executable (npm: its command; PyPI: its venv's Python), or None."""
        if self.kind == "npm":
            return shutil.which(self.binary, path=self.search_path())
        python = harness_dir() / "venvs" / self.name / "bin" / "python"
        if python.exists() and _imports(str(python), self.module):
            return str(python)
        return sys.executable if _imports(sys.executable, self.module) else None

    def require(self) -> str:
        """:meth:`locate`, or a :class:`HarnessMissingError` that says how to install it."""
        found = self.locate()
        if found is None:
            raise HarnessMissingError(
                f"{self.title} is not installed (looked in {harness_dir()} and on PATH): "
                f"{self.install_command()}"
            )
        return found

    # -- running it --------------------------------------------------------------------------
    def environment(self, episode: Episode) -> dict[str, str]:
        """The harness process's environment: the user's, with every home and config folder
        moved into the episode's own ``home`` (never the user's) and telemetry off."""
        home = str(episode.home)
        env = dict(os.environ)
        env.update(
            HOME=home,
            XDG_CONFIG_HOME=f"{home}/.config",
            XDG_DATA_HOME=f"{home}/.local/share",
            XDG_CACHE_HOME=f"{home}/.cache",
            XDG_STATE_HOME=f"{home}/.local/state",
            PATH=self.search_path(),
            PWD=str(episode.workdir),  # some harnesses take their workspace from PWD
            NO_COLOR="1",
            DO_NOT_TRACK="1",
        )
        for key in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY"):
            env.pop(key, None)  # the harness talks to the gateway only
        return env

    def configure(self, episode: Episode, executable: str) -> None:
        """Write the harness's own configuration for ``episode`` under ``episode.home``."""
        raise NotImplementedError

    def command(self, episode: Episode, executable: str) -> list[str]:
        """The headless command line that runs the episode's prompt."""
        raise NotImplementedError

    def result(self, episode: Episode, log: Path) -> dict[str, Any]:
        """Facts read from the harness's own output after the run (its ``finish_reason``,
        its own token count...), added to the record; none by default."""
        return {}

    def describe(self) -> dict[str, Any]:
        """Name, package, how the env's tools reach it, and where it was found."""
        return {
            "name": self.name,
            "title": self.title,
            "package": self.package,
            "tools": self.tools,
            "installed": self.locate(),
            "install": self.install_command(),
        }


def _imports(python: str, module: str) -> bool:
    """Whether ``python`` finds every module of ``module`` (comma-separated), without
    importing them here."""
    import subprocess

    modules = module.split(",")
    if python == sys.executable:
        import importlib.util

        try:
            return all(importlib.util.find_spec(m) is not None for m in modules)
        except ImportError:  # a dotted name whose parent package is missing
            return False
    probe = (
        "import importlib.util,sys; "
        f"sys.exit(not all(importlib.util.find_spec(m) for m in {modules!r}))"
    )
    try:
        done = subprocess.run(
            [python, "-c", probe],
            capture_output=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


__all__ = [
    "HARNESS_DIR_ENV",
    "MCP_NAME",
    "Episode",
    "Harness",
    "HarnessError",
    "HarnessMissingError",
    "harness_dir",
]
