import json

import pytest

import agentgym_envs  # noqa: F401  (registers the ids)
from agentgym_envs.envs.wordle.expert import WordleExpert
from agentgym_envs.errors import MissingExtraError
from agentgym_envs.rollout.vector import collect

try:
    import ray
except ImportError:
    ray = None

ENV = "AgentGym/Wordle-v0"


def _expert(env):
    return WordleExpert(env.unwrapped)


@pytest.fixture(scope="module")
def local_ray(ray_lock):
    if ray is None:
        pytest.skip("ray is not installed (pip install 'agentgym-envs[ray]')")
    from agentgym_envs.rollout.ray.local_cluster import LocalCluster

    # a one-node cluster of this module's own (never one found on the machine), started so
    # that a loaded machine does not make Ray give up on it
    cluster = LocalCluster()
    try:
        cluster.start_head(num_cpus=2)
        ray.init(address=cluster.address, log_to_driver=False)
        yield
    finally:
        ray.shutdown()
        cluster.stop()


def test_ray_collect_expert_solves_every_task(local_ray):
    from agentgym_envs.rollout.ray_backend import ray_collect

    eps = ray_collect(ENV, _expert, range(6), num_workers=2)
    assert [e.task_id for e in eps] == list(range(6))
    assert all(e.success and e.score == 1.0 for e in eps)


def test_collect_backend_ray_is_collect(local_ray):
    eps = collect(ENV, lambda o, i: "zzzzz", [2, 5, 7], num_envs=2, max_turns=3, backend="ray")
    local = collect(ENV, lambda o, i: "zzzzz", [2, 5, 7], num_envs=2, max_turns=3)
    assert [(e.task_id, e.observations, e.outcome) for e in eps] == [
        (e.task_id, e.observations, e.outcome) for e in local
    ]


def test_recycled_actors_give_the_same_episodes(local_ray):
    from agentgym_envs.rollout.ray import PoolStats, ray_collect

    stats = PoolStats()
    eps = ray_collect(ENV, _expert, range(6), num_workers=2, recycle_after=2, stats=stats)
    assert [e.task_id for e in eps] == list(range(6))
    assert all(e.success and e.score == 1.0 for e in eps)
    assert stats.episodes == 6 and stats.actors_recycled >= 2 and stats.actors_started >= 3


def test_ray_collect_matches_local_collect(local_ray):
    from agentgym_envs.rollout.ray_backend import ray_collect

    remote = ray_collect(ENV, lambda env: lambda o, i: "zzzzz", [0, 3], max_turns=2)
    local = collect(ENV, lambda o, i: "zzzzz", [0, 3], num_envs=2, max_turns=2)
    assert [(e.task_id, e.observations, e.rewards) for e in remote] == [
        (e.task_id, e.observations, e.rewards) for e in local
    ]
    # both say why the episodes ended: the max_turns cut
    assert [(e.truncation_reason, e.outcome, e.reward_valid) for e in remote + local] == [
        ("max_rounds", "turn_limit", True)
    ] * 4


def test_missing_ray_is_one_line_error():
    if ray is not None:
        pytest.skip("ray is installed")
    from agentgym_envs.rollout.ray_backend import ray_collect

    with pytest.raises(MissingExtraError, match=r"agentgym-envs\[ray\]"):
        ray_collect(ENV, _expert, [0])


def test_field_run_on_ray_matches_a_local_field_run(local_ray, tmp_path):
    pytest.importorskip("pydantic")
    from agentgym_envs.runner import parse_profile, run_profile

    base = {"envs": ["Maze-v0"], "episodes": 5, "repeat": 2, "concurrency": 2}
    results = {}
    for backend in ("local", "ray"):
        profile = parse_profile({**base, "backend": backend})
        result, _ = run_profile(profile, out=tmp_path / backend)
        assert result.exit_code == 0 and result.ran == 10
        lines = (tmp_path / backend / "results.jsonl").read_text().splitlines()
        records = [json.loads(line) for line in lines]
        results[backend] = sorted(
            (r["item_id"], r["repeat"], r["reward"], r["turns"], r["outcome"]) for r in records
        )
    assert results["ray"] == results["local"]
    assert len(set(results["ray"])) == 10
