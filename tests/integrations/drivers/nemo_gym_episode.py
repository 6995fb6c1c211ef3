"""NeMo Gym's own CLI plays episodes against our resources server, inside the ``nemo-gym`` venv.

The job names episodes (``env_id``, ``task_id``, ``split``). The driver copies
``examples/nemo_gym`` (our server folder and config) to a scratch folder, writes the dataset
rows of those tasks, starts the expert chat server (the "model") and then NeMo Gym's CLI:
``gym env start`` (``ng_run``) with our config, NeMo Gym's ``simple_agent`` and its
``vllm_model`` server (which turns the agent's Responses API calls into chat completions for
the expert), and ``gym eval run --no-serve`` (``ng_collect_rollouts``), which plays every row
through the simple agent.

NeMo Gym makes a uv venv per server unless one is there; the driver points each server's venv
at this interpreter's own (``skip_venv_if_present``), so nothing is installed.

With ``"export": {"package", "wheelhouse"}`` an ``agentgym export --to nemo-gym`` folder joins
the run as one more resources server (its config, its ``simple_agent``, the first row of its
``data/example.jsonl``): NeMo Gym makes that server's venv itself from the folder's
``requirements.txt`` with no index and no network (``UV_OFFLINE``, ``UV_NO_INDEX``, the
wheelhouse as ``UV_FIND_LINKS``), agentgym-envs coming from the folder's ``wheels/``; then
NeMo Gym's own test command (``gym env test +entrypoint=... +should_validate_data=true``) runs
the folder's tests and its data check. The
project gets a ``pyproject.toml`` at its root, standing for the Gym checkout NeMo Gym's docs
start from (there it installs a server's ``requirements.txt`` as is).

With ``"bad": true`` it also calls the resources server with NeMo Gym's ``ServerClient`` (the
client its agents use): a row naming no task, a tool call outside any session, arguments that
break the schema and an unknown tool, each answered in NeMo Gym's error shape, then the
episode played to the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import done, free_port, job

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "nemo_gym"
SERVERS = (
    "resources_servers/agentgym",
    "resources_servers/agentgym_gymnasium",
    "responses_api_agents/simple_agent",
    "responses_api_agents/gymnasium_agent",
    "responses_api_models/vllm_model",
)
AGENT = "agentgym_simple_agent"
GYMNASIUM_AGENT = "agentgym_gymnasium_agent"
RESOURCES = "agentgym_resources_server"
GYMNASIUM_SERVER = "agentgym_gymnasium_server"


def _exported(work: Path, export: dict) -> tuple[str, dict]:
    """The exported folder under ``resources_servers/``; its config path and first row."""
    package = Path(export["package"])
    shutil.copytree(package, work / "resources_servers" / package.name)
    (work / "pyproject.toml").write_text('[project]\nname = "gym-checkout"\nversion = "0"\n')
    row = json.loads((package / "data" / "example.jsonl").read_text().splitlines()[0])
    return f"resources_servers/{package.name}/configs/{package.name}.yaml", row


def _export_tests(work: Path, export: dict, env: dict, overrides: list[str]) -> dict:
    """The exported folder's own tests under NeMo Gym's own test command, ``gym env test
    +entrypoint=resources_servers/<module> +should_validate_data=true``: NeMo Gym (re)makes the
    server's venv from its ``requirements.txt`` (offline: ``env``), runs pytest in the folder,
    then its data check (five example rows, their metrics and their rollouts)."""
    entry = f"resources_servers/{Path(export['package']).name}"
    keep = [o for o in overrides if o.startswith(("+uv_venv_dir=", "+uv_cache_dir="))]
    test = [_cli("gym"), "env", "test", f"+entrypoint={entry}", "+should_validate_data=true"]
    run = subprocess.run([*test, *keep],
                         capture_output=True, text=True, timeout=900, cwd=work,
                         env=dict(os.environ, **env))  # fmt: skip
    return {"returncode": run.returncode, "output": (run.stdout + run.stderr)[-3000:]}


def _project(
    work: Path, episodes: list[dict], broken: dict | None, extra_rows: list[dict] = ()
) -> Path:
    """The example folder in ``work``, its dataset the job's tasks; venvs linked to ours.

    A ``broken`` task's id gets an ``env_kwargs`` entry in the config that ``gymnasium.make``
    refuses: its env fails to start (the environment's failure, not the model's).
    """
    import yaml

    from agentgym_envs.integrations.nemo_gym import dataset_rows, write_dataset

    shutil.copytree(EXAMPLE, work, dirs_exist_ok=True)
    rows = []
    for ep in episodes + ([broken] if broken else []):
        text = ep.get("agent") == "gymnasium"  # NeMo Gym's gymnasium_agent, text replies
        agent = GYMNASIUM_AGENT if text else None
        count = ep["task_id"] + 1
        rows.append(dataset_rows(ep["env_id"], ep["split"], count, 0, agent, text)[-1])
    rows += extra_rows
    if broken:
        config_path = work / "resources_servers/agentgym/configs/agentgym.yaml"
        config = yaml.safe_load(config_path.read_text())
        server = config[RESOURCES]["resources_servers"]["agentgym"]
        server["env_kwargs"] = {broken["env_id"]: {"no_such_argument": 1}}
        config_path.write_text(yaml.safe_dump(config))
    write_dataset(work / "data" / "example.jsonl", rows)
    for server in SERVERS:
        link = work / "venvs" / server / ".venv"
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(sys.prefix)
    return work / "data" / "example.jsonl"


def _overrides(work: Path, base_url: str, head_port: int, more: tuple[str, ...] = ()) -> list[str]:
    import nemo_gym

    model_yaml = (
        Path(nemo_gym.PARENT_DIR) / "responses_api_models/vllm_model/configs/vllm_model.yaml"
    )
    configs = ",".join(
        [
            "resources_servers/agentgym/configs/agentgym.yaml",
            "resources_servers/agentgym_gymnasium/configs/agentgym_gymnasium.yaml",
            *more,
            str(model_yaml),
        ]
    )
    return [
        f"+config_paths=[{configs}]",
        f"+policy_base_url={base_url}",
        "+policy_api_key=none",
        "+policy_model_name=expert",
        "+skip_venv_if_present=true",
        f"+uv_venv_dir={work / 'venvs'}",
        "+head_server.host=127.0.0.1",
        f"+head_server.port={head_port}",
    ]


def _cli(name: str) -> str:
    return str(Path(sys.executable).parent / name)


def ng_run(work: Path, overrides: list[str], env: dict | None = None):
    """``gym env start`` until every server is up; stopped (with Ray's processes) on exit."""
    from agentgym_envs.integrations.nemo_gym_examples import GymServers

    env = dict(os.environ, **(env or {}))
    return GymServers(Path(_cli("gym")), work, overrides, env, work / "ng_run.log")


def _collect(work: Path, data: Path, overrides: list[str], parallel: int) -> dict:
    out = work / "results" / "rollouts.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = [
        _cli("gym"),
        "eval",
        "run",
        "--no-serve",
        f"+agent_name={AGENT}",
        f"+input_jsonl_fpath={data}",
        f"+output_jsonl_fpath={out}",
        f"+num_samples_in_parallel={parallel}",
        *[o for o in overrides if o.startswith("+head_server")],
    ]
    start = time.perf_counter()
    run = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=1800)
    seconds = time.perf_counter() - start
    read = lambda p: [json.loads(x) for x in p.read_text().splitlines() if x.strip()]
    failures = out.with_name(out.stem + "_failures.jsonl")
    metrics = out.with_name(out.stem + "_aggregate_metrics.json")
    return {
        "metrics": json.loads(metrics.read_text()) if metrics.exists() else None,
        "returncode": run.returncode,
        "stderr": (run.stderr + run.stdout)[-4000:],
        "seconds": seconds,
        "rollouts": read(out) if out.exists() else [],
        "failures": read(failures) if failures.exists() else [],
    }


