"""Drive our verifiers 0.4 environment inside the ``verifiers`` venv, three ways.

* ``evaluate``: verifiers' own episode loop (``Env.serving`` + ``Env.run_slot``, its
  interception server and ``null`` chat harness) on one task, against our expert chat server
  (an OpenAI-compatible endpoint whose model is the family's expert).
* ``scripted``: the same loop against a scripted chat server that answers, by the number of
  replies the conversation already holds, first with a reply carrying no action (the env must
  answer with feedback and the episode go on) and then with the given actions as ReAct replies;
  then one task that cannot reset (the episode must fail with the env's error); and the
  taskset naming an unknown id (the error must say the close match).
* ``vf-eval``: verifiers' CLI evaluates the taskset package (an ``agentgym export --to prime``
  module) against the expert chat server, or against ``base_url`` (the local model) when the job
  names one, and its saved traces are read back.
"""

from __future__ import annotations

import asyncio
import glob
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from common import done, job

KEY_VAR = "AGENTGYM_EXPERT_KEY"


def summary(episode: dict) -> dict:
    """What the tests read of a saved (or dumped) verifiers episode."""
    traces = episode.get("traces") or [{}]
    trace = traces[0]
    nodes = [n["message"] for n in trace.get("nodes", [])]
    rewards = trace.get("rewards") or {}
    return {
        "task": {k: episode["task"]["data"].get(k) for k in ("env_id", "split", "task_id")},
        "ok": episode.get("ok"),
        "errors": [e["message"] for e in episode.get("errors", [])]
        + [e["message"] for e in trace.get("errors", [])],
        "reward": sum(r["score"] * r.get("weight", 1.0) for r in rewards.values() if r),
        "rewards": {k: r["score"] for k, r in rewards.items() if r},
        "metrics": trace.get("metrics", {}),
        "agentgym": (trace.get("info") or {}).get("agentgym"),
        "stop": trace.get("stop_condition"),
        "user": [m["content"] for m in nodes if m["role"] == "user"],
        "assistant": [m.get("content") for m in nodes if m["role"] == "assistant"],
    }


def _steps(out: dict) -> list[dict]:
    """The episode's steps as the env gave them: each observation after the prompt (the user
    turns, then the final one) with its reward."""
    record = out["agentgym"]
    observations = [*out["user"][1:], record["final_observation"]]
    last = len(observations) - 1
    return [
        {"obs": obs, "reward": reward, "done": i == last}
        for i, (obs, reward) in enumerate(zip(observations, record["rewards"], strict=True))
    ]


async def _run_task(env, task, base_url: str, model: str) -> dict:
    """One episode of ``task`` through verifiers' own loop; its dump."""
    import verifiers.v1 as vf
    from verifiers.v1.env import RunSlot

    client = vf.EvalClientConfig(base_url=base_url, api_key_var=KEY_VAR)
    ctx = vf.ModelContext(model=model, client=client)
    async with env.serving():
        episode = await env.run_slot(RunSlot(task), ctx)
    return episode.model_dump(mode="json")


def evaluate(spec: dict) -> dict:
    from agentgym_envs.agents.expert_server import ExpertChatServer
    from agentgym_envs.integrations.verifiers import load_environment

    env = load_environment(spec["env_id"], num_tasks=spec["task_id"] + 1)
    task = list(env.taskset)[spec["task_id"]]
    with ExpertChatServer([spec["env_id"]]) as server:
        out = summary(asyncio.run(_run_task(env, task, server.base_url, "expert")))
    end = {k: v for k, v in out["agentgym"].items() if k not in ("rewards", "final_observation")}
    error = "; ".join(out["errors"]) or None
    return dict(out, prompt=out["user"][0], steps=_steps(out), end=end, error=error)


