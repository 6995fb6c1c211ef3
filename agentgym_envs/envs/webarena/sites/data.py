"""The seeded state of every site at WebArena's scale: one SQLite schema (tables prefixed by
site) filled deterministically from a seed.

Sizes: a storefront of 20,196 products over a 3-level category tree (12 x 3 x 3 = 108
leaves) with brands, colours, sizes, materials and about 40,000 reviews; 600 customers and
1,600 orders; 90 forums with 4,000 submissions and about 14,700 threaded comments (a reply
names its ``parent_id``) by 1,100 users; 210 projects (their git repositories are
:mod:`.repos`'s: about 4,100 commits over real file trees), about 3,500 issues, 476 merge
requests (one per feature branch, whose diff the merge request page shows) and 300 users.
Texts come from :mod:`.text`'s grammars, filled from the item they are about: titles and
bodies rarely repeat (``benchmarks/bench_webarena_content.py`` prints the distinct ratios).
:func:`seed_database` writes the database; :mod:`.build` caches it with the repositories and
the wiki, and episodes copy it (copy-on-reset), so a task that changes state never leaks.
"""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from agentgym_envs.envs.webarena.sites import text, vocab
from agentgym_envs.envs.webarena.sites.common import password_hash
from agentgym_envs.envs.webarena.sites.vocab import LABELS, REVIEW_PHRASES, ROLES

SEED = 0
#: Leaves x products per leaf = 108 x 187 = 20,196 products.
PRODUCTS_PER_LEAF = 187
N_CUSTOMERS = 600
N_ORDERS = 1600
N_FORUMS = 90
N_FORUM_USERS = 1100
N_POSTS = 4000
N_PROJECTS = 210
N_CODE_USERS = 300

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
CREATE TABLE shop_categories (id INTEGER PRIMARY KEY, parent_id INTEGER, name TEXT,
    level INTEGER, path TEXT UNIQUE);
CREATE TABLE shop_products (id INTEGER PRIMARY KEY, sku TEXT UNIQUE, name TEXT, price REAL,
    category_id INTEGER, top TEXT, category TEXT, brand TEXT, color TEXT, material TEXT,
    sizes TEXT, description TEXT, qty INTEGER, status TEXT, created TEXT,
    rating REAL, review_count INTEGER);
CREATE INDEX shop_products_cat ON shop_products(category_id);
CREATE TABLE shop_customers (email TEXT PRIMARY KEY, name TEXT, password TEXT, address TEXT,
    phone TEXT, created TEXT, grp TEXT);
CREATE TABLE shop_orders (id INTEGER PRIMARY KEY, number TEXT UNIQUE, email TEXT, created TEXT,
    status TEXT, grand_total REAL, shipping REAL, address TEXT);
CREATE INDEX shop_orders_email ON shop_orders(email);
CREATE TABLE shop_order_items (order_id INTEGER, product_id INTEGER, qty INTEGER, price REAL,
    options TEXT);
CREATE INDEX shop_order_items_order ON shop_order_items(order_id);
CREATE TABLE shop_invoices (id INTEGER PRIMARY KEY, number TEXT UNIQUE, order_id INTEGER,
    created TEXT, grand_total REAL);
CREATE TABLE shop_reviews (id INTEGER PRIMARY KEY, product_id INTEGER, author TEXT,
    rating INTEGER, title TEXT, body TEXT, created TEXT, status TEXT);
CREATE INDEX shop_reviews_product ON shop_reviews(product_id);
CREATE TABLE shop_cart (email TEXT, product_id INTEGER, qty INTEGER, options TEXT);
CREATE TABLE shop_wishlist (email TEXT, product_id INTEGER);
CREATE TABLE shop_cms_pages (id INTEGER PRIMARY KEY, title TEXT, url_key TEXT UNIQUE,
    status TEXT, content TEXT, updated TEXT);
