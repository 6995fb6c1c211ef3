"""What ``agentgym doctor`` checks: each family's extra and the programs some features run.

Every check is a :class:`Check` -- what was looked at, whether it is usable, and either what was
found or the one command that mends it. Nothing here starts a server or a browser: the checks
look for executables and packages only, so the doctor stays fast on any machine.
"""

from __future__ import annotations

import glob
import importlib
import platform
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass

import agentgym_envs
from agentgym_envs.browser import chromium_path
from agentgym_envs.spec import ENV_INFO

APT = "apt-get install -y"


@dataclass(frozen=True)
class Check:
    """One line of the doctor's table."""

    name: str
    ok: bool
    detail: str

    @property
    def command(self) -> bool:
        """Whether :attr:`detail` is a shell command that mends the check."""
        return self.detail.startswith(("pip install", APT))

    @property
    def status(self) -> str:
        return ("ok: " if self.ok else "missing: ") + self.detail


def _found(name: str, path: str | None, mend: str) -> Check:
    return Check(name, True, path) if path else Check(name, False, mend)


def python_check() -> Check:
    return Check("python", True, f"{platform.python_version()} ({sys.executable})")


def family_checks() -> list[Check]:
    """One check per family: is its extra installed?"""
    checks, seen = [], set()
    for info in ENV_INFO.values():
        if info.family in seen:
            continue
        seen.add(info.family)
        mend = f'pip install "agentgym-envs[{info.extra}]"'
        checks.append(
            Check(f"family {info.family}", info.installed, "installed" if info.installed else mend)
        )
    return checks


def java_check() -> Check:
    """Java for SciWorld's simulator (its own version check when the family is installed)."""
    try:
        java = importlib.import_module("agentgym_envs.envs.sciworld.java")
    except ImportError:
        return _found("java (sciworld)", shutil.which("java"), f"{APT} default-jre-headless")
    ok, message = java.check_java()
    return Check("java (sciworld)", ok, message)


def chromium_check() -> Check:
    """Chromium for WebArena and WebShop's browser mode (:func:`~agentgym_envs.browser.chromium_path`:
    ``AGENTGYM_CHROMIUM``, Debian's headless shell or Chromium)."""
    path = chromium_path()
    return _found("chromium (webarena, webshop browser)", path, f"{APT} chromium-headless-shell")


def local_model_check() -> Check:
    """The local SmolLM2 model (``agentgym llm serve``, ``--policy local``)."""
    from agentgym_envs.benchmarks.local_llm import local_llm_available
    from agentgym_envs.benchmarks.model_wheel import ModelFetchError, smollm2_path

    reason = local_llm_available()
    if reason:
        return Check("local model (llm serve)", False, reason)
    try:
        where = str(smollm2_path(fetch=False))
    except ModelFetchError:
        where = "model file fetched from the package index on first use (93 MB)"
    return Check("local model (llm serve)", True, where)


def nats_check() -> Check:
    """nats-server for the field runner's NATS event sink."""
    path = shutil.which("nats-server") or next(iter(glob.glob("/usr/sbin/nats-server")), None)
    return _found("nats-server (field runner events)", path, f"{APT} nats-server")


def postgresql_check() -> Check:
    """PostgreSQL's server programs for the experience store's second backend."""
    path = shutil.which("initdb") or next(
        iter(sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)), None
    )
    return _found("postgresql (experience store)", path, f"{APT} postgresql")


def sandbox_check() -> Check:
    """bubblewrap, and user namespaces it can make, for the sandbox harness episodes run in."""
    from agentgym_envs.integrations.sandbox import SandboxUnavailableError, bwrap

    bwrap.cache_clear()
    try:
        return Check("bubblewrap (harness sandbox)", True, bwrap())
    except SandboxUnavailableError as exc:
        return Check("bubblewrap (harness sandbox)", False, str(exc))


CHECKS: tuple[Callable[[], Check], ...] = (
    java_check,
    chromium_check,
    local_model_check,
    nats_check,
    postgresql_check,
    sandbox_check,
)


def run_checks() -> list[Check]:
    """Every check, in the doctor's order."""
    version = Check("agentgym-envs", True, agentgym_envs.__version__)
    return [python_check(), version, *family_checks(), *(check() for check in CHECKS)]


__all__ = ["CHECKS", "Check", "run_checks"]
