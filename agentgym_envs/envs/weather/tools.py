"""Weather's tools, with AgentBoard's names, arguments and reply shapes (Open-Meteo style)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from agentgym_envs.envs.weather import world
from agentgym_envs.tools import Tool, ToolError, Toolkit, param, schema
from agentgym_envs.tools.env import check_valid_actions_tool, finish_tool, user_context_tools
from agentgym_envs.tools.tool import DATE

MAX_SPAN_DAYS = 30
SPAN_ERROR = (
    "Error: Sorry, at present, we support a maximum time span of 30 days between start_date and end_date "
    "in a single query. Your input exceeds this range. You can split your current query into multiple "
    "sub-queries that meet our criteria."
)
_UNITS = {
    "temp": {
        "temperature_2m_max": "degC",
        "temperature_2m_min": "degC",
        "temperature_2m_mean": "degC",
    },
    "rain": {"rain_sum": "mm"},
    "snow": {"snowfall_sum": "cm"},
}


@dataclass(frozen=True)
class WeatherBackend:
    """The user's situation; the climate itself is :mod:`world` (read-only, shared)."""

    current_date: str
    current_location: str


def _date(text: str, name: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise ToolError(
            f"Error: {name} {text!r} is not a valid date, use the format YYYY-MM-DD"
        ) from None


def _check_window(b: WeatherBackend, start_date: str, end_date: str, past: bool) -> None:
    start, end, today = (
        _date(start_date, "start_date"),
        _date(end_date, "end_date"),
        _date(b.current_date, "current_date"),
    )
    if past:
        if not start < today:
            raise ToolError("Error: start_date should be earlier than current_date")
        if not end < today:
            raise ToolError("Error: end_date should be earlier than current_date")
    else:
        if not start > today:
            raise ToolError("Error: start_date should be later than current_date")
        if not end > today:
            raise ToolError("Error: end_date should be later than current_date")
    if end < start:
        raise ToolError("Error: end_date should not be earlier than start_date")
    if (end - start).days > MAX_SPAN_DAYS:
        raise ToolError(SPAN_ERROR)


def _series(
    latitude: float, longitude: float, start_date: str, end_date: str, kind: str
) -> dict[str, Any]:
    units = _UNITS[kind]
    dates = world.date_range(start_date, end_date)
    days = [world.day(latitude, longitude, d) for d in dates]
    daily: dict[str, Any] = {"time": dates}
    for var in units:
        daily[var] = [getattr(d, var) for d in days]
    return {
        "latitude": round(latitude, 6),
        "longitude": round(longitude, 6),
        "daily_units": {"time": "iso8601", **units},
        "daily": daily,
    }


def _aqi(latitude: float, longitude: float, start_date: str, end_date: str) -> dict[str, Any]:
    dates = world.date_range(start_date, end_date)
    return {
        "latitude": round(latitude, 6),
        "longitude": round(longitude, 6),
        "daily_units": {"time": "iso8601", "european_aqi_pm2_5": "EAQI"},
        "daily": {
            "time": [f"{d}T12:00" for d in dates],
            "european_aqi_pm2_5": [
                world.day(latitude, longitude, d).european_aqi_pm2_5 for d in dates
            ],
        },
    }


def get_latitude_longitude(b: WeatherBackend, name: str) -> dict[str, Any]:
    found = world.search(name)
    if not found:
        raise ToolError(
            f"Error: no place named {name!r} was found, check the spelling or use a city name"
        )
    return {
        "results": [
            {
                "name": c.name,
                "latitude": c.latitude,
                "longitude": c.longitude,
                "country_code": c.country_code,
            }
            for c in found
        ]
    }


def _window(kind: str, past: bool):
    """The tool function for ``kind``'s daily series over a window before (``past``) or after
    the current date."""

    def fn(
        b: WeatherBackend, latitude: float, longitude: float, start_date: str, end_date: str
    ) -> dict[str, Any]:
        _check_window(b, start_date, end_date, past=past)
        return _series(latitude, longitude, start_date, end_date, kind)

    return fn


def _current(kind: str):
    def fn(
        b: WeatherBackend, latitude: float, longitude: float, current_date: str
    ) -> dict[str, Any]:
        _date(current_date, "current_date")
        return _series(latitude, longitude, current_date, current_date, kind)

    return fn


def get_historical_air_quality_index(
    b: WeatherBackend, latitude: float, longitude: float, start_date: str, end_date: str
) -> dict[str, Any]:
    _check_window(b, start_date, end_date, past=True)
    return _aqi(latitude, longitude, start_date, end_date)


def get_current_air_quality_index(
    b: WeatherBackend, latitude: float, longitude: float, current_date: str
) -> dict[str, Any]:
    _date(current_date, "current_date")
    return _aqi(latitude, longitude, current_date, current_date)


def get_air_quality_level(b: WeatherBackend, air_quality_index: float) -> str:
    return world.aqi_level(air_quality_index)


def get_elevation(b: WeatherBackend, latitude: float, longitude: float) -> dict[str, Any]:
    return {"elevation": [world.elevation(latitude, longitude)]}


def get_distance(
    b: WeatherBackend, latitude1: float, longitude1: float, latitude2: float, longitude2: float
) -> float:
    return world.geodesic_km(latitude1, longitude1, latitude2, longitude2)


_LAT = param("number", "the latitude of the place, in degrees", minimum=-90, maximum=90)
_LON = param("number", "the longitude of the place, in degrees", minimum=-180, maximum=180)
_START = param("string", "the start date, YYYY-MM-DD", pattern=DATE)
_END = param("string", "the end date, YYYY-MM-DD", pattern=DATE)
_TODAY = param("string", "the current date, YYYY-MM-DD", pattern=DATE)
_WINDOW = schema(latitude=_LAT, longitude=_LON, start_date=_START, end_date=_END)
_DAY = schema(latitude=_LAT, longitude=_LON, current_date=_TODAY)
_NAMES = {"temp": "temperature", "rain": "rain", "snow": "snow"}
_RETURNS = {
    "temp": "daily max, min and mean temperature (degC) for each date: {'latitude', 'longitude', 'daily_units', 'daily': {'time', 'temperature_2m_max', 'temperature_2m_min', 'temperature_2m_mean'}}",
    "rain": "daily rain sum (mm) for each date: {'latitude', 'longitude', 'daily_units', 'daily': {'time', 'rain_sum'}}",
    "snow": "daily snowfall sum (cm) for each date: {'latitude', 'longitude', 'daily_units', 'daily': {'time', 'snowfall_sum'}}",
}


#: The daily-series tools, one per kind: (name, description, function factory, schema).
_SERIES_TOOLS = (
    (
        "get_historical_{kind}",
        "Get the historical daily {noun} of a place between two dates, both before the current date (at most 30 days apart).",
        lambda kind: _window(kind, past=True),
        _WINDOW,
    ),
    (
        "get_{kind}_forecast",
        "Get the daily {noun} forecast of a place between two dates, both after the current date (at most 30 days apart).",
        lambda kind: _window(kind, past=False),
        _WINDOW,
    ),
    (
        "get_current_{kind}",
        "Get the {noun} of a place on the current date.",
        _current,
        _DAY,
    ),
)


def _user_tools() -> list[Tool]:
    return [
        *user_context_tools(),
        Tool(
            "get_latitude_longitude",
            "Get the latitude and longitude of a place from its name (up to 3 matches, best first).",
            get_latitude_longitude,
            schema(name=param("string", "the name of the place, e.g. a city")),
            "{'results': [{'name', 'latitude', 'longitude', 'country_code'}, ...]}",
        ),
    ]


def _series_tools() -> list[Tool]:
    return [
        Tool(
            name.format(kind=kind),
            description.format(noun=_NAMES[kind]),
            make(kind),
            args,
            _RETURNS[kind],
        )
        for name, description, make, args in _SERIES_TOOLS
        for kind in ("temp", "rain", "snow")
    ]


def _air_and_place_tools() -> list[Tool]:
    return [
        Tool(
            "get_historical_air_quality_index",
            "Get the daily European air quality index (PM2.5, at 12:00 GMT) of a place between two dates before the current date.",
            get_historical_air_quality_index,
            _WINDOW,
            "{'latitude', 'longitude', 'daily_units', 'daily': {'time', 'european_aqi_pm2_5'}}",
        ),
        Tool(
            "get_current_air_quality_index",
            "Get the European air quality index (PM2.5) of a place on the current date.",
            get_current_air_quality_index,
            _DAY,
            "{'latitude', 'longitude', 'daily_units', 'daily': {'time', 'european_aqi_pm2_5'}}",
        ),
        Tool(
            "get_air_quality_level",
            "Get the air quality level of an air quality index value.",
            get_air_quality_level,
            schema(air_quality_index=param("number", "the European air quality index")),
            "one of 'good', 'fair', 'moderate', 'poor', 'very poor', 'extremely poor'",
        ),
        Tool(
            "get_elevation",
            "Get the elevation of a place.",
            get_elevation,
            schema(latitude=_LAT, longitude=_LON),
            "{'elevation': [metres]}",
        ),
        Tool(
            "get_distance",
            "Get the geodesic distance between two places, in kilometres.",
            get_distance,
            schema(latitude1=_LAT, longitude1=_LON, latitude2=_LAT, longitude2=_LON),
            "the distance in km (a number)",
        ),
    ]


def _weather_tools() -> list[Tool]:
    return [
        *_user_tools(),
        *_series_tools(),
        *_air_and_place_tools(),
        check_valid_actions_tool(),
        finish_tool(),
    ]


#: The order of AgentGym's weather tools (its prompt and ``check_valid_actions`` list them so).
AGENTGYM_ORDER = (
    "get_user_current_date", "get_user_current_location", "get_historical_temp",
    "get_historical_rain", "get_historical_snow", "get_snow_forecast", "get_current_snow",
    "get_current_temp", "get_latitude_longitude", "get_elevation", "get_temp_forecast",
    "get_rain_forecast", "get_current_rain", "get_distance", "get_historical_air_quality_index",
    "get_current_air_quality_index", "get_air_quality_level", "check_valid_actions", "finish",
)  # fmt: skip

WEATHER_TOOLS = Toolkit(sorted(_weather_tools(), key=lambda t: AGENTGYM_ORDER.index(t.name)))
