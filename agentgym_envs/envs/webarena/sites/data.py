"""The seeded state of every site: one SQLite schema (tables prefixed by site) filled
deterministically from a seed. The storefront's products come from WebShop's catalog generator.

:func:`seed_database` writes a fresh database file; episodes copy it (copy-on-reset), so a
task that changes state never leaks into the next episode.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from itertools import count
from pathlib import Path

from agentgym_envs.envs.webarena.sites.common import password_hash

SEED = 0
NUM_PRODUCTS = 160

#: WebArena's test accounts (``browser_env/env_config.py`` names; our own passwords).
SHOP_USER = "emma.lopez@gmail.com"
SHOP_PASSWORD = "Password.123"
ADMIN_USER = "admin"
ADMIN_PASSWORD = "admin1234"
FORUM_USER = "MarvelsGrantMan136"
FORUM_PASSWORD = "test1234"
CODE_USER = "byteblaze"
CODE_PASSWORD = "hello1234"

SCHEMA = """
CREATE TABLE shop_products (id INTEGER PRIMARY KEY, sku TEXT UNIQUE, name TEXT, price REAL,
    category TEXT, description TEXT, qty INTEGER, status TEXT);
CREATE TABLE shop_customers (email TEXT PRIMARY KEY, name TEXT, password TEXT, address TEXT);
CREATE TABLE shop_orders (id INTEGER PRIMARY KEY, number TEXT UNIQUE, email TEXT, created TEXT,
    status TEXT, grand_total REAL);
CREATE TABLE shop_order_items (order_id INTEGER, product_id INTEGER, qty INTEGER, price REAL);
CREATE TABLE shop_invoices (id INTEGER PRIMARY KEY, number TEXT UNIQUE, order_id INTEGER,
    created TEXT, grand_total REAL);
CREATE TABLE shop_reviews (id INTEGER PRIMARY KEY, product_id INTEGER, author TEXT,
    rating INTEGER, title TEXT, body TEXT, created TEXT);
CREATE TABLE shop_cart (email TEXT, product_id INTEGER, qty INTEGER);
CREATE TABLE shop_wishlist (email TEXT, product_id INTEGER);
CREATE TABLE admin_users (username TEXT PRIMARY KEY, password TEXT);
CREATE TABLE forum_users (name TEXT PRIMARY KEY, password TEXT, bio TEXT);
CREATE TABLE forum_forums (name TEXT PRIMARY KEY, title TEXT, description TEXT);
CREATE TABLE forum_posts (id INTEGER PRIMARY KEY, forum TEXT, author TEXT, title TEXT,
    body TEXT, created TEXT);
CREATE TABLE forum_comments (id INTEGER PRIMARY KEY, post_id INTEGER, author TEXT, body TEXT,
    created TEXT);
CREATE TABLE forum_votes (user TEXT, post_id INTEGER, value INTEGER,
    PRIMARY KEY (user, post_id));
CREATE TABLE code_users (username TEXT PRIMARY KEY, name TEXT, password TEXT);
CREATE TABLE code_projects (id INTEGER PRIMARY KEY, namespace TEXT, name TEXT,
    description TEXT, stars INTEGER);
CREATE TABLE code_members (project_id INTEGER, username TEXT, role TEXT);
CREATE TABLE code_issues (id INTEGER PRIMARY KEY, project_id INTEGER, iid INTEGER, title TEXT,
    body TEXT, state TEXT, labels TEXT, author TEXT, created TEXT);
CREATE TABLE code_merge_requests (id INTEGER PRIMARY KEY, project_id INTEGER, iid INTEGER,
    title TEXT, state TEXT, author TEXT, source_branch TEXT, target_branch TEXT);
CREATE TABLE code_commits (id INTEGER PRIMARY KEY, project_id INTEGER, sha TEXT, author TEXT,
    day TEXT, message TEXT);
CREATE TABLE code_todos (id INTEGER PRIMARY KEY, username TEXT, project_id INTEGER,
    target TEXT, body TEXT, state TEXT);
