"""``agentgym export ID --to prime|openenv|ors|nemo-gym DIR``: a package of one id per hub.

Each package is a thin shim over agentgym-envs, which it requires as
``agentgym-envs[<hub extra>,<family extra>]==<this version>``, and it carries that
requirement with it: the built ``agentgym-envs`` wheel (:func:`~agentgym_envs.integrations.venvs.
package_wheel`, built once per version and source hash) is copied to its ``wheels/`` folder,
which every manifest names (``[tool.uv.sources]`` for uv, ``--find-links wheels`` in a
requirements file, ``COPY`` in a Dockerfile), so the package installs from its own folder with
no index serving agentgym-envs. Each family's data is in the wheel (or generated at first use).
With ``--release`` the package pins the PyPI release instead (checked to be there) and ships no
wheel. Its README carries the id's row of the env table. Per hub:

* ``prime`` (the Prime Environments Hub, verifiers 0.4): a taskset package as ``vf-init``
  lays one out -- ``pyproject.toml`` (hatchling, ``tags``, ``verifiers>=0.4.0``) and the
  package ``<module>/`` whose ``__all__`` exports the id's taskset and
  :class:`~agentgym_envs.integrations.verifiers.AgentGymEnv`. Install with ``prime env install
  <name> -p DIR`` (or ``uv pip install DIR/<module>``), evaluate with ``vf-eval <name>``,
  publish with ``prime env push`` (then ``prime eval run <owner>/<name> --hosted``: Prime's
  CLI evaluates only on its platform since 0.18).
* ``openenv`` (Hugging Face Spaces): ``openenv.yaml``, ``pyproject.toml`` with the ``server``
  script, ``uv.lock`` (written by ``uv lock`` when uv is installed), ``server/app.py``
  (``main()``), ``server/Dockerfile`` on OpenEnv's base image (``uv sync --frozen``) and
  ``__init__.py`` exporting the typed client. ``openenv validate`` checks it; ``openenv push``
  publishes it.
* ``ors`` (OpenReward): ``server.py`` serving the id on port 8080, ``requirements.txt`` and a
  ``Dockerfile``, as OpenReward builds from a connected repository.
* ``nemo-gym``: a NeMo Gym resources server folder (``app.py``, ``configs/<module>.yaml`` with
  a ``simple_agent``, ``data/example.jsonl``, ``requirements.txt``, ``README.md`` and
  ``tests/``), to put under a Gym checkout's ``resources_servers/``; with ``--rollouts`` also
  ``data/example_rollouts.jsonl`` and ``data/example_metrics.json``, made by NeMo Gym's own
  ``gym eval run`` and ``gym dataset collate`` (the expert, or ``--policy-url``, plays), which
  its data check (``gym env test ... +should_validate_data=true``) wants.

Nothing is published: the package is written to ``DIR/<name>`` (``agentgym-maze-v0``); Prime's
and NeMo Gym's folders are named by the module (``agentgym_maze_v0``), as ``prime env install
NAME -p DIR`` and Gym's ``resources_servers/`` look them up.
"""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

from agentgym_envs.errors import AgentGymError, unknown_name

logger = logging.getLogger(__name__)

#: Hub name -> the agentgym-envs extra its package depends on.
HUBS = {"prime": "verifiers", "openenv": "openenv", "ors": "openreward", "nemo-gym": "nemo-gym"}
#: The package's folder of wheels (agentgym-envs's), named by every manifest.
WHEELS = "wheels"
#: OpenEnv's base image (its ``openenv init`` template builds on it).
OPENENV_BASE_IMAGE = "ghcr.io/huggingface/openenv-base:latest"
#: Prime's Hub reads the verifiers API a package targets from its verifiers requirement (a
#: lower bound of 0.2.0 or newer: the ``verifiers.v1`` API, which 0.4 alone keeps).
VERIFIERS = "verifiers>=0.4.0"
#: OpenEnv's validator wants its core named among an env's own dependencies.
OPENENV_CORE = "openenv-core>=0.3.0,<0.4"
#: Hub name -> how the README names it.
HUB_TITLES = {
    "prime": "Prime Environments Hub (verifiers)",
    "openenv": "OpenEnv",
    "ors": "OpenReward (ORS)",
    "nemo-gym": "NeMo Gym resources server",
}


def requirement(env_id: str, hub: str) -> str:
    """The pinned dependency of a ``hub`` package for ``env_id``."""
    from agentgym_envs import __version__
    from agentgym_envs.spec import env_info

    extras = sorted({HUBS[hub], env_info(env_id).extra})
    return f"agentgym-envs[{','.join(extras)}]=={__version__}"


