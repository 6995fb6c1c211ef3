"""The map site's city: a generated street network (a :mod:`networkx` graph) and the places on
it, with routing by car, bike and foot from shortest paths on the graph.

The data API (what the map site shows, and what tasks can ask about)::

    from agentgym_envs.envs.webarena.sites.mapdata import city

    c = city()                       # built once per process from SEED (deterministic)
    c.places                         # list[Place]: name, category, address, lat, lon, node
    c.place("Harbor View Hotel")     # a Place by exact name (KeyError when unknown)
    c.search("cafe near Alder Park") # places matching a query, nearest first for "X near Y"
    c.nearest("cafe", c.place(...))  # places of a category, nearest first (straight line)
    r = c.route(a, b, "foot")        # Route: meters, seconds, street-by-street steps
    r.distance_text, r.time_text     # "1.4km" / "0:17" as the directions page shows them
    p.display_name, p.postcode       # "Name, 412 Oak Street, Alder Bay" (the directions form's
                                     # text for a found place), "15206"; p.phone, p.website,
                                     # p.opening_hours: "" where the map has no such tag
    c.graph                          # the networkx.DiGraph: nodes have lat/lon; edges have
                                     # length (m), name, kind and car (False: not for cars)

Modes and speeds: ``car`` drives on every street but not on footpaths or cycleways, only along
one-way streets' direction, at the street kind's speed; ``bike`` rides every street and cycleway
(not the motorway, not footpaths) at 16 km/h; ``foot`` walks everything but the motorway at
5 km/h. A route is the fastest path for its mode (Dijkstra over travel time, as OSRM's), and
its distance is that path's length. Engines as OpenStreetMap's directions form names them:
``fossgis_osrm_bike``, ``fossgis_osrm_car``, ``fossgis_osrm_foot``.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
import re
from dataclasses import dataclass, field, replace
from typing import Any

SEED = 0
CITY = "Alder Bay"
#: The city's centre (the grid spreads around it) and its grid size.
CENTER = (40.4410, -79.9590)
ROWS, COLS = 24, 28
SPACING_M = 190.0
MODES = ("car", "bike", "foot")
#: OpenStreetMap's engine ids, in its selector's order (index 1 is the car).
ENGINES = {"fossgis_osrm_bike": "bike", "fossgis_osrm_car": "car", "fossgis_osrm_foot": "foot"}
ENGINE_LABELS = {
    "fossgis_osrm_bike": "Bicycle (OSRM)",
    "fossgis_osrm_car": "Car (OSRM)",
    "fossgis_osrm_foot": "Foot (OSRM)",
}
#: km/h by street kind for cars.
CAR_SPEED = {"motorway": 90.0, "primary": 50.0, "secondary": 40.0, "residential": 30.0}
BIKE_SPEED = 16.0
FOOT_SPEED = 5.0

_STREET_WORDS = [
    "Oak",
    "Maple",
    "Cedar",
    "Birch",
    "Willow",
    "Aspen",
    "Chestnut",
    "Walnut",
    "Spruce",
    "Hemlock",
    "Juniper",
    "Laurel",
    "Magnolia",
    "Poplar",
    "Sycamore",
    "Alder",
    "Hawthorn",
    "Linden",
    "Cypress",
    "Elm",
    "Holly",
    "Hickory",
    "Beech",
    "Larch",
    "Rowan",
    "Sequoia",
    "Fairmount",
    "Liberty",
    "Penn",
    "Forbes",
    "Murray",
    "Darlington",
    "Beacon",
    "Shady",
    "Ellsworth",
    "Highland",
    "Negley",
    "Baum",
    "Centre",
    "Wylie",
    "Bigelow",
    "Craig",
    "Bellefield",
    "Dithridge",
    "Melwood",
    "Morewood",
    "Clyde",
    "Kirkwood",
]
_AVENUE_WORDS = [
    "Franklin",
    "Jefferson",
    "Madison",
    "Monroe",
    "Lincoln",
    "Grant",
    "Harrison",
    "Tyler",
    "Polk",
    "Pierce",
    "Fillmore",
    "Adams",
    "Hamilton",
    "Carnegie",
    "Frick",
    "Mellon",
    "Heinz",
    "Westinghouse",
    "Sumner",
    "Garfield",
    "Hayes",
    "Cleveland",
    "Arthur",
    "Taylor",
    "Wilson",
    "Hoover",
    "Coolidge",
    "Truman",
    "Kennedy",
    "Johnson",
]

#: category -> (name patterns, tag shown on the map). {L}: a surname, {S}: a street word,
#: {W}: a word of the category's own list.
_CATEGORIES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "restaurant": (
        ("{L}'s {W} Kitchen", "The {S} {W} House", "{W} Garden on {S}", "Casa {L}", "{L} & Sons"),
        (
            "Thai",
            "Italian",
            "Korean",
            "Mexican",
            "Ethiopian",
            "Greek",
            "Sichuan",
            "Lebanese",
            "Peruvian",
            "Vietnamese",
            "Indian",
            "Soul Food",
        ),
    ),
    "cafe": (
        ("{W} Coffee", "{S} Street Café", "The {W} Bean", "{L}'s Espresso Bar", "{W} Tea Room"),
        ("Daybreak", "Copper", "Ember", "Velvet", "Harbor", "Lantern", "Juniper", "Ridge"),
    ),
    "hotel": (
        ("{S} Inn", "Hotel {L}", "The {W} Suites", "{W} Lodge", "{S} Grand Hotel"),
        ("Riverside", "Summit", "Bayfront", "Parkview", "Crescent", "Heritage"),
    ),
    "museum": (
        ("{C} Museum of {W}", "The {L} Gallery", "{W} History Center", "{S} Art Museum"),
        ("Natural History", "Science", "Glass", "Industry", "Photography", "Rail", "Textiles"),
    ),
    "university": (
        ("{L} University", "{C} Institute of {W}", "{L} College", "{S} Technical College"),
        ("Technology", "Music", "Design", "Engineering", "Nursing", "Law"),
    ),
    "library": (
        ("{S} Branch Library", "{L} Memorial Library", "{C} Public Library ({W})"),
        ("North", "South", "East", "West", "Central"),
    ),
    "park": (
        ("{S} Park", "{L} Commons", "{W} Gardens", "{L} Playground"),
        ("Riverside", "Hilltop", "Meadow", "Orchard", "Lakeside", "Prairie"),
    ),
    "hospital": (
        ("{S} General Hospital", "{L} Medical Center", "{C} {W} Hospital"),
        ("Children's", "Veterans", "Women's", "Community"),
    ),
    "pharmacy": (
        ("{S} Pharmacy", "{L} Drugs", "{W} Apothecary"),
        ("Family", "Corner", "Main Line", "Healthway"),
    ),
    "supermarket": (
        ("{W} Market", "{L}'s Grocery", "{S} Food Co-op", "{W} Fresh"),
        ("Giant", "Greenleaf", "Harvest", "Daily", "Hometown"),
    ),
    "bank": (
        ("{C} {W} Bank", "{L} Savings", "{S} Credit Union"),
        ("First", "Citizens", "Mutual", "Keystone", "Allegheny"),
    ),
    "fuel": (
        ("{W} Gas on {S}", "{L} Fuel Stop", "{W} Service Station"),
        ("Speedy", "Sunoco", "Getgo", "Sheetz", "Citgo"),
    ),
    "school": (
        ("{S} Elementary School", "{L} Middle School", "{W} High School"),
        ("Central", "Northside", "Eastside", "Westwood", "Southview"),
    ),
    "bus_station": (
        ("{S} Transit Center", "{W} Bus Terminal", "{S} & {S2} Station"),
        ("Downtown", "Uptown", "Midtown", "Harbor"),
    ),
    "bar": (
        ("The {W} Tap", "{L}'s Pub", "{S} Brewing Company", "{W} Lounge"),
        ("Rusty", "Gilded", "Iron", "Copper", "Hidden", "Foggy"),
    ),
    "bakery": (
        ("{L}'s Bakery", "{W} Bread Co.", "{S} Patisserie"),
        ("Rise", "Crumb", "Golden", "Flour", "Sugar"),
    ),
    "cinema": (
        ("{S} Cinemas", "The {W} Theater", "{L} Playhouse"),
        ("Regent", "Bijou", "Majestic", "Orpheum"),
    ),
    "parking": (
        ("{S} Street Garage", "{W} Parking Lot", "{L} Park & Ride"),
        ("North", "South", "Visitor", "Public"),
    ),
}
#: How many places of each category the city has.
_COUNTS = {
    "restaurant": 70,
    "cafe": 36,
    "hotel": 20,
    "museum": 12,
    "university": 8,
    "library": 10,
    "park": 18,
    "hospital": 7,
    "pharmacy": 14,
    "supermarket": 14,
    "bank": 14,
    "fuel": 12,
    "school": 16,
    "bus_station": 10,
    "bar": 24,
    "bakery": 12,
    "cinema": 6,
    "parking": 14,
}
#: Words a search can use for a category (plural and synonyms).
SYNONYMS = {
    "restaurant": ("restaurant", "restaurants", "food", "dining"),
    "cafe": ("cafe", "cafes", "café", "coffee", "coffee shop", "coffee shops"),
    "hotel": ("hotel", "hotels", "inn", "lodging"),
    "museum": ("museum", "museums", "gallery"),
    "university": ("university", "universities", "college", "colleges"),
    "library": ("library", "libraries"),
    "park": ("park", "parks"),
    "hospital": ("hospital", "hospitals", "medical center"),
    "pharmacy": ("pharmacy", "pharmacies", "drugstore"),
    "supermarket": ("supermarket", "supermarkets", "grocery", "groceries"),
    "bank": ("bank", "banks", "atm"),
    "fuel": ("gas station", "gas stations", "fuel", "petrol"),
    "school": ("school", "schools"),
    "bus_station": ("bus station", "bus stations", "bus stop", "transit"),
    "bar": ("bar", "bars", "pub", "pubs"),
    "bakery": ("bakery", "bakeries"),
    "cinema": ("cinema", "cinemas", "movie theater", "theater"),
    "parking": ("parking", "parking lot", "garage"),
    "neighbourhood": ("neighbourhood", "neighbourhoods", "neighborhood", "neighborhoods"),
    "national_park": ("national park", "national parks"),
    "stadium": ("stadium", "stadiums", "arena", "sports venue"),
}
#: Kinds of place added after the others (:meth:`City._make_landmarks`): the wiki writes
#: about them (:mod:`.citywiki`).
LANDMARKS = ("neighbourhood", "national_park", "stadium")
#: The city's districts (rows x columns of the grid), one neighbourhood each.
_DISTRICTS = (3, 4)
_NEIGHBOURHOODS = [
    "Ridgemont",
    "Northgate",
    "Harborside",
    "Millbrook",
    "Eastvale",
    "Stonefield",
    "Brightwater",
    "Kestrel Hill",
    "Oakhurst",
    "Fernwood",
    "Lindenmoor",
    "Cobble Row",
]
_NATIONAL_PARKS = [
    "Kestrel Ridge National Park",
    "Old Foundry National Park",
    "Canal Locks National Park",
    "Bluestone Bluffs National Park",
    "Heron Marsh National Park",
    "Lantern Point National Park",
]


def _stadium_names(rng: random.Random) -> list[str]:
    """Five stadiums: four teams' homes and the municipal stadium two of them left."""
    from agentgym_envs.names import LAST_NAMES

    first, second = rng.sample(LAST_NAMES, 2)
    return [
        f"{first} Field",
        "Bayfront Stadium",
        f"{second} Arena",
        "Riverbend Ice Center",
        "Alder Bay Municipal Stadium",
    ]


