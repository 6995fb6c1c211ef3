"""WebArena's storefront templates (``shopping``) on the sites' data.

Each instantiator yields ``(instantiation dict, eval, plan)``; the intent text is WebArena's
(see :mod:`.webarena_tasks`). Unachievable instances ask about things the store does not
have, as WebArena's do.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote_plus

from agentgym_envs.envs.webarena.sites.data import SHOP_USER
from agentgym_envs.envs.webarena.sites.shop import CONTACT_MESSAGE
from agentgym_envs.envs.webarena.wa_common import (
    NA_PLAN,
    both,
    fuzzy,
    html,
    money,
    month_name,
    must,
    na,
    spaced,
    url,
    us_date,
)
from agentgym_envs.envs.webarena.webarena_tasks import instantiator

SHOP = "__SHOPPING__"
STATUSES = ("pending", "processing", "complete", "canceled")


def _leaves(db) -> list[Any]:
    """Level-3 categories whose names are unique (so the intent names one)."""
    return db.execute(
        "SELECT * FROM shop_categories WHERE level=3 AND name IN (SELECT name FROM "
        "shop_categories GROUP BY name HAVING COUNT(*)=1) ORDER BY id"
    ).fetchall()


def _category_path(db, c) -> list[list[Any]]:
    """Home -> department -> subcategory -> the leaf ``c``, by the category pages' links."""
    parents = []
    row = c
    while row is not None:
        parents.append(row["name"])
        row = db.execute("SELECT * FROM shop_categories WHERE id=?", (row["parent_id"],)).fetchone()
    return [["click", "link", name] for name in reversed(parents)]


def _enabled(db, where: str = "1=1", args: tuple = ()) -> list[Any]:
    return db.execute(
        f"SELECT * FROM shop_products WHERE status='Enabled' AND qty > 0 AND {where} ORDER BY id",
        args,
    ).fetchall()


def _my_orders(db, where: str = "1=1", args: tuple = ()) -> list[Any]:
    return db.execute(
        f"SELECT * FROM shop_orders WHERE email=? AND {where} ORDER BY created DESC, id DESC",
        (SHOP_USER, *args),
    ).fetchall()


