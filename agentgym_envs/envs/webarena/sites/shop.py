"""The storefront ("One Stop Market"): search, categories, product pages with reviews, cart,
checkout, wish list, customer login and order history (WebArena's shopping site, small)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, FastAPI
from starlette.requests import Request

from agentgym_envs.envs.webarena.sites.common import (
    Accounts,
    connect,
    esc,
    form,
    login_form,
    not_found,
    paged_table,
    redirect,
    render,
    site_app,
    table,
)

ACCOUNTS = Accounts(
    cookie="shop_session",
    users="shop_customers",
    name_column="email",
    login="/customer/account/login",
    logout="/customer/account/logout",
    home="/customer/account",
    logged_out="/",
    error="Invalid login or password.",
)
User = Annotated[str | None, Depends(ACCOUNTS.user)]
TITLE = "One Stop Market"
PER_PAGE = 10

router = APIRouter()


def _nav(request: Request) -> str:
    user = ACCOUNTS.user(request)
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


def _product_cells(r) -> list[str]:
    return [f'<a href="/product/{esc(r["sku"])}">{esc(r["name"])}</a>', _money(r["price"])]


def _products(rows, page: int, base: str, **params: object) -> str:
    """Page ``page`` of the products ``rows``, with the pager to the next pages at ``base``."""
    return paged_table(rows, page, PER_PAGE, ["Product", "Price"], _product_cells, base, **params)


def _product_id(db, sku: str):
    return db.execute("SELECT id FROM shop_products WHERE sku=?", (sku,)).fetchone()


def login_page(request: Request, error: str = ""):
    body = "<h1>Customer Login</h1>" + login_form(ACCOUNTS.login, "Email", error)
    return render("Customer Login", body, _nav(request))


@router.get("/")
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
        "<h2>Featured products</h2>" + table(["Product", "Price"], map(_product_cells, featured))
    )
    return render(TITLE, body, _nav(request))


@router.get("/catalogsearch/result/")
def search(request: Request, q: str = "", page: int = 1):
    words = [w for w in q.lower().split() if w]
    with connect(request) as db:
        rows = db.execute("SELECT * FROM shop_products ORDER BY id").fetchall()
    hits = [r for r in rows if words and all(w in r["name"].lower() for w in words)]
    body = f"<h1>Search results for: '{esc(q)}'</h1><p>{len(hits)} items</p>" + _products(
        hits, page, "/catalogsearch/result/", q=q
    )
    return render(f"Search results for: '{q}'", body, _nav(request))


@router.get("/category/{name}")
def category(request: Request, name: str, page: int = 1):
    with connect(request) as db:
        rows = db.execute(
            "SELECT * FROM shop_products WHERE category=? ORDER BY id", (name,)
        ).fetchall()
    body = f"<h1>{esc(name)}</h1><p>{len(rows)} items</p>" + _products(
        rows, page, f"/category/{esc(name)}"
    )
    return render(name, body, _nav(request))


def _reviews(sku: str, reviews) -> str:
    """The product's reviews and the form to write one."""
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
    return (
        f"<section><h2>Customer Reviews ({len(reviews)})</h2>{items or '<p>No reviews yet.</p>'}"
        f"</section><section><h2>Write Your Own Review</h2>"
        f'<form method="post" action="/review/post/{esc(sku)}">'
        '<label>Nickname <input name="nickname" type="text"></label> '
        f"<fieldset><legend>Rating</legend>{stars}</fieldset> "
        '<label>Summary <input name="title" type="text"></label> '
        '<label>Review <textarea name="body"></textarea></label> '
        '<button type="submit">Submit Review</button></form></section>'
    )