def _text(item: dict) -> str:
    content = item.get("content")
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content)
    return content or ""


def _gymnasium_episode(rollout: dict) -> dict:
    """A gymnasium_agent rollout: the observations are the user messages after each reply,
    the last one in the final ``info``."""
    end = rollout["info"]
    output = rollout["response"]["output"]
    observations = [_text(o) for o in output if o.get("role") == "user"] + [end["observation"]]
    rewards = end.get("rewards", [])
    steps = [
        {"obs": obs, "reward": r, "done": i == len(rewards) - 1}
        for i, (obs, r) in enumerate(zip(observations, rewards, strict=True))
    ]
    replies = [_text(o) for o in output if o.get("type") == "message" and o["role"] == "assistant"]
    return {
        "agent": "gymnasium",
        "env_id": end["env_id"],
        "task_id": end["task_id"],
        "first": _text(rollout["responses_create_params"]["input"][0]),
        "steps": steps,
        "end": end,
        "reward": rollout["reward"],
        "replies": replies,
    }


def _episode(rollout: dict, export_agent: str | None = None) -> dict:
    """A rollout as the sameness test reads it: first text, steps, end."""
    if "agentgym" not in rollout:
        return _gymnasium_episode(rollout)
    end = rollout["agentgym"]
    outputs = [o for o in rollout["response"]["output"] if o["type"] == "function_call_output"]
    rewards = end.get("rewards", [])
    steps = [
        {"obs": o["output"], "reward": r, "done": i == len(outputs) - 1 and end["done"]}
        for i, (o, r) in enumerate(zip(outputs, rewards, strict=True))
    ]
    calls = [o for o in rollout["response"]["output"] if o["type"] == "function_call"]
    agent = (rollout.get("agent_ref") or {}).get("name")
    return {
        "agent": "export" if agent and agent == export_agent else "simple",
        "env_id": rollout["env_id"],
        "task_id": rollout["task_id"],
        "first": rollout["responses_create_params"]["input"][0]["content"],
        "steps": steps,
        "end": end,
        "reward": rollout["reward"],
        "calls": [{"name": c["name"], "arguments": c["arguments"]} for c in calls],
    }


