"""A NeMo Gym export's ``data/example_rollouts.jsonl`` and ``data/example_metrics.json``,
made by NeMo Gym itself.

NeMo Gym's own resources servers carry, beside ``data/example.jsonl`` (five rows), the
rollouts of those rows and the rows' metrics, and its data check (``gym env test
+entrypoint=resources_servers/<module> +should_validate_data=true``) wants both. They are made
here as NeMo Gym documents it, in the ``nemo-gym`` ecosystem venv
(:func:`~agentgym_envs.integrations.venvs.ecosystem_python`), with nothing installed and no
network:

1. the exported folder is put under ``resources_servers/`` of a scratch project, each server's
   venv being the ecosystem venv (``+skip_venv_if_present``);
2. ``gym env start`` runs its config with NeMo Gym's ``vllm_model`` server in front of the
   model: the expert (:class:`~agentgym_envs.agents.expert_server.ExpertChatServer`, on
   127.0.0.1) unless ``policy_url`` names another OpenAI-compatible endpoint;
3. ``gym eval run --no-serve`` plays the five rows through the folder's ``simple_agent`` and
   writes ``example_rollouts.jsonl`` (NeMo Gym's rollout lines: the row, the model's
   ``response``, ``reward`` and our ``/verify`` fields);
4. ``gym dataset collate +mode=example_validation`` writes ``example_metrics.json``.

Both files are copied into the folder's ``data/``. NeMo Gym starts a local Ray cluster for
the run; all its processes are stopped at the end.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from agentgym_envs.errors import AgentGymError

logger = logging.getLogger(__name__)

#: The model server NeMo Gym puts in front of an OpenAI-compatible endpoint (chat completions).
MODEL_CONFIG = "responses_api_models/vllm_model/configs/vllm_model.yaml"
#: NeMo Gym's own servers the run uses besides the exported one.
SERVERS = ("responses_api_agents/simple_agent", "responses_api_models/vllm_model")
#: The files written into the folder's ``data/``.
ROLLOUTS, METRICS = "example_rollouts.jsonl", "example_metrics.json"
#: How long NeMo Gym's servers may take to come up (a bound, not an expectation).
START_TIMEOUT = 1200


def endpoint_models(url: str, api_key: str = "none", timeout: float = 20) -> list[str]:
    """The model ids an OpenAI-compatible endpoint (``url`` is its ``/v1`` root) serves.

    Raises:
        AgentGymError: one line with the mend when it cannot be reached or is not one.
    """
    models = url.rstrip("/") + "/models"
    mend = (
        "start an OpenAI-compatible server there (e.g. `agentgym llm serve --port 18080`, "
        "then --policy-url http://127.0.0.1:18080/v1) or leave out --policy-url to play the "
        "rows with the expert"
    )
    request = urllib.request.Request(models, headers={"Authorization": f"Bearer {api_key}"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            body = json.loads(answer.read().decode())
    except urllib.error.HTTPError as exc:
        raise AgentGymError(f"{models} answered HTTP {exc.code}: {mend}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise AgentGymError(
            f"cannot reach the model endpoint {models} ({reason}): {mend}"
        ) from None
    ids = [m.get("id") for m in body.get("data", []) if isinstance(m, dict)]
    if not ids:
        raise AgentGymError(f"{models} lists no model: {mend}")
    return ids


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _fail(what: str, log: Path) -> AgentGymError:
    lines = [x for x in log.read_text(errors="replace").splitlines() if x.strip()] or ["(empty)"]
    return AgentGymError(f"{what} (log: {log}; last line: {lines[-1].strip()[:300]})")


class GymServers:
    """``gym env start`` (NeMo Gym's CLI ``gym``) with ``overrides`` in ``work``, in its own
    process group, its output appended to ``log``: entering waits until every server is up
    (:class:`AgentGymError` with the log's last line if it stops first); leaving stops it and
    everything it started (its servers, Ray's processes)."""

    def __init__(self, gym: Path, work: Path, overrides: list[str], env: dict, log: Path):
        self.log = log
        self.proc = subprocess.Popen(
            [str(gym), "env", "start", *overrides],
            cwd=work,
            stdout=log.open("a"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env=dict(env, PYTHONUNBUFFERED="1"),
        )

    def __enter__(self) -> GymServers:
        deadline = time.monotonic() + START_TIMEOUT
        while "servers ready!" not in self.log.read_text(errors="replace"):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.__exit__()
                raise _fail("NeMo Gym's servers (gym env start) did not start", self.log)
            time.sleep(1)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                pass
        try:  # anything of the run still alive (its servers, Ray's processes)
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _gym(gym: Path, args: list[str], work: Path, env: dict, log: Path, what: str) -> None:
    with log.open("a") as sink:
        sink.write(f"$ gym {' '.join(args)}\n")
        sink.flush()
        code = subprocess.run(
            [str(gym), *args], cwd=work, env=env, stdout=sink, stderr=subprocess.STDOUT
        ).returncode
    if code != 0:
        raise _fail(f"{what} failed with exit code {code}", log)


def write_examples(
    root: Path,
    env_id: str,
    policy_url: str | None = None,
    policy_model: str | None = None,
    api_key: str = "none",
) -> tuple[Path, Path]:
    """Play the exported folder ``root``'s five example rows through NeMo Gym and write
    ``data/example_rollouts.jsonl`` and ``data/example_metrics.json``; returns both paths.

    Args:
        policy_url: an OpenAI-compatible ``/v1`` root to play the rows (default: the expert,
            served on 127.0.0.1 for the run).
        policy_model: the model name sent to it (default: the first it lists).

    Raises:
        AgentGymError: one line (with the log path) when the endpoint cannot be reached, the
            ``nemo-gym`` venv cannot be made, NeMo Gym fails, or a row's environment failed.
    """
    from agentgym_envs.agents.expert_server import ExpertChatServer
    from agentgym_envs.integrations.venvs import ecosystem_env, ecosystem_python, source_root

    module = root.name
    if policy_url:
        policy_model = policy_model or endpoint_models(policy_url, api_key)[0]
    if not (source_root() / "pyproject.toml").exists():
        raise AgentGymError(
            "--rollouts runs NeMo Gym in the nemo-gym ecosystem venv, which is built from an "
            "agentgym-envs source checkout: export from a checkout (pip install -e .), or run "
            "the NeMo Gym commands the folder's README names"
        )
    try:
        python = ecosystem_python("nemo-gym")
    except RuntimeError as exc:
        raise AgentGymError(str(exc).splitlines()[0]) from None
    gym = python.parent / "gym"
    log = root.parent / f".{module}-nemo-gym-examples.log"
    log.write_text("")
    logger.info("playing the example rows of %s through NeMo Gym (log: %s)", root, log)
    with tempfile.TemporaryDirectory(prefix="nemo-gym-examples-") as tmp:
        work = Path(tmp)
        here = work / "resources_servers" / module
        shutil.copytree(root, here, ignore=shutil.ignore_patterns("wheels", ".venv"))
        for server in (f"resources_servers/{module}", *SERVERS):
            link = work / "venvs" / server / ".venv"
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(python.parents[1])
        parent = subprocess.run(
            [str(python), "-c", "import nemo_gym; print(nemo_gym.PARENT_DIR)"],
            capture_output=True, text=True, check=True, env=ecosystem_env(),
        ).stdout.strip()  # fmt: skip
        config = f"resources_servers/{module}/configs/{module}.yaml"
        head = ["+head_server.host=127.0.0.1", f"+head_server.port={_free_port()}"]
        data = f"resources_servers/{module}/data"
        env = ecosystem_env()
        with ExpertChatServer([env_id]) if not policy_url else contextlib.nullcontext() as expert:
            url = policy_url or expert.base_url
            overrides = [
                f"+config_paths=[{config},{Path(parent) / MODEL_CONFIG}]",
                f"+policy_base_url={url}",
                f"+policy_api_key={api_key}",
                f"+policy_model_name={policy_model or 'expert'}",
                "+skip_venv_if_present=true",
                f"+uv_venv_dir={work / 'venvs'}",
                *head,
            ]
            with GymServers(gym, work, overrides, env, log):
                collect = ["eval", "run", "--no-serve", f"+agent_name={module}_simple_agent",
                           f"+input_jsonl_fpath={data}/example.jsonl",
                           f"+output_jsonl_fpath={data}/{ROLLOUTS}",
                           "+limit=null", "+num_samples_in_parallel=1", *head]  # fmt: skip
                _gym(gym, collect, work, env, log, "NeMo Gym's rollout collection (gym eval run)")
        _check_rollouts(here / "data", log)
        collate = ["dataset", "collate", f"+config_paths=[{config}]",
                   f"+output_dirpath={work / 'collated'}", "+mode=example_validation"]  # fmt: skip
        (here / "data" / METRICS).unlink(missing_ok=True)
        _gym(gym, collate, work, env, log, "NeMo Gym's example metrics (gym dataset collate)")
        out = root / "data"
        for name in (ROLLOUTS, METRICS):
            shutil.copy2(here / "data" / name, out / name)
    log.unlink(missing_ok=True)
    return out / ROLLOUTS, out / METRICS


def _check_rollouts(data: Path, log: Path) -> None:
    """Every example row has its rollout (none went to NeMo Gym's failures file)."""
    rollouts = data / ROLLOUTS
    failures = data / f"{rollouts.stem}_failures.jsonl"
    failed = failures.read_text().splitlines() if failures.exists() else []
    got = rollouts.read_text().splitlines() if rollouts.exists() else []
    rows = (data / "example.jsonl").read_text().splitlines()
    if failed or len(got) != len(rows):
        with log.open("a") as sink:
            sink.write("NeMo Gym's failures file:\n" + "\n".join(failed) + "\n")
        raise AgentGymError(
            f"{len(got)} of the {len(rows)} example rows have a rollout and {len(failed)} "
            f"failed in the environment: see {log} and rerun the export"
        )
    with log.open("a") as sink:
        sink.write(f"{len(got)} rollouts, rewards {[json.loads(x)['reward'] for x in got]}\n")