def readme(env_id: str, hub: str, usage: str, wheel: str | None) -> str:
    """The package README: what it is, the env table row, where agentgym-envs comes from, how
    to use it."""
    from agentgym_envs.docs import _ids_table
    from agentgym_envs.integrations.hubs import env_slug
    from agentgym_envs.spec import env_info

    info = env_info(env_id)
    table = "\n".join(_ids_table([info]))
    source = (
        f"The `agentgym-envs` wheel it needs is in `{WHEELS}/{wheel}`, which the manifests "
        "name, so it installs from this folder without an index serving agentgym-envs (its "
        "own dependencies come from your index or a local wheelhouse)."
        if wheel
        else "agentgym-envs comes from PyPI."
    )
    return (
        f"# {env_slug(env_id)}\n\n"
        f"`{info.id}` from [agentgym-envs](https://pypi.org/project/agentgym-envs/) as a "
        f"{HUB_TITLES[hub]} package: {info.description}\n\n{table}\n\n"
        f"Depends on `{requirement(env_id, hub)}`; the family's tasks, rules and scoring "
        f"come from there. {source}\n\n## Use\n\n" + usage.strip() + "\n"
    )


def _uv_source(wheel: str | None) -> str:
    """``[tool.uv.sources]`` naming the shipped wheel (nothing for a PyPI release)."""
    if not wheel:
        return ""
    return f'\n[tool.uv.sources]\nagentgym-envs = {{ path = "{WHEELS}/{wheel}" }}\n'


def _find_links(wheel: str | None) -> str:
    """The requirements-file line that finds the shipped wheel (nothing for a release)."""
    return f"--find-links {WHEELS}\n" if wheel else ""


def _prime(env_id: str, name: str, module: str, wheel: str | None) -> dict[str, str]:
    from agentgym_envs import __version__
    from agentgym_envs.integrations.verifiers_package import taskset_module_source
    from agentgym_envs.spec import env_info

    info = env_info(env_id)
    tags = ["agentgym", info.family, "multi-turn", "train" if info.splits.get("train") else "eval"]
    pip = (
        f"pip install --find-links {module}/{WHEELS} ./{module}"
        if wheel
        else f"pip install ./{module}"
    )
    usage = (
        "From the folder holding this one:\n\n"
        "```bash\n"
        f"prime env install {name} -p .          # uv pip install -e ./{module}\n"
        f"# or: {pip}\n"
        f"MODEL_KEY=... vf-eval {name} -m <model> --client.base-url <base_url> \\\n"
        "    --client.api-key-var MODEL_KEY -n 5 --no-push\n"
        f"prime env push -p {module}                # publish (needs `prime login`)\n"
        f"prime eval run <owner>/{name} --hosted -n 5   # Prime runs it (prime 0.18+ evaluates "
        "only hosted; locally, vf-eval)\n"
        "```\n\n"
        f"`{module}` is a verifiers 0.4 taskset package: its `__all__` exports the taskset and "
        "`AgentGymEnv`, the env that plays the user (each reply an action, each observation the "
        "next user turn) with one seat, `player`, on verifiers' `null` chat harness in the "
        "`subprocess` runtime. Options: `--env.taskset.split` (default `test`), "
        "`--env.taskset.num-tasks`, `--env.taskset.max-turns` (default AgentGym's max rounds), "
        "`--env.taskset.seed`, `--env.taskset.env-kwargs`; the seat: `--env.player.harness.id`, "
        "`--env.player.runtime.type`. The reward is the env's graded score; "
        "`agentgym_success` and `agentgym_turns` are metrics."
    )
    return {
        "pyproject.toml": (
            "[project]\n"
            f'name = "{name}"\n'
            f'version = "{__version__}"\n'
            f'description = "{info.id} (agentgym-envs) as a verifiers taskset"\n'
            f"tags = {json.dumps(tags)}\n"
            'requires-python = ">=3.11"\n'
            f'dependencies = ["{requirement(env_id, "prime")}", "{VERIFIERS}"]\n\n'
            "[build-system]\n"
            'requires = ["hatchling"]\n'
            'build-backend = "hatchling.build"\n\n'
            "[tool.hatch.build.targets.wheel]\n"
            f'packages = ["{module}"]\n' + _uv_source(wheel)
        ),
        f"{module}/__init__.py": taskset_module_source(env_id),
        "README.md": readme(env_id, "prime", usage, wheel),
    }