"""

FIRST = [
    "Olivia",
    "Liam",
    "Ava",
    "Noah",
    "Mia",
    "Ethan",
    "Sofia",
    "Lucas",
    "Grace",
    "Mason",
    "Chloe",
    "Logan",
    "Zoe",
    "Caleb",
    "Nora",
    "Owen",
    "Ruby",
    "Isaac",
    "Lily",
    "Jack",
]
LAST = ["Smith", "Garcia", "Chen", "Patel", "Kim", "Nguyen", "Brown", "Rossi", "Silva", "Khan"]
REVIEW_PHRASES = [
    "fast shipping",
    "great value",
    "poor packaging",
    "smells amazing",
    "broke after a week",
    "fits perfectly",
    "too small",
    "excellent quality",
    "would buy again",
    "color faded",
    "easy to use",
    "not as described",
]
ORDER_STATUSES = ["complete", "complete", "complete", "canceled", "pending", "processing"]
FORUMS = [
    ("books", "Books", "Reading, reviews and recommendations"),
    ("gaming", "Gaming", "Video games of every kind"),
    ("movies", "Movies", "Film talk"),
    ("science", "Science", "News and questions about science"),
    ("cooking", "Cooking", "Recipes and kitchen tips"),
    ("travel", "Travel", "Trips, tips and photos"),
    ("music", "Music", "Albums, gigs, gear"),
    ("diy", "DIY", "Build and fix things yourself"),
]
TOPICS = [
    "a beginner question",
    "my weekend project",
    "an unpopular opinion",
    "a hidden gem",
    "the best advice I got",
    "a question for experts",
    "what I learned this year",
    "a small victory",
    "a frustrating problem",
    "a recommendation thread",
]
FORUM_USERS = [FORUM_USER, "quietowl", "pixel_pilot", "ferngully", "tidewater", "ramen_rider"]
PROJECTS = [
    ("byteblaze", "a11y-syntax-highlighting", "Accessible syntax highlighting themes"),
    ("byteblaze", "dotfiles", "My shell and editor configuration"),
    ("byteblaze", "cloud-to-butt", "Browser extension that replaces words"),
    ("primer", "design", "Design guidelines and assets"),
    ("kolibri", "kolibri-tools", "Build tooling for the Kolibri app"),
    ("metis", "metis-scheduler", "A small job scheduler"),
]
CODE_USERS = [
    (CODE_USER, "Byte Blaze"),
    ("abishek", "Abishek S"),
    ("vinta", "Vinta Chen"),
    ("yjlou", "Yu-Jen Lou"),
    ("convexegg", "Convex Egg"),
    ("lahwaacz", "Jakub K"),
]
LABELS = ["bug", "enhancement", "documentation", "question", "accessibility", "help wanted"]
ISSUE_WORDS = [
    "crash on startup",
    "typo in README",
    "dark theme contrast",
    "add CI job",
    "slow build",
    "support for Windows",
    "broken link",
    "update dependencies",
    "keyboard navigation",
    "flaky test",
    "missing license",
    "config option",
]
ROLES = ["Guest", "Reporter", "Developer", "Maintainer"]


@dataclass(frozen=True)
class Seeded:
    """Facts about the seeded data that task templates need without opening the database."""

    path: Path


def _day(rng: random.Random, start: date, span: int) -> str:
    return (start + timedelta(days=rng.randrange(span))).isoformat()


def _shop(conn: sqlite3.Connection, rng: random.Random) -> None:
    _shop_products(conn, rng)
    people = _shop_customers(conn, rng)
    _shop_orders(conn, rng, people)
    _shop_reviews(conn, rng)
    conn.execute(
        "INSERT INTO admin_users VALUES (?,?)", (ADMIN_USER, password_hash(ADMIN_PASSWORD))
    )


def _shop_products(conn: sqlite3.Connection, rng: random.Random) -> None:
    from agentgym_envs.envs.webshop.catalog import generated_catalog

    catalog = generated_catalog(NUM_PRODUCTS, SEED)
    for i, p in enumerate(catalog.products, start=1):
        name = p.title.split(",")[0].strip()
        conn.execute(
            "INSERT INTO shop_products VALUES (?,?,?,?,?,?,?,?)",
            (
                i,
                p.asin,
                name,
                round(float(p.price), 2),
                p.category.title(),
                p.description[:400],
                rng.randrange(0, 120),
                "Enabled",
            ),
        )


def _shop_customers(conn: sqlite3.Connection, rng: random.Random) -> list[tuple[str, str]]:
    """The customers as (email, name), the test account first."""
    people = [(SHOP_USER, "Emma Lopez")] + [
        (f"{f.lower()}.{s.lower()}@example.com", f"{f} {s}")
        for f, s in zip(FIRST[:8], LAST[:8], strict=True)
    ]
    for email, name in people:
        pw = SHOP_PASSWORD if email == SHOP_USER else "Password.456"
        conn.execute(
            "INSERT INTO shop_customers VALUES (?,?,?,?)",
            (email, name, password_hash(pw), f"{rng.randrange(10, 999)} Main St, Pittsburgh PA"),
        )
    return people


def _shop_orders(
    conn: sqlite3.Connection, rng: random.Random, people: list[tuple[str, str]]
) -> None:
    """Sixty orders, two in three the test account's; complete ones have an invoice."""
    for oid in range(1, 61):
        email = SHOP_USER if oid % 3 != 0 else people[1 + oid % 8][0]
        items = [
            (rng.randrange(1, NUM_PRODUCTS + 1), rng.randrange(1, 4))
            for _ in range(rng.randrange(1, 4))
        ]
        total = 0.0
        for pid, qty in items:
            price = conn.execute("SELECT price FROM shop_products WHERE id=?", (pid,)).fetchone()[0]
            conn.execute("INSERT INTO shop_order_items VALUES (?,?,?,?)", (oid, pid, qty, price))
            total += price * qty
        total = round(total + 5.0, 2)
        created = _day(rng, date(2022, 1, 1), 720)
        status = rng.choice(ORDER_STATUSES)
        conn.execute(
            "INSERT INTO shop_orders VALUES (?,?,?,?,?,?)",
            (oid, f"{oid:09d}", email, created, status, total),
        )
        if status == "complete":
            conn.execute(
                "INSERT INTO shop_invoices (number, order_id, created, grand_total) "
                "VALUES (?,?,?,?)",
                (f"{oid:09d}", oid, created, total),
            )


