"""WebArena's templates that read the wiki and then act on the map or the code host, played on
the wiki's articles about the map's city (:mod:`.sites.citywiki`).

- 85, the closest national park to a neighbourhood (named, or described by the wiki: the most
  populous, a person's hometown ...) and the drive there: the park's name and the directions
  page's distance. Only neighbourhoods whose nearest park by straight line is clearly the
  nearest by car too are asked.
- 94, the way from a place to a team's home stadium (today, or in a decade the wiki names):
  the directions form holds both places and the car engine, as WebArena checks it.
- 371, the map page of a place the wiki describes (where a film was shot, a person's college,
  the university with the most laureates of a prize ...): the page's sidebar names it.
- 87, a new repository whose README lists what a wiki article lists (a director's films, some
  of them, or the sections of the director's career): the README's raw text holds every item.

Every fact comes from the generated city, so the wiki and the map agree (tested).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from agentgym_envs.envs.webarena.sites.citywiki import AWARD, NOMINATION, city_world
from agentgym_envs.envs.webarena.sites.mapdata import CITY, Place, city
from agentgym_envs.envs.webarena.wa_code import CODE_USER, GITLAB, _create_project, _mine
from agentgym_envs.envs.webarena.wa_common import html, must
from agentgym_envs.envs.webarena.wa_map import (
    MAP,
    _home_places,
    directions,
    form_is,
    nearest_clear,
    open_place,
)
from agentgym_envs.envs.webarena.webarena_tasks import Instance, instantiator

WIKI = "__WIKIPEDIA__"


def read(title: str) -> list[list[Any]]:
    """Go to the wiki, search the article's title and open it."""
    return [
        ["goto", WIKI],
        ["type", "searchbox", "Search Wikipedia", title, 1],
        ["click", "link", title],
    ]


def _on_map(place: Place) -> bool:
    """A place an instance may ask for: not listed on the map's home page (a do-nothing
    episode starts there) and findable by its name."""
    return place.id not in _home_places() and "&" not in place.name


# -- 85: the closest national park -----------------------------------------------------------
def _described_neighbourhoods() -> list[tuple[str, str, Place]]:
    """(what the intent says, the article that says which neighbourhood it is, the
    neighbourhood): by population, by age, people's hometowns, films' locations, and the
    names themselves."""
    w = city_world()
    ranked = w.by_population()
    oldest = min(w.neighbourhoods, key=lambda n: n.founded)
    out = [
        (f"the most populous neighbourhood of {CITY}", CITY, ranked[0].place),
        (f"the least populous neighbourhood of {CITY}", CITY, ranked[-1].place),
        (f"the second most populous neighbourhood of {CITY}", CITY, ranked[1].place),
        (f"the oldest neighbourhood of {CITY}", CITY, oldest.place),
    ]
    out += [(f"the hometown of {p.name}", p.name, p.hometown) for p in w.people]
    out += [
        (
            f"the neighbourhood where the film {f.title} was shot",
            f.title,
            w.city.district(f.location),
        )
        for f in w.films
    ]
    out += [(n.name, "", n.place) for n in w.neighbourhoods]
    return out


@instantiator(85)
def closest_national_park(db) -> Iterator[Instance]:
    c = city()
    seen: dict[int, int] = {}
    for said, article, hood in _described_neighbourhoods():
        park = nearest_clear("national_park", hood, "car")
        if park is None or seen.get(hood.id, 0) >= 2:
            continue
        seen[hood.id] = seen.get(hood.id, 0) + 1
        drive = c.route(hood, park, "car")
        plan = [
            *(read(article) if article else []),
            ["goto", MAP],
            ["type", "textbox", "Search", f"national parks near {hood.name}", 1],
            ["click", "link", park.name],
            *directions(hood.name, park.name, "car"),
            ["stop", f"{park.name}, {drive.distance_text} by car"],
        ]
        yield ({"city": said}, must(park.name, drive.distance_text), plan)


