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
from dataclasses import dataclass
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


def build_world(seed: int = 0, n_people: int = 1500) -> World:
    """The encyclopedia and its questions for ``seed`` (deterministic)."""
    rng = random.Random(seed)
    names = _Names(rng)
    n_countries, n_cities, n_rivers = 30, 240, 60
    n_companies = n_people // 5

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

    titles: set[str] = set()
    works: list[tuple[str, str, int]] = []  # (title, creator, year)
    for p in people:
        for _ in range(rng.randint(1, 2)):
            for _ in range(50):
                t = f"The {rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)}"
                if rng.random() < 0.6:
                    t += f" of {rng.choice(cities)}"
                if t not in titles:
                    titles.add(t)
                    works.append((t, p, birth_year[p] + rng.randint(20, 60)))
                    break
    works_by = {p: [w for w in works if w[1] == p] for p in people}

    companies: list[tuple[str, str, int, str, str]] = []  # (name, founder, year, city, industry)
    founders = rng.sample(people, n_companies)
    for p in founders:
        industry, word = rng.choice(_INDUSTRIES)
        name = names.unique(lambda w=word: f"{names.word(rng.randint(2, 3))} {w}")
        hq = rng.choice(cities)
        companies.append((name, p, birth_year[p] + rng.randint(25, 50), hq, industry))

    passages: list[Passage] = []
    for k in countries:
        cur = rng.choice(_CURRENCIES)
        n = sum(1 for c in cities if city_country[c] == k)
        passages.append(
            Passage(
                k,
                (
                    f"{k} is a country in the Meridian lands. The capital of {k} is {capitals[k]}. "
                    f"{k} has {n} large cities and its currency is the {k.lower()} {cur}."
                ),
            )
        )
    for r in rivers:
        through = [c for c in cities if city_river[c] == r][:4]
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
    for c in cities:
        passages.append(
            Passage(
                c,
                (
                    f"{c} is a city in {city_country[c]}. {c} lies on the {city_river[c]} river. "
                    f"It was founded in {city_year[c]} and has about {rng.randint(5, 900) * 1000} "
                    "inhabitants."
                ),
            )
        )
    for p in people:
        occ, kind, verb = occupation[p]
        ws = works_by[p]
        known = " and ".join(f"the {kind} {w[0]}" for w in ws)
        surname = p.split()[-1]
        passages.append(
            Passage(
                p,
                (
                    f"{p} was a {occ}. {p} was born in {birth_city[p]} in {birth_year[p]}. "
                    f"{surname} is best known for {known}."
                ),
            )
        )
    for title, p, year in works:
        occ, kind, verb = occupation[p]
        passages.append(
            Passage(title, (f"{title} is a {kind} by the {occ} {p}. {p} {verb} {title} in {year}."))
        )
    for name, p, year, hq, industry in companies:
        passages.append(
            Passage(
                name,
                (
                    f"{name} is a {industry} company founded by {p} in {year}. "
                    f"{name} is headquartered in {hq}."
                ),
            )
        )

    questions: list[Question] = []
    born_in = "{0} was born in ([A-Z][A-Za-z]+) in"
    born_year = "{0} was born in [A-Z][A-Za-z]+ in ([0-9]{4})"
    for p in people:
        questions.append(
            Question(
                f"In which city was {p} born",
                (birth_city[p],),
                "birthplace",
                (Hop(p + " born", _esc(p).join(born_in.split("{0}"))),),
            )
        )
        questions.append(
            Question(
                f"In which country was {p} born",
                (city_country[birth_city[p]],),
                "birth_country",
                (
                    Hop(p + " born", _esc(p).join(born_in.split("{0}"))),
                    Hop("{0} city country", "{0} is a city in ([A-Z][A-Za-z]+)"),
                ),
            )
        )
    for title, p, _ in works:
        occ, kind, _v = occupation[p]
        questions.append(
            Question(
                f"Who created the {kind} {title}",
                (p,),
                "creator",
                (Hop(title, _esc(title) + f" is a {kind} by the {occ} ([A-Z][a-z]+ [A-Z][a-z]+)"),),
            )
        )
    for name, p, _y, hq, _i in companies:
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
                (city_river[hq],),
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
    for k in countries:
        questions.append(
            Question(
                f"What is the capital of {k}",
                (capitals[k],),
                "capital",
                (Hop(k + " capital", f"The capital of {_esc(k)} is ([A-Z][A-Za-z]+)"),),
            )
        )
    pairs = list(people)
    rng.shuffle(pairs)
    for a, b in zip(pairs[0::2], pairs[1::2]):
        if birth_year[a] == birth_year[b]:
            continue
        first = a if birth_year[a] < birth_year[b] else b
        questions.append(
            Question(
                f"Who was born first, {a} or {b}",
                (first,),
                "compare_birth",
                (
                    Hop(a + " born", _esc(a).join(born_year.split("{0}"))),
                    Hop(b + " born", _esc(b).join(born_year.split("{0}"))),
                ),
                kind="compare",
                options=(a, b),
            )
        )
    rng.shuffle(questions)
    return World(tuple(passages), tuple(questions))


@lru_cache(maxsize=4)
def world(seed: int = 0) -> World:
    """:func:`build_world` for ``seed``, built once per process."""
    return build_world(seed)
