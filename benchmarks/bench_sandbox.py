"""What the harness sandbox costs: starting a process in it, and a harness episode in it.

    python benchmarks/bench_sandbox.py                # 20 starts; Cline on Wordle 3 times each way
    python benchmarks/bench_sandbox.py --starts 10 --episodes 0

Prints min / median / max seconds, with the load average, of:
* ``python -c pass`` run directly and in a :class:`~agentgym_envs.integrations.sandbox.Sandbox`
  (bubblewrap's namespaces, the filesystem view, the supervisor's relay setup);
* an HTTP request from inside through the loopback relay, against one made directly;
* a Cline episode (the expert as model, Wordle task 0) with and without the sandbox, when Cline
  is installed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from agentgym_envs.integrations.sandbox import Sandbox

PYTHON = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable


class _Hello(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


def report(name: str, times: list[float]) -> None:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"{name:42} min {min(times):7.3f} s  median {statistics.median(times):7.3f} s  "
        f"max {max(times):7.3f} s  (n={len(times)}, load {load})"
    )


def timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def starts(n: int) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/"
    fetch = f"import urllib.request; urllib.request.urlopen({url!r}).read()"
    readable = [] if PYTHON.startswith("/usr/") else [Path(sys.base_prefix)]
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as home:
        report("python -c pass, directly", [timed([PYTHON, "-c", "pass"], env) for _ in range(n)])
        report(
            "python + one request, directly", [timed([PYTHON, "-c", fetch], env) for _ in range(n)]
        )
        with Sandbox([home], readable, ports=[server.server_port]) as box:
            inside = box.environment(env)
            run = [timed(box.command([PYTHON, "-c", "pass"], cwd=home), inside) for _ in range(n)]
            report("python -c pass, in the sandbox", run)
            run = [timed(box.command([PYTHON, "-c", fetch], cwd=home), inside) for _ in range(n)]
            report("python + one request through the relay", run)
    server.shutdown()


def episodes(n: int) -> None:
    from agentgym_envs.agents.harness_expert import HarnessExpertServer
    from agentgym_envs.integrations.harnesses import get_harness
    from agentgym_envs.integrations.harnesses.runner import run_harness

    if get_harness("cline").locate() is None:
        print("Cline is not installed: agentgym harness install cline")
        return
    with HarnessExpertServer(["AgentGym/Wordle-v0"]) as model, tempfile.TemporaryDirectory() as out:
        for sandbox in (False, True):
            times = []
            for _ in range(n):
                result = run_harness(
                    "cline", "Wordle-v0", 0, model.base_url, out=out, timeout=300, sandbox=sandbox
                )
                assert result.outcome == "success", result.error
                times.append(result.wall_time)
            report(f"Cline Wordle episode, sandbox={sandbox}", times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--episodes", type=int, default=3)
    args = parser.parse_args()
    if args.starts:
        starts(args.starts)
    if args.episodes:
        episodes(args.episodes)


if __name__ == "__main__":
    main()
