"""Training-data export shaped by feedback, and synthetic scenarios and augmentations."""

from __future__ import annotations

import gymnasium as gym
import pytest
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from agentgym_envs import expert_policy
from agentgym_envs.errors import AgentGymError
from agentgym_envs.experience import (
    add_feedback,
    export_training,
    import_path,
    select_episodes,
    trajectories,
)
from agentgym_envs.experience.models import Episode, Run
from agentgym_envs.experience.synthetic import (
    PerturbObservations,
    augment_trajectories,
    generate_scenarios,
    solves,
)


@pytest.fixture
def filled(sqlite_store, bench_runs):
    import_path(sqlite_store, bench_runs["expert"], version="agent@1")
    import_path(sqlite_store, bench_runs["random"], version="agent@2")
    return sqlite_store


def _first(store, label: str, success: bool) -> Episode:
    with store.session() as s:
        return s.scalars(
            select(Episode)
            .join(Run)
            .where(Run.name == label, Episode.success.is_(success), Episode.turns >= 3)
            .options(selectinload(Episode.steps))
            .order_by(Episode.id)
        ).first()


def test_sft_masks_actions_people_judged_bad(filled, tmp_path):
    ep = _first(filled, "expert", True)
    add_feedback(filled, ep.id, step_index=1, label="bad", author="ann")
    out = tmp_path / "sft.jsonl"
    records = export_training(filled, "sft", out, versions=["agent@1"])
    assert len(records) == 20 and len(out.read_text().splitlines()) == 20
    rec = next(r for r in records if r["episode_id"] == ep.id)
    turn = ep.steps[1].turn
    assert rec["messages"][turn]["content"] == ep.steps[1].action
    assert rec["loss_mask"][turn] is False
    assert rec["loss_mask"][ep.steps[0].turn] is True and rec["loss_mask"][ep.steps[2].turn] is True
    kept = export_training(filled, "sft", versions=["agent@1"], mask_bad_actions=False)
    assert next(r for r in kept if r["episode_id"] == ep.id)["loss_mask"][turn] is True


def test_a_persons_outcome_label_overrides_the_env(filled):
    failed = _first(filled, "random", False)
    add_feedback(filled, failed.id, label="good", author="ann", comment="fine in spirit")
    assert failed.id in select_episodes(filled, outcome="success")
    assert select_episodes(filled, feedback="good") == [failed.id]
    assert failed.id not in select_episodes(filled, outcome="failure")
    assert failed.id in select_episodes(filled, feedback="no-bad")
    succeeded = _first(filled, "expert", True)
    add_feedback(filled, succeeded.id, step_index=0, label="bad", author="bob")
    assert succeeded.id not in select_episodes(filled, feedback="no-bad")
    assert set(select_episodes(filled, feedback="human")) == {failed.id, succeeded.id}
    (t,) = trajectories(filled, [failed.id])
    assert t.success is True and t.extra["version"] == "agent@2"


def test_dpo_kto_and_reward_model_records(filled):
    random_failures = len(select_episodes(filled, versions=["agent@2"], outcome="failure"))
    pairs = export_training(filled, "dpo")
    assert len(pairs) == random_failures > 0
    for p in pairs:
        assert p["chosen_reward"] == 1.0 and p["rejected_reward"] == 0.0
        assert p["prompt"][-1]["role"] == "user" and p["chosen"][0]["role"] == "assistant"
    kto = export_training(filled, "kto", envs=["Maze-v0"])
    assert len(kto) == 20
    assert sum(r["label"] for r in kto) == len(
        select_episodes(filled, envs=["Maze-v0"], outcome="success")
    )
    assert all(
        r["completion"][0]["role"] == "assistant" and r["prompt"][-1]["role"] == "user" for r in kto
    )
    ep = _first(filled, "expert", True)
    add_feedback(filled, ep.id, step_index=2, label="good", score=1.0, author="ann")
    rm = export_training(filled, "rm", versions=["agent@1"])
    assert sum(r["kind"] == "outcome" for r in rm) == 20
    (action,) = [r for r in rm if r["kind"] == "action"]
    assert action["messages"][-1] == {"role": "assistant", "content": ep.steps[2].action}
    assert (action["label"], action["author"]) == ("good", "ann")
    with pytest.raises(AgentGymError, match="training format"):
        export_training(filled, "ppo")


