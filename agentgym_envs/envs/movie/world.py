"""Movie's offline backend: a generated film database shaped like TMDB's.

AgentGym's Movie env queries the live TMDB API (a key, rate limits, data that changes). Here a
catalogue of fictional films is generated once from a fixed seed: movies with release dates,
budgets, revenue, genres, production companies and countries, keywords, alternative titles and
translations; people with birthdays, birthplaces, biographies and external ids; and the credits
that join them (cast with characters in billing order, crew with jobs). The same seed gives the
same catalogue on every machine; the catalogue is read-only, so episodes cannot disturb it.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

from agentgym_envs.names import FIRST_NAMES, LAST_NAMES

SEED = 20240607
N_MOVIES = 260

GENRES = [
    (28, "Action"),
    (12, "Adventure"),
    (16, "Animation"),
    (35, "Comedy"),
    (80, "Crime"),
    (99, "Documentary"),
    (18, "Drama"),
    (10751, "Family"),
    (14, "Fantasy"),
    (36, "History"),
    (27, "Horror"),
    (10402, "Music"),
    (9648, "Mystery"),
    (10749, "Romance"),
    (878, "Science Fiction"),
    (53, "Thriller"),
    (10752, "War"),
    (37, "Western"),
]
COUNTRIES = [
    ("US", "United States of America"),
    ("GB", "United Kingdom"),
    ("FR", "France"),
    ("DE", "Germany"),
    ("JP", "Japan"),
    ("CN", "China"),
    ("CA", "Canada"),
    ("AU", "Australia"),
    ("IT", "Italy"),
    ("ES", "Spain"),
    ("KR", "South Korea"),
    ("IN", "India"),
    ("NZ", "New Zealand"),
    ("MX", "Mexico"),
    ("SE", "Sweden"),
    ("NL", "Netherlands"),
    ("RU", "Russia"),
]
TRANSLATION_LANGUAGES = [
    ("NL", "nl", "Nederlands", "Dutch"),
    ("CN", "zh", "Mandarin", "Mandarin"),
    ("US", "en", "English", "English"),
    ("DE", "de", "Deutsch", "German"),
    ("RU", "ru", "Russkiy", "Russian"),
    ("JP", "ja", "Nihongo", "Japanese"),
]
_COMPANY_WORDS = [
    "Silver Lantern",
    "Northlight",
    "Blue Harbor",
    "Red Quarry",
    "Iron Kite",
    "Golden Reel",
    "Stonebridge",
    "Paper Moon",
    "Wildfield",
    "Crescent",
    "Lighthouse",
    "Brightwater",
    "Old Mill",
    "Kestrel",
    "Summit Peak",
    "Granite Bay",
    "Foxglove",
    "Meridian",
    "Half Moon",
    "Copperline",
    "Seventh Wave",
    "Orchard Lane",
    "Blackbird",
    "Tall Pines",
    "Riverstone",
    "Amber Road",
    "Cobalt",
    "Starling",
    "Westgate",
    "Harborview",
]
_COMPANY_SUFFIX = ["Pictures", "Films", "Studios", "Entertainment", "Productions", "Media"]
# The catalogue's own orders (its people are a shuffled product of the two lists, so the order
# is part of the generated data): the shared lists' first names, then names of its own.
_FIRST = [
    *FIRST_NAMES[:21],
    "Nancy",
    "Matthew",
    "Lisa",
    "Anthony",
    "Betty",
    "Mark",
    "Margaret",
    "Steven",
    "Sandra",
    "Paul",
    "Ashley",
    "Andrew",
    "Emily",
    "Joshua",
    "Donna",
    "Kenneth",
    "Michelle",
    "Kevin",
    "Carol",
    "Brian",
    "Amanda",
    "George",
    "Melissa",
    "Edward",
    "Deborah",
    "Ronald",
    "Stephanie",
    "Timothy",
    "Rebecca",
    "Jason",
    "Laura",
    "Jeffrey",
    "Helen",
    "Ryan",
    "Sharon",
    "Jacob",
    "Cynthia",
    "Gary",
    "Kathleen",
    "Nicholas",
    "Amy",
    "Eric",
    "Shirley",
    "Jonathan",
    "Angela",
    "Stephen",
    "Anna",
    "Larry",
    "Ruth",
    "Hiro",
    "Mei",
    "Lars",
    "Ingrid",
    "Pierre",
    "Amelie",
    "Rafael",
    "Lucia",
    "Arjun",
    "Priya",
    "Kenji",
    "Yuki",
    "Mateo",
    "Sofia",
    "Oskar",
    "Freya",
    "Dmitri",
    "Olga",
    "Liam",
    "Aoife",
]
_LAST = [
    *LAST_NAMES[:50],
    "Tanaka",
    "Yamamoto",
    "Chen",
    "Wang",
    "Larsen",
    "Lindqvist",
    "Dubois",
    "Moreau",
    "Rossi",
    "Bianchi",
    "Kapoor",
    "Sharma",
    "Ivanov",
    "Petrova",
    "Murphy",
    "Kelly",
    "O'Brien",
    "Schmidt",
    "Fischer",
    "Novak",
]
_CHAR_FIRST = [
    "Evelyn",
    "Marcus",
    "Iris",
    "Dominic",
    "Vera",
    "Felix",
    "Nora",
    "Silas",
    "Ada",
    "Hugo",
    "Clara",
    "Jonah",
    "Mira",
    "Victor",
    "Lena",
    "Theo",
    "Ruby",
    "Caleb",
    "Stella",
    "Owen",
    "Hazel",
    "Elliot",
    "June",
    "Rowan",
    "Wren",
    "Jasper",
    "Maeve",
    "Arthur",
    "Lyra",
    "Gideon",
    "Tessa",
    "Ezra",
    "Pearl",
    "Milo",
    "Ivy",
    "Declan",
]
_CHAR_LAST = [
    "Wang",
    "Hale",
    "Crane",
    "Stone",
    "Vance",
    "Holt",
    "Marsh",
    "Reyes",
    "Quinn",
    "Frost",
    "Locke",
    "Byrne",
    "Sloane",
    "Pike",
    "Archer",
    "Blackwood",
    "Lin",
    "Shu Lien",
    "Kovac",
    "Drake",
    "Monroe",
    "Sterling",
]
_TITLE_ADJ = [
    "Silent",
    "Crimson",
    "Hidden",
    "Last",
    "Broken",
    "Golden",
    "Distant",
    "Frozen",
    "Burning",
    "Midnight",
    "Lost",
    "Secret",
    "Wild",
    "Iron",
    "Glass",
    "Hollow",
    "Quiet",
    "Electric",
    "Endless",
    "Forgotten",
]
_TITLE_NOUN = [
    "Harbor",
    "Orchard",
    "Kingdom",
    "Signal",
    "River",
    "Garden",
    "Frontier",
    "Letter",
    "Empire",
    "Voyage",
    "Horizon",
    "Lantern",
    "Circus",
    "Island",
    "Mountain",
    "Station",
    "Symphony",
    "Mirror",
    "Compass",
    "Desert",
]
_TITLE_PLACE = [
    "Avalon",
    "Kestrel Bay",
    "Marlowe",
    "the North",
    "Saint Clair",
    "Ember Falls",
    "Larkspur",
    "Calder",
    "Ravenna",
    "Tideford",
]
_PLACES = [
    "Tucson, Arizona, USA",
    "Los Angeles, California, USA",
    "Brooklyn, New York, USA",
    "Chicago, Illinois, USA",
    "London, England, UK",
    "Manchester, England, UK",
    "Paris, France",
    "Lyon, France",
    "Berlin, Germany",
    "Munich, Germany",
    "Tokyo, Japan",
    "Osaka, Japan",
    "Beijing, China",
    "Hong Kong",
    "Toronto, Ontario, Canada",
    "Sydney, New South Wales, Australia",
    "Wellington, New Zealand",
    "Rome, Italy",
    "Madrid, Spain",
    "Mumbai, Maharashtra, India",
    "Seoul, South Korea",
    "Stockholm, Sweden",
    "Dublin, Ireland",
    "Austin, Texas, USA",
    "Boston, Massachusetts, USA",
    "Mexico City, Mexico",
    "Ipoh, Perak, Malaysia",
]
KEYWORDS = [
    "based on novel or book",
    "friendship",
    "revenge",
    "time travel",
    "small town",
    "heist",
    "dystopia",
    "coming of age",
    "family relationships",
    "artificial intelligence",
    "murder",
    "detective",
    "road trip",
    "space",
    "martial arts",
    "musician",
    "high school",
    "survival",
    "betrayal",
    "kidnapping",
    "sequel",
    "love triangle",
    "island",
    "monster",
    "superhero",
    "world war ii",
    "robot",
    "magic",
    "ghost",
    "journalist",
    "prison",
    "courtroom",
    "chess",
    "mountain climbing",
    "storm",
    "undercover",
    "sibling rivalry",
    "parallel universe",
]
_TAGLINES = [
    "Some secrets never stay buried.",
    "Every journey has a price.",
    "The past is never past.",
    "Hold on.",
    "One night changes everything.",
]
_CREW_OTHER = [
    "Original Music Composer",
    "Director of Photography",
    "Editor",
    "Casting",
    "Production Design",
    "Costume Design",
]


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    birthday: str
    place_of_birth: str
    biography: str
    imdb_id: str
    facebook_id: str | None
    instagram_id: str | None
    twitter_id: str | None


@dataclass(frozen=True)
class Movie:
    id: int
    title: str
    overview: str
    release_date: str
    budget: int
    revenue: int
    vote_average: float
    popularity: float
    genres: tuple[tuple[int, str], ...]
    companies: tuple[int, ...]
    countries: tuple[str, ...]
    keywords: tuple[str, ...]
    cast: tuple[tuple[int, str], ...]  # (person id, character), billing order
    crew: tuple[tuple[int, str], ...]  # (person id, job)
    alternative_titles: tuple[tuple[str, str, str], ...]  # (country, title, type)
    tagline: str
    runtime: int


@dataclass(frozen=True)
class Company:
    id: int
    name: str
    origin_country: str
    logo_path: str | None


class Catalog:
    """The generated database with TMDB-like lookups."""

    def __init__(self, seed: int = SEED) -> None:
        rng = random.Random(seed)
        self.companies: dict[int, Company] = _companies(rng)
        self.people: dict[int, Person] = _people(rng)
        pids = list(self.people)
        roles = _Roles(pids[:700], pids[700:780], pids[780:880], pids[880:960], pids[960:])
        self.movies: dict[int, Movie] = {}
        company_ids = list(self.companies)
        for title in _titles(rng):
            mid = rng.randint(10_000, 999_999)
            while mid in self.movies:
                mid = rng.randint(10_000, 999_999)
            self.movies[mid] = _movie(rng, mid, title, roles, company_ids)
        self._by_title = sorted(self.movies.values(), key=lambda m: (-m.popularity, m.id))
        self._by_name = sorted(self.people.values(), key=lambda p: p.id)
        self.credits: dict[int, list[tuple[Movie, str, str]]] = {pid: [] for pid in self.people}
        for m in sorted(self.movies.values(), key=lambda m: (m.release_date, m.id), reverse=True):
            for pid, char in m.cast:
                self.credits[pid].append((m, "cast", char))
            for pid, job in m.crew:
                self.credits[pid].append((m, "crew", job))

    def search_movie(self, query: str) -> list[Movie]:
        return _search(self._by_title, lambda m: m.title, query)

    def search_person(self, query: str) -> list[Person]:
        return _search(self._by_name, lambda p: p.name, query)

    def people_in(self, movie: Movie, job: str | None = None) -> list[Person]:
        return [self.people[pid] for pid, j in movie.crew if job is None or j == job]


@dataclass(frozen=True)
class _Roles:
    """Person ids by the work they do in the catalogue."""

    actors: list[int]
    directors: list[int]
    writers: list[int]
    producers: list[int]
    others: list[int]


def _companies(rng: random.Random) -> dict[int, Company]:
    companies: dict[int, Company] = {}
    for i, name in enumerate(
        rng.sample([f"{w} {s}" for w in _COMPANY_WORDS for s in _COMPANY_SUFFIX], 45)
    ):
        cid = 1000 + i * 37 + rng.randint(0, 30)
        logo = (
            f"/{''.join(rng.choice('abcdefghijklmnopqrstuvwxyz0123456789') for _ in range(16))}.png"
            if rng.random() < 0.7
            else None
        )
        companies[cid] = Company(cid, name, rng.choice(COUNTRIES[:10])[0], logo)
    return companies


def _people(rng: random.Random) -> dict[int, Person]:
    people: dict[int, Person] = {}
    names = [f"{f} {last}" for f in _FIRST for last in _LAST]
    rng.shuffle(names)
    for name in names[:1100]:
        pid = rng.randint(1000, 3_999_999)
        while pid in people:
            pid = rng.randint(1000, 3_999_999)
        born = dt.date(1938, 1, 1) + dt.timedelta(days=rng.randint(0, 365 * 62))
        place = rng.choice(_PLACES)
        bio = (
            f"{name} (born {born.strftime('%B')} {born.day}, {born.year}) is a film professional from "
            f"{place}. {name.split()[0]} began working in theatre before moving to film."
        )
        handle = name.lower().replace(" ", "").replace("'", "")
        people[pid] = Person(
            pid,
            name,
            born.isoformat(),
            place,
            bio,
            f"nm{rng.randint(100000, 9999999):07d}",
            handle if rng.random() < 0.4 else None,
            handle + "official" if rng.random() < 0.5 else None,
            handle if rng.random() < 0.5 else None,
        )
    return people


def _titles(rng: random.Random) -> list[str]:
    """``N_MOVIES`` distinct titles, then a few sequels that share their original's title."""
    titles: list[str] = []
    seen: set[str] = set()
    while len(titles) < N_MOVIES:
        form = rng.random()
        if form < 0.4:
            t = f"The {rng.choice(_TITLE_ADJ)} {rng.choice(_TITLE_NOUN)}"
        elif form < 0.7:
            t = f"{rng.choice(_TITLE_NOUN)} of {rng.choice(_TITLE_PLACE)}"
        else:
            t = f"{rng.choice(_TITLE_ADJ)} {rng.choice(_TITLE_NOUN)}"
        if t.lower() not in seen:
            seen.add(t.lower())
            titles.append(t)
    for base in rng.sample(titles[:200], 12):
        titles.append(f"{base} {rng.choice(['2', 'II', 'Returns'])}")
    return titles


