"""The storefront ("One Stop Market"): search, categories, product pages with reviews, cart,
checkout, wish list, customer login and order history (WebArena's shopping site, small)."""

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
    redirect,
    render,
    sign_in,
    sign_out,
    table,
)

COOKIE = "shop_session"
TITLE = "One Stop Market"
PER_PAGE = 10


def _nav(request: Request) -> str:
    user = current_user(request, COOKIE)
    account = (
        '<a href="/customer/account">My Account</a> <a href="/wishlist">My Wish List</a> '
        '<a href="/customer/account/logout">Sign Out</a>'
        if user
        else '<a href="/customer/account/login">Sign In</a>'
    )
    return (
        f'<nav aria-label="Store"><a href="/">{TITLE}</a> {account} '
        '<a href="/checkout/cart">My Cart</a></nav>'
        '<form role="search" action="/catalogsearch/result/" method="get">'
        '<input name="q" type="search" aria-label="Search entire store here..." '
        'placeholder="Search entire store here..."> <button type="submit">Search</button></form>'
    )


def _money(value: float) -> str:
    return f"${value:,.2f}"


def _product_rows(rows) -> list[list[str]]:
    return [
        [f'<a href="/product/{esc(r["sku"])}">{esc(r["name"])}</a>', _money(r["price"])]
        for r in rows
    ]