class ScriptedChatServer:
    """An OpenAI-compatible chat server that answers ``replies[n]``, ``n`` the assistant
    messages the request's conversation already holds (stateless, as a model is)."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = replies

    def __enter__(self) -> ScriptedChatServer:
        from agentgym_envs.agents.expert_server import send_stream

        replies = self.replies

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                n = sum(m.get("role") == "assistant" for m in body["messages"])
                message = {"role": "assistant", "content": replies[min(n, len(replies) - 1)]}
                payload = {
                    "id": f"scripted-{n}", "object": "chat.completion", "created": 0,
                    "model": body.get("model", "scripted"),
                    "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }  # fmt: skip
                if body.get("stream"):
                    send_stream(self, payload)
                    return
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def scripted(spec: dict) -> dict:
    from agentgym_envs.integrations.verifiers import AgentGymData, AgentGymTask, load_environment
    from agentgym_envs.wrappers.react import format_react

    env = load_environment(spec["env_id"], num_tasks=spec["task_id"] + 1)
    task = list(env.taskset)[spec["task_id"]]
    replies = ["hmm", *(format_react("Next.", action) for action in spec["actions"])]
    with ScriptedChatServer(replies) as server:
        out = summary(asyncio.run(_run_task(env, task, server.base_url, "scripted")))
        # a row naming no task: the env fails at reset, before any model turn
        row = task.data.model_dump(exclude={"idx"}) | {"task_id": 10**6, "id": "broken"}
        broken = AgentGymTask(AgentGymData(**row), task.config)
        broken_out = asyncio.run(_run_task(env, broken, server.base_url, "scripted"))
    result = {"episode": out, "broken": {"ok": broken_out["ok"], "errors": broken_out["errors"]}}
    if spec.get("unknown_id"):  # the taskset as vf-eval loads it, naming an unknown id
        result["unknown"] = _unknown(spec["env_id"], spec["unknown_id"])
    return result


def _unknown(env_id: str, unknown: str) -> str | None:
    import verifiers.v1 as vf

    from agentgym_envs.integrations.verifiers import taskset_id

    config = {"taskset": {"id": taskset_id(env_id), "env_id": unknown}}
    try:
        list(vf.load_environment(vf.resolve_env_config(config)).taskset)
    except Exception as exc:  # the error a user of vf-eval sees
        return f"{type(exc).__name__}: {exc}"
    return None


def vf_eval(spec: dict, module: str, path: str | None = None) -> dict:
    """``vf-eval <module>`` as a user runs it: the model's endpoint and key variable named (no
    Prime login needed), no upload (``--no-push``), plain log lines (``--no-rich``)."""
    from agentgym_envs.agents.expert_server import ExpertChatServer

    cli = Path(sys.executable).parent / "vf-eval"
    expert = None if spec.get("base_url") else ExpertChatServer([spec["env_id"]]).start()
    base_url = spec.get("base_url") or expert.base_url
    try:
        with tempfile.TemporaryDirectory() as out:
            cmd = [
                str(cli), module,
                "-m", spec.get("model", "expert"),
                "--client.base-url", base_url, "--client.api-key-var", KEY_VAR,
                "-n", str(spec.get("num_examples", 1)), "-r", "1", "-c", "4",
                "--no-push", "--no-rich", "-o", out,
                *spec.get("vf_args", []),
            ]  # fmt: skip
            env = dict(os.environ, **{KEY_VAR: "none"})
            if path is not None:  # an exported package, importable from its folder
                env["PYTHONPATH"] = os.pathsep.join([path, env.get("PYTHONPATH", "")])
            start = time.perf_counter()
            run = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, env=env)
            seconds = time.perf_counter() - start
            rows = []
            for found in glob.glob(f"{out}/**/traces.jsonl", recursive=True):
                lines = Path(found).read_text().splitlines()
                rows += [summary(json.loads(line)) for line in lines if line.strip()]
    finally:
        if expert is not None:
            expert.stop()
    return {"returncode": run.returncode, "stderr": run.stderr[-4000:], "rows": rows,
            "seconds": seconds}  # fmt: skip


def main() -> None:
    spec = job()
    result: dict = {}
    if "evaluate" in spec["modes"]:
        result["evaluate"] = evaluate(spec)
    if "scripted" in spec["modes"]:
        result["scripted"] = scripted(spec)
    if "vf-eval" in spec["modes"]:
        result["vf_eval"] = vf_eval(spec, spec["vf_env"], spec.get("package_path"))
    done(result)


if __name__ == "__main__":
    main()
