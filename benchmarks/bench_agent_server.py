"""Agent-server throughput: the same episodes in process and through ``agentgym agent-server``.

    python benchmarks/bench_agent_server.py             # 40 Maze + Movie episodes, 8 at once
    python benchmarks/bench_agent_server.py --quick     # 16 episodes

The model is the family's expert behind the OpenAI interface (one HTTP server, one worker
thread), so both paths make the same model calls and must give the same successes. Prints the
wall time and episodes per second of:
* the benchmark runner playing ``agent:multistep`` in process (the baseline);
* the runner with ``--policy agent-server:<url>`` (one ``/run`` per episode, the server in
  its own process);
* ``AgentServerClient.run_many`` straight at the server;
and that no episode was lost.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time
import urllib.request

from agentgym_envs.agents import AgentServerClient, ExpertChatServer, agent_spec
from agentgym_envs.agents.client import agent_server_spec
from agentgym_envs.benchmarks import run_benchmark

ENVS = ["AgentGym/Maze-v0", "AgentGym/Movie-v0"]


def start_server(model_url: str, concurrency: int) -> tuple[subprocess.Popen, str]:
    """``agentgym agent-server multistep`` as its own process, once it answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    cmd = [sys.executable, "-m", "agentgym_envs.cli", "agent-server", "multistep"]
    cmd += ["--port", str(port), "--model-url", model_url, "-j", str(concurrency)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(url + "/health", timeout=5).close()
            return proc, url
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the agent server did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("-j", "--concurrency", type=int, default=8)
    args = parser.parse_args()
    limit = 8 if args.quick else 20
    n = limit * len(ENVS)
    j = args.concurrency
    with ExpertChatServer(ENVS) as model:
        model.complete({"messages": []})  # build the first-observation index once
        t0 = time.perf_counter()
        local = run_benchmark(ENVS, agent_spec(base_url=model.base_url), limit=limit, concurrency=j)
        t_local = time.perf_counter() - t0
        proc, url = start_server(model.base_url, j)
        try:
            with AgentServerClient(url) as client:  # warm up: each env made once
                client.run_many([{"env_id": e, "task_id": 0} for e in ENVS for _ in range(j)], j)
            t0 = time.perf_counter()
            remote = run_benchmark(ENVS, agent_server_spec(url), limit=limit, concurrency=j)
            t_remote = time.perf_counter() - t0
            pairs = [(e, t) for e in ENVS for t in range(limit)]
            rows = [{"env_id": e, "task_id": t, "row": i} for i, (e, t) in enumerate(pairs)]
            t0 = time.perf_counter()
            with AgentServerClient(url) as client:
                answers = client.run_many(rows, concurrency=j)
            t_many = time.perf_counter() - t0
        finally:
            proc.terminate()
            proc.wait(30)
        t0 = time.perf_counter()  # the baseline again: the machine's load changes
        run_benchmark(ENVS, agent_spec(base_url=model.base_url), limit=limit, concurrency=j)
        t_local2 = time.perf_counter() - t0
    same = [r["success"] for r in local.records] == [r["success"] for r in remote.records]
    kept = [a["row"] for a in answers] == list(range(n))
    print(f"{n} episodes ({', '.join(ENVS)}), {j} at once, expert model over HTTP")
    for name, wall in (
        ("in process (agent:multistep)", t_local),
        ("in process, again after", t_local2),
        ("bench --policy agent-server:<url>", t_remote),
        ("AgentServerClient.run_many", t_many),
    ):
        print(f"  {name:36s} {wall:6.2f} s  {n / wall:6.1f} episodes/s")
    print(f"  same successes as in process: {same}; run_many lost none: {kept}")
    print(f"  successes: {sum(r['success'] for r in remote.records)}/{n}")


if __name__ == "__main__":
    main()
