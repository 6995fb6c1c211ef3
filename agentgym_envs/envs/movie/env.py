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
    Identical to AgentGym: the first observation, the ``Observation: ...\\nGive me one action.``
    framing, the format-error text, the answer comparison and the reward its server returns.
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
    By default a reply is read as AgentGym's servers read it: the ``... with Action Input: ...``
    must end the reply, on one line; otherwise the observation is their format-error text
    (``Format error, please response in the format of  "Action: [your action] with Action
    Input: [your action input]``, reward unchanged). Their ``ERROR | ...`` texts answer a last
    line without ``Action:`` (``TypeError(...)``), an input Python's ``eval`` rejects such as
    JSON's ``true`` (``Exception(Parameters in action input are not valid, ...)``), an unknown
    tool name (``Invalid action: <name>.``) and a missing argument (``KeyError('<arg>')``);
    a dispatched action whose line says ``finish`` ends the episode, as there.
    ``parser="lenient"`` reads a multi-line input, text after the action, JSON's literals,
    tool names in other case and JSON tool calls, and ends only on the ``finish`` tool.

    ## Observation Space
    As every tool env: ``Observation: <result>\\nGive me one action.``; unknown ids give TMDB's
    not-found body; a reply without an action gets AgentGym's format-error text.

    ## Starting State
    The fixed catalogue; the task's question.

    ## Rewards
    As AgentGym's Movie server: the raw progress rate over its one subgoal, the answer -- 1.0
    once the answer is reached (``finish``, or a tool result equal to it), else 0. The step
    reward is the increase.
    The answer is compared as AgentGym compares it: Python ``==`` on the ``finish`` input read
    as a literal, lists sorted (``"18.5"`` is not ``18.5``, ``"Fair"`` is not ``"fair"``);
    ``answer_match="lenient"`` accepts other spellings (numbers within tolerance, units,
    case, list order).
    ``info["agentgym_reward"]`` at every step is the reward AgentGym's server returns for it
    (the running score; AgentGym's client scores an episode by its last reward).

    ## Episode End
    ``finish`` terminates. AgentGym's max rounds is 12.

    ## Information
    ``progress`` (AgentBoard's rate over the search, lookup and answer subgoals), ``goal``,
    ``tool``, ``error``, ``answer`` at the end; ``success`` when the ``finish`` answer matches
    (``answer_match``). ``agentgym_reward``: AgentGym's wire reward.

    ## Arguments
    ``train_size``: generated train tasks (default 1,000; test has AgentEval's 20).
    ``answer_match``: ``"agentgym"`` (default) or ``"lenient"``. ``parser``: ``"agentgym"`` (default)
    or ``"lenient"``.

    ## Version History
    v0: initial release. Answers are compared with AgentGym's ``==`` by default (the
    lenient matcher is ``answer_match="lenient"``), replies AgentGym cannot read get its
    format-error text (``parser="lenient"`` reads them as before), and every step carries
    ``info["agentgym_reward"]``.
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