@dataclass(frozen=True)
class Place:
    """A named point of interest at a street address (its ``node`` is the nearest corner)."""

    id: int
    name: str
    category: str
    address: str
    lat: float
    lon: float
    node: int
    postcode: str = ""
    phone: str = ""
    website: str = ""
    opening_hours: str = ""

    @property
    def display_name(self) -> str:
        """The name and street address, as the directions form shows a place it found."""
        return f"{self.name}, {self.address}"

    @property
    def coords(self) -> str:
        """``lat,lon`` with OpenStreetMap's precision (used in directions URLs)."""
        return f"{self.lat:.5f},{self.lon:.5f}"


@dataclass(frozen=True)
class Route:
    """The fastest path for a mode: meters, seconds, the graph nodes and the streets' steps."""

    mode: str
    meters: float
    seconds: float
    nodes: tuple[int, ...]
    steps: tuple[tuple[str, float], ...] = field(default=())

    @property
    def distance_text(self) -> str:
        """OpenStreetMap's wording: ``850m`` under a kilometre, else ``1.4km``."""
        return format_distance(self.meters)

    @property
    def time_text(self) -> str:
        """``h:mm`` (minutes rounded to the nearest)."""
        return format_time(self.seconds)


def format_distance(meters: float) -> str:
    return f"{round(meters)}m" if meters < 1000 else f"{meters / 1000:.1f}km"