# -- 94: the way to a team's home stadium ----------------------------------------------------
@instantiator(94)
def way_to_stadium(db) -> Iterator[Instance]:
    w = city_world()
    c = city()
    starts = [
        p
        for p in c.places[: c.base_count]
        if p.category in ("university", "hotel", "museum", "hospital") and _on_map(p)
    ]
    asks: list[tuple[int, str, int | None]] = []  # (team, how it is named, decade)
    for k, team in enumerate(w.teams):
        sport = f"{CITY}'s {team.sport} team"
        asks += [(k, team.name, None), (k, sport, None)]
        if team.years is not None:
            for decade in range(team.years[0] // 10 * 10 + 10, team.years[1] - 8, 10):
                asks.append((k, team.name if decade % 20 else sport, decade))
    for n, (k, named, decade) in enumerate(asks):
        team = w.teams[k]
        stadium = team.stadium_in(decade)
        start = starts[(n * 7) % len(starts)]
        yield (
            {
                "location": start.name,
                "sport_team": named,
                "time": f"in the {decade}s" if decade else "",
            },
            form_is(start, stadium, "car"),
            [
                *read(team.name),
                ["goto", MAP],
                *directions(start.name, stadium.name, "car"),
                ["stop", ""],
            ],
        )


# -- 371: a place's page, found from the wiki ------------------------------------------------
def _descriptions() -> Iterator[tuple[str, str, Place]]:
    """(description, the article that names the place, the place), alternating kinds."""
    w = city_world()
    films = [f for d in w.directors for f in d.films[::3]]
    people = w.people
    kinds: list[list[tuple[str, str, Place]]] = [
        [(f"the place where the film {f.title} was filmed", f.title, f.location) for f in films],
        [
            (f"the undergrad college of the person who developed {p.known_for}", p.name, p.college)
            for p in people
        ],
        [
            (f"the university that has the most {z.name} laureates", z.name, z.most())
            for z in w.prizes
        ],
        [
            (f"the stadium where the {t.name} played in the {d}s", t.name, t.stadium_in(d))
            for t in w.teams
            if t.years is not None
            for d in (t.years[0] // 10 * 10 + 10,)
        ],
        [
            (
                f"the national park established in {p.established}",
                f"List of national parks in {CITY}",
                p.place,
            )
            for p in w.national_parks
        ],
        [(f"the hospital where {p.name} was born", p.name, p.birthplace) for p in people[1::2]],
    ]
    depth = 0
    while any(depth < len(k) for k in kinds):
        for k in kinds:
            if depth < len(k):
                yield k[depth]
        depth += 1


@instantiator(371)
def page_of_described(db) -> Iterator[Instance]:
    used: set[int] = set()
    count = 0
    for said, article, place in _descriptions():
        if not _on_map(place) or place.id in used:
            continue
        used.add(place.id)
        yield (
            {"description": said},
            html(
                (
                    "last",
                    "document.querySelector('[id=\"sidebar_content\"').outerText",
                    {"must_include": [place.name]},
                )
            ),
            [*read(article), ["goto", MAP], *open_place(place), ["stop", ""]],
        )
        count += 1
        if count >= 20:
            break


# -- 87: a README from a wiki list -----------------------------------------------------------
@instantiator(87)
def readme_from_wiki(db) -> Iterator[Instance]:
    w = city_world()
    mine = _mine(db)
    for d in w.directors:
        slug = d.name.split()[-1].lower()
        films = list(d.films)
        topics = [
            (f"{slug}_fans", f"movies directed by {d.name}", films),
            (f"{slug}_old_fans", f"movies directed by {d.name} before {films[4].year}", films[:4]),
            (f"{slug}_new_fans", f"movies directed by {d.name} after {films[3].year}", films[4:]),
            (f"{slug}_timeline", f"the career timeline of {d.name}", None),
            (
                f"{slug}_harbor_light",
                f"movies by {d.name} that won the {AWARD}",
                [f for f in films if f.won],
            ),
            (
                f"{slug}_critics",
                f"movies by {d.name} nominated for the {NOMINATION}",
                [f for f in films if f.nominated],
            ),
        ]
        for name, topic, chosen in topics:
            if name in mine or chosen == []:
                continue
            items = [h for h, _ in d.eras] if chosen is None else [f.title for f in chosen]
            text = f"# {name}\n\n" + "\n".join(f"- {item}" for item in items)
            yield (
                {"name": name, "topics": topic},
                html(
                    (
                        f"{GITLAB}/{CODE_USER}/{name}/-/raw/main/README.md",
                        "",
                        {"must_include": items},
                    )
                ),
                [
                    *read(d.name),
                    ["goto", GITLAB],
                    *_create_project(name),
                    ["click", "link", "📄 README.md"],
                    ["click", "link", "Edit"],
                    ["type", "textbox", "File content", text, 0],
                    ["click", "button", "Commit changes"],
                    ["stop", ""],
                ],
            )
