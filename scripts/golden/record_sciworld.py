"""Record golden SciWorld replies from AgentGym's own SciWorld server, over HTTP only.

    cd agentenv-sciworld && ../.agvenv/bin/sciworld --host 127.0.0.1 --port 36204
    python scripts/golden/record_sciworld.py --url http://127.0.0.1:36204

(AgentGym 3ef9235 with scienceworld 1.2.3 and Java 17, CPython 3.11.) For each of the 200 test
items of ``AgentGym/SciWorld-v0`` (ScienceWorld test variations; AgentEval's own
``sciworld_test.json`` is not reachable offline) the reply to ``/reset`` with its AgentGym
``data_idx``; for every ``--every``-th of them a transcript of up to ``--steps`` steps: the
task's gold path (the package's cached one) with random and hostile actions mixed in (the
same mangling as ``record_fuzz.py``: case, whitespace, punctuation, quotes, Unicode, control
characters, junk, very long). Each item is played on its own server env, several at once.

AgentGym's server lists the objects of a room in its JVM's identity-hash order, not the order
of this package's JVMs, so ``tests/envs/sciworld/test_agentgym_golden.py`` compares
observations as multisets of lines. Writes ``tests/fixtures/agentgym/sciworld.jsonl.gz``: a header line, then
one line per item: ``item`` (``data_idx``), ``reset`` (the reply), ``steps`` as
``[action, reply]`` pairs.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import random
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))
from record_fuzz import MAX_ACTION, fuzz_action

from agentgym_envs.envs.sciworld.tasks import SciWorldTasks, gold_data

log = logging.getLogger("record_sciworld")
OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "agentgym" / "sciworld.jsonl.gz"
SOURCE = {"agentgym": "3ef9235", "scienceworld": "1.2.3", "java": "17", "python": "3.11"}


class Server:
    """One env of AgentGym's SciWorld server (one JVM)."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self.http = requests.Session()
        self.id = self.post("create", {})["id"]

    def post(self, path: str, body: dict[str, Any]) -> Any:
        reply = self.http.post(f"{self.url}/{path}", json=body, timeout=600)
        reply.raise_for_status()
        return reply.json()

    def close(self) -> None:
        self.post("close", {"id": self.id})


def play(url: str, jobs: list[tuple[int, int, int]], steps: int) -> list[dict[str, Any]]:
    """Items ``(task_id, data_idx, seed)`` on one server env; a transcript where seed >= 0."""
    tasks = SciWorldTasks()
    gold = gold_data()["gold"]
    server = Server(url)
    out = []
    try:
        for task_id, item, seed in jobs:
            reset = server.post("reset", {"id": server.id, "data_idx": item})
            episode: dict[str, Any] = {"item": item, "reset": reset, "steps": []}
            if seed >= 0 and "error" not in reset:
                rng = random.Random(seed)
                name, var = tasks.item("test", task_id)
                path = list(gold[f"{name}/{var}"])
                k = 0
                while len(episode["steps"]) < steps and k < len(path):
                    if rng.random() < 0.3:
                        action = fuzz_action(rng, path[max(0, k - 2) : k + 3])
                    else:
                        action, k = path[k], k + 1
                    reply = server.post("step", {"id": server.id, "action": action[:MAX_ACTION]})
                    episode["steps"].append([action[:MAX_ACTION], reply])
                    if "error" in reply or reply.get("done"):
                        break
            out.append(episode)
            log.info("item %d: %d steps", item, len(episode["steps"]))
    finally:
        server.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="AgentGym's SciWorld server")
    parser.add_argument("--every", type=int, default=4, help="a transcript for every n-th item")
    parser.add_argument("--steps", type=int, default=25, help="steps per transcript")
    parser.add_argument("--workers", type=int, default=2, help="server envs played at once")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    tasks = SciWorldTasks()
    jobs = [
        (t, tasks.agentgym_index("test", t), args.seed + t if t % args.every == 0 else -1)
        for t in range(tasks.size("test"))
    ]
    shares = [jobs[w :: args.workers] for w in range(args.workers)]
    with ThreadPoolExecutor(args.workers) as pool:
        results = list(pool.map(lambda share: play(args.url, share, args.steps), shares))
    episodes = sorted((e for r in results for e in r), key=lambda e: e["item"])
    header = {"source": SOURCE, "family": "sciworld", "seed": args.seed, "episodes": len(episodes)}
    lines = [json.dumps(header)] + [json.dumps(e) for e in episodes]
    args.out.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode("utf-8"), mtime=0))
    n_steps = sum(len(e["steps"]) for e in episodes)
    log.info("sciworld: %d items, %d steps -> %s", len(episodes), n_steps, args.out)


if __name__ == "__main__":
    main()