def _openenv(env_id: str, name: str, module: str, wheel: str | None) -> dict[str, str]:
    from agentgym_envs import __version__
    from agentgym_envs.spec import env_info

    info = env_info(env_id)
    usage = (
        "```bash\n"
        "openenv validate .   # uv.lock is written by `agentgym export` (or `uv lock`)\n"
        "uv run server --port 8000\n"
        "docker build -t "
        f"{name} -f server/Dockerfile .   # on OpenEnv's base image\n"
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
            + _uv_source(wheel)
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
            "# Built from the package folder: docker build -f server/Dockerfile .\n"
            f"ARG BASE_IMAGE={OPENENV_BASE_IMAGE}\n"
            "FROM ${BASE_IMAGE}\n"
            "WORKDIR /app/env\n"
            "# the package, its uv.lock and its wheels/ (agentgym-envs): no index serves that\n"
            "COPY . /app/env\n"
            "RUN command -v uv >/dev/null 2>&1 || pip install --no-cache-dir uv\n"
            "RUN uv sync --frozen --no-editable\n"
            'ENV PATH="/app/env/.venv/bin:$PATH" PYTHONPATH="/app/env"\n'
            "EXPOSE 8000\n"
            "HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \\\n"
            "    CMD curl -f http://localhost:8000/health || exit 1\n"
            'CMD ["uvicorn", "server.app:app", "--host", "0.0.0.0", "--port", "8000"]\n'
        ),
        "README.md": readme(env_id, "openenv", usage, wheel),
    }


def _ors(env_id: str, name: str, module: str, wheel: str | None) -> dict[str, str]:
    from agentgym_envs.spec import env_info

    info = env_info(env_id)
    usage = (
        "```bash\n"
        "pip install -r requirements.txt\n"
        "python server.py   # serves on :8080\n"
        "```\n\n"
        "Connect the repository to an OpenReward environment: it builds the Dockerfile. "
        "Splits are `train`/`test`; each task is `{env_id, split, task_id, seed}`; the one "
        "tool, `act(action)`, returns the next observation, the step's reward and `finished`."
    )
    copy = f"COPY {WHEELS}/ /app/{WHEELS}/\n" if wheel else ""
    return {
        "server.py": (
            f'"""The ORS server for {info.id} (agentgym-envs)."""\n\n'
            "from agentgym_envs.integrations.openreward import ors_server\n\n"
            f'server = ors_server(["{info.id}"])\n'
            "app = server.app\n\n"
            'if __name__ == "__main__":\n'
            '    server.run(host="0.0.0.0", port=8080)\n'
        ),
        "requirements.txt": _find_links(wheel) + requirement(env_id, "ors") + "\n",
        "Dockerfile": (
            "FROM python:3.11-slim\n"
            "WORKDIR /app\n"
            f"{copy}"
            "COPY requirements.txt server.py /app/\n"
            "RUN pip install --no-cache-dir -r requirements.txt\n"
            "EXPOSE 8080\n"
            'CMD ["python", "server.py"]\n'
        ),
        "README.md": readme(env_id, "ors", usage, wheel),
    }