def _shop_reviews(conn: sqlite3.Connection, rng: random.Random) -> None:
    rid = 0
    for pid in range(1, NUM_PRODUCTS + 1):
        for _ in range(rng.randrange(0, 4)):
            rid += 1
            phrase = rng.choice(REVIEW_PHRASES)
            author = f"{rng.choice(FIRST)} {rng.choice(LAST)[0]}."
            conn.execute(
                "INSERT INTO shop_reviews VALUES (?,?,?,?,?,?,?)",
                (
                    rid,
                    pid,
                    author,
                    rng.randrange(1, 6),
                    phrase.capitalize(),
                    f"Honestly: {phrase}. Review number {rid}.",
                    _day(rng, date(2022, 1, 1), 720),
                ),
            )


def _forum(conn: sqlite3.Connection, rng: random.Random) -> None:
    for name in FORUM_USERS:
        pw = FORUM_PASSWORD if name == FORUM_USER else "test5678"
        conn.execute(
            "INSERT INTO forum_users VALUES (?,?,?)",
            (name, password_hash(pw), f"Hi, I am {name}." if name != FORUM_USER else ""),
        )
    conn.executemany("INSERT INTO forum_forums VALUES (?,?,?)", FORUMS)
    pid = 0
    start = date(2023, 1, 1)
    for forum, title, _ in FORUMS:
        for k in range(rng.randrange(6, 10)):
            pid += 1
            topic = TOPICS[(pid + k) % len(TOPICS)]
            author = rng.choice(FORUM_USERS[1:])
            conn.execute(
                "INSERT INTO forum_posts VALUES (?,?,?,?,?,?)",
                (
                    pid,
                    forum,
                    author,
                    f"{title}: {topic} #{pid}",
                    f"Let me tell you about {topic} in {title.lower()}.",
                    (start + timedelta(days=pid * 3 % 300, hours=pid)).isoformat(),
                ),
            )
            for c in range(rng.randrange(0, 4)):
                conn.execute(
                    "INSERT INTO forum_comments (post_id, author, body, created) VALUES (?,?,?,?)",
                    (
                        pid,
                        rng.choice(FORUM_USERS[1:]),
                        f"Reply {c + 1}: interesting point.",
                        (start + timedelta(days=pid * 3 % 300 + 1, hours=c)).isoformat(),
                    ),
                )
            for voter in FORUM_USERS[1:]:
                if rng.random() < 0.5:
                    conn.execute(
                        "INSERT INTO forum_votes VALUES (?,?,?)",
                        (voter, pid, 1 if rng.random() < 0.8 else -1),
                    )