CREATE TABLE admin_users (username TEXT PRIMARY KEY, password TEXT);
CREATE TABLE forum_users (name TEXT PRIMARY KEY, password TEXT, bio TEXT, created TEXT);
CREATE TABLE forum_forums (name TEXT PRIMARY KEY, title TEXT, description TEXT, created TEXT,
    creator TEXT);
CREATE TABLE forum_posts (id INTEGER PRIMARY KEY, forum TEXT, author TEXT, title TEXT,
    body TEXT, created TEXT, base_score INTEGER);
CREATE INDEX forum_posts_forum ON forum_posts(forum);
CREATE INDEX forum_posts_author ON forum_posts(author);
CREATE TABLE forum_comments (id INTEGER PRIMARY KEY, post_id INTEGER, author TEXT, body TEXT,
    created TEXT, parent_id INTEGER);
CREATE INDEX forum_comments_post ON forum_comments(post_id);
CREATE TABLE forum_votes (user TEXT, post_id INTEGER, value INTEGER,
    PRIMARY KEY (user, post_id));
CREATE TABLE code_users (username TEXT PRIMARY KEY, name TEXT, password TEXT, email TEXT);
CREATE TABLE code_groups (path TEXT PRIMARY KEY, name TEXT, description TEXT);
CREATE TABLE code_projects (id INTEGER PRIMARY KEY, namespace TEXT, name TEXT,
    description TEXT, stars INTEGER, forks INTEGER, language TEXT, visibility TEXT,
    created TEXT, default_branch TEXT);
CREATE TABLE code_members (project_id INTEGER, username TEXT, role TEXT);
CREATE TABLE code_issues (id INTEGER PRIMARY KEY, project_id INTEGER, iid INTEGER, title TEXT,
    body TEXT, state TEXT, labels TEXT, author TEXT, assignee TEXT, created TEXT, due TEXT);
CREATE INDEX code_issues_project ON code_issues(project_id);
CREATE TABLE code_merge_requests (id INTEGER PRIMARY KEY, project_id INTEGER, iid INTEGER,
    title TEXT, state TEXT, author TEXT, source_branch TEXT, target_branch TEXT, created TEXT,
    description TEXT, reviewer TEXT, assignee TEXT);
CREATE TABLE code_commits (id INTEGER PRIMARY KEY, project_id INTEGER, sha TEXT, author TEXT,
    day TEXT, message TEXT, branch TEXT);
CREATE INDEX code_commits_project ON code_commits(project_id);
CREATE TABLE code_todos (id INTEGER PRIMARY KEY, username TEXT, project_id INTEGER,
    target TEXT, body TEXT, state TEXT);
CREATE TABLE code_settings (project_id INTEGER PRIMARY KEY, description TEXT,
    visibility TEXT, topics TEXT);
CREATE TABLE code_stars (username TEXT, project_id INTEGER, PRIMARY KEY (username, project_id));
CREATE TABLE code_follows (follower TEXT, followee TEXT, PRIMARY KEY (follower, followee));
CREATE TABLE code_profiles (username TEXT PRIMARY KEY, status TEXT, website TEXT);
CREATE TABLE code_forks (project_id INTEGER PRIMARY KEY, source_id INTEGER);
CREATE TABLE code_notes (id INTEGER PRIMARY KEY, project_id INTEGER, mr_iid INTEGER,
    author TEXT, body TEXT);
CREATE TABLE code_milestones (id INTEGER PRIMARY KEY, project_id INTEGER, title TEXT,
    start_date TEXT, due_date TEXT);
CREATE TABLE code_group_members (path TEXT, username TEXT, role TEXT);
CREATE TABLE code_file_edits (id INTEGER PRIMARY KEY, project_id INTEGER, commit_no INTEGER,
    path TEXT, content TEXT, message TEXT, author TEXT, day TEXT);
"""


def slug(text: str) -> str:
    """Magento's URL key: lower case, runs of other characters as one dash."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _day(rng: random.Random, start: date, span: int) -> str:
    return (start + timedelta(days=rng.randrange(span))).isoformat()