def _nemo_gym(
    env_id: str,
    name: str,
    module: str,
    wheel: str | None,
    rollouts: bool = False,
    policy_url: str | None = None,
    policy: str | None = None,
) -> dict[str, str]:
    from agentgym_envs.integrations.nemo_gym_data import dataset_rows
    from agentgym_envs.spec import env_info

    info = env_info(env_id)
    server, agent = f"{module}_resources_server", f"{module}_simple_agent"
    data = f"resources_servers/{module}/data/example.jsonl"
    rows = dataset_rows(env_id, "test", 5, 0, agent)
    usage = (
        f"Put this folder under a NeMo Gym checkout's `resources_servers/` (as `{module}`), "
        "then from the checkout:\n\n"
        "```bash\n"
        f'gym env start "+config_paths=[resources_servers/{module}/configs/{module}.yaml,'
        'responses_api_models/vllm_model/configs/vllm_model.yaml]" \\\n'
        "  +policy_base_url=<base_url> +policy_api_key=<key> +policy_model_name=<model>\n"
        f"gym eval run --no-serve +agent_name={agent} +input_jsonl_fpath={data} \\\n"
        "  +output_jsonl_fpath=results/rollouts.jsonl\n"
        f"gym env test +entrypoint=resources_servers/{module}\n"
        "```\n\n"
        "NeMo Gym makes this server's venv from `requirements.txt`, which finds agentgym-envs "
        f"in `{WHEELS}/` (in a Gym checkout; NeMo Gym installed from PyPI pipes the file to "
        "uv through stdin, where a relative `--find-links` has no base: there, replace it with "
        f"the absolute path of `{WHEELS}/`). `data/example.jsonl` holds the first five test tasks; write more "
        "rows with `python -m agentgym_envs.integrations.nemo_gym data "
        f"{info.id} --agent {agent} --out data/train.jsonl --split train`. The model acts "
        "through the family's own tools; `/verify` returns AgentGym's graded score as the "
        "reward.\n\n"
        "NeMo Gym's data check (`gym env test +entrypoint=resources_servers/"
        f"{module} +should_validate_data=true`) also wants `data/example_rollouts.jsonl` (the "
        "five rows played through the `simple_agent`) and `data/example_metrics.json` (`gym "
        "dataset collate ... +mode=example_validation`). `agentgym export ... --to nemo-gym "
        "--rollouts` writes both by running those NeMo Gym commands on this folder, with the "
        "expert as the model (its rewards are 1.0) or, with `--policy-url URL/v1 "
        "[--policy-model NAME]`, any OpenAI-compatible endpoint. "
        + (
            "This folder has them: played by "
            + (f"`{policy}` at {policy_url}" if policy_url else "the expert")
            + "."
            if rollouts
            else "This folder was exported without them: the data check fails until you add "
            "them (export again with `--rollouts`, or run the two commands it names)."
        )
    )
    config = (
        f"# {info.id} (agentgym-envs) as a NeMo Gym resources server, played by NeMo Gym's\n"
        "# simple_agent. Each dataset row names its task (env_id, split, task_id, seed).\n"
        f"{server}:\n"
        "  resources_servers:\n"
        f"    {module}:\n"
        "      entrypoint: app.py\n"
        "      domain: agent\n"
        "      verified: false\n"
        f"      description: {info.id} from agentgym-envs\n"
        "      # turn limit per episode; null is AgentGym's max rounds for the id\n"
        "      max_turns: null\n"
        "      max_sessions: 1024\n"
        f"{agent}:\n"
        "  responses_api_agents:\n"
        "    simple_agent:\n"
        "      entrypoint: app.py\n"
        "      resources_server:\n"
        "        type: resources_servers\n"
        f"        name: {server}\n"
        "      model_server:\n"
        "        type: responses_api_models\n"
        "        name: policy_model\n"
        "      max_steps: 100\n"
        "      datasets:\n"
        "      - name: example\n"
        "        type: example\n"
        f"        jsonl_fpath: {data}\n"
        "        license: MIT\n"
    )
    tests = (
        f'"""The {info.id} resources server answers NeMo Gym\'s calls: seed, tools, verify."""\n\n'
        "import json\n"
        "from pathlib import Path\n"
        "from unittest.mock import MagicMock\n\n"
        "from fastapi.testclient import TestClient\n"
        "from nemo_gym.server_utils import ServerClient\n\n"
        "from agentgym_envs.integrations.nemo_gym import (\n"
        "    AgentGymResourcesServer,\n"
        "    AgentGymResourcesServerConfig,\n"
        ")\n\n"
        'ROWS = Path(__file__).parents[1] / "data" / "example.jsonl"\n\n\n'
        "def _client() -> TestClient:\n"
        '    config = AgentGymResourcesServerConfig(host="", port=0, entrypoint="", name="")\n'
        "    server = AgentGymResourcesServer(config=config, server_client=MagicMock(spec=ServerClient))\n"
        "    return TestClient(server.setup_webserver())\n\n\n"
        "def test_example_rows_name_tasks_and_tools():\n"
        "    rows = [json.loads(line) for line in ROWS.read_text().splitlines()]\n"
        "    assert rows and all(\n"
        f'        row["env_id"] == "{info.id}" and row["responses_create_params"]["tools"] for row in rows\n'
        "    )\n\n\n"
        "def test_seed_then_a_tool_call_steps_the_env_and_verify_reports_the_episode():\n"
        "    row = json.loads(ROWS.read_text().splitlines()[0])\n"
        "    client = _client()\n"
        '    assert client.post("/seed_session", json=row).status_code == 200\n'
        '    tool = row["responses_create_params"]["tools"][0]["name"]\n'
        '    assert client.post(f"/{tool}", json={}).status_code in (200, 422)\n'
        '    verify = client.post("/verify", json={**row, "response": _response()})\n'
        "    assert verify.status_code == 200\n"
        '    assert verify.json()["agentgym"]["turns"] >= 0\n\n\n'
        "def test_a_row_naming_no_task_is_a_422():\n"
        "    row = json.loads(ROWS.read_text().splitlines()[0])\n"
        '    bad = _client().post("/seed_session", json={**row, "task_id": 10**6})\n'
        "    assert bad.status_code == 422\n\n\n"
        "def _response() -> dict:\n"
        '    return {"id": "r", "created_at": 0.0, "model": "m", "object": "response",\n'
        '            "output": [], "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}\n'
    )
    return {
        "app.py": (
            f'"""NeMo Gym\'s entry point for {info.id} (agentgym-envs): ``entrypoint: app.py``."""\n\n'
            "from agentgym_envs.integrations.nemo_gym import AgentGymResourcesServer\n\n"
            'if __name__ == "__main__":\n'
            "    AgentGymResourcesServer.run_webserver()\n"
        ),
        f"configs/{module}.yaml": config,
        "data/example.jsonl": "".join(json.dumps(row) + "\n" for row in rows),
        # pytest: `gym env test` runs the server's tests in the venv made from this file (NeMo
        # Gym's own servers get it through `nemo-gym[dev]`)
        "requirements.txt": _find_links(wheel) + requirement(env_id, "nemo-gym") + "\npytest\n",
        "tests/__init__.py": "",
        "tests/test_app.py": tests,
        "README.md": readme(env_id, "nemo-gym", usage, wheel),
    }


