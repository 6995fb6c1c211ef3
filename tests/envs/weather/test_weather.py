"""Weather: the offline climate, the tools' rules, grading."""

import math

import gymnasium as gym
import pytest

import agentgym_envs  # noqa: F401
from agentgym_envs.envs.weather import world
from agentgym_envs.envs.weather.tools import SPAN_ERROR, WEATHER_TOOLS
from agentgym_envs.tools import action_text


def make(task_id=0, split="test", **kwargs):
    env = gym.make("AgentGym/Weather-v0", **kwargs).unwrapped
    env.reset(seed=0, options={"split": split, "task_id": task_id})
    return env


def call(env, tool, **args):
    return env.step(action_text(tool, args))


def test_geodesic_matches_vincentys_published_example():
    # Flinders Peak -> Buninyong, Vincenty (1975): 54972.271 m
    lat1, lon1 = -(37 + 57 / 60 + 3.72030 / 3600), 144 + 25 / 60 + 29.52440 / 3600
    lat2, lon2 = -(37 + 39 / 60 + 10.15610 / 3600), 143 + 55 / 60 + 35.38390 / 3600
    assert world.geodesic_km(lat1, lon1, lat2, lon2) == pytest.approx(54.972271, abs=1e-5)
    ny, la = world.city("New York"), world.city("Los Angeles")
    assert 3930 < world.geodesic_km(ny.latitude, ny.longitude, la.latitude, la.longitude) < 3960
    assert world.geodesic_km(1, 2, 1, 2) == 0.0


def test_gazetteer_search():
    assert [c.country_code for c in world.search("London")] == ["GB", "CA"]
    assert world.search("Portland, Maine")[0].region == "Maine"
    assert world.search("new york city")[0].name == "New York"
    assert world.search("Atlantis") == []


def test_climate_is_deterministic_and_plausible():
    d = world.day(39.73915, -104.9847, "2023-01-15")
    assert d == world.day(39.73915, -104.9847, "2023-01-15")
    assert d.temperature_2m_min <= d.temperature_2m_mean <= d.temperature_2m_max
    summer = [
        world.day(40.71427, -74.00597, f"2023-07-{i:02d}").temperature_2m_mean for i in range(1, 29)
    ]
    winter = [
        world.day(40.71427, -74.00597, f"2023-01-{i:02d}").temperature_2m_mean for i in range(1, 29)
    ]
    assert sum(summer) / 28 > sum(winter) / 28 + 10  # seasons
    sydney_jan = [
        world.day(-33.86785, 151.20732, f"2023-01-{i:02d}").temperature_2m_mean
        for i in range(1, 29)
    ]
    assert sum(sydney_jan) > sum(winter)  # southern hemisphere summer
    for i in range(1, 29):
        day = world.day(61.21806, -149.90028, f"2023-01-{i:02d}")
        assert day.rain_sum >= 0 and day.snowfall_sum >= 0
        if day.snowfall_sum and not day.rain_sum:
            assert day.temperature_2m_max <= 0.5


@pytest.mark.parametrize(
    "value, level",
    [
        (10, "good"),
        (20, "good"),
        (30, "fair"),
        (50, "moderate"),
        (70, "poor"),
        (90, "very poor"),
        (120, "extremely poor"),
        (20.5, "extremely poor"),
    ],
)
def test_air_quality_levels_follow_agentboard(value, level):
    assert world.aqi_level(value) == level


def test_every_tool_serves_a_plausible_call():
    env = make(0)
    today = env.task.current_date
    past, future = world.shift(today, -3), world.shift(today, 3)
    args = {
        "name": "Denver",
        "latitude": 39.7,
        "longitude": -104.9,
        "latitude1": 39.7,
        "longitude1": -104.9,
        "latitude2": 40.7,
        "longitude2": -74.0,
        "start_date": past,
        "end_date": world.shift(past, 1),
        "current_date": today,
        "air_quality_index": 33,
    }
    for name, tool in WEATHER_TOOLS.items():
        if name in ("finish", "check_valid_actions"):
            continue
        a = {k: args[k] for k in tool.argument_names}
        if "forecast" in name:
            a.update(start_date=future, end_date=world.shift(future, 1))
        obs, *_ = call(env, name, **a)
        assert "ERROR" not in obs and "Error" not in obs, (name, obs)