def _code(conn: sqlite3.Connection, rng: random.Random) -> None:
    for username, name in CODE_USERS:
        pw = CODE_PASSWORD if username == CODE_USER else "hello5678"
        conn.execute("INSERT INTO code_users VALUES (?,?,?)", (username, name, password_hash(pw)))
    issue_ids, mr_ids, commit_ids = count(1), count(1), count(1)
    for pid, (ns, name, desc) in enumerate(PROJECTS, start=1):
        conn.execute(
            "INSERT INTO code_projects VALUES (?,?,?,?,?)", (pid, ns, name, desc, rng.randrange(50))
        )
        conn.execute("INSERT INTO code_members VALUES (?,?,?)", (pid, CODE_USER, "Owner"))
        for username, _ in CODE_USERS[1:]:
            if rng.random() < 0.4:
                conn.execute(
                    "INSERT INTO code_members VALUES (?,?,?)", (pid, username, rng.choice(ROLES))
                )
        _code_issues(conn, rng, pid, name, issue_ids)
        _code_merge_requests(conn, rng, pid, mr_ids)
        _code_commits(conn, rng, pid, commit_ids)
        if pid <= 3:
            conn.execute(
                "INSERT INTO code_todos (username, project_id, target, body, state) "
                "VALUES (?,?,?,?,?)",
                (CODE_USER, pid, f"Issue #{1}", f"You are mentioned in {name}", "pending"),
            )


def _code_issues(
    conn: sqlite3.Connection, rng: random.Random, pid: int, name: str, ids: Iterator[int]
) -> None:
    for iid in range(1, rng.randrange(8, 14)):
        labels = sorted(rng.sample(LABELS, rng.randrange(0, 3)))
        conn.execute(
            "INSERT INTO code_issues VALUES (?,?,?,?,?,?,?,?,?)",
            (
                next(ids),
                pid,
                iid,
                f"{rng.choice(ISSUE_WORDS).capitalize()} ({name} #{iid})",
                "Steps to reproduce are in the description.",
                "opened" if rng.random() < 0.65 else "closed",
                ",".join(labels),
                rng.choice(CODE_USERS)[0],
                _day(rng, date(2023, 1, 1), 300),
            ),
        )


def _code_merge_requests(
    conn: sqlite3.Connection, rng: random.Random, pid: int, ids: Iterator[int]
) -> None:
    for iid in range(1, rng.randrange(3, 6)):
        conn.execute(
            "INSERT INTO code_merge_requests VALUES (?,?,?,?,?,?,?,?)",
            (
                next(ids),
                pid,
                iid,
                f"Fix {rng.choice(ISSUE_WORDS)}",
                rng.choice(["opened", "merged", "closed"]),
                rng.choice(CODE_USERS)[0],
                f"feature-{iid}",
                "main",
            ),
        )


def _code_commits(
    conn: sqlite3.Connection, rng: random.Random, pid: int, ids: Iterator[int]
) -> None:
    for _ in range(rng.randrange(10, 20)):
        conn.execute(
            "INSERT INTO code_commits VALUES (?,?,?,?,?,?)",
            (
                next(ids),
                pid,
                f"{rng.getrandbits(40):010x}",
                rng.choice(CODE_USERS)[0],
                _day(rng, date(2023, 3, 1), 30),
                f"Update {rng.choice(ISSUE_WORDS)}",
            ),
        )


def seed_database(path: Path, seed: int = SEED) -> Path:
    """Write the seeded database of every site to ``path`` (overwritten) and return it."""
    path = Path(path)
    if path.exists():
        path.unlink()
    conn = sqlite3.connect(path)
    try:
        conn.executescript(SCHEMA)
        _shop(conn, random.Random(seed))
        _forum(conn, random.Random(seed + 1))
        _code(conn, random.Random(seed + 2))
        conn.commit()
    finally:
        conn.close()
    return path
