"""SciWorld's semantics (AgentGym's), the speed path's laziness, and the pooled simulators.

Every test shares the session's JVM pool (``env`` and ``pool`` fixtures in conftest.py).
"""

from __future__ import annotations

import pickle

import pytest

from agentgym_envs.envs.sciworld.env import SciWorldEnv
from agentgym_envs.envs.sciworld.expert import SciWorldExpert
from agentgym_envs.envs.sciworld.tasks import (
    SCIWORLD_TASKS,
    SciWorldTasks,
    clean_test_items,
    variation_sets,
)
from agentgym_envs.rollout import run_episode

BOIL_TRAIN = 5  # clean train task 5 = boil variation 5


def _test_id(name: str) -> int:
    return next(i for i, (n, _) in enumerate(clean_test_items()) if n == name)


def test_frozen_task_table_matches_the_installed_package(env):
    from scienceworld.constants import ID2TASK  # tasks.json, in file order

    assert list(ID2TASK.items()) == [(tid, name) for tid, name, _ in SCIWORLD_TASKS]
    sim = env.simulator
    assert set(sim.call("getTaskNames")) == set(ID2TASK.values())
    for _, name, n in SCIWORLD_TASKS:
        assert sim.call("getTaskMaxVariations", name) == n, name


@pytest.mark.parametrize("name", ["boil", "power-component", "identify-life-stages-2"])
def test_variation_sets_match_the_simulator(env, name):
    sim = env.simulator
    sim.load(name, 0)
    train, dev, test = variation_sets({n: m for _, n, m in SCIWORLD_TASKS}[name])
    assert list(sim.call("getVariationsTrain")) == list(train)
    assert list(sim.call("getVariationsDev")) == list(dev)
    assert list(sim.call("getVariationsTest")) == list(test)


def test_reset_shows_task_description_then_look_around(env):
    obs, info = env.reset(options={"split": "train", "task_id": BOIL_TRAIN})
    description = env.simulator.task_description()
    assert description.startswith("Your task is to boil")
    assert obs.startswith(description + "\nThis room is called the ")
    assert obs[len(description) + 1 :] == env.look().rstrip("\n")
    assert info["score"] == 0.0 and info["moves"] == 0 and not info["success"]
    assert (info["task_name"], info["variation"], info["item_id"]) == ("boil", 5, "sciworld_5")
    assert "available_actions" not in info


def test_reset_look_that_scores_is_the_first_steps_wire_baseline(env):
    # sciworld_4470 (lifespan-shortest-lived 105): the reset's look already scores 50
    split, task_id = env.tasks.locate(4470)
    _obs, info = env.reset(options={"split": split, "task_id": task_id})
    assert info["score"] == 0.0  # AgentGym's client starts the episode at 0
    assert (info["agentgym_score"], info["agentgym_reward"]) == (50.0, 50.0)  # its server
    _obs, reward, _term, _trunc, info = env.step("look around")
    assert (reward, info["score"], info["agentgym_reward"]) == (50.0, 50.0, 0.0)
    _obs, reward, _term, _trunc, info = env.step("look around")
    assert (reward, info["agentgym_reward"]) == (50.0, 0.0)


def test_wrong_focus_scores_minus_100_and_ends(env):
    env.reset(options={"split": "train", "task_id": BOIL_TRAIN})
    obs, reward, terminated, truncated, info = env.step("focus on agent")
    assert obs == "You focus on the agent."
    assert reward == -100.0 and terminated and not truncated
    assert info["score"] == -100.0 and not info["success"]
    obs, reward, terminated, _, info = env.step("look around")
    assert "episode has ended" in obs and info["error"] == "episode has ended"


def test_unknown_action_is_feedback_and_takes_no_time(env):
    env.reset(options={"split": "train", "task_id": BOIL_TRAIN})
    for bad in ("", "xyzzy plugh", "a" * 5000):
        obs, reward, terminated, _, info = env.step(bad)
        assert obs == "No known action matches that input."
        assert "error" in info and not terminated and reward == 0.0 and info["moves"] == 0


def test_move_limit_ends_the_episode_like_the_package(env):
    env.reset(options={"split": "train", "task_id": BOIL_TRAIN})
    turns = 0
    while True:
        _, _, terminated, _, info = env.step("wait")
        turns += 1
        if terminated:
            break
    assert turns == 10 and info["moves"] > 100 and not info["success"]


def test_expert_scores_100_and_rewards_follow_the_mode(env):
    task_id = _test_id("find-living-thing")
    ep = run_episode(env, SciWorldExpert(env), task_id=task_id, split="test", max_turns=200)
    assert ep.success and ep.score == 100.0 and ep.terminated
    assert ep.rewards[-1] == 100.0  # AgentGym: the reward is the running score
    assert ep.rewards == sorted(ep.rewards)
    delta = SciWorldEnv(reward_mode="delta")
    try:
        ep2 = run_episode(
            delta, SciWorldExpert(delta), task_id=task_id, split="test", max_turns=200
        )
        assert ep2.success and sum(ep2.rewards) == 100.0
        assert ep2.observations == ep.observations  # reproducible transcript
    finally:
        delta.close()


def test_valid_actions_only_on_request_and_cached_per_state(env):
    _obs, info = env.reset(options={"split": "train", "task_id": BOIL_TRAIN})
    assert env._valid is None
    actions = env.available_actions()
    assert "look around" in actions and "open door" in actions and "focus on air" in actions
    assert actions == sorted(set(actions))
    assert env._valid is not None and env.available_actions() == actions
    env.step("open door")
    assert env._valid is None
    assert "go to hallway" in env.available_actions()
    eager = SciWorldEnv(include_valid_actions=True)
    try:
        _, info = eager.reset(options={"split": "train", "task_id": BOIL_TRAIN})
        assert info["available_actions"] == actions
    finally:
        eager.close()


