"""Play one episode of an ``agentgym export`` package inside a fresh venv it was installed
into offline (agentgym-envs from the package's own ``wheels/``), with the hub's own client.

* ``openenv``: ``openenv validate`` on the folder (``uv.lock`` included) and on the running
  server, whose app is the installed package's ``server.app``; the package's own typed client
  plays the expert's actions.
* ``ors``: the package's ``server.py`` served; the ``openreward`` SDK plays the expert's actions.

Prime's package is played by the ecosystems guide's own commands (``test_export.py``).

Nothing from the test's checkout is importable here: ``PYTHONPATH`` holds only the drivers.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

from common import Served, done, job

BIN = Path(sys.executable).parent


def _origin() -> str:
    import agentgym_envs

    return str(Path(agentgym_envs.__file__).resolve())


async def _openenv_play(module: str, url: str, actions: list[str]) -> dict:
    client_module = importlib.import_module(module)
    async with client_module.AgentGymEnvClient(base_url=url) as client:
        first = await client.reset(task_id=0, split="test", seed=0)
        steps = []
        for action in actions:
            result = await client.step(client_module.AgentGymAction(action=action))
            steps.append({"obs": result.observation.text, "reward": result.reward,
                          "done": result.done, "outcome": result.observation.outcome})  # fmt: skip
            if result.done:
                break
    return {"first": first.observation.text, "steps": steps}


def _validate(*args: str) -> dict:
    run = subprocess.run([str(BIN / "openenv"), "validate", *args, "--json"],
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    report = json.loads(run.stdout) if run.stdout.strip().startswith("{") else None
    return {"returncode": run.returncode, "report": report, "stderr": run.stderr[-2000:]}


def openenv(spec: dict) -> dict:
    package = Path(spec["package"])
    module = package.name.replace("-", "_")
    app = importlib.import_module(f"{module}.server.app").app
    out = {"validate_folder": _validate(str(package))}
    with Served(app) as served:
        out["episode"] = asyncio.run(_openenv_play(module, served.url, spec["actions"]))
        out["validate_url"] = _validate("--url", served.url, "--timeout", "60")
    return out


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
    result = {"openenv": openenv, "ors": ors}[spec["hub"]](spec)
    done(dict(result, agentgym_envs=_origin()))