@pytest.mark.parametrize("tool", [n for n in WEATHER_TOOLS if WEATHER_TOOLS[n].argument_names])
def test_every_tool_names_a_missing_argument(tool):
    env = make(0)
    obs, *_, info = call(env, tool)
    first = WEATHER_TOOLS[tool].argument_names[0]
    assert f"missing argument '{first}'" in info["error"] and obs.startswith(
        "Observation: ERROR | "
    )


def test_date_rules_and_span_limit():
    env = make(0)
    today = env.task.current_date
    base = {"latitude": 40.7, "longitude": -74.0}
    obs, *_ = call(env, "get_historical_temp", **base, start_date=today, end_date=today)
    assert "Error: start_date should be earlier than current_date" in obs
    obs, *_ = call(
        env, "get_historical_rain", **base, start_date=world.shift(today, -2), end_date=today
    )
    assert "Error: end_date should be earlier than current_date" in obs
    obs, *_ = call(
        env, "get_snow_forecast", **base, start_date=today, end_date=world.shift(today, 2)
    )
    assert "Error: start_date should be later than current_date" in obs
    obs, *_ = call(
        env,
        "get_historical_snow",
        **base,
        start_date=world.shift(today, -40),
        end_date=world.shift(today, -1),
    )
    assert SPAN_ERROR in obs
    obs, *_, info = call(env, "get_historical_temp", **base, start_date="yesterday", end_date=today)
    assert "expected format" in info["error"]
    obs, *_ = call(env, "get_latitude_longitude", name="Atlantis")
    assert "no place named 'Atlantis'" in obs


def test_tool_results_agree_with_the_world():
    env = make(0)
    obs, *_ = call(
        env,
        "get_historical_temp",
        latitude=40.71427,
        longitude=-74.00597,
        start_date="2023-01-02",
        end_date="2023-01-03",
    )
    d = world.day(40.71427, -74.00597, "2023-01-02")
    assert f"'temperature_2m_mean': [{d.temperature_2m_mean}," in obs
    assert "'time': ['2023-01-02', '2023-01-03']" in obs
    obs, *_ = call(env, "get_elevation", latitude=39.73915, longitude=-104.9847)
    assert obs.startswith("Observation: {'elevation': [1609.0]}")


def test_wrong_answer_fails_and_partial_run_has_partial_progress():
    env = make(0)
    plan = env.task.plan
    for step in plan[:2]:
        *_, info = env.step(step.action())
    assert 0 < info["progress"] < 1 and info["score"] == 0
    _, reward, term, _, info = call(env, "finish", answer=env.task.answer + 3)
    assert term and not info["success"] and info["score"] == 0 and reward == 0


def test_right_answer_in_other_words_succeeds_only_when_lenient():
    env = make(0, answer_match="lenient")
    *_, info = call(env, "finish", answer=f"{env.task.answer} degrees Celsius")
    assert info["success"] and info["score"] == 1.0 and info["agentgym_reward"] == 1.0
    # AgentGym compares with Python ==: the same number in words, or as text, is wrong
    for answer in (f"{env.task.answer} degrees Celsius", str(env.task.answer)):
        env = make(0)
        *_, info = call(env, "finish", answer=answer)
        assert not info["success"] and info["score"] == 0.0 and info["agentgym_reward"] == 0.0
    env = make(0)
    *_, info = call(env, "finish", answer=env.task.answer)
    assert info["success"] and info["agentgym_reward"] == 1.0


def test_a_tool_result_equal_to_the_answer_scores_as_in_agentgym():
    env = gym.make("AgentGym/Weather-v0").unwrapped
    task_id = next(i for i in range(20) if env.tasks.get("test", i).kind == "air_quality_level")
    env.reset(options={"split": "test", "task_id": task_id})
    for step in env.task.plan[:-1]:
        *_, info = env.step(step.action())
    assert info["score"] == 1.0 and not info["success"]  # AgentGym maps progress > 0 to 1
    *_, info = env.step(env.task.plan[-1].action())
    assert info["success"]


def test_splits_differ_and_tasks_are_stable():
    env = gym.make("AgentGym/Weather-v0").unwrapped
    tasks = [env.tasks.get("test", i) for i in range(20)]
    assert len({(t.goal, t.current_date, t.current_location) for t in tasks}) == 20
    assert len({t.kind for t in tasks}) == 15
    a, b = env.tasks.get("train", 5), env.tasks.get("train", 5)
    assert a == b and math.isfinite(float(a.answer) if isinstance(a.answer, (int, float)) else 0.0)
