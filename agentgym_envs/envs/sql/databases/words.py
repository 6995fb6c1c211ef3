"""Small fixed word lists the database generators draw names and places from.

Person names come from :mod:`agentgym_envs.names` (shared with the movie catalogue).
"""

from __future__ import annotations

import datetime as dt
import random

from agentgym_envs.names import FIRST_NAMES, LAST_NAMES

CITIES = (
    "Springfield",
    "Riverton",
    "Fairview",
    "Lakewood",
    "Georgetown",
    "Ashford",
    "Brookside",
    "Clearwater",
    "Dunmore",
    "Eastbridge",
    "Foxborough",
    "Greenville",
    "Harborview",
    "Ironwood",
    "Juniper Hills",
    "Kingsport",
    "Millbrook",
    "Northgate",
    "Oakridge",
    "Pinecrest",
)

ADJECTIVES = [
    "Silent",
    "Golden",
    "Hidden",
    "Broken",
    "Crimson",
    "Distant",
    "Endless",
    "Frozen",
    "Gentle",
    "Hollow",
    "Iron",
    "Lonely",
    "Midnight",
    "Northern",
    "Painted",
    "Quiet",
    "Restless",
    "Scarlet",
    "Shining",
    "Silver",
    "Stolen",
    "Velvet",
    "Wandering",
    "Wild",
    "Winter",
    "Burning",
    "Cold",
    "Dark",
    "Lost",
    "Secret",
]

NOUNS = [
    "River",
    "Garden",
    "Mountain",
    "Harbor",
    "Kingdom",
    "Letter",
    "Mirror",
    "Orchard",
    "Promise",
    "Shadow",
    "Storm",
    "Tower",
    "Voyage",
    "Window",
    "Forest",
    "Island",
    "Lantern",
    "Bridge",
    "Compass",
    "Empire",
    "Feather",
    "Journey",
    "Map",
    "Ocean",
    "Road",
    "Song",
    "Star",
    "Thread",
    "Valley",
    "Winter",
]


def person(rng: random.Random) -> tuple[str, str]:
    """A random (first name, last name)."""
    return rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)


def day(rng: random.Random, start: dt.date, end: dt.date) -> dt.date:
    """A uniformly random date in [start, end]."""
    return start + dt.timedelta(days=rng.randint(0, (end - start).days))


def iso(d: dt.date | dt.datetime | None) -> str | None:
    if d is None:
        return None
    if isinstance(d, dt.datetime):
        return d.isoformat(sep=" ", timespec="minutes")
    return d.isoformat()


def maybe(rng: random.Random, value, p_null: float):
    """``value``, or ``None`` with probability ``p_null`` (realistic missing data)."""
    return None if rng.random() < p_null else value