_WRITERS = {"prime": _prime, "openenv": _openenv, "ors": _ors, "nemo-gym": _nemo_gym}


def release_on_pypi(version: str, timeout: float = 20) -> None:
    """Raise a one-line :class:`AgentGymError` unless agentgym-envs ``version`` is on PyPI."""
    import urllib.error
    import urllib.request

    url = f"https://pypi.org/pypi/agentgym-envs/{version}/json"
    try:
        with urllib.request.urlopen(url, timeout=timeout):
            return
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            raise AgentGymError(
                f"agentgym-envs {version} is not on PyPI: export without --release to ship "
                "the wheel in the package"
            ) from None
        raise AgentGymError(f"PyPI answered {exc.code} for {url}: retry later") from None
    except (urllib.error.URLError, OSError) as exc:
        raise AgentGymError(
            f"cannot reach PyPI to check agentgym-envs {version} ({exc}): export without "
            "--release to ship the wheel"
        ) from None


def uv_lock(root: Path) -> bool:
    """Write ``root/uv.lock`` with ``uv lock`` (resolved against the index; agentgym-envs from
    the shipped wheel). Returns whether it was written; without uv, logs the mend."""
    from agentgym_envs.integrations.venvs import run_logged, uv_binary

    uv = uv_binary()
    if uv is None:
        logger.warning("uv is not installed: run `uv lock` in %s before `openenv validate`", root)
        return False
    log = root.parent / f".{root.name}-uv-lock.log"
    logger.info("locking %s with uv (log: %s)", root, log)
    code = run_logged([uv, "lock", "--directory", str(root)], log, "uv lock")
    if code != 0:
        tail = "\n".join(log.read_text().strip().splitlines()[-3:])
        raise AgentGymError(f"`uv lock` failed in {root} (log: {log}):\n{tail}")
    log.unlink(missing_ok=True)
    return True


