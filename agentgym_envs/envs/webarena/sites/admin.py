"""The shop's admin (WebArena's ``shopping_admin``): orders, invoices, products, reviews and a
bestsellers report over the storefront's database."""

from __future__ import annotations

from fastapi import FastAPI
from starlette.requests import Request

from agentgym_envs.envs.webarena.sites.common import (
    connect,
    current_user,
    esc,
    form,
    login_form,
    pager,
    paginate,
    qs,
    redirect,
    render,
    sign_in,
    sign_out,
    table,
)

COOKIE = "admin_session"
PER_PAGE = 20
STATUSES = ("pending", "processing", "complete", "canceled")


def _nav() -> str:
    return (
        '<nav aria-label="Admin"><a href="/admin/dashboard">Dashboard</a> '
        '<a href="/admin/sales/order">Orders</a> <a href="/admin/sales/invoice">Invoices</a> '
        '<a href="/admin/catalog/product">Products</a> <a href="/admin/reviews">Reviews</a> '
        '<a href="/admin/reports/bestsellers">Reports</a> '
        '<a href="/admin/logout">Sign Out</a></nav>'
    )


def _search(action: str, label: str, value: str) -> str:
    return (
        f'<form role="search" method="get" action="{action}"><input type="search" name="q" '
        f'aria-label="{esc(label)}" value="{esc(value)}"> <button type="submit">Search</button>'
        "</form>"
    )


