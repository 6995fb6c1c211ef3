"""WebArena's shop-admin templates (``shopping_admin``) on the sites' data."""

from __future__ import annotations

from typing import Any

from agentgym_envs.envs.webarena.sites.data import CMS_PAGES
from agentgym_envs.envs.webarena.wa_common import (
    both,
    exact,
    fuzzy,
    html,
    money,
    must,
    na,
    spaced,
    url,
)
from agentgym_envs.envs.webarena.webarena_tasks import instantiator

ADMIN = "__SHOPPING_ADMIN__"
ORDERS = ["click", "link", "Orders"]


def _order_search(number: str) -> list[list[Any]]:
    return [
        ORDERS,
        ["type", "searchbox", "Search by order number or email", number, 1],
        ["click", "link", f"View Order {number}"],
    ]


def _customer(db, email: str):
    return db.execute("SELECT * FROM shop_customers WHERE email=?", (email,)).fetchone()


def _ranked_customers(db, where: str) -> list[Any]:
    return db.execute(
        f"SELECT email, COUNT(*) AS n FROM shop_orders WHERE {where} GROUP BY email "
        "ORDER BY n DESC, email"
    ).fetchall()


@instantiator(234)
def most_cancellations(db):
    top = _ranked_customers(db, "status='canceled'")
    if len(top) > 1 and top[0]["n"] > top[1]["n"]:
        c = _customer(db, top[0]["email"])
        for attr, value in (
            ("name", c["name"]),
            ("email", c["email"]),
            ("phone number", c["phone"]),
        ):
            yield (
                {"attribute": attr},
                exact(value),
                [ORDERS, ["click", "link", "Canceled"], ["stop", value]],
            )


@instantiator(276)
def completed_most(db):
    ranked = _ranked_customers(db, "status='complete'")
    for quantifier, row in (("most", ranked[0]), ("least", ranked[-1])):
        tied = [r for r in ranked if r["n"] == row["n"]]
        if len(tied) > 1:
            continue
        name = _customer(db, row["email"])["name"]
        yield (
            {"quantifier": quantifier},
            must(name),
            [ORDERS, ["click", "link", "Complete"], ["stop", name]],
        )


def _reviews_of(db, pid: int, where: str) -> list[Any]:
    return db.execute(
        f"SELECT * FROM shop_reviews WHERE product_id=? AND {where} ORDER BY id", (pid,)
    ).fetchall()


def _reviewed_products(db, where: str, n: int) -> list[Any]:
    rows = db.execute(
        "SELECT p.* FROM shop_products p WHERE p.review_count >= 3 AND EXISTS (SELECT 1 FROM "
        f"shop_reviews r WHERE r.product_id=p.id AND {where}) ORDER BY p.id"
    ).fetchall()
    return spaced(rows, n)


def _reviews_page(name: str) -> list[list[Any]]:
    """Reviews -> the grid's Product filter -> Apply Filters."""
    return [
        ["click", "link", "Reviews"],
        ["type", "textbox", "Product", name, 0],
        ["click", "button", "Apply Filters"],
    ]


@instantiator(245)
def dissatisfied(db):
    for p in _reviewed_products(db, "r.rating <= 2", 25):
        names = sorted({r["author"] for r in _reviews_of(db, p["id"], "rating <= 2")})
        answer = ", ".join(names)
        yield ({"product": p["name"]}, exact(answer), [*_reviews_page(p["name"]), ["stop", answer]])


@instantiator(244)
def most_unhappy(db):
    for p in _reviewed_products(db, "r.rating = 1", 60):
        worst = _reviews_of(db, p["id"], "rating = 1")
        if len(worst) != 1:
            continue
        yield (
            {"information": "name", "product": p["name"]},
            exact(worst[0]["author"]),
            [*_reviews_page(p["name"]), ["stop", worst[0]["author"]]],
        )


@instantiator(249)
def dislikes(db):
    for p in _reviewed_products(db, "r.rating <= 2", 25):
        titles = sorted({r["title"] for r in _reviews_of(db, p["id"], "rating <= 2")})
        answer = "; ".join(titles)
        yield ({"product": p["name"]}, fuzzy(answer), [*_reviews_page(p["name"]), ["stop", answer]])