def _movie(
    rng: random.Random, mid: int, title: str, roles: _Roles, company_ids: list[int]
) -> Movie:
    released = dt.date(1985, 1, 1) + dt.timedelta(days=rng.randint(0, 365 * 38))
    budget = rng.randint(2, 250) * 1_000_000
    revenue = int(budget * rng.lognormvariate(0.6, 0.8)) // 1000 * 1000
    genres = tuple(sorted(rng.sample(GENRES, rng.randint(1, 3))))
    cast_people = rng.sample(roles.actors, rng.randint(6, 12))
    chars = _characters(rng, len(cast_people))
    crew = _crew(rng, roles)
    countries = tuple(
        sorted(
            set(
                [COUNTRIES[0][0] if rng.random() < 0.6 else rng.choice(COUNTRIES)[0]]
                + [rng.choice(COUNTRIES)[0] for _ in range(rng.randint(0, 1))]
            )
        )
    )
    genre_words = " and ".join(g[1].lower() for g in genres)
    overview = (
        f"A {genre_words} story: when {chars[0]} returns to {rng.choice(_TITLE_PLACE)}, an old "
        f"promise to {chars[1]} sets events in motion that neither can control."
    )
    alt = _alternative_titles(rng, title)
    return Movie(
        mid,
        title,
        overview,
        released.isoformat(),
        budget,
        revenue,
        round(rng.uniform(4.5, 8.8), 1),
        round(rng.uniform(5, 120), 3),
        genres,
        tuple(rng.sample(company_ids, rng.randint(1, 3))),
        countries,
        tuple(rng.sample(KEYWORDS, rng.randint(2, 6))),
        tuple(zip(cast_people, chars)),
        tuple(crew),
        alt,
        rng.choice(_TAGLINES),
        rng.randint(82, 171),
    )