def _when(rng: random.Random, start: date, span: int) -> str:
    moment = datetime(start.year, start.month, start.day) + timedelta(
        days=rng.randrange(span), seconds=rng.randrange(86400)
    )
    return moment.isoformat(sep=" ")


def _person(rng: random.Random) -> str:
    return f"{rng.choice(vocab.FIRST)} {rng.choice(vocab.LAST)}"


# -- storefront and admin -----------------------------------------------------------------
def _shop(conn: sqlite3.Connection, rng: random.Random) -> None:
    _categories_and_products(conn, rng)
    people = _shop_customers(conn, rng)
    _shop_orders(conn, rng, people)
    _shop_reviews(conn, rng)
    _cms_pages(conn)
    conn.execute(
        "INSERT INTO admin_users VALUES (?,?)", (ADMIN_USER, password_hash(ADMIN_PASSWORD))
    )


def _categories_and_products(conn: sqlite3.Connection, rng: random.Random) -> None:
    cat_id, pid = 0, 0
    names: set[str] = set()
    products: list[tuple[Any, ...]] = []
    for top, subs in vocab.CATEGORIES.items():
        cat_id += 1
        top_id = cat_id
        conn.execute(
            "INSERT INTO shop_categories VALUES (?,?,?,?,?)", (top_id, None, top, 1, slug(top))
        )
        for sub, leaves in subs.items():
            cat_id += 1
            sub_id, sub_path = cat_id, f"{slug(top)}/{slug(sub)}"
            conn.execute(
                "INSERT INTO shop_categories VALUES (?,?,?,?,?)", (sub_id, top_id, sub, 2, sub_path)
            )
            for leaf, nouns in leaves.items():
                cat_id += 1
                conn.execute(
                    "INSERT INTO shop_categories VALUES (?,?,?,?,?)",
                    (cat_id, sub_id, leaf, 3, f"{sub_path}/{slug(leaf)}"),
                )
                for _ in range(PRODUCTS_PER_LEAF):
                    pid += 1
                    products.append(_product(rng, pid, cat_id, top, leaf, nouns, names))
    conn.executemany(
        "INSERT INTO shop_products VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", products
    )


def _product(rng, pid, cat_id, top, leaf, nouns, names) -> tuple[Any, ...]:
    brand, color = rng.choice(vocab.BRANDS), rng.choice(vocab.COLORS)
    material = rng.choice(vocab.MATERIALS)
    while True:
        adjective = rng.choice(vocab.ADJECTIVES)
        noun = rng.choice(nouns)
        name = f"{brand} {adjective} {noun}"
        extra = rng.random()
        if extra < 0.4:
            name += f", {color}"
        elif extra < 0.7:
            name += f" ({rng.choice((2, 3, 4, 6, 12, 24))} Pack)"
        elif extra < 0.85:
            name += f" {rng.randrange(2, 99)}{rng.choice(('oz', 'in', 'ct', 'mm'))}"
        if name not in names:
            names.add(name)
            break
        brand = rng.choice(vocab.BRANDS)
    sizes = ",".join(vocab.SIZES) if top in vocab.SIZED else ""
    price = round(rng.choice((4.99, 9.99, 14.99, 19.99, 24.99)) + rng.randrange(0, 200) * 0.5, 2)
    desc = (
        f"The {name} from {brand} is part of our {leaf} range. Made of {material.lower()}, "
        f"finished in {color.lower()}. {rng.choice(vocab.ADJECTIVES)} design for everyday use. "
        + text.uses(random.Random(f"webarena-uses-{pid}"), noun, leaf)
    )
    return (
        pid,
        f"B0{pid:08d}",
        name,
        price,
        cat_id,
        top,
        leaf,
        brand,
        color,
        material,
        sizes,
        desc,
        rng.randrange(0, 500),
        "Enabled" if rng.random() < 0.97 else "Disabled",
        _day(rng, date(2021, 1, 1), 800),
        0.0,
        0,
    )


