"""An airline network: airports, airlines, aircraft, routes, scheduled flights, passengers, bookings."""

from __future__ import annotations

import datetime as dt
import random
import sqlite3

from agentgym_envs.envs.sql.databases.spec import DatabaseSpec, Template
from agentgym_envs.envs.sql.databases.words import iso, maybe, person

DDL = """
CREATE TABLE airports (
    code TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    city TEXT NOT NULL,
    country TEXT NOT NULL,
    elev_ft INTEGER
);
CREATE TABLE airlines (
    airline_id INTEGER PRIMARY KEY,
    iata TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL UNIQUE,
    country TEXT NOT NULL
);
CREATE TABLE aircraft (
    tail_no TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    seats INTEGER NOT NULL,
    airline_id INTEGER NOT NULL REFERENCES airlines (airline_id),
    built_yr INTEGER NOT NULL
);
CREATE TABLE routes (
    route_id INTEGER PRIMARY KEY,
    airline_id INTEGER NOT NULL REFERENCES airlines (airline_id),
    origin TEXT NOT NULL REFERENCES airports (code),
    dest TEXT NOT NULL REFERENCES airports (code),
    dist_km INTEGER NOT NULL,
    UNIQUE (origin, dest)
);
CREATE TABLE flights (
    flight_id INTEGER PRIMARY KEY,
    route_id INTEGER NOT NULL REFERENCES routes (route_id),
    flight_no TEXT NOT NULL,
    tail_no TEXT NOT NULL REFERENCES aircraft (tail_no),
    sched_dep TEXT NOT NULL,
    sched_arr TEXT NOT NULL,
    act_dep TEXT,
    act_arr TEXT,
    status TEXT NOT NULL
);
CREATE TABLE passengers (
    pax_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    nationality TEXT NOT NULL,
    ff_tier TEXT
);
CREATE TABLE bookings (
    booking_id INTEGER PRIMARY KEY,
    flight_id INTEGER NOT NULL REFERENCES flights (flight_id),
    pax_id INTEGER NOT NULL REFERENCES passengers (pax_id),
    fare_class TEXT NOT NULL,
    fare_usd REAL NOT NULL,
    booked_on TEXT NOT NULL,
    seat TEXT
);
CREATE INDEX ix_routes_airline ON routes (airline_id);
CREATE INDEX ix_flights_route ON flights (route_id);
CREATE INDEX ix_flights_number ON flights (flight_no);
CREATE INDEX ix_bookings_flight ON bookings (flight_id);
CREATE INDEX ix_bookings_pax ON bookings (pax_id);
"""

AIRPORTS = [
    ("LHR", "Heathrow", "London", "United Kingdom", 83),
    ("CDG", "Charles de Gaulle", "Paris", "France", 392),
    ("FRA", "Frankfurt Main", "Frankfurt", "Germany", 364),
    ("AMS", "Schiphol", "Amsterdam", "Netherlands", -11),
    ("MAD", "Barajas", "Madrid", "Spain", 1998),
    ("FCO", "Fiumicino", "Rome", "Italy", 13),
    ("JFK", "John F. Kennedy", "New York", "USA", 13),
    ("ORD", "O'Hare", "Chicago", "USA", 672),
    ("LAX", "Los Angeles International", "Los Angeles", "USA", 125),
    ("DXB", "Dubai International", "Dubai", "United Arab Emirates", 62),
    ("SIN", "Changi", "Singapore", "Singapore", 22),
    ("HND", "Haneda", "Tokyo", "Japan", 21),
    ("SYD", "Kingsford Smith", "Sydney", "Australia", 21),
    ("YYZ", "Pearson", "Toronto", "Canada", 569),
    ("GRU", "Guarulhos", "Sao Paulo", "Brazil", 2459),
    ("IST", "Istanbul Airport", "Istanbul", "Turkey", 325),
    ("DUB", "Dublin Airport", "Dublin", "Ireland", 242),
    ("CPH", "Kastrup", "Copenhagen", "Denmark", 17),
]
COORDS = {
    "LHR": (51.47, -0.45),
    "CDG": (49.01, 2.55),
    "FRA": (50.03, 8.57),
    "AMS": (52.31, 4.76),
    "MAD": (40.47, -3.56),
    "FCO": (41.80, 12.25),
    "JFK": (40.64, -73.78),
    "ORD": (41.98, -87.90),
    "LAX": (33.94, -118.41),
    "DXB": (25.25, 55.36),
    "SIN": (1.36, 103.99),
    "HND": (35.55, 139.78),
    "SYD": (-33.95, 151.18),
    "YYZ": (43.68, -79.63),
    "GRU": (-23.44, -46.47),
    "IST": (41.26, 28.74),
    "DUB": (53.42, -6.27),
    "CPH": (55.62, 12.65),
}
AIRLINES = [
    ("SK", "Skyward Air", "Denmark"),
    ("BA", "Blue Atlantic", "United Kingdom"),
    ("EU", "Eurolink", "Germany"),
    ("PC", "Pacific Crest", "Japan"),
    ("AM", "Americana", "USA"),
    ("GS", "Gulf Star", "United Arab Emirates"),
    ("SC", "Southern Cross Air", "Australia"),
]
MODELS = [
    ("A320", 180),
    ("A321", 220),
    ("B737-800", 189),
    ("B787-9", 290),
    ("A350-900", 325),
    ("B777-300ER", 396),
    ("E190", 100),
]
NATIONS = ["GB", "US", "DE", "FR", "JP", "AU", "BR", "IN", "CA", "NL", "ES", "IT", "AE", "DK"]


