"""Seeded shop state the admin's write templates need, added after :mod:`.data` and
:mod:`.seed_extras` from its own random stream (the rows before it stay as they were):

* products' sale flag and special price (columns ``sale``, ``special_price``; none on sale,
  template 237 marks some);
* reviews awaiting moderation: ``Pending`` and ``Not Approved`` ones after the approved
  reviews (templates 243 and 246; 277 counts them by status). Only approved reviews count in
  a product's ``rating`` and ``review_count`` (the storefront shows only those);
* a few scammers' approved reviews: nicknames no one else uses, two or three reviews each
  (template 246 deletes them);
* configurable products' variants (``shop_variants``: one row per size and colour; template
  252 adds some): every sized product in each of its sizes in its colour, one in eight in a
  second and third colour too.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import date

from agentgym_envs.envs.webarena.sites import text, vocab
from agentgym_envs.envs.webarena.sites.data import _day

#: The size attribute's values (Magento's option list), smallest first.
SIZE_OPTIONS = ("XXS", "XS", "S", "M", "L", "XL", "XXL", "XXXL")
#: The colour attribute's values: the catalogue's colours and a few more.
COLOR_OPTIONS = (*vocab.COLORS, "Orange", "Purple", "Yellow")
#: Magento's review statuses by ``status_id``.
REVIEW_STATUSES = {1: "Approved", 2: "Pending", 3: "Not Approved"}
#: Ratings of the pending reviews (one product each) and of the ones not approved.
PENDING_RATINGS = (5, 1, 4, 2, 3, 5, 1, 4, 2)
REJECTED_RATINGS = (1, 2, 5, 1)
#: Nicknames of scammers (a first name only: no shopper's nickname contains one).
SCAMMERS = ("Arden", "Carlo", "Dmitri", "Ysolde", "Quinton", "Marisol")


def seed_shop(conn: sqlite3.Connection, seed: int) -> None:
    """Add the rows and columns named in the module docstring."""
    rng = random.Random(f"webarena-shop-{seed}")
    conn.execute("ALTER TABLE shop_products ADD COLUMN sale INTEGER NOT NULL DEFAULT 0")
    conn.execute("ALTER TABLE shop_products ADD COLUMN special_price REAL")
    _moderation(conn, rng)
    _scammers(conn, rng)
    _variants(conn, rng)


def refresh_rating(db: sqlite3.Connection, product_id: int) -> None:
    """A product's rating and review count over its approved reviews."""
    db.execute(
        "UPDATE shop_products SET rating = COALESCE((SELECT ROUND(AVG(rating), 1) FROM "
        "shop_reviews r WHERE r.product_id = shop_products.id AND r.status = 'Approved'), 0), "
        "review_count = (SELECT COUNT(*) FROM shop_reviews r WHERE r.product_id = "
        "shop_products.id AND r.status = 'Approved') WHERE id = ?",
        (product_id,),
    )


def _moderation(conn: sqlite3.Connection, rng: random.Random) -> None:
    """Pending reviews on products that have approved ones (one product each, names that
    are the catalogue's only one), and reviews not approved."""
    products = conn.execute(
        "SELECT id, category FROM shop_products WHERE status = 'Enabled' AND review_count "
        "BETWEEN 2 AND 4 AND name IN (SELECT name FROM shop_products GROUP BY name HAVING "
        "COUNT(*) = 1) ORDER BY id"
    ).fetchall()
    picks = rng.sample(products, len(PENDING_RATINGS) + len(REJECTED_RATINGS))
    next_id = conn.execute("SELECT MAX(id) FROM shop_reviews").fetchone()[0] + 1
    rows = []
    ratings = [(r, "Pending") for r in PENDING_RATINGS] + [
        (r, "Not Approved") for r in REJECTED_RATINGS
    ]
    for (pid, leaf), (rating, status) in zip(picks, ratings, strict=True):
        title, body = text.review(rng, rng.choice(vocab.REVIEW_PHRASES), leaf.rstrip("s"), rating)
        author = f"{rng.choice(vocab.FIRST)} {rng.choice(vocab.LAST)[0]}."
        rows.append(
            (next_id + len(rows), pid, author, rating, title, body, _day(rng, date(2023, 4, 1), 60))
            + (status,)
        )
    conn.executemany("INSERT INTO shop_reviews VALUES (?,?,?,?,?,?,?,?)", rows)


def _scammers(conn: sqlite3.Connection, rng: random.Random) -> None:
    products = conn.execute(
        "SELECT id, category FROM shop_products WHERE status = 'Enabled' ORDER BY id"
    ).fetchall()
    next_id = conn.execute("SELECT MAX(id) FROM shop_reviews").fetchone()[0] + 1
    rows = []
    for nick in SCAMMERS:
        for pid, leaf in rng.sample(products, rng.choice((2, 3))):
            title, body = text.review(rng, rng.choice(vocab.REVIEW_PHRASES), leaf.rstrip("s"), 5)
            day = _day(rng, date(2022, 6, 1), 300)
            rows.append((next_id + len(rows), pid, nick, 5, title, body, day, "Approved"))
    conn.executemany("INSERT INTO shop_reviews VALUES (?,?,?,?,?,?,?,?)", rows)
    for row in rows:
        refresh_rating(conn, row[1])


def _variants(conn: sqlite3.Connection, rng: random.Random) -> None:
    conn.execute(
        "CREATE TABLE shop_variants (id INTEGER PRIMARY KEY, product_id INTEGER, size TEXT, "
        "color TEXT, qty INTEGER)"
    )
    conn.execute("CREATE INDEX shop_variants_product ON shop_variants(product_id)")
    rows = []
    for pid, sizes, color in conn.execute(
        "SELECT id, sizes, color FROM shop_products WHERE sizes != '' ORDER BY id"
    ).fetchall():
        colors = [color]
        if rng.random() < 0.125:
            colors += rng.sample([c for c in vocab.COLORS if c != color], 2)
        for c in colors:
            for size in sizes.split(","):
                rows.append((pid, size, c, rng.randrange(0, 60)))
    conn.executemany(
        "INSERT INTO shop_variants (product_id, size, color, qty) VALUES (?,?,?,?)", rows
    )