@instantiator(250)
def likes(db):
    for p in _reviewed_products(db, "r.rating >= 4", 25):
        titles = sorted({r["title"] for r in _reviews_of(db, p["id"], "rating >= 4")})[:4]
        answer = "; ".join(titles)
        yield ({"product": p["name"]}, fuzzy(answer), [*_reviews_page(p["name"]), ["stop", answer]])


@instantiator(248)
def reviews_in_period(db):
    months = db.execute(
        "SELECT substr(created, 1, 7) AS m, COUNT(*) AS n FROM shop_reviews GROUP BY m ORDER BY m"
    ).fetchall()
    from agentgym_envs.envs.webarena.wa_common import month_name

    for r in spaced(months, 25):
        yield (
            {"time": f"in {month_name(r['m'])}"},
            must(str(r["n"])),
            [
                ["click", "link", "Reviews"],
                ["type", "textbox", "From", f"{r['m']}-01", 0],
                ["type", "textbox", "To", f"{r['m']}-31", 0],
                ["click", "button", "Apply Filters"],
                ["stop", str(r["n"])],
            ],
        )


@instantiator(277)
def reviews_by_status(db):
    """The grid's status links filter it; its count is the answer."""
    for status in ("Approved", "Pending", "Not Approved"):
        n = db.execute("SELECT COUNT(*) FROM shop_reviews WHERE status=?", (status,)).fetchone()[0]
        yield (
            {"status": status},
            must(str(n)),
            [["click", "link", "Reviews"], ["click", "link", status], ["stop", str(n)]],
        )


@instantiator(288)
def reviews_term(db):
    words = [
        r[0]
        for r in db.execute(
            "SELECT lower(title) FROM shop_reviews GROUP BY lower(title) ORDER BY COUNT(*) DESC "
            "LIMIT 25"
        )
    ]
    for term in words:
        n = db.execute(
            "SELECT COUNT(*) FROM shop_reviews WHERE lower(body) LIKE ?", (f"%{term}%",)
        ).fetchone()[0]
        yield (
            {"term": term},
            must(str(n)),
            [
                ["click", "link", "Reviews"],
                ["type", "searchbox", "Search reviews", term, 1],
                ["stop", str(n)],
            ],
        )


@instantiator(364)
def customer_by_phone(db):
    rows = db.execute(
        "SELECT * FROM shop_customers WHERE phone IN (SELECT phone FROM shop_customers GROUP BY "
        "phone HAVING COUNT(*)=1) ORDER BY email"
    ).fetchall()
    for c in spaced(rows, 30):
        phone = c["phone"]
        shown = f"+1 {phone[:3]}{phone[3:6]}{phone[6:]}" if phone.isdigit() else phone
        yield (
            {"PhoneNum": shown},
            must(c["name"], c["email"]),
            [
                ["click", "link", "Customers"],
                ["type", "searchbox", "Search by keyword", phone, 1],
                ["stop", f"{c['name']} {c['email']}"],
            ],
        )


@instantiator(366)
def status_order_attr(db):
    for status in ("canceled", "pending", "complete", "processing"):
        o = db.execute(
            "SELECT * FROM shop_orders WHERE status=? ORDER BY created DESC, id DESC LIMIT 1",
            (status,),
        ).fetchone()
        name = _customer(db, o["email"])["name"]
        for attr, value in (
            ("customer name", name),
            ("order number", o["number"]),
            ("grand total", money(o["grand_total"])),
        ):
            yield (
                {"attribute": attr, "status": f"most recent {status}"},
                exact(value),
                [ORDERS, ["click", "link", status.capitalize()], ["stop", value]],
            )


@instantiator(367)
def last_n_total(db):
    for status in ("canceled", "pending", "complete", "processing"):
        rows = db.execute(
            "SELECT grand_total FROM shop_orders WHERE status=? ORDER BY created DESC, id DESC",
            (status,),
        ).fetchall()
        for n in (2, 3, 5, 6):
            total = round(sum(r[0] for r in rows[:n]), 2)
            yield (
                {"N": n, "status": status},
                must(f"{total:,.2f}"),
                [ORDERS, ["click", "link", status.capitalize()], ["stop", money(total)]],
            )