def create_app() -> FastAPI:
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)

    def guard(request: Request):
        return None if current_user(request, COOKIE) else redirect("/admin")

    @app.get("/admin")
    def login_page(request: Request, error: str = ""):
        if current_user(request, COOKIE):
            return redirect("/admin/dashboard")
        body = "<h1>Welcome, please sign in</h1>" + login_form("/admin", "Username", error)
        return render("Magento Admin", body)

    @app.post("/admin")
    async def login(request: Request):
        return await sign_in(
            request,
            users="admin_users",
            name_column="username",
            cookie=COOKIE,
            home="/admin/dashboard",
            retry="/admin",
            error="The account sign-in was incorrect.",
        )

    @app.get("/admin/logout")
    def logout():
        return sign_out(COOKIE, "/admin")

    @app.get("/admin/dashboard")
    def dashboard(request: Request):
        if (r := guard(request)) is not None:
            return r
        with connect(request) as db:
            n, total = db.execute(
                "SELECT COUNT(*), COALESCE(SUM(grand_total), 0) FROM shop_orders "
                "WHERE status != 'canceled'"
            ).fetchone()
        body = f"<h1>Dashboard</h1><p>Orders: {n}</p><p>Lifetime Sales: ${total:,.2f}</p>"
        return render("Dashboard / Magento Admin", body, _nav())

    @app.get("/admin/sales/order")
    def orders(request: Request, status: str = "", q: str = "", page: int = 1):
        if (r := guard(request)) is not None:
            return r
        sql, args = "SELECT * FROM shop_orders WHERE 1=1", []
        if status:
            sql += " AND status=?"
            args.append(status)
        if q:
            sql += " AND number LIKE ?"
            args.append(f"%{q}%")
        with connect(request) as db:
            rows = db.execute(sql + " ORDER BY id DESC", args).fetchall()
        shown, page, pages = paginate(rows, page, PER_PAGE)
        filters = " ".join(
            f'<a href="/admin/sales/order?{qs(status=s)}">{s.capitalize()}</a>' for s in STATUSES
        )
        cells = [
            [
                esc(o["number"]),
                esc(o["created"]),
                esc(o["email"]),
                f"${o['grand_total']:,.2f}",
                esc(o["status"].capitalize()),
                f'<a href="/admin/sales/order/view/{o["id"]}">View Order {esc(o["number"])}</a>',
            ]
            for o in shown
        ]
        body = (
            f'<h1>Orders</h1><nav aria-label="Status">Status: <a href="/admin/sales/order">All'
            f"</a> {filters}</nav>"
            + _search("/admin/sales/order", "Search by order number", q)
            + f"<p>{len(rows)} records found</p>"
            + table(["ID", "Purchase Date", "Customer", "Grand Total", "Status", "Action"], cells)
            + pager("/admin/sales/order", page, pages, status=status, q=q)
        )
        return render("Orders / Sales / Magento Admin", body, _nav())

    @app.get("/admin/sales/order/view/{oid}")
    def order(request: Request, oid: int):
        if (r := guard(request)) is not None:
            return r
        with connect(request) as db:
            o = db.execute("SELECT * FROM shop_orders WHERE id=?", (oid,)).fetchone()
            if o is None:
                return render("404 Not Found", "<h1>404 Not Found</h1>", _nav(), 404)
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

    @app.post("/admin/sales/order/cancel/{oid}")
    def cancel(request: Request, oid: int):
        if (r := guard(request)) is not None:
            return r
        with connect(request) as db:
            db.execute(
                "UPDATE shop_orders SET status='canceled' WHERE id=? AND status IN "
                "('pending', 'processing')",
                (oid,),
            )
        return redirect(f"/admin/sales/order/view/{oid}")

    @app.get("/admin/sales/invoice")
    def invoices(request: Request, q: str = "", page: int = 1):
        if (r := guard(request)) is not None:
            return r
        with connect(request) as db:
            rows = db.execute(
                "SELECT i.*, o.number AS order_number FROM shop_invoices i JOIN shop_orders o "
                "ON o.id=i.order_id WHERE i.number LIKE ? ORDER BY i.id DESC",
                (f"%{q}%",),
            ).fetchall()
        shown, page, pages = paginate(rows, page, PER_PAGE)
        cells = [
            [
                esc(i["number"]),
                esc(i["order_number"]),
                esc(i["created"]),
                f"${i['grand_total']:,.2f}",
            ]
            for i in shown
        ]
        body = (
            "<h1>Invoices</h1>"
            + _search("/admin/sales/invoice", "Search by invoice number", q)
            + f"<p>{len(rows)} records found</p>"
            + table(["Invoice", "Order #", "Invoice Date", "Grand Total"], cells)
            + pager("/admin/sales/invoice", page, pages, q=q)
        )
        return render("Invoices / Magento Admin", body, _nav())

    @app.get("/admin/catalog/product")
    def products(request: Request, q: str = "", page: int = 1):
        if (r := guard(request)) is not None:
            return r
        words = q.lower().split()
        with connect(request) as db:
            rows = [
                p
                for p in db.execute("SELECT * FROM shop_products ORDER BY id").fetchall()
                if all(w in p["name"].lower() for w in words)
            ]
        shown, page, pages = paginate(rows, page, PER_PAGE)
        cells = [
            [
                esc(p["name"]),
                esc(p["sku"]),
                f"${p['price']:,.2f}",
                str(p["qty"]),
                f'<a href="/admin/catalog/product/edit/{p["id"]}">Edit {esc(p["name"])}</a>',
            ]
            for p in shown
        ]
        body = (
            "<h1>Products</h1>"
            + _search("/admin/catalog/product", "Search by keyword", q)
            + f"<p>{len(rows)} records found</p>"
            + table(["Name", "SKU", "Price", "Quantity", "Action"], cells)
            + pager("/admin/catalog/product", page, pages, q=q)
        )
        return render("Products / Magento Admin", body, _nav())

    @app.get("/admin/catalog/product/edit/{pid}")
    def edit_product(request: Request, pid: int, saved: str = ""):
        if (r := guard(request)) is not None:
            return r
        with connect(request) as db:
            p = db.execute("SELECT * FROM shop_products WHERE id=?", (pid,)).fetchone()
        if p is None:
            return render("404 Not Found", "<h1>404 Not Found</h1>", _nav(), 404)
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

    @app.post("/admin/catalog/product/edit/{pid}")
    async def save_product(request: Request, pid: int):
        if (r := guard(request)) is not None:
            return r
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

    @app.get("/admin/reviews")
    def reviews(request: Request, q: str = "", page: int = 1):
        if (r := guard(request)) is not None:
            return r
        with connect(request) as db:
            rows = db.execute(
                "SELECT r.*, p.name FROM shop_reviews r JOIN shop_products p ON p.id=r.product_id"
                " WHERE lower(r.body) LIKE ? ORDER BY r.id DESC",
                (f"%{q.lower()}%",),
            ).fetchall()
        shown, page, pages = paginate(rows, page, PER_PAGE)
        cells = [
            [esc(r["created"]), esc(r["title"]), esc(r["author"]), esc(r["name"]), esc(r["body"])]
            for r in shown
        ]
        body = (
            "<h1>Reviews</h1>"
            + _search("/admin/reviews", "Search reviews", q)
            + f"<p>{len(rows)} records found</p>"
            + table(["Created", "Title", "Nickname", "Product", "Review"], cells)
            + pager("/admin/reviews", page, pages, q=q)
        )
        return render("Reviews / Magento Admin", body, _nav())

    @app.get("/admin/reports/bestsellers")
    def bestsellers(request: Request, year: str = ""):
        if (r := guard(request)) is not None:
            return r
        with connect(request) as db:
            years = [
                y[0]
                for y in db.execute(
                    "SELECT DISTINCT substr(created, 1, 4) FROM shop_orders ORDER BY 1"
                )
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
            f"<h2>Bestsellers of {esc(year)}</h2>"
            + table(["Rank", "Product", "Order Quantity"], cells)
            if year
            else ""
        )
        return render("Bestsellers Report / Magento Admin", body, _nav())

    return app
