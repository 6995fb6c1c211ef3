"""A football league: stadiums, clubs, coaches, players, three seasons of matches, goals, cards."""

from __future__ import annotations

import datetime as dt
import itertools
import random
import sqlite3

from agentgym_envs.envs.sql.databases.spec import DatabaseSpec, Template
from agentgym_envs.envs.sql.databases.words import CITIES, day, iso, maybe, person

DDL = """
CREATE TABLE stadiums (
    stadium_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    city TEXT NOT NULL,
    capacity INTEGER NOT NULL,
    opened INTEGER
);
CREATE TABLE teams (
    team_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    short_nm TEXT NOT NULL UNIQUE,
    stadium_id INTEGER NOT NULL REFERENCES stadiums (stadium_id),
    founded INTEGER NOT NULL
);
CREATE TABLE coaches (
    coach_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    team_id INTEGER NOT NULL REFERENCES teams (team_id),
    start_date TEXT NOT NULL,
    end_date TEXT
);
CREATE TABLE players (
    player_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    team_id INTEGER NOT NULL REFERENCES teams (team_id),
    pos TEXT NOT NULL,
    dob TEXT NOT NULL,
    nat TEXT NOT NULL,
    height_cm INTEGER,
    shirt_no INTEGER NOT NULL
);
CREATE TABLE matches (
    match_id INTEGER PRIMARY KEY,
    season TEXT NOT NULL,
    matchday INTEGER NOT NULL,
    match_date TEXT NOT NULL,
    home_id INTEGER NOT NULL REFERENCES teams (team_id),
    away_id INTEGER NOT NULL REFERENCES teams (team_id),
    home_goals INTEGER NOT NULL,
    away_goals INTEGER NOT NULL,
    attendance INTEGER,
    referee TEXT NOT NULL
);
CREATE TABLE goals (
    goal_id INTEGER PRIMARY KEY,
    match_id INTEGER NOT NULL REFERENCES matches (match_id),
    player_id INTEGER NOT NULL REFERENCES players (player_id),
    team_id INTEGER NOT NULL REFERENCES teams (team_id),
    minute INTEGER NOT NULL,
    own_goal INTEGER NOT NULL DEFAULT 0,
    penalty INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE cards (
    card_id INTEGER PRIMARY KEY,
    match_id INTEGER NOT NULL REFERENCES matches (match_id),
    player_id INTEGER NOT NULL REFERENCES players (player_id),
    minute INTEGER NOT NULL,
    color TEXT NOT NULL
);
CREATE INDEX ix_players_team ON players (team_id);
CREATE INDEX ix_matches_home ON matches (home_id);
CREATE INDEX ix_matches_away ON matches (away_id);
CREATE INDEX ix_goals_match ON goals (match_id);
CREATE INDEX ix_goals_player ON goals (player_id);
CREATE INDEX ix_cards_match ON cards (match_id);
"""

CLUB_WORDS = [
    "United",
    "City",
    "Rovers",
    "Athletic",
    "Wanderers",
    "Albion",
    "Town",
    "Rangers",
    "Olympic",
    "Dynamo",
    "Sporting",
    "Harriers",
    "Villa",
    "Academicals",
    "Borough",
    "Celtic",
]
NATIONS = [
    "ENG",
    "ENG",
    "ENG",
    "ESP",
    "FRA",
    "BRA",
    "GER",
    "NED",
    "ARG",
    "POR",
    "NGA",
    "JPN",
    "SEN",
    "USA",
]
SEASONS = ["2021/22", "2022/23", "2023/24"]
POSITIONS = ["GK"] * 3 + ["DF"] * 8 + ["MF"] * 8 + ["FW"] * 5
REFEREES = [
    "Mark Dean",
    "Anna Kovac",
    "Luis Ortega",
    "Paul Tierney",
    "Sofia Lind",
    "Ibrahim Diallo",
    "Tom Fraser",
    "Ken Ito",
]


