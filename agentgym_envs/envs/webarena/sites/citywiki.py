"""The wiki's articles about the map's city (:mod:`.mapdata`): its neighbourhoods, national
parks, sports teams and stadiums, universities, people, prizes and films, generated from the
city's own places so that every fact an article states is true on the map.

These are the hops of WebArena's wikipedia + map templates (a team's home stadium, a person's
college, where a film was shot, the neighbourhood a person comes from) and of its gitlab +
wikipedia README template (a director's filmography and career). The data API::

    from agentgym_envs.envs.webarena.sites.citywiki import city_world

    w = city_world()                 # built once per process from the map's city
    w.neighbourhoods                 # list[Neighbourhood]: place, population, founded
    w.national_parks                 # list[NationalPark]: place, established
    w.teams                          # list[Team]: name, sport, home, since, former, years
    w.people, w.prizes               # list[Person] (college, known_for, prize), list[Prize]
    w.directors, w.films             # list[Director] (films, eras), list[Film] (location)
    w.articles()                     # list[(title, body)]: the wiki's articles about them

An article's body is paragraphs separated by blank lines; a paragraph ``== Heading ==`` is a
section heading and lines starting ``* `` are list items (the wiki renders both).
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass

from agentgym_envs.envs.webarena.sites.mapdata import CITY, COLS, ROWS, City, Place, city

SEED = "citywiki"


@dataclass(frozen=True)
class Neighbourhood:
    place: Place
    population: int
    founded: int
    compass: str

    @property
    def name(self) -> str:
        return self.place.name


@dataclass(frozen=True)
class NationalPark:
    place: Place
    established: int
    feature: str


@dataclass(frozen=True)
class Team:
    """A club: its home stadium ``since`` a year, and the ``former`` one in ``years``."""

    name: str
    sport: str
    home: Place
    since: int
    former: Place | None = None
    years: tuple[int, int] | None = None

    def stadium_in(self, decade: int | None) -> Place:
        """Where the team played in the decade starting ``decade`` (None: today)."""
        years = self.years or (0, 0)
        if decade is not None and self.former is not None and years[0] <= decade <= years[1] - 9:
            return self.former
        if decade is None or decade >= self.since:
            return self.home
        raise ValueError(f"{self.name} did not play in one stadium through the {decade}s")


@dataclass(frozen=True)
class Person:
    name: str
    field: str
    known_for: str
    born: int
    died: int
    hometown: Place
    birthplace: Place
    college: Place
    graduate: Place
    affiliation: Place
    prize: str
    prize_year: int


@dataclass(frozen=True)
class Prize:
    name: str
    laureates: tuple[Person, ...]

    def most(self) -> Place:
        """The university with the most laureates (unique by construction)."""
        counts: dict[int, int] = {}
        for p in self.laureates:
            counts[p.affiliation.id] = counts.get(p.affiliation.id, 0) + 1
        best = max(counts.values())
        (winner,) = [p.affiliation for p in self.laureates if counts[p.affiliation.id] == best][:1]
        return winner


@dataclass(frozen=True)
class Film:
    title: str
    year: int
    genre: str
    director: str
    location: Place
    won: bool
    nominated: bool


@dataclass(frozen=True)
class Director:
    name: str
    born: int
    hometown: Place
    films: tuple[Film, ...]
    eras: tuple[tuple[str, str], ...]  # (heading, text)


_PARK_FEATURES = (
    "the last tidal marsh on the bay",
    "the iron foundry that built the city's first bridges",
    "the locks of the old Alder Canal",
    "limestone bluffs over the river",
    "the lighthouse and ferry landing of the first harbour",
)
_FIELDS = (
    ("economist", "the {a}–{b} bargaining model"),
    ("mathematician", "the {a} conjecture"),
    ("chemist", "the {a} reaction"),
    ("computer scientist", "the {a} scheduling algorithm"),
    ("physicist", "the {a} effect"),
    ("biologist", "the {a} cell stain"),
    ("statistician", "the {a} estimator"),
    ("engineer", "the {a} truss"),
)
_PRIZES = ("Kestrel Prize in Economics", "Halvorsen Medal for Science")
_ADJ = (
    "Glass",
    "Silent",
    "Northern",
    "Last",
    "Hollow",
    "Burning",
    "Paper",
    "Iron",
    "Quiet",
    "Crimson",
    "Winter",
    "Distant",
    "Broken",
    "Golden",
    "Hidden",
    "Seventh",
)
_NOUN = (
    "Harbor",
    "Signal",
    "Orchard",
    "Ferry",
    "Lantern",
    "Foundry",
    "Meridian",
    "Current",
    "Tenant",
    "Bridge",
    "Archive",
    "Season",
    "Witness",
    "Compass",
    "Tide",
    "Parlor",
)
_GENRES = ("drama", "thriller", "comedy", "science fiction film", "crime film", "war film")
AWARD = "Harbor Light Award for Best Picture"
NOMINATION = "Bayview Critics' Prize"
_ERAS = (
    ("Early career and first features", "made low-budget features with friends from"),
    ("Wider recognition", "moved to studio productions, shot on location around"),
    ("Established auteur", "wrote and produced large productions, still filmed in"),
    ("Recent work", "returned to smaller stories set in"),
)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _a(noun: str) -> str:
    return f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"


def _compass(place: Place) -> str:
    r, c = divmod(place.node, COLS)
    ns = ("south", "", "north")[min(2, r * 3 // ROWS)]
    ew = ("west", "", "", "east")[min(3, c * 4 // COLS)]
    return "-".join(w for w in (ns, ew) if w) or "centre"


class CityWorld:
    """The city's encyclopedic facts (use :func:`city_world`)."""

    def __init__(self, c: City) -> None:
        from agentgym_envs.names import FIRST_NAMES, LAST_NAMES

        rng = random.Random(SEED)
        self.city = c
        of = {kind: [p for p in c.places if p.category == kind] for kind in _kinds(c)}
        # neighbourhoods: distinct populations and founding years
        pops = rng.sample(range(4_000, 31_000, 37), len(of["neighbourhood"]))
        years = rng.sample(range(1790, 1925), len(of["neighbourhood"]))
        self.neighbourhoods = [
            Neighbourhood(p, pop, year, _compass(p))
            for p, pop, year in zip(of["neighbourhood"], pops, years, strict=True)
        ]
        established = rng.sample(range(1916, 1990), len(of["national_park"]))
        self.national_parks = [
            NationalPark(p, y, _PARK_FEATURES[k % len(_PARK_FEATURES)])
            for k, (p, y) in enumerate(zip(of["national_park"], established, strict=True))
        ]
        # the stadiums in mapdata's order: a field, a stadium, an arena, an ice centre and
        # the municipal stadium two teams left
        field, bayfront, arena, ice, municipal = of["stadium"]
        self.teams = [
            Team(f"{CITY} Otters", "baseball", field, 1997, municipal, (1958, 1996)),
            Team(f"{CITY} Ironmen", "American football", bayfront, 2001, municipal, (1962, 2000)),
            Team(f"{CITY} Comets", "basketball", arena, 1968),
            Team(f"{CITY} Pilots", "ice hockey", ice, 2000, arena, (1972, 1999)),
        ]
        unis, hospitals = of["university"], of["hospital"]
        used_names: set[str] = set()

        def person_name() -> str:
            while True:
                name = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
                if name not in used_names and name.split()[-1] not in (
                    n.split()[-1] for n in used_names
                ):
                    used_names.add(name)
                    return name

        # two prizes, six laureates each: one university has three of a prize's laureates
        self.people: list[Person] = []
        self.prizes: list[Prize] = []
        for k, prize in enumerate(_PRIZES):
            order = rng.sample(unis, 3)
            affiliations = [order[0]] * 3 + [order[1]] * 2 + [order[2]]
            rng.shuffle(affiliations)
            laureates = []
            for j, affiliation in enumerate(affiliations):
                name = person_name()
                field, pattern = _FIELDS[(k * 6 + j) % len(_FIELDS)]
                surname = name.split()[-1]
                other = rng.choice(LAST_NAMES)
                born = rng.randrange(1900, 1928)
                college, graduate = rng.sample(unis, 2)
                person = Person(
                    name=name,
                    field=field,
                    known_for=pattern.format(a=surname, b=other),
                    born=born,
                    died=born + rng.randrange(62, 95),
                    hometown=rng.choice(self.neighbourhoods).place,
                    birthplace=rng.choice(hospitals),
                    college=college,
                    graduate=graduate,
                    affiliation=affiliation,
                    prize=prize,
                    prize_year=born + rng.randrange(38, 60),
                )
                laureates.append(person)
            laureates.sort(key=lambda p: p.prize_year)
            self.people += laureates
            self.prizes.append(Prize(prize, tuple(laureates)))
        # three directors, eight films each, shot at the city's named places
        sets = [
            p
            for p in c.places[: c.base_count]
            if p.category in ("museum", "hotel", "library", "park", "cinema", "bar", "restaurant")
            and "&" not in p.name
        ]
        titles = [f"{a} {n}" for a in _ADJ for n in _NOUN]
        rng.shuffle(titles)
        locations = rng.sample(sets, 24)
        self.directors: list[Director] = []
        self.films: list[Film] = []
        for d in range(3):
            name = person_name()
            start = rng.randrange(1972, 1986)
            years = sorted(rng.sample(range(start, 2023), 8))
            films = []
            for j, year in enumerate(years):
                won = rng.random() < 0.35
                films.append(
                    Film(
                        titles[d * 8 + j],
                        year,
                        rng.choice(_GENRES),
                        name,
                        locations[d * 8 + j],
                        won,
                        won or rng.random() < 0.4,
                    )
                )
            cuts = [start, years[2] + 1, years[4] + 1, years[6] + 1]
            eras = []
            for e, (heading, text) in enumerate(_ERAS):
                last = "present" if e == 3 else str(cuts[e + 1] - 1)
                span = f"{cuts[e]}–{last}"
                shot = [f for f in films if cuts[e] <= f.year and (e == 3 or f.year < cuts[e + 1])]
                body = (
                    f"{name.split()[-1]} {text} {CITY}: "
                    + ", ".join(f"{f.title} ({f.year})" for f in shot)
                    + "."
                )
                eras.append((f"{span}: {heading}", body))
            self.directors.append(
                Director(
                    name,
                    start - rng.randrange(22, 30),
                    rng.choice(self.neighbourhoods).place,
                    tuple(films),
                    tuple(eras),
                )
            )
            self.films += films

    # -- look-ups -------------------------------------------------------------------------
    def neighbourhood(self, place: Place) -> Neighbourhood:
        district = self.city.district(place)
        return next(n for n in self.neighbourhoods if n.place.id == district.id)

    def by_population(self) -> list[Neighbourhood]:
        return sorted(self.neighbourhoods, key=lambda n: -n.population)

    # -- articles --------------------------------------------------------------------------
    def articles(self) -> list[tuple[str, str]]:
        """Every article as ``(title, body)``."""
        out = [self._city_article(), self._parks_list()]
        out += [self._neighbourhood(n) for n in self.neighbourhoods]
        out += [self._national_park(p) for p in self.national_parks]
        out += [self._team(t) for t in self.teams]
        out += [self._stadium(p) for p in self.city.places if p.category == "stadium"]
        out += [self._university(p) for p in self.city.places if p.category == "university"]
        out += [self._person(p) for p in self.people]
        out += [self._prize(p) for p in self.prizes]
        out += [self._director(d) for d in self.directors]
        out += [self._film(f) for f in self.films]
        return out

    def _city_article(self) -> tuple[str, str]:
        ranked = self.by_population()
        return CITY, "\n\n".join(
            [
                f"{CITY} is a city on a bay of the same name. Its {len(ranked)} neighbourhoods "
                f"had {sum(n.population for n in ranked):,} residents at the 2020 census.",
                "== Neighbourhoods by population ==",
                "\n".join(
                    f"* {n.name}: {n.population:,} residents (settled {n.founded})" for n in ranked
                ),
                "== Sports ==",
                "\n".join(f"* {t.name} ({t.sport}): {t.home.name}" for t in self.teams),
                "== National parks ==",
                f"The city has {len(self.national_parks)} national parks: "
                + ", ".join(p.place.name for p in self.national_parks)
                + ".",
            ]
        )

    def _parks_list(self) -> tuple[str, str]:
        rows = "\n".join(
            f"* {p.place.name} ({self.neighbourhood(p.place).name}, established {p.established})"
            for p in sorted(self.national_parks, key=lambda p: p.established)
        )
        return f"List of national parks in {CITY}", (
            f"{CITY} has {len(self.national_parks)} national parks, listed here by the year "
            f"each was established.\n\n{rows}"
        )

    def _neighbourhood(self, n: Neighbourhood) -> tuple[str, str]:
        rank = self.by_population().index(n) + 1
        here = [
            p
            for p in self.city.places[: self.city.base_count]
            if self.city.district(p).id == n.place.id
        ][:4]
        natives = [p.name for p in self.people if p.hometown.id == n.place.id]
        natives += [d.name for d in self.directors if d.hometown.id == n.place.id]
        paras = [
            f"{n.name} is a neighbourhood of {CITY}, in the {n.compass} of the city, around the "
            f"corner of {n.place.address.split(',')[0].replace(' & ', ' and ')}. It was first "
            f"settled in {n.founded}.",
            f"{n.name} had {n.population:,} residents at the 2020 census, the {_ordinal(rank)} "
            f"most populous of the city's {len(self.neighbourhoods)} neighbourhoods.",
        ]
        if here:
            paras.append(f"Places in {n.name} include " + ", ".join(p.name for p in here) + ".")
        if natives:
            paras.append(f"People from {n.name}: " + ", ".join(natives) + ".")
        return n.name, "\n\n".join(paras)

    def _national_park(self, p: NationalPark) -> tuple[str, str]:
        hood = self.neighbourhood(p.place).name
        return p.place.name, (
            f"{p.place.name} is a national park in the {hood} neighbourhood of {CITY}, at "
            f"{p.place.address}. It was established in {p.established} to protect "
            f"{p.feature}."
        )

    def _team(self, t: Team) -> tuple[str, str]:
        text = (
            f"The {t.name} are a professional {t.sport} team based in {CITY}. Since {t.since} "
            f"the team has played its home games at {t.home.name} ({t.home.address})."
        )
        if t.former is not None and t.years is not None:
            text += (
                f"\n\nFrom {t.years[0]} to {t.years[1]} the {t.name.split()[-1]} played at "
                f"{t.former.name} ({t.former.address})."
            )
        return t.name, text

    def _stadium(self, p: Place) -> tuple[str, str]:
        tenants = [
            f"the {t.name} ({t.sport}) since {t.since}" for t in self.teams if t.home.id == p.id
        ]
        tenants += [
            f"the {t.name} ({t.sport}) from {t.years[0]} to {t.years[1]}"
            for t in self.teams
            if t.former is not None and t.former.id == p.id and t.years is not None
        ]
        hood = self.neighbourhood(p).name
        text = f"{p.name} is a sports venue at {p.address}, in the {hood} neighbourhood."
        if tenants:
            text += " It has been the home of " + "; ".join(tenants) + "."
        return p.name, text

    def _university(self, p: Place) -> tuple[str, str]:
        alumni = [q.name for q in self.people if q.college.id == p.id]
        faculty = [q for q in self.people if q.affiliation.id == p.id]
        text = f"{p.name} is a university at {p.address}, in the {self.neighbourhood(p).name} neighbourhood."
        if alumni:
            text += "\n\nUndergraduate alumni include " + ", ".join(alumni) + "."
        if faculty:
            text += (
                "\n\nPrize-winning faculty: "
                + ", ".join(f"{q.name} ({q.prize}, {q.prize_year})" for q in faculty)
                + "."
            )
        return p.name, text

    def _person(self, p: Person) -> tuple[str, str]:
        surname = p.name.split()[-1]
        return p.name, "\n\n".join(
            [
                f"{p.name} ({p.born}–{p.died}) was {_a(p.field)} from {CITY}, best known for "
                f"developing {p.known_for}.",
                f"{surname} was born at {p.birthplace.name} and grew up in the "
                f"{p.hometown.name} neighbourhood. {surname} took a bachelor's degree at "
                f"{p.college.name} and a doctorate at {p.graduate.name}.",
                f"From {p.prize_year - 12} {surname} taught at {p.affiliation.name}, and "
                f"received the {p.prize} in {p.prize_year}.",
            ]
        )

    def _prize(self, prize: Prize) -> tuple[str, str]:
        rows = "\n".join(
            f"* {p.prize_year}: {p.name} ({p.affiliation.name})" for p in prize.laureates
        )
        return prize.name, (
            f"The {prize.name} is awarded in {CITY} every few years. Laureates, with the "
            f"university they were at when they won it:\n\n{rows}"
        )

    def _director(self, d: Director) -> tuple[str, str]:
        paras = [
            f"{d.name} (born {d.born}) is a film director from the {d.hometown.name} "
            f"neighbourhood of {CITY}, who has shot every film in the city."
        ]
        for heading, text in d.eras:
            paras += [f"== {heading} ==", text]
        paras += [
            "== Filmography ==",
            "\n".join(f"* {f.title} ({f.year}, {f.genre})" for f in d.films),
            "== Awards ==",
            "\n".join(
                f"* {f.title}: "
                + (f"won the {AWARD}" if f.won else "")
                + (" and " if f.won and f.nominated else "")
                + (f"nominated for the {NOMINATION}" if f.nominated else "")
                for f in d.films
                if f.won or f.nominated
            )
            or "None yet.",
        ]
        return d.name, "\n\n".join(paras)

    def _film(self, f: Film) -> tuple[str, str]:
        hood = self.neighbourhood(f.location).name
        text = (
            f"{f.title} is a {f.year} {f.genre} directed by {f.director}. It was filmed at "
            f"{f.location.name} ({f.location.address}), in the {hood} neighbourhood of {CITY}."
        )
        if f.won:
            text += f"\n\nIt won the {AWARD}."
        elif f.nominated:
            text += f"\n\nIt was nominated for the {NOMINATION}."
        return f.title, text


def _kinds(c: City) -> list[str]:
    return sorted({p.category for p in c.places})


@functools.lru_cache(maxsize=1)
def city_world() -> CityWorld:
    """The city's encyclopedic facts (built once per process from :func:`.mapdata.city`)."""
    return CityWorld(city())
