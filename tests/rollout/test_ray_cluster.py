"""The Ray backend on a real multi-node cluster on this machine.

A head (no CPUs: drivers only) and two worker nodes, each a separate ``ray start`` process with
its own resources and node IP; the second worker declares ``java`` and lacks ``minigrid`` (the
BabyAI extra), as a heterogeneous cluster would. One test walks the cluster through everything
(one cluster per run keeps the time moderate on two cores): a bench across both workers with
the scores of a local run; placement from the family record; the pre-flight refusal of a node
without an env's extra; a worker node SIGKILLed mid-run, the run finishing with every episode
recorded once; a driver killed mid-run and resumed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.rollout.conftest import pythonpath

ray = pytest.importorskip("ray")
pytest.importorskip("typer")

from agentgym_envs import expert_policy
from agentgym_envs.rollout.ray.local_cluster import LocalCluster

#: Seconds a whole bench subprocess may take on a loaded machine.
RUN_TIMEOUT = 900


@pytest.fixture(scope="module")
def cluster(ray_lock, hide_dir):
    c = LocalCluster()
    try:
        c.start_head(num_cpus=0)
        c.add_worker(num_cpus=2)
        c.add_worker(
            num_cpus=2,
            resources={"java": 2},
            env={"PYTHONPATH": pythonpath(hide_dir), "AGENTGYM_TEST_HIDE": "minigrid"},
        )
        yield c
    finally:
        if ray.is_initialized():
            ray.shutdown()
        c.stop()


def _bench(cluster: LocalCluster, out: Path, *args: str, wait: bool = True):
    cmd = [sys.executable, "-m", "agentgym_envs.cli", "bench", "--no-progress", "--out", str(out)]
    cmd += ["--ray", cluster.address, *args]
    env = {**cluster.env, "PYTHONPATH": pythonpath(Path.cwd())}
    if not wait:
        return subprocess.Popen(
            cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT)


def _records(out: Path) -> list[dict]:
    path = out / "results.jsonl"
    if not path.is_file():
        return []
    lines = path.read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip().endswith("}")]


def _keys(records: list[dict]) -> Counter:
    return Counter((r["env_id"], r["item_id"], r["sample"]) for r in records)


def test_cluster_bench_placement_preflight_and_lost_node(cluster, tmp_path):
    from agentgym_envs.benchmarks import expert_spec, run_benchmark

    # 1. a bench across both workers gives the local run's scores, item by item
    run = _bench(cluster, tmp_path / "maze", "--envs", "Maze-v0", "-j", "4")
    assert run.returncode == 0, run.stdout + run.stderr
    local = run_benchmark("Maze-v0", expert_spec(), out=None, reports=False)
    on_ray = {
        (r["item_id"], r["sample"]): (r["reward"], r["success"], r["turns"])
        for r in _records(tmp_path / "maze")
    }
    assert on_ray == {
        (r["item_id"], r["sample"]): (r["reward"], r["success"], r["turns"]) for r in local.records
    }
    assert len(on_ray) == 25

    # 2. placement: SciWorld's actors ask for the `java` resource only the second worker has
    from agentgym_envs.rollout.ray import ActorPool, Group, Job, connect, needs
    from agentgym_envs.rollout.ray.cluster import alive_nodes, preflight
    from agentgym_envs.rollout.ray.collect import _player

    connect(cluster.address)
    need = needs("AgentGym/SciWorld-v0")
    declared = preflight(ray, [need])
    assert declared == {"java"}
    java_node = next(n["NodeID"] for n in alive_nodes(ray) if n["Resources"].get("java"))
    group = Group(_player("AgentGym/Maze-v0", _expert, "test", None), need.options(declared))
    pool = ActorPool({"g": group}, num_actors=4)  # room for 2: the node declares java: 2
    outcomes = list(pool.stream(Job(i, "g", (i, None)) for i in range(8)))
    assert sorted(o.job.key for o in outcomes) == list(range(8))
    assert {o.node for o in outcomes} == {java_node}
    assert all(o.ok and o.value.success for o in outcomes)

    # 3. a node that lacks an env's extra is refused before any episode, in one line
    from agentgym_envs.rollout.ray import ClusterError

    with pytest.raises(
        ClusterError, match=r"BabyAI-v0 cannot run on node 127\.0\.0\.3.*agentgym-envs\[babyai\]"
    ):
        preflight(ray, [needs("AgentGym/BabyAI-v0")])
    ray.shutdown()
    refused = _bench(cluster, tmp_path / "babyai", "--envs", "BabyAI-v0", "--limit", "2")
    assert refused.returncode == 2 and "127.0.0.3" in refused.stderr, refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert not _records(tmp_path / "babyai")

    # 4. a worker node SIGKILLed mid-run: the run finishes, every episode once, none lost
    out = tmp_path / "wordle"
    proc = _bench(cluster, out, "--envs", "Wordle-v0", "-k", "8", "-j", "4", wait=False)
    deadline = time.monotonic() + RUN_TIMEOUT
    while len(_records(out)) < 60 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert proc.poll() is None, proc.communicate()[0]
    cluster.kill(cluster.nodes[-1])
    stdout, _ = proc.communicate(timeout=RUN_TIMEOUT)
    assert proc.returncode == 0, stdout
    records = _records(out)
    keys = _keys(records)
    assert len(keys) == 25 * 8 and set(keys.values()) == {1}, stdout
    assert all(r["success"] and r.get("error") is None for r in records)
    stats = " ".join(stdout.split())
    lost = int(stats.split(" lost); ")[0].rsplit("(", 1)[1].split(" recycled, ")[1])
    assert lost >= 1, stats  # the dead node's actors were lost, their episodes played again

    # 5. a driver SIGKILLed mid-run resumes from its result file: every episode once
    out = tmp_path / "resume"
    proc = _bench(cluster, out, "--envs", "Wordle-v0", "-k", "8", "-j", "2", wait=False)
    while len(_records(out)) < 10 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert proc.poll() is None, proc.communicate()[0]
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    before = len(_records(out))
    assert 10 <= before < 200
    again = _bench(cluster, out, "--envs", "Wordle-v0", "-k", "8", "-j", "2")
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"resumed from {out}" in again.stdout.replace("\n", "")
    keys = _keys(_records(out))
    assert len(keys) == 200 and set(keys.values()) == {1}


_expert = lambda env: expert_policy(env)