def test_scenarios_are_seeded_within_their_ranges_and_solvable():
    params = {"rows": (3, 5), "cols": [3, 6]}
    a = generate_scenarios("MazeRandom-v0", 6, seed=7, params=params, verify=True)
    assert [s.to_dict() for s in a] == [
        s.to_dict() for s in generate_scenarios("MazeRandom-v0", 6, seed=7, params=params)
    ]
    assert [s.to_dict() for s in a] != [
        s.to_dict() for s in generate_scenarios("MazeRandom-v0", 6, seed=8, params=params)
    ]
    assert all(3 <= s.env_kwargs["rows"] <= 5 and s.env_kwargs["cols"] in (3, 6) for s in a)
    env = a[0].make()
    assert env.unwrapped.tasks.rows == a[0].env_kwargs["rows"]
    env.close()
    assert all(solves(s) for s in a)


def test_rare_configurations_are_favoured():
    from collections import Counter

    scs = generate_scenarios("TextCraft-v0", 40, seed=0, rare_by="depth")
    env = gym.make("AgentGym/TextCraft-v0")
    depths = Counter(env.unwrapped.tasks.get(s.split, s.task_id).depth for s in scs)
    env.close()
    # depth 4 is 9 of the 444 training goals (2%); drawn by inverse frequency it is ~1 in 4
    assert depths[4] >= 4
    with pytest.raises(AgentGymError, match="no attribute 'colour'"):
        generate_scenarios("TextCraft-v0", 1, rare_by="colour")


def test_perturbed_observations_leave_the_task_checkable():
    clean = gym.make("AgentGym/Maze-v0")
    noisy = PerturbObservations(
        gym.make("AgentGym/Maze-v0"), kinds=["typos", "distractor"], rate=0.5, seed=3
    )
    act = expert_policy(clean)
    obs, info = clean.reset(seed=1, options={"split": "test", "task_id": 4})
    nobs, _ = noisy.reset(seed=1, options={"split": "test", "task_id": 4})
    differs = nobs != obs
    done = False
    while not done:
        a = act(obs, info)
        obs, r, term, trunc, info = clean.step(a)
        nobs, nr, nterm, ntrunc, ninfo = noisy.step(a)
        assert (r, term, trunc, info["success"] if term else None) == (
            nr,
            nterm,
            ntrunc,
            ninfo["success"] if nterm else None,
        )
        differs |= nobs != obs
        done = term or trunc
    assert differs and info["success"]
    with pytest.raises(AgentGymError, match="unknown perturbation"):
        PerturbObservations(gym.make("AgentGym/Maze-v0"), kinds=["shout"])


def test_paraphrased_trajectories_change_only_the_instructions_and_still_replay(filled):
    trajs = trajectories(
        filled, select_episodes(filled, versions=["agent@1"], envs=["Maze-v0"])[:4]
    )
    aug = augment_trajectories(trajs, variants=2, seed=1)
    assert len(aug) >= 4
    by_item = {t.item_id: t for t in trajs}
    for v in aug:
        src = by_item[v.extra["source_item"]]
        assert v.conversations[0].value != src.conversations[0].value
        assert v.conversations[1:] == src.conversations[1:]
        assert v.extra["augmented"] == "paraphrase" and v.success == src.success
    from agentgym_envs.datasets.agenttraj import Trajectory, Turn

    bare = Trajectory("maze_1", [Turn("human", "obs"), Turn("gpt", "Action: move up", True)])
    assert augment_trajectories([bare], verify=False) == []


def test_episodes_the_env_failed_are_not_training_data(filled):
    broken = _first(filled, "expert", True)
    with filled.session() as s:
        s.get(Episode, broken.id).outcome = "env_error"
        s.commit()
    (t,) = trajectories(filled, [broken.id])
    assert t.reward_valid is False
    ids = {r["episode_id"] for r in export_training(filled, "sft", versions=["agent@1"])}
    assert broken.id not in ids and len(ids) == 19
    kept = export_training(filled, "sft", versions=["agent@1"], keep_invalid=True)
    assert broken.id in {r["episode_id"] for r in kept}
