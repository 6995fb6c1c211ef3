"""The shop's admin (WebArena's ``shopping_admin``): orders, invoices, products, reviews and a
bestsellers report over the storefront's database."""

from __future__ import annotations

from functools import partial
from typing import Annotated

from fastapi import APIRouter, Depends, FastAPI
from starlette.requests import Request

from agentgym_envs.envs.webarena.sites.common import (
    Accounts,
    SqlRows,
    connect,
    esc,
    form,
    login_form,
    not_found,
    paged_table,
    qs,
    redirect,
    site_app,
    table,
)
from agentgym_envs.envs.webarena.sites.common import (
    render as _render,
)

ACCOUNTS = Accounts(
    cookie="admin_session",
    users="admin_users",
    name_column="username",
    login="/admin",
    logout="/admin/logout",
    home="/admin/dashboard",
    logged_out="/admin",
    error="The account sign-in was incorrect.",
)
User = Annotated[str | None, Depends(ACCOUNTS.user)]
PER_PAGE = 20
STATUSES = ("pending", "processing", "complete", "canceled")

router = APIRouter()


MENU = (
    ("Dashboard", "/admin/dashboard"),
    ("Orders", "/admin/sales/order"),
    ("Invoices", "/admin/sales/invoice"),
    ("Products", "/admin/catalog/product"),
    ("Customers", "/admin/customer/index"),
    ("Reviews", "/admin/reviews"),
    ("Reports", "/admin/reports/bestsellers"),
    ("Sales Report", "/admin/reports/sales"),
    ("Pages", "/admin/cms/page"),
    ("Sign Out", "/admin/logout"),
)


def _nav() -> str:
    """Magento's admin menu: a dark column of sections down the left."""
    items = "".join(f'<li><a href="{href}">{label}</a></li>' for label, href in MENU)
    return (
        '<nav class="admin__menu" aria-label="Admin"><a class="logo" href="/admin/dashboard" '
        f'aria-label="Magento Admin Panel">M</a><ul>{items}</ul></nav>'
    )


render = partial(_render, css="admin", body_class="admin")


def _records(base: str, label: str, q: str, rows, page: int, headers, cells, **params) -> str:
    """A grid's search box (``q`` at ``base``), its count of ``rows`` and page ``page`` of them."""
    search = (
        f'<form role="search" method="get" action="{base}"><input type="search" name="q" '
        f'aria-label="{esc(label)}" value="{esc(q)}"> <button type="submit">Search</button>'
        "</form>"
    )
    return (
        search
        + f"<p>{len(rows)} records found</p>"
        + paged_table(rows, page, PER_PAGE, headers, cells, base, **params, q=q)
    )


def login_page(request: Request, user: User, error: str = ""):
    if user:
        return redirect(ACCOUNTS.home)
    body = "<h1>Welcome, please sign in</h1>" + login_form(ACCOUNTS.login, "Username", error)
    return _render("Magento Admin", body, css="admin", body_class="login")


