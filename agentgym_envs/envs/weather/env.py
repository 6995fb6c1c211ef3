"""The Weather environment."""

from __future__ import annotations

from typing import Any

import numpy as np

from agentgym_envs.envs.weather import world
from agentgym_envs.envs.weather.tasks import WeatherTask, WeatherTasks
from agentgym_envs.envs.weather.tools import WEATHER_TOOLS, WeatherBackend
from agentgym_envs.tools import Tool, ToolEnv

HINT = (
    'If you want to get the latitude and longitude information of a city, you must call "get_latitude_longitude"! '
    'Do not generate it by yourself which maybe wrong. If you are finished, you will call "finish" action.'
)
EXAMPLE = """Goal: What is the lowest temperature yesterday?

Thought: I need to know where the user is first.

Action: get_user_current_location with Action Input: {}
Observation: Shanghai

Thought: I need the latitude and longitude of Shanghai.

Action: get_latitude_longitude with Action Input: {"name": "Shanghai"}
Observation: {'results': [{'name': 'Shanghai', 'latitude': 31.22222, 'longitude': 121.45806, 'country_code': 'CN'}]}

Thought: Now I need today's date to know which day yesterday was.

Action: get_user_current_date with Action Input: {}
Observation: 2015-01-02

Thought: Yesterday was 2015-01-01; I will get its temperature.

Action: get_historical_temp with Action Input: {"latitude": 31.22222, "longitude": 121.45806, "start_date": "2015-01-01", "end_date": "2015-01-01"}
Observation: {'latitude': 31.22222, 'longitude': 121.45806, 'daily_units': {'time': 'iso8601', 'temperature_2m_max': 'degC', 'temperature_2m_min': 'degC', 'temperature_2m_mean': 'degC'}, 'daily': {'time': ['2015-01-01'], 'temperature_2m_max': [4.3], 'temperature_2m_min': [-3.6], 'temperature_2m_mean': [-0.1]}}

Thought: The lowest temperature yesterday was -3.6 degC.

Action: finish with Action Input: {"answer": -3.6}
Observation: -3.6
"""


class WeatherEnv(ToolEnv):
    """Answer weather questions with Open-Meteo-style tools on a deterministic offline climate.

    ## Description
    AgentGym's Weather (from AgentBoard's tool-query tasks). The user has a current date and
    city; the agent looks up coordinates, dates and daily weather with tools and answers with
    ``finish``. AgentGym calls the live Open-Meteo APIs; here a gazetteer of real cities and a
    deterministic daily climate (seasonal temperature, rain, snow, PM2.5 air quality) for any
    place and date serve the same tools, so every run is reproducible offline.
    Identical to AgentGym in everything the tool envs share
    (:class:`~agentgym_envs.tools.env.ToolEnv`).
    Stand-ins: the Open-Meteo data (a generated offline climate) and the tasks (generated in
    AgentGym's kinds of questions; AgentGym's item ids do not name these tasks).

    ## Action Space
    AgentGym's grammar, ``Action: <tool> with Action Input: {"arg": value}`` (the last line of
    a ``Thought: ... Action: ...`` reply, or the action alone). Tools (AgentBoard's weather set):
    ``get_user_current_date``, ``get_user_current_location``, ``get_latitude_longitude(name)``,
    ``get_historical_temp|rain|snow(latitude, longitude, start_date, end_date)`` (dates before
    today), ``get_temp|rain|snow_forecast(...)`` (dates after today),
    ``get_current_temp|rain|snow(latitude, longitude, current_date)``,
    ``get_historical_air_quality_index(...)``, ``get_current_air_quality_index(...)``,
    ``get_air_quality_level(air_quality_index)``, ``get_elevation(latitude, longitude)``,
    ``get_distance(latitude1, longitude1, latitude2, longitude2)``, ``check_valid_actions``,
    ``finish(answer)``.
    Replies are read as AgentGym's servers read them (``parser``, see
    :class:`~agentgym_envs.tools.env.ToolEnv`).

    ## Observation Space
    Reset: ``Now new trial starts.\\nYou should perform actions to accomplish the goal: <goal>\\n
    Give me one action.`` Step: ``Observation: <tool result>\\nGive me one action.`` with the
    result as AgentGym prints it (Python repr of the JSON); a bad call is
    ``Observation: ERROR | <what is wrong>``; a reply without an action is AgentGym's format-error
    text.

    ## Starting State
    The task's current date (2023) and city; the climate is fixed.

    ## Rewards
    As AgentGym's Weather server: 1.0 once the answer is reached (the ``finish`` answer, or a
    tool result equal to it), else 0 -- AgentGym maps any progress above 0 to 1 and its tasks'
    only subgoal is the answer. The step reward is the increase of that score.
    The answer is compared, and ``info["agentgym_reward"]`` reported, as in every tool env
    (:class:`~agentgym_envs.tools.env.ToolEnv`).

    ## Episode End
    ``finish`` terminates. AgentGym's max rounds is 10 (a wrapper's turn limit).

    ## Information
    ``progress`` (AgentBoard's progress rate over the task's subgoals: today's date, the city,
    the coordinates, the right query, the answer), ``goal``, ``tool`` (the tool called),
    ``error``, and ``answer`` (gold) at the end. ``success`` is True when the ``finish`` answer
    matches the gold answer (``answer_match``). ``agentgym_reward``: AgentGym's wire reward.

    ## Arguments
    ``train_size``: number of generated train tasks (default 1,000; the test split has
    AgentEval's 20).
    ``answer_match``, ``parser``: as in every tool env (:class:`~agentgym_envs.tools.env.ToolEnv`).

    ## Version History
    v0: initial release, with AgentGym's answer comparison, reply reading and wire reward by
    default (:class:`~agentgym_envs.tools.env.ToolEnv`).
    """

    family = "weather"
    toolkit = WEATHER_TOOLS
    hint = HINT
    example = EXAMPLE

    def __init__(
        self,
        train_size: int = 1000,
        answer_match: str = "agentgym",
        parser: str = "agentgym",
        render_mode: str | None = None,
    ) -> None:
        super().__init__(WeatherTasks(train_size), answer_match, parser, render_mode=render_mode)

    def _make_backend(self, task: WeatherTask) -> WeatherBackend:
        return WeatherBackend(task.current_date, task.current_location)

    def _random_arguments(self, tool: Tool, rng: np.random.Generator) -> dict[str, Any]:
        task: WeatherTask = self.task  # type: ignore[assignment]
        city = world.CITIES[int(rng.integers(len(world.CITIES)))]
        other = world.CITIES[int(rng.integers(len(world.CITIES)))]
        offset = int(rng.integers(1, 8))
        past, future = (
            world.shift(task.current_date, -offset),
            world.shift(task.current_date, offset),
        )
        values: dict[str, Any] = {
            "name": city.name,
            "latitude": city.latitude,
            "longitude": city.longitude,
            "latitude1": city.latitude,
            "longitude1": city.longitude,
            "latitude2": other.latitude,
            "longitude2": other.longitude,
            "start_date": future if "forecast" in tool.name else past,
            "end_date": future
            if "forecast" in tool.name
            else world.shift(past, int(rng.integers(0, offset))),
            "current_date": task.current_date,
            "air_quality_index": int(rng.integers(0, 100)),
        }
        if tool.name == "finish":
            choices: list[Any] = [
                round(float(rng.uniform(-10, 35)), 1),
                "Yes",
                "No",
                city.name,
                "fair",
                int(rng.integers(0, 8)),
            ]
            return {"answer": choices[int(rng.integers(len(choices)))]}
        return {name: values[name] for name in tool.argument_names}
