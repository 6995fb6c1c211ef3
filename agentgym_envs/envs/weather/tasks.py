"""Weather's tasks: AgentGym-style questions generated over the offline climate.

Each task fixes the user's current date (in 2023) and city, asks a question in the phrasing of
AgentGym's weather data (yesterday, last N days, tomorrow, next N days, this day last year,
comparisons between cities, elevation, distance, air quality, yes/no thresholds), and carries
the gold answer computed from :mod:`world`, the subgoals on the way (current date and city,
the coordinates, the right query) and the solution plan.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from dataclasses import dataclass

from agentgym_envs.envs.weather import world
from agentgym_envs.spec import family_record
from agentgym_envs.tools import PlanStep, Subgoal, ToolTask
from agentgym_envs.tools.tasks import GeneratedToolTasks

TEST_SIZE = 20  # AgentEval's Weather split
TRAIN_SIZE = 1000


@dataclass(frozen=True)
class WeatherTask(ToolTask):
    """A weather question, with the user's current date and city."""

    current_date: str = "2023-06-15"
    current_location: str = "New York"


class _Builder:
    """Collects a task's plan and subgoals while the generator decides the question."""

    def __init__(self, today: str, home: str) -> None:
        self.today, self.home = today, home
        self.steps: list[PlanStep] = []
        self.subgoals: list[Subgoal] = []

    def call(self, tool: str, args: dict, thought: str, reached: object = None) -> None:
        self.steps.append(PlanStep(tool, args, thought))
        if reached is not None:
            self.subgoals.append(Subgoal(reached, tool, thought))

    def date(self) -> None:
        self.call("get_user_current_date", {}, "I need to know today's date first.", self.today)

    def location(self) -> None:
        self.call("get_user_current_location", {}, "I need to know where the user is.", self.home)

    def coords(self, name: str) -> world.City:
        c = world.city(name)
        self.call(
            "get_latitude_longitude",
            {"name": name},
            f"I need the latitude and longitude of {name}.",
            {"latitude": c.latitude, "longitude": c.longitude},
        )
        return c

    def series(self, tool: str, c: world.City, start: str, end: str, thought: str) -> None:
        args = {
            "latitude": c.latitude,
            "longitude": c.longitude,
            "start_date": start,
            "end_date": end,
        }
        self.call(tool, args, thought, {"time": world.date_range(start, end)})

    def finish(
        self, answer: object, thought: str = ""
    ) -> tuple[tuple[PlanStep, ...], tuple[Subgoal, ...], object]:
        self.steps.append(
            PlanStep(
                "finish", {"answer": answer}, thought or f"The answer is {str(answer).rstrip('.')}."
            )
        )
        self.subgoals.append(Subgoal(answer, None, "the answer"))
        return tuple(self.steps), tuple(self.subgoals), answer


def _days(c: world.City, start: str, end: str) -> list[world.Day]:
    return [world.day(c.latitude, c.longitude, d) for d in world.date_range(start, end)]


def _other_city(rng: random.Random, *exclude: str) -> str:
    names = sorted(
        {c.name for c in world.CITIES}
        - set(exclude)
        - {"Springfield", "Paris", "London", "Portland"}
    )
    return rng.choice(names)


_COLD = (
    "Denver",
    "Minneapolis",
    "Anchorage",
    "Buffalo",
    "Chicago",
    "Boston",
    "Cheyenne",
    "Aspen",
    "Madison",
    "Moscow",
    "Oslo",
    "Reykjavik",
    "Salt Lake City",
)
_NUMBER_WORDS = {
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    10: "ten",
    14: "fourteen",
}
Kind = Callable[[random.Random, _Builder], tuple[str, object, str]]


def k_temp_yesterday(rng: random.Random, p: _Builder) -> tuple[str, object, str]:
    p.location()
    p.date()
    c = p.coords(p.home)
    y = world.shift(p.today, -1)
    p.series("get_historical_temp", c, y, y, "Now I can get yesterday's temperature.")
    answer = world.day(c.latitude, c.longitude, y).temperature_2m_mean
    return (
        "What was the average temperature in Celsius yesterday? Please provide the answer as a number.",
        answer,
        "easy",
    )


