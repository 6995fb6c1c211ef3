"""Episodes that ended on an env failure (``reward_valid: false``) are not training data."""

from __future__ import annotations

import logging
from pathlib import Path

import gymnasium as gym
import pytest

import agentgym_envs
from agentgym_envs.datasets import load_agenttraj, to_dpo_pairs, to_sft
from agentgym_envs.datasets.export import export_trajectories, split_invalid
from agentgym_envs.rollout import run_episode
from agentgym_envs.wrappers.limits import TurnLimit
from agentgym_envs.wrappers.record import RecordTrajectory

FIXTURES = Path(__file__).parent / "fixtures"


class _DiesOnSecondStep(gym.Wrapper):
    """The simulator process dies on the episode's second step."""

    def reset(self, **kwargs):
        self.steps = 0
        return self.env.reset(**kwargs)

    def step(self, action):
        self.steps += 1
        if self.steps >= 2:
            raise ConnectionError("simulator process died")
        return self.env.step(action)


@pytest.fixture(scope="module")
def recorded_path(tmp_path_factory):
    """Maze task 3 recorded three times: solved, cut by a turn limit, lost to a dying env."""
    path = tmp_path_factory.mktemp("rec") / "maze.jsonl"
    env = RecordTrajectory(agentgym_envs.make("AgentGym/Maze-v0"), path)
    run_episode(env, agentgym_envs.expert_policy(env), task_id=3)
    env = RecordTrajectory(TurnLimit(agentgym_envs.make("AgentGym/Maze-v0"), 2), path)
    run_episode(env, lambda o, i: "move nowhere", task_id=3)
    env = RecordTrajectory(_DiesOnSecondStep(agentgym_envs.make("AgentGym/Maze-v0")), path)
    with pytest.raises(ConnectionError):
        run_episode(env, lambda o, i: "move up", task_id=3)
    return path


@pytest.fixture(scope="module")
def recorded(recorded_path):
    trajs = load_agenttraj(recorded_path)
    assert [t.ended_by for t in trajs] == ["success", "turn_limit", "env_error"]
    return trajs


@pytest.mark.parametrize("fmt", ["chat", "sft", "sft-text"])
def test_env_failures_are_left_out_and_counted(recorded, fmt, caplog):
    with caplog.at_level(logging.INFO, logger="agentgym_envs.datasets.export"):
        out = export_trajectories(recorded, fmt)
    assert (len(out.rows), out.used, out.dropped_invalid) == (2, 2, 1)
    assert "1 left out: reward not valid" in out.summary()
    assert "1 trajectories left out" in caplog.text and "keep_invalid=True" in caplog.text
    kept = export_trajectories(recorded, fmt, keep_invalid=True)
    assert (len(kept.rows), kept.used, kept.dropped_invalid) == (3, 3, 0)
    assert "left out" not in kept.summary()


def test_sft_rows_say_whether_the_reward_is_valid(recorded):
    rows = export_trajectories(recorded, "sft", keep_invalid=True).rows
    assert [r["reward_valid"] for r in rows] == [True, True, False]
    assert rows == [to_sft(t) for t in recorded]


def test_an_env_failure_is_never_a_rejected_answer(recorded, caplog):
    with caplog.at_level(logging.WARNING, logger="agentgym_envs.datasets.export"):
        pairs = to_dpo_pairs(recorded)
    # only the turn-limit failure is rejected against the solved episode
    assert (
        len(pairs) == 1
        and pairs[0]["rejected"][-1]["content"] == recorded[1].conversations[-1].value
    )
    assert "1 trajectories left out of the dpo export" in caplog.text
    assert len(to_dpo_pairs(recorded, keep_invalid=True)) == 2
    out = export_trajectories(recorded, "dpo")
    assert (len(out.rows), out.dropped_invalid) == (1, 1) and out.rows == pairs


def test_records_without_the_field_export_as_before(caplog):
    trajs = load_agenttraj(FIXTURES / "agenttraj_small.json")
    assert not any("reward_valid" in t.extra for t in trajs)
    assert split_invalid(trajs) == (list(trajs), [])
    with caplog.at_level(logging.INFO, logger="agentgym_envs.datasets.export"):
        out = export_trajectories(trajs, "sft")
    assert out.rows == [to_sft(t) for t in trajs] and out.dropped_invalid == 0
    assert all("reward_valid" not in r for r in out.rows)
    assert export_trajectories(trajs, "dpo").rows == to_dpo_pairs(trajs)
    assert "left out" not in caplog.text


def test_unknown_format_is_refused(recorded):
    with pytest.raises(ValueError, match="use one of chat, sft, sft-text, dpo"):
        export_trajectories(recorded, "kto")


def test_data_convert_leaves_env_failures_out_unless_asked(recorded_path, tmp_path):
    typer = pytest.importorskip("typer")
    from typer.testing import CliRunner

    from agentgym_envs.datasets.cli import register_cli

    app = typer.Typer()
    app.command("list")(lambda: None)
    register_cli(app)
    for extra, rows in (([], 2), (["--keep-invalid"], 3)):
        out = tmp_path / f"sft{len(extra)}.jsonl"
        args = ["data", "convert", str(recorded_path), str(out), "--to", "sft", *extra]
        r = CliRunner().invoke(app, args, catch_exceptions=False)
        assert r.exit_code == 0, r.output
        assert len(out.read_text().splitlines()) == rows
        assert ("1 left out: reward not valid" in r.output) is (rows == 2), r.output