def populate(con: sqlite3.Connection, rng: random.Random) -> None:
    n_teams = 16
    stadiums, teams = [], []
    for tid in range(1, n_teams + 1):
        city = CITIES[tid - 1]
        stadiums.append(
            (
                tid,
                f"{city} {rng.choice(['Park', 'Arena', 'Ground', 'Stadium', 'Field'])}",
                city,
                rng.randrange(9000, 76000, 250),
                maybe(rng, rng.randint(1890, 2015), 0.15),
            )
        )
        name = f"{city} {CLUB_WORDS[tid - 1]}"
        teams.append(
            (tid, name, (city[:2] + CLUB_WORDS[tid - 1][0]).upper(), tid, rng.randint(1870, 1990))
        )
    con.executemany("INSERT INTO stadiums VALUES (?, ?, ?, ?, ?)", stadiums)
    con.executemany("INSERT INTO teams VALUES (?, ?, ?, ?, ?)", teams)
    coaches = []
    for t in teams:
        start = day(rng, dt.date(2015, 6, 1), dt.date(2020, 6, 1))
        if rng.random() < 0.5:
            end = day(rng, dt.date(2021, 9, 1), dt.date(2023, 5, 1))
            first, last = person(rng)
            coaches.append((len(coaches) + 1, first, last, t[0], iso(start), iso(end)))
            start = end + dt.timedelta(days=rng.randint(1, 20))
        first, last = person(rng)
        coaches.append((len(coaches) + 1, first, last, t[0], iso(start), None))
    con.executemany("INSERT INTO coaches VALUES (?, ?, ?, ?, ?, ?)", coaches)
    players = []
    squads: dict[int, list[tuple]] = {}
    for t in teams:
        for k, pos in enumerate(POSITIONS):
            first, last = person(rng)
            row = (
                len(players) + 1,
                first,
                last,
                t[0],
                pos,
                iso(day(rng, dt.date(1986, 1, 1), dt.date(2004, 12, 31))),
                rng.choice(NATIONS),
                maybe(rng, rng.randint(165, 198) + (6 if pos == "GK" else 0), 0.1),
                k + 1,
            )
            players.append(row)
            squads.setdefault(t[0], []).append(row)
    con.executemany("INSERT INTO players VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", players)
    matches, goals, cards = [], [], []
    strength = {t[0]: rng.uniform(0.8, 2.0) for t in teams}
    weights = {"GK": 0, "DF": 1, "MF": 3, "FW": 7}
    for s, season in enumerate(SEASONS):
        pairs = list(itertools.permutations(range(1, n_teams + 1), 2))
        rng.shuffle(pairs)
        start = dt.date(2021 + s, 8, 7)
        per_day = n_teams // 2
        for i, (home, away) in enumerate(pairs):
            mday = i // per_day + 1
            date = start + dt.timedelta(days=7 * (mday - 1) + rng.choice([0, 0, 1, 2]))
            hg = min(7, int(rng.expovariate(1 / (strength[home] * 0.9 + 0.3))))
            ag = min(7, int(rng.expovariate(1 / (strength[away] * 0.7 + 0.2))))
            mid = len(matches) + 1
            cap = stadiums[home - 1][3]
            matches.append(
                (
                    mid,
                    season,
                    mday,
                    iso(date),
                    home,
                    away,
                    hg,
                    ag,
                    maybe(rng, int(cap * rng.uniform(0.55, 1.0)), 0.05),
                    rng.choice(REFEREES),
                )
            )
            minutes = rng.sample(range(1, 91), hg + ag)
            for j, minute in enumerate(minutes):
                team, other = (home, away) if j < hg else (away, home)
                if rng.random() < 0.04:
                    scorer = rng.choice(squads[other])
                    goals.append((len(goals) + 1, mid, scorer[0], team, minute, 1, 0))
                else:
                    squad = squads[team]
                    scorer = rng.choices(squad, weights=[weights[p[4]] for p in squad])[0]
                    goals.append(
                        (len(goals) + 1, mid, scorer[0], team, minute, 0, int(rng.random() < 0.1))
                    )
            for _ in range(rng.choice([0, 1, 2, 3, 3, 4, 5])):
                player = rng.choice(squads[rng.choice((home, away))])
                cards.append(
                    (
                        len(cards) + 1,
                        mid,
                        player[0],
                        rng.randint(5, 90),
                        "R" if rng.random() < 0.06 else "Y",
                    )
                )
    con.executemany("INSERT INTO matches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", matches)
    con.executemany("INSERT INTO goals VALUES (?, ?, ?, ?, ?, ?, ?)", goals)
    con.executemany("INSERT INTO cards VALUES (?, ?, ?, ?, ?)", cards)


