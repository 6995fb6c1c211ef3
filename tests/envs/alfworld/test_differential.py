"""The native engine against alfworld's own TextWorld engine, on the same tasks.

Runs where the ``alfworld`` extra is installed (CI installs it). For a sample of generated
tasks of every type, the native expert's plan is replayed in both engines: they must win at the
same step, and after every command the observations and the admissible commands must agree.
A scripted tour of the probe kitchen and short random walks cover the commands the plans do
not use (slice, examine, look at a shared spot, help, inadmissible commands).

Normalisation: surrounding whitespace of an observation is stripped (:func:`norm`); nothing
else. Admissible commands are compared as sorted lists, exactly. A disagreement is a bug in the
native engine.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

pytest.importorskip(
    "alfworld", reason='needs the alfworld extra: pip install "agentgym-envs[alfworld]"'
)
pytest.importorskip(
    "textworld", reason='needs the alfworld extra: pip install "agentgym-envs[alfworld]"'
)

import agentgym_envs
from agentgym_envs.envs.alfworld import vocab
from agentgym_envs.envs.alfworld.backend import AlfworldBackend
from agentgym_envs.envs.alfworld.env import AlfWorldEnv
from agentgym_envs.envs.alfworld.tasks import AlfworldTask
from agentgym_envs.envs.alfworld.world import Engine
from agentgym_envs.rollout import run_episode
from tests.envs.alfworld.official import write_data_folder
from tests.envs.alfworld.scenes import LOC, START, goal, probe_scene


def norm(text: str) -> str:
    """The documented normalisation: surrounding whitespace stripped, nothing else."""
    return text.strip()


def replay(task: AlfworldTask, grammar: str, commands: list[str]) -> list[int]:
    """Play ``commands`` in both engines; assert agreement; return the steps at which each won."""
    real = AlfworldBackend(grammar)
    native = Engine(task.scene, task.goal, grammar)
    assert norm(real.start(task)) == norm(native.intro())
    assert real.admissible == native.admissible()
    won_real, won_native = [], []
    try:
        for i, command in enumerate(commands):
            expected, won = real.step(command)
            got = native.step(command)
            assert norm(got) == norm(expected), (
                f"step {i} {command!r}: real {expected!r}, native {got!r}"
            )
            assert native.admissible() == real.admissible, (
                f"admissible commands differ after {command!r}"
            )
            if won:
                won_real.append(i)
            if native.won:
                won_native.append(i)
    finally:
        real.close()
    assert won_native == won_real
    return won_real


def expert_plan(env: AlfWorldEnv, task_id: int) -> tuple[AlfworldTask, list[str]]:
    ep = run_episode(
        env, agentgym_envs.expert_policy(env), task_id=task_id, split="test", seed=0, max_turns=100
    )
    assert ep.success
    return env.task, ep.actions


# one test task of each type (task i has type i % 6); 0.4.2 on half of them
SAMPLE = [("0.3.3", t) for t in range(6)] + [("0.4.2", t) for t in (7, 9, 11)]


@pytest.mark.parametrize("grammar,task_id", SAMPLE)
def test_expert_plan_same_outcome_same_step_same_texts(grammar, task_id):
    env = AlfWorldEnv(tasks="generated", grammar=grammar)
    task, plan = expert_plan(env, task_id)
    assert task.goal.task_type == vocab.TASK_TYPES[task_id % 6]
    won = replay(task, grammar, plan)
    assert won and won[0] == len(plan) - 1


@pytest.mark.parametrize("grammar", ["0.3.3", "0.4.2"])
def test_scripted_tour_of_every_command(grammar):
    put = "move {} to {}" if grammar == "0.4.2" else "put {} in/on {}"
    task = AlfworldTask(
        0, "test", scene=probe_scene(), goal=goal("look_at_obj_in_light", "Apple", "", "DeskLamp")
    )
    commands = [
        "look",
        "inventory",
        "help",
        "go to cabinet 2",
        "look",
        "examine cabinet 3",
        "open cabinet 3",
        "open cabinet 2",
        "examine mug 1",
        "take mug 1 from cabinet 3",
        "examine mug 1",
        put.format("mug 1", "cabinet 2"),
        "look",
        "close cabinet 2",
        "look",
        "go to countertop 1",
        "take knife 1 from countertop 1",
        "slice apple 2 with knife 1",
        "go to fridge 1",
        "slice apple 1 with knife 1",
        "open fridge 1",
        "take apple 1 from fridge 1",
        "xyzzy",
        put.format("knife 1", "countertop 1"),
        "go to countertop 1",
        put.format("knife 1", "countertop 1"),
        "take apple 2 from countertop 1",
        "examine apple 2",
        "go to microwave 1",
        "heat apple 2 with microwave 1",
        "examine apple 2",
        "go to sinkbasin 1",
        "clean apple 2 with sinkbasin 1",
        "examine apple 2",
        "go to fridge 1",
        "cool apple 2 with fridge 1",
        "examine apple 2",
        "inventory",
        "go to sidetable 1",
        "use desklamp 1",
        "use desklamp 1",
    ]
    assert replay(task, grammar, commands) == [len(commands) - 2, len(commands) - 1]


@pytest.mark.parametrize("grammar,task_id", [("0.3.3", 12), ("0.4.2", 15)])
def test_random_walks_agree(grammar, task_id):
    env = AlfWorldEnv(tasks="generated", grammar=grammar)
    env.reset(options={"split": "test", "task_id": task_id})
    native = Engine(env.task.scene, env.task.goal, grammar)
    native.intro()
    rng = random.Random(task_id)
    commands = []
    for _ in range(40):  # favour commands other than `go to`, which the plans already cover
        admissible = native.admissible()
        here = [c for c in admissible if not c.startswith("go to")]
        command = rng.choice(here if here and rng.random() < 0.7 else admissible)
        commands.append(command)
        native.step(command)
    replay(env.task, grammar, commands)


def test_starting_at_a_receptacle_shows_the_look_text():
    scene = probe_scene()
    scene = dataclasses.replace(
        scene, start=LOC["counter"], locations=tuple(x for x in scene.locations if x != START)
    )
    task = AlfworldTask(
        0, "test", scene=scene, goal=goal("pick_clean_then_place_in_recep", "Knife", "Drawer")
    )
    commands = [
        "look",
        "take knife 1 from countertop 1",
        "go to sinkbasin 1",
        "clean knife 1 with sinkbasin 1",
        "go to drawer 1",
        "open drawer 1",
        "put knife 1 in/on drawer 1",
    ]
    assert replay(task, "0.3.3", commands) == [6]


def test_env_class_plays_the_alfworld_backend_and_the_expert_wins():
    native = AlfWorldEnv(tasks="generated")
    env = AlfWorldEnv(tasks="generated", backend="alfworld")
    for task_id in (1, 4):
        a = run_episode(
            native, agentgym_envs.expert_policy(native), task_id=task_id, seed=0, max_turns=60
        )
        b = run_episode(
            env, agentgym_envs.expert_policy(env), task_id=task_id, seed=0, max_turns=60
        )
        assert b.success and b.transcript == a.transcript
    env.close()


def test_official_games_play_alike_from_their_files(tmp_path):
    write_data_folder(tmp_path, n_train=1, n_test=2, real_logic=True)
    native = AlfWorldEnv(data_path=tmp_path)
    real = AlfWorldEnv(data_path=tmp_path, backend="alfworld")
    for task_id in (0, 1):
        a = run_episode(
            native, agentgym_envs.expert_policy(native), task_id=task_id, seed=0, max_turns=60
        )
        b = run_episode(
            real, agentgym_envs.expert_policy(real), task_id=task_id, seed=0, max_turns=60
        )
        assert a.success and b.success and a.transcript == b.transcript
    real.close()