def _km(a: str, b: str) -> int:
    import math

    (la1, lo1), (la2, lo2) = COORDS[a], COORDS[b]
    p1, p2, dl = math.radians(la1), math.radians(la2), math.radians(lo2 - lo1)
    c = math.sin(p1) * math.sin(p2) + math.cos(p1) * math.cos(p2) * math.cos(dl)
    return round(6371 * math.acos(max(-1.0, min(1.0, c))))


def populate(con: sqlite3.Connection, rng: random.Random) -> None:
    con.executemany(
        "INSERT INTO airports VALUES (?, ?, ?, ?, ?)",
        [(c, n, ci, co, maybe(rng, e, 0.1)) for c, n, ci, co, e in AIRPORTS],
    )
    con.executemany(
        "INSERT INTO airlines VALUES (?, ?, ?, ?)", [(i + 1, *a) for i, a in enumerate(AIRLINES)]
    )
    aircraft = []
    for aid in range(1, len(AIRLINES) + 1):
        for _ in range(rng.randint(6, 10)):
            model, seats = rng.choice(MODELS)
            tail = f"{AIRLINES[aid - 1][0]}-{rng.choice('ABCDEFGHJKLMNPRSTUVWXYZ')}{len(aircraft) + 100:03d}"
            aircraft.append(
                (tail, model, seats + rng.choice([-12, 0, 0, 8]), aid, rng.randint(2003, 2023))
            )
    con.executemany("INSERT INTO aircraft VALUES (?, ?, ?, ?, ?)", aircraft)
    fleet = {aid: [a for a in aircraft if a[3] == aid] for aid in range(1, len(AIRLINES) + 1)}
    codes = [a[0] for a in AIRPORTS]
    pairs = [(o, d) for o in codes for d in codes if o != d]
    rng.shuffle(pairs)
    routes = [
        (i + 1, rng.randint(1, len(AIRLINES)), o, d, _km(o, d))
        for i, (o, d) in enumerate(pairs[:110])
    ]
    con.executemany("INSERT INTO routes VALUES (?, ?, ?, ?, ?)", routes)
    flights, departs = [], []
    for r in routes:
        number = f"{AIRLINES[r[1] - 1][0]}{rng.randint(10, 999)}"
        hours = r[4] / 820 + 0.5
        dep_time = rng.randint(6, 22) * 60 + rng.choice([0, 15, 30, 45])
        for d in range(0, 366, rng.choice([4, 5, 7, 7])):
            sched = dt.datetime(2023, 1, 1) + dt.timedelta(days=d, minutes=dep_time)
            arr = sched + dt.timedelta(minutes=int(hours * 60))
            status = rng.choices(["landed", "cancelled", "diverted"], weights=[94, 5, 1])[0]
            delay = int(rng.expovariate(1 / 18)) - 5 if status != "cancelled" else None
            act_dep = sched + dt.timedelta(minutes=delay) if delay is not None else None
            act_arr = (
                arr + dt.timedelta(minutes=delay + rng.randint(-15, 20))
                if delay is not None and status == "landed"
                else None
            )
            flights.append(
                (
                    len(flights) + 1,
                    r[0],
                    number,
                    rng.choice(fleet[r[1]])[0],
                    iso(sched),
                    iso(arr),
                    iso(act_dep),
                    iso(act_arr),
                    status,
                )
            )
            departs.append(sched.date())
    con.executemany("INSERT INTO flights VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", flights)
    pax = []
    for pid in range(1, 2501):
        first, last = person(rng)
        pax.append(
            (
                pid,
                first,
                last,
                rng.choice(NATIONS),
                maybe(rng, rng.choice(["silver", "gold", "platinum"]), 0.7),
            )
        )
    con.executemany("INSERT INTO passengers VALUES (?, ?, ?, ?, ?)", pax)
    bookings = []
    fare = {"Y": 0.09, "W": 0.16, "J": 0.38, "F": 0.75}
    for p in pax:
        for _ in range(rng.choice([1, 1, 2, 2, 3, 4, 5])):
            k = rng.randrange(len(flights))
            f = flights[k]
            km = routes[f[1] - 1][4]
            cls = rng.choices("YWJF", weights=[75, 12, 10, 3])[0]
            booked = departs[k] - dt.timedelta(days=rng.randint(1, 120))
            seat = maybe(rng, f"{rng.randint(1, 45)}{rng.choice('ABCDEF')}", 0.15)
            bookings.append(
                (
                    len(bookings) + 1,
                    f[0],
                    p[0],
                    cls,
                    round(km * fare[cls] * rng.uniform(0.7, 1.4) + 40, 2),
                    iso(booked),
                    seat,
                )
            )
    con.executemany("INSERT INTO bookings VALUES (?, ?, ?, ?, ?, ?, ?)", bookings)