def _address(rng: random.Random) -> str:
    city, state = rng.choice(vocab.CITIES)
    return (
        f"{rng.randrange(10, 9999)} {rng.choice(vocab.STREETS)}, {city}, {state} "
        f"{rng.randrange(10000, 99999)}"
    )


def _shop_customers(conn: sqlite3.Connection, rng: random.Random) -> list[str]:
    """The customers' emails, the test account first."""
    rows = [
        (
            SHOP_USER,
            "Emma Lopez",
            password_hash(SHOP_PASSWORD),
            "101 S San Mateo Dr, San Mateo, CA 94010",
            "6505551212",
            "2021-03-04",
            "General",
        )
    ]
    seen = {SHOP_USER}
    other = password_hash("Password.456")
    while len(rows) < N_CUSTOMERS:
        first, last = rng.choice(vocab.FIRST), rng.choice(vocab.LAST)
        email = f"{first.lower()}.{last.lower()}{rng.randrange(1, 99)}@example.com"
        if email in seen:
            continue
        seen.add(email)
        rows.append(
            (
                email,
                f"{first} {last}",
                other,
                _address(rng),
                f"{rng.randrange(200, 999)}555{rng.randrange(1000, 9999)}",
                _day(rng, date(2021, 1, 1), 700),
                rng.choice(("General", "General", "Wholesale", "Retailer")),
            )
        )
    conn.executemany("INSERT INTO shop_customers VALUES (?,?,?,?,?,?,?)", rows)
    return [r[0] for r in rows]


ORDER_STATUSES = ("complete", "complete", "complete", "canceled", "pending", "processing")


def _shop_orders(conn: sqlite3.Connection, rng: random.Random, people: list[str]) -> None:
    """The orders (one in twenty the test account's); complete ones have an invoice."""
    prices = dict(conn.execute("SELECT id, price FROM shop_products"))
    sized = {r[0] for r in conn.execute("SELECT id FROM shop_products WHERE sizes != ''")}
    n_products = len(prices)
    items, orders, invoices = [], [], []
    for oid in range(1, N_ORDERS + 1):
        email = SHOP_USER if oid % 20 == 0 else rng.choice(people[1:])
        total = 0.0
        for _ in range(rng.randrange(1, 5)):
            pid, qty = rng.randrange(1, n_products + 1), rng.randrange(1, 4)
            options = f"Size: {rng.choice(vocab.SIZES)}" if pid in sized else ""
            items.append((oid, pid, qty, prices[pid], options))
            total += prices[pid] * qty
        shipping = 5.0 * rng.randrange(1, 4)
        created = _when(rng, date(2022, 1, 1), 500)
        status = rng.choice(ORDER_STATUSES)
        total = round(total + shipping, 2)
        orders.append((oid, f"{oid:09d}", email, created, status, total, shipping, _address(rng)))
        if status == "complete":
            invoices.append((f"{oid:09d}", oid, created, total))
    conn.executemany("INSERT INTO shop_orders VALUES (?,?,?,?,?,?,?,?)", orders)
    conn.executemany("INSERT INTO shop_order_items VALUES (?,?,?,?,?)", items)
    conn.executemany(
        "INSERT INTO shop_invoices (number, order_id, created, grand_total) VALUES (?,?,?,?)",
        invoices,
    )


