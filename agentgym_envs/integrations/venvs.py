"""Virtual environments for ecosystems whose pins clash with a shared Python environment.

The ecosystem packages pin their own ``openai``, ``mcp``, ``fastapi`` or ``pydantic``; in an
environment that already holds a trainer or an MCP server they may not fit. :func:`ecosystem_python`
makes (once) a virtual environment holding agentgym-envs with the ecosystem's extra and returns
its interpreter, so that ecosystem's own client, server and CLI run there as subprocesses.

The environment lives under ``$AGENTGYM_VENV_DIR`` (default ``~/.cache/agentgym-envs/venvs``),
keyed by the Python version and the requirements it installs (the core dependencies and those
of the extras, read from ``pyproject.toml``), so another checkout with the same requirements
reuses it. It holds agentgym-envs as an editable install; run its interpreter with
``PYTHONPATH`` set to the checkout (:func:`ecosystem_env`) so that checkout's code is the one
imported. A lock file makes concurrent callers (test workers) wait for one build; a failed
build leaves no half-made environment behind.

An ecosystem that needs a newer Python than the running one (:data:`MIN_PYTHON`: NeMo Gym
needs 3.12) gets its environment made from the oldest new-enough interpreter found
(:func:`base_python`: ``$AGENTGYM_ECOSYSTEM_PYTHON``, pyenv's versions, ``python3.X`` on
``PATH``); when there is none, the error is one line saying how to get one.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import shutil
import subprocess
import sys
import venv
from collections.abc import Callable, Iterator
from pathlib import Path

from agentgym_envs.locks import file_lock
from agentgym_envs.paths import cache_root

logger = logging.getLogger(__name__)

#: Each ecosystem's extra (in ``pyproject.toml``) and the console scripts it brings.
ECOSYSTEMS: dict[str, tuple[str, ...]] = {
    "openreward": ("orwd",),
    "openenv": ("openenv",),
    "verifiers": ("vf-eval", "vf-build"),
    "nemo-gym": ("gym",),
}

#: Ecosystems that need a newer Python than the running one: the lowest ``(major, minor)``.
MIN_PYTHON: dict[str, tuple[int, int]] = {"nemo-gym": (3, 12)}


def venv_root() -> Path:
    """Where ecosystem environments live (``$AGENTGYM_VENV_DIR``, else ``venvs`` in the
    package's cache folder: :func:`agentgym_envs.paths.cache_root`)."""
    base = os.environ.get("AGENTGYM_VENV_DIR")
    return Path(base) if base else cache_root("venvs")


def source_root() -> Path:
    """The agentgym-envs source tree (the folder holding ``pyproject.toml``)."""
    return Path(__file__).resolve().parents[2]


def _requirements(source: Path, extras: tuple[str, ...]) -> list[str]:
    """The core dependencies and those of ``extras`` (nested extras of ours included)."""
    import tomllib

    project = tomllib.loads((source / "pyproject.toml").read_text())["project"]
    optional = project.get("optional-dependencies", {})
    reqs, todo, seen = list(project.get("dependencies", [])), list(extras), set()
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for req in optional.get(extra, []):
            if req.startswith(f"{project['name']}["):
                todo += req.split("[", 1)[1].rstrip("]").split(",")
            else:
                reqs.append(req)
    return sorted(reqs)


def _version(python: str | Path) -> tuple[int, int, int] | None:
    """``python``'s version, or ``None`` when it does not run."""
    try:
        out = subprocess.run(
            [str(python), "-c", "import sys; print(*sys.version_info[:3])"],
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout.split()
        return (int(out[0]), int(out[1]), int(out[2]))
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        return None


def _candidates() -> list[Path]:
    """Interpreters to try: ``$AGENTGYM_ECOSYSTEM_PYTHON``, pyenv's versions, ``python3.X``."""
    found = []
    if os.environ.get("AGENTGYM_ECOSYSTEM_PYTHON"):
        found.append(Path(os.environ["AGENTGYM_ECOSYSTEM_PYTHON"]))
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    if root.is_dir():
        found += sorted(root.glob("*/bin/python"))
    for minor in range(12, 16):
        which = shutil.which(f"python3.{minor}")
        if which:
            found.append(Path(which))
    return found


@functools.cache
def base_python(name: str) -> str:
    """The interpreter an ecosystem's venv is made from: this one when it is new enough,
    else the oldest new-enough CPython found (pyenv's versions, ``python3.X`` on ``PATH``).

    Raises:
        RuntimeError: no new-enough interpreter exists (one line, with the mend).
    """
    need = MIN_PYTHON.get(name)
    if need is None or sys.version_info[:2] >= need:
        return sys.executable
    versions = {}
    for path in _candidates():
        version = _version(path)
        if version is not None and version[:2] >= need:
            versions.setdefault(version, str(path))
    if not versions:
        raise RuntimeError(
            f"{name} needs Python >= {need[0]}.{need[1]} and none was found: install one "
            f"(e.g. `pyenv install {need[0]}.{need[1]}`) or set AGENTGYM_ECOSYSTEM_PYTHON"
        )
    return versions[min(versions)]


def _key(name: str, extras: tuple[str, ...], source: Path, python: str) -> str:
    version = sys.version if python == sys.executable else f"{python}|{_version(python)}"
    digest = hashlib.sha256(f"{name}|{version}".encode())
    digest.update("\n".join(_requirements(source, extras)).encode())
    return f"{name}-{digest.hexdigest()[:12]}"


def ecosystem_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """``base`` (default ``os.environ``) with this checkout first on ``PYTHONPATH``."""
    env = dict(os.environ if base is None else base)
    paths = [str(source_root()), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    return env


def uv_binary() -> str | None:
    """uv's executable (``uv`` on ``PATH``, else the ``uv`` package's), or ``None``."""
    found = shutil.which("uv")
    if found:
        return found
    try:
        from uv import find_uv_bin
    except ImportError:
        return None
    try:
        return find_uv_bin()
    except FileNotFoundError:
        return None


#: Installer output lines worth showing as progress (uv's summaries, pip's per-package lines).
_PROGRESS = ("Resolved", "Prepared", "Installed", "Built", "Building", "Collecting", "Successfully")


def run_logged(cmd: list[str], log: Path, what: str, env: dict[str, str] | None = None) -> int:
    """Run ``cmd`` with its output appended to ``log``; installer milestones (uv's "Resolved
    ... / Prepared ... / Installed ...", pip's "Collecting ...") go to the logger as progress
    lines, each with the seconds so far. Returns the exit code."""
    import time

    start = time.monotonic()
    with open(log, "a") as sink:
        sink.write(f"$ {' '.join(cmd)}\n")
        sink.flush()
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
        )
        assert proc.stdout is not None
        for line in proc.stdout:
            sink.write(line)
            if line.lstrip().startswith(_PROGRESS):
                logger.info("%s [%.0fs] %s", what, time.monotonic() - start, line.strip())
        return proc.wait()


def _install(python: Path, spec: str, log: Path, name: str) -> int:
    """Install ``spec`` (editable) into the venv of ``python``: with uv when there is one (one
    resolution, parallel downloads), else pip."""
    uv = uv_binary()
    if uv:
        cmd = [uv, "pip", "install", "--python", str(python), "-e", spec]
    else:
        cmd = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-e", spec]
    return run_logged(cmd, log, f"{name} venv")


@contextlib.contextmanager
def progress_shown() -> Iterator[None]:
    """Show this module's INFO lines (a build's progress) on stderr for the block's duration
    when nothing would show them: the caller configured no logging handler at all (a script
    calling :func:`ecosystem_python`). A caller's own logging setup is left to decide."""
    if logging.getLogger().handlers or logger.handlers:
        yield
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def ecosystem_python(name: str, extras: tuple[str, ...] = ("tools",)) -> Path:
    """The interpreter of a venv with ``agentgym-envs[<name>, *extras]`` installed (editable).

    Built once per requirement set (with uv when it is installed, else pip); while it builds,
    the log path and the installer's milestones are logged at INFO level, and the full output
    is kept in ``<venv>.log``.

    Args:
        name: an ecosystem of :data:`ECOSYSTEMS` (its extra has the same name).
        extras: more extras to install (default ``tools``, for the tool families).

    Raises:
        RuntimeError: the install failed (the installer's last lines and the log path are in
            the message), or the ecosystem needs a newer Python than any found
            (:func:`base_python`).
    """
    import time

    if name not in ECOSYSTEMS:
        raise ValueError(f"unknown ecosystem {name!r}: use one of {sorted(ECOSYSTEMS)}")
    source = source_root()
    all_extras = (name, *extras)
    interpreter = base_python(name)
    target = venv_root() / _key(name, tuple(sorted(all_extras)), source, interpreter)
    spec = f"{source}[{','.join(all_extras)}]"

    def build(python: Path, log: Path) -> str:
        with progress_shown():
            logger.info("building the %s environment in %s (log: %s)", name, target, log)
            start = time.monotonic()
            if interpreter == sys.executable:
                venv.EnvBuilder(with_pip=True).create(target)
            else:
                subprocess.run([interpreter, "-m", "venv", str(target)], check=True)
            if _install(python, spec, log, name) != 0:
                tail = "\n".join(log.read_text().strip().splitlines()[-5:])
                raise RuntimeError(f"installing agentgym-envs[{name}] failed (log: {log}):\n{tail}")
            logger.info("built the %s environment in %.0f s", name, time.monotonic() - start)
        return spec

    return venv_built_once(target, build)


def venv_built_once(target: Path, build: Callable[[Path, Path], str]) -> Path:
    """The interpreter of the venv at ``target``, made by ``build(python, log)`` the first
    time: under a lock (processes building it at once wait for one build), its output in
    ``<target>.log``; a build that raises leaves nothing behind, and what it returns is kept
    in the venv's ``.ready`` marker."""
    python, ready = target / "bin" / "python", target / ".ready"
    if ready.exists():
        return python
    target.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(target.with_suffix(".lock")):
        if ready.exists():
            return python
        shutil.rmtree(target, ignore_errors=True)
        log = target.with_suffix(".log")
        log.write_text("")
        try:
            marker = build(python, log)
        except BaseException:
            shutil.rmtree(target, ignore_errors=True)
            raise
        ready.write_text(marker)
    return python


#: What goes into the wheel besides the package folder (read by its build).
_WHEEL_FILES = ("pyproject.toml", "README.md")


def source_digest(source: Path | None = None) -> str:
    """A hash of what the wheel is built from: the package's files and :data:`_WHEEL_FILES`."""
    source = source or source_root()
    digest = hashlib.sha256()
    files = [source / name for name in _WHEEL_FILES]
    files += sorted(
        p
        for p in (source / "agentgym_envs").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    )
    for path in files:
        digest.update(str(path.relative_to(source)).encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def package_wheel() -> Path:
    """This checkout's ``agentgym-envs`` wheel, built once per version and source hash (kept in
    ``wheels/<version>-<hash>`` of the cache folder); what ``agentgym export`` ships.

    Built from a clean copy of the sources (no stale ``build/`` files), without build isolation
    when setuptools is importable (nothing is fetched).

    Raises:
        RuntimeError: the build failed (its last lines are in the message), or this is an
            install without the sources (the mend: ``--release``).
    """
    import importlib.util
    import tempfile

    from agentgym_envs import __version__

    source = source_root()
    if not (source / "pyproject.toml").is_file():
        raise RuntimeError(
            f"agentgym-envs is installed without its sources (no pyproject.toml in {source}), "
            "so its wheel cannot be built: export with --release to pin the PyPI release"
        )
    folder = cache_root("wheels") / f"{__version__}-{source_digest(source)}"
    wheels = sorted(folder.glob("agentgym_envs-*.whl"))
    if wheels:
        return wheels[0]
    folder.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(folder.with_suffix(".lock")):
        wheels = sorted(folder.glob("agentgym_envs-*.whl"))
        if wheels:
            return wheels[0]
        logger.info("building the agentgym-envs %s wheel into %s", __version__, folder)
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / "src"
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
            shutil.copytree(source / "agentgym_envs", copy / "agentgym_envs", ignore=ignore)
            for name in _WHEEL_FILES:
                shutil.copy2(source / name, copy / name)
            cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp + "/out"]
            if importlib.util.find_spec("setuptools") is not None:
                cmd.append("--no-build-isolation")
            done = subprocess.run([*cmd, str(copy)], capture_output=True, text=True)
            built = sorted(Path(tmp, "out").glob("agentgym_envs-*.whl"))
            if done.returncode != 0 or not built:
                tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
                raise RuntimeError(f"building the agentgym-envs wheel failed:\n{tail}")
            staging = folder.with_name(folder.name + ".tmp")
            shutil.rmtree(staging, ignore_errors=True)
            staging.mkdir()
            shutil.copy2(built[0], staging / built[0].name)
            staging.rename(folder)
    return folder / built[0].name


def ecosystem_script(name: str, script: str, extras: tuple[str, ...] = ("tools",)) -> Path:
    """A console script (``vf-eval``, ``openenv``, ``orwd``...) of the ecosystem's venv."""
    return ecosystem_python(name, extras).parent / script