NAMED_PAX = "SELECT first_name AS first, last_name AS last FROM passengers GROUP BY first_name, last_name HAVING COUNT(*) = 1"
AIRLINE_MONTH = "SELECT a.name AS airline, m.month AS month FROM airlines a, (SELECT DISTINCT strftime('%Y-%m', sched_dep) AS month FROM flights) m"
DELAY = "(julianday(f.act_arr) - julianday(f.sched_arr)) * 24 * 60"

TEMPLATES = (
    Template(
        "cancelled_from_airport",
        "simple",
        "SELECT ap.code AS code, m.month AS month FROM airports ap, (SELECT DISTINCT strftime('%Y-%m', sched_dep) AS month FROM flights) m",
        "How many flights departing from {code} were cancelled in {month}?",
        "departing from {code} refers to routes.origin = '{code}'; in {month} refers to strftime('%Y-%m', sched_dep) = '{month}'",
        "SELECT COUNT(*) FROM flights AS f JOIN routes AS r ON f.route_id = r.route_id WHERE r.origin = '{code}' "
        "AND f.status = 'cancelled' AND strftime('%Y-%m', f.sched_dep) = '{month}'",
    ),
    Template(
        "route_distance",
        "simple",
        "SELECT o.city AS ocity, d.city AS dcity FROM routes r JOIN airports o ON r.origin = o.code JOIN airports d ON r.dest = d.code",
        "What is the distance in kilometres of the route from {ocity} to {dcity}, and which airline flies it?",
        "",
        "SELECT r.dist_km, al.name FROM routes AS r JOIN airports AS o ON r.origin = o.code JOIN airports AS d ON r.dest = d.code "
        "JOIN airlines AS al ON r.airline_id = al.airline_id WHERE o.city = '{ocity}' AND d.city = '{dcity}'",
    ),
    Template(
        "oldest_aircraft",
        "simple",
        "SELECT a.name AS airline, m.model AS model FROM airlines a JOIN aircraft m ON m.airline_id = a.airline_id GROUP BY a.airline_id, m.model",
        "Which {model} aircraft of {airline} is the oldest? Give its tail number and build year.",
        "oldest refers to MIN(built_yr)",
        "SELECT ac.tail_no, ac.built_yr FROM aircraft AS ac JOIN airlines AS a ON ac.airline_id = a.airline_id "
        "WHERE a.name = '{airline}' AND ac.model = '{model}' ORDER BY ac.built_yr LIMIT 1",
        top=1,
        keys="SELECT ac.built_yr FROM aircraft AS ac JOIN airlines AS a ON ac.airline_id = a.airline_id "
        "WHERE a.name = '{airline}' AND ac.model = '{model}' ORDER BY ac.built_yr",
    ),
    Template(
        "business_bookings",
        "moderate",
        "SELECT n.nat AS nat, ap.city AS city FROM (SELECT DISTINCT nationality AS nat FROM passengers) n, airports ap",
        "How many business class bookings were made by passengers of nationality {nat} on flights departing from {city}?",
        "business class refers to fare_class = 'J'; nationality {nat} refers to nationality = '{nat}'",
        "SELECT COUNT(*) FROM bookings AS b JOIN passengers AS p ON b.pax_id = p.pax_id JOIN flights AS f ON b.flight_id = f.flight_id "
        "JOIN routes AS r ON f.route_id = r.route_id JOIN airports AS ap ON r.origin = ap.code "
        "WHERE p.nationality = '{nat}' AND b.fare_class = 'J' AND ap.city = '{city}'",
    ),
    Template(
        "top_route",
        "moderate",
        "SELECT name AS airline FROM airlines",
        "Which route of {airline} had the most bookings? Give the origin and destination airport codes and the number of bookings.",
        "route refers to routes.origin and routes.dest",
        "SELECT r.origin, r.dest, COUNT(*) AS n FROM bookings AS b JOIN flights AS f ON b.flight_id = f.flight_id "
        "JOIN routes AS r ON f.route_id = r.route_id JOIN airlines AS a ON r.airline_id = a.airline_id WHERE a.name = '{airline}' "
        "GROUP BY r.route_id ORDER BY n DESC LIMIT 1",
        top=1,
        keys="SELECT COUNT(*) AS n FROM bookings AS b JOIN flights AS f ON b.flight_id = f.flight_id JOIN routes AS r "
        "ON f.route_id = r.route_id JOIN airlines AS a ON r.airline_id = a.airline_id WHERE a.name = '{airline}' GROUP BY r.route_id ORDER BY n DESC",
    ),
    Template(
        "flight_revenue",
        "moderate",
        "SELECT f.flight_no AS no, date(f.sched_dep) AS day FROM flights f JOIN bookings b ON b.flight_id = f.flight_id GROUP BY f.flight_id",
        "What was the total fare revenue of flight {no} scheduled to depart on {day}? Round to two decimals.",
        "total fare revenue refers to SUM(fare_usd); departing on {day} refers to date(sched_dep) = '{day}'",
        "SELECT ROUND(SUM(b.fare_usd), 2) FROM bookings AS b JOIN flights AS f ON b.flight_id = f.flight_id "
        "WHERE f.flight_no = '{no}' AND date(f.sched_dep) = '{day}'",
    ),
    Template(
        "late_arrival_share",
        "challenging",
        AIRLINE_MONTH,
        "What percentage of {airline}'s landed flights scheduled in {month} arrived more than 15 minutes late? Round to two decimals.",
        "landed refers to status = 'landed'; minutes late = (julianday(act_arr) - julianday(sched_arr)) * 24 * 60; "
        "in {month} refers to strftime('%Y-%m', sched_dep) = '{month}'",
        f"SELECT ROUND(100.0 * SUM(CASE WHEN {DELAY} > 15 THEN 1 ELSE 0 END) / COUNT(*), 2) FROM flights AS f "
        "JOIN routes AS r ON f.route_id = r.route_id JOIN airlines AS a ON r.airline_id = a.airline_id "
        "WHERE a.name = '{airline}' AND f.status = 'landed' AND strftime('%Y-%m', f.sched_dep) = '{month}'",
    ),
    Template(
        "avg_departure_delay",
        "challenging",
        "SELECT ap.code AS code, m.month AS month FROM airports ap, (SELECT DISTINCT strftime('%Y-%m', sched_dep) AS month FROM flights) m",
        "What was the average departure delay, in minutes, of the flights that left {code} in {month}? Round to one decimal.",
        "departure delay = (julianday(act_dep) - julianday(sched_dep)) * 24 * 60; flights that left refers to act_dep IS NOT NULL",
        "SELECT ROUND(AVG((julianday(f.act_dep) - julianday(f.sched_dep)) * 24 * 60), 1) FROM flights AS f JOIN routes AS r "
        "ON f.route_id = r.route_id WHERE r.origin = '{code}' AND f.act_dep IS NOT NULL AND strftime('%Y-%m', f.sched_dep) = '{month}'",
    ),
    Template(
        "passenger_itinerary",
        "challenging",
        NAMED_PAX,
        "List the trips of the passenger {first} {last} in chronological order: the flight number, origin and destination of each.",
        "chronological order refers to ORDER BY sched_dep",
        "SELECT f.flight_no, r.origin, r.dest FROM bookings AS b JOIN passengers AS p ON b.pax_id = p.pax_id "
        "JOIN flights AS f ON b.flight_id = f.flight_id JOIN routes AS r ON f.route_id = r.route_id "
        "WHERE p.first_name = '{first}' AND p.last_name = '{last}' ORDER BY f.sched_dep",
        ordered=True,
        min_rows=2,
        keys="SELECT f.sched_dep FROM bookings AS b JOIN passengers AS p ON b.pax_id = p.pax_id JOIN flights AS f "
        "ON b.flight_id = f.flight_id WHERE p.first_name = '{first}' AND p.last_name = '{last}' ORDER BY f.sched_dep",
    ),
    Template(
        "above_airline_avg_fare",
        "challenging",
        "SELECT a.name AS airline, c.cls AS cls, c.label AS label FROM airlines a, (SELECT 'J' AS cls, 'business' AS label "
        "UNION ALL SELECT 'F', 'first') c",
        "How many {label} class bookings on {airline} flights paid more than the airline's average {label} class fare?",
        "{label} class refers to fare_class = '{cls}'",
        "SELECT COUNT(*) FROM bookings AS b JOIN flights AS f ON b.flight_id = f.flight_id JOIN routes AS r ON f.route_id = r.route_id "
        "JOIN airlines AS a ON r.airline_id = a.airline_id WHERE a.name = '{airline}' AND b.fare_class = '{cls}' AND b.fare_usd > "
        "(SELECT AVG(b2.fare_usd) FROM bookings AS b2 JOIN flights AS f2 ON b2.flight_id = f2.flight_id JOIN routes AS r2 "
        "ON f2.route_id = r2.route_id JOIN airlines AS a2 ON r2.airline_id = a2.airline_id WHERE a2.name = '{airline}' AND b2.fare_class = '{cls}')",
    ),
)