def _shop_reviews(conn: sqlite3.Connection, rng: random.Random) -> None:
    """Reviews: each about one of the review phrases (the title starts with it, the body
    repeats the title), written about the product's own noun."""
    products = conn.execute("SELECT id, category FROM shop_products ORDER BY id").fetchall()
    rows = []
    for pid, leaf in products:
        for _ in range(rng.choice((0, 0, 1, 1, 2, 3, 4, 5))):
            phrase = rng.choice(REVIEW_PHRASES)
            rating = rng.choice((1, 2, 3, 4, 4, 5, 5, 5))
            title, body = text.review(rng, phrase, leaf.rstrip("s"), rating)
            rows.append(
                (
                    len(rows) + 1,
                    pid,
                    f"{rng.choice(vocab.FIRST)} {rng.choice(vocab.LAST)[0]}.",
                    rating,
                    title,
                    body,
                    _day(rng, date(2022, 1, 1), 500),
                    "Approved",
                )
            )
    conn.executemany("INSERT INTO shop_reviews VALUES (?,?,?,?,?,?,?,?)", rows)
    conn.execute(
        "UPDATE shop_products SET rating = COALESCE((SELECT ROUND(AVG(rating), 1) FROM "
        "shop_reviews r WHERE r.product_id = shop_products.id), 0), review_count = "
        "(SELECT COUNT(*) FROM shop_reviews r WHERE r.product_id = shop_products.id)"
    )


CMS_PAGES = (
    ("404 Not Found", "no-route", "Enabled"),
    ("Home Page", "home", "Enabled"),
    ("Enable Cookies", "enable-cookies", "Enabled"),
    ("Privacy and Cookie Policy", "privacy-policy-cookie-restriction-mode", "Enabled"),
    ("About us", "about-us", "Enabled"),
    ("Customer Service", "customer-service", "Enabled"),
    ("Shipping Policy", "shipping-policy", "Disabled"),
    ("Returns", "returns", "Enabled"),
)


def _cms_pages(conn: sqlite3.Connection) -> None:
    conn.executemany(
        "INSERT INTO shop_cms_pages (title, url_key, status, content, updated) VALUES (?,?,?,?,?)",
        [
            (t, k, s, f"<p>{t} of One Stop Market.</p>", f"2022-0{1 + i % 9}-1{i}")
            for i, (t, k, s) in enumerate(CMS_PAGES)
        ],
    )


# -- forum ----------------------------------------------------------------------------------
def forum_names() -> list[str]:
    """The forums, deterministic: the stems, then the stems with suffixes."""
    names = [s + x for x in vocab.FORUM_SUFFIXES for s in vocab.FORUM_STEMS]
    return names[:N_FORUMS]


def _forum_users(rng: random.Random) -> list[str]:
    users, seen = [FORUM_USER], {FORUM_USER}
    while len(users) < N_FORUM_USERS:
        name = rng.choice(vocab.USER_WORDS) + "_" + rng.choice(vocab.USER_NOUNS)
        if rng.random() < 0.7:
            name += str(rng.randrange(1, 999))
        if name not in seen:
            seen.add(name)
            users.append(name)
    return users


def _forum(conn: sqlite3.Connection, rng: random.Random) -> None:
    users = _forum_users(rng)
    other = password_hash("test5678")
    conn.executemany(
        "INSERT INTO forum_users VALUES (?,?,?,?)",
        [
            (
                u,
                password_hash(FORUM_PASSWORD) if u == FORUM_USER else other,
                "" if u == FORUM_USER else f"Hi, I am {u}.",
                _day(rng, date(2020, 1, 1), 900),
            )
            for u in users
        ],
    )
    forums = forum_names()
    conn.executemany(
        "INSERT INTO forum_forums VALUES (?,?,?,?,?)",
        [
            (
                f,
                f.replace("_", " ").title(),
                f"Everything about {f.replace('_', ' ')}",
                _day(rng, date(2019, 1, 1), 700),
                rng.choice(users[1:]),
            )
            for f in forums
        ],
    )
    posts, comments = [], []
    titles: set[str] = set()
    for pid in range(1, N_POSTS + 1):
        forum = forums[min(int(rng.paretovariate(1.2)) - 1, len(forums) - 1)]
        if rng.random() < 0.5:
            forum = rng.choice(forums)
        things = text.forum_things(forum)
        where = "/f/" + forum
        created = _when(rng, date(2022, 6, 1), 400)
        title = text.post_title(rng, rng.choice(things), rng.choice(things), where)
        while title in titles:
            title = text.post_title(rng, rng.choice(things), rng.choice(things), where)
        titles.add(title)
        thing = rng.choice(things)
        posts.append(
            (
                pid,
                forum,
                rng.choice(users[1:]),
                title,
                text.post_body(rng, thing, where),
                created,
                rng.randrange(-5, 300),
            )
        )
        thread: list[int] = []
        start = datetime.fromisoformat(created)
        for c in range(rng.choice((0, 0, 1, 1, 2, 2, 3, 4, 5, 6, 8, 12))):
            parent = rng.choice(thread) if thread and rng.random() < 0.45 else None
            cid = len(comments) + 1
            when = start + timedelta(minutes=17 * (c + 1) + rng.randrange(0, 600))
            comments.append(
                (
                    cid,
                    pid,
                    rng.choice(users[1:]),
                    text.reply(rng, rng.choice(things)),
                    when.isoformat(sep=" "),
                    parent,
                )
            )
            thread.append(cid)
    conn.executemany("INSERT INTO forum_posts VALUES (?,?,?,?,?,?,?)", posts)
    conn.executemany("INSERT INTO forum_comments VALUES (?,?,?,?,?,?)", comments)