@router.get("/product/{sku}")
def product(request: Request, sku: str):
    with connect(request) as db:
        p = db.execute("SELECT * FROM shop_products WHERE sku=?", (sku,)).fetchone()
        if p is None:
            return not_found(_nav(request))
        reviews = db.execute(
            "SELECT * FROM shop_reviews WHERE product_id=? ORDER BY id", (p["id"],)
        ).fetchall()
    body = (
        f'<h1>{esc(p["name"])}</h1><p class="price">{_money(p["price"])}</p>'
        f'<p>SKU: <span class="sku">{esc(p["sku"])}</span></p>'
        f"<p>{esc(p['description'])}</p>"
        f'<form method="post" action="/checkout/cart/add/{esc(sku)}">'
        '<label>Qty <input name="qty" type="number" value="1"></label> '
        '<button type="submit">Add to Cart</button></form>'
        f'<form method="post" action="/wishlist/add/{esc(sku)}">'
        '<button type="submit">Add to Wish List</button></form>' + _reviews(sku, reviews)
    )
    return render(p["name"], body, _nav(request))


@router.post("/review/post/{sku}")
async def post_review(request: Request, sku: str):
    data = await form(request)
    with connect(request) as db:
        p = _product_id(db, sku)
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


@router.post("/checkout/cart/add/{sku}")
async def add_to_cart(request: Request, sku: str, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form(request)
    qty = max(1, int(data.get("qty") or 1)) if (data.get("qty") or "1").isdigit() else 1
    with connect(request) as db:
        p = _product_id(db, sku)
        if p is not None:
            db.execute("INSERT INTO shop_cart VALUES (?,?,?)", (user, p["id"], qty))
    return redirect("/checkout/cart")


@router.post("/wishlist/add/{sku}")
def add_to_wishlist(request: Request, sku: str, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        p = _product_id(db, sku)
        if p is not None:
            db.execute("INSERT INTO shop_wishlist VALUES (?,?)", (user, p["id"]))
    return redirect("/wishlist")


@router.get("/wishlist")
def wishlist(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        rows = db.execute(
            "SELECT p.* FROM shop_wishlist w JOIN shop_products p ON p.id=w.product_id "
            "WHERE w.email=?",
            (user,),
        ).fetchall()
    body = "<h1>My Wish List</h1>" + table(["Product", "Price"], map(_product_cells, rows))
    return render("My Wish List", body, _nav(request))


def _cart(db, user: str) -> list:
    return db.execute(
        "SELECT c.product_id, p.name, p.sku, p.price, c.qty FROM shop_cart c JOIN shop_products p "
        "ON p.id=c.product_id WHERE c.email=?",
        (user,),
    ).fetchall()


@router.get("/checkout/cart")
def cart(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        rows = _cart(db, user)
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


@router.post("/checkout/place")
def place_order(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        rows = _cart(db, user)
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


@router.get("/customer/account")
def account(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        me = db.execute("SELECT * FROM shop_customers WHERE email=?", (user,)).fetchone()
    body = (
        f"<h1>My Account</h1><p>{esc(me['name'])}</p><p>{esc(me['email'])}</p>"
        f"<p>Default address: {esc(me['address'])}</p>"
        '<a href="/sales/order/history">My Orders</a>'
    )
    return render("My Account", body, _nav(request))


def _order_cells(r) -> list[str]:
    return [
        esc(r["number"]),
        esc(r["created"]),
        _money(r["grand_total"]),
        esc(r["status"].capitalize()),
        f'<a href="/sales/order/view/{r["id"]}">View Order {esc(r["number"])}</a>',
    ]


@router.get("/sales/order/history")
def orders(request: Request, user: User, page: int = 1):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        rows = db.execute(
            "SELECT * FROM shop_orders WHERE email=? ORDER BY created DESC, id DESC", (user,)
        ).fetchall()
    body = "<h1>My Orders</h1>" + paged_table(
        rows,
        page,
        PER_PAGE,
        ["Order #", "Date", "Order Total", "Status", "Action"],
        _order_cells,
        "/sales/order/history",
    )
    return render("My Orders", body, _nav(request))


@router.get("/sales/order/view/{oid}")
def order(request: Request, oid: int, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        o = db.execute("SELECT * FROM shop_orders WHERE id=? AND email=?", (oid, user)).fetchone()
        if o is None:
            return not_found(_nav(request))
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


def create_app() -> FastAPI:
    return site_app(ACCOUNTS.router(login_page), router)
