"""WebArena's kinds of intent templates, instantiated over the seeded sites.

Each template is a generator ``fn(db) -> configs`` registered with :func:`template` under a
site key; :func:`instantiate` draws from every site's templates in turn until the site has
its WebArena share of the 812 tasks (:data:`SITE_SHARES`). Reference answers are computed
from the database the sites serve. Every config carries ``agentgym_solution``, the expert's
plan: ``["click", role, name]``, ``["type", role, name, text, enter]``, ``["press", key]``,
``["goto", url]``, ``["stop", answer]``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any
from urllib.parse import quote, quote_plus

from agentgym_envs.envs.webarena.sites.data import (
    CMS_PAGES,
    FORUM_USER,
    LABELS,
    REVIEW_PHRASES,
    SHOP_USER,
)

#: WebArena's 812 tasks by site (measured from test.raw.json). We have no map: its 109 tasks
#: are the wiki's here; the multi-site share is spread over pairs of our sites.
SITE_SHARES = {
    "shopping": 187,
    "shopping_admin": 182,
    "gitlab": 180,
    "wikipedia": 109,
    "reddit": 106,
    "multi": 48,
}
#: Test tasks per site (AgentEval's 20, in WebArena's proportions).
TEST_SHARES = {
    "shopping": 5,
    "shopping_admin": 4,
    "gitlab": 4,
    "wikipedia": 3,
    "reddit": 3,
    "multi": 1,
}

Template = Callable[[sqlite3.Connection], Iterator[dict[str, Any]]]
TEMPLATES: list[tuple[str, str, Template]] = []


def template(site: str, template_id: str) -> Callable[[Template], Template]:
    def add(fn: Template) -> Template:
        TEMPLATES.append((site, template_id, fn))
        return fn

    return add


def fill(text: str, **values: Any) -> str:
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", str(value))
    return text


def config(
    sites: list[str] | str,
    tpl: str,
    start: str,
    eval_: dict[str, Any],
    solution: list[list[Any]],
    login: bool = True,
    **inst: Any,
) -> dict[str, Any]:
    """A WebArena config for the intent ``tpl`` filled with ``inst``."""
    sites = [sites] if isinstance(sites, str) else sites
    ev = {
        "eval_types": [],
        "reference_answers": None,
        "reference_url": "",
        "program_html": [],
        "string_note": "",
    }
    ev.update(eval_)
    if "url_match" in ev["eval_types"]:
        ev.setdefault("url_note", "GOLD in PRED")
    return {
        "sites": sites,
        "require_login": login,
        "storage_state": f"./.auth/{'.'.join(sites)}_state.json" if login else None,
        "start_url": start,
        "geolocation": None,
        "intent_template": tpl,
        "instantiation_dict": inst,
        "intent": fill(tpl, **inst),
        "require_reset": False,
        "eval": ev,
        "agentgym_solution": solution,
    }


def must(*values: Any) -> dict[str, Any]:
    return {"eval_types": ["string_match"], "reference_answers": {"must_include": list(values)}}


def exact(value: Any) -> dict[str, Any]:
    return {"eval_types": ["string_match"], "reference_answers": {"exact_match": str(value)}}


def url(ref: str) -> dict[str, Any]:
    return {"eval_types": ["url_match"], "reference_url": ref}


def html(*targets: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "eval_types": ["program_html"],
        "program_html": [
            {"url": u, "locator": loc, "required_contents": req} for u, loc, req in targets
        ],
    }


def money(value: float) -> str:
    return f"${value:,.2f}"


def spaced(rows: list[Any], n: int) -> list[Any]:
    """``n`` rows spread evenly over ``rows`` (deterministic)."""
    if len(rows) <= n:
        return list(rows)
    step = len(rows) / n
    return [rows[int(i * step)] for i in range(n)]


# -- shopping ------------------------------------------------------------------------------
SHOP = "__SHOPPING__"


def _products(db, n: int, where: str = "1=1", offset: int = 0) -> list[sqlite3.Row]:
    rows = db.execute(
        f"SELECT * FROM shop_products WHERE status='Enabled' AND qty > 0 AND {where} ORDER BY id"
    ).fetchall()
    return spaced(rows[offset:], n)


def _open_product(p) -> list[list[Any]]:
    return [["goto", f"{SHOP}/product/{p['sku']}"]]


def _to_reviews(db, product_id: int) -> list[list[Any]]:
    """On a product's page: its "N Reviews" link (to the reviews, below the fold)."""
    from agentgym_envs.envs.webarena.wa_shop import _to_reviews as to_reviews

    return to_reviews(db, product_id)


def _to_project(db, p) -> list[list[Any]]:
    """GitLab's dashboard -> Explore projects -> filter -> the project (as a user gets there)."""
    from agentgym_envs.envs.webarena.wa_code import open_project

    return open_project(db, p)


def _to_forum(db, forum: str) -> list[list[Any]]:
    """Postmill's Forums list -> its pages -> ``forum``."""
    from agentgym_envs.envs.webarena.wa_forum import to_forum

    return to_forum(db, forum)


def _to_month(db, month: str) -> list[list[Any]]:
    """My Account -> My Orders -> the pages down to ``month``'s orders."""
    from agentgym_envs.envs.webarena.wa_shop import _to_month as to_month

    return to_month(db, month)


def _category_path(db, c) -> list[list[Any]]:
    """The store's menu and category pages' links down to category ``c``."""
    from agentgym_envs.envs.webarena.wa_shop import _category_path as path

    return path(db, c)