@instantiator(368)
def units_left(db):
    for n in (0, 1, 2, 3, 5, 7, 10):
        count = db.execute("SELECT COUNT(*) FROM shop_products WHERE qty=?", (n,)).fetchone()[0]
        yield (
            {"Attribute": "number", "N": n},
            fuzzy(str(count)),
            [*_quantity_filter(n), ["stop", str(count)]],
        )
    yield (
        {"Attribute": "SKU", "N": 9999},
        na("no product has 9999 units left"),
        [*_quantity_filter(9999), ["stop", "N/A"]],
    )


def _quantity_filter(n: int) -> list[list[Any]]:
    """Products -> Filters -> quantity from ``n`` to ``n`` -> Apply Filters."""
    return [
        ["click", "link", "Products"],
        ["click", "DisclosureTriangle", "Filters"],
        ["type", "textbox", "Quantity from", str(n), 0],
        ["type", "textbox", "Quantity to", str(n), 0],
        ["click", "button", "Apply Filters"],
    ]


@instantiator(1002)
def items_recent_orders(db):
    recent = db.execute(
        "SELECT id, number, created FROM shop_orders ORDER BY created DESC, id DESC LIMIT 12"
    ).fetchall()
    ids = [r["id"] for r in recent]
    for k in (2, 3, 4, 5, 7, 8, 9, 11):
        day = recent[k - 1]["created"][:10]
        since = db.execute(
            "SELECT COUNT(*) FROM shop_orders WHERE substr(created, 1, 10) >= ?", (day,)
        ).fetchone()[0]
        if since != k:  # the grid's date filter would not show exactly the k orders
            continue
        n = db.execute(
            f"SELECT SUM(qty) FROM shop_order_items WHERE order_id IN ({','.join('?' * k)})",
            ids[:k],
        ).fetchone()[0]
        # the grid (newest id first) shows no item counts: filter it to the k orders' days,
        # open each order, come back
        views: list[list[Any]] = []
        for r in recent[:k]:
            views += [["click", "link", f"View Order {r['number']}"], ["go_back"]]
        plan = [
            ORDERS,
            ["type", "textbox", "Purchase Date from", day, 0],
            ["click", "button", "Apply Filters"],
            *views[:-1],
            ["stop", str(n)],
        ]
        yield ({"k": k}, must(str(n)), plan)


@instantiator(279)
def bestseller(db):
    for year in ("2022", "2023"):
        top = db.execute(
            "SELECT p.name, SUM(i.qty) AS sold FROM shop_order_items i JOIN shop_orders o "
            "ON o.id=i.order_id JOIN shop_products p ON p.id=i.product_id WHERE "
            "o.status != 'canceled' AND substr(o.created, 1, 4)=? GROUP BY p.id "
            "ORDER BY sold DESC, p.name LIMIT 4",
            (year,),
        ).fetchall()
        for n in (1, 2, 3):
            if top[n - 1]["sold"] == top[n]["sold"]:
                continue
            name = top[n - 1]["name"]
            yield (
                {"n": n, "year": int(year)},
                exact(name),
                [["click", "link", "Reports"], ["click", "link", year], ["stop", name]],
            )


@instantiator(274)
def invoice_total(db):
    for inv in spaced(db.execute("SELECT * FROM shop_invoices ORDER BY id").fetchall(), 25):
        yield (
            {"id": inv["number"]},
            must(f"{inv['grand_total']:,.2f}"),
            [
                ["click", "link", "Invoices"],
                ["type", "searchbox", "Search by invoice number", inv["number"], 1],
                ["stop", money(inv["grand_total"])],
            ],
        )


@instantiator(270)
def monthly_counts(db):
    for year in ("2022", "2023"):
        for months in (3, 4, 5):
            rows = db.execute(
                "SELECT substr(created, 6, 2) AS m, COUNT(*) AS n FROM shop_orders WHERE "
                "status='complete' AND substr(created, 1, 4)=? AND CAST(substr(created, 6, 2) "
                "AS INTEGER) <= ? GROUP BY m ORDER BY m",
                (year, months),
            ).fetchall()
            answer = ", ".join(f"{r['m']}:{r['n']}" for r in rows)
            yield (
                {"period": f"from Jan to {('Mar', 'Apr', 'May')[months - 3]} {year}"},
                fuzzy(answer),
                [
                    ["click", "link", "Sales Report"],
                    ["type", "textbox", "From", f"{year}-01-01", 0],
                    ["type", "textbox", "To", f"{year}-{months:02d}-31", 0],
                    ["click", "button", "Show Report"],
                    ["stop", answer],
                ],
            )


