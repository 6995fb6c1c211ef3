"""Replaying trajectories through the live envs."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from agentgym_envs.benchmarks.policies import expert_spec
from agentgym_envs.benchmarks.runner import run_benchmark
from agentgym_envs.datasets import Trajectory, Turn, load_agenttraj
from agentgym_envs.datasets.items import FAMILY_NAMES, registered_prefixes
from agentgym_envs.datasets.replay import Replayer, replay, replay_all

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def fixture_trajs():
    return [
        t
        for t in load_agenttraj(FIXTURES / "agenttraj_small.json")
        if t.family in ("maze", "wordle")
    ]


def test_fixture_trajectories_reach_their_claims(fixture_trajs):
    summary = replay_all(fixture_trajs)
    assert summary.consistent == len(fixture_trajs) == 5
    for r in summary.reports:
        assert r.claimed_success == r.success
        assert all(t.action for t in r.turns)  # every Thought/Action reply parsed
    failed = [r for r in summary.reports if r.claimed_reward == 0.0]
    assert len(failed) == 1 and failed[0].success is False and failed[0].reward_matches is True


def test_recorded_run_replays_observation_for_observation(tmp_path):
    run = run_benchmark("Maze-v0,Wordle-v0", expert_spec(), out=tmp_path / "run", limit=3)
    trajs = load_agenttraj(tmp_path / "run")  # a run folder reads its results.jsonl
    assert len(trajs) == 6 == run.ran
    for r in replay_all(trajs).reports:
        assert r.consistent and r.success
        assert r.initial_matches is True
        assert r.observation_match_rate == 1.0 and r.first_divergence is None
        assert r.ended_at is not None and r.extra_replies == 0


def _tampered(traj: Trajectory) -> Trajectory:
    t = copy.deepcopy(traj)
    i = t.start + 1  # the first reply
    t.conversations[i] = Turn("gpt", "Thought: let me bump into the wall\nAction: move up", True)
    t.conversations = t.conversations[: i + 2]  # and stop after it
    return t


def test_tampered_trajectory_is_a_mismatch(fixture_trajs):
    good = next(t for t in fixture_trajs if t.item_id == "maze_5")
    report = replay(_tampered(good))
    assert not report.consistent and "MISMATCH" in report.verdict
    assert report.success is False and report.claimed_success is True


def test_replies_without_action_get_agentgym_feedback(fixture_trajs):
    good = next(t for t in fixture_trajs if t.item_id == "maze_5")
    t = copy.deepcopy(good)
    i = t.start + 1
    t.conversations.insert(i, Turn("gpt", "I am not sure what to do.", True))
    t.conversations.insert(
        i + 1, Turn("human", "Invalid Action.\n\n" + t.conversations[t.start].value, None)
    )
    report = replay(t)
    bad = report.turns[0]
    assert bad.action is None and bad.error and bad.matches is True
    assert report.consistent  # a format error does not step the env: the rest still solves it
    stepped = replay(t, on_invalid="step")
    assert stepped.turns[0].action == "I am not sure what to do."


def test_extra_replies_after_the_end_are_counted(fixture_trajs):
    good = next(t for t in fixture_trajs if t.item_id == "maze_5")
    t = copy.deepcopy(good)
    t.conversations += [Turn("gpt", "Action: move up", True), Turn("human", "?", None)]
    report = replay(t)
    assert report.extra_replies == 1 and report.consistent


def test_unlinked_family_is_reported_not_raised():
    missing = sorted(set(FAMILY_NAMES) - set(registered_prefixes()))
    if not missing:
        pytest.skip("every AgentGym family is registered")
    t = Trajectory(f"{missing[0]}_1", [Turn("human", "x"), Turn("gpt", "Action: y", True)])
    summary = replay_all([t])
    assert summary.reports[0].error and "not registered" in summary.reports[0].error
    assert summary.consistent == 0
    with pytest.raises(Exception, match="not registered"):
        replay_all([t], skip_unlinked=False)


def test_replayer_reuses_envs(fixture_trajs):
    with Replayer() as r:
        for t in fixture_trajs:
            r.replay(t)
        assert len(r._envs) == 2


def test_agentgym_parser_replays_as_agentgym_clients_read(fixture_trajs):
    good = next(t for t in fixture_trajs if t.item_id == "maze_5")
    t = copy.deepcopy(good)
    i = t.start + 1
    first = t.conversations[t.start].value
    t.conversations.insert(i, Turn("gpt", "I am not sure what to do.", True))
    t.conversations.insert(i + 1, Turn("human", first, None))  # Maze leaves the position as is
    report = replay(t, parser="agentgym")  # Maze's client sends a reply without Action: whole
    assert report.turns[0].action == "I am not sure what to do." and report.turns[0].matches
    assert report.consistent
    t.extra["reply_parser"] = "agentgym:between_actions"  # a record that says how it was read
    assert replay(t).turns[0].action == "I am not sure what to do."
