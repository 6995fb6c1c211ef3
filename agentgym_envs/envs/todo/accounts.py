"""Generated Todoist accounts, so train tasks are not all about the same fifteen tasks.

The test split plays AgentGym's own starting account (:data:`~.backend.ACCOUNT`); most train
tasks get an account drawn from project themes here: four to six projects of two to four
tasks, with due dates around June 2015, durations and priorities. Task names are unique within
an account, at least one project has three or more tasks, and some tasks are due early (so
"overdue" and "due before" questions have answers).
"""

from __future__ import annotations

import datetime as dt
import random

from agentgym_envs.envs.todo.world import ACCOUNT, Account, SeedTask

_THEMES: dict[str, tuple[tuple[str, str, str], ...]] = {
    "Work Projects": (
        ("Prepare quarterly report", "Office", "Start from last quarter's template."),
        ("Reply to client emails", "Office", "Answer the oldest first."),
        ("Update the project roadmap", "Meeting room B", "Confirm dates with each team lead."),
        ("Review pull requests", "Home office", "Leave at least one concrete suggestion."),
        ("Book the team offsite", "Online", "Compare three venues."),
    ),
    "Fitness Goals": (
        ("Run five kilometers", "City park", "Warm up for ten minutes."),
        ("Attend yoga class", "Downtown studio", "Bring your own mat."),
        ("Plan weekly meals", "Kitchen", "Balance protein and vegetables."),
        ("Swim twenty laps", "Community pool", "Alternate strokes every five laps."),
    ),
    "Home Renovation": (
        ("Paint the bedroom walls", "Bedroom", "Tape the edges first."),
        ("Fix the leaking faucet", "Bathroom", "Turn off the water supply."),
        ("Buy new curtains", "Home goods store", "Measure the windows before going."),
        ("Assemble the bookshelf", "Living room", "Sort the screws by size."),
    ),
    "Travel Planning": (
        ("Renew the passport", "Passport office", "Bring two photos."),
        ("Book flights to Lisbon", "Online", "Check baggage allowance."),
        ("Reserve a hotel", "Online", "Read the cancellation policy."),
        ("Pack the suitcase", "Bedroom", "Roll clothes to save space."),
    ),
    "Reading List": (
        ("Finish the mystery novel", "Library", "Read two chapters a day."),
        ("Write a book review", "Cafe", "Summarize before judging."),
        ("Return borrowed books", "Library", "Check the due dates first."),
    ),
    "Garden Care": (
        ("Plant tomato seedlings", "Backyard", "Space them half a meter apart."),
        ("Mow the lawn", "Backyard", "Clear stones before mowing."),
        ("Prune the rose bushes", "Front garden", "Cut just above a bud."),
    ),
    "Birthday Party": (
        ("Order the birthday cake", "Bakery", "Order three days ahead."),
        ("Send party invitations", "Online", "Ask guests to reply by Friday."),
        ("Decorate the living room", "Living room", "Balloons go up last."),
        ("Buy party snacks", "Supermarket", "Include a gluten-free option."),
    ),
    "Language Learning": (
        ("Review Spanish vocabulary", "Study room", "Use flashcards for twenty minutes."),
        ("Attend conversation club", "Community center", "Prepare three questions."),
        ("Watch a film without subtitles", "Home", "Note down new words."),
    ),
}
_DURATIONS = (15, 20, 30, 45, 60, 90, 120)


def generate_account(rng: random.Random) -> Account:
    """A random account (see the module docstring)."""
    themes = dict(_THEMES)
    themes.update(
        {name: tuple((t.content, t.place, t.tips) for t in tasks) for name, tasks in ACCOUNT}
    )
    big = sorted(n for n, pool in themes.items() if len(pool) >= 3)
    first = rng.choice(big)
    names = [first] + rng.sample(sorted(set(themes) - {first}), rng.randint(3, 5))
    start = dt.date(2015, 5, 28)
    projects = []
    for k, name in enumerate(names):
        pool = list(themes[name])
        n = rng.randint(3 if k == 0 else 2, min(4, len(pool)))
        tasks = []
        for j, (content, place, tips) in enumerate(rng.sample(pool, n)):
            offset = rng.randint(0, 6) if j == 0 and k < 2 else rng.randint(0, 33)
            due = (start + dt.timedelta(days=offset)).isoformat()
            tasks.append(
                SeedTask(content, due, rng.choice(_DURATIONS), rng.randint(1, 4), place, tips)
            )
        projects.append((name, tuple(tasks)))
    rng.shuffle(projects)
    return tuple(projects)