@instantiator(253)
def lookup_status(db):
    for status in ("canceled", "pending", "complete", "processing"):
        target = f"{ADMIN}/sales/order?status={status}"
        yield (
            {"status": status},
            both(
                url(target),
                html(("last", "", {"must_include": [status.capitalize()]})),
            ),
            [ORDERS, ["click", "link", status.capitalize()], ["stop", ""]],
        )


@instantiator(255)
def all_customers(db):
    yield ({}, url(f"{ADMIN}/customer/index"), [["click", "link", "Customers"], ["stop", ""]])


@instantiator(257)
def cancel_order(db):
    rows = db.execute(
        "SELECT * FROM shop_orders WHERE status IN ('pending', 'processing') ORDER BY id"
    ).fetchall()
    for o in spaced(rows, 25):
        yield (
            {"id": o["number"].lstrip("0")},
            html(
                (
                    f"{ADMIN}/sales/order/view/{o['id']}",
                    'document.querySelector(".order-status").outerText',
                    {"exact_match": "Canceled"},
                )
            ),
            [*_order_search(o["number"]), ["click", "button", "Cancel Order"], ["stop", ""]],
        )


def _edit(p, field: str, label: str, value: str) -> list[list[Any]]:
    return [
        ["click", "link", "Products"],
        ["type", "searchbox", "Search by keyword", p["name"], 1],
        ["click", "link", f"Edit {p['name']}"],
        ["click", "textbox", label],
        ["press", "Meta+a"],
        ["press", "Backspace"],
        ["type", "textbox", label, value, 0],
        ["click", "button", "Save Product"],
        ["stop", ""],
    ]


def _field_is(p, field: str, value: str) -> dict[str, Any]:
    return html(
        (
            f"{ADMIN}/catalog/product/edit/{p['id']}",
            f'document.querySelector("[name={field}]").value',
            {"exact_match": value},
        )
    )


def _unique_products(db, offset: int, n: int) -> list[Any]:
    rows = db.execute(
        "SELECT * FROM shop_products WHERE name IN (SELECT name FROM shop_products GROUP BY "
        "name HAVING COUNT(*)=1) ORDER BY id"
    ).fetchall()
    return spaced(rows[offset:], n)


@instantiator(241)
def stock_arrived(db):
    for k, p in enumerate(_unique_products(db, 50, 25)):
        qty = (5, 12, 20, 40)[k % 4]
        new = str(p["qty"] + qty)
        yield (
            {"quantity": qty, "product": p["name"]},
            _field_is(p, "qty", new),
            _edit(p, "qty", "Quantity", new),
        )


@instantiator(287)
def out_of_stock(db):
    for p in _unique_products(db, 90, 25):
        yield ({"product": p["name"]}, _field_is(p, "qty", "0"), _edit(p, "qty", "Quantity", "0"))


@instantiator(742)
def change_price(db):
    for k, p in enumerate(_unique_products(db, 130, 30)):
        action, pct = (("Increase", 10), ("Reduce", 15), ("Increase", 25))[k % 3]
        factor = 1 + pct / 100 if action == "Increase" else 1 - pct / 100
        price = f"{p['price'] * factor:.2f}"
        yield (
            {"action": action, "config": p["name"], "amount": f"{pct}%"},
            _field_is(p, "price", price),
            _edit(p, "price", "Price", price),
        )


@instantiator(247)
def change_this_price(db):
    for k, p in enumerate(_unique_products(db, 170, 30)):
        action, amount = (("Increase", 5), ("Reduce", 3), ("Increase", 12))[k % 3]
        price = f"{p['price'] + (amount if action == 'Increase' else -amount):.2f}"
        yield (
            {
                "__start__": f"{ADMIN}/catalog/product/edit/{p['id']}",
                "action": action,
                "amount": f"${amount}",
            },
            _field_is(p, "price", price),
            [
                ["click", "textbox", "Price"],
                ["press", "Meta+a"],
                ["press", "Backspace"],
                ["type", "textbox", "Price", price, 0],
                ["click", "button", "Save Product"],
                ["stop", ""],
            ],
        )