SPEC = DatabaseSpec(
    name="flights",
    summary="An airline network over 2023: airports, airlines and their aircraft, routes, scheduled flights, passengers and bookings.",
    ddl=DDL,
    populate=populate,
    column_notes={
        "airports.code": "three-letter IATA airport code",
        "airports.elev_ft": "elevation above sea level in feet; NULL when unknown",
        "airlines.iata": "two-letter IATA airline code, also the prefix of its flight numbers",
        "aircraft.tail_no": "registration painted on the aircraft",
        "routes.dist_km": "great-circle distance in kilometres",
        "flights.sched_dep": "scheduled departure, 'YYYY-MM-DD HH:MM' (all times UTC)",
        "flights.sched_arr": "scheduled arrival (UTC)",
        "flights.act_dep": "actual departure; NULL for cancelled flights",
        "flights.act_arr": "actual arrival; NULL for cancelled and diverted flights",
        "flights.status": "landed, cancelled or diverted",
        "passengers.ff_tier": "frequent flyer tier: silver, gold or platinum; NULL for non-members",
        "bookings.fare_class": "'Y' economy, 'W' premium economy, 'J' business, 'F' first",
        "bookings.fare_usd": "ticket price in US dollars",
    },
    templates=TEMPLATES,
    seed=606,
)
