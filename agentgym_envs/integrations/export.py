"""``agentgym export ID --to prime|openenv|ors DIR``: a publishable package of one id per hub.

Each package is a thin shim over agentgym-envs, which it pins as
``agentgym-envs[<hub extra>,<family extra>]==<this version>``; its README carries the id's row
of the env table. Per hub:

* ``prime`` (the Prime Environments Hub, verifiers): ``pyproject.toml`` (hatchling, ``tags``,
  ``[tool.verifiers.eval]`` defaults) and ``<module>.py`` whose ``load_environment(**kwargs)``
  returns :func:`agentgym_envs.integrations.verifiers.load_environment` for the id. Push with
  ``prime env push``; ``vf-eval <name>`` runs it once installed.
* ``openenv`` (Hugging Face Spaces): ``openenv.yaml``, ``pyproject.toml`` with the ``server``
  script, ``server/app.py`` (``main()``), ``server/Dockerfile`` and ``__init__.py`` exporting
  the typed client. ``openenv validate`` checks it (it also wants the ``uv.lock`` that
  ``uv lock`` writes); ``openenv push`` publishes it.
* ``ors`` (OpenReward): ``server.py`` serving the id on port 8080, ``requirements.txt`` and a
  ``Dockerfile``, as OpenReward builds from a connected repository.

Nothing is published: the package is written to ``DIR/<name>`` (``agentgym-maze-v0``...).
"""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

from agentgym_envs.errors import AgentGymError, unknown_name

logger = logging.getLogger(__name__)

#: Hub name -> the agentgym-envs extra its package depends on.
HUBS = {"prime": "verifiers", "openenv": "openenv", "ors": "openreward"}
#: OpenEnv's validator wants its core named among an env's own dependencies.
OPENENV_CORE = "openenv-core>=0.3.0,<0.4"
#: Hub name -> how the README names it.
HUB_TITLES = {
    "prime": "Prime Environments Hub (verifiers)",
    "openenv": "OpenEnv",
    "ors": "OpenReward (ORS)",
}


def requirement(env_id: str, hub: str) -> str:
    """The pinned dependency of a ``hub`` package for ``env_id``."""
    from agentgym_envs import __version__
    from agentgym_envs.spec import env_info

    extras = sorted({HUBS[hub], env_info(env_id).extra})
    return f"agentgym-envs[{','.join(extras)}]=={__version__}"


def readme(env_id: str, hub: str, usage: str) -> str:
    """The package README: what it is, the env table row, how to use it."""
    from agentgym_envs.docs import _ids_table
    from agentgym_envs.integrations.hubs import env_slug
    from agentgym_envs.spec import env_info

    info = env_info(env_id)
    table = "\n".join(_ids_table([info]))
    return (
        f"# {env_slug(env_id)}\n\n"
        f"`{info.id}` from [agentgym-envs](https://pypi.org/project/agentgym-envs/) as a "
        f"{HUB_TITLES[hub]} package: {info.description}\n\n{table}\n\n"
        f"Depends on `{requirement(env_id, hub)}`; the family's tasks, rules and scoring "
        "come from there.\n\n## Use\n\n" + usage.strip() + "\n"
    )


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _prime(env_id: str, name: str, module: str) -> dict[str, str]:
    from agentgym_envs import __version__
    from agentgym_envs.spec import env_info

    info = env_info(env_id)
    tags = ["agentgym", info.family, "multi-turn", "train" if info.splits.get("train") else "eval"]
    usage = (
        "```bash\n"
        f"prime env install <owner>/{name}   # or: pip install .\n"
        f"vf-eval {name} -m <model> -b <base_url> -n 5\n"
        "```\n\n"
        "Arguments of `load_environment`: `split` (default `test`), `num_tasks`, "
        "`max_turns` (default AgentGym's max rounds), `seed`, `env_kwargs`."
    )
    return {
        "pyproject.toml": (
            "[project]\n"
            f'name = "{name}"\n'
            f'version = "{__version__}"\n'
            f'description = "{info.id} (agentgym-envs) as a verifiers environment"\n'
            f"tags = {json.dumps(tags)}\n"
            'requires-python = ">=3.11"\n'
            f'dependencies = ["{requirement(env_id, "prime")}"]\n\n'
            "[build-system]\n"
            'requires = ["hatchling"]\n'
            'build-backend = "hatchling.build"\n\n'
            "[tool.hatch.build]\n"
            f'include = ["{module}.py"]\n\n'
            "[tool.verifiers.eval]\n"
            "num_examples = 5\n"
            "rollouts_per_example = 1\n"
        ),
        f"{module}.py": (
            f'"""{info.id} as a verifiers environment (agentgym-envs)."""\n\n'
            "from agentgym_envs.integrations.verifiers import AgentGymVerifiersEnv\n"
            "from agentgym_envs.integrations.verifiers import load_environment as _load\n\n\n"
            "def load_environment(**kwargs) -> AgentGymVerifiersEnv:\n"
            f'    """The verifiers environment playing {info.id}."""\n'
            f'    return _load("{info.id}", **kwargs)\n'
        ),
        "README.md": readme(env_id, "prime", usage),
    }


