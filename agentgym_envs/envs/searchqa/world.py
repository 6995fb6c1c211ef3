"""A seeded fictional world written up as an encyclopedia, and questions about it.

No model has read about this world, so its questions can only be answered by searching. The
world has countries, cities, rivers, people, companies and works; every entity gets one article
(a short passage, like the 100-word passages of AgentGym's ``wiki-18`` corpus). Questions are
single-hop (one article holds the answer) or multi-hop (the answer of one article is the subject
of the next, or two facts are compared), in seven categories.

Each question carries its *plan*: the searches a reader would make and the sentence pattern that
holds each fact. The expert follows it; the env never reads it.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from functools import lru_cache

_ONSETS = (
    "b",
    "br",
    "c",
    "d",
    "dr",
    "f",
    "g",
    "gr",
    "h",
    "k",
    "l",
    "m",
    "n",
    "p",
    "r",
    "s",
    "sk",
    "t",
    "th",
    "tr",
    "v",
    "z",
    "ch",
    "j",
    "w",
    "st",
)
_VOWELS = ("a", "e", "i", "o", "u", "ae", "ei", "ou", "y")
_CODAS = ("", "", "", "n", "r", "l", "s", "th", "m", "nd", "rk", "x", "v")
_COUNTRY_ENDS = ("ia", "and", "or", "ania", "esh", "ova", "istan", "ar")
_CITY_ENDS = ("", "", "holm", "burg", "port", "avar", "ford", "mere", "stad", "ton")
_SEAS = ("Vesper Sea", "Amber Sea", "Northern Gulf", "Sea of Talos", "Ocean of Meridia")
_CURRENCIES = ("crown", "mark", "dinar", "florin", "talent", "sol", "real", "ducat")
_INDUSTRIES = (
    ("shipbuilding", "Shipyards"),
    ("mining", "Mining"),
    ("textile", "Textiles"),
    ("publishing", "Press"),
    ("railway", "Railways"),
    ("brewing", "Breweries"),
    ("glassmaking", "Glassworks"),
    ("clockmaking", "Clockworks"),
    ("banking", "Bank"),
)
#: occupation -> kind of work, verb used in the article
_OCCUPATIONS = (
    ("novelist", "novel", "wrote"),
    ("poet", "poem", "wrote"),
    ("painter", "painting", "painted"),
    ("composer", "symphony", "composed"),
    ("playwright", "play", "wrote"),
    ("sculptor", "sculpture", "sculpted"),
    ("philosopher", "treatise", "wrote"),
)
_ADJECTIVES = (
    "Silent",
    "Crimson",
    "Hollow",
    "Distant",
    "Golden",
    "Broken",
    "Winter",
    "Hidden",
    "Last",
    "Burning",
    "Pale",
    "Endless",
    "Quiet",
    "Wandering",
    "Iron",
    "Glass",
    "Northern",
    "Seventh",
    "Forgotten",
    "Little",
    "Bitter",
    "Lunar",
    "Velvet",
    "Drowned",
)
_NOUNS = (
    "Harbor",
    "Garden",
    "Mirror",
    "Lantern",
    "Orchard",
    "Tide",
    "Citadel",
    "Meadow",
    "Voyage",
    "Bell",
    "Crown",
    "River",
    "Archive",
    "Feather",
    "Bridge",
    "Tower",
    "Season",
    "Compass",
    "Letter",
    "Empire",
    "Chorus",
    "Shadow",
    "Island",
    "Weaver",
)

#: Question categories (name, hops); seven, as AgentGym's test data has seven source sets.
CATEGORIES = (
    ("birthplace", 1),
    ("creator", 1),
    ("founder", 1),
    ("capital", 1),
    ("birth_country", 2),
    ("company_river", 2),
    ("compare_birth", 2),
)


@dataclass(frozen=True)
class Passage:
    """One corpus passage: ``title`` and ``text`` (AgentGym's ``contents`` is both)."""

    title: str
    text: str

    @property
    def contents(self) -> str:
        """The passage as AgentGym's ``wiki-18.jsonl`` stores it: quoted title, newline, text."""
        return f'"{self.title}"\n{self.text}'


@dataclass(frozen=True)
class Hop:
    """One search of a plan: the query, and a regex whose group 1 is the fact.

    ``{0}`` in either is replaced by the previous hop's fact.
    """

    query: str
    pattern: str


@dataclass(frozen=True)
class Question:
    """A question, its accepted answers, its category and its plan.

    ``kind`` is ``"chain"`` (each hop's fact feeds the next; the last fact is the answer) or
    ``"compare"`` (two independent hops give years; ``options`` are the two subjects and the
    answer is the one with the earlier year).
    """

    question: str
    answers: tuple[str, ...]
    category: str
    hops: tuple[Hop, ...]
    kind: str = "chain"
    options: tuple[str, ...] = ()


@dataclass(frozen=True)
class World:
    passages: tuple[Passage, ...]
    questions: tuple[Question, ...]


class _Names:
    """Unique invented names from syllables."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()

    def word(self, syllables: int, end: str = "") -> str:
        r = self.rng
        parts = [r.choice(_ONSETS) + r.choice(_VOWELS) + r.choice(_CODAS) for _ in range(syllables)]
        return ("".join(parts) + end).capitalize()

    def unique(self, make) -> str:  # type: ignore[no-untyped-def]
        for _ in range(1000):
            name = make()
            if name not in self.used and len(name) > 3:
                self.used.add(name)
                return name
        raise RuntimeError("name space exhausted")  # pragma: no cover


def _esc(text: str) -> str:
    return re.escape(text).replace(r"\{0\}", "{0}")


@dataclass
class _Facts:
    """The generated entities and their relations, before they are written up."""

    countries: list[str]
    rivers: list[str]
    cities: list[str]
    city_country: dict[str, str]
    city_river: dict[str, str]
    city_year: dict[str, int]
    capitals: dict[str, str]
    people: list[str]
    birth_year: dict[str, int]
    birth_city: dict[str, str]
    occupation: dict[str, tuple[str, str, str]]
    works: list[tuple[str, str, int]] = field(default_factory=list)  # (title, creator, year)
    #: (name, founder, year, headquarters city, industry)
    companies: list[tuple[str, str, int, str, str]] = field(default_factory=list)


def build_world(seed: int = 0, n_people: int = 1500) -> World:
    """The encyclopedia and its questions for ``seed`` (deterministic)."""
    rng = random.Random(seed)
    names = _Names(rng)
    facts = _places_and_people(rng, names, n_people)
    _add_works(rng, facts)
    _add_companies(rng, names, facts, n_people // 5)
    passages = _passages(rng, facts)
    questions = _questions(rng, facts)
    rng.shuffle(questions)
    return World(tuple(passages), tuple(questions))


def _places_and_people(rng: random.Random, names: _Names, n_people: int) -> _Facts:
    n_countries, n_cities, n_rivers = 30, 240, 60
    countries = [
        names.unique(lambda: names.word(rng.randint(1, 2), rng.choice(_COUNTRY_ENDS)))
        for _ in range(n_countries)
    ]
    rivers = [names.unique(lambda: names.word(2)) for _ in range(n_rivers)]
    cities = [
        names.unique(lambda: names.word(rng.randint(1, 2), rng.choice(_CITY_ENDS)))
        for _ in range(n_cities)
    ]
    city_country = {c: countries[i % n_countries] for i, c in enumerate(cities)}
    city_river = {c: rng.choice(rivers) for c in cities}
    city_year = {c: rng.randint(600, 1700) for c in cities}
    capitals = {k: next(c for c in cities if city_country[c] == k) for k in countries}

    first_names = [names.unique(lambda: names.word(rng.randint(1, 2))) for _ in range(200)]
    surnames = [names.unique(lambda: names.word(rng.randint(2, 3))) for _ in range(n_people)]
    people = [f"{rng.choice(first_names)} {s}" for s in surnames]
    birth_year = {p: rng.randint(1700, 1960) for p in people}
    birth_city = {p: rng.choice(cities) for p in people}
    occupation = {p: rng.choice(_OCCUPATIONS) for p in people}
    return _Facts(
        countries,
        rivers,
        cities,
        city_country,
        city_river,
        city_year,
        capitals,
        people,
        birth_year,
        birth_city,
        occupation,
    )


def _add_works(rng: random.Random, f: _Facts) -> None:
    titles: set[str] = set()
    for p in f.people:
        for _ in range(rng.randint(1, 2)):
            for _ in range(50):
                t = f"The {rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)}"
                if rng.random() < 0.6:
                    t += f" of {rng.choice(f.cities)}"
                if t not in titles:
                    titles.add(t)
                    f.works.append((t, p, f.birth_year[p] + rng.randint(20, 60)))
                    break


def _add_companies(rng: random.Random, names: _Names, f: _Facts, n_companies: int) -> None:
    for p in rng.sample(f.people, n_companies):
        industry, word = rng.choice(_INDUSTRIES)
        name = names.unique(lambda w=word: f"{names.word(rng.randint(2, 3))} {w}")
        hq = rng.choice(f.cities)
        f.companies.append((name, p, f.birth_year[p] + rng.randint(25, 50), hq, industry))


def _passages(rng: random.Random, f: _Facts) -> list[Passage]:
    """One article per entity: countries, rivers, cities, people, works, companies."""
    passages: list[Passage] = []
    for k in f.countries:
        cur = rng.choice(_CURRENCIES)
        n = sum(1 for c in f.cities if f.city_country[c] == k)
        passages.append(
            Passage(
                k,
                (
                    f"{k} is a country in the Meridian lands. The capital of {k} is {f.capitals[k]}. "
                    f"{k} has {n} large cities and its currency is the {k.lower()} {cur}."
                ),
            )
        )
    for r in f.rivers:
        through = [c for c in f.cities if f.city_river[c] == r][:4]
        passages.append(
            Passage(
                r,
                (
                    f"The {r} is a river {rng.randint(80, 2400)} kilometres long that empties into the "
                    f"{rng.choice(_SEAS)}."
                    + (f" Cities on the {r} include {', '.join(through)}." if through else "")
                ),
            )
        )
    for c in f.cities:
        passages.append(
            Passage(
                c,
                (
                    f"{c} is a city in {f.city_country[c]}. {c} lies on the {f.city_river[c]} river. "
                    f"It was founded in {f.city_year[c]} and has about {rng.randint(5, 900) * 1000} "
                    "inhabitants."
                ),
            )
        )
    return passages + _people_passages(f)


def _people_passages(f: _Facts) -> list[Passage]:
    """The articles on people, their works and their companies (no randomness)."""
    passages: list[Passage] = []
    works_by = {p: [w for w in f.works if w[1] == p] for p in f.people}
    for p in f.people:
        occ, kind, verb = f.occupation[p]
        known = " and ".join(f"the {kind} {w[0]}" for w in works_by[p])
        surname = p.split()[-1]
        passages.append(
            Passage(
                p,
                (
                    f"{p} was a {occ}. {p} was born in {f.birth_city[p]} in {f.birth_year[p]}. "
                    f"{surname} is best known for {known}."
                ),
            )
        )
    for title, p, year in f.works:
        occ, kind, verb = f.occupation[p]
        passages.append(
            Passage(title, (f"{title} is a {kind} by the {occ} {p}. {p} {verb} {title} in {year}."))
        )
    for name, p, year, hq, industry in f.companies:
        passages.append(
            Passage(
                name,
                (
                    f"{name} is a {industry} company founded by {p} in {year}. "
                    f"{name} is headquartered in {hq}."
                ),
            )
        )
    return passages


_BORN_IN = "{0} was born in ([A-Z][A-Za-z]+) in"
_BORN_YEAR = "{0} was born in [A-Z][A-Za-z]+ in ([0-9]{4})"


def _born(person: str, pattern: str) -> Hop:
    """The hop that reads ``person``'s birth article with ``pattern``."""
    return Hop(person + " born", _esc(person).join(pattern.split("{0}")))


def _questions(rng: random.Random, f: _Facts) -> list[Question]:
    """Every question about the world, in category blocks (the caller shuffles them)."""
    questions: list[Question] = []
    for p in f.people:
        city = f.birth_city[p]
        questions.append(
            Question(f"In which city was {p} born", (city,), "birthplace", (_born(p, _BORN_IN),))
        )
        questions.append(
            Question(
                f"In which country was {p} born",
                (f.city_country[city],),
                "birth_country",
                (
                    _born(p, _BORN_IN),
                    Hop("{0} city country", "{0} is a city in ([A-Z][A-Za-z]+)"),
                ),
            )
        )
    for title, p, _ in f.works:
        occ, kind, _v = f.occupation[p]
        questions.append(
            Question(
                f"Who created the {kind} {title}",
                (p,),
                "creator",
                (Hop(title, _esc(title) + f" is a {kind} by the {occ} ([A-Z][a-z]+ [A-Z][a-z]+)"),),
            )
        )
    questions += _company_questions(f)
    for k in f.countries:
        questions.append(
            Question(
                f"What is the capital of {k}",
                (f.capitals[k],),
                "capital",
                (Hop(k + " capital", f"The capital of {_esc(k)} is ([A-Z][A-Za-z]+)"),),
            )
        )
    return questions + _compare_questions(rng, f)


def _company_questions(f: _Facts) -> list[Question]:
    questions: list[Question] = []
    for name, p, _y, hq, _i in f.companies:
        questions.append(
            Question(
                f"Who founded {name}",
                (p,),
                "founder",
                (
                    Hop(
                        name + " founded",
                        _esc(name) + r" is a [a-z]+ company founded by "
                        r"([A-Z][a-z]+ [A-Z][a-z]+)",
                    ),
                ),
            )
        )
        questions.append(
            Question(
                f"Which river flows through the city where {name} is headquartered",
                (f.city_river[hq],),
                "company_river",
                (
                    Hop(
                        name + " headquartered",
                        _esc(name) + r" is headquartered in ([A-Z][A-Za-z]+)",
                    ),
                    Hop("{0} river", "{0} lies on the ([A-Z][A-Za-z]+) river"),
                ),
            )
        )
    return questions


def _compare_questions(rng: random.Random, f: _Facts) -> list[Question]:
    """``Who was born first`` over a shuffled pairing of the people (ties are skipped)."""
    questions: list[Question] = []
    pairs = list(f.people)
    rng.shuffle(pairs)
    for a, b in zip(pairs[0::2], pairs[1::2]):
        if f.birth_year[a] == f.birth_year[b]:
            continue
        first = a if f.birth_year[a] < f.birth_year[b] else b
        questions.append(
            Question(
                f"Who was born first, {a} or {b}",
                (first,),
                "compare_birth",
                (_born(a, _BORN_YEAR), _born(b, _BORN_YEAR)),
                kind="compare",
                options=(a, b),
            )
        )
    return questions


@lru_cache(maxsize=4)
def world(seed: int = 0) -> World:
    """:func:`build_world` for ``seed``, built once per process."""
    return build_world(seed)
