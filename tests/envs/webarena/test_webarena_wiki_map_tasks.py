"""WebArena's wikipedia + map and gitlab + wikipedia templates (:mod:`~agentgym_envs.envs.
webarena.wa_mapwiki`): the wiki's articles about the map's city state what the map shows,
the scripted expert solves each template's test task in real Chromium by reading the wiki and
then using the map or the code host, and a do-nothing episode fails."""

from __future__ import annotations

import importlib.util
import re

import httpx
import pytest

if importlib.util.find_spec("webarena") is None:
    pytest.skip("the webarena task set needs libwebarena", allow_module_level=True)

from agentgym_envs.envs.webarena import wa_map
from agentgym_envs.envs.webarena import webarena_tasks as wt
from agentgym_envs.envs.webarena.env import WebArenaEnv
from agentgym_envs.envs.webarena.sites import server
from agentgym_envs.envs.webarena.sites.citywiki import city_world
from agentgym_envs.envs.webarena.sites.mapdata import city
from agentgym_envs.envs.webarena.wa_missing import MISSING
from tests.envs.webarena.expert_play import play_expert

TEMPLATES = (85, 94, 371, 87)


@pytest.fixture(scope="module")
def env():
    made = WebArenaEnv(task_set="webarena")
    made.judge = None
    yield made
    made.close()


def _test_task(template_id: int) -> tuple[int, dict]:
    _, test = wt.webarena_configs()
    return next((i, c) for i, c in enumerate(test) if c["intent_template_id"] == template_id)


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).replace("&amp;", "&").split())


def test_the_templates_are_played_and_the_rest_listed_with_reasons():
    train, test = wt.webarena_configs()
    played = {c["intent_template_id"] for c in test}
    assert set(TEMPLATES) <= played
    for tid in TEMPLATES:
        assert tid not in wa_map.UNPLAYABLE and tid not in MISSING
        assert len([c for c in train if c["intent_template_id"] == tid]) >= 4
    # fixed texts naming real places, and states the one-city map has no room for
    assert {120, 67} <= set(wa_map.UNPLAYABLE) and {120, 67} <= set(wt.unplayable())


def test_wiki_articles_agree_with_the_map():
    """Every place an article names is a place of the map at the address the map gives, in
    the neighbourhood the article says; the served wiki and map pages show the same facts."""
    c, w = city(), city_world()
    articles = dict(w.articles())
    names = {p.name: p for p in c.places}
    for team in w.teams:
        text = articles[team.name]
        assert f"{team.home.name} ({team.home.address})" in text
        assert names[team.home.name].category == "stadium"
        if team.former is not None:
            assert f"{team.former.name} ({team.former.address})" in text
    for park in w.national_parks:
        assert park.place.category == "national_park"
        hood = c.district(park.place).name
        assert f"in the {hood} neighbourhood" in articles[park.place.name]
    for film in w.films:
        assert names[film.location.name] == film.location
        assert f"{film.location.name} ({film.location.address})" in articles[film.title]
    for person in w.people:
        assert names[person.college.name].category == "university"
        assert f"bachelor's degree at {person.college.name}" in articles[person.name]
    for prize in w.prizes:
        counts = sorted(
            (sum(p.affiliation.id == u.id for p in prize.laureates), u.id)
            for u in {p.affiliation for p in prize.laureates}
        )
        assert counts[-1][0] > counts[-2][0] and counts[-1][1] == prize.most().id
    ranked = w.by_population()
    assert [n.population for n in ranked] == sorted((n.population for n in ranked), reverse=True)
    # a route URL's coordinates find each place, landmarks too (the map matches within 15 m)
    assert all(c.at(p.coords) == p for p in c.places)
    team = w.teams[0]
    with httpx.Client(follow_redirects=True) as client:
        wiki = _text(client.get(f"{server().url('wikipedia')}/wiki/{team.name}").text)
        node = _text(client.get(f"{server().url('map')}/node/{team.home.id}").text)
    assert team.home.address in wiki and team.home.address in node
    assert f"Since {team.since}" in wiki


def _play(env, task_id: int, answer: str | None = None) -> dict:
    if answer is not None:
        env.reset(options={"split": "test", "task_id": task_id})
        return env.step(f"```stop [{answer}]```")[-1]
    return play_expert(env, task_id, steps=60, no_errors=True)


@pytest.mark.parametrize("template_id", TEMPLATES)
def test_the_expert_reads_the_wiki_and_solves_the_test_task(env, template_id):
    task_id, config = _test_task(template_id)
    plan = config["agentgym_solution"]
    assert ["goto", "__WIKIPEDIA__"] in plan and len(plan) >= 5
    info = _play(env, task_id)
    assert info["success"] and info["score"] == 1.0, config["intent"]


@pytest.mark.parametrize("template_id", TEMPLATES)
def test_a_do_nothing_stop_fails(env, template_id):
    task_id, config = _test_task(template_id)
    assert _play(env, task_id, answer="")["score"] == 0.0
    # the map's answer without the wiki's hop (a place the intent names, or nothing)
    guess = next(iter(config["instantiation_dict"].values()))
    assert _play(env, task_id, answer=guess)["score"] == 0.0