def k_max_temp_last_days(rng: random.Random, p: _Builder) -> tuple[str, object, str]:
    n = rng.choice([3, 4, 5, 7, 10])
    name = _other_city(rng, p.home)
    p.date()
    c = p.coords(name)
    start, end = world.shift(p.today, -n), world.shift(p.today, -1)
    p.series(
        "get_historical_temp", c, start, end, f"I will get the temperatures of the last {n} days."
    )
    answer = max(d.temperature_2m_max for d in _days(c, start, end))
    goal = f"What was the highest temperature in {name} over the last {_NUMBER_WORDS[n]} days (not counting today)? Please give the answer in Celsius as a number."
    return goal, answer, "easy"


def k_rain_total(rng: random.Random, p: _Builder) -> tuple[str, object, str]:
    n = rng.choice([3, 5, 7, 10, 14])
    name = _other_city(rng, p.home)
    p.date()
    c = p.coords(name)
    start, end = world.shift(p.today, -n), world.shift(p.today, -1)
    p.series("get_historical_rain", c, start, end, f"I will get the rain of the last {n} days.")
    answer = round(sum(d.rain_sum for d in _days(c, start, end)), 2)
    goal = f"How much rain fell in {name} in total over the last {_NUMBER_WORDS[n]} days? Please give the answer in millimeters as a number."
    return goal, answer, "easy"


def k_rain_tomorrow(rng: random.Random, p: _Builder) -> tuple[str, object, str]:
    p.location()
    p.date()
    c = p.coords(p.home)
    t = world.shift(p.today, 1)
    p.series("get_rain_forecast", c, t, t, "I will check tomorrow's rain forecast.")
    answer = "Yes" if world.day(c.latitude, c.longitude, t).rain_sum > 0 else "No"
    goal = "I want to go for a run outside tomorrow. Is any rain forecast for tomorrow where I am? Answer with 'Yes' or 'No'."
    return goal, answer, "easy"


def k_snow_next_days(rng: random.Random, p: _Builder) -> tuple[str, object, str]:
    n = rng.choice([3, 5, 7])
    name = rng.choice(_COLD)
    p.date()
    c = p.coords(name)
    start, end = world.shift(p.today, 1), world.shift(p.today, n)
    p.series(
        "get_snow_forecast",
        c,
        start,
        end,
        f"I will get the snowfall forecast for the next {n} days.",
    )
    answer = round(sum(d.snowfall_sum for d in _days(c, start, end)), 2)
    goal = f"I'm planning a ski trip to {name}. How much snow in total is forecast there for the next {_NUMBER_WORDS[n]} days? Please give the answer in centimeters as a number."
    return goal, answer, "hard"


def k_elevation_difference(rng: random.Random, p: _Builder) -> tuple[str, object, str]:
    a = _other_city(rng)
    b = _other_city(rng, a)
    ca, cb = p.coords(a), p.coords(b)
    p.call(
        "get_elevation",
        {"latitude": ca.latitude, "longitude": ca.longitude},
        f"I need the elevation of {a}.",
        {"elevation": [ca.elevation]},
    )
    p.call(
        "get_elevation",
        {"latitude": cb.latitude, "longitude": cb.longitude},
        f"I need the elevation of {b}.",
        {"elevation": [cb.elevation]},
    )
    answer = abs(ca.elevation - cb.elevation)
    goal = f"What is the difference in elevation between {a} and {b}? Please give the answer in meters as a positive number."
    return goal, answer, "easy"


def k_distance(rng: random.Random, p: _Builder) -> tuple[str, object, str]:
    name = _other_city(rng, p.home)
    p.location()
    home = p.coords(p.home)
    c = p.coords(name)
    answer = world.geodesic_km(home.latitude, home.longitude, c.latitude, c.longitude)
    p.call(
        "get_distance",
        {
            "latitude1": home.latitude,
            "longitude1": home.longitude,
            "latitude2": c.latitude,
            "longitude2": c.longitude,
        },
        f"Now I can compute the distance to {name}.",
        answer,
    )
    goal = f"I'm planning a trip to {name} next month. How far is it from my current location? Please give the distance in kilometers as a number."
    return goal, answer, "easy"