# -- code host --------------------------------------------------------------------------------
def _code_users(rng: random.Random) -> list[tuple[str, str]]:
    users = [(CODE_USER, "Byte Blaze")]
    seen = {CODE_USER}
    while len(users) < N_CODE_USERS:
        first, last = rng.choice(vocab.FIRST), rng.choice(vocab.LAST)
        name = f"{first.lower()}{last.lower()[: rng.randrange(1, 6)]}"
        if name not in seen:
            seen.add(name)
            users.append((name, f"{first} {last}"))
    return users


def project_plan(seed: int = SEED) -> list[dict[str, Any]]:
    """Every project: namespace, name, description, language, created day; deterministic
    (the repositories and the database are built from the same plan)."""
    rng = random.Random(f"webarena-projects-{seed}")
    groups = ["primer", "kolibri", "metis", "a11yproject", "openstack", "gnome", "vinta", "yjlou"]
    owners = [CODE_USER, *groups, *(f"team-{w}" for w in vocab.PROJECT_WORDS[:12])]
    plan, seen = [], set()
    fixed = [
        (CODE_USER, "a11y-syntax-highlighting"),
        (CODE_USER, "dotfiles"),
        (CODE_USER, "cloud-to-butt"),
        ("primer", "design"),
    ]
    while len(plan) < N_PROJECTS:
        if fixed:
            ns, name = fixed.pop(0)
        else:
            ns = rng.choice(owners)
            name = "-".join(rng.sample(vocab.PROJECT_WORDS, rng.choice((1, 2, 2, 3))))
        if (ns, name) in seen:
            continue
        seen.add((ns, name))
        language, ext = rng.choice(vocab.LANGUAGES)
        plan.append(
            {
                "id": len(plan) + 1,
                "namespace": ns,
                "name": name,
                "description": f"{name.replace('-', ' ').capitalize()}: a small {language} project",
                "language": language,
                "ext": ext,
                "created": _day(rng, date(2020, 1, 1), 900),
            }
        )
    return plan


def _code(conn: sqlite3.Connection, rng: random.Random, commits: list[tuple[Any, ...]]) -> None:
    """The code host's tables: users, groups, projects with their members, issues and to-dos,
    merge requests and commits (``rng`` drawn in this order: the data depend on it)."""
    names = _code_accounts(conn, rng)
    plan = project_plan()
    groups = sorted({p["namespace"] for p in plan} - {CODE_USER})
    conn.executemany(
        "INSERT INTO code_groups VALUES (?,?,?)",
        [(g, g.replace("-", " ").title(), f"The {g} group") for g in groups],
    )
    issue_rows, member_rows, todo_rows = [], [], []
    for p in plan:
        conn.execute("INSERT INTO code_projects VALUES (?,?,?,?,?,?,?,?,?,?)", _project_row(rng, p))
        member_rows += _project_members(rng, p, names)
        issue_rows += _project_issues(rng, p, names)
        if p["id"] <= 40 and rng.random() < 0.5:
            todo_rows.append(
                (CODE_USER, p["id"], "Issue #1", f"You are mentioned in {p['name']}", "pending")
            )
    _insert_code_rows(
        conn,
        issues=issue_rows,
        merge_requests=_merge_requests(rng, commits),
        members=member_rows,
        todos=todo_rows,
        commits=commits,
    )


