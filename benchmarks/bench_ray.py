"""Episodes per second on Ray env actors at 1, 2 and 4 actors per node, against the in-process
:func:`~agentgym_envs.rollout.collect_with` in the same run, and the Ray overhead per episode.

    python benchmarks/bench_ray.py                       # a 2-worker cluster started here
    python benchmarks/bench_ray.py --address HOST:6379   # an existing cluster
    python benchmarks/bench_ray.py --quick               # fewer episodes

Families: Maze with its expert (cheap: the cost is Ray's) and a heavy one (SciWorld, one JVM per
env actor, or WebArena, one Chromium per env actor) with its expert. For each: the in-process
run (one env, one episode after another), then Ray at each actors-per-node count on every node
that fits the family. ``wall`` counts from the call to the last episode (actors start inside
it); ``steady`` from the first episode back to the last (the pool's rate once started).
``overhead/ep`` is Ray at one actor per node on one node's worth of work minus in-process, per
episode: what a round trip through an actor costs.
"""

from __future__ import annotations

import argparse
import logging
import time

import gymnasium as gym

import agentgym_envs  # noqa: F401  (registers the ids)
from agentgym_envs import expert_policy
from agentgym_envs.rollout import collect_with
from agentgym_envs.rollout.ray import PoolStats, connect, ray_episodes
from agentgym_envs.rollout.ray.cluster import alive_nodes
from agentgym_envs.rollout.ray.placement import declared_resources, needs


def expert(env: gym.Env):
    return expert_policy(env)


def in_process(env_id: str, tasks: list[int]) -> float:
    env = gym.make(env_id)
    t0 = time.perf_counter()
    episodes = collect_with([env], [expert_policy(env)], tasks)
    wall = time.perf_counter() - t0
    env.close()
    assert all(e.success for e in episodes), f"{env_id}: the expert failed in-process"
    return wall


def on_ray(env_id: str, tasks: list[int], per_node: int) -> tuple[float, float, PoolStats]:
    stats = PoolStats()
    t0 = time.perf_counter()
    first = None
    done = 0
    for _, episode in ray_episodes(env_id, expert, tasks, per_node=per_node, stats=stats):
        first = first or time.perf_counter()
        done += 1
        assert episode.success, f"{env_id}: the expert failed on Ray"
    end = time.perf_counter()
    steady = (done - 1) / (end - first) if first is not None and end > first and done > 1 else 0.0
    return end - t0, steady, stats


def bench(env_id: str, n: int, per_nodes: list[int], ray) -> list[str]:
    tasks = [i % env_id_size(env_id) for i in range(n)]
    need = needs(env_id)
    nodes = [x for x in alive_nodes(ray) if need.fits(x, declared_resources(alive_nodes(ray)))]
    local = in_process(env_id, tasks)
    rows = [f"| {env_id} | in-process | 1 | {n} | {n / local:.1f} | {n / local:.1f} | - |"]
    base = local / n
    for per_node in per_nodes:
        wall, steady, stats = on_ray(env_id, tasks, per_node)
        overhead = ""
        if per_node == 1 and steady > 0 and n >= 20:  # a rate needs a run of episodes
            overhead = f"{(1 / steady * len(nodes) - base) * 1000:.1f} ms"
        rows.append(
            f"| {env_id} | Ray, {per_node}/node x {len(nodes)} node(s) | "
            f"{per_node * len(nodes)} | {n} | {n / wall:.1f} | {steady:.1f} | {overhead or '-'} |"
        )
        logging.info("%s at %d/node: %s", env_id, per_node, stats.line())
    return rows


def env_id_size(env_id: str) -> int:
    from agentgym_envs.spec import env_info

    return env_info(env_id).splits["test"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--address",
        default=None,
        help="an existing cluster (default: a head "
        "and --nodes worker nodes started on this machine)",
    )
    parser.add_argument("--nodes", type=int, default=2, help="worker nodes to start here")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--heavy", default="AgentGym/SciWorld-v0")
    parser.add_argument("--per-node", default="1,2,4")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    per_nodes = [int(x) for x in args.per_node.split(",")]
    cluster = None
    address = args.address
    if address is None:  # a multi-node cluster on this machine (`agentgym ray up`'s)
        from agentgym_envs.rollout.ray.local_cluster import start

        cluster = start(workers=args.nodes, cpus=max(per_nodes), resources={"java": max(per_nodes)})
        address = cluster.address
    try:
        ray = connect(address)
        cheap_n, heavy_n = (40, 4) if args.quick else (200, 8)
        rows = bench("AgentGym/Maze-v0", cheap_n, per_nodes, ray)
        rows += bench(args.heavy, heavy_n, per_nodes, ray)
        nodes = len(alive_nodes(ray))
        version = ray.__version__
    finally:
        if cluster is not None:
            import ray as ray_module

            ray_module.shutdown()
            cluster.stop()
    print(f"Ray {version}, {nodes} node(s) (head included)")
    print(
        "| env | runner | actors | episodes | episodes/s (wall) | episodes/s (steady) | overhead/ep |"
    )
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
