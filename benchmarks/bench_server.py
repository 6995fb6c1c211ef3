"""Speed of serving an env over HTTP (agentgym-envs' AgentGym-protocol server).

Latency (default): starts a real uvicorn server on 127.0.0.1 in a subprocess, plays the family
expert on a local twin and sends the same actions with plain httpx (keep-alive), and prints the
median/p95 HTTP round trip of ``/step`` next to the in-process ``env.step`` time and their ratio.
AgentGym's own servers measured 3-5 ms per step (Maze/Wordle/TextCraft).

    python benchmarks/bench_server.py [--envs Wordle-v0 Maze-v0 BIRD-v0 Weather-v0] [--episodes 20]

Throughput (``--throughput``): ``agentgym serve`` and AgentGym's own server for the same family
(started from an AgentGym checkout with its ``.agvenv``, as ``reference/agentgym.md`` section 7
shows) each get ``--clients`` concurrent clients, each with its own session and keep-alive
connection, stepping ``--steps`` times (resetting when an episode ends) with the same actions;
prints steps/s, p50/p95 per step, the server process's CPU per step, and the ratios. Ports
36150-36159 on 127.0.0.1; every server started is stopped at the end.

    python benchmarks/bench_server.py --throughput --agentgym /path/to/AgentGym \
        [--families maze wordle textcraft] [--clients 16] [--steps 300]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time

import gymnasium as gym
import httpx

import agentgym_envs  # noqa: F401 - registers the ids
from agentgym_envs.server.protocol import protocol_for
from agentgym_envs.spec import env_info, expert_policy


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(env_id: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    code = (
        "import uvicorn; from agentgym_envs.server.app import create_app; "
        f"uvicorn.run(create_app({env_id!r}), host='127.0.0.1', port={port}, log_level='warning')"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], env=dict(os.environ))
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            httpx.get(url + "/", timeout=1).raise_for_status()
            return proc, url
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"server for {env_id} did not start")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench(env_id: str, episodes: int) -> None:
    info = env_info(env_id)
    proto = protocol_for(info.family)
    key = proto.session_key
    local = gym.make(info.id)
    tasks = local.unwrapped.tasks
    expert = expert_policy(local)
    proc, url = start_server(env_id)
    http_ms: list[float] = []
    local_ms: list[float] = []
    try:
        with httpx.Client(base_url=url) as http:
            created = http.post("/create", json={"id": 0} if proto.kind == "C" else None).json()
            sid = created["id"] if isinstance(created, dict) else created
            for ep in range(episodes):
                task_id = ep % info.splits["test"]
                index = tasks.agentgym_index("test", task_id)
                http.post("/reset", json={key: sid, proto.index_keys[0]: index})
                obs, inf = local.reset(options={"split": "test", "task_id": task_id})
                done = False
                while not done:
                    action = expert(obs, inf)
                    t0 = time.perf_counter()
                    obs, _, term, trunc, inf = local.step(action)
                    t1 = time.perf_counter()
                    reply = http.post("/step", json={key: sid, "action": action}).json()
                    t2 = time.perf_counter()
                    local_ms.append((t1 - t0) * 1e3)
                    http_ms.append((t2 - t1) * 1e3)
                    assert "error" not in reply, reply
                    done = term or trunc
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    lm, hm = statistics.median(local_ms), statistics.median(http_ms)
    print(
        f"{env_id:<12} steps {len(http_ms):>4}  in-process median {lm:7.3f} ms p95 {pct(local_ms, 0.95):7.3f} ms"
        f"  |  HTTP median {hm:6.2f} ms p95 {pct(http_ms, 0.95):6.2f} ms  |  HTTP/in-process {hm / lm:6.1f}x"
        f"  overhead {hm - lm:5.2f} ms  (AgentGym servers: 3-5 ms/step)"
    )


# -- throughput at many concurrent clients, ours vs AgentGym's -------------------------------
#: family -> (our id, AgentGym server folder, console script, URL prefix, reset key)
AGENTGYM_SERVERS = {
    "maze": ("Maze-v0", "agentenv-lmrlgym", "lmrlgym", "/maze", "game"),
    "wordle": ("Wordle-v0", "agentenv-lmrlgym", "lmrlgym", "/wordle", "seed"),
    "textcraft": ("TextCraft-v0", "agentenv-textcraft", "textcraft", "", "data_idx"),
}


def actions_for(family: str) -> list[str]:
    """Valid-looking actions that keep episodes going (the same for both servers)."""
    if family == "maze":
        return ["move up", "move down", "move left", "move right"]
    if family == "wordle":
        vocabulary = gym.make("AgentGym/Wordle-v0").unwrapped.vocabulary
        return [" ".join(word) for word in vocabulary]
    return ["inventory", "get 1 oak log", "craft 4 oak planks using 1 oak log", "get 2 stick"]


def wait_up(url: str, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server for {url} exited with {proc.returncode}")
        try:
            httpx.get(url + "/", timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise RuntimeError(f"server at {url} did not start")


def start_agentgym(root: str, folder: str, script: str, port: int) -> subprocess.Popen:
    cwd = os.path.join(root, folder)  # TextCraft reads its recipes relative to this folder
    env = dict(os.environ, PYTHONPATH=os.path.join(cwd, "lmrlgym"))
    command = [os.path.join(root, ".agvenv", "bin", script), "--host", "127.0.0.1"]
    return subprocess.Popen(
        [*command, "--port", str(port)],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Connection:
    """One keep-alive HTTP/1.1 connection speaking just enough to post JSON (low client cost,
    so the servers, not the client, are what is measured)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, prefix: str):
        self.reader, self.writer, self.prefix = reader, writer, prefix

    async def post(self, path: str, body: dict | None) -> object:
        data = json.dumps(body).encode() if body is not None else b""
        self.writer.write(
            b"POST %s HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n%s" % ((self.prefix + path).encode(), len(data), data)
        )
        head = await self.reader.readuntil(b"\r\n\r\n")
        length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
        return json.loads(await self.reader.readexactly(length))