def _code_accounts(conn: sqlite3.Connection, rng: random.Random) -> list[str]:
    """The code host's users (Byte Blaze first), written; their user names."""
    users = _code_users(rng)
    conn.executemany(
        "INSERT INTO code_users VALUES (?,?,?,?)",
        [
            (
                u,
                n,
                password_hash(CODE_PASSWORD if u == CODE_USER else "hello5678"),
                f"{u}@example.com",
            )
            for u, n in users
        ],
    )
    return [u for u, _ in users]


def _project_row(rng: random.Random, p: dict[str, Any]) -> tuple[Any, ...]:
    """A project's ``code_projects`` row: stars, forks and visibility drawn."""
    return (
        p["id"],
        p["namespace"],
        p["name"],
        p["description"],
        int(rng.paretovariate(0.9)) - 1,
        rng.randrange(0, 30),
        p["language"],
        rng.choice(("Public", "Public", "Private", "Internal")),
        p["created"],
        "main",
    )


def _project_members(
    rng: random.Random, p: dict[str, Any], names: list[str]
) -> list[tuple[int, str, str]]:
    """A project's members: its owner, often Byte Blaze, and a few others with roles."""
    pid = p["id"]
    owner = p["namespace"] if p["namespace"] in names else CODE_USER
    rows = [(pid, owner, "Owner")]
    if owner != CODE_USER and rng.random() < 0.5:
        rows.append((pid, CODE_USER, rng.choice(ROLES[1:4])))
    for u in rng.sample(names[1:], rng.randrange(1, 7)):
        if u != owner:
            rows.append((pid, u, rng.choice(ROLES[:4])))
    return rows


def _project_issues(
    rng: random.Random, p: dict[str, Any], names: list[str]
) -> list[tuple[Any, ...]]:
    """A project's issues, numbered from 1, about the project's parts."""
    base = p["name"].replace("-", " ")
    parts = ("CLI", "config loader", "README", "test suite", "parser", "cache", "release script")
    components = [base, f"the {p['language']} bindings of {base}"] + [
        f"the {base} {part}" for part in parts
    ]
    rows = []
    for iid in range(1, rng.choice((3, 5, 8, 12, 15, 20, 30, 40)) + 1):
        title, body = text.issue(rng, components)
        rows.append(
            (
                p["id"],
                iid,
                title,
                body,
                "opened" if rng.random() < 0.6 else "closed",
                ",".join(sorted(rng.sample(LABELS, rng.choice((0, 1, 1, 2, 3))))),
                rng.choice(names),
                rng.choice(names) if rng.random() < 0.4 else "",
                _day(rng, date(2022, 1, 1), 600),
            )
        )
    return rows


