"""Movie's tasks: AgentGym-style film questions generated over the offline catalogue.

Kinds follow AgentGym's movie data: release dates, budget comparisons, production companies
and countries (lists), director / writer / cast lookups, multi-hop questions (role -> actor ->
their other roles, director -> birthplace / birthday / IMDb id), yes/no same-director and
keyword questions, profit, alternative titles.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from agentgym_envs.envs.movie.tools import crew_list
from agentgym_envs.envs.movie.world import COUNTRIES, Catalog, Movie, catalog
from agentgym_envs.spec import family_record
from agentgym_envs.tools import PlanStep, Subgoal, ToolTask
from agentgym_envs.tools.tasks import GeneratedToolTasks

TEST_SIZE = 20  # AgentEval's Movie split
TRAIN_SIZE = 1000
_COUNTRY_NAMES = dict(COUNTRIES)
_ALT_COUNTRY = {
    "GB": "the United Kingdom",
    "FR": "France",
    "DE": "Germany",
    "JP": "Japan",
    "CA": "Canada",
    "ES": "Spain",
    "IT": "Italy",
}


@dataclass(frozen=True)
class MovieTask(ToolTask):
    """A film question over the catalogue."""


class _Builder:
    def __init__(self) -> None:
        self.steps: list[PlanStep] = []
        self.subgoals: list[Subgoal] = []

    def call(self, tool: str, args: dict, thought: str, reached: object = None) -> None:
        self.steps.append(PlanStep(tool, args, thought))
        if reached is not None:
            self.subgoals.append(Subgoal(reached, tool, thought))

    def search(self, m: Movie) -> str:
        self.call(
            "get_search_movie",
            {"movie_name": m.title},
            f'I need the id of the movie "{m.title}".',
            {"id": m.id},
        )
        return str(m.id)

    def finish(self, answer: object) -> tuple[tuple[PlanStep, ...], tuple[Subgoal, ...]]:
        self.steps.append(
            PlanStep("finish", {"answer": answer}, f"The answer is {str(answer).rstrip('.')}.")
        )
        self.subgoals.append(Subgoal(answer, None, "the answer"))
        return tuple(self.steps), tuple(self.subgoals)


Kind = Callable[[random.Random, Catalog, _Builder], tuple[str, object, str]]


@lru_cache(maxsize=1)
def _findable() -> tuple[Movie, ...]:
    """Movies a title search finds first (every one of them here), in id order."""
    cat = catalog()
    return tuple(
        m
        for m in sorted(cat.movies.values(), key=lambda m: m.id)
        if cat.search_movie(m.title)[0] is m
    )


def _pick(rng: random.Random, cat: Catalog, ok: Callable[[Movie], bool] = lambda m: True) -> Movie:
    return rng.choice([m for m in _findable() if ok(m)])


def _director(cat: Catalog, m: Movie):
    return cat.people_in(m, "Director")[0]


def k_release_date(rng, cat, p):
    m = _pick(rng, cat)
    mid = p.search(m)
    p.call(
        "get_movie_details",
        {"movie_id": mid},
        "The details include the release date.",
        {"release_date": m.release_date},
    )
    return (
        f'When was the movie "{m.title}" released? Please answer in the format YYYY-MM-DD.',
        m.release_date,
        "easy",
    )


def k_director_birthplace(rng, cat, p):
    m = _pick(rng, cat)
    d = _director(cat, m)
    mid = p.search(m)
    p.call(
        "get_movie_crew",
        {"movie_id": mid},
        "The crew list names the director.",
        {"name": d.name, "job": "Director"},
    )
    p.call(
        "get_person_details",
        {"person_id": str(d.id)},
        f"{d.name} directed it; I need their birthplace.",
        {"place_of_birth": d.place_of_birth},
    )
    return (
        f'Where was the director of "{m.title}" born? Please answer me with the birthplace as a string.',
        d.place_of_birth,
        "hard",
    )


def k_budget_compare(rng, cat, p):
    while True:
        a, b = _pick(rng, cat), _pick(rng, cat)
        if a is not b and a.budget != b.budget:
            break
    for m in (a, b):
        mid = p.search(m)
        p.call(
            "get_movie_details",
            {"movie_id": mid},
            f'I need the budget of "{m.title}".',
            {"budget": m.budget},
        )
    answer = a.title if a.budget > b.budget else b.title
    return (
        f'Which movie had a bigger budget, "{a.title}" or "{b.title}"? Please answer with the title.',
        answer,
        "hard",
    )


def k_companies(rng, cat, p):
    m = _pick(rng, cat)
    mid = p.search(m)
    names = sorted(cat.companies[c].name for c in m.companies)
    p.call(
        "get_movie_production_companies",
        {"movie_id": mid},
        "I will get its production companies.",
        {"name": names[0]},
    )
    return (
        f'Which companies produced the movie "{m.title}"? Please provide the names as an array.',
        names,
        "easy",
    )


def k_countries(rng, cat, p):
    m = _pick(rng, cat)
    mid = p.search(m)
    names = sorted(_COUNTRY_NAMES[c] for c in m.countries)
    p.call(
        "get_movie_production_countries",
        {"movie_id": mid},
        "I will get its production countries.",
        {"iso_3166_1": m.countries[0]},
    )
    return (
        f'In which countries was "{m.title}" produced? Please provide the country names as an array.',
        names,
        "easy",
    )


def k_actor_of_role(rng, cat, p):
    m = _pick(rng, cat)
    pid, char = m.cast[rng.randrange(min(10, len(m.cast)))]
    actor = cat.people[pid]
    mid = p.search(m)
    p.call(
        "get_movie_cast",
        {"movie_id": mid},
        f"The cast list shows who played {char}.",
        {"name": actor.name, "character": char},
    )
    return (
        f'Who played the role of {char} in "{m.title}"? Please answer with the name.',
        actor.name,
        "easy",
    )


def k_role_in_other_movie(rng, cat, p):
    while True:
        m = _pick(rng, cat)
        pid, char = m.cast[rng.randrange(min(10, len(m.cast)))]
        others = [(om, c) for om, kind, c in cat.credits[pid] if kind == "cast"][:10]
        others = [(om, c) for om, c in others if om is not m and om in _findable()]
        if others:
            break
    other, role = rng.choice(others)
    actor = cat.people[pid]
    mid = p.search(m)
    p.call(
        "get_movie_cast",
        {"movie_id": mid},
        f"I need the actor who played {char}.",
        {"name": actor.name, "character": char},
    )
    p.call(
        "get_person_cast",
        {"person_id": str(pid)},
        f"{actor.name} played {char}; I will look at their other roles.",
        {"title": other.title, "character": role},
    )
    goal = f'The actor who played {char} in "{m.title}", what role did they play in "{other.title}"? Please answer with the character name.'
    return goal, role, "hard"


def k_writers(rng, cat, p):
    m = _pick(rng, cat)
    mid = p.search(m)
    names = sorted({e["name"] for e in crew_list(m) if e["job"] in ("Screenplay", "Writer")})
    p.call(
        "get_movie_crew", {"movie_id": mid}, "The crew list shows the writers.", {"name": names[0]}
    )
    return (
        f'Who wrote the movie "{m.title}" (screenplay or writer credits)? Please provide the names as an array.',
        names,
        "easy",
    )


def k_director_birthday(rng, cat, p):
    m = _pick(rng, cat)
    d = _director(cat, m)
    mid = p.search(m)
    p.call(
        "get_movie_crew",
        {"movie_id": mid},
        "The crew list names the director.",
        {"name": d.name, "job": "Director"},
    )
    p.call(
        "get_person_details",
        {"person_id": str(d.id)},
        f"I need the birthday of {d.name}.",
        {"birthday": d.birthday},
    )
    return (
        f'When was the director of "{m.title}" born? Please answer in the format YYYY-MM-DD.',
        d.birthday,
        "hard",
    )


def k_same_director(rng, cat, p):
    same = rng.random() < 0.5
    while True:
        a = _pick(rng, cat)
        da = _director(cat, a)
        pool = [m for m in _findable() if m is not a and (_director(cat, m).id == da.id) == same]
        if pool:
            b = rng.choice(pool)
            break
    for m in (a, b):
        mid = p.search(m)
        d = _director(cat, m)
        p.call(
            "get_movie_crew",
            {"movie_id": mid},
            f'I need the director of "{m.title}".',
            {"name": d.name, "job": "Director"},
        )
    return (
        f'Were "{a.title}" and "{b.title}" directed by the same person? Please answer "Yes" or "No".',
        "Yes" if same else "No",
        "hard",
    )


def k_profit(rng, cat, p):
    m = _pick(rng, cat)
    mid = p.search(m)
    p.call(
        "get_movie_details",
        {"movie_id": mid},
        "The details have budget and revenue.",
        {"budget": m.budget, "revenue": m.revenue},
    )
    return (
        f'How much more did "{m.title}" earn in revenue than its budget? Please answer with a number in US dollars (negative if it lost money).',
        m.revenue - m.budget,
        "easy",
    )


def k_director_imdb(rng, cat, p):
    m = _pick(rng, cat)
    d = _director(cat, m)
    mid = p.search(m)
    p.call(
        "get_movie_crew",
        {"movie_id": mid},
        "The crew list names the director.",
        {"name": d.name, "job": "Director"},
    )
    p.call(
        "get_person_external_ids",
        {"person_id": str(d.id)},
        f"I need the IMDb id of {d.name}.",
        {"imdb_id": d.imdb_id},
    )
    return f'What is the IMDb id of the director of "{m.title}"?', d.imdb_id, "hard"


def k_keyword(rng, cat, p):
    from agentgym_envs.envs.movie.world import KEYWORDS

    m = _pick(rng, cat)
    yes = rng.random() < 0.5
    kw = (
        rng.choice(list(m.keywords))
        if yes
        else rng.choice([k for k in KEYWORDS if k not in m.keywords])
    )
    mid = p.search(m)
    p.call(
        "get_movie_keywords",
        {"movie_id": mid},
        "I will check its keywords.",
        {"keywords": sorted(m.keywords)},
    )
    return (
        f'Is "{kw}" one of the keywords of the movie "{m.title}"? Please answer "Yes" or "No".',
        "Yes" if yes else "No",
        "easy",
    )


def k_alternative_title(rng, cat, p):
    m = _pick(rng, cat, lambda m: len(m.alternative_titles) > 0)
    cc, title, _ = rng.choice(m.alternative_titles)
    mid = p.search(m)
    p.call(
        "get_movie_alternative_titles",
        {"movie_id": mid},
        "I will look at its alternative titles.",
        {"iso_3166_1": cc, "title": title},
    )
    return (
        f'What is the alternative title of "{m.title}" used in {_ALT_COUNTRY[cc]}?',
        title,
        "easy",
    )


KINDS: dict[str, Kind] = {
    "release_date": k_release_date,
    "director_birthplace": k_director_birthplace,
    "budget_compare": k_budget_compare,
    "companies": k_companies,
    "countries": k_countries,
    "actor_of_role": k_actor_of_role,
    "role_in_other_movie": k_role_in_other_movie,
    "writers": k_writers,
    "director_birthday": k_director_birthday,
    "same_director": k_same_director,
    "profit": k_profit,
    "director_imdb": k_director_imdb,
    "keyword": k_keyword,
    "alternative_title": k_alternative_title,
}


def make_task(split: str, task_id: int) -> MovieTask:
    rng = random.Random(f"agentgym-envs/movie/{split}/{task_id}")
    names = list(KINDS)
    kind = names[task_id % len(names)] if split == "test" else rng.choice(names)
    builder = _Builder()
    goal, answer, difficulty = KINDS[kind](rng, catalog(), builder)
    plan, subgoals = builder.finish(answer)
    return MovieTask(task_id, split, goal, answer, subgoals, plan, difficulty, kind)


class MovieTasks(GeneratedToolTasks):
    """Generated film questions: test 20 (AgentEval's size), train 1,000."""

    item_prefix = family_record("movie").item_prefix
    train_size = TRAIN_SIZE
    test_size = TEST_SIZE
    make_task = staticmethod(make_task)