async def client(port: int, prefix: str, reset_key: str, n: int, actions: list[str], steps: int):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    http = Connection(reader, writer, prefix)
    created = await http.post("/create", {})
    sid = created["id"]
    await http.post("/reset", {"id": sid, reset_key: n % 25})
    rng = random.Random(n)
    latencies, errors = [], 0
    for _ in range(steps):
        start = time.perf_counter()
        reply = await http.post("/step", {"id": sid, "action": rng.choice(actions)})
        latencies.append(time.perf_counter() - start)
        errors += "error" in reply
        if reply.get("done"):
            await http.post("/reset", {"id": sid, reset_key: n % 25})
    writer.close()
    return latencies, errors


async def load(port: int, prefix: str, reset_key: str, clients: int, steps: int, actions):
    runs = [client(port, prefix, reset_key, n, actions, steps) for n in range(clients)]
    return await asyncio.gather(*runs)


def measure(port: int, pid: int, family: str, clients: int, steps: int) -> dict[str, float]:
    _, _, _, prefix, reset_key = AGENTGYM_SERVERS[family]
    actions = actions_for(family)
    asyncio.run(load(port, prefix, reset_key, clients, 20, actions))  # warm up
    cpu0, start = cpu_seconds(pid), time.perf_counter()
    results = asyncio.run(load(port, prefix, reset_key, clients, steps, actions))
    elapsed, cpu = time.perf_counter() - start, cpu_seconds(pid) - cpu0
    latencies = sorted(x for lat, _ in results for x in lat)
    return {
        "steps_per_s": len(latencies) / elapsed,
        "p50_ms": pct(latencies, 0.5) * 1e3,
        "p95_ms": pct(latencies, 0.95) * 1e3,
        "cpu_ms_per_step": cpu / len(latencies) * 1e3,
        "errors": sum(e for _, e in results),
    }


def throughput(root: str, families: list[str], clients: int, steps: int) -> None:
    import importlib.util

    fast = [m for m in ("httptools", "uvloop") if importlib.util.find_spec(m)]
    print(f"uvicorn for agentgym serve uses: {', '.join(fast) or 'h11 and asyncio (pure Python)'}")
    for i, family in enumerate(families):
        env_id, folder, script, _, _ = AGENTGYM_SERVERS[family]
        ours_port, theirs_port = 36150 + 2 * i, 36151 + 2 * i
        ours = subprocess.Popen(
            [sys.executable, "-m", "agentgym_envs.cli", "serve", env_id, "--port", str(ours_port)]
            + ["--log-level", "warning"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        theirs = start_agentgym(root, folder, script, theirs_port)
        try:
            wait_up(f"http://127.0.0.1:{ours_port}", ours)
            wait_up(f"http://127.0.0.1:{theirs_port}", theirs)
            a = measure(ours_port, ours.pid, family, clients, steps)
            b = measure(theirs_port, theirs.pid, family, clients, steps)
        finally:
            for proc in (ours, theirs):
                proc.terminate()
                proc.wait(timeout=10)
        for name, r in (("agentgym serve", a), ("AgentGym server", b)):
            print(
                f"{family:<10} {name:<16} {clients} clients: {r['steps_per_s']:7.0f} steps/s"
                f"  p50 {r['p50_ms']:5.1f} ms  p95 {r['p95_ms']:5.1f} ms"
                f"  server CPU {r['cpu_ms_per_step']:.3f} ms/step  errors {r['errors']}"
            )
        print(
            f"{family:<10} ratio: {a['steps_per_s'] / b['steps_per_s']:.2f}x steps/s, "
            f"{b['cpu_ms_per_step'] / a['cpu_ms_per_step']:.2f}x less server CPU per step"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--envs", nargs="+", default=["Wordle-v0", "Maze-v0", "BIRD-v0", "Weather-v0"]
    )
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--throughput", action="store_true", help="ours vs AgentGym's servers")
    parser.add_argument("--agentgym", help="AgentGym checkout with .agvenv (--throughput)")
    parser.add_argument("--families", nargs="+", default=list(AGENTGYM_SERVERS))
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--steps", type=int, default=300, help="steps per client")
    args = parser.parse_args()
    if args.throughput:
        if not args.agentgym:
            parser.error("--throughput needs --agentgym")
        throughput(args.agentgym, args.families, args.clients, args.steps)
        return
    for env_id in args.envs:
        bench(env_id, args.episodes)


if __name__ == "__main__":
    main()