def test_free_views_do_not_spend_moves(env):
    env.reset(options={"split": "train", "task_id": BOIL_TRAIN})
    look, inventory = env.look(), env.inventory()
    assert look.startswith("This room is called") and "In your inventory" in inventory
    assert isinstance(env.goal_progress(), str) and env.goal_progress()
    _, _, _, _, info = env.step("look around")
    assert info["moves"] == 0


def test_env_reuses_its_simulator_and_jvm_across_episodes(env, pool):
    env.reset(options={"split": "train", "task_id": 0})
    sim, pid = env.simulator, env.simulator.jvm.pid
    for task_id in (1, 2, 3):
        env.reset(options={"split": "train", "task_id": task_id})
        assert env.simulator is sim and sim.jvm.pid == pid


def test_two_envs_in_one_jvm_interleaved_play_as_if_alone(pool):
    task_id = _test_id("chemistry-mix")  # mixing creates objects mid-episode
    alone = SciWorldEnv()
    try:
        solo = run_episode(
            alone, SciWorldExpert(alone), task_id=task_id, split="test", max_turns=200
        )
    finally:
        alone.close()
    a, b = SciWorldEnv(), SciWorldEnv()
    try:
        assert a.simulator.jvm is b.simulator.jvm
        expert = SciWorldExpert(a)
        obs, info = a.reset(options={"split": "test", "task_id": task_id})
        transcript = [obs]
        for turn in range(200):
            b.reset(
                options={"split": "train", "task_id": 40 + turn % 5}
            )  # reloads the JVM's globals
            b.step("look around")
            obs, _reward, terminated, _, info = a.step(expert(obs, info))
            transcript.append(obs)
            if terminated:
                break
        assert info["success"]
        assert transcript == solo.observations
    finally:
        a.close()
        b.close()


def test_pickled_copy_replays_the_episode_and_continues_identically(env):
    env.reset(options={"split": "train", "task_id": BOIL_TRAIN})
    for action in ("open door", "go to hallway", "open door to kitchen"):
        env.step(action)
    clone = pickle.loads(pickle.dumps(env))
    try:
        assert clone.simulator is not env.simulator
        assert clone.look() == env.look() and clone.inventory() == env.inventory()
        for action in ("go to kitchen", "open freezer", "pick up thermometer", "wait1"):
            assert clone.step(action) == env.step(action)
    finally:
        clone.close()


def test_simplifications_get_a_jvm_of_their_own(pool):
    plain, easy = SciWorldEnv(), SciWorldEnv(simplifications="easy")
    try:
        plain.reset(options={"split": "train", "task_id": BOIL_TRAIN})
        obs, _ = easy.reset(options={"split": "train", "task_id": BOIL_TRAIN})
        assert easy.simulator.jvm is not plain.simulator.jvm
        assert "(that is open)" in obs
        assert "teleportAction" in easy.simulator.call("getSimplificationsUsed")
        assert plain.simulator.call("getSimplificationsUsed") == ""
    finally:
        plain.close()
        easy.close()
    with pytest.raises(ValueError, match="teleportAction"):
        SciWorldEnv(simplifications="teleport")


def test_closed_env_returns_its_simulator_to_the_pool(pool):
    before = pool.live()
    e = SciWorldEnv()
    e.reset(options={"split": "train", "task_id": 0})
    assert pool.live() == before + 1
    sim = e.simulator
    e.close()
    assert pool.live() == before
    again = SciWorldEnv()
    try:
        again.reset(options={"split": "train", "task_id": 0})
        assert again.simulator is sim
    finally:
        again.close()


def test_agentgym_index_plays_agentgym_item(pool):
    e = SciWorldEnv(index="agentgym")
    try:
        _obs, info = e.reset(options={"split": "train", "task_id": 1396})
        assert (info["task_name"], info["variation"], info["item_id"]) == (
            "power-component",
            0,
            "sciworld_1396",
        )
        assert SciWorldTasks("agentgym").size("train") == 4639
    finally:
        e.close()


def test_random_action_is_grammar_with_visible_objects(env):
    import numpy as np

    env.reset(options={"split": "train", "task_id": BOIL_TRAIN})
    rng = np.random.default_rng(0)
    objects = set(env.simulator.possible_objects())
    for _ in range(20):
        action = env.random_action(rng)
        assert action and isinstance(action, str)
    assert "agent" in objects


def test_same_task_and_actions_give_the_same_text_every_load(env):
    # power-component variation 1 lists its objects in a different order from load to load
    # in the package's own API; our JVMs' constant hash codes make it reproducible
    agentgym = SciWorldEnv(index="agentgym")
    try:
        runs = []
        for _ in range(3):
            obs, _ = agentgym.reset(options={"split": "train", "task_id": 1397})
            runs.append(
                [obs] + [agentgym.step(a)[0] for a in ("look around", "open door", "wait1")]
            )
        assert runs[0] == runs[1] == runs[2]
    finally:
        agentgym.close()


def test_non_deterministic_mode_runs_in_jvms_of_its_own(env):
    fast = SciWorldEnv(deterministic=False)
    try:
        _obs, _ = fast.reset(options={"split": "train", "task_id": BOIL_TRAIN})
        assert fast.simulator.jvm is not env.simulator.jvm
        assert not fast.simulator.jvm.deterministic and env.simulator.jvm.deterministic
        assert fast.step("focus on agent")[1] == -100.0
    finally:
        fast.close()