def _merge_requests(rng: random.Random, commits: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """One merge request per feature branch of the commits, its state drawn."""
    rows = []
    names = {p["id"]: p["name"] for p in project_plan()}
    for pid, iid, branch, author, created in _mr_branches(commits):
        title, description = text.merge_request(rng, branch, [], names.get(pid, ""))
        rows.append(
            (
                pid,
                iid,
                title,
                rng.choice(("opened", "opened", "merged", "closed")),
                author,
                branch,
                "main",
                created,
                description,
            )
        )
    return rows


def _insert_code_rows(
    conn: sqlite3.Connection,
    *,
    issues: list[tuple[Any, ...]],
    merge_requests: list[tuple[Any, ...]],
    members: list[tuple[int, str, str]],
    todos: list[tuple[Any, ...]],
    commits: list[tuple[Any, ...]],
) -> None:
    """Write the code host's per-project rows."""
    conn.executemany(
        "INSERT INTO code_issues (project_id, iid, title, body, state, labels, author, "
        "assignee, created) VALUES (?,?,?,?,?,?,?,?,?)",
        issues,
    )
    conn.executemany(
        "INSERT INTO code_merge_requests (project_id, iid, title, state, author, source_branch, "
        "target_branch, created, description) VALUES (?,?,?,?,?,?,?,?,?)",
        merge_requests,
    )
    conn.executemany("INSERT INTO code_members VALUES (?,?,?)", members)
    # merge requests: assigned to their author, reviewed by the project's first other member
    conn.execute(
        "UPDATE code_merge_requests SET assignee = author, reviewer = (SELECT m.username FROM "
        "code_members m WHERE m.project_id = code_merge_requests.project_id AND m.username != "
        "code_merge_requests.author ORDER BY m.rowid LIMIT 1)"
    )
    # the open ones Byte Blaze reviews: a review question, answered by the author on every other
    conn.execute(
        "INSERT INTO code_notes (project_id, mr_iid, author, body) SELECT project_id, iid, "
        "reviewer, 'Could you add a test that covers ' || lower(title) || ' before I approve?' "
        "FROM code_merge_requests WHERE reviewer = ? AND state = 'opened' ORDER BY id",
        (CODE_USER,),
    )
    conn.execute(
        "INSERT INTO code_notes (project_id, mr_iid, author, body) SELECT project_id, iid, "
        "author, 'Added the test for ' || lower(title) || ' in the last commit, please take "
        "another look.' FROM code_merge_requests WHERE reviewer = ? AND state = 'opened' AND "
        "id % 2 = 0 ORDER BY id",
        (CODE_USER,),
    )
    conn.executemany(
        "INSERT INTO code_todos (username, project_id, target, body, state) VALUES (?,?,?,?,?)",
        todos,
    )
    conn.executemany(
        "INSERT INTO code_commits (project_id, sha, author, day, message, branch) "
        "VALUES (?,?,?,?,?,?)",
        commits,
    )


def _mr_branches(commits: list[tuple[Any, ...]]) -> Iterator[tuple[int, int, str, str, str]]:
    """One merge request per feature branch: (project, iid, branch, author, first day)."""
    seen: dict[tuple[int, str], tuple[str, str]] = {}
    for pid, _sha, author, day, _msg, branch in commits:
        if branch != "main" and (pid, branch) not in seen:
            seen[(pid, branch)] = (author, day)
    iids: dict[int, int] = {}
    for (pid, branch), (author, day) in sorted(seen.items()):
        iids[pid] = iids.get(pid, 0) + 1
        yield pid, iids[pid], branch, author, day


def code_user_names(seed: int = SEED) -> list[str]:
    """The code host's usernames, in the order the database has them."""
    return [u for u, _ in _code_users(random.Random(seed + 2))]


def seed_database(path: Path, commits: list[tuple[Any, ...]], seed: int = SEED) -> Path:
    """Write the seeded database of every site to ``path`` (overwritten) and return it.
    ``commits`` are the repositories' commits as :func:`.repos.build_repos` made them."""
    path = Path(path)
    if path.exists():
        path.unlink()
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA journal_mode=OFF")
        conn.execute("PRAGMA synchronous=OFF")
        conn.executescript(SCHEMA)
        _shop(conn, random.Random(seed))
        _forum(conn, random.Random(seed + 1))
        from agentgym_envs.envs.webarena.sites.seed_extras import seed_extras

        seed_extras(conn, seed)
        from agentgym_envs.envs.webarena.sites.seed_shop import seed_shop

        seed_shop(conn, seed)
        from agentgym_envs.envs.webarena.sites.photos import seed_photos

        seed_photos(conn, seed)
        _code(conn, random.Random(seed + 2), commits)
        conn.commit()
        conn.execute("PRAGMA journal_mode=DELETE")
    finally:
        conn.close()
    return path
