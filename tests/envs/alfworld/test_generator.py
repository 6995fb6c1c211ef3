"""The seeded task generator: splits, task-type spread, vocabularies, solvability."""

from __future__ import annotations

from collections import Counter

import gymnasium as gym
import pytest

import agentgym_envs
from agentgym_envs.envs.alfworld import vocab
from agentgym_envs.envs.alfworld.generator import generate
from agentgym_envs.envs.alfworld.tasks import GeneratedAlfworldTasks
from agentgym_envs.envs.alfworld.world import Engine, goal_holds
from agentgym_envs.rollout import run_episode


def test_test_split_is_agenteval_sized_and_spread_evenly():
    tasks = GeneratedAlfworldTasks()
    assert tasks.splits() == {"train": 2420, "test": 200}
    types = Counter(tasks.get("test", i).goal.task_type for i in range(200))
    assert sorted(types.values()) == [33, 33, 33, 33, 34, 34] and set(types) == set(
        vocab.TASK_TYPES
    )


def test_agentgym_item_index_layout():
    tasks = GeneratedAlfworldTasks()
    assert tasks.agentgym_index("train", 0) == 0 and tasks.agentgym_index("test", 0) == 2420
    assert tasks.locate(2619) == ("test", 199) and tasks.locate(2419) == ("train", 2419)
    big = GeneratedAlfworldTasks(train_size=5000)
    assert big.agentgym_index("train", 2420) == 2620 and big.locate(2620) == ("train", 2420)
    assert big.locate(2425) == ("test", 5)


def test_generation_is_seeded_and_splits_differ():
    a, b = (
        generate("test/7", "pick_heat_then_place_in_recep"),
        generate("test/7", "pick_heat_then_place_in_recep"),
    )
    assert a == b
    t = GeneratedAlfworldTasks()
    assert t.get("train", 3).scene != t.get("test", 3).scene


@pytest.mark.parametrize("task_type", vocab.TASK_TYPES)
def test_scenes_use_alfworld_vocabulary_and_valid_rooms(task_type):
    for i in range(15):
        scene, goal = generate(f"check/{i}", task_type)
        assert scene.room in vocab.GOALS_VALID[task_type]
        rtypes = {r.rtype for r in scene.receptacles}
        assert rtypes <= set(vocab.ROOM_RECEPTACLES[scene.room])
        assert {i.otype for i in scene.items} <= set(vocab.ROOM_OBJECTS[scene.room])
        rec = {r.id: r for r in scene.receptacles}
        for item in scene.items:
            host = rec[item.receptacle]
            assert item.location == host.location
            if "toggleable" in item.props:
                assert host.rtype in vocab.LAMP_STANDS[item.otype]
            else:
                assert item.otype in vocab.CAN_CONTAIN[host.rtype]
        assert goal.text in [
            t.format(obj=goal.obj.lower(), recep=goal.recep.lower(), toggle=goal.toggle.lower())
            for t in vocab.TEMPLATES[task_type]
        ]
        if goal.recep:
            assert goal.recep in rtypes and (goal.recep, goal.obj) in scene.can_contain
        if task_type == "pick_two_obj_and_place":
            assert sum(i.otype == goal.obj for i in scene.items) >= 2
        engine = Engine(scene, goal)
        assert not goal_holds(goal, engine), "goal must not hold at the start"
        assert scene.start not in {r.location for r in scene.receptacles}


def test_realistic_counts():
    kitchens = [generate(f"k/{i}", "pick_heat_then_place_in_recep")[0] for i in range(20)]
    n_recs = [len(s.receptacles) for s in kitchens]
    n_items = [len(s.items) for s in kitchens]
    assert min(n_recs) >= 12 and max(n_recs) <= 45
    assert min(n_items) >= 15
    shared = sum(len({r.location for r in s.receptacles}) < len(s.receptacles) for s in kitchens)
    assert shared >= 10, "neighbouring drawers / burners share locations in most kitchens"


def test_expert_solves_a_sample_of_train_tasks_mostly_within_agentgym_rounds():
    env = gym.make("AgentGym/ALFWorld-v0").unwrapped
    expert = agentgym_envs.expert_policy(env)
    turns = []
    for task_id in range(0, 2420, 41):
        ep = run_episode(env, expert, task_id=task_id, split="train", seed=0, max_turns=200)
        assert ep.success, f"train task {task_id}"
        turns.append(ep.turns)
    assert sum(t <= 30 for t in turns) >= 0.9 * len(turns)