async def _bad_input(overrides: list[str], spec: dict) -> dict:
    """NeMo Gym's ServerClient on the resources server: bad rows and calls, then the episode."""
    from nemo_gym.server_utils import BaseServerConfig, ServerClient

    from agentgym_envs.integrations.nemo_gym import dataset_rows

    port = int(next(o for o in overrides if o.startswith("+head_server.port")).split("=")[1])
    client = ServerClient.load_from_global_config(BaseServerConfig(host="127.0.0.1", port=port))

    async def post(
        path: str, body: dict, cookies=None, server: str = RESOURCES
    ) -> tuple[int, object, object]:
        response = await client.post(server, path, json=body, cookies=cookies)
        text = (await response.content.read()).decode()
        try:
            payload = json.loads(text)
        except ValueError:
            payload = text
        return response.status, payload, response.cookies

    row = dataset_rows(spec["env_id"], spec["split"], spec["task_id"] + 1)[spec["task_id"]]
    out: dict = {}
    status, payload, _ = await post("/seed_session", dict(row, task_id=10**6))
    out["bad_task"] = {"status": status, "body": payload}
    status, payload, _ = await post("/seed_session", dict(row, task_id="0"))
    out["bad_row"] = {"status": status, "body": payload}
    tool = row["responses_create_params"]["tools"][0]["name"]
    status, payload, _ = await post(f"/{tool}", {})
    out["no_session"] = {"status": status, "body": payload}
    status, _, cookies = await post("/seed_session", row)
    out["seed_status"] = status
    status, payload, _ = await post(f"/{tool}", {"no_such_argument": 1}, cookies)
    out["bad_arguments"] = {"status": status, "body": payload}
    status, payload, _ = await post("/no_such_tool", {}, cookies)
    out["unknown_tool"] = {"status": status, "body": payload}
    steps = []
    for call in spec["calls"]:
        status, payload, _ = await post(f"/{call['name']}", json.loads(call["arguments"]), cookies)
        steps.append({"status": status, "obs": payload})
    out["steps"] = steps
    # the gymnasium server: a malformed row, a task that does not exist, a step before /reset
    text_row = dataset_rows(spec["env_id"], spec["split"], 1, 0, GYMNASIUM_AGENT, True)[0]
    gym_bad = {}
    for name, body in (
        ("bad_row", dict(text_row, task_id="0")),
        ("bad_task", dict(text_row, task_id=10**6)),
    ):
        status, payload, _ = await post("/reset", body, server=GYMNASIUM_SERVER)
        gym_bad[name] = {"status": status, "body": payload}
    step = dict(text_row, response=spec["response"])
    status, payload, _ = await post("/step", step, server=GYMNASIUM_SERVER)
    gym_bad["no_session"] = {"status": status, "body": payload}
    out["gymnasium"] = gym_bad
    verify = dict(row, response=spec["response"])
    status, payload, _ = await post("/verify", verify, cookies)
    out["verify"] = {"status": status, "reward": payload.get("reward"), "end": payload["agentgym"]}
    return out