def format_time(seconds: float) -> str:
    minutes = round(seconds / 60)
    return f"{minutes // 60}:{minutes % 60:02d}"


def haversine(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Meters between two points on the sphere."""
    r = 6371000.0
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * r * math.asin(math.sqrt(a))


def travel_seconds(edge: dict[str, Any], mode: str) -> float | None:
    """Seconds to travel one edge by ``mode``; None where the mode may not use it."""
    kind = edge["kind"]
    if mode == "car":
        if kind in ("footway", "cycleway") or not edge["car"]:
            return None
        speed = CAR_SPEED[kind]
    elif mode == "bike":
        if kind in ("motorway", "footway"):
            return None
        speed = BIKE_SPEED
    elif mode == "foot":
        if kind == "motorway":
            return None
        speed = FOOT_SPEED
    else:
        raise ValueError(f"unknown mode {mode!r}: use one of {', '.join(MODES)}")
    return edge["length"] / (speed / 3.6)


class City:
    """The generated city (use :func:`city`)."""

    def __init__(self, seed: int = SEED) -> None:
        import networkx as nx

        rng = random.Random(seed)
        self.name = CITY
        self.graph: Any = nx.DiGraph()
        dlat = SPACING_M / 111_320.0
        dlon = SPACING_M / (111_320.0 * math.cos(math.radians(CENTER[0])))
        streets = rng.sample(_STREET_WORDS, ROWS)
        avenues = rng.sample(_AVENUE_WORDS, min(COLS, len(_AVENUE_WORDS)))
        avenues += [f"{w} {n}" for n, w in enumerate(_AVENUE_WORDS[: COLS - len(avenues)], 2)]
        self.street_names = [f"{w} Street" for w in streets]
        self.avenue_names = [f"{w} Avenue" for w in avenues]
        for r in range(ROWS):
            for c in range(COLS):
                lat = CENTER[0] + (r - ROWS / 2) * dlat + rng.uniform(-0.18, 0.18) * dlat
                lon = CENTER[1] + (c - COLS / 2) * dlon + rng.uniform(-0.18, 0.18) * dlon
                self.graph.add_node(r * COLS + c, lat=round(lat, 6), lon=round(lon, 6))
        primary_rows = {ROWS // 2, 4, ROWS - 5}
        primary_cols = {COLS // 2, 5, COLS - 6}
        for r in range(ROWS):
            for c in range(COLS - 1):  # streets run east-west
                kind = (
                    "primary" if r in primary_rows else "secondary" if r % 4 == 0 else "residential"
                )
                if kind == "residential" and rng.random() < 0.07:
                    kind = "footway"
                oneway = kind == "residential" and r % 3 == 1
                self._road(
                    r * COLS + c, r * COLS + c + 1, self.street_names[r], kind, oneway, r % 2 == 0
                )
        for c in range(COLS):
            for r in range(ROWS - 1):  # avenues run north-south
                kind = (
                    "primary" if c in primary_cols else "secondary" if c % 5 == 0 else "residential"
                )
                if kind == "residential" and rng.random() < 0.06:
                    kind = "cycleway"
                oneway = kind == "residential" and c % 4 == 2
                self._road(
                    r * COLS + c, (r + 1) * COLS + c, self.avenue_names[c], kind, oneway, c % 2 == 0
                )
        # A motorway on a diagonal, with ramps every few blocks: fast for cars only.
        previous = None
        for k in range(min(ROWS, COLS)):
            node = k * COLS + k
            if previous is not None:
                self._road(previous, node, "Parkway East (I-376)", "motorway", False, True, 1.0)
            previous = node
        # Footpaths across the parks' diagonals (walkers and cyclists cut corners there).
        for _ in range(60):
            r, c = rng.randrange(ROWS - 1), rng.randrange(COLS - 1)
            a, b = r * COLS + c, (r + 1) * COLS + c + 1
            if not self.graph.has_edge(a, b):
                self._road(a, b, "Footpath", "footway", False, True)
        self.places = [_with_tags(p, seed) for p in self._make_places(rng)]
        #: Places before the landmarks (the home page and the map tasks' anchors are drawn
        #: from these, so adding landmarks moved none of them).
        self.base_count = len(self.places)
        self.places += [
            _with_tags(p, seed) if p.category != "neighbourhood" else p
            for p in self._make_landmarks(seed)
        ]
        self._by_name = {p.name.lower(): p for p in self.places}
        self._by_id = {p.id: p for p in self.places}

    def _road(
        self, a: int, b: int, name: str, kind: str, oneway: bool, forward: bool, scale: float = 1.0
    ) -> None:
        na, nb = self.graph.nodes[a], self.graph.nodes[b]
        length = round(haversine(na["lat"], na["lon"], nb["lat"], nb["lon"]) * scale, 1)
        if not forward:
            a, b = b, a
        self.graph.add_edge(a, b, length=length, name=name, kind=kind, car=True)
        self.graph.add_edge(b, a, length=length, name=name, kind=kind, car=not oneway)

    def _make_places(self, rng: random.Random) -> list[Place]:
        from agentgym_envs.names import LAST_NAMES

        places: list[Place] = []
        used: set[str] = set()
        nodes = list(self.graph.nodes)
        for category, count in _COUNTS.items():
            patterns, words = _CATEGORIES[category]
            made = 0
            while made < count:
                node = rng.choice(nodes)
                r, c = divmod(node, COLS)
                on_street = rng.random() < 0.5
                street = self.street_names[r] if on_street else self.avenue_names[c]
                name = rng.choice(patterns).format(
                    L=rng.choice(LAST_NAMES),
                    S=street.rsplit(" ", 1)[0],
                    S2=self.avenue_names[c].rsplit(" ", 1)[0],
                    W=rng.choice(words),
                    C=CITY,
                )
                if name.lower() in used:
                    continue
                used.add(name.lower())
                data = self.graph.nodes[node]
                number = (c if on_street else r) * 100 + rng.randrange(2, 98)
                places.append(
                    Place(
                        id=len(places) + 1,
                        name=name,
                        category=category,
                        address=f"{number} {street}, {CITY}",
                        lat=round(data["lat"] + rng.uniform(-4e-4, 4e-4), 5),
                        lon=round(data["lon"] + rng.uniform(-4e-4, 4e-4), 5),
                        node=node,
                    )
                )
                made += 1
        return places

    def _make_landmarks(self, seed: int) -> list[Place]:
        """The neighbourhoods (a place node at each district's middle corner), the national
        parks and the stadiums, from a generator of their own (the places before them do not
        change); each is at least 60 m from every other place."""
        rng = random.Random(f"{seed}-landmarks")
        made: list[Place] = []
        names = rng.sample(_NEIGHBOURHOODS, len(_NEIGHBOURHOODS))
        rows, cols = ROWS // _DISTRICTS[0], COLS // _DISTRICTS[1]
        for k in range(_DISTRICTS[0] * _DISTRICTS[1]):
            r0, c0 = divmod(k, _DISTRICTS[1])
            r, c = r0 * rows + rows // 2, c0 * cols + cols // 2
            corner = f"{self.street_names[r]} & {self.avenue_names[c]}"
            made.append(self._landmark(len(made), names[k], "neighbourhood", r, c, corner))
        wanted = [(w, "national_park") for w in rng.sample(_NATIONAL_PARKS, 4)]
        wanted += [(w, "stadium") for w in _stadium_names(rng)]
        quadrant = 0
        for name, category in wanted:
            while True:
                # national parks: one in each quadrant of the city, away from its edge
                half_r, half_c = (
                    divmod(quadrant % 4, 2)
                    if category == "national_park"
                    else (
                        rng.randrange(2),
                        rng.randrange(2),
                    )
                )
                r = half_r * (ROWS // 2) + rng.randrange(2, ROWS // 2 - 2)
                c = half_c * (COLS // 2) + rng.randrange(2, COLS // 2 - 2)
                on_street = rng.random() < 0.5
                road = self.street_names[r] if on_street else self.avenue_names[c]
                number = (c if on_street else r) * 100 + rng.randrange(2, 98)
                place = self._landmark(
                    len(made), name, category, r, c, f"{number} {road}", rng.uniform(-3e-4, 3e-4)
                )
                if all(
                    haversine(place.lat, place.lon, p.lat, p.lon) > 60
                    for p in [*self.places, *made]
                ):
                    made.append(place)
                    quadrant += category == "national_park"
                    break
        return made

    def _landmark(
        self, k: int, name: str, category: str, r: int, c: int, street: str, jitter: float = 0.0
    ) -> Place:
        node = r * COLS + c
        data = self.graph.nodes[node]
        return Place(
            id=len(self.places) + k + 1,
            name=name,
            category=category,
            address=f"{street}, {CITY}",
            lat=round(data["lat"] + jitter, 5),
            lon=round(data["lon"] - jitter, 5),
            node=node,
        )

    def home_places(self) -> list[Place]:
        """The twelve places the home page lists (spread over the places before the
        landmarks)."""
        base = self.places[: self.base_count]
        return base[:: max(1, len(base) // 12)][:12]

    def district(self, place: Place) -> Place:
        """The neighbourhood a place is in (its node's district)."""
        r, c = divmod(place.node, COLS)
        rows, cols = ROWS // _DISTRICTS[0], COLS // _DISTRICTS[1]
        k = min(r // rows, _DISTRICTS[0] - 1) * _DISTRICTS[1] + min(c // cols, _DISTRICTS[1] - 1)
        return [p for p in self.places if p.category == "neighbourhood"][k]

    # -- look-ups ---------------------------------------------------------------------
    def place(self, name: str) -> Place:
        """The place named ``name`` (case-insensitive)."""
        return self._by_name[name.strip().lower()]

    def place_by_id(self, place_id: int) -> Place:
        return self._by_id[place_id]

    def category_of(self, words: str) -> str | None:
        """The category a search word names (``"coffee shops"`` -> ``cafe``), else None."""
        words = words.strip().lower()
        for category, names in SYNONYMS.items():
            if words in names or words == category:
                return category
        return None

    def at(self, coords: str) -> Place | None:
        """The place at ``lat,lon`` (within 15 m), else None."""
        try:
            lat, lon = (float(v) for v in coords.split(","))
        except ValueError:
            return None
        best = min(self.places, key=lambda p: haversine(lat, lon, p.lat, p.lon))
        return best if haversine(lat, lon, best.lat, best.lon) < 15 else None

    def nearest(self, category: str, to: Place, k: int | None = None) -> list[Place]:
        """Places of ``category`` nearest ``to`` first (straight-line distance)."""
        found = [p for p in self.places if p.category == category and p.id != to.id]
        found.sort(key=lambda p: (haversine(to.lat, to.lon, p.lat, p.lon), p.id))
        return found[:k] if k is not None else found

    def search(self, query: str) -> list[Place]:
        """Places for a search box query: ``"<category> near <place>"`` gives that category
        by distance; a category word gives its places by name; other text matches names and
        addresses (every word must occur)."""
        query = " ".join(query.split())
        near = re.match(r"^(.*?)\s+(?:near|around|close to)\s+(.+)$", query, re.IGNORECASE)
        if near:
            category = self.category_of(near.group(1))
            anchor = self._by_name.get(near.group(2).strip().lower())
            if anchor is None:
                hits = self.search(near.group(2))
                anchor = hits[0] if hits else None
            if anchor is None:
                return []
            if category is not None:
                return self.nearest(category, anchor, 20)
            return [p for p in self.search(near.group(1)) if p.id != anchor.id]
        exact = self._by_name.get(query.lower())
        if exact is not None:
            return [exact]
        category = self.category_of(query)
        if category is not None:
            return sorted((p for p in self.places if p.category == category), key=lambda p: p.name)
        words = [w for w in re.split(r"[^\w']+", query.lower()) if w]
        if not words:
            return []
        return [
            p
            for p in self.places
            if all(w in f"{p.name} {p.address} {p.category}".lower() for w in words)
        ]

    # -- routing ----------------------------------------------------------------------
    def route(self, a: Place | str, b: Place | str, mode: str = "car") -> Route:
        """The fastest route from ``a`` to ``b`` (places or names) by ``mode``."""
        import networkx as nx

        a = self.place(a) if isinstance(a, str) else a
        b = self.place(b) if isinstance(b, str) else b
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}: use one of {', '.join(MODES)}")

        def weight(u: int, v: int, edge: dict[str, Any]) -> float | None:
            return travel_seconds(edge, mode)

        nodes = nx.dijkstra_path(self.graph, a.node, b.node, weight=weight)
        meters = seconds = 0.0
        steps: list[tuple[str, float]] = []
        for u, v in itertools.pairwise(nodes):
            edge = self.graph.edges[u, v]
            meters += edge["length"]
            seconds += travel_seconds(edge, mode) or 0.0
            if steps and steps[-1][0] == edge["name"]:
                steps[-1] = (edge["name"], steps[-1][1] + edge["length"])
            else:
                steps.append((edge["name"], edge["length"]))
        return Route(mode, round(meters, 1), round(seconds, 1), tuple(nodes), tuple(steps))


#: Opening hours are made of a days pattern, an opening and a closing time (OSM's syntax).
_DAYS = ("Mo-Fr", "Mo-Sa", "Mo-Su", "Tu-Su", "We-Su", "Tu-Sa", "Th-Mo")
_OPENS = ("06:30", "07:00", "07:30", "08:00", "09:00", "10:00", "11:00", "11:30")
_CLOSES = ("14:00", "15:30", "17:00", "18:00", "19:30", "21:00", "22:00", "23:30")


def _with_tags(place: Place, seed: int) -> Place:
    """The place with its postcode (from its 4 x 4 block of the grid: 42 postcodes) and, for
    some places, a phone number, a website and opening hours (from a generator of its own, so
    the places' names and positions do not depend on these tags)."""
    rng = random.Random(f"{seed}-tags-{place.id}")
    r, c = divmod(place.node, COLS)
    slug = re.sub(r"[^a-z0-9]+", "", place.name.lower())[:24]
    return replace(
        place,
        postcode=f"152{1 + (r // 4) * 7 + c // 4:02d}",
        phone=f"412{rng.randrange(2000000, 9999999)}" if rng.random() < 0.6 else "",
        website=f"https://www.{slug}.example.org/" if rng.random() < 0.5 else "",
        opening_hours=(
            f"{rng.choice(_DAYS)} {rng.choice(_OPENS)}-{rng.choice(_CLOSES)}"
            if rng.random() < 0.5
            else ""
        ),
    )


@functools.lru_cache(maxsize=2)
def city(seed: int = SEED) -> City:
    """The city for ``seed`` (built once per process; the same seed gives the same city)."""
    from agentgym_envs.errors import require

    require("networkx", "webarena")
    return City(seed)
