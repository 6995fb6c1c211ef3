"""Cost of the platform-operations features: metrics on the serving hot path, the offline
embedder, and episode search in PostgreSQL with pgvector.

1. Metrics: ``agentgym serve``'s ``/step`` round trip (uvicorn on 127.0.0.1, one keep-alive
   client, Wordle) with the metrics middleware and without it, in alternating rounds; and
   ``Metrics.observe`` alone, in-process.
2. The offline hashing embedder: episodes (20 steps each) embedded per second.
3. With ``--db`` (a PostgreSQL URL whose user may ``CREATE EXTENSION vector``): ``--episodes``
   synthetic episodes indexed for one organisation, then ``similar_episodes`` and
   ``search_episodes`` latency (as the URL's user: a superuser skips row-level security, an
   application role pays for its filter, which is the ``org_id`` index).

Figures are min / median / max over ``--rounds`` rounds, with the load average before and after.

    python benchmarks/bench_platform_ops.py [--rounds 5] [--steps 400] [--db URL --episodes 2000]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import socket
import statistics
import threading
import time
import uuid
from pathlib import Path

import httpx


def _spread(values: list[float], unit: str = "ms", scale: float = 1e3) -> str:
    return (
        f"min {min(values) * scale:.3f} / median {statistics.median(values) * scale:.3f} / "
        f"max {max(values) * scale:.3f} {unit}"
    )


def _serve(app):
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    return server, thread, f"http://127.0.0.1:{sock.getsockname()[1]}"


def _step_round(url: str, steps: int) -> float:
    """Median seconds of one /step round trip over ``steps`` Wordle guesses."""
    times = []
    with httpx.Client(base_url=url) as client:
        sid = client.post("/create", json={}).json()["id"]
        client.post("/reset", json={"id": sid, "data_idx": 0})
        words = ["crane", "slate", "pious", "adieu", "float", "brick"]
        for i in range(steps):
            if i % 6 == 5:
                client.post("/reset", json={"id": sid, "data_idx": i})
            t0 = time.perf_counter()
            client.post("/step", json={"id": sid, "action": words[i % 6]})
            times.append(time.perf_counter() - t0)
        client.post("/close", json={"id": sid})
    return statistics.median(times)


def bench_metrics(rounds: int, steps: int) -> None:
    from agentgym_envs.metrics import Metrics
    from agentgym_envs.server.app import create_app

    with_metrics = create_app("Wordle-v0")
    without = create_app("Wordle-v0")
    without._entry = without._dispatch  # the same app with the middleware taken out
    served = [_serve(with_metrics), _serve(without)]
    on, off = [], []
    for _ in range(rounds):
        on.append(_step_round(served[0][2], steps))
        off.append(_step_round(served[1][2], steps))
    for server, thread, _ in served:
        server.should_exit = True
        thread.join(30)
    print(f"/step round trip with metrics:    {_spread(on)}")
    print(f"/step round trip without metrics: {_spread(off)}")
    metrics = Metrics("bench")
    per_call = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for i in range(20_000):
            metrics.observe("POST", "/step", 200, 0.001 * (i % 7))
        per_call.append((time.perf_counter() - t0) / 20_000)
    print(f"Metrics.observe alone:            {_spread(per_call, 'us', 1e6)}")


def _episode(rng: random.Random, i: int) -> list[tuple[str, str]]:
    topics = [
        ("maze", ["move up", "move down", "move left", "move right"]),
        ("shop", ["search[shirt]", "click[item]", "click[buy now]", "click[back]"]),
        ("sql", ["SELECT COUNT(*)", "SELECT name", "submit 42", "describe table"]),
        ("craft", ["get 1 stick", "craft 1 plank", "inventory", "craft 1 table"]),
    ]
    name, actions = topics[i % len(topics)]
    return [
        (f"{name} step {s}: you see item {rng.randint(0, 500)} near wall {rng.randint(0, 9)}",
         rng.choice(actions))
        for s in range(20)
    ]  # fmt: skip


def bench_embedder(rounds: int) -> None:
    from agentgym_envs.platform.embeddings import HashingEmbedder
    from agentgym_envs.platform.search import episode_text

    rng = random.Random(0)
    texts = [episode_text(_episode(rng, i)) for i in range(200)]
    embedder = HashingEmbedder()
    per = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        embedder.embed(texts)
        per.append((time.perf_counter() - t0) / len(texts))
    print(f"hashing embedder, one 20-step episode: {_spread(per)}")


def bench_search(db: str, episodes: int, rounds: int) -> None:
    from alembic.operations import Operations
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy import create_engine, text
    from sqlalchemy.orm import Session

    from agentgym_envs.platform.embeddings import HashingEmbedder
    from agentgym_envs.platform.search import index_episode, search_episodes, similar_episodes

    path = Path(__file__).resolve().parents[1] / "agentgym_envs/platform/migrations/versions"
    spec = importlib.util.spec_from_file_location("ops_0001", path / "ops_0001_episode_search.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    engine = create_engine(db)
    with engine.begin() as conn:
        if not conn.execute(text("SELECT to_regclass('episode_embeddings')")).scalar():
            with Operations.context(MigrationContext.configure(conn)):
                m.upgrade()
    org = str(uuid.uuid4())
    rng = random.Random(1)
    embedder = HashingEmbedder()

    def tenant() -> Session:
        s = Session(engine)
        s.begin()
        s.execute(text("SELECT set_config('agentgym.org_id', :o, true)"), {"o": org})
        return s

    t0 = time.perf_counter()
    with tenant() as s:
        for i in range(episodes):
            index_episode(s, f"ep-{i}", _episode(rng, i), embedder=embedder)
        s.commit()
    print(f"indexed {episodes} episodes in {time.perf_counter() - t0:.1f} s")
    similar, free = [], []
    for r in range(rounds):
        with tenant() as s:
            t0 = time.perf_counter()
            similar_episodes(s, f"ep-{r}", k=10, embedder=embedder)
            similar.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            search_episodes(s, "buy the shirt", k=10, embedder=embedder)
            free.append(time.perf_counter() - t0)
    print(f"similar_episodes k=10 over {episodes}: {_spread(similar)}")
    print(f"search_episodes k=10 over {episodes}:  {_spread(free)}")
    with engine.begin() as conn:
        conn.execute(text("SELECT set_config('agentgym.org_id', :o, true)"), {"o": org})
        conn.execute(text("DELETE FROM episode_embeddings"))
    engine.dispose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--db", help="PostgreSQL URL for the search figures")
    parser.add_argument("--episodes", type=int, default=2000)
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()}")
    bench_metrics(args.rounds, args.steps)
    bench_embedder(args.rounds)
    if args.db:
        bench_search(args.db, args.episodes, args.rounds)
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