def create_app() -> FastAPI:
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)

    @app.get("/")
    def home(request: Request):
        with connect(request) as db:
            cats = [
                r[0]
                for r in db.execute("SELECT DISTINCT category FROM shop_products ORDER BY category")
            ]
            featured = db.execute("SELECT * FROM shop_products ORDER BY id LIMIT 5").fetchall()
        links = "".join(f'<li><a href="/category/{esc(c)}">{esc(c)}</a></li>' for c in cats)
        body = (
            f"<h1>{TITLE}</h1><h2>Shop by category</h2><ul>{links}</ul>"
            "<h2>Featured products</h2>" + table(["Product", "Price"], _product_rows(featured))
        )
        return render(TITLE, body, _nav(request))

    @app.get("/catalogsearch/result/")
    def search(request: Request, q: str = "", page: int = 1):
        words = [w for w in q.lower().split() if w]
        with connect(request) as db:
            rows = db.execute("SELECT * FROM shop_products ORDER BY id").fetchall()
        hits = [r for r in rows if words and all(w in r["name"].lower() for w in words)]
        shown, page, pages = paginate(hits, page, PER_PAGE)
        body = (
            f"<h1>Search results for: '{esc(q)}'</h1><p>{len(hits)} items</p>"
            + table(["Product", "Price"], _product_rows(shown))
            + pager("/catalogsearch/result/", page, pages, q=q)
        )
        return render(f"Search results for: '{q}'", body, _nav(request))

    @app.get("/category/{name}")
    def category(request: Request, name: str, page: int = 1):
        with connect(request) as db:
            rows = db.execute(
                "SELECT * FROM shop_products WHERE category=? ORDER BY id", (name,)
            ).fetchall()
        shown, page, pages = paginate(rows, page, PER_PAGE)
        body = (
            f"<h1>{esc(name)}</h1><p>{len(rows)} items</p>"
            + table(["Product", "Price"], _product_rows(shown))
            + pager(f"/category/{esc(name)}", page, pages)
        )
        return render(name, body, _nav(request))

    @app.get("/product/{sku}")
    def product(request: Request, sku: str):
        with connect(request) as db:
            p = db.execute("SELECT * FROM shop_products WHERE sku=?", (sku,)).fetchone()
            if p is None:
                return render("404 Not Found", "<h1>404 Not Found</h1>", _nav(request), 404)
            reviews = db.execute(
                "SELECT * FROM shop_reviews WHERE product_id=? ORDER BY id", (p["id"],)
            ).fetchall()
        items = "".join(
            f'<article class="review"><h3>{esc(r["title"])}</h3>'
            f'<p>Rating: {r["rating"]} of 5</p><p class="review-author">Review by '
            f"{esc(r['author'])}</p><p>{esc(r['body'])}</p></article>"
            for r in reviews
        )
        stars = "".join(
            f'<label><input type="radio" name="rating" value="{i}"{" checked" if i == 5 else ""}>'
            f" {i} stars</label> "
            for i in range(1, 6)
        )
        body = (
            f'<h1>{esc(p["name"])}</h1><p class="price">{_money(p["price"])}</p>'
            f'<p>SKU: <span class="sku">{esc(p["sku"])}</span></p>'
            f"<p>{esc(p['description'])}</p>"
            f'<form method="post" action="/checkout/cart/add/{esc(sku)}">'
            '<label>Qty <input name="qty" type="number" value="1"></label> '
            '<button type="submit">Add to Cart</button></form>'
            f'<form method="post" action="/wishlist/add/{esc(sku)}">'
            '<button type="submit">Add to Wish List</button></form>'
            f"<section><h2>Customer Reviews ({len(reviews)})</h2>{items or '<p>No reviews yet.</p>'}"
            f"</section><section><h2>Write Your Own Review</h2>"
            f'<form method="post" action="/review/post/{esc(sku)}">'
            '<label>Nickname <input name="nickname" type="text"></label> '
            f"<fieldset><legend>Rating</legend>{stars}</fieldset> "
            '<label>Summary <input name="title" type="text"></label> '
            '<label>Review <textarea name="body"></textarea></label> '
            '<button type="submit">Submit Review</button></form></section>'
        )
        return render(p["name"], body, _nav(request))

    @app.post("/review/post/{sku}")
    async def post_review(request: Request, sku: str):
        data = await form(request)
        with connect(request) as db:
            p = db.execute("SELECT id FROM shop_products WHERE sku=?", (sku,)).fetchone()
            if p is not None and data.get("nickname", "").strip():
                db.execute(
                    "INSERT INTO shop_reviews (product_id, author, rating, title, body, created)"
                    " VALUES (?,?,?,?,?,?)",
                    (
                        p["id"],
                        data["nickname"].strip(),
                        int(data.get("rating") or 5),
                        data.get("title", ""),
                        data.get("body", ""),
                        "2024-01-01",
                    ),
                )
        return redirect(f"/product/{sku}")

    @app.post("/checkout/cart/add/{sku}")
    async def add_to_cart(request: Request, sku: str):
        user = current_user(request, COOKIE)
        if user is None:
            return redirect("/customer/account/login")
        data = await form(request)
        qty = max(1, int(data.get("qty") or 1)) if (data.get("qty") or "1").isdigit() else 1
        with connect(request) as db:
            p = db.execute("SELECT id FROM shop_products WHERE sku=?", (sku,)).fetchone()
            if p is not None:
                db.execute("INSERT INTO shop_cart VALUES (?,?,?)", (user, p["id"], qty))
        return redirect("/checkout/cart")

    @app.post("/wishlist/add/{sku}")
    def add_to_wishlist(request: Request, sku: str):
        user = current_user(request, COOKIE)
        if user is None:
            return redirect("/customer/account/login")
        with connect(request) as db:
            p = db.execute("SELECT id FROM shop_products WHERE sku=?", (sku,)).fetchone()
            if p is not None:
                db.execute("INSERT INTO shop_wishlist VALUES (?,?)", (user, p["id"]))
        return redirect("/wishlist")

    @app.get("/wishlist")
    def wishlist(request: Request):
        user = current_user(request, COOKIE)
        if user is None:
            return redirect("/customer/account/login")
        with connect(request) as db:
            rows = db.execute(
                "SELECT p.* FROM shop_wishlist w JOIN shop_products p ON p.id=w.product_id "
                "WHERE w.email=?",
                (user,),
            ).fetchall()
        body = "<h1>My Wish List</h1>" + table(["Product", "Price"], _product_rows(rows))
        return render("My Wish List", body, _nav(request))

    @app.get("/checkout/cart")
    def cart(request: Request):
        user = current_user(request, COOKIE)
        if user is None:
            return redirect("/customer/account/login")
        with connect(request) as db:
            rows = db.execute(
                "SELECT p.name, p.sku, p.price, c.qty FROM shop_cart c JOIN shop_products p "
                "ON p.id=c.product_id WHERE c.email=?",
                (user,),
            ).fetchall()
        cells = [
            [
                f'<a href="/product/{esc(r["sku"])}">{esc(r["name"])}</a>',
                str(r["qty"]),
                _money(r["price"] * r["qty"]),
            ]
            for r in rows
        ]
        total = sum(r["price"] * r["qty"] for r in rows)
        body = (
            "<h1>Shopping Cart</h1>"
            + table(["Item", "Qty", "Subtotal"], cells)
            + f"<p>Order Total: {_money(total)}</p>"
            + (
                '<form method="post" action="/checkout/place">'
                '<button type="submit">Proceed to Checkout</button></form>'
                if rows
                else "<p>You have no items in your shopping cart.</p>"
            )
        )
        return render("Shopping Cart", body, _nav(request))

    @app.post("/checkout/place")
    def place_order(request: Request):
        user = current_user(request, COOKIE)
        if user is None:
            return redirect("/customer/account/login")
        with connect(request) as db:
            rows = db.execute(
                "SELECT c.product_id, c.qty, p.price FROM shop_cart c JOIN shop_products p "
                "ON p.id=c.product_id WHERE c.email=?",
                (user,),
            ).fetchall()
            if not rows:
                return redirect("/checkout/cart")
            oid = db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM shop_orders").fetchone()[0]
            total = round(sum(r["price"] * r["qty"] for r in rows) + 5.0, 2)
            db.execute(
                "INSERT INTO shop_orders VALUES (?,?,?,?,?,?)",
                (oid, f"{oid:09d}", user, "2024-01-01", "pending", total),
            )
            db.executemany(
                "INSERT INTO shop_order_items VALUES (?,?,?,?)",
                [(oid, r["product_id"], r["qty"], r["price"]) for r in rows],
            )
            db.execute("DELETE FROM shop_cart WHERE email=?", (user,))
        return redirect(f"/sales/order/view/{oid}")

    @app.get("/customer/account/login")
    def login_page(request: Request, error: str = ""):
        body = "<h1>Customer Login</h1>" + login_form("/customer/account/login", "Email", error)
        return render("Customer Login", body, _nav(request))

    @app.post("/customer/account/login")
    async def login(request: Request):
        return await sign_in(
            request,
            users="shop_customers",
            name_column="email",
            cookie=COOKIE,
            home="/customer/account",
            retry="/customer/account/login",
            error="Invalid login or password.",
        )

    @app.get("/customer/account/logout")
    def logout():
        return sign_out(COOKIE, "/")

    @app.get("/customer/account")
    def account(request: Request):
        user = current_user(request, COOKIE)
        if user is None:
            return redirect("/customer/account/login")
        with connect(request) as db:
            me = db.execute("SELECT * FROM shop_customers WHERE email=?", (user,)).fetchone()
        body = (
            f"<h1>My Account</h1><p>{esc(me['name'])}</p><p>{esc(me['email'])}</p>"
            f"<p>Default address: {esc(me['address'])}</p>"
            '<a href="/sales/order/history">My Orders</a>'
        )
        return render("My Account", body, _nav(request))

    @app.get("/sales/order/history")
    def orders(request: Request, page: int = 1):
        user = current_user(request, COOKIE)
        if user is None:
            return redirect("/customer/account/login")
        with connect(request) as db:
            rows = db.execute(
                "SELECT * FROM shop_orders WHERE email=? ORDER BY created DESC, id DESC", (user,)
            ).fetchall()
        shown, page, pages = paginate(rows, page, PER_PAGE)
        cells = [
            [
                esc(r["number"]),
                esc(r["created"]),
                _money(r["grand_total"]),
                esc(r["status"].capitalize()),
                f'<a href="/sales/order/view/{r["id"]}">View Order {esc(r["number"])}</a>',
            ]
            for r in shown
        ]
        body = (
            "<h1>My Orders</h1>"
            + table(["Order #", "Date", "Order Total", "Status", "Action"], cells)
            + pager("/sales/order/history", page, pages)
        )
        return render("My Orders", body, _nav(request))

    @app.get("/sales/order/view/{oid}")
    def order(request: Request, oid: int):
        user = current_user(request, COOKIE)
        if user is None:
            return redirect("/customer/account/login")
        with connect(request) as db:
            o = db.execute(
                "SELECT * FROM shop_orders WHERE id=? AND email=?", (oid, user)
            ).fetchone()
            if o is None:
                return render("404 Not Found", "<h1>404 Not Found</h1>", _nav(request), 404)
            items = db.execute(
                "SELECT p.name, i.qty, i.price FROM shop_order_items i JOIN shop_products p "
                "ON p.id=i.product_id WHERE i.order_id=?",
                (oid,),
            ).fetchall()
        cells = [[esc(r["name"]), str(r["qty"]), _money(r["price"])] for r in items]
        body = (
            f"<h1>Order # {esc(o['number'])}</h1><p class='order-status'>"
            f"{esc(o['status'].capitalize())}</p><p>Order Date: {esc(o['created'])}</p>"
            + table(["Product Name", "Qty", "Price"], cells)
            + f"<p>Grand Total: {_money(o['grand_total'])}</p>"
        )
        return render(f"Order # {o['number']}", body, _nav(request))

    return app
