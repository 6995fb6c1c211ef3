"""One sandbox: a command run by bubblewrap in its own identity, filesystem, network and
limits; what it tried and was refused, after the run.

The command runs as ``nobody`` (uid and gid 65534) of a user namespace of its own, with no
capabilities and no further user namespaces (``--disable-userns``), in its own mount, pid,
network, IPC, UTS and cgroup namespaces, in a session of its own (no terminal injection), and
dies with its parent (``--die-with-parent``; the pid namespace ends every process left when its
first one does). Its filesystem is :class:`~agentgym_envs.integrations.sandbox.view.View`'s; its
network only loopback, where the host's allowed ports are relayed
(:mod:`~agentgym_envs.integrations.sandbox.forward`,
:mod:`~agentgym_envs.integrations.sandbox.supervisor`); its limits
:class:`~agentgym_envs.integrations.sandbox.limits.Limits`.

A machine without ``bwrap``, or whose kernel refuses user namespaces, raises
:class:`SandboxUnavailableError`, one line that says the mend.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import re
import secrets
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agentgym_envs.errors import AgentGymError
from agentgym_envs.integrations.sandbox.audit import refusals
from agentgym_envs.integrations.sandbox.forward import Forwarder
from agentgym_envs.integrations.sandbox.limits import Limits, PidsCgroup
from agentgym_envs.integrations.sandbox.view import GID, UID, View, sandbox_python

logger = logging.getLogger(__name__)

_SUPERVISOR = Path(__file__).with_name("supervisor.py")
#: Environment variable names that hold secrets: left out of the sandbox's environment.
_SECRET_NAME = re.compile(
    r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|PRIVATE|AUTH|COOKIE|SESSION_ID", re.IGNORECASE
)
#: Where the sandbox's own files (supervisor, its config, the relay sockets) are inside.
INSIDE = "/run/agentgym"
#: The mend printed when the sandbox cannot run.
MEND = (
    "apt-get install bubblewrap (and allow unprivileged user namespaces), or run without the "
    "sandbox (--no-sandbox / sandbox=False: unsafe, the model's commands then run as you)"
)


class SandboxUnavailableError(AgentGymError):
    """This machine cannot run the sandbox (no ``bwrap``, or no user namespaces)."""


@functools.cache
def bwrap() -> str:
    """The ``bwrap`` command, proved to make the namespaces the sandbox needs; else
    :class:`SandboxUnavailableError` with the mend."""
    found = shutil.which("bwrap")
    if found is None:
        raise SandboxUnavailableError(f"the sandbox needs bubblewrap (bwrap): {MEND}")
    probe = [found, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent"]
    probe += ["--ro-bind", "/", "/", "--uid", str(UID), "--gid", str(GID), "true"]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxUnavailableError(f"bwrap does not run here ({exc}): {MEND}") from None
    if done.returncode != 0:
        reason = " ".join(done.stderr.split())[:200] or f"exit {done.returncode}"
        raise SandboxUnavailableError(f"bwrap cannot make a sandbox here ({reason}): {MEND}")
    return found


class Sandbox:
    """A sandbox for one process tree; a context manager (see the module docstring).

    Args:
        writable: folders the tree may write (the episode's home and workspace).
        readable: files and folders it may read besides the system's (an install prefix).
        ports: the host's ``127.0.0.1`` ports it may reach (the gateway, the MCP server).
        limits: what it may use (default :class:`Limits`).
        home: its user's home in the sandbox's ``passwd`` (default: the first writable folder).

    Use :meth:`command` and :meth:`environment` to start the tree (any way: ``Popen``), and
    after it ended :meth:`violations` for what it tried and was refused.
    """

    def __init__(
        self,
        writable: Iterable[os.PathLike[str] | str],
        readable: Iterable[os.PathLike[str] | str] = (),
        ports: Iterable[int] = (),
        limits: Limits | None = None,
        home: os.PathLike[str] | str | None = None,
    ) -> None:
        self.writable = [Path(p).resolve() for p in writable]
        self.readable = [Path(p).absolute() for p in readable]
        self.ports = [int(p) for p in ports]
        self.limits = limits or Limits()
        self.home = Path(home).resolve() if home is not None else None
        self.canary = f"agentgym-canary-{secrets.token_hex(12)}"
        self.run: Path | None = None
        self.view: View | None = None
        self.cgroup: PidsCgroup | None = None
        self._forwarder: Forwarder | None = None
        self._python = ""
        self._count = 0

    def __enter__(self) -> Sandbox:
        bwrap()
        try:
            self._open()
        except BaseException:
            self.close()
            raise
        return self

    def _open(self) -> None:
        self.run = Path(tempfile.mkdtemp(prefix="agentgym-sandbox-"))
        python, needs = sandbox_python()
        self._python = python
        self._forwarder = Forwarder(self.run / "sock", self.ports).__enter__()
        binds = [
            (_SUPERVISOR, f"{INSIDE}/supervisor.py"),
            (self.run / "sock", f"{INSIDE}/sock"),
            (self.run / "config", f"{INSIDE}/config"),
        ]
        (self.run / "config").mkdir()
        self.view = View(
            self.run, self.writable, [*needs, *self.readable], binds, self.canary, self.home
        )
        if self.limits.processes:
            self.cgroup = PidsCgroup.make(self.limits.processes)

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Kill what is left of the tree, stop the relays and remove the sandbox's folder."""
        if self.cgroup is not None:
            self.cgroup.close()
            self.cgroup = None
        if self._forwarder is not None:
            self._forwarder.__exit__(None, None, None)
            self._forwarder = None
        if self.run is not None:
            shutil.rmtree(self.run, ignore_errors=True)
            self.run = None

    def command(self, argv: list[str], cwd: os.PathLike[str] | str | None = None) -> list[str]:
        """The command line that runs ``argv`` in the sandbox (in ``cwd``: a writable folder),
        to be started with :meth:`environment`'s environment."""
        if self.run is None or self.view is None:
            raise RuntimeError("enter the sandbox (with Sandbox(...) as box) before its command")
        self._count += 1
        name = f"{self._count}.json"
        forward = [[p, f"{INSIDE}/sock/{p}.sock"] for p in self.ports]
        config = {"argv": list(argv), "forward": forward, "rlimits": self.limits.rlimits()}
        (self.run / "config" / name).write_text(json.dumps(config))
        box = [bwrap(), "--unshare-all", "--unshare-user", "--disable-userns"]
        box += ["--uid", str(UID), "--gid", str(GID), "--hostname", "sandbox"]
        box += ["--die-with-parent", "--new-session", *self.view.args()]
        box += ["--chdir", str(Path(cwd).resolve() if cwd else self.writable[0])]
        box += [self._python, "-I", "-S", f"{INSIDE}/supervisor.py", f"{INSIDE}/config/{name}"]
        if self.cgroup is None:
            return box
        join = 'echo $$ > "$0" && exec "$@"'
        return ["/bin/sh", "-c", join, str(self.cgroup.procs), *box]

    def environment(self, env: dict[str, str]) -> dict[str, str]:
        """``env`` for a process in the sandbox: without the variables whose names say they
        hold a secret (``*_KEY``, ``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*``, ``*AUTH*``...:
        a model's ``env`` would send them to it), ``TMPDIR`` its own ``/tmp``, and no host
        runtime folder (``XDG_RUNTIME_DIR``)."""
        kept = {k: v for k, v in env.items() if not (v and _SECRET_NAME.search(k))}
        kept["TMPDIR"] = "/tmp"
        kept.pop("XDG_RUNTIME_DIR", None)
        return kept

    def violations(self, calls: Iterable[dict[str, Any]] = ()) -> list[str]:
        """What the tree tried and the sandbox refused, one line each: paths it made outside
        its writable folders, and the refusals its tool results show in ``calls`` (the
        recorded chat calls: :func:`~agentgym_envs.integrations.sandbox.audit.refusals`)."""
        found = []
        if self.view is not None and self.run is not None:
            found += [
                f"a write outside the episode's folders was contained: {p}"
                for p in self.view.escaped()
            ]
        return found + refusals(calls, self.canary)


__all__ = ["INSIDE", "MEND", "Sandbox", "SandboxUnavailableError", "bwrap"]