def k_air_quality_level(rng: random.Random, p: _Builder) -> tuple[str, object, str]:
    name = _other_city(rng, p.home)
    today = dt.date.fromisoformat(p.today)
    back = rng.randint(2, 20)
    when = today - dt.timedelta(days=back)
    p.date()
    c = p.coords(name)
    d = when.isoformat()
    args = {"latitude": c.latitude, "longitude": c.longitude, "start_date": d, "end_date": d}
    aqi = world.day(c.latitude, c.longitude, d).european_aqi_pm2_5
    p.call(
        "get_historical_air_quality_index",
        args,
        f"I will get the air quality index of {name} on {d}.",
        {"european_aqi_pm2_5": [aqi]},
    )
    level = world.aqi_level(aqi)
    p.call(
        "get_air_quality_level",
        {"air_quality_index": aqi},
        f"The index was {aqi}; I need its level.",
    )
    ordinal = f"{back} days ago"
    goal = f"I was on a business trip to {name} {ordinal}. How was the air quality level there that day?"
    return goal, level, "hard"


def k_warmest_city_tomorrow(rng: random.Random, p: _Builder) -> tuple[str, object, str]:
    t = world.shift(p.today, 1)
    while True:
        names = rng.sample(
            sorted(
                {c.name for c in world.CITIES if c.country_code == "US"}
                - {"Springfield", "Paris", "Portland"}
            ),
            3,
        )
        highs = [
            world.day(world.city(n).latitude, world.city(n).longitude, t).temperature_2m_max
            for n in names
        ]
        if len(set(highs)) == 3:
            break
    p.date()
    for name in names:
        c = p.coords(name)
        p.series("get_temp_forecast", c, t, t, f"I will get tomorrow's forecast for {name}.")
    answer = names[highs.index(max(highs))]
    goal = f"Which city is forecast to have the highest maximum temperature tomorrow: {names[0]}, {names[1]}, or {names[2]}?"
    return goal, answer, "hard"


def k_last_year(rng: random.Random, p: _Builder) -> tuple[str, object, str]:
    p.location()
    p.date()
    c = p.coords(p.home)
    today = dt.date.fromisoformat(p.today)
    ly = today.replace(year=today.year - 1).isoformat()
    p.series("get_historical_temp", c, ly, ly, "I will get the temperature on this day last year.")
    answer = world.day(c.latitude, c.longitude, ly).temperature_2m_mean
    goal = "What was the average temperature on this day last year where I am? Please give the answer in Celsius as a number."
    return goal, answer, "easy"


def k_rainy_days(rng: random.Random, p: _Builder) -> tuple[str, object, str]:
    n = rng.choice([5, 7, 10, 14])
    name = _other_city(rng, p.home)
    p.date()
    c = p.coords(name)
    start, end = world.shift(p.today, -n), world.shift(p.today, -1)
    p.series(
        "get_historical_rain", c, start, end, f"I will get the daily rain of the last {n} days."
    )
    answer = sum(1 for d in _days(c, start, end) if d.rain_sum > 0)
    goal = f"On how many of the last {_NUMBER_WORDS[n]} days did it rain in {name}? Please answer with a number."
    return goal, answer, "easy"


def k_today_range(rng: random.Random, p: _Builder) -> tuple[str, object, str]:
    name = _other_city(rng)
    p.date()
    c = p.coords(name)
    args = {"latitude": c.latitude, "longitude": c.longitude, "current_date": p.today}
    p.call(
        "get_current_temp", args, f"I will get today's temperature in {name}.", {"time": [p.today]}
    )
    d = world.day(c.latitude, c.longitude, p.today)
    answer = round(d.temperature_2m_max - d.temperature_2m_min, 1)
    goal = f"What is the difference between today's highest and lowest temperature in {name}? Please give the answer in Celsius as a number."
    return goal, answer, "easy"


def k_forecast_mean(rng: random.Random, p: _Builder) -> tuple[str, object, str]:
    n = rng.choice([3, 5, 7])
    p.location()
    p.date()
    c = p.coords(p.home)
    start, end = world.shift(p.today, 1), world.shift(p.today, n)
    p.series("get_temp_forecast", c, start, end, f"I will get the forecast for the next {n} days.")
    days = _days(c, start, end)
    answer = round(sum(d.temperature_2m_mean for d in days) / len(days), 2)
    goal = f"What is the average of the forecast daily mean temperatures for the next {_NUMBER_WORDS[n]} days in my city? Please give the answer in Celsius as a number."
    return goal, answer, "hard"


