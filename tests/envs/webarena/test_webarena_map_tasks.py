"""WebArena's map templates on the map site (:mod:`~agentgym_envs.envs.webarena.wa_map`):
played in real Chromium by the scripted expert, each eval type solved and failed, the
instantiation deterministic and its test tasks apart from its train tasks."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys

import pytest

if importlib.util.find_spec("webarena") is None:
    pytest.skip("the webarena task set needs libwebarena", allow_module_level=True)

from agentgym_envs.envs.webarena import wa_map
from agentgym_envs.envs.webarena import webarena_tasks as wt
from agentgym_envs.envs.webarena.env import WebArenaEnv
from tests.envs.webarena.expert_play import play_expert


@pytest.fixture(scope="module")
def env():
    made = WebArenaEnv(task_set="webarena")
    made.judge = None
    yield made
    made.close()


def _map_configs(split: str) -> list[tuple[int, dict]]:
    train, test = wt.webarena_configs()
    configs = test if split == "test" else train
    return [(i, c) for i, c in enumerate(configs) if c["sites"] == ["map"]]


def _test_task(template_id: int) -> int:
    return next(i for i, c in _map_configs("test") if c["intent_template_id"] == template_id)


def _play(env, task_id: int, plan=None, answer=None) -> dict:
    """The expert's episode on test task ``task_id`` (following ``plan`` if given), or a stop
    with ``answer`` at once."""
    if answer is not None:
        env.reset(options={"split": "test", "task_id": task_id})
        return env.step(f"```stop [{answer}]```")[-1]
    return play_expert(env, task_id, plan, steps=60, no_errors=True)


def test_every_map_template_is_played_or_listed_with_its_reason():
    map_ids = set(wt.needs_map_site())
    _, test = wt.webarena_configs()
    played = {c["intent_template_id"] for c in test if "map" in c["sites"]}
    assert played | set(wa_map.UNPLAYABLE) == map_ids and not played & set(wa_map.UNPLAYABLE)
    assert len(played) >= 20
    assert set(wa_map.UNPLAYABLE) <= set(wt.unplayable())
    # WebArena's share: 2.2 times its 111 map-only tasks
    assert len(_map_configs("test")) + len(_map_configs("train")) == round(111 * wt.SCALE)
    for _, config in _map_configs("test") + _map_configs("train"):
        template = wt.catalog()[config["intent_template_id"]]
        refs = config["eval"]["reference_answers"] or {}
        if refs.get("fuzzy_match") != "N/A":
            assert tuple(config["eval"]["eval_types"]) == template.eval_types
            assert set(refs) <= set(template.answer_kinds)


def test_test_tasks_are_not_train_tasks():
    test = [c for _, c in _map_configs("test")]
    train = [c for _, c in _map_configs("train")]
    assert len({c["intent_template_id"] for c in test}) == len(test)
    train_intents = {c["intent"] for c in train}
    assert not [c["intent"] for c in test if c["intent"] in train_intents]


def _digest() -> str:
    train, test = wt.webarena_configs()
    configs = [c for c in (*train, *test) if c["sites"] == ["map"]]
    return hashlib.sha256(json.dumps(configs, sort_keys=True).encode()).hexdigest()


def test_instantiation_is_deterministic_across_processes():
    code = "from tests.envs.webarena.test_webarena_map_tasks import _digest; print(_digest())"
    environ = {**os.environ, "PYTHONHASHSEED": "12345"}
    other = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environ, check=True
    )
    assert other.stdout.strip().splitlines()[-1] == _digest()


def test_the_expert_solves_every_map_test_task_through_the_pages(env):
    steps = []
    for task_id, config in _map_configs("test"):
        info = _play(env, task_id)
        assert info["success"] and info["score"] == 1.0, config["intent"]
        steps.append(len(config["agentgym_solution"]))
    assert sorted(steps)[len(steps) // 2] >= 5  # the median plan: search, form, mode, go, stop


@pytest.mark.parametrize(
    ("template_id", "kind"),
    [(58, "exact_match"), (46, "must_include"), (36, "fuzzy_match")],
)
def test_string_match_on_a_solved_and_a_failed_map_episode(env, template_id, kind):
    task_id = _test_task(template_id)
    config = env.tasks.get("test", task_id).config
    assert kind in config["eval"]["reference_answers"]
    assert _play(env, task_id)["score"] == 1.0
    # the answer of another route (or place) of the same template fails
    other = next(c for _, c in _map_configs("train") if c["intent_template_id"] == template_id)
    wrong = other["agentgym_solution"][-1][1]
    assert wrong != config["agentgym_solution"][-1][1]
    assert _play(env, task_id, answer=wrong)["score"] == 0.0


def test_url_match_on_a_solved_and_a_failed_map_episode(env):
    task_id = _test_task(59)
    config = env.tasks.get("test", task_id).config
    assert config["eval"]["eval_types"] == ["url_match"]
    assert _play(env, task_id)["success"]
    place = config["instantiation_dict"]["location"]
    elsewhere = [["type", "textbox", "Search", f"zoos near {place}", 1], ["stop", ""]]
    assert _play(env, task_id, plan=elsewhere)["score"] == 0.0


def test_program_html_on_a_solved_and_a_failed_map_episode(env):
    task_id = _test_task(54)
    config = env.tasks.get("test", task_id).config
    assert config["eval"]["eval_types"] == ["program_html"]
    assert config["instantiation_dict"]["transportation"] == "walk"
    assert _play(env, task_id)["success"]
    # the same places by car: the form's routing engine is not the one asked for
    a, b = (
        config["instantiation_dict"]["location/address_1"],
        config["instantiation_dict"]["location/address_2"],
    )
    by_car = [*wa_map.directions(a, b, "car"), ["stop", ""]]
    assert _play(env, task_id, plan=by_car)["score"] == 0.0
    assert _play(env, task_id, answer="")["score"] == 0.0  # the start page has no form


def test_unachievable_map_task_is_answered_na(env):
    task_id = _test_task(781)
    assert _play(env, task_id)["success"]
    assert _play(env, task_id, answer="12 min")["score"] == 0.0