def export_package(
    env_id: str,
    hub: str,
    directory: str | Path,
    force: bool = False,
    release: bool = False,
    lock: bool = True,
    rollouts: bool = False,
    policy_url: str | None = None,
    policy_model: str | None = None,
) -> Path:
    """Write the ``hub`` package of ``env_id`` to ``directory/<name>``; returns that folder.

    Args:
        release: pin the agentgym-envs release on PyPI (checked) instead of shipping the wheel.
        lock: write OpenEnv's ``uv.lock`` (needs uv and the index).
        rollouts: NeMo Gym only: play the five example rows through NeMo Gym and write
            ``data/example_rollouts.jsonl`` and ``data/example_metrics.json``
            (:mod:`~agentgym_envs.integrations.nemo_gym_examples`; needs the ``nemo-gym``
            ecosystem venv, made on first use). Implied by ``policy_url``.
        policy_url: the OpenAI-compatible ``/v1`` root whose model plays them (default: the
            expert); ``policy_model`` names the model (default: the first it lists).

    Raises:
        AgentGymError: an unknown hub, the folder exists and ``force`` is false (with
            ``force``, the folder is replaced), ``release`` and the version is not on PyPI,
            ``rollouts`` for another hub, or the rollouts could not be made (one line, with
            the log path; the folder is written without them).
    """
    from agentgym_envs import __version__
    from agentgym_envs.integrations.hubs import env_slug
    from agentgym_envs.integrations.venvs import package_wheel
    from agentgym_envs.spec import resolve_id

    if hub not in HUBS:
        raise AgentGymError(unknown_name("hub", hub, HUBS))
    env_id = resolve_id(env_id)
    name = env_slug(env_id)
    module = name.replace("-", "_")
    # Prime's `prime env install NAME -p DIR` and NeMo Gym's resources_servers/ name the
    # folder by the module (underscores); the others by the package name
    root = Path(directory) / (module if hub in ("prime", "nemo-gym") else name)
    if root.exists() and any(root.iterdir()):
        if not force:
            raise AgentGymError(f"{root} exists and is not empty: pass --force to replace it")
        shutil.rmtree(root)  # a package of another hub must not leave its files behind
    rollouts = rollouts or bool(policy_url)
    if rollouts and hub != "nemo-gym":
        raise AgentGymError(f"--rollouts and --policy-url are for --to nemo-gym, not {hub}")
    if policy_url:  # before anything is written: a bad endpoint leaves no folder behind
        from agentgym_envs.integrations.nemo_gym_examples import endpoint_models

        policy_model = policy_model or endpoint_models(policy_url, _api_key())[0]
    if release:
        release_on_pypi(__version__)
    try:
        built = None if release else package_wheel()
    except RuntimeError as exc:
        raise AgentGymError(str(exc)) from None
    wheel = built.name if built else None
    if hub == "nemo-gym":
        files = _nemo_gym(env_id, name, module, wheel, rollouts, policy_url, policy_model)
    else:
        files = _WRITERS[hub](env_id, name, module, wheel)
    logger.info("writing the %s package of %s to %s", hub, env_id, root)
    _write(root, files)
    if built is not None:
        (root / WHEELS).mkdir(exist_ok=True)
        shutil.copy2(built, root / WHEELS / built.name)
    if hub == "openenv" and lock:
        uv_lock(root)
    if rollouts:
        from agentgym_envs.integrations.nemo_gym_examples import write_examples

        write_examples(root, env_id, policy_url, policy_model, _api_key())
    return root


def _api_key() -> str:
    """The key sent to a ``--policy-url`` endpoint: ``$OPENAI_API_KEY``, else ``none``."""
    import os

    return os.environ.get("OPENAI_API_KEY") or "none"


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def register_cli(app) -> None:
    """Add ``agentgym export``."""
    import typer

    @app.command("export")
    def export_command(
        env_id: str = typer.Argument(..., help="A registered id, e.g. AgentGym/Maze-v0."),
        directory: Path = typer.Argument(..., help="Folder to write the package into."),
        to: str = typer.Option(..., "--to", help="Hub: prime, openenv, ors or nemo-gym."),
        force: bool = typer.Option(False, "--force", help="Replace an existing package folder."),
        release: bool = typer.Option(
            False, "--release", help="Pin the PyPI release instead of shipping the wheel."
        ),
        lock: bool = typer.Option(
            True, "--lock/--no-lock", help="Write OpenEnv's uv.lock (needs uv and the index)."
        ),
        rollouts: bool = typer.Option(
            False,
            "--rollouts",
            help="NeMo Gym: play the 5 example rows through NeMo Gym (gym eval run) and write "
            "data/example_rollouts.jsonl and data/example_metrics.json (the expert plays).",
        ),
        policy_url: str | None = typer.Option(
            None,
            "--policy-url",
            help="NeMo Gym: an OpenAI-compatible /v1 root whose model plays the example rows "
            "instead of the expert (key: $OPENAI_API_KEY); implies --rollouts.",
        ),
        policy_model: str | None = typer.Option(
            None, "--policy-model", help="The model name at --policy-url (default: its first)."
        ),
    ) -> None:
        """Write a package of one id for a hub (Prime, OpenEnv, OpenReward, NeMo Gym)."""
        root = export_package(
            env_id, to, directory, force=force, release=release, lock=lock, rollouts=rollouts,
            policy_url=policy_url, policy_model=policy_model,
        )  # fmt: skip
        typer.echo(f"wrote the {to} package of {env_id} to {root}")
