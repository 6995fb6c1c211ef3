"""Trajectories a real model produced (llama.cpp + SmolLM2-135M on 127.0.0.1) load, convert and
replay to the rewards they recorded -- including the model's malformed replies."""

from __future__ import annotations

import pytest

from agentgym_envs.benchmarks.policies import openai_spec
from agentgym_envs.benchmarks.runner import run_benchmark
from agentgym_envs.datasets import dataset_stats, load_agenttraj, to_sft
from agentgym_envs.datasets.replay import replay_all


@pytest.fixture(scope="module")
def model_run(llm_server, tmp_path_factory):
    out = tmp_path_factory.mktemp("llm-run")
    spec = openai_spec(base_url=llm_server.base_url, fmt="react", max_tokens=48, temperature=0.8)
    run_benchmark(
        "Maze-v0,Wordle-v0", spec, out=out, limit=1, max_rounds=2, n_samples=1, concurrency=1
    )
    return out


def test_model_trajectories_are_valid_agenttraj(model_run):
    trajs = load_agenttraj(model_run)
    assert len(trajs) == 2 and not trajs.problems
    stats = dataset_stats(trajs)
    assert set(stats) == {"maze", "wordle"}
    for t in trajs:
        rec = to_sft(t)
        assert rec["loss_mask"].count(True) == t.turns


def test_model_trajectories_replay_to_their_recorded_rewards(model_run):
    trajs = load_agenttraj(model_run)
    summary = replay_all(trajs)
    for r, t in zip(summary.reports, trajs):
        assert r.consistent, r.verdict
        assert r.score == t.reward and r.success == t.success
        # every env answer the model saw is what the env says again, format errors included
        assert r.observation_match_rate == 1.0, [
            (x.reply, x.observation, x.recorded) for x in r.turns if not x.matches
        ]