@instantiator(275)
def cms_title(db):
    for pid, (title, _key, _status) in enumerate(CMS_PAGES, start=1):
        new = f"{title} | One Stop Market"
        yield (
            {"old-heading": title, "heading": new},
            html(
                (
                    f"{ADMIN}/cms/page/edit/{pid}",
                    'document.querySelector("[name=title]").value',
                    {"exact_match": new},
                )
            ),
            [
                ["click", "link", "Pages"],
                ["click", "link", f"Edit {title}"],
                ["click", "textbox", "Page Title"],
                ["press", "Meta+a"],
                ["press", "Backspace"],
                ["type", "textbox", "Page Title", new, 0],
                ["click", "button", "Save Page"],
                ["stop", ""],
            ],
        )


@instantiator(280)
def notify_customer(db):
    for name in ("Grace Nguyen", "Alex Thomas"):
        if db.execute("SELECT 1 FROM shop_customers WHERE name=?", (name,)).fetchone():
            continue
        yield (
            {"name": name, "message": "the order is ready to be shipped soon!"},
            na(f"{name} is not a customer"),
            [
                ["click", "link", "Customers"],
                ["type", "searchbox", "Search by keyword", name, 1],
                ["stop", "N/A"],
            ],
        )


def _report(date_from: str, date_to: str, period: str) -> str:
    """The orders report's URL for a date range and period."""
    return f"{ADMIN}/reports/sales?period={period}&date_from={date_from}&date_to={date_to}"


def _fill_report(date_from: str, date_to: str, period: str) -> list[list[Any]]:
    """Sales Report -> its Period list (by keys: it opens on Month) -> From, To -> Show Report."""
    moves = {"day": ["ArrowUp"], "month": [], "year": ["ArrowDown"]}[period]
    pick = [["click", "combobox", "Period"], *[["press", m] for m in moves], ["press", "Enter"]]
    return [
        ["click", "link", "Sales Report"],
        *(pick if moves else []),
        ["type", "textbox", "From", date_from, 0],
        ["type", "textbox", "To", date_to, 0],
        ["click", "button", "Show Report"],
        ["stop", ""],
    ]


def _report_eval(target: str, date_from: str) -> dict[str, Any]:
    return both(
        url(target),
        html(
            ("last", 'document.querySelector("[name=date_from]").value', {"exact_match": date_from})
        ),
    )


@instantiator(268)
def report_span(db):
    spans = (
        ("for the last month", "2023-02-01", "2023-02-28", "month"),
        ("for the first quarter of 2023", "2023-01-01", "2023-03-31", "month"),
        ("for the last year", "2022-01-01", "2022-12-31", "month"),
        ("for the last week", "2023-03-06", "2023-03-12", "day"),
        ("from the beginning of the year", "2023-01-01", "2023-03-15", "month"),
        ("for 2022, by year", "2022-01-01", "2022-12-31", "year"),
    )
    for label, date_from, date_to, period in spans:
        target = _report(date_from, date_to, period)
        yield (
            {"report": "sales order report", "time_span": label},
            _report_eval(target, date_from),
            _fill_report(date_from, date_to, period),
        )


@instantiator(271)
def report_range(db):
    months = [f"2022-{m:02d}" for m in range(1, 13)] + [f"2023-{m:02d}" for m in range(1, 5)]
    for k, m in enumerate(months):
        date_from, date_to = f"{m}-01", f"{m}-28"
        kind, period = (("orders", "day"), ("sales", "day"))[k % 2]
        target = _report(date_from, date_to, period)
        yield (
            {"type": kind, "start_date": date_from, "end_date": date_to},
            _report_eval(target, date_from),
            _fill_report(date_from, date_to, period),
        )


def _open_edit(p) -> list[list[Any]]:
    """Products -> search the name -> its Edit link."""
    return [
        ["click", "link", "Products"],
        ["type", "searchbox", "Search by keyword", p["name"], 1],
        ["click", "link", f"Edit {p['name']}"],
    ]


@instantiator(242)
def disable_product(db):
    for p in _unique_products(db, 300, 25):
        if p["status"] != "Enabled":
            continue
        yield (
            {"product": p["name"]},
            html(
                (
                    f"{ADMIN}/catalog/product/edit/{p['id']}",
                    'document.querySelector("[name=status]").checked ? "1" : "2"',
                    {"exact_match": "2"},
                )
            ),
            [
                *_open_edit(p),
                ["click", "checkbox", "Enable Product"],
                ["click", "button", "Save Product"],
                ["stop", ""],
            ],
        )


