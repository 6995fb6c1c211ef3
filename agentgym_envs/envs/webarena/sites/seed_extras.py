"""Seeded rows some of WebArena's templates need beyond :mod:`.data`'s base build, each from
its own random stream (so the base rows stay as they were):

* forum: the signed-in user's own submissions (template 27 edits one), a relationship-advice
  forum (12 asks there), subscriptions (4), sidebars (7), comments' up and down votes (33);
* shop and admin: cart price rules (258), orders' tracking numbers (284), the store's search
  terms (285, 1001), products whose names state a storage capacity (171, 207) and the
  newsletter's subscribers (199).
"""

from __future__ import annotations

import random
import sqlite3
from datetime import date

from agentgym_envs.envs.webarena.sites import text
from agentgym_envs.envs.webarena.sites.data import FORUM_USER, _when

#: The signed-in forum user's submissions: (forum, topic). The topic names the post in an
#: intent ("Edit my post on <topic> ...").
MY_POSTS = (
    ("books", "a used copy of Dune"),
    ("cooking", "cast iron pans"),
    ("gardening", "raised beds"),
    ("photography", "a 50mm prime lens"),
    ("travel", "night trains in Europe"),
    ("programming", "my first Rust crate"),
    ("running", "a sub-2 half marathon"),
    ("boardgames", "Wingspan"),
)
_MY_TITLES = (
    "Some thoughts on {thing}",
    "Update on {thing}, six months later",
    "Finally got {thing}!",
    "Anyone else into {thing}?",
)
RELATION_FORUM = "relationship_advice"
_RELATION_THINGS = (
    "moving in together",
    "meeting the parents",
    "arguing about chores",
    "a friend who never calls back",
    "splitting rent fairly",
    "planning a first anniversary",
    "a partner who works nights",
    "jealousy over old friends",
)


def seed_extras(conn: sqlite3.Connection, seed: int) -> None:
    """Add the rows named in the module docstring to the forum tables of ``conn``."""
    rng = random.Random(f"webarena-extras-{seed}")
    conn.execute("CREATE TABLE forum_subscriptions (user TEXT, forum TEXT)")
    conn.execute("CREATE TABLE forum_sidebars (forum TEXT PRIMARY KEY, sidebar TEXT)")
    conn.execute(
        "CREATE TABLE forum_comment_votes (comment_id INTEGER PRIMARY KEY, up INTEGER, "
        "down INTEGER)"
    )
    conn.executemany(
        "INSERT INTO forum_comment_votes VALUES (?,?,?)",
        [
            (cid, rng.randrange(0, 25), rng.choice((0, 0, 0, 1, 1, 2, 3, 5, 8, 13, 30)))
            for (cid,) in conn.execute("SELECT id FROM forum_comments ORDER BY id").fetchall()
        ],
    )
    conn.execute(
        "CREATE TABLE shop_price_rules (id INTEGER PRIMARY KEY, name TEXT, customer_groups TEXT, "
        "simple_action TEXT, discount_amount REAL)"
    )
    conn.executemany(
        "INSERT INTO shop_price_rules (name, customer_groups, simple_action, discount_amount) "
        "VALUES (?,?,?,?)",
        [
            ("Free shipping over $50", "0,1,2,3", "cart_fixed", 0),
            ("Wholesale 10 percent", "2", "by_percent", 10),
            ("Welcome back $5", "1", "cart_fixed", 5),
        ],
    )
    _search_terms(conn, rng)
    _storage_products(conn, rng)
    conn.execute("CREATE TABLE shop_newsletter (email TEXT PRIMARY KEY)")
    conn.execute("CREATE TABLE shop_order_tracks (order_id INTEGER, carrier TEXT, number TEXT)")
    users = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM forum_users WHERE name != ? ORDER BY name", (FORUM_USER,)
        )
    ]
    conn.execute(
        "INSERT INTO forum_forums VALUES (?,?,?,?,?)",
        (
            RELATION_FORUM,
            "Relationship Advice",
            "Advice on relationships, dating, family and friends",
            "2019-05-14",
            rng.choice(users),
        ),
    )
    next_id = conn.execute("SELECT MAX(id) FROM forum_posts").fetchone()[0] + 1
    rows = []
    for k, (forum, thing) in enumerate(MY_POSTS):
        title = _MY_TITLES[k % len(_MY_TITLES)].format(thing=thing)
        rows.append((forum, FORUM_USER, title, text.post_body(rng, thing, f"/f/{forum}")))
    for thing in _RELATION_THINGS:
        where = f"/f/{RELATION_FORUM}"
        title = text.post_title(rng, thing, rng.choice(_RELATION_THINGS), where)
        rows.append((RELATION_FORUM, rng.choice(users), title, text.post_body(rng, thing, where)))
    conn.executemany(
        "INSERT INTO forum_posts VALUES (?,?,?,?,?,?,?)",
        [
            (
                next_id + i,
                forum,
                author,
                title,
                body,
                _when(rng, date(2022, 6, 1), 400),
                rng.randrange(1, 120),
            )
            for i, (forum, author, title, body) in enumerate(rows)
        ],
    )