def _find_post(db, post) -> list[list[Any]]:
    """Postmill's search for the post's title -> the results' pages (newest first, 25 a page;
    the search reads the first 6 words) -> the post (a goto when it is past the third page or
    a newer post of the same title would be clicked first)."""
    words = post["title"].lower().split()[:6]
    rows = db.execute(
        "SELECT id, title FROM forum_posts WHERE "
        + " AND ".join("lower(title) LIKE ?" for _ in words)
        + " ORDER BY created DESC LIMIT 500",
        [f"%{w}%" for w in words],
    ).fetchall()
    ids = [r["id"] for r in rows]
    if post["id"] not in ids:
        return [["goto", f"{REDDIT}/f/{post['forum']}/{post['id']}"]]
    rank = ids.index(post["id"])
    page = rows[rank - rank % 25 : rank + 1]
    if rank >= 75 or any(r["title"] == post["title"] for r in page[:-1]):
        return [["goto", f"{REDDIT}/f/{post['forum']}/{post['id']}"]]
    return [
        ["type", "searchbox", "Search query", post["title"], 1],
        *[["click", "link", "Next Page"]] * (rank // 25),
        ["click", "link", post["title"]],
    ]


def _project_of(db, row) -> sqlite3.Row:
    return db.execute("SELECT * FROM code_projects WHERE id=?", (row["project_id"],)).fetchone()


#: A project's sidebar "Issues" (the top bar's "Issues", your dashboard's, comes first).
ISSUES = ["click", "link", "Issues", 2]


def _search_product(p) -> list[list[Any]]:
    return [
        ["type", "searchbox", "Search entire store here...", p["name"], 1],
        ["click", "link", p["name"]],
    ]


@template("shopping", "shop_price")
def _shop_price(db):
    tpl = "What is the price of {{product}} in the One Stop Market?"
    for p in _products(db, 40):
        yield config(
            "shopping",
            tpl,
            SHOP,
            must(f"{p['price']:.2f}"),
            [*_search_product(p), ["stop", money(p["price"])]],
            login=False,
            product=p["name"],
        )


@template("shopping", "shop_review_count")
def _shop_review_count(db):
    tpl = "How many customer reviews does {{product}} have?"
    for p in _products(db, 30, "review_count > 0", 7):
        yield config(
            "shopping",
            tpl,
            SHOP,
            must(str(p["review_count"])),
            [*_open_product(p), ["stop", str(p["review_count"])]],
            login=False,
            product=p["name"],
        )


@template("shopping", "shop_reviewers_mention")
def _shop_reviewers(db):
    tpl = "List out reviewers, if exist, who mention about {{description}} in the reviews of {{product}}"
    rows = db.execute(
        "SELECT r.*, p.name, p.sku, p.status AS product_status FROM shop_reviews r JOIN "
        "shop_products p ON p.id=r.product_id WHERE r.id % 97 = 0 AND r.status='Approved' "
        "ORDER BY r.id"
    ).fetchall()
    for r in spaced(rows, 30):
        phrase = r["title"].lower()
        names = [
            a[0]
            for a in db.execute(
                "SELECT author FROM shop_reviews WHERE product_id=? AND status='Approved' AND "
                "lower(body) LIKE ? ORDER BY id",
                (r["product_id"], f"%{phrase}%"),
            )
        ]
        yield config(
            "shopping",
            tpl,
            SHOP,
            must(*names),
            [
                *(_search_product(r) if r["product_status"] == "Enabled" else _open_product(r)),
                *_to_reviews(db, r["product_id"]),
                ["stop", ", ".join(names)],
            ],
            login=False,
            description=phrase,
            product=r["name"],
        )


@template("shopping", "shop_order_status")
def _shop_order_status(db):
    tpl = "Tell me the status of my order {{number}}."
    rows = db.execute(
        "SELECT * FROM shop_orders WHERE email=? ORDER BY created DESC, id DESC", (SHOP_USER,)
    ).fetchall()
    for i, o in enumerate(rows[:30]):
        pages = [["click", "link", "Next Page"]] * (i // 10)
        yield config(
            "shopping",
            tpl,
            SHOP,
            must(o["status"]),
            [
                ["click", "link", "My Account"],
                ["click", "link", "My Orders"],
                *pages,
                ["click", "link", f"View Order {o['number']}"],
                ["stop", o["status"].capitalize()],
            ],
            number=o["number"],
        )


@template("shopping", "shop_spend_month")
def _shop_spend_month(db):
    tpl = "How much did I spend on shopping at One Stop Market in {{month}}? Count orders that were not canceled."
    rows = db.execute(
        "SELECT substr(created, 1, 7) AS m, ROUND(SUM(grand_total), 2) AS t FROM shop_orders "
        "WHERE email=? AND status != 'canceled' GROUP BY m ORDER BY m",
        (SHOP_USER,),
    ).fetchall()
    for r in rows[:16]:
        yield config(
            "shopping",
            tpl,
            SHOP,
            must(f"{r['t']:.2f}"),
            [*_to_month(db, r["m"]), ["stop", money(r["t"])]],
            month=r["m"],
            _pages=True,
        )


@template("shopping", "shop_search_nav")
def _shop_search_nav(db):
    tpl = 'Search for "{{query}}" in the store.'
    leaves = db.execute("SELECT name FROM shop_categories WHERE level=3 ORDER BY id").fetchall()
    for (leaf,) in spaced(leaves, 25):
        q = leaf.lower()
        yield config(
            "shopping",
            tpl,
            SHOP,
            url(f"{SHOP}/catalogsearch/result/?q={quote_plus(q)}"),
            [["type", "searchbox", "Search entire store here...", q, 1], ["stop", ""]],
            login=False,
            query=q,
        )


@template("shopping", "shop_category_nav")
def _shop_category_nav(db):
    tpl = "Show me the {{category}} products sorted by price, cheapest first."
    leaves = db.execute("SELECT * FROM shop_categories WHERE level=3 ORDER BY id").fetchall()
    for c in spaced(leaves, 25):
        yield config(
            "shopping",
            tpl,
            SHOP,
            url(f"{SHOP}/{c['path']}.html?product_list_order=price"),
            [*_category_path(db, c), ["click", "link", "Price"], ["stop", ""]],
            login=False,
            category=c["name"],
        )


@template("shopping", "shop_brand_filter")
def _shop_brand_filter(db):
    tpl = "Show me the {{brand}} products in the {{category}} category."
    leaves = db.execute("SELECT * FROM shop_categories WHERE level=3 ORDER BY id").fetchall()
    for k, c in enumerate(spaced(leaves, 20)):
        brand = db.execute(
            "SELECT brand, COUNT(*) AS n FROM shop_products WHERE category_id=? AND "
            "status='Enabled' GROUP BY brand ORDER BY n DESC, brand LIMIT 1 OFFSET ?",
            (c["id"], k % 3),
        ).fetchone()["brand"]
        yield config(
            "shopping",
            tpl,
            SHOP,
            url(f"{SHOP}/{c['path']}.html?brand={quote_plus(brand)}"),
            [*_category_path(db, c), ["click", "link", brand], ["stop", ""]],
            login=False,
            brand=brand,
            category=c["name"],
        )


@template("shopping", "shop_wishlist")
def _shop_wishlist(db):
    tpl = "Add {{product}} to my wish list."
    for p in _products(db, 20, offset=3):
        yield config(
            "shopping",
            tpl,
            SHOP,
            html((f"{SHOP}/wishlist", "", {"must_include": [p["name"]]})),
            [*_search_product(p), ["click", "button", "Add to Wish List"], ["stop", ""]],
            product=p["name"],
        )


@template("shopping", "shop_add_cart")
def _shop_add_cart(db):
    tpl = "Add {{product}} to my shopping cart."
    for p in _products(db, 20, offset=5):
        yield config(
            "shopping",
            tpl,
            SHOP,
            html((f"{SHOP}/checkout/cart", "", {"must_include": [p["name"]]})),
            [*_search_product(p), ["click", "button", "Add to Cart"], ["stop", ""]],
            product=p["name"],
        )


@template("shopping", "shop_buy")
def _shop_buy(db):
    tpl = "Buy {{product}} with {{shipping}} shipping."
    for k, p in enumerate(_products(db, 15, offset=9)):
        ship = ("Flat Rate", "Best Way")[k % 2]
        yield config(
            "shopping",
            tpl,
            SHOP,
            html(
                (
                    "func:shopping_get_latest_order_url()",
                    "",
                    {"must_include": [p["name"], "pending"]},
                )
            ),
            [
                *_open_product(p),
                ["click", "button", "Add to Cart"],
                ["click", "link", "Proceed to Checkout"],
                ["click", "radio", f"{ship} {money(5.0 if k % 2 == 0 else 15.0)}"],
                ["click", "button", "Place Order"],
                ["stop", ""],
            ],
            product=p["name"],
            shipping=ship,
        )


@template("shopping", "shop_review_write")
def _shop_review_write(db):
    tpl = 'Write a {{stars}}-star review of {{product}} as "{{nickname}}" with the summary "{{summary}}".'
    nicks = ["Emma L", "happy buyer", "EmmaShops", "Lopez E"]
    for i, p in enumerate(_products(db, 20, offset=11)):
        stars, nick, summary = 1 + i % 5, nicks[i % 4], ["Loved it", "Not great", "Okay"][i % 3]
        yield config(
            "shopping",
            tpl,
            SHOP,
            html(
                (
                    "last",
                    f"func:shopping_get_sku_latest_review_author('{p['sku']}')",
                    {"must_include": [nick]},
                ),
                (
                    "last",
                    f"func:shopping_get_sku_latest_review_rating('{p['sku']}')",
                    {"must_include": [str(stars * 20)]},
                ),
            ),
            [
                *_open_product(p),
                ["click", "radio", f"{stars} stars"],
                ["type", "textbox", "Nickname", nick, 0],
                ["type", "textbox", "Summary", summary, 0],
                ["click", "button", "Submit Review"],
                ["stop", ""],
            ],
            login=False,
            product=p["name"],
            stars=stars,
            nickname=nick,
            summary=summary,
        )


# -- shopping admin --------------------------------------------------------------------------
ADMIN = "__SHOPPING_ADMIN__"


@template("shopping_admin", "admin_invoice_total")
def _admin_invoice_total(db):
    tpl = "Tell me the grand total of invoice {{id}}."
    for inv in spaced(db.execute("SELECT * FROM shop_invoices ORDER BY id").fetchall(), 25):
        yield config(
            "shopping_admin",
            tpl,
            ADMIN,
            must(f"{inv['grand_total']:,.2f}"),
            [
                ["click", "link", "Invoices"],
                ["type", "searchbox", "Search by invoice number", inv["number"], 1],
                ["stop", money(inv["grand_total"])],
            ],
            id=inv["number"],
        )


@template("shopping_admin", "admin_bestseller")
def _admin_bestseller(db):
    tpl = "What is the top-{{n}} best-selling product in {{year}}?"
    for year in ("2022", "2023"):
        top = db.execute(
            "SELECT p.name, SUM(i.qty) AS sold FROM shop_order_items i JOIN shop_orders o "
            "ON o.id=i.order_id JOIN shop_products p ON p.id=i.product_id WHERE "
            "o.status != 'canceled' AND substr(o.created, 1, 4)=? GROUP BY p.id "
            "ORDER BY sold DESC, p.name LIMIT 3",
            (year,),
        ).fetchall()
        for n in (1, 2, 3):
            yield config(
                "shopping_admin",
                tpl,
                ADMIN,
                exact(top[n - 1]["name"]),
                [
                    ["click", "link", "Reports"],
                    ["click", "link", year],
                    ["stop", top[n - 1]["name"]],
                ],
                n=n,
                year=year,
            )


@template("shopping_admin", "admin_orders_month")
def _admin_orders_month(db):
    tpl = "How many orders that were not canceled did we receive in {{month}}?"
    rows = db.execute(
        "SELECT substr(created, 1, 7) AS m, COUNT(*) AS n FROM shop_orders WHERE "
        "status != 'canceled' GROUP BY m ORDER BY m"
    ).fetchall()
    for r in rows:
        yield config(
            "shopping_admin",
            tpl,
            ADMIN,
            must(str(r["n"])),
            [["click", "link", "Sales Report"], ["stop", str(r["n"])]],
            month=r["m"],
        )


@template("shopping_admin", "admin_sales_year")
def _admin_sales_year(db):
    tpl = "What was the total amount of sales (orders not canceled) in {{year}}?"
    for r in db.execute(
        "SELECT substr(created, 1, 4) AS y, SUM(grand_total) AS t FROM shop_orders WHERE "
        "status != 'canceled' GROUP BY y ORDER BY y"
    ):
        yield config(
            "shopping_admin",
            tpl,
            ADMIN,
            must(f"{r['t']:,.2f}"),
            [
                ["click", "link", "Sales Report"],
                ["click", "combobox", "Period"],
                ["press", "ArrowDown"],  # Month -> Year
                ["press", "Enter"],
                ["click", "button", "Show Report"],
                ["stop", money(r["t"])],
            ],
            year=r["y"],
        )


@template("shopping_admin", "admin_review_term")
def _admin_review_term(db):
    tpl = (
        'Tell me the number of reviews that our store received by far that mention term "{{term}}".'
    )
    for term in REVIEW_PHRASES:
        n = db.execute(
            "SELECT COUNT(*) FROM shop_reviews WHERE lower(body) LIKE ?", (f"%{term}%",)
        ).fetchone()[0]
        yield config(
            "shopping_admin",
            tpl,
            ADMIN,
            must(str(n)),
            [
                ["click", "link", "Reviews"],
                ["type", "searchbox", "Search reviews", term, 1],
                ["stop", str(n)],
            ],
            term=term,
        )


@template("shopping_admin", "admin_customer_phone")
def _admin_customer_phone(db):
    tpl = "What is the phone number of the customer with email {{email}}?"
    rows = db.execute("SELECT * FROM shop_customers ORDER BY email").fetchall()
    for c in spaced(rows, 30):
        yield config(
            "shopping_admin",
            tpl,
            ADMIN,
            must(c["phone"]),
            [
                ["click", "link", "Customers"],
                ["type", "searchbox", "Search by keyword", c["email"], 1],
                ["stop", c["phone"]],
            ],
            email=c["email"],
        )


@template("shopping_admin", "admin_customer_orders")
def _admin_customer_orders(db):
    tpl = "How many orders has the customer {{email}} placed?"
    rows = db.execute(
        "SELECT email, COUNT(*) AS n FROM shop_orders GROUP BY email ORDER BY email"
    ).fetchall()
    for r in spaced(rows, 30):
        yield config(
            "shopping_admin",
            tpl,
            ADMIN,
            must(str(r["n"])),
            [
                ["click", "link", "Orders"],
                ["type", "searchbox", "Search by order number or email", r["email"], 1],
                ["stop", str(r["n"])],
            ],
            email=r["email"],
        )


@template("shopping_admin", "admin_order_status_nav")
def _admin_order_status_nav(db):
    tpl = "Show me the orders with status {{status}}."
    for status in ("canceled", "pending", "complete", "processing"):
        yield config(
            "shopping_admin",
            tpl,
            ADMIN,
            url(f"{ADMIN}/sales/order?status={status}"),
            [["click", "link", "Orders"], ["click", "link", status.capitalize()], ["stop", ""]],
            status=status,
        )


@template("shopping_admin", "admin_update_price")
def _admin_update_price(db):
    tpl = "Update the price of {{product}} to ${{price}}."
    for i, p in enumerate(_products(db, 20, offset=13)):
        price = f"{round(p['price'] * 1.1 + 1 + i % 3, 2):.2f}"
        yield config(
            "shopping_admin",
            tpl,
            ADMIN,
            html(
                (
                    f"{ADMIN}/catalog/product/edit/{p['id']}",
                    'document.querySelector("[name=price]").value',
                    {"exact_match": price},
                )
            ),
            [
                ["click", "link", "Products"],
                ["type", "searchbox", "Search by keyword", p["name"], 1],
                ["click", "link", f"Edit {p['name']}"],
                ["click", "textbox", "Price"],
                ["press", "Meta+a"],
                ["press", "Backspace"],
                ["type", "textbox", "Price", price, 0],
                ["click", "button", "Save Product"],
                ["stop", ""],
            ],
            product=p["name"],
            price=price,
        )


@template("shopping_admin", "admin_cancel_order")
def _admin_cancel_order(db):
    tpl = "Cancel order {{number}}."
    rows = db.execute(
        "SELECT * FROM shop_orders WHERE status IN ('pending', 'processing') ORDER BY id"
    ).fetchall()
    for o in spaced(rows, 25):
        yield config(
            "shopping_admin",
            tpl,
            ADMIN,
            html(
                (
                    f"{ADMIN}/sales/order/view/{o['id']}",
                    'document.querySelector(".order-status").outerText',
                    {"exact_match": "Canceled"},
                )
            ),
            [
                ["click", "link", "Orders"],
                ["type", "searchbox", "Search by order number or email", o["number"], 1],
                ["click", "link", f"View Order {o['number']}"],
                ["click", "button", "Cancel Order"],
                ["stop", ""],
            ],
            number=o["number"],
        )


@template("shopping_admin", "admin_cms_disable")
def _admin_cms_disable(db):
    tpl = 'Disable the "{{title}}" page of the store.'
    for pid, (title, _key, status) in enumerate(CMS_PAGES, start=1):
        if status != "Enabled":
            continue
        yield config(
            "shopping_admin",
            tpl,
            ADMIN,
            html(
                (
                    f"{ADMIN}/cms/page/edit/{pid}",
                    'document.querySelector("input[name=status]:checked").value',
                    {"exact_match": "Disabled"},
                )
            ),
            [
                ["click", "link", "Pages"],
                ["click", "link", f"Edit {title}"],
                ["click", "radio", "Disabled"],
                ["click", "button", "Save Page"],
                ["stop", ""],
            ],
            title=title,
        )


# -- reddit ----------------------------------------------------------------------------------
REDDIT = "__REDDIT__"
BIOS = [
    "I am a robot",
    "Pro Python Developer with 20 years of Experience",
    "Seeking SDE positions",
    "Freelance Web Developer",
    "Yoga enthusiast",
    "Busy building a startup",
]


def _forums(db) -> list[str]:
    return [r["name"] for r in db.execute("SELECT name FROM forum_forums ORDER BY name")]


@template("reddit", "forum_bio")
def _forum_bio(db):
    tpl = 'Change my reddit bio to "{{content}}"'
    for bio in BIOS:
        yield config(
            "reddit",
            tpl,
            REDDIT,
            html(
                (
                    f"{REDDIT}/user/{FORUM_USER}",
                    'document.querySelector(".user-bio__biography").outerText',
                    {"exact_match": bio},
                )
            ),
            [
                ["click", "link", FORUM_USER],
                ["click", "link", "Edit biography"],
                ["type", "textbox", "Biography", bio, 0],
                ["click", "button", "Save"],
                ["stop", ""],
            ],
            content=bio,
        )


@template("reddit", "forum_upvote_newest")
def _forum_upvote_newest(db):
    tpl = "Upvote the newest post in {{subreddit}} subreddit"
    for forum in spaced(_forums(db), 25):
        post = db.execute(
            "SELECT * FROM forum_posts WHERE forum=? ORDER BY created DESC, id DESC LIMIT 1",
            (forum,),
        ).fetchone()
        if post is None:
            continue
        yield config(
            "reddit",
            tpl,
            REDDIT,
            html(
                (
                    f"{REDDIT}/f/{forum}/{post['id']}",
                    'document.querySelector(".submission__vote").dataset.myVote',
                    {"exact_match": "1"},
                )
            ),
            [
                *_to_forum(db, forum),
                ["click", "link", "New"],
                ["click", "button", "Upvote"],
                ["stop", ""],
            ],
            subreddit=forum,
        )


@template("reddit", "forum_open")
def _forum_open(db):
    tpl = "Open the {{subreddit}} forum."
    for forum in spaced(_forums(db), 15):
        yield config(
            "reddit",
            tpl,
            REDDIT,
            url(f"{REDDIT}/f/{forum}"),
            [*_to_forum(db, forum), ["stop", ""]],
            subreddit=forum,
        )


@template("reddit", "forum_author")
def _forum_author(db):
    tpl = 'Who posted the submission "{{title}}"?'
    for post in spaced(db.execute("SELECT * FROM forum_posts ORDER BY id").fetchall(), 20):
        yield config(
            "reddit",
            tpl,
            REDDIT,
            exact(post["author"]),
            [
                *_find_post(db, post),
                ["stop", post["author"]],
            ],
            title=post["title"],
        )


@template("reddit", "forum_comment_count")
def _forum_comment_count(db):
    tpl = 'How many comments does the post "{{title}}" have?'
    for post in spaced(db.execute("SELECT * FROM forum_posts ORDER BY id").fetchall()[5:], 20):
        n = db.execute(
            "SELECT COUNT(*) FROM forum_comments WHERE post_id=?", (post["id"],)
        ).fetchone()[0]
        yield config(
            "reddit",
            tpl,
            REDDIT,
            must(str(n)),
            [
                *_find_post(db, post),
                ["stop", str(n)],
            ],
            title=post["title"],
        )


@template("reddit", "forum_new_post")
def _forum_new_post(db):
    tpl = 'Post in the {{subreddit}} forum with the title "{{title}}".'
    for k, forum in enumerate(spaced(_forums(db), 20)):
        title = f"Looking for {['advice', 'friends', 'ideas', 'feedback'][k % 4]} on {forum}"
        yield config(
            "reddit",
            tpl,
            REDDIT,
            html(
                (
                    "func:reddit_get_post_url('__last_url__')",
                    'document.querySelector(".submission__title").outerText',
                    {"exact_match": title},
                )
            ),
            [
                *_to_forum(db, forum),
                ["click", "link", "Submit a new post"],
                ["type", "textbox", "Title", title, 0],
                ["click", "button", "Create submission"],
                ["stop", ""],
            ],
            subreddit=forum,
            title=title,
        )


@template("reddit", "forum_reply")
def _forum_reply(db):
    tpl = 'Reply to the post "{{title}}" with "{{comment}}".'
    rows = db.execute("SELECT * FROM forum_posts ORDER BY id DESC LIMIT 400").fetchall()
    for k, post in enumerate(spaced(rows, 15)):
        comment = ["Thanks for sharing!", "I disagree.", "Great question", "Same here"][k % 4]
        yield config(
            "reddit",
            tpl,
            REDDIT,
            html((f"{REDDIT}/f/{post['forum']}/{post['id']}", "", {"must_include": [comment]})),
            [
                *_find_post(db, post),
                ["type", "textbox", "Comment", comment, 0],
                ["click", "button", "Post"],
                ["stop", ""],
            ],
            title=post["title"],
            comment=comment,
        )


@template("reddit", "forum_create")
def _forum_create(db):
    tpl = 'Create a new forum named "{{name}}" with the title "{{title}}".'
    for word in ("cats", "gadgets", "birding", "sourdough", "kayaking", "origami", "astronomy"):
        name, title = f"{word}_lovers", f"{word.capitalize()} lovers"
        yield config(
            "reddit",
            tpl,
            REDDIT,
            html((f"{REDDIT}/f/{name}", "", {"must_include": [f"/f/{name}"]})),
            [
                ["click", "link", "Create forum"],
                ["type", "textbox", "Name", name, 0],
                ["type", "textbox", "Title", title, 0],
                ["click", "button", "Create forum"],
                ["stop", ""],
            ],
            name=name,
            title=title,
        )


# -- gitlab ----------------------------------------------------------------------------------
GITLAB = "__GITLAB__"


def _projects(db) -> list[sqlite3.Row]:
    return db.execute("SELECT * FROM code_projects ORDER BY id").fetchall()


def _base(p) -> str:
    return f"{GITLAB}/{p['namespace']}/{p['name']}"


@template("gitlab", "code_todos")
def _code_todos(db):
    tpl = "Check out my todos"
    yield config(
        "gitlab",
        tpl,
        GITLAB,
        url(f"{GITLAB}/dashboard/todos"),
        [["click", "link", "To-Do List"], ["stop", ""]],
    )


@template("gitlab", "code_open_issues")
def _code_open_issues(db):
    tpl = "How many open issues does the {{repo}} project have?"
    for p in spaced(_projects(db), 25):
        n = db.execute(
            "SELECT COUNT(*) FROM code_issues WHERE project_id=? AND state='opened'", (p["id"],)
        ).fetchone()[0]
        yield config(
            "gitlab",
            tpl,
            GITLAB,
            must(str(n)),
            [*_to_project(db, p), ["stop", str(n)]],
            repo=f"{p['namespace']}/{p['name']}",
        )


@template("gitlab", "code_commits_by_user")
def _code_commits_by_user(db):
    tpl = "How many commits did {{user}} make to {{repo}} on {{date}}?"
    for p in spaced(_projects(db), 25):
        row = db.execute(
            "SELECT author, day, COUNT(*) AS n FROM code_commits WHERE project_id=? AND "
            "branch='main' GROUP BY author, day ORDER BY n DESC, day, author LIMIT 1",
            (p["id"],),
        ).fetchone()
        yield config(
            "gitlab",
            tpl,
            GITLAB,
            must(str(row["n"])),
            [*_to_project(db, p), ["click", "link", "Commits"], ["stop", str(row["n"])]],
            user=row["author"],
            repo=f"{p['namespace']}/{p['name']}",
            date=row["day"],
        )


@template("gitlab", "code_branches")
def _code_branches(db):
    tpl = "How many branches does the {{repo}} repository have?"
    for p in spaced(_projects(db)[3:], 20):
        n = (
            1
            + db.execute(
                "SELECT COUNT(DISTINCT branch) FROM code_commits WHERE project_id=? AND branch != 'main'",
                (p["id"],),
            ).fetchone()[0]
        )
        yield config(
            "gitlab",
            tpl,
            GITLAB,
            must(str(n)),
            [*_to_project(db, p), ["click", "link", "Branches"], ["stop", str(n)]],
            repo=f"{p['namespace']}/{p['name']}",
        )


@template("gitlab", "code_latest_commit")
def _code_latest_commit(db):
    tpl = "What is the message of the latest commit to the main branch of {{repo}}?"
    for p in spaced(_projects(db)[5:], 20):
        msg = db.execute(
            "SELECT message FROM code_commits WHERE project_id=? AND branch='main' "
            "ORDER BY id DESC LIMIT 1",
            (p["id"],),
        ).fetchone()[0]
        yield config(
            "gitlab",
            tpl,
            GITLAB,
            exact(msg),
            [*_to_project(db, p), ["click", "link", "Commits"], ["stop", msg]],
            repo=f"{p['namespace']}/{p['name']}",
        )


@template("gitlab", "code_label_issues_nav")
def _code_label_issues_nav(db):
    tpl = "Display the list of issues in the {{repo}} repository that have labels related to {{label}}"
    for k, p in enumerate(spaced(_projects(db), 20)):
        label = LABELS[k % 6]
        path = f"{p['namespace']}/{p['name']}"
        yield config(
            "gitlab",
            tpl,
            GITLAB,
            url(f"{GITLAB}/{path}/-/issues?label_name={quote(label)}"),
            [*_to_project(db, p), ISSUES, ["click", "link", label], ["stop", ""]],
            repo=path,
            label=label,
        )


@template("gitlab", "code_new_issue")
def _code_new_issue(db):
    tpl = 'Create an issue in the {{repo}} project titled "{{title}}".'
    titles = ("Add a contributing guide", "Document the release process", "Add a code of conduct")
    for k, p in enumerate(spaced(_projects(db)[1:], 20)):
        title = titles[k % 3]
        yield config(
            "gitlab",
            tpl,
            GITLAB,
            html((f"{_base(p)}/-/issues", "", {"must_include": [title]})),
            [
                *_to_project(db, p),
                ISSUES,
                ["click", "link", "New issue"],
                ["type", "textbox", "Title", title, 0],
                ["click", "button", "Create issue"],
                ["stop", ""],
            ],
            repo=f"{p['namespace']}/{p['name']}",
            title=title,
        )


@template("gitlab", "code_invite_member")
def _code_invite_member(db):
    tpl = "Invite {{user}} to the {{repo}} project as {{role}}."
    users = [r[0] for r in db.execute("SELECT username FROM code_users ORDER BY rowid LIMIT 40")]
    for k, p in enumerate(spaced(_projects(db)[2:], 20)):
        user, role = users[1 + k % 39], ["Developer", "Reporter", "Maintainer", "Guest"][k % 4]
        yield config(
            "gitlab",
            tpl,
            GITLAB,
            html(
                (
                    f"{_base(p)}/-/project_members",
                    f"func:gitlab_get_project_memeber_role(__page__, '{user}')",
                    {"must_include": [role]},
                )
            ),
            [
                *_to_project(db, p),
                ["click", "link", "Members"],
                ["type", "textbox", "Username", user, 0],
                ["click", "radio", role],
                ["click", "button", "Invite"],
                ["stop", ""],
            ],
            user=user,
            repo=f"{p['namespace']}/{p['name']}",
            role=role,
        )


@template("gitlab", "code_close_issue")
def _code_close_issue(db):
    tpl = 'Close the issue "{{title}}" in {{repo}}.'
    rows = db.execute(
        "SELECT i.*, p.namespace, p.name FROM code_issues i JOIN code_projects p ON "
        "p.id=i.project_id WHERE i.state='opened' ORDER BY i.id"
    ).fetchall()
    for i in spaced(rows, 20):
        yield config(
            "gitlab",
            tpl,
            GITLAB,
            html(
                (
                    f"{_base(i)}/-/issues/{i['iid']}",
                    'document.querySelector(".issue-state").outerText',
                    {"exact_match": "Closed"},
                )
            ),
            [
                *_to_project(db, _project_of(db, i)),
                ISSUES,
                ["type", "searchbox", "Search or filter results...", i["title"], 1],
                ["click", "link", i["title"]],
                ["click", "button", "Close issue"],
                ["stop", ""],
            ],
            title=i["title"],
            repo=f"{i['namespace']}/{i['name']}",
        )


@template("gitlab", "code_visibility")
def _code_visibility(db):
    tpl = "Make the {{repo}} project {{visibility}}."
    for k, p in enumerate(spaced(_projects(db)[4:], 15)):
        vis = ("Private", "Internal", "Public")[k % 3]
        if vis == p["visibility"]:
            vis = "Private" if vis != "Private" else "Public"
        yield config(
            "gitlab",
            tpl,
            GITLAB,
            html(
                (
                    f"{_base(p)}/edit",
                    'document.querySelector("input[name=visibility]:checked").value',
                    {"exact_match": vis},
                )
            ),
            [
                *_to_project(db, p),
                ["click", "link", "Settings"],
                ["click", "radio", vis],
                ["click", "button", "Save changes"],
                ["stop", ""],
            ],
            repo=f"{p['namespace']}/{p['name']}",
            visibility=vis.lower(),
        )


# -- wikipedia ---------------------------------------------------------------------------------
WIKI = "__WIKIPEDIA__"


@lru_cache(maxsize=1)
def _wiki_facts() -> list[tuple[str, str, str]]:
    """(question, answer, article title) of single-hop questions (built with the wiki)."""
    from agentgym_envs.envs.webarena.sites.build import build

    conn = sqlite3.connect(f"file:{build().wiki_db}?mode=ro", uri=True)
    try:
        return [
            tuple(r) for r in conn.execute("SELECT question, answer, title FROM facts ORDER BY id")
        ]
    finally:
        conn.close()


@template("wikipedia", "wiki_fact")
def _wiki_fact(db):
    tpl = "{{question}}? Look it up on Wikipedia."
    for question, answer, title in spaced(_wiki_facts(), 70):
        yield config(
            "wikipedia",
            tpl,
            WIKI,
            must(answer),
            [
                ["type", "searchbox", "Search Wikipedia", title, 1],
                ["click", "link", title],
                ["stop", answer],
            ],
            login=False,
            question=question,
        )


@template("wikipedia", "wiki_article_nav")
def _wiki_article_nav(db):
    tpl = "Open the Wikipedia article about {{title}}."
    for _q, _a, title in spaced(_wiki_facts()[100:], 40):
        yield config(
            "wikipedia",
            tpl,
            WIKI,
            url(f"{WIKI}/wiki/{quote(title.replace(' ', '_'))}"),
            [
                ["type", "searchbox", "Search Wikipedia", title, 1],
                ["click", "link", title],
                ["stop", ""],
            ],
            login=False,
            title=title,
        )


# -- several sites ---------------------------------------------------------------------------
@template("multi", "multi_stars_to_forum")
def _multi_stars(db):
    tpl = 'Post in the {{subreddit}} forum a submission titled "{{repo}} has N stars on GitLab", with N the number of stars {{repo}} has.'
    forums = _forums(db)
    for k, p in enumerate(spaced(_projects(db)[6:], 20)):
        forum, title = forums[k * 3 % len(forums)], f"{p['name']} has {p['stars']} stars on GitLab"
        yield config(
            ["gitlab", "reddit"],
            tpl,
            GITLAB,
            html(
                (
                    "func:reddit_get_post_url('__last_url__')",
                    'document.querySelector(".submission__title").outerText',
                    {"exact_match": title},
                )
            ),
            [
                *_to_project(db, p),
                ["goto", REDDIT],
                *_to_forum(db, forum),
                ["click", "link", "Submit a new post"],
                ["type", "textbox", "Title", title, 0],
                ["click", "button", "Create submission"],
                ["stop", ""],
            ],
            subreddit=forum,
            repo=p["name"],
        )


@template("multi", "multi_price_to_forum")
def _multi_price(db):
    tpl = 'Post in the {{subreddit}} forum a submission titled "{{product}} costs P", with P its price in the One Stop Market (like $1.99).'
    forums = _forums(db)
    for k, p in enumerate(_products(db, 14, offset=17)):
        forum = forums[(k * 7 + 1) % len(forums)]
        title = f"{p['name']} costs {money(p['price'])}"
        yield config(
            ["shopping", "reddit"],
            tpl,
            SHOP,
            html(
                (
                    "func:reddit_get_post_url('__last_url__')",
                    'document.querySelector(".submission__title").outerText',
                    {"exact_match": title},
                )
            ),
            [
                *_search_product(p),
                ["goto", REDDIT],
                *_to_forum(db, forum),
                ["click", "link", "Submit a new post"],
                ["type", "textbox", "Title", title, 0],
                ["click", "button", "Create submission"],
                ["stop", ""],
            ],
            subreddit=forum,
            product=p["name"],
        )


@template("multi", "multi_wiki_issue")
def _multi_wiki_issue(db):
    tpl = 'Create an issue in {{repo}} titled "Answer: X", where X answers: {{question}}? (use Wikipedia)'
    facts = _wiki_facts()[40:]
    for k, p in enumerate(spaced(_projects(db)[8:], 14)):
        question, answer, title = facts[k * 5]
        yield config(
            ["wikipedia", "gitlab"],
            tpl,
            WIKI,
            html((f"{_base(p)}/-/issues", "", {"must_include": [f"Answer: {answer}"]})),
            [
                ["type", "searchbox", "Search Wikipedia", title, 1],
                ["click", "link", title],
                ["goto", GITLAB],
                *_to_project(db, p),
                ISSUES,
                ["click", "link", "New issue"],
                ["type", "textbox", "Title", f"Answer: {answer}", 0],
                ["click", "button", "Create issue"],
                ["stop", ""],
            ],
            repo=f"{p['namespace']}/{p['name']}",
            question=question,
        )


def instantiate(db: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every site's tasks, up to its share, drawn from its templates in turn; the first
    instance of a site's first ``TEST_SHARES[site]`` templates (in order) are its test tasks
    (``agentgym_test``)."""
    out: list[dict[str, Any]] = []
    for site in SITE_SHARES:
        pools = []
        for template_id, (s, tid, fn) in enumerate(TEMPLATES):
            if s == site:
                configs = [c for c in fn(db) if not c["instantiation_dict"].get("_skip_expert")]
                for c in configs:
                    c["intent_template_id"] = template_id
                    c["agentgym_template"] = tid
                    c["instantiation_dict"] = {
                        k: v for k, v in c["instantiation_dict"].items() if not k.startswith("_")
                    }
                if configs:
                    pools.append(configs)
        chosen: list[dict[str, Any]] = []
        for k, depth in _test_pick(len(pools), TEST_SHARES[site]):
            pools[k][depth]["agentgym_test"] = True
        depth = 0
        while len(chosen) < SITE_SHARES[site] and any(depth < len(p) for p in pools):
            for pool in pools:
                if depth < len(pool) and len(chosen) < SITE_SHARES[site]:
                    chosen.append(pool[depth])
            depth += 1
        out.extend(chosen)
    return out


def _test_pick(n_templates: int, n_test: int) -> list[tuple[int, int]]:
    """The (template, instance) pairs of a site's test tasks: spread over its templates."""
    picks: list[tuple[int, int]] = []
    for i in range(n_test if n_templates else 0):
        k = int(i * n_templates / n_test)
        picks.append((k, sum(1 for t, _ in picks if t == k)))
    return picks