def _characters(rng: random.Random, n: int) -> list[str]:
    chars: list[str] = []
    for _ in range(n):
        c = f"{rng.choice(_CHAR_FIRST)} {rng.choice(_CHAR_LAST)}"
        while c in chars:
            c = f"{rng.choice(_CHAR_FIRST)} {rng.choice(_CHAR_LAST)}"
        chars.append(c)
    return chars


def _crew(rng: random.Random, roles: _Roles) -> list[tuple[int, str]]:
    director = rng.choice(roles.directors)
    crew: list[tuple[int, str]] = [(director, "Director")]
    for w in rng.sample(roles.writers + [director], rng.randint(1, 3)):
        crew.append((w, rng.choice(["Screenplay", "Writer"])))
    for p in rng.sample(roles.producers, rng.randint(1, 2)):
        crew.append((p, "Producer"))
    for job in rng.sample(_CREW_OTHER, rng.randint(3, 5)):
        crew.append((rng.choice(roles.others), job))
    return crew


def _alternative_titles(rng: random.Random, title: str) -> tuple[tuple[str, str, str], ...]:
    return tuple(
        (
            cc,
            f"{title}: {rng.choice(['Director' + chr(39) + 's Cut', 'The Movie', 'Chronicles', 'Origins'])}"
            if rng.random() < 0.5
            else f"{rng.choice(_TITLE_ADJ)} {title.split()[-1]}",
            "",
        )
        for cc in sorted(rng.sample(["GB", "FR", "DE", "JP", "CA", "ES", "IT"], rng.randint(0, 3)))
    )


_Row = TypeVar("_Row")


def _search(rows: list[_Row], name_of: Callable[[_Row], str], query: str) -> list[_Row]:
    """Rows whose name is ``query`` (case-folded, spaces collapsed), then rows whose name
    holds every word of it; each group in ``rows`` order."""
    q = " ".join(query.casefold().split())
    exact = [r for r in rows if name_of(r).casefold() == q]
    words = q.split()
    partial = [r for r in rows if r not in exact and all(w in name_of(r).casefold() for w in words)]
    return exact + partial


@lru_cache(maxsize=1)
def catalog() -> Catalog:
    """The shared catalogue (built on first use, about 20 ms)."""
    return Catalog()