def main() -> None:
    from agentgym_envs.agents.expert_server import ExpertChatServer

    spec = job()
    sys.argv[1:] = []  # NeMo Gym's client reads its config from the command line (Hydra)
    episodes = spec["episodes"]
    env_ids = sorted({ep["env_id"] for ep in episodes})
    result: dict = {}
    # NeMo Gym's config loader (Hydra) writes outputs/<date>/ under the working folder
    with (
        tempfile.TemporaryDirectory() as tmp,
        contextlib.chdir(tmp),
        ExpertChatServer(env_ids) as expert,
    ):
        work = Path(tmp) / "project"
        work.mkdir()
        more, rows, env, export_agent, more_overrides = (), [], {}, None, []
        if spec.get("export"):
            config, row = _exported(work, spec["export"])
            more, rows = (config,), [row]
            # uv's cache beside the wheelhouse, kept across runs: the wheels are unpacked once
            uv_cache = Path(spec["export"]["wheelhouse"]).with_name("uv-cache")
            more_overrides = [f"+uv_cache_dir={uv_cache}"]
            export_agent = row["agent_ref"]["name"]
            # uv (for NeMo Gym's `uv venv`/`uv pip`) and this Python's own folder first: NeMo
            # Gym asks uv for this Python's version, which a pyenv shim may refuse
            first = [
                str(Path(spec["export"]["uv"]).parent),
                str(Path(os.path.realpath(sys.executable)).parent),
            ]
            path = os.pathsep.join([*first, os.environ["PATH"]])
            env = {"UV_OFFLINE": "1", "UV_NO_INDEX": "1", "PATH": path,
                   "UV_FIND_LINKS": spec["export"]["wheelhouse"]}  # fmt: skip
        data = _project(work, episodes, spec.get("broken"), rows)
        overrides = _overrides(work, expert.base_url, free_port(), more) + more_overrides
        start = time.perf_counter()
        with ng_run(work, overrides, env):
            result["startup_seconds"] = time.perf_counter() - start
            run = _collect(work, data, overrides, spec.get("parallel", 1))
            result["collect"] = {k: v for k, v in run.items() if k not in ("rollouts", "failures")}
            result["episodes"] = [_episode(r, export_agent) for r in run["rollouts"]]
            if spec.get("export"):  # where the exported server's venv imports agentgym-envs from
                venv = work / "venvs" / "resources_servers" / Path(spec["export"]["package"]).name
                probe = [str(venv / ".venv/bin/python"), "-c",
                         "import agentgym_envs; print(agentgym_envs.__file__)"]  # fmt: skip
                out = subprocess.run(
                    probe, capture_output=True, text=True, env={"PATH": os.environ["PATH"]}
                )
                result["export_origin"] = {"venv": str(venv), "file": out.stdout.strip(),
                                           "stderr": out.stderr[-2000:]}  # fmt: skip
                result["export_tests"] = _export_tests(work, spec["export"], env, overrides)
            result["failures"] = [
                {
                    k: r.get(k)
                    for k in ("env_id", "task_id", "reward", "agentgym", "_ng_failure_class")
                }
                for r in run["failures"]
            ]
            mine = [
                r
                for r in run["rollouts"]
                if "agentgym" in r and r["env_id"] == episodes[0]["env_id"]
            ]
            if spec.get("bad") and mine:  # the calls of the first episode's rollout again
                played = _episode(mine[0])
                bad_spec = dict(episodes[0], calls=played["calls"], response=mine[0]["response"])
                result["bad"] = asyncio.run(_bad_input(overrides, bad_spec))
    done(result)


if __name__ == "__main__":
    main()