def k_forecast_summary(rng: random.Random, p: _Builder) -> tuple[str, object, str]:
    n = rng.choice([3, 4, 5])
    p.location()
    p.date()
    c = p.coords(p.home)
    start, end = world.shift(p.today, 1), world.shift(p.today, n)
    p.series(
        "get_temp_forecast",
        c,
        start,
        end,
        f"I will get the temperature forecast for the next {n} days.",
    )
    p.series("get_rain_forecast", c, start, end, "Now the rain forecast for the same days.")
    days = _days(c, start, end)
    answer = {
        "temperatures": [d.temperature_2m_max for d in days],
        "rainy_days": sum(1 for d in days if d.rain_sum > 0),
    }
    goal = (
        f"What are the forecast maximum temperatures for the next {_NUMBER_WORDS[n]} days where I am, and on how "
        "many of those days is rain expected? Please answer with a dict like "
        "{'temperatures': [t1, t2, ...], 'rainy_days': n}."
    )
    return goal, answer, "hard"


def k_warmer_than_yesterday(rng: random.Random, p: _Builder) -> tuple[str, object, str]:
    name = _other_city(rng, p.home)
    p.date()
    c = p.coords(name)
    y = world.shift(p.today, -1)
    p.series("get_historical_temp", c, y, y, f"I will get yesterday's temperature in {name}.")
    p.call(
        "get_current_temp",
        {"latitude": c.latitude, "longitude": c.longitude, "current_date": p.today},
        "Now today's temperature.",
        {"time": [p.today]},
    )
    ty = world.day(c.latitude, c.longitude, y).temperature_2m_max
    tt = world.day(c.latitude, c.longitude, p.today).temperature_2m_max
    answer = "Yes" if tt > ty else "No"
    goal = f"Is today's maximum temperature in {name} higher than yesterday's? Answer with 'Yes' or 'No'."
    return goal, answer, "hard"


KINDS: dict[str, Kind] = {
    "temp_yesterday": k_temp_yesterday,
    "max_temp_last_days": k_max_temp_last_days,
    "rain_total": k_rain_total,
    "rain_tomorrow": k_rain_tomorrow,
    "snow_next_days": k_snow_next_days,
    "elevation_difference": k_elevation_difference,
    "distance": k_distance,
    "air_quality_level": k_air_quality_level,
    "warmest_city_tomorrow": k_warmest_city_tomorrow,
    "last_year": k_last_year,
    "rainy_days": k_rainy_days,
    "today_range": k_today_range,
    "forecast_mean": k_forecast_mean,
    "warmer_than_yesterday": k_warmer_than_yesterday,
    "forecast_summary": k_forecast_summary,
}


def make_task(split: str, task_id: int) -> WeatherTask:
    """Task ``task_id`` of ``split``: the same ids give the same task on every machine."""
    rng = random.Random(f"agentgym-envs/weather/{split}/{task_id}")
    names = list(KINDS)
    kind = names[task_id % len(names)] if split == "test" else rng.choice(names)
    home = rng.choice(world.HOME_CITIES)
    if kind == "snow_next_days":
        start = dt.date(2023, 1, 5) if rng.random() < 0.6 else dt.date(2023, 11, 20)
        today = start + dt.timedelta(days=rng.randint(0, 40))
    else:
        today = dt.date(2023, 1, 1) + dt.timedelta(days=rng.randint(31, 333))
    builder = _Builder(today.isoformat(), home)
    goal, answer, difficulty = KINDS[kind](rng, builder)
    plan, subgoals, answer = builder.finish(answer)
    return WeatherTask(
        task_id,
        split,
        goal,
        answer,
        subgoals,
        plan,
        difficulty,
        kind,
        current_date=today.isoformat(),
        current_location=home,
    )


class WeatherTasks(GeneratedToolTasks):
    """Generated weather questions: test 20 (AgentEval's size), train 1,000."""

    item_prefix = family_record("weather").item_prefix
    train_size = TRAIN_SIZE
    test_size = TEST_SIZE
    make_task = staticmethod(make_task)