def _to_order(db, order) -> list[list[Any]]:
    """Account -> My Orders -> pages -> the order."""
    rank = [o["id"] for o in _my_orders(db)].index(order["id"])
    return [
        ["click", "link", "My Account"],
        ["click", "link", "My Orders"],
        *[["click", "link", "Next Page"]] * (rank // 10),
        ["click", "link", f"View Order {order['number']}"],
    ]


def _search(name: str) -> list[list[Any]]:
    return [["type", "searchbox", "Search entire store here...", name, 1], ["click", "link", name]]


def _buy(p, k: int = 0, path: list[list[Any]] | None = None) -> list[list[Any]]:
    """Find ``p`` (by ``path`` to its page, else by search), add it to the cart, check out."""
    ship = ("Flat Rate", 5.0) if k % 2 == 0 else ("Best Way", 15.0)
    return [
        *(path or _search(p["name"])),
        ["click", "button", "Add to Cart"],
        ["click", "link", "Proceed to Checkout"],
        ["click", "radio", f"{ship[0]} {money(ship[1])}"],
        ["click", "button", "Place Order"],
        ["stop", ""],
    ]


def _to_month(db, month: str) -> list[list[Any]]:
    """Account -> My Orders -> the pages (newest first, 10 a page) down to the last holding an
    order of ``month`` (``2022-01``)."""
    ranks = [k for k, o in enumerate(_my_orders(db)) if o["created"].startswith(month)]
    last = ranks[-1] if ranks else 0
    return [
        ["click", "link", "My Account"],
        ["click", "link", "My Orders"],
        *[["click", "link", "Next Page"]] * (last // 10),
    ]


def _to_reviews(db, product_id: int) -> list[list[Any]]:
    """On a product's page: its "N Reviews" link (to the reviews, below the fold)."""
    n = db.execute(
        "SELECT COUNT(*) FROM shop_reviews WHERE product_id=? AND status='Approved'", (product_id,)
    ).fetchone()[0]
    return [["click", "link", f"{n} Reviews"]] if n else []


MY_ORDERS_NA = [["click", "link", "My Account"], ["click", "link", "My Orders"], ["stop", "N/A"]]


def _look_then_na(query: str) -> list[list[Any]]:
    """Search the store for ``query``, find nothing that fits, answer N/A."""
    return [["type", "searchbox", "Search entire store here...", query, 1], ["stop", "N/A"]]


def _latest_order_has(*needles: str) -> dict[str, Any]:
    return html(
        (
            "func:shopping_get_latest_order_url()",
            "",
            {"must_include": [*needles, "pending"]},
        )
    )


def _months(db) -> list[str]:
    return [
        r[0]
        for r in db.execute(
            "SELECT DISTINCT substr(created, 1, 7) FROM shop_orders WHERE email=? ORDER BY 1",
            (SHOP_USER,),
        )
    ]


def _sort_by_price(descending: bool) -> tuple[str, list[list[Any]]]:
    """The listing's query and the toolbar's links for price order (Magento's ``Price``, then
    ``Set Descending Direction``); WebArena's reference for ascending is the order alone."""
    if descending:
        return "product_list_order=price&product_list_dir=desc", [
            ["click", "link", "Price"],
            ["click", "link", "Set Descending Direction"],
        ]
    return "product_list_order=price", [["click", "link", "Price"]]


@instantiator(137)
def list_by_price(db):
    for k, c in enumerate(spaced(_leaves(db), 40)):
        order = ("ascending", "descending")[k % 2]
        query, clicks = _sort_by_price(k % 2 == 1)
        yield (
            {"product_category": c["name"], "order": order},
            url(f"{SHOP}/{c['path']}.html?{query}"),
            [*_category_path(db, c), *clicks, ["stop", ""]],
        )


@instantiator(138)
def most_expensive(db):
    for c in spaced(_leaves(db), 30):
        top = db.execute(
            "SELECT * FROM shop_products WHERE category_id=? AND status='Enabled' "
            "ORDER BY price DESC, id LIMIT 1",
            (c["id"],),
        ).fetchone()
        yield (
            {"product_category": c["name"]},
            url(f"{SHOP}/product/{top['sku']}"),
            [
                *_category_path(db, c),
                *_sort_by_price(True)[1],
                ["click", "link", top["name"]],
                ["stop", ""],
            ],
        )


@instantiator(139)
def under_price(db):
    for k, c in enumerate(spaced(_leaves(db)[3:], 30)):
        price = (25, 50, 75, 100)[k % 4]
        target = f"{SHOP}/{c['path']}.html?price=0-{price}"
        yield (
            {"price": price, "product_category": c["name"]},
            url(target),
            [*_category_path(db, c), ["goto", target], ["stop", ""]],
        )


@instantiator(211)
def browse_category(db):
    for c in spaced(_leaves(db)[5:], 30):
        target = f"{SHOP}/{c['path']}.html"
        yield ({"category": c["name"]}, url(target), [*_category_path(db, c), ["stop", ""]])


@instantiator(212)
def search_keyword(db):
    for p in spaced(_enabled(db), 30):
        kw = " ".join(p["name"].split()[-2:]).lower()
        yield (
            {"keyword": kw},
            url(f"{SHOP}/catalogsearch/result/?q={quote_plus(kw)}"),
            [["type", "searchbox", "Search entire store here...", kw, 1], ["stop", ""]],
        )


@instantiator(208)
def listings_sorted(db):
    for k, p in enumerate(spaced(_enabled(db)[7:], 30)):
        kw = p["name"].split()[-1].lower()
        order = ("ascending price", "descending price")[k % 2]
        query, clicks = _sort_by_price(k % 2 == 1)
        yield (
            {"product": kw, "sorting_order": order},
            url(f"{SHOP}/catalogsearch/result/?q={quote_plus(kw)}&{query}"),
            [["type", "searchbox", "Search entire store here...", kw, 1], *clicks, ["stop", ""]],
        )


@instantiator(147)
def spend_in_month(db):
    for m in _months(db):
        total = db.execute(
            "SELECT ROUND(SUM(grand_total), 2) FROM shop_orders WHERE email=? AND "
            "status != 'canceled' AND substr(created, 1, 7)=?",
            (SHOP_USER, m),
        ).fetchone()[0]
        if total:
            yield (
                {"time": f"in {month_name(m)}"},
                must(f"{total:,.2f}"),
                [*_to_month(db, m), ["stop", money(total)]],
            )


@instantiator(160)
def refund_canceled(db):
    rows = db.execute(
        "SELECT substr(created, 1, 7) AS m, COUNT(*) AS n, MAX(grand_total) AS t FROM "
        "shop_orders WHERE email=? AND status='canceled' GROUP BY m HAVING n=1 ORDER BY m",
        (SHOP_USER,),
    ).fetchall()
    for r in rows:
        order = _my_orders(db, "status='canceled' AND substr(created, 1, 7)=?", (r["m"],))[0]
        yield (
            {"time": month_name(r["m"])},
            must(f"{r['t']:,.2f}"),
            [*_to_order(db, order), ["stop", money(r["t"])]],
        )


@instantiator(161)
def first_purchase(db):
    first = _my_orders(db)[-1]
    yield (
        {},
        fuzzy(us_date(first["created"])),
        [*_to_order(db, first), ["stop", us_date(first["created"])]],
    )


@instantiator(162)
def spend_on_category(db):
    rows = db.execute(
        "SELECT p.top AS top, substr(o.created, 1, 7) AS m, ROUND(SUM(i.price * i.qty), 2) AS t "
        "FROM shop_order_items i JOIN shop_orders o ON o.id=i.order_id JOIN shop_products p "
        "ON p.id=i.product_id WHERE o.email=? AND o.status != 'canceled' GROUP BY top, m "
        "ORDER BY m, top",
        (SHOP_USER,),
    ).fetchall()
    for r in spaced(rows, 30):
        yield (
            {"category": r["top"].lower(), "time": month_name(r["m"])},
            must(f"{r['t']:,.2f}"),
            [*_to_month(db, r["m"]), ["stop", money(r["t"])]],
        )


def _my_items(db) -> list[Any]:
    return db.execute(
        "SELECT p.name, p.sku, p.id AS pid, i.options, o.id AS oid, o.number, o.created, o.status "
        "FROM shop_order_items i JOIN shop_orders o ON o.id=i.order_id JOIN shop_products p "
        "ON p.id=i.product_id WHERE o.email=? ORDER BY o.created DESC, o.id DESC",
        (SHOP_USER,),
    ).fetchall()


def _order_row(db, oid: int):
    return db.execute("SELECT * FROM shop_orders WHERE id=?", (oid,)).fetchone()


@instantiator(169)
def last_ordered(db):
    seen: set[str] = set()
    for r in _my_items(db):
        if r["name"] in seen:
            continue
        seen.add(r["name"])
        if len(seen) > 30:
            break
        day = us_date(r["created"])
        yield (
            {"description": r["name"]},
            fuzzy(day),
            [*_to_order(db, _order_row(db, r["oid"])), ["stop", day]],
        )


@instantiator(155)
def option_bought(db):
    for r in [r for r in _my_items(db) if r["options"]][:25]:
        size = r["options"].split(": ", 1)[1]
        yield (
            {"option": "size", "product": r["name"], "time": f"on {us_date(r['created'])}"},
            must(size),
            [*_to_order(db, _order_row(db, r["oid"])), ["stop", f"Size {size}"]],
        )


@instantiator(180)
def recent_status_order(db):
    for status in STATUSES:
        order = _my_orders(db, "status=?", (status,))[0]
        yield (
            {"status": status},
            url(f"{SHOP}/sales/order/view/{order['id']}"),
            [*_to_order(db, order), ["stop", ""]],
        )
    yield ({"status": "on hold"}, na("the customer has no order on hold"), MY_ORDERS_NA)


@instantiator(213)
def recent_status_number(db):
    for status in STATUSES:
        order = _my_orders(db, "status=?", (status,))[0]
        yield (
            {"status": status},
            must(order["number"]),
            [*_to_order(db, order), ["stop", order["number"]]],
        )
    yield (
        {"status": "suspected fraud"},
        na("the customer has no order suspected of fraud"),
        MY_ORDERS_NA,
    )


@instantiator(214)
def recent_status_total(db):
    for status in STATUSES:
        order = _my_orders(db, "status=?", (status,))[0]
        total = order["grand_total"]
        yield (
            {"status": status},
            must(f"{total:,.2f}"),
            [*_to_order(db, order), ["stop", money(total)]],
        )
    yield ({"status": "on hold"}, na("the customer has no order on hold"), MY_ORDERS_NA)


@instantiator(206)
def order_info(db):
    for k, order in enumerate(spaced(_my_orders(db), 30)):
        info, answer = (
            ("grand total", money(order["grand_total"])),
            ("order date", order["created"][:10]),
            ("shipping and handling fee", money(order["shipping"])),
        )[k % 3]
        ref = answer.lstrip("$")
        yield (
            {"info": info, "order_number": order["number"].lstrip("0")},
            must(ref),
            [*_to_order(db, order), ["stop", answer]],
        )


def _wish(db, offset: int, n: int):
    for p in spaced(_enabled(db)[offset:], n):
        yield (
            {"product": p["name"]},
            html((f"{SHOP}/wishlist", "", {"must_include": [p["name"]]})),
            [*_search(p["name"]), ["click", "button", "Add to Wish List"], ["stop", ""]],
        )


@instantiator(186)
def wish_186(db):
    yield from _wish(db, 21, 25)


@instantiator(189)
def wish_189(db):
    yield from _wish(db, 33, 25)


@instantiator(196)
def wish_this(db):
    for p in spaced(_enabled(db)[45:], 25):
        yield (
            {"__start__": f"{SHOP}/product/{p['sku']}"},
            html((f"{SHOP}/wishlist", "", {"must_include": [p["name"]]})),
            [
                ["click", "button", "Add to Wish List"],
                ["click", "link", "My Wish List"],
                ["stop", ""],
            ],
        )


@instantiator(194)
def rate_purchase(db):
    nicks = ("Emma L", "emma_shops", "EL", "Emma Lopez")
    seen: set[str] = set()
    k = 0
    for r in _my_items(db):
        if r["name"] in seen or k >= 25:
            continue
        seen.add(r["name"])
        stars, nick = 1 + k % 5, nicks[k % 4]
        k += 1
        yield (
            {"product": r["name"], "num_star": stars, "nickname": nick},
            html(
                (
                    "last",
                    f"func:shopping_get_sku_latest_review_author('{r['sku']}')",
                    {"must_include": [nick]},
                ),
                (
                    "last",
                    f"func:shopping_get_sku_latest_review_rating('{r['sku']}')",
                    {"must_include": [str(stars * 20)]},
                ),
            ),
            [
                *_search(r["name"]),
                ["click", "radio", f"{stars} stars"],
                ["type", "textbox", "Nickname", nick, 0],
                ["type", "textbox", "Summary", f"{stars} stars", 0],
                ["click", "button", "Submit Review"],
                ["stop", ""],
            ],
        )


@instantiator(145)
def cheapest_per_unit_tab(db):
    import re

    rows = _enabled(db, "name LIKE '%Pack)'")
    packs = [(p, int(m.group(1))) for p in rows if (m := re.search(r"\((\d+) Pack\)$", p["name"]))]
    for k in range(25):
        group = packs[k * 37 % len(packs) :][:60:20]
        if len(group) < 3:
            continue
        ranked = sorted(group, key=lambda pn: pn[0]["price"] / pn[1])
        if ranked[0][0]["price"] / ranked[0][1] == ranked[1][0]["price"] / ranked[1][1]:
            continue
        best = ranked[0][0]
        tabs = " |AND| ".join(f"{SHOP}/product/{p['sku']}" for p, _ in group)
        yield (
            {"__start__": tabs},
            html((f"{SHOP}/checkout/cart", "", {"must_include": [best["name"]]})),
            [
                ["goto", f"{SHOP}/product/{best['sku']}"],
                ["click", "button", "Add to Cart"],
                ["stop", ""],
            ],
        )


@instantiator(222)
def reviewers_mention(db):
    rows = db.execute(
        "SELECT p.* FROM shop_products p WHERE review_count >= 3 AND status='Enabled' ORDER BY id"
    ).fetchall()
    k = 0
    for p in spaced(rows, 40):
        reviews = db.execute(
            "SELECT author, lower(title) AS t FROM shop_reviews WHERE product_id=? AND "
            "status='Approved' ORDER BY id",
            (p["id"],),
        ).fetchall()
        phrase = reviews[0]["t"]
        names = sorted(
            {
                r["author"]
                for r in db.execute(
                    "SELECT author FROM shop_reviews WHERE product_id=? AND status='Approved' "
                    "AND (lower(body) LIKE ? OR lower(title) LIKE ?)",
                    (p["id"], f"%{phrase}%", f"%{phrase}%"),
                )
            }
        )
        start = {"__start__": f"{SHOP}/product/{p['sku']}"}
        k += 1
        if k % 10 == 0:
            yield (
                {**start, "description": "the smell"},
                na("no reviewer of this product mentions the smell"),
                NA_PLAN,
            )
            continue
        yield (
            {**start, "description": phrase},
            must(*names),
            [*_to_reviews(db, p["id"]), ["stop", ", ".join(names)]],
        )


@instantiator(1355)
def product_rating(db):
    for p in spaced(_enabled(db, "review_count >= 2"), 25):
        pct = f"{p['rating'] * 20:.0f}%"
        yield ({"product": p["name"]}, must(pct), [*_search(p["name"]), ["stop", pct]])


@instantiator(370)
def brand_price_range(db):
    brands = [r[0] for r in db.execute("SELECT DISTINCT brand FROM shop_products ORDER BY brand")]
    for b in brands:
        lo, hi = db.execute(
            "SELECT MIN(price), MAX(price) FROM shop_products WHERE brand=? AND status='Enabled'",
            (b,),
        ).fetchone()
        answer = f"{money(lo)} - {money(hi)}"
        yield (
            {"brand": b},
            must(f"{lo:,.2f}", f"{hi:,.2f}"),
            [
                ["type", "searchbox", "Search entire store here...", b, 1],
                *_sort_by_price(False)[1],  # the lowest price first, then the highest
                *_sort_by_price(True)[1][1:],
                ["stop", answer],
            ],
        )


@instantiator(159)
def type_price_range(db):
    for c in spaced(_leaves(db)[1:], 30):
        lo, hi = db.execute(
            "SELECT MIN(price), MAX(price) FROM shop_products WHERE category_id=? AND "
            "status='Enabled'",
            (c["id"],),
        ).fetchone()
        yield (
            {"product": c["name"].lower()},
            must(f"{lo:,.2f}", f"{hi:,.2f}"),
            [
                *_category_path(db, c),
                *_sort_by_price(True)[1],  # Price shows the lowest first, then the highest
                ["stop", f"{money(lo)} - {money(hi)}"],
            ],
        )


@instantiator(136)
def criticisms(db):
    rows = db.execute(
        "SELECT p.id, p.sku FROM shop_products p JOIN shop_reviews r ON r.product_id=p.id "
        "WHERE r.rating <= 2 AND r.status='Approved' AND p.status='Enabled' GROUP BY p.id "
        "HAVING COUNT(*) BETWEEN 1 AND 2 "
        "ORDER BY p.id"
    ).fetchall()
    for p in spaced(rows, 25):
        bodies = [
            r[0]
            for r in db.execute(
                "SELECT body FROM shop_reviews WHERE product_id=? AND rating <= 2 AND "
                "status='Approved' ORDER BY id",
                (p["id"],),
            )
        ]
        yield (
            {"__start__": f"{SHOP}/product/{p['sku']}"},
            must(*bodies),
            [*_to_reviews(db, p["id"]), ["stop", " ".join(bodies)]],
        )


def _buy_pick(db, rows, k):
    return rows[k] if rows else None


@instantiator(172)
def buy_highest_rated(db):
    budgets = (10, 15, 20, 25, 30, 40, 50, 75, 100)
    k = 0
    for c in spaced(_leaves(db)[2:], 40):
        rows = db.execute(
            "SELECT * FROM shop_products WHERE category_id=? AND status='Enabled' AND qty > 0 "
            "AND review_count > 0 ORDER BY rating DESC, id",
            (c["id"],),
        ).fetchall()
        for budget in budgets:
            within = [p for p in rows if p["price"] <= budget]
            if len(within) >= 3 and within[0]["rating"] > within[1]["rating"]:
                break
        else:
            continue
        best = within[0]
        k += 1
        yield (
            {"product_category": c["name"], "dollar_value": f"under ${budget}"},
            _latest_order_has(best["name"]),
            _buy(best, k, [*_category_path(db, c), *_search(best["name"])]),
        )
        if k >= 25:
            break
    yield (
        {"product_category": "Telescopes", "dollar_value": "under $10"},
        na("the store has no telescopes"),
        _look_then_na("telescope"),
    )


@instantiator(216)
def buy_best_cheapest(db):
    for k, c in enumerate(spaced(_leaves(db)[4:], 25)):
        rows = db.execute(
            "SELECT * FROM shop_products WHERE category_id=? AND status='Enabled' AND qty > 0 "
            "AND review_count >= 5 ORDER BY rating DESC, price, id",
            (c["id"],),
        ).fetchall()
        if len(rows) < 2 or (rows[0]["rating"], rows[0]["price"]) == (
            rows[1]["rating"],
            rows[1]["price"],
        ):
            continue
        yield (
            {"category": c["name"]},
            _latest_order_has(rows[0]["name"]),
            _buy(rows[0], k + 1, [*_category_path(db, c), *_search(rows[0]["name"])]),
        )


@instantiator(156)
def reorder_canceled(db):
    seen: set[str] = set()
    for k, r in enumerate(x for x in _my_items(db) if x["status"] == "canceled"):
        if r["name"] in seen:
            continue
        seen.add(r["name"])
        p = db.execute("SELECT * FROM shop_products WHERE id=?", (r["pid"],)).fetchone()
        if p["status"] != "Enabled" or p["qty"] <= 0:
            continue
        yield (
            {"product": r["name"], "time": f"on {us_date(r['created'])}"},
            _latest_order_has(r["name"]),
            _buy(p, k),
        )


@instantiator(193)
def latest_status(db):
    order = _my_orders(db)[0]
    answer = f"Your latest order {order['number']} is {order['status']}."
    yield ({}, fuzzy(f"{order['status']}"), [*_to_order(db, order), ["stop", answer]])


@instantiator(197)
def fulfilled_period(db):
    from datetime import date, timedelta

    today = date(2023, 6, 12)
    for label, days in (
        ("over the past month", 31),
        ("over the past three months", 92),
        ("over the past six months", 183),
        ("over the past year", 365),
        ("over the past four months", 122),
    ):
        since = (today - timedelta(days=days)).isoformat()
        n, total = db.execute(
            "SELECT COUNT(*), ROUND(COALESCE(SUM(grand_total), 0), 2) FROM shop_orders WHERE "
            "email=? AND status='complete' AND created >= ?",
            (SHOP_USER, since),
        ).fetchone()
        answer = f"{n} orders, {money(total)} total"
        yield (
            {"period": label},
            fuzzy(answer),
            [["click", "link", "My Account"], ["click", "link", "My Orders"], ["stop", answer]],
        )


# -- unachievable by design (WebArena answers these "N/A" too) ------------------------------
@instantiator(134)
def service_number(db):
    yield (
        {},
        na("the site shows no customer service phone number"),
        [["click", "link", "Customer Service"], ["stop", "N/A"]],
    )


@instantiator(188)
def discounted(db):
    yield ({}, na("the store has no discounted items"), _look_then_na("discount"))


@instantiator(191)
def change_delivery(db):
    for address in (
        "77 Massachusetts Ave, Cambridge, MA 02139",
        "231 Willow Way, Suite 100, Chicago, IL 60601",
    ):
        yield (
            {"address": address},
            na("orders cannot be changed after they are placed"),
            [*_to_order(db, _my_orders(db)[0]), ["stop", "N/A"]],
        )


@instantiator(135)
def what_customers_say(db):
    for kind, maker in (("sneakers", "Orbital"), ("teapots", "Vantage"), ("drones", "Apex")):
        yield (
            {"product_type": kind, "manufature": maker},
            na(f"the store sells no {kind} from {maker}"),
            _look_then_na(f"{maker} {kind}"),
        )


@instantiator(182)
def summarize_reviews(db):
    for p in spaced(_enabled(db, "review_count = 0"), 4):
        yield (
            {"product": p["name"]},
            na("the product has no reviews"),
            [*_search(p["name"]), ["stop", "N/A"]],
        )


@instantiator(666)
def eyzutak_quality(db):
    yield ({}, na("the store sells no EYZUTAK phone cases"), _look_then_na("EYZUTAK"))


@instantiator(1356)
def eyzutak_stars(db):
    for stars in ("1 star", "2 stars", "4 or 5 stars"):
        yield (
            {"stars": stars},
            na("the store sells no EYZUTAK phone cases"),
            _look_then_na("EYZUTAK"),
        )


@instantiator(204)
def sony_headphones(db):
    yield ({}, na("the store sells no Sony headphones"), _look_then_na("Sony headphones"))


@instantiator(210)
def xbox_controllers(db):
    yield ({}, na("the store sells no XBox controllers"), _look_then_na("XBox controller"))


def _message_is(*needles: str) -> dict[str, Any]:
    """The contact form, its message box holding ``needles`` (a draft: not sent)."""
    return both(
        url(f"{SHOP}/contact"),
        html(
            (
                "last",
                f"document.querySelector('[title=\"{CONTACT_MESSAGE}\"]').value",
                {"must_include": list(needles)},
            )
        ),
    )


def _draft(message: str) -> list[list[Any]]:
    """The footer's Contact Us link -> the message box (left unsent, as the intent asks)."""
    return [
        ["click", "link", "Contact Us"],
        ["type", "textbox", CONTACT_MESSAGE, message, 0],
        ["stop", ""],
    ]


def _delivered_items(db) -> list[Any]:
    """One line per product of my completed orders, newest first."""
    seen: set[str] = set()
    out = []
    for r in _my_items(db):
        if r["status"] == "complete" and r["name"] not in seen:
            seen.add(r["name"])
            out.append(r)
    return out


BROKE = "it broke after three days of use"


@instantiator(153)
def contact_refund_sku(db):
    for r in spaced(_delivered_items(db), 12):
        message = (
            f"Hello, I would like a refund on the {r['name']} (SKU {r['sku']}) from order "
            f"#{r['number']}: {BROKE}."
        )
        yield (
            {"product": r["name"], "order_id": r["number"]},
            _message_is("refund", BROKE, r["number"], r["sku"]),
            [*_to_order(db, _order_row(db, r["oid"])), *_draft(message)],
        )


@instantiator(154)
def contact_refund_amount(db):
    rows = db.execute(
        "SELECT p.name, o.id AS oid, o.number, o.created, i.price * i.qty AS paid FROM "
        "shop_order_items i JOIN shop_orders o ON o.id=i.order_id JOIN shop_products p ON "
        "p.id=i.product_id WHERE o.email=? AND o.status='complete' ORDER BY o.created DESC, o.id "
        "DESC",
        (SHOP_USER,),
    ).fetchall()
    months: dict[tuple[str, str], list[Any]] = {}
    for r in rows:
        months.setdefault((r["name"], r["created"][:7]), []).append(r)
    # a product bought once in its month, so "the X I bought in <month>" names one order line
    once = [rs[0] for rs in months.values() if len(rs) == 1]
    for r in spaced(once, 12):
        paid = f"{r['paid']:.2f}"
        message = (
            f"Refund request for order {r['number']}: the {r['name']} {BROKE}. "
            f"Please refund ${paid}."
        )
        yield (
            {"product": r["name"], "time": f"in {month_name(r['created'][:7])}"},
            html(
                (
                    "last",
                    f"document.querySelector('[title=\"{CONTACT_MESSAGE}\"]').value",
                    {"must_include": ["refund", BROKE, r["number"], paid]},
                )
            ),
            [*_to_order(db, _order_row(db, r["oid"])), *_draft(message)],
        )


@instantiator(163)
def contact_coupon(db):
    reasons = (
        "I am a loyal customer",
        "I am a student",
        "my last order arrived late",
        "I plan to place a bulk order",
        "it is my birthday this week",
        "I referred three friends to the store",
        "I am a first-time customer",
        "the item I wanted went up in price",
    )
    for reason in reasons:
        yield (
            {"reason": reason},
            _message_is("coupon", reason),
            _draft(f"Dear shop owner, could I have a coupon? I ask because {reason}."),
        )


@instantiator(165)
def moved_address(db):
    moves = (
        ("418 Larkspur Lane", "Suite 210", "Denver", "CO", "Colorado", "80203"),
        ("77 Harbor View Road", "", "Portland", "ME", "Maine", "04101"),
        ("1290 Juniper Court", "Apt 5B", "Austin", "TX", "Texas", "78701"),
        ("36 Birchwood Drive", "", "Madison", "WI", "Wisconsin", "53703"),
        ("905 Cypress Avenue", "Unit 12", "Tucson", "AZ", "Arizona", "85701"),
        ("52 Orchard Street", "", "Burlington", "VT", "Vermont", "05401"),
        ("2711 Prairie Road", "Floor 3", "Omaha", "NE", "Nebraska", "68102"),
        ("140 Lighthouse Way", "", "Savannah", "GA", "Georgia", "31401"),
    )
    for street, unit, city, abbr, state, zip_code in moves:
        line = f"{street}, {unit}" if unit else street
        said = f"{line}, {city}, {abbr}, {zip_code}"
        needles = [street, *([unit] if unit else []), city, zip_code]
        boxes = [
            (
                f"{SHOP}/customer/address",
                f'document.querySelector(".box.box-address-{kind} > .box-content").outerText',
                {"must_include": needles},
            )
            for kind in ("billing", "shipping")
        ]
        yield (
            {"address": said},
            html(*boxes),
            [
                ["click", "link", "My Account"],
                ["click", "link", "Address Book"],
                ["click", "link", "Change Address"],
                ["type", "textbox", "Street Address", line, 0],
                ["type", "textbox", "City", city, 0],
                ["type", "textbox", "State/Province", state, 0],
                ["type", "textbox", "Zip/Postal Code", zip_code, 0],
                ["click", "button", "Save Address"],
                ["stop", ""],
            ],
        )


def _storage(db, noun: str) -> list[tuple[Any, int]]:
    """The products named ``<brand> <noun>, <capacity> <unit>``, with their capacity in the
    smallest unit (GB for drives)."""
    out = []
    for p in db.execute(
        "SELECT * FROM shop_products WHERE name LIKE ? AND status='Enabled' ORDER BY id",
        (f"%{noun}, %",),
    ):
        size = p["name"].rsplit(", ", 1)[1]
        number = int("".join(ch for ch in size if ch.isdigit()))
        out.append((p, number * 1000 if size.endswith("TB") else number))
    return out


@instantiator(171)
def cards_storage(db):
    cases = sorted(_storage(db, "Game Card Case for Nintendo Switch"), key=lambda pc: pc[1])
    for num in (11, 31, 20, 50, 70, 14):
        best = next((p for p, slots in cases if slots >= num), None)
        if best is None:
            continue
        yield (
            {"num": num},
            url(f"{SHOP}/product/{best['sku']}"),
            [
                ["type", "searchbox", "Search entire store here...", "game card case", 1],
                ["click", "link", best["name"]],
                ["stop", ""],
            ],
        )


@instantiator(207)
def cheapest_with_capacity(db):
    for noun, query, mins in (
        (
            "Game Card Case for Nintendo Switch",
            "switch card case",
            ((15, "15 cards"), (30, "30 cards"), (10, "10 cards")),
        ),
        (
            "External Hard Drive",
            "external hard drive",
            ((1000, "1TB"), (300, "300GB"), (3000, "3TB")),
        ),
    ):
        items = sorted(_storage(db, noun), key=lambda pc: (pc[0]["price"], pc[0]["id"]))
        for minimum, label in mins:
            best = next((p for p, size in items if size >= minimum), None)
            if best is None:
                continue
            yield (
                {"product": query, "min_storage": label},
                url(f"{SHOP}/product/{best['sku']}"),
                [
                    ["type", "searchbox", "Search entire store here...", query, 1],
                    *_sort_by_price(False)[1],
                    ["click", "link", best["name"]],
                    ["stop", ""],
                ],
            )


@instantiator(199)
def newsletter(db):
    yield (
        {},
        html(
            (
                f"{SHOP}/newsletter/manage/",
                "document.querySelector('[title=\"General Subscription\"]').checked.toString()",
                {"exact_match": "true"},
            )
        ),
        [
            ["click", "link", "My Account"],
            ["click", "link", "Newsletter Subscriptions"],
            ["click", "checkbox", "General Subscription"],
            ["click", "button", "Save"],
            ["stop", ""],
        ],
    )


#: Template 151's problem (its text is fixed: WebArena has one instance) and what the page the
#: agent ends on must show, as WebArena checks it.
BRUXISM = ("jaw bruxism", "mouth guard")


@instantiator(151)
def alleviate_problem(db):
    """A need stated in words, not a product name: the store's search reads descriptions, which
    say what each product is for (:data:`.sites.vocab.USES`). WebArena's text is fixed, so
    there is one instance; the check is WebArena's (the last page shows the problem and a mouth
    guard), which the start page does not."""
    problem, kind = BRUXISM
    rows = _enabled(
        db,
        "lower(description) LIKE ? AND lower(name || ' ' || description) LIKE ?",
        (f"%{problem}%", f"%{kind}%"),
    )
    if not rows:
        return
    yield (
        {},
        html(("last", "", {"must_include": list(BRUXISM)})),
        [
            ["type", "searchbox", "Search entire store here...", problem, 1],
            ["click", "link", rows[0]["name"]],
            ["stop", ""],
        ],
    )
