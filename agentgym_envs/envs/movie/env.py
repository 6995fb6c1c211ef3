"""The Movie environment."""

from __future__ import annotations

from typing import Any

import numpy as np

from agentgym_envs.envs.movie.tasks import MovieTask, MovieTasks
from agentgym_envs.envs.movie.tools import MOVIE_TOOLS, MovieBackend
from agentgym_envs.envs.movie.world import catalog
from agentgym_envs.tools import Tool, ToolEnv

HINT = (
    'If you want to get the movie_id or person_id, Please call "get_search_person", "get_search_movie"! '
    'Do not generate it by yourself which maybe wrong. If you are finished, you will call "finish" action.'
)
EXAMPLE = """Goal: When did the movie The Silent Harbor come out?

Thought: I need the id of the movie first.

Action: get_search_movie with Action Input: {"movie_name": "The Silent Harbor"}
Observation: [{'id': 934433, 'overview': 'A drama story: ...', 'title': 'The Silent Harbor'}]

Thought: Its details include the release date.

Action: get_movie_details with Action Input: {"movie_id": "934433"}
Observation: {'title': 'The Silent Harbor', 'budget': 35000000, 'genres': [{'id': 18, 'name': 'Drama'}], 'revenue': 168961389, 'vote_average': 7.4, 'release_date': '2023-03-08'}

Thought: The movie came out on 2023-03-08.

Action: finish with Action Input: {"answer": "2023-03-08"}
Observation: 2023-03-08
"""


class MovieEnv(ToolEnv):
    """Answer film questions with TMDB-style tools on a generated, offline film database.

    ## Description
    AgentGym's Movie (from AgentBoard's tool-query tasks). AgentGym calls the live TMDB API; here
    a catalogue of 272 fictional films and 1,100 people, generated once from a fixed seed,
    serves the same tools with TMDB's reply shapes: movies with release dates, budgets, revenue,
    genres, production companies and countries, keywords, alternative titles and translations;
    people with birthdays, birthplaces and external ids; cast and crew credits.
    Identical to AgentGym in everything the tool envs share
    (:class:`~agentgym_envs.tools.env.ToolEnv`).
    Stand-ins: the TMDB data (a generated catalogue) and the tasks (generated; AgentGym's item
    ids do not name these tasks).

    ## Action Space
    ``Action: <tool> with Action Input: {"arg": value}``. Tools (AgentBoard's
    movie set): ``get_search_movie(movie_name)``, ``get_movie_details(movie_id)``,
    ``get_movie_production_companies``, ``get_movie_production_countries``, ``get_movie_cast``,
    ``get_movie_crew``, ``get_movie_keywords``, ``get_movie_alternative_titles``,
    ``get_movie_translation`` (all ``movie_id``), ``get_search_person(person_name)``,
    ``get_person_details``, ``get_person_cast``, ``get_person_crew``,
    ``get_person_external_ids`` (all ``person_id``), ``check_valid_actions``, ``finish(answer)``.
    Replies are read as AgentGym's servers read them (``parser``, see
    :class:`~agentgym_envs.tools.env.ToolEnv`).

    ## Observation Space
    As every tool env: ``Observation: <result>\\nGive me one action.``; unknown ids give TMDB's
    not-found body; a reply without an action gets AgentGym's format-error text.

    ## Starting State
    The fixed catalogue; the task's question.

    ## Rewards
    As AgentGym's Movie server: the raw progress rate over its one subgoal, the answer -- 1.0
    once the answer is reached (``finish``, or a tool result equal to it), else 0. The step
    reward is the increase.
    The answer is compared, and ``info["agentgym_reward"]`` reported, as in every tool env
    (:class:`~agentgym_envs.tools.env.ToolEnv`).

    ## Episode End
    ``finish`` terminates. AgentGym's max rounds is 12.

    ## Information
    ``progress`` (AgentBoard's rate over the search, lookup and answer subgoals), ``goal``,
    ``tool``, ``error``, ``answer`` at the end; ``success`` when the ``finish`` answer matches
    (``answer_match``). ``agentgym_reward``: AgentGym's wire reward.

    ## Arguments
    ``train_size``: generated train tasks (default 1,000; test has AgentEval's 20).
    ``answer_match``, ``parser``: as in every tool env (:class:`~agentgym_envs.tools.env.ToolEnv`).

    ## Version History
    v0: initial release, with AgentGym's answer comparison, reply reading and wire reward by
    default (:class:`~agentgym_envs.tools.env.ToolEnv`).
    """

    family = "movie"
    toolkit = MOVIE_TOOLS
    hint = HINT
    example = EXAMPLE

    def __init__(
        self,
        train_size: int = 1000,
        answer_match: str = "agentgym",
        parser: str = "agentgym",
        render_mode: str | None = None,
    ) -> None:
        super().__init__(MovieTasks(train_size), answer_match, parser, render_mode=render_mode)

    def _make_backend(self, task: MovieTask) -> MovieBackend:
        return MovieBackend()

    def _random_arguments(self, tool: Tool, rng: np.random.Generator) -> dict[str, Any]:
        cat = catalog()
        movies = sorted(cat.movies)
        people = sorted(cat.people)
        m = cat.movies[movies[int(rng.integers(len(movies)))]]
        person = cat.people[people[int(rng.integers(len(people)))]]
        if tool.name == "finish":
            choices: list[Any] = [
                m.title,
                person.name,
                m.release_date,
                "Yes",
                "No",
                person.place_of_birth,
            ]
            return {"answer": choices[int(rng.integers(len(choices)))]}
        values = {
            "movie_name": m.title,
            "movie_id": str(m.id),
            "person_name": person.name,
            "person_id": str(person.id),
        }
        return {name: values[name] for name in tool.argument_names}