_TERM_NOUNS = (
    "night cream",
    "hoodie",
    "running shoes",
    "yoga mat",
    "backpack",
    "headphones",
    "coffee maker",
    "phone case",
    "desk lamp",
    "water bottle",
    "rain jacket",
    "tea kettle",
)


def _search_terms(conn: sqlite3.Connection, rng: random.Random) -> None:
    """The store's search terms with their uses (distinct) and result counts; the most used
    ten name one brand three times (template 1001 asks for it)."""
    brands = [r[0] for r in conn.execute("SELECT DISTINCT brand FROM shop_products ORDER BY brand")]
    top_brand = rng.choice(brands)
    others = [b for b in brands if b != top_brand]
    terms: list[str] = []
    while len(terms) < 40:
        k = len(terms)
        brand = top_brand if k in (0, 3, 6) else rng.choice(others)
        term = (
            rng.choice(_TERM_NOUNS)
            if k > 10 and rng.random() < 0.4
            else f"{brand} {rng.choice(_TERM_NOUNS)}"
        )
        if term not in terms and (k in (0, 3, 6) or not term.startswith(top_brand)):
            terms.append(term)
    uses = sorted(rng.sample(range(3, 400), len(terms)), reverse=True)
    conn.execute(
        "CREATE TABLE shop_search_terms (term TEXT PRIMARY KEY, results INTEGER, uses INTEGER)"
    )
    conn.executemany(
        "INSERT INTO shop_search_terms VALUES (?,?,?)",
        [(t, rng.randrange(0, 120), u) for t, u in zip(terms, uses, strict=True)],
    )


#: Products whose names state a storage capacity (templates 171 and 207): the category
#: (top, leaf), the noun, and (capacity, unit, price) each.
STORAGE_PRODUCTS = (
    (
        ("Video Games", "Storage"),
        "Game Card Case for Nintendo Switch",
        [
            (8, "Card Slots", 9.99),
            (12, "Card Slots", 7.49),
            (16, "Card Slots", 12.99),
            (24, "Card Slots", 11.49),
            (32, "Card Slots", 15.99),
            (40, "Card Slots", 13.99),
            (64, "Card Slots", 21.49),
            (80, "Card Slots", 19.99),
        ],
    ),
    (
        ("Electronics", "Storage"),
        "External Hard Drive",
        [
            (256, "GB", 39.99),
            (512, "GB", 34.99),
            (1, "TB", 64.99),
            (2, "TB", 59.49),
            (4, "TB", 99.99),
            (5, "TB", 129.99),
        ],
    ),
)


def _storage_products(conn: sqlite3.Connection, rng: random.Random) -> None:
    brands = [r[0] for r in conn.execute("SELECT DISTINCT brand FROM shop_products ORDER BY brand")]
    next_id = conn.execute("SELECT MAX(id) FROM shop_products").fetchone()[0] + 1
    rows = []
    for (top, leaf), noun, sizes in STORAGE_PRODUCTS:
        category_id = conn.execute(
            "SELECT category_id FROM shop_products WHERE top=? AND category=? LIMIT 1", (top, leaf)
        ).fetchone()[0]
        for capacity, unit, price in sizes:
            brand = rng.choice(brands)
            spaced = " " if unit == "Card Slots" else ""
            name = f"{brand} {noun}, {capacity}{spaced}{unit}"
            pid = next_id + len(rows)
            rows.append(
                (
                    pid,
                    f"B{pid:09d}",
                    name,
                    price,
                    category_id,
                    top,
                    leaf,
                    brand,
                    "Black",
                    "Plastic",
                    "",
                    f"The {name} from {brand}: room for {capacity} {unit.lower()}.",
                    rng.randrange(5, 400),
                    "Enabled",
                    "2023-02-14",
                    0.0,
                    0,
                )
            )
    conn.executemany(f"INSERT INTO shop_products VALUES ({','.join('?' * 17)})", rows)