@instantiator(251)
def quote_positive_reviews(db):
    rows = db.execute(
        "SELECT p.* FROM shop_products p WHERE name IN (SELECT name FROM shop_products GROUP BY "
        "name HAVING COUNT(*)=1) AND (SELECT COUNT(*) FROM shop_reviews r WHERE "
        "r.product_id=p.id AND r.rating >= 4) BETWEEN 1 AND 2 ORDER BY p.id"
    ).fetchall()
    for p in spaced(rows, 25):
        quotes = [r["body"] for r in _reviews_of(db, p["id"], "rating >= 4")]
        text = "What our customers say: " + " ".join(f'"{q}"' for q in quotes)
        yield (
            {"product": p["name"]},
            html(
                (
                    f"{ADMIN}/catalog/product/edit/{p['id']}",
                    'document.querySelector("[name=description]").value',
                    {"must_include": quotes},
                )
            ),
            [
                ["click", "link", "Reviews"],  # read them: the grid filtered to the product
                ["type", "textbox", "Product", p["name"], 0],
                ["click", "button", "Apply Filters"],
                *_open_edit(p),
                ["click", "textbox", "Description"],
                ["press", "Meta+a"],
                ["press", "Backspace"],
                ["type", "textbox", "Description", text, 0],
                ["click", "button", "Save Product"],
                ["stop", ""],
            ],
        )


def _retype(label: str, text: str) -> list[list[Any]]:
    """Clear a filled textbox and type ``text`` into it."""
    return [
        ["click", "textbox", label],
        ["press", "Meta+a"],
        ["press", "Backspace"],
        ["type", "textbox", label, text, 0],
    ]


def _some_orders(db, k: int, offset: int) -> list[Any]:
    rows = db.execute("SELECT * FROM shop_orders ORDER BY id").fetchall()
    return spaced(rows[offset:], k)


#: New addresses for template 240: street, city, state, zip.
NEW_ADDRESSES = (
    ("456 Oak Avenue, Apartment 5B", "New York", "NY", "10001"),
    ("789 Pine Lane", "San Francisco", "CA", "94102"),
    ("321 Birch Boulevard, Suite 200", "Dallas", "TX", "75201"),
    ("654 Elm Drive, Apartment 12", "Miami", "FL", "33101"),
    ("987 Cedar Court", "Los Angeles", "CA", "90012"),
    ("15 Harbor Street, Unit 4", "Seattle", "WA", "98101"),
)


@instantiator(240)
def order_address(db):
    for o, (street, city, state, postcode) in zip(
        _some_orders(db, len(NEW_ADDRESSES), 40), NEW_ADDRESSES, strict=False
    ):
        yield (
            {"order_id": str(o["id"]), "address": f"{street}, {city}, {state}, {postcode}"},
            html(
                (
                    f"{ADMIN}/sales/order/view/{o['id']}",
                    'document.querySelector(".order-address address").outerText',
                    {"must_include": [*street.split(", "), city, postcode]},
                )
            ),
            [
                *_order_search(o["number"]),
                ["click", "link", "Edit Shipping Address"],
                *_retype("Street Address", street),
                *_retype("City", city),
                *_retype("State/Province", state),
                *_retype("Zip/Postal Code", postcode),
                ["click", "button", "Save Order Address"],
                ["stop", ""],
            ],
        )


#: Template 284's services: the intent's name -> the carrier as Magento's select lists it.
SERVICES = {
    "Federal Express": "Federal Express",
    "DHL": "DHL",
    "UPS": "United Parcel Service",
    "USPS": "United States Postal Service",
}


@instantiator(284)
def tracking_number(db):
    from agentgym_envs.envs.webarena.sites.admin_more import CARRIERS

    names = list(SERVICES)
    for k, o in enumerate(_some_orders(db, 6, 90)):
        service = names[k % len(names)]
        carrier = SERVICES[service]
        number = str(10**10 + (o["id"] * 7919 * 104729) % (9 * 10**10))
        yield (
            {"order": str(o["id"]), "service": service, "tracking": number},
            html(
                (
                    f"{ADMIN}/sales/order/view/{o['id']}",
                    "",
                    {"must_include": [f"Tracking number {number} for {carrier} assigned"]},
                )
            ),
            [
                *_order_search(o["number"]),
                ["click", "combobox", "Carrier"],
                *[["press", "ArrowDown"]] * CARRIERS.index(carrier),
                ["press", "Enter"],
                ["type", "textbox", "Tracking Number", number, 0],
                ["click", "button", "Add Tracking Number"],
                ["stop", ""],
            ],
        )


