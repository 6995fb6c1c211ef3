"""Check an ``agentgym export`` package with its hub's own tools, inside that hub's venv.

* ``prime``: build the wheel (hatchling, as the hub builds it), then ``vf-eval <name>`` runs
  the package's ``load_environment`` against the expert chat server.
* ``openenv``: ``uv lock`` (agentgym-envs from a local wheel: it is not on PyPI here), then
  ``openenv validate`` on the folder.
* ``ors``: serve the package's ``server.py`` app and play an episode with the SDK's client.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from common import Served, done, job

BIN = Path(sys.executable).parent


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900, **kw)


def prime(spec: dict) -> dict:
    from vf_episode import vf_eval

    package = Path(spec["package"])
    with tempfile.TemporaryDirectory() as wheels:
        built = _run([str(BIN / "python"), "-m", "pip", "wheel", "-q", "--no-deps", str(package),
                      "-w", wheels])  # fmt: skip
        names = sorted(os.listdir(wheels))
    module = package.name.replace("-", "_")
    run = vf_eval(spec, {}, module=package.name, path=package)
    return {"wheel": {"returncode": built.returncode, "stderr": built.stderr[-2000:],
                      "files": names}, "module": module, "vf_eval": run}  # fmt: skip


def openenv(spec: dict) -> dict:
    package = Path(spec["package"])
    if not (BIN / "uv").exists():
        _run([str(BIN / "python"), "-m", "pip", "install", "-q", "uv"])
    with tempfile.TemporaryDirectory() as wheels:
        _run([str(BIN / "python"), "-m", "pip", "wheel", "-q", "--no-deps", spec["source"],
              "-w", wheels])  # fmt: skip
        lock = _run(
            [str(BIN / "uv"), "lock"], cwd=package, env=dict(os.environ, UV_FIND_LINKS=wheels)
        )
        check = _run([str(BIN / "openenv"), "validate", str(package), "--json"])
    report = json.loads(check.stdout) if check.stdout.strip().startswith("{") else None
    return {"lock": {"returncode": lock.returncode, "stderr": lock.stderr[-2000:]},
            "validate": {"returncode": check.returncode, "report": report}}  # fmt: skip


def ors(spec: dict) -> dict:
    from ors_episode import play

    loader = importlib.util.spec_from_file_location(
        "exported_server", Path(spec["package"]) / "server.py"
    )
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    with Served(module.app) as served:
        return asyncio.run(play(served.url, spec))


if __name__ == "__main__":
    spec = job()
    done({"prime": prime, "openenv": openenv, "ors": ors}[spec["hub"]](spec))