@router.get("/admin/dashboard")
def dashboard(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        n, total = db.execute(
            "SELECT COUNT(*), COALESCE(SUM(grand_total), 0) FROM shop_orders "
            "WHERE status != 'canceled'"
        ).fetchone()
        customers = db.execute("SELECT COUNT(*) FROM shop_customers").fetchone()[0]
        products = db.execute("SELECT COUNT(*) FROM shop_products").fetchone()[0]
        last = db.execute(
            "SELECT * FROM shop_orders ORDER BY created DESC, id DESC LIMIT 5"
        ).fetchall()
    tiles = "".join(
        f'<div class="tile">{label}<strong>{value}</strong></div>'
        for label, value in (
            ("Lifetime Sales", f"${total:,.2f}"),
            ("Orders", n),
            ("Customers", customers),
            ("Products", products),
        )
    )
    body = (
        f'<h1>Dashboard</h1><div class="dashboard-totals">{tiles}</div><h2>Last Orders</h2>'
        + table(
            ["Customer", "Items", "Total"],
            [[esc(o["email"]), esc(o["number"]), f"${o['grand_total']:,.2f}"] for o in last],
        )
    )
    return render("Dashboard / Magento Admin", body, _nav())


def _order_cells(o) -> list[str]:
    return [
        esc(o["number"]),
        esc(o["created"]),
        esc(o["email"]),
        f"${o['grand_total']:,.2f}",
        esc(o["status"].capitalize()),
        f'<a href="/admin/sales/order/view/{o["id"]}">View Order {esc(o["number"])}</a>',
    ]


@router.get("/admin/sales/order")
def orders(
    request: Request,
    user: User,
    status: str = "",
    q: str = "",
    page: int = 1,
    created_from: str = "",
    created_to: str = "",
):
    if user is None:
        return redirect(ACCOUNTS.login)
    sql, args = "SELECT * FROM shop_orders WHERE 1=1", []
    if status:
        sql += " AND status=?"
        args.append(status)
    if q:
        sql += " AND (number LIKE ? OR email LIKE ?)"
        args += [f"%{q}%", f"%{q}%"]
    if created_from:
        sql += " AND substr(created, 1, 10) >= ?"
        args.append(created_from)
    if created_to:
        sql += " AND substr(created, 1, 10) <= ?"
        args.append(created_to)
    with connect(request) as db:
        rows = db.execute(sql + " ORDER BY id DESC", args).fetchall()
    filters = " ".join(
        f'<a href="/admin/sales/order?{qs(status=s)}">{s.capitalize()}</a>' for s in STATUSES
    )
    headers = ["ID", "Purchase Date", "Customer", "Grand Total", "Status", "Action"]
    dates = (
        '<form class="grid-filters" method="get" action="/admin/sales/order">'
        f'<input type="hidden" name="status" value="{esc(status)}">'
        '<label>Purchase Date from <input type="text" name="created_from" placeholder='
        f'"YYYY-MM-DD" value="{esc(created_from)}"></label> <label>to <input type="text" '
        f'name="created_to" placeholder="YYYY-MM-DD" value="{esc(created_to)}"></label> '
        '<button type="submit">Apply Filters</button></form>'
    )
    body = (
        f'<h1>Orders</h1><nav aria-label="Status">Status: <a href="/admin/sales/order">All'
        f"</a> {filters}</nav>{dates}"
        + _records(
            "/admin/sales/order",
            "Search by order number or email",
            q,
            rows,
            page,
            headers,
            _order_cells,
            status=status,
            created_from=created_from,
            created_to=created_to,
        )
    )
    return render("Orders / Sales / Magento Admin", body, _nav())


@router.get("/admin/sales/order/view/{oid}")
def order(request: Request, oid: int, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        o = db.execute("SELECT * FROM shop_orders WHERE id=?", (oid,)).fetchone()
        if o is None:
            return not_found(_nav())
        items = db.execute(
            "SELECT p.name, i.qty, i.price FROM shop_order_items i JOIN shop_products p "
            "ON p.id=i.product_id WHERE i.order_id=?",
            (oid,),
        ).fetchall()
    cancel = (
        f'<form method="post" action="/admin/sales/order/cancel/{oid}">'
        '<button type="submit">Cancel Order</button></form>'
        if o["status"] in ("pending", "processing")
        else ""
    )
    body = (
        f"<h1>Order # {esc(o['number'])}</h1><p>Order Status: <span class='order-status'>"
        f"{esc(o['status'].capitalize())}</span></p><p>Customer: {esc(o['email'])}</p>"
        + table(
            ["Product", "Qty", "Price"],
            [[esc(i["name"]), str(i["qty"]), f"${i['price']:,.2f}"] for i in items],
        )
        + f"<p>Grand Total: ${o['grand_total']:,.2f}</p>"
        + cancel
    )
    return render(f"# {o['number']} / Orders / Magento Admin", body, _nav())


@router.post("/admin/sales/order/cancel/{oid}")
def cancel(request: Request, oid: int, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        db.execute(
            "UPDATE shop_orders SET status='canceled' WHERE id=? AND status IN "
            "('pending', 'processing')",
            (oid,),
        )
    return redirect(f"/admin/sales/order/view/{oid}")


@router.get("/admin/sales/invoice")
def invoices(request: Request, user: User, q: str = "", page: int = 1):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        rows = db.execute(
            "SELECT i.*, o.number AS order_number FROM shop_invoices i JOIN shop_orders o "
            "ON o.id=i.order_id WHERE i.number LIKE ? ORDER BY i.id DESC",
            (f"%{q}%",),
        ).fetchall()
    body = "<h1>Invoices</h1>" + _records(
        "/admin/sales/invoice",
        "Search by invoice number",
        q,
        rows,
        page,
        ["Invoice", "Order #", "Invoice Date", "Grand Total"],
        lambda i: [
            esc(i["number"]),
            esc(i["order_number"]),
            esc(i["created"]),
            f"${i['grand_total']:,.2f}",
        ],
    )
    return render("Invoices / Magento Admin", body, _nav())


@router.get("/admin/catalog/product")
def products(request: Request, user: User, q: str = "", page: int = 1):
    if user is None:
        return redirect(ACCOUNTS.login)
    words = q.lower().split()[:8]
    db = connect(request)
    where = " AND ".join(["1=1", *("lower(name) LIKE ?" for _ in words)])
    rows = SqlRows(db, "shop_products", where, [f"%{w}%" for w in words], "id")
    body = "<h1>Products</h1>" + _records(
        "/admin/catalog/product",
        "Search by keyword",
        q,
        rows,
        page,
        ["Name", "SKU", "Price", "Quantity", "Action"],
        lambda p: [
            esc(p["name"]),
            esc(p["sku"]),
            f"${p['price']:,.2f}",
            str(p["qty"]),
            f'<a href="/admin/catalog/product/edit/{p["id"]}">Edit {esc(p["name"])}</a>',
        ],
    )
    return render("Products / Magento Admin", body, _nav())


@router.get("/admin/catalog/product/edit/{pid}")
def edit_product(request: Request, pid: int, user: User, saved: str = ""):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        p = db.execute("SELECT * FROM shop_products WHERE id=?", (pid,)).fetchone()
    if p is None:
        return not_found(_nav())
    note = "<p role='status'>You saved the product.</p>" if saved else ""
    body = (
        f"<h1>{esc(p['name'])}</h1>{note}"
        f'<form method="post" action="/admin/catalog/product/edit/{pid}">'
        f'<label>Product Name <input name="name" type="text" value="{esc(p["name"])}">'
        f'</label> <label>Price <input name="price" type="text" value="{p["price"]:.2f}">'
        f'</label> <label>Quantity <input name="qty" type="text" value="{p["qty"]}"></label> '
        '<button type="submit">Save Product</button></form>'
    )
    return render(f"{p['name']} / Products / Magento Admin", body, _nav())


@router.post("/admin/catalog/product/edit/{pid}")
async def save_product(request: Request, pid: int, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form(request)
    try:
        price, qty = float(data.get("price", "")), int(data.get("qty", "0"))
    except ValueError:
        return redirect(f"/admin/catalog/product/edit/{pid}")
    with connect(request) as db:
        db.execute(
            "UPDATE shop_products SET name=?, price=?, qty=? WHERE id=?",
            (data.get("name", "").strip() or "Unnamed", round(price, 2), qty, pid),
        )
    return redirect(f"/admin/catalog/product/edit/{pid}?saved=1")


@router.get("/admin/reviews")
def reviews(request: Request, user: User, q: str = "", page: int = 1):
    if user is None:
        return redirect(ACCOUNTS.login)
    db = connect(request)
    rows = SqlRows(
        db,
        "(SELECT r.*, p.name FROM shop_reviews r JOIN shop_products p ON p.id = r.product_id)",
        "lower(body) LIKE ?",
        [f"%{q.lower()}%"],
        "id DESC",
    )
    body = "<h1>Reviews</h1>" + _records(
        "/admin/reviews",
        "Search reviews",
        q,
        rows,
        page,
        ["Created", "Title", "Nickname", "Product", "Review"],
        lambda r: [
            esc(r["created"]),
            esc(r["title"]),
            esc(r["author"]),
            esc(r["name"]),
            esc(r["body"]),
        ],
    )
    return render("Reviews / Magento Admin", body, _nav())


@router.get("/admin/reports/bestsellers")
def bestsellers(request: Request, user: User, year: str = ""):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        years = [
            y[0]
            for y in db.execute("SELECT DISTINCT substr(created, 1, 4) FROM shop_orders ORDER BY 1")
        ]
        rows = (
            db.execute(
                "SELECT p.name, SUM(i.qty) AS sold FROM shop_order_items i JOIN shop_orders o "
                "ON o.id=i.order_id JOIN shop_products p ON p.id=i.product_id WHERE "
                "o.status != 'canceled' AND substr(o.created, 1, 4)=? GROUP BY p.id "
                "ORDER BY sold DESC, p.name LIMIT 10",
                (year,),
            ).fetchall()
            if year
            else []
        )
    links = " ".join(f'<a href="/admin/reports/bestsellers?year={y}">{y}</a>' for y in years)
    cells = [[str(k), esc(r["name"]), str(r["sold"])] for k, r in enumerate(rows, 1)]
    body = f'<h1>Bestsellers Report</h1><nav aria-label="Year">Year: {links}</nav>' + (
        f"<h2>Bestsellers of {esc(year)}</h2>" + table(["Rank", "Product", "Order Quantity"], cells)
        if year
        else ""
    )
    return render("Bestsellers Report / Magento Admin", body, _nav())


@router.get("/admin/customer/index")
def customers(request: Request, user: User, q: str = "", page: int = 1):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        rows = db.execute(
            "SELECT * FROM shop_customers WHERE lower(name) LIKE ? OR lower(email) LIKE ? "
            "ORDER BY created DESC, email",
            (f"%{q.lower()}%", f"%{q.lower()}%"),
        ).fetchall()
    body = "<h1>Customers</h1>" + _records(
        "/admin/customer/index",
        "Search by keyword",
        q,
        rows,
        page,
        ["Name", "Email", "Group", "Phone", "Customer Since", "Address"],
        lambda c: [
            esc(c["name"]),
            esc(c["email"]),
            esc(c["grp"]),
            esc(c["phone"]),
            esc(c["created"]),
            esc(c["address"]),
        ],
    )
    return render("Customers / Magento Admin", body, _nav())


PERIODS = {"day": 10, "month": 7, "year": 4}


@router.get("/admin/reports/sales")
def sales_report(
    request: Request, user: User, period: str = "month", date_from: str = "", date_to: str = ""
):
    """Magento's Orders report: orders and sales per day, month or year of a date range."""
    if user is None:
        return redirect(ACCOUNTS.login)
    width = PERIODS.get(period, 7)
    with connect(request) as db:
        rows = db.execute(
            f"SELECT substr(created, 1, {width}) AS p, COUNT(*) AS n, SUM(grand_total) AS total "
            "FROM shop_orders WHERE status != 'canceled' AND substr(created, 1, 10) >= ? AND "
            "substr(created, 1, 10) <= ? GROUP BY p ORDER BY p",
            (date_from or "0000", date_to or "9999"),
        ).fetchall()
    options = "".join(
        f'<option value="{p}"{" selected" if p == period else ""}>{p.capitalize()}</option>'
        for p in PERIODS
    )
    body = (
        '<h1>Orders Report</h1><form class="grid-filters" method="get" '
        'action="/admin/reports/sales"><label>Period <select name="period">'
        f'{options}</select></label> <label>From <input type="text" name="date_from" '
        f'value="{esc(date_from)}" placeholder="YYYY-MM-DD"></label> <label>To <input '
        f'type="text" name="date_to" value="{esc(date_to)}" placeholder="YYYY-MM-DD"></label> '
        '<button class="primary" type="submit">Show Report</button></form>'
        + table(
            ["Interval", "Orders", "Sales Total"],
            [[esc(r["p"]), str(r["n"]), f"${r['total']:,.2f}"] for r in rows],
        )
    )
    return render("Orders Report / Reports / Magento Admin", body, _nav())


@router.get("/admin/cms/page")
def cms_pages(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        rows = db.execute("SELECT * FROM shop_cms_pages ORDER BY id").fetchall()
    body = "<h1>Pages</h1>" + table(
        ["Title", "URL Key", "Status", "Modified", "Action"],
        [
            [
                esc(r["title"]),
                esc(r["url_key"]),
                esc(r["status"]),
                esc(r["updated"]),
                f'<a href="/admin/cms/page/edit/{r["id"]}">Edit {esc(r["title"])}</a>',
            ]
            for r in rows
        ],
    )
    return render("Pages / Content / Magento Admin", body, _nav())


@router.get("/admin/cms/page/edit/{pid}")
def cms_edit(request: Request, pid: int, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        r = db.execute("SELECT * FROM shop_cms_pages WHERE id=?", (pid,)).fetchone()
    if r is None:
        return not_found(_nav())
    statuses = "".join(
        f'<label><input type="radio" name="status" value="{s}"'
        f"{' checked' if s == r['status'] else ''}> {s}</label> "
        for s in ("Enabled", "Disabled")
    )
    body = (
        f'<h1>{esc(r["title"])}</h1><form class="admin__fieldset" method="post" '
        f'action="/admin/cms/page/edit/{pid}"><div class="admin__field"><label for="title">Page '
        f'Title</label><input id="title" name="title" type="text" value="{esc(r["title"])}">'
        f'</div><fieldset class="admin__field"><legend>Enable Page</legend>{statuses}</fieldset>'
        '<button class="primary" type="submit">Save Page</button></form>'
    )
    return render(f"{r['title']} / Pages / Magento Admin", body, _nav())


@router.post("/admin/cms/page/edit/{pid}")
async def cms_save(request: Request, pid: int, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form(request)
    with connect(request) as db:
        db.execute(
            "UPDATE shop_cms_pages SET title=?, status=? WHERE id=?",
            (data.get("title", ""), data.get("status", "Enabled"), pid),
        )
    return redirect("/admin/cms/page")


def create_app() -> FastAPI:
    return site_app(ACCOUNTS.router(login_page), router)