POINTS = (
    "SELECT team_id, SUM(pts) AS points FROM ("
    "SELECT home_id AS team_id, CASE WHEN home_goals > away_goals THEN 3 WHEN home_goals = away_goals THEN 1 ELSE 0 END AS pts "
    "FROM matches WHERE season = '{season}' UNION ALL "
    "SELECT away_id, CASE WHEN away_goals > home_goals THEN 3 WHEN away_goals = home_goals THEN 1 ELSE 0 END "
    "FROM matches WHERE season = '{season}') GROUP BY team_id"
)
NAMED_PLAYER = "SELECT first_name AS first, last_name AS last FROM players GROUP BY first_name, last_name HAVING COUNT(*) = 1"
TEAM_SEASON = "SELECT t.name AS team, s.season AS season FROM teams t, (SELECT DISTINCT season FROM matches) s"

TEMPLATES = (
    Template(
        "players_by_position",
        "simple",
        "SELECT t.name AS team, p.pos AS pos, CASE p.pos WHEN 'GK' THEN 'goalkeepers' WHEN 'DF' THEN 'defenders' "
        "WHEN 'MF' THEN 'midfielders' ELSE 'forwards' END AS role FROM teams t, (SELECT DISTINCT pos FROM players) p",
        "How many {role} are in the squad of {team}?",
        "{role} refers to pos = '{pos}'",
        "SELECT COUNT(*) FROM players AS p JOIN teams AS t ON p.team_id = t.team_id WHERE t.name = '{team}' AND p.pos = '{pos}'",
    ),
    Template(
        "match_attendance",
        "simple",
        "SELECT h.name AS home, a.name AS away, m.season AS season FROM matches m JOIN teams h ON m.home_id = h.team_id "
        "JOIN teams a ON m.away_id = a.team_id",
        "What was the attendance when {home} hosted {away} in the {season} season?",
        "hosted refers to home_id; season refers to season = '{season}'",
        "SELECT m.attendance FROM matches AS m JOIN teams AS h ON m.home_id = h.team_id JOIN teams AS a ON m.away_id = a.team_id "
        "WHERE h.name = '{home}' AND a.name = '{away}' AND m.season = '{season}'",
    ),
    Template(
        "tallest_player",
        "simple",
        "SELECT name AS team FROM teams",
        "Who is the tallest player of {team}? Give the first and last name and the height in centimetres.",
        "tallest refers to MAX(height_cm)",
        "SELECT p.first_name, p.last_name, p.height_cm FROM players AS p JOIN teams AS t ON p.team_id = t.team_id "
        "WHERE t.name = '{team}' ORDER BY p.height_cm DESC LIMIT 1",
        top=1,
        keys="SELECT p.height_cm FROM players AS p JOIN teams AS t ON p.team_id = t.team_id WHERE t.name = '{team}' ORDER BY p.height_cm DESC",
    ),
    Template(
        "player_goals_season",
        "moderate",
        "SELECT p.first AS first, p.last AS last, s.season AS season FROM ("
        + NAMED_PLAYER
        + " AND MAX(pos) <> 'GK') p, "
        "(SELECT DISTINCT season FROM matches) s",
        "How many goals did {first} {last} score in the {season} season, not counting own goals?",
        "own goals refers to own_goal = 1; season refers to season = '{season}'",
        "SELECT COUNT(*) FROM goals AS g JOIN players AS p ON g.player_id = p.player_id JOIN matches AS m ON g.match_id = m.match_id "
        "WHERE p.first_name = '{first}' AND p.last_name = '{last}' AND m.season = '{season}' AND g.own_goal = 0",
    ),
    Template(
        "most_home_goals",
        "moderate",
        "SELECT DISTINCT season FROM matches",
        "Which team scored the most goals in its home matches of the {season} season, and how many?",
        "home matches refers to home_id = team_id; goals scored at home refers to SUM(home_goals)",
        "SELECT t.name, SUM(m.home_goals) AS n FROM matches AS m JOIN teams AS t ON m.home_id = t.team_id "
        "WHERE m.season = '{season}' GROUP BY t.team_id ORDER BY n DESC LIMIT 1",
        top=1,
        keys="SELECT SUM(home_goals) AS n FROM matches WHERE season = '{season}' GROUP BY home_id ORDER BY n DESC",
    ),
    Template(
        "red_cards_stadium",
        "moderate",
        "SELECT st.name AS stadium, s.season AS season FROM stadiums st, (SELECT DISTINCT season FROM matches) s",
        "How many cards of either colour were shown in matches played at {stadium} during the {season} season?",
        "matches played at a stadium are the home matches of the team whose stadium_id it is",
        "SELECT COUNT(*) FROM cards AS c JOIN matches AS m ON c.match_id = m.match_id JOIN teams AS t ON m.home_id = t.team_id "
        "JOIN stadiums AS st ON t.stadium_id = st.stadium_id WHERE st.name = '{stadium}' AND m.season = '{season}'",
    ),
    Template(
        "team_points",
        "challenging",
        TEAM_SEASON,
        "How many league points did {team} collect in the {season} season? A win is worth 3 points and a draw 1.",
        "a home win refers to home_goals > away_goals; an away win to away_goals > home_goals; a draw to home_goals = away_goals",
        "SELECT SUM(CASE WHEN (m.home_id = t.team_id AND m.home_goals > m.away_goals) OR (m.away_id = t.team_id AND m.away_goals > m.home_goals) "
        "THEN 3 WHEN m.home_goals = m.away_goals THEN 1 ELSE 0 END) FROM matches AS m JOIN teams AS t "
        "ON t.team_id IN (m.home_id, m.away_id) WHERE t.name = '{team}' AND m.season = '{season}'",
    ),
    Template(
        "table_position",
        "challenging",
        "SELECT s.season AS season, n.n AS n FROM (SELECT DISTINCT season FROM matches) s, "
        "(SELECT 1 AS n UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5) n",
        "Which team finished in position {n} of the {season} league table, ranked by points only?",
        "a win is worth 3 points and a draw 1; position {n} refers to the {n}-th highest points total",
        "SELECT t.name FROM (SELECT team_id, RANK() OVER (ORDER BY points DESC) AS pos FROM ("
        + POINTS
        + ")) AS r "
        "JOIN teams AS t ON r.team_id = t.team_id WHERE r.pos = {n}",
        top="n",
        keys="SELECT points FROM (" + POINTS + ") ORDER BY points DESC",
    ),
    Template(
        "age_at_first_goal",
        "challenging",
        NAMED_PLAYER + " AND MAX(pos) IN ('FW', 'MF')",
        "How old, in whole years, was {first} {last} on the day of their first goal (own goals excluded)?",
        "age in whole years = difference of years minus one when the birthday had not yet come that year; first goal refers to MIN(match_date)",
        "SELECT CAST(strftime('%Y', MIN(m.match_date)) AS INTEGER) - CAST(strftime('%Y', p.dob) AS INTEGER) "
        "- (strftime('%m-%d', MIN(m.match_date)) < strftime('%m-%d', p.dob)) FROM players AS p JOIN goals AS g ON g.player_id = p.player_id "
        "JOIN matches AS m ON g.match_id = m.match_id WHERE p.first_name = '{first}' AND p.last_name = '{last}' AND g.own_goal = 0 "
        "HAVING COUNT(*) > 0",
        allow_zero=True,
    ),
    Template(
        "late_goals_share",
        "challenging",
        TEAM_SEASON,
        "What percentage of the goals {team} scored in the {season} season came after the 75th minute? Round to two decimals.",
        "goals {team} scored refers to goals.team_id of {team}, own goals by opponents included; after the 75th minute refers to minute > 75",
        "SELECT ROUND(100.0 * SUM(CASE WHEN g.minute > 75 THEN 1 ELSE 0 END) / COUNT(*), 2) FROM goals AS g "
        "JOIN matches AS m ON g.match_id = m.match_id JOIN teams AS t ON g.team_id = t.team_id "
        "WHERE t.name = '{team}' AND m.season = '{season}'",
    ),
)

SPEC = DatabaseSpec(
    name="football",
    summary="A sixteen-club football league over three seasons: stadiums, clubs, coaches, players, matches, goals and cards.",
    ddl=DDL,
    populate=populate,
    column_notes={
        "teams.short_nm": "three-letter club abbreviation",
        "coaches.end_date": "last day in charge; NULL for the current coach",
        "players.pos": "position: 'GK' goalkeeper, 'DF' defender, 'MF' midfielder, 'FW' forward",
        "players.nat": "nationality as a three-letter code, e.g. 'ENG'",
        "players.height_cm": "height in centimetres; NULL when unknown",
        "matches.season": "season label such as '2022/23'",
        "matches.home_id": "team_id of the home team (the match is played at its stadium)",
        "matches.away_id": "team_id of the visiting team",
        "goals.team_id": "team credited with the goal (for an own goal, the opponent of the scorer)",
        "goals.own_goal": "1 if the player put the ball into their own net",
        "goals.penalty": "1 if scored from a penalty kick",
        "cards.color": "'Y' yellow card, 'R' red card",
    },
    templates=TEMPLATES,
    seed=303,
)
