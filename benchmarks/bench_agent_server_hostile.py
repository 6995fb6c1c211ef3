"""A normal row's latency on ``agentgym agent-server`` alone and with hostile rows in flight.

    python benchmarks/bench_agent_server_hostile.py            # 5 normal rows each way
    python benchmarks/bench_agent_server_hostile.py --rows 10

The server's allow-list has the family's expert (the normal model) and three hostile
endpoints (``tests/agents/hostile_models.py``): one trickling a byte every 2 s, one whose body
never ends, one that never finishes its headers. Prints min/median/max seconds of a normal
Maze row with no other load, then with 32 hostile rows in flight (12 trickle, 12 endless,
8 header-less), the server's resident memory, and the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "agents"))

from conftest import AgentServerProcess
from hostile_models import HostileModel

from agentgym_envs.agents import ExpertChatServer


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        return int(next(x for x in f if x.startswith("VmRSS:")).split()[1]) / 1024


def _normal(url: str, n: int) -> list[float]:
    times = []
    for i in range(n):
        t0 = time.perf_counter()
        answer = httpx.post(url + "/run", json={"env_id": "Maze-v0", "task_id": i}, timeout=600)
        assert answer.json()["outcome"] == "success", answer.text[:300]
        times.append(time.perf_counter() - t0)
    return times


def _post_quietly(url: str, row: dict) -> None:
    try:
        httpx.post(url + "/run", json=row, timeout=900)
    except httpx.HTTPError:
        pass  # the server was stopped under it


def _show(label: str, times: list[float]) -> None:
    print(
        f"{label:<34} min {min(times):6.2f} s  median {statistics.median(times):6.2f} s  "
        f"max {max(times):6.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5)
    args = parser.parse_args()
    print("load average before:", os.getloadavg())
    hostile = {k: HostileModel(k) for k in ("trickle", "endless", "slow-headers")}
    with ExpertChatServer(["AgentGym/Maze-v0"]) as expert:
        flags = ["multistep", "--model-url", expert.base_url, "-j", "4", "--max-reply-mb", "4"]
        for kind, model in hostile.items():
            flags += ["--allow-model-url", f"{kind}={model.base_url}"]
        server = AgentServerProcess(*flags)
        try:
            _show("normal row, no other load", _normal(server.url, args.rows))
            kinds = ["trickle"] * 12 + ["endless"] * 12 + ["slow-headers"] * 8
            for i, kind in enumerate(kinds):
                row = {"env_id": "Maze-v0", "task_id": i % 5, "model": kind}
                threading.Thread(target=_post_quietly, args=(server.url, row), daemon=True).start()
            hostile["trickle"].wait_open(4)
            _show("normal row, 32 hostile in flight", _normal(server.url, args.rows))
            print(f"server memory: {_rss_mb(server.proc.pid):.0f} MB")
        finally:
            server.stop()
            for model in hostile.values():
                model.close()
    print("load average after:", os.getloadavg())


if __name__ == "__main__":
    main()