@instantiator(266)
def preview_theme(db):
    from agentgym_envs.envs.webarena.sites.admin_more import THEMES

    for tid, (title, _parent, _path) in THEMES.items():
        if tid == 2:  # the admin's own theme: not one for the shop
            continue
        yield (
            {"name": title},
            url(f"{ADMIN}/system_design_theme/edit/id/{tid}"),
            [["click", "link", "Themes"], ["click", "link", f"View {title}"], ["stop", ""]],
        )


#: Template 258's rules: topic, the rule as the intent says it, action, amount.
PRICE_RULES = (
    ("spring sale", "a 20 percent discount site-wide", "by_percent", "20"),
    ("fall discount", "$10 discount on checkout", "cart_fixed", "10"),
    ("back to school", "15% off on all products", "by_percent", "15"),
    ("winter clearance", "$25 discount on checkout", "cart_fixed", "25"),
    ("loyalty week", "a 5 percent discount site-wide", "by_percent", "5"),
    ("Black Friday", "$40 discount on checkout", "cart_fixed", "40"),
)


@instantiator(258)
def cart_price_rule(db):
    from agentgym_envs.envs.webarena.sites.admin_more import CUSTOMER_GROUPS, RULE_ACTIONS

    def value(selector: str, prop: str = "value") -> str:
        return f"document.querySelector('[name=\"{selector}\"]').{prop}"

    for topic, rule, action, amount in PRICE_RULES:
        checks = [
            ("last", value("name"), {"must_include": [topic]}),
            ("last", value("website_ids", "selectedIndex"), {"exact_match": "0"}),
            (
                "last",
                "document.querySelectorAll('[name=\"customer_group_ids\"]:checked').length",
                {"exact_match": str(len(CUSTOMER_GROUPS))},
            ),
            ("last", value("simple_action"), {"exact_match": action}),
            ("last", value("discount_amount"), {"exact_match": amount}),
        ]
        moves = list(RULE_ACTIONS).index(action)
        pick = [["click", "combobox", "Apply"], *[["press", "ArrowDown"]] * moves]
        yield (
            {"topic": topic, "rule": rule},
            both(url(f"{ADMIN}/sales_rule/promo_quote"), html(*checks)),
            [
                ["click", "link", "Cart Price Rules"],
                ["click", "link", "Add New Rule"],
                ["type", "textbox", "Rule Name", topic, 0],
                *[["click", "checkbox", g] for g in CUSTOMER_GROUPS],
                *([*pick, ["press", "Enter"]] if moves else []),
                ["type", "textbox", "Discount Amount", amount, 0],
                ["click", "button", "Save and Continue Edit"],
                ["stop", ""],
            ],
        )


def _top_terms(db, n: int) -> list[str]:
    return [
        r[0]
        for r in db.execute(
            "SELECT term FROM shop_search_terms ORDER BY uses DESC, term LIMIT ?", (n,)
        )
    ]


SEARCH_TERMS = ["click", "link", "Search Terms"]


@instantiator(285)
def top_search_terms(db):
    for n in (1, 2, 3, 4, 5):
        terms = _top_terms(db, n)
        yield (
            {"n": n},
            exact(terms[0]) if n == 1 else must(*terms),
            [SEARCH_TERMS, ["stop", ", ".join(terms)]],
        )


@instantiator(1001)
def top_search_brands(db):
    brands = {r[0] for r in db.execute("SELECT DISTINCT brand FROM shop_products")}
    counts: dict[str, int] = {}
    for term in _top_terms(db, 10):
        for brand in brands:
            if term.startswith(brand + " "):
                counts[brand] = counts.get(brand, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])
    if len(ranked) > 1 and ranked[0][1] > ranked[1][1]:
        yield ({}, must(ranked[0][0]), [SEARCH_TERMS, ["stop", ranked[0][0]]])
