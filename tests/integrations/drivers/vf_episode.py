"""Drive our verifiers environment three ways, inside the ``verifiers`` venv.

* ``evaluate``: verifiers' own rollout loop (``Environment.evaluate``) on one task, against
  our expert chat server (an OpenAI-compatible endpoint whose model is the family's expert).

* ``direct``: the env's own rollout hooks (``setup_state``, ``env_response``) with the given
  actions written as ReAct replies -- after one reply with no action at all if the job says
  ``malformed`` (the env must answer with feedback and the episode go on); the rubric's
  score at the end.
* ``vf-eval``: verifiers' CLI evaluates the env against our expert chat server (an
  OpenAI-compatible endpoint whose model is the family's expert) and saves its results.
"""

from __future__ import annotations

import asyncio
import glob
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from common import done, job


async def direct(spec: dict) -> dict:
    from agentgym_envs.integrations.verifiers import load_environment
    from agentgym_envs.wrappers.react import format_react

    env = load_environment(spec["env_id"], num_tasks=spec["task_id"] + 1)
    row = env.eval_dataset[spec["task_id"]]
    state = {"info": row["info"], "trajectory_id": uuid.uuid4().hex, "prompt": row["prompt"]}
    state = await env.setup_state(state)
    out: dict = {"prompt": row["prompt"][0]["content"], "dataset_size": len(env.eval_dataset)}
    if spec.get("malformed"):
        feedback = await env.env_response([{"role": "assistant", "content": "hmm"}], state)
        out["malformed"] = {"answer": feedback[0]["content"], "turns": state["agentgym"]["turns"]}
    steps, start = [], time.perf_counter()
    for action in spec["actions"]:
        reply = [{"role": "assistant", "content": format_react("Next.", action)}]
        answer = await env.env_response(reply, state)
        steps.append(
            {
                "obs": answer[0]["content"],
                "reward": state["agentgym"]["rewards"][-1],
                "done": state.get("final_env_response") is not None,
            }
        )
        if steps[-1]["done"]:
            break
    out["seconds"] = time.perf_counter() - start
    out["steps"] = steps
    out["end"] = {k: v for k, v in state["agentgym"].items() if k != "rewards"}
    out["score"] = await env.agentgym_score(state)
    out["error"] = repr(state.get("error")) if state.get("error") else None
    await env.close_agentgym_env(state)
    if spec.get("broken_row"):  # a row naming no task: the env fails at reset
        info = dict(row["info"], task_id=10**6)
        broken = await env.setup_state({"info": info, "trajectory_id": uuid.uuid4().hex})
        out["broken"] = {
            "error": repr(broken.get("error")),
            "end": {k: v for k, v in broken["agentgym"].items() if k != "rewards"},
            "score": await env.agentgym_score(broken),
        }
        await env.close_agentgym_env(broken)
    return out


def evaluate(spec: dict) -> dict:
    """verifiers' own rollout loop (``evaluate``) on the job's task, the expert as the model."""
    from openai import AsyncOpenAI
    from verifiers.legacy.clients import OpenAIChatCompletionsClient

    from agentgym_envs.agents.expert_server import ExpertChatServer
    from agentgym_envs.integrations.verifiers import load_environment

    env = load_environment(spec["env_id"], num_tasks=spec["task_id"] + 1)
    with ExpertChatServer([spec["env_id"]]) as server:
        client = OpenAIChatCompletionsClient(AsyncOpenAI(base_url=server.base_url, api_key="x"))
        results = env.evaluate_sync(
            client, "expert", num_examples=spec["task_id"] + 1, state_columns=["agentgym"]
        )
    outputs = results["outputs"] if isinstance(results, dict) else results.outputs
    (row,) = [o for o in outputs if o["info"]["task_id"] == spec["task_id"]]
    record = row["agentgym"]
    observations = [m["content"] for m in row["completion"] if m["role"] == "user"]
    steps = [
        {"obs": obs, "reward": reward, "done": i == len(observations) - 1}
        for i, (obs, reward) in enumerate(zip(observations, record["rewards"], strict=True))
    ]
    return {
        "prompt": row["prompt"][0]["content"],
        "steps": steps,
        "end": {k: v for k, v in record.items() if k != "rewards"},
        "reward": row["reward"],
        "error": row.get("error"),
    }


def vf_eval(
    spec: dict, env_args: dict, module: str = "agentgym_envs.integrations.verifiers", path=None
) -> dict:
    from agentgym_envs.agents.expert_server import ExpertChatServer

    cli = Path(sys.executable).parent / "vf-eval"
    with ExpertChatServer([spec["env_id"]]) as server, tempfile.TemporaryDirectory() as out:
        cmd = [
            str(cli), module,
            "--env-args", json.dumps(env_args),
            "--model", "expert", "--api-base-url", server.base_url,
            "--api-key-var", "AGENTGYM_EXPERT_KEY",
            "--num-examples", str(spec.get("num_examples", 1)), "--rollouts-per-example", "1",
            "--max-concurrent", "4", "--save-results", "--output-dir", out,
            "--state-columns", "agentgym", "--disable-tui",
        ]  # fmt: skip
        env = dict(os.environ, AGENTGYM_EXPERT_KEY="none")
        if path is not None:  # an exported package, importable from its folder
            env["PYTHONPATH"] = os.pathsep.join([str(path), env.get("PYTHONPATH", "")])
        start = time.perf_counter()
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env)
        seconds = time.perf_counter() - start
        rows = []
        for path in glob.glob(f"{out}/**/results.jsonl", recursive=True):
            lines = Path(path).read_text().splitlines()
            rows += [json.loads(line) for line in lines if line.strip()]
    return {
        "returncode": run.returncode,
        "stderr": run.stderr[-4000:],
        "rows": rows,
        "seconds": seconds,
    }


def main() -> None:
    spec = job()
    result: dict = {}
    if "evaluate" in spec["modes"]:
        result["evaluate"] = evaluate(spec)
    if "direct" in spec["modes"]:
        result["direct"] = asyncio.run(direct(spec))
    if "vf-eval" in spec["modes"]:
        result["vf_eval"] = vf_eval(spec, {"env": spec.get("vf_env", spec["env_id"])})
    done(result)


if __name__ == "__main__":
    main()
