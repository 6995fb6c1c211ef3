"""What every pre-built harness integration declares, and where its installation is found.

A :class:`Harness` says how the harness is installed (npm package or PyPI package in a venv of
its own, pinned), how to find it, how to write its own configuration for one episode (its model
pointed at the recording gateway, its tools at our MCP server) and how to start it headless.
The runner (:mod:`~agentgym_envs.integrations.harnesses.runner`) does the rest.

Harnesses are looked up in the harness folder -- ``$AGENTGYM_HARNESSES``, else
``$AGENTGYM_HOME/harnesses``, else ``~/.local/share/agentgym/harnesses`` -- where each npm
harness has a prefix of its own, ``<folder>/npm/<name>`` (its commands in ``node_modules/.bin``,
which also holds a newer ``node`` when the harness needs one), and each Python harness a venv
of its own, ``<folder>/venvs/<name>``; then in ``<folder>/node_modules/.bin`` (a prefix shared by
installs made by hand) and on ``PATH``. ``agentgym harness install``
(:mod:`~agentgym_envs.integrations.harnesses.install`) installs them there; a missing harness
is a :class:`HarnessMissingError` whose message is the command that installs it.
"""

from __future__ import annotations

import os
import shlex
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
#: The folder of the pip constraints PyPI harnesses are installed with (``<name>.txt``).
CONSTRAINTS = Path(__file__).resolve().parent / "constraints"


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
    harness, ``workdir`` its working directory (inside ``home``); ``max_calls`` the most model
    calls it may make (``None``: no cap).
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
    max_calls: int | None = None


@dataclass(frozen=True)
class Step:
    """One command of a harness's installation: ``argv``, run with ``path`` (a folder) first on
    ``PATH`` when given."""

    argv: tuple[str, ...]
    path: str | None = None

    def shell(self) -> str:
        """The step as a shell command."""
        command = shlex.join(self.argv)
        return f"PATH={shlex.quote(self.path)}:$PATH {command}" if self.path else command


class Harness:
    """A pre-built agent harness: how to install, find, configure and run it.

    Subclasses set the class attributes and implement :meth:`configure` and :meth:`command`;
    :meth:`result` may read the harness's own output after the run.

    Attributes:
        name: the name ``agentgym harness <name>`` takes.
        title: the harness's own name.
        package: the pinned packages, space-separated (``cline@3.0.65``; for PyPI
            ``openhands-sdk==1.58.2 openhands-tools==1.58.2``).
        kind: ``"npm"`` or ``"pip"``.
        binary: the command an npm package installs.
        node: the npm registry's ``node`` package (``node@24.21.0``) an npm harness needs
            because it refuses the system's Node: installed into its prefix first, and first on
            ``PATH`` when the harness is installed and run.
        module: the modules a PyPI harness imports, comma-separated (found in its venv).
        python: the Python version its venv is made with (``3.12``).
        tools: ``"mcp"`` when the harness takes MCP servers (our env's tools reach it as MCP
            tools), else how the env reaches it.
        context: the context window declared for the model in the harness's configuration.
        output: the output token cap declared for the model.
    """

    name = ""
    title = ""
    package = ""
    kind = "npm"
    binary = ""
    node = ""
    module = ""
    python = "3.12"
    tools = "mcp"
    context = 32768
    output = 4096

    # -- finding it --------------------------------------------------------------------------
    def prefix(self) -> Path:
        """Where the harness is installed: its npm prefix or its venv, in :func:`harness_dir`."""
        return harness_dir() / ("npm" if self.kind == "npm" else "venvs") / self.name

    def install_steps(self, prefix: Path, python: str) -> list[Step]:
        """The commands that install the pinned harness into ``prefix`` (``python`` makes the
        venv of a PyPI harness)."""
        if self.kind == "npm":
            npm = ("npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund")
            npm += ("--save-exact",)
            if not self.node:
                return [Step((*npm, *self.package.split()))]
            # the harness's own install scripts check the Node they run on: the new one first
            bin_dir = str(prefix / "node_modules" / ".bin")
            return [Step((*npm, self.node)), Step((*npm, *self.package.split()), path=bin_dir)]
        pip = str(prefix / "bin" / "pip")
        constraints = self.constraints()
        pinned = ("-c", str(constraints)) if constraints is not None else ()
        return [
            Step((python, "-m", "venv", str(prefix))),
            Step((pip, "install", *pinned, *self.package.split())),
        ]

    def constraints(self) -> Path | None:
        """The pip constraints file a PyPI harness is installed with (every package of a
        resolved install pinned: pip never backtracks), if the package ships one."""
        path = CONSTRAINTS / f"{self.name}.txt"
        return path if self.kind == "pip" and path.is_file() else None

    def install_command(self) -> str:
        """The shell command that installs the pinned harness into :func:`harness_dir`."""
        from agentgym_envs.integrations.harnesses.install import install_command

        return install_command(self)

    def search_path(self) -> str:
        """``PATH`` for the harness: its own commands (and its ``node``) first."""
        folders = [self.prefix() / "node_modules" / ".bin", harness_dir() / "node_modules" / ".bin"]
        return os.pathsep.join([*map(str, folders), os.environ.get("PATH", "")])

    def locate(self) -> str | None:
        """The harness's executable (npm: its command; PyPI: its venv's Python), or None."""
        if self.kind == "npm":
            return shutil.which(self.binary, path=self.search_path())
        python = self.prefix() / "bin" / "python"
        if python.exists() and _imports(str(python), self.module):
            return str(python)
        return sys.executable if _imports(sys.executable, self.module) else None

    def check_command(self, executable: str) -> list[str]:
        """A quick command that proves an installed harness runs (its version; a PyPI
        harness's imports)."""
        if self.kind == "npm":
            return [executable, "--version"]
        probe = "; ".join(f"import {m}" for m in self.module.split(","))
        return [executable, "-c", probe]

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

    def sandbox_paths(self, episode: Episode, executable: str) -> list[Path]:
        """What the harness reads besides the system's when it runs in the sandbox
        (:mod:`~agentgym_envs.integrations.sandbox`): its install prefix (an npm harness's,
        with the shared one) or its venv and that venv's Python; the episode's home is
        writable anyway."""
        from agentgym_envs.integrations.sandbox.view import python_prefixes

        if self.kind != "npm":
            return python_prefixes(executable)
        found = [self.prefix(), harness_dir() / "node_modules"]
        real = Path(os.path.realpath(executable))
        if "node_modules" in real.parts:  # installed elsewhere: its whole npm prefix
            top = real.parts.index("node_modules")
            found.append(Path(*real.parts[:top]))
        else:
            found.append(real)
        return found

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
            timeout=300,  # an import probe; a loaded machine must not read as "not installed"
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


__all__ = [
    "CONSTRAINTS",
    "HARNESS_DIR_ENV",
    "MCP_NAME",
    "Episode",
    "Harness",
    "HarnessError",
    "HarnessMissingError",
    "Step",
    "harness_dir",
]