def _openenv(env_id: str, name: str, module: str) -> dict[str, str]:
    from agentgym_envs import __version__
    from agentgym_envs.spec import env_info

    info = env_info(env_id)
    usage = (
        "```bash\n"
        "openenv validate .   # after `uv lock`\n"
        "uv run server --port 8000\n"
        "```\n\n"
        "```python\n"
        f"from {module} import AgentGymAction, AgentGymEnvClient\n\n"
        'with AgentGymEnvClient(base_url="http://localhost:8000").sync() as env:\n'
        '    first = env.reset(task_id=0, split="test")\n'
        '    result = env.step(AgentGymAction(action="..."))\n'
        "```"
    )
    return {
        "openenv.yaml": (
            "spec_version: 1\n"
            f"name: {module}\n"
            "type: space\n"
            "runtime: fastapi\n"
            "app: server.app:app\n"
            "port: 8000\n"
        ),
        "pyproject.toml": (
            "[project]\n"
            f'name = "{name}"\n'
            f'version = "{__version__}"\n'
            f'description = "{info.id} (agentgym-envs) as an OpenEnv environment"\n'
            'requires-python = ">=3.11"\n'
            f'dependencies = ["{requirement(env_id, "openenv")}", "{OPENENV_CORE}"]\n\n'
            "[project.scripts]\n"
            f'server = "{module}.server.app:main"\n\n'
            "[build-system]\n"
            'requires = ["setuptools>=68"]\n'
            'build-backend = "setuptools.build_meta"\n\n'
            "[tool.setuptools]\n"
            f'packages = ["{module}", "{module}.server"]\n'
            f'package-dir = {{"{module}" = ".", "{module}.server" = "server"}}\n'
        ),
        "__init__.py": (
            f'"""{info.id} (agentgym-envs) as an OpenEnv environment: the typed client."""\n\n'
            "from agentgym_envs.integrations.openenv import (\n"
            "    AgentGymAction,\n"
            "    AgentGymEnvClient,\n"
            "    AgentGymObservation,\n"
            "    AgentGymState,\n"
            ")\n\n"
            '__all__ = ["AgentGymAction", "AgentGymEnvClient", "AgentGymObservation", '
            '"AgentGymState"]\n'
        ),
        "server/__init__.py": "",
        "server/app.py": (
            f'"""The OpenEnv server for {info.id}."""\n\n'
            "from agentgym_envs.integrations.openenv import create_openenv_app\n\n"
            f'app = create_openenv_app("{info.id}")\n\n\n'
            'def main(host: str = "0.0.0.0", port: int = 8000) -> None:\n'
            "    import uvicorn\n\n"
            "    uvicorn.run(app, host=host, port=port)\n\n\n"
            'if __name__ == "__main__":\n'
            "    main()\n"
        ),
        "server/Dockerfile": (
            "FROM python:3.11-slim\n"
            "WORKDIR /app\n"
            f'RUN pip install --no-cache-dir "{requirement(env_id, "openenv")}"\n'
            "COPY server/app.py /app/app.py\n"
            "EXPOSE 8000\n"
            'CMD ["python", "/app/app.py"]\n'
        ),
        "README.md": readme(env_id, "openenv", usage),
    }


def _ors(env_id: str, name: str, module: str) -> dict[str, str]:
    from agentgym_envs.spec import env_info

    info = env_info(env_id)
    usage = (
        "```bash\n"
        "python server.py   # serves on :8080\n"
        "```\n\n"
        "Connect the repository to an OpenReward environment: it builds the Dockerfile. "
        "Splits are `train`/`test`; each task is `{env_id, split, task_id, seed}`; the one "
        "tool, `act(action)`, returns the next observation, the step's reward and `finished`."
    )
    return {
        "server.py": (
            f'"""The ORS server for {info.id} (agentgym-envs)."""\n\n'
            "from agentgym_envs.integrations.openreward import ors_server\n\n"
            f'server = ors_server(["{info.id}"])\n'
            "app = server.app\n\n"
            'if __name__ == "__main__":\n'
            '    server.run(host="0.0.0.0", port=8080)\n'
        ),
        "requirements.txt": requirement(env_id, "ors") + "\n",
        "Dockerfile": (
            "FROM python:3.11-slim\n"
            "WORKDIR /app\n"
            "COPY requirements.txt server.py /app/\n"
            "RUN pip install --no-cache-dir -r requirements.txt\n"
            "EXPOSE 8080\n"
            'CMD ["python", "server.py"]\n'
        ),
        "README.md": readme(env_id, "ors", usage),
    }


_WRITERS = {"prime": _prime, "openenv": _openenv, "ors": _ors}


def export_package(env_id: str, hub: str, directory: str | Path, force: bool = False) -> Path:
    """Write the ``hub`` package of ``env_id`` to ``directory/<name>``; returns that folder.

    Raises:
        AgentGymError: an unknown hub, or the folder exists and ``force`` is false (with
            ``force``, the folder is replaced).
    """
    from agentgym_envs.integrations.hubs import env_slug
    from agentgym_envs.spec import resolve_id

    if hub not in HUBS:
        raise AgentGymError(unknown_name("hub", hub, HUBS))
    env_id = resolve_id(env_id)
    name = env_slug(env_id)
    root = Path(directory) / name
    if root.exists() and any(root.iterdir()):
        if not force:
            raise AgentGymError(f"{root} exists and is not empty: pass --force to replace it")
        shutil.rmtree(root)  # a package of another hub must not leave its files behind
    files = _WRITERS[hub](env_id, name, name.replace("-", "_"))
    logger.info("writing the %s package of %s to %s", hub, env_id, root)
    return _write(root, files)


def register_cli(app) -> None:
    """Add ``agentgym export``."""
    import typer

    @app.command("export")
    def export_command(
        env_id: str = typer.Argument(..., help="A registered id, e.g. AgentGym/Maze-v0."),
        directory: Path = typer.Argument(..., help="Folder to write the package into."),
        to: str = typer.Option(..., "--to", help="Hub: prime, openenv or ors."),
        force: bool = typer.Option(False, "--force", help="Replace an existing package folder."),
    ) -> None:
        """Write a publishable package of one id for a hub (Prime, OpenEnv, OpenReward)."""
        root = export_package(env_id, to, directory, force=force)
        typer.echo(f"wrote the {to} package of {env_id} to {root}")
