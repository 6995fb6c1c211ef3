"""The storefront ("One Stop Market", WebArena's ``shopping``) in the manner of Magento's Luma
theme: header with search and mini cart, a mega-menu over the 3-level category tree, category
pages with layered navigation (category, price, brand, colour), a product grid with sorting and
paging, product pages with options, details and reviews, cart, checkout, and the customer
account (orders, wish list, reviews)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI
from starlette.requests import Request
from starlette.responses import Response

from agentgym_envs.envs.webarena.sites import images
from agentgym_envs.envs.webarena.sites.common import (
    Accounts,
    connect,
    esc,
    form,
    pager,
    qs,
    redirect,
    render,
    site_app,
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
PER_PAGE = 12
LIMITS = (12, 24, 36)
SORTS = {"position": "id", "name": "name", "price": "price"}
PRICE_STEP = 10

router = APIRouter()


def _money(value: float) -> str:
    return f"${value:,.2f}"


def _categories(db) -> list[Any]:
    return db.execute("SELECT * FROM shop_categories ORDER BY id").fetchall()


_MENU: dict[str, str] = {}


def _menu(db) -> str:
    """The mega-menu: every top category, its sub categories and their leaves (the tree is
    the build's, the same in every sandbox: made once per process)."""
    if "html" not in _MENU:
        _MENU["html"] = _menu_html(db)
    return _MENU["html"]


def _menu_html(db) -> str:
    cats = _categories(db)
    children: dict[Any, list[Any]] = {}
    for c in cats:
        children.setdefault(c["parent_id"], []).append(c)

    def items(parent) -> str:
        out = []
        for c in children.get(parent, []):
            sub = children.get(c["id"])
            inner = f"<ul>{items(c['id'])}</ul>" if sub else ""
            out.append(f'<li><a href="/{c["path"]}.html">{esc(c["name"])}</a>{inner}</li>')
        return "".join(out)

    tops = "".join(
        f'<li class="level0"><a href="/{t["path"]}.html">{esc(t["name"])}</a>'
        f'<ul class="submenu">{items(t["id"])}</ul></li>'
        for t in children.get(None, [])
    )
    return f'<nav class="navigation" aria-label="Categories"><ul>{tops}</ul></nav>'


def _header(request: Request, db) -> str:
    user = ACCOUNTS.user(request)
    if user:
        name = db.execute("SELECT name FROM shop_customers WHERE email=?", (user,)).fetchone()
        links = (
            f"<li>Welcome, {esc(name[0] if name else user)}!</li>"
            '<li><a href="/customer/account">My Account</a></li>'
            '<li><a href="/wishlist">My Wish List</a></li>'
            '<li><a href="/customer/account/logout">Sign Out</a></li>'
        )
        count = db.execute(
            "SELECT COALESCE(SUM(qty), 0) FROM shop_cart WHERE email=?", (user,)
        ).fetchone()[0]
    else:
        links = (
            "<li>Default welcome msg!</li>"
            '<li><a href="/customer/account/login">Sign In</a></li>'
            '<li><a href="/customer/account/create">Create an Account</a></li>'
        )
        count = 0
    badge = f' <span class="counter qty">{count}</span>' if count else ""
    return (
        f'<div class="panel header"><ul class="header links">{links}</ul></div>'
        f'<div class="header content"><a class="logo" href="/">{TITLE}</a>'
        '<form class="block-search" role="search" action="/catalogsearch/result/" method="get">'
        '<input name="q" type="search" aria-label="Search entire store here..." '
        'placeholder="Search entire store here..."><button type="submit">Search</button></form>'
        f'<div class="minicart-wrapper"><a href="/checkout/cart">My Cart{badge}</a></div></div>'
        + _menu(db)
    )


def page(request: Request, title: str, body: str, status: int = 200):
    with connect(request) as db:
        header = _header(request, db)
    footer = (
        '<footer class="page-footer"><a href="/privacy-policy-cookie-restriction-mode">Privacy '
        'and Cookie Policy</a> · <a href="/customer-service">Customer Service</a> · '
        '<a href="/contact">Contact Us</a> · '
        f"Copyright © 2013-present {TITLE}. All rights reserved.</footer>"
    )
    return render(title, body + footer, header, status, css="luma")


def _stars(rating: float) -> str:
    full = round(rating)
    return f'<span class="rating-summary" title="{rating:.1f} out of 5">{"★" * full}{"☆" * (5 - full)}</span>'


def _price_box(p) -> str:
    """The price, Magento's way: a special price below the regular one shows both (Special
    Price, Regular Price); a product on sale carries the Sale label."""
    keys = p.keys()
    special = p["special_price"] if "special_price" in keys else None
    label = '<span class="product-label sale">Sale</span> ' if "sale" in keys and p["sale"] else ""
    if special is not None and special < p["price"]:
        return (
            f'<div class="price-box">{label}<span class="special-price">Special Price <span '
            f'class="price">{_money(special)}</span></span> <span class="old-price">Regular '
            f'Price <span class="price">{_money(p["price"])}</span></span></div>'
        )
    return f'<div class="price-box">{label}<span class="price">{_money(p["price"])}</span></div>'


def _grid(rows) -> str:
    items = []
    for p in rows:
        reviews = (
            f'{_stars(p["rating"])}<a class="reviews-actions" href="/product/{esc(p["sku"])}'
            f'#reviews">{p["review_count"]} Reviews</a>'
            if p["review_count"]
            else ""
        )
        items.append(
            f'<li class="product-item"><div class="product-item-info">'
            f'<a class="product-item-photo" href="/product/{esc(p["sku"])}" tabindex="-1">'
            f"{_picture(p, 'product-image-photo')}</a>"
            f'<strong class="product-item-name"><a href="/product/{esc(p["sku"])}">'
            f"{esc(p['name'])}</a></strong>{reviews}"
            + _price_box(p)
            + f'<div class="product-item-actions"><form method="post" '
            f'action="/checkout/cart/add/{esc(p["sku"])}"><button class="action primary" '
            'type="submit">Add to Cart</button></form></div></div></li>'
        )
    return f'<ol class="product-items">{"".join(items)}</ol>'


def _listing(
    request: Request,
    db,
    where: str,
    args: list[Any],
    base: str,
    extra: dict,
    rank: tuple[str, list[Any]] | None = None,
) -> str:
    """Layered navigation, toolbar, product grid and pager for the products ``where`` picks;
    ``rank`` (SQL and its arguments) orders them first when sorted by position (relevance)."""
    q = request.query_params
    filters = {k: q[k] for k in ("price", "brand", "color") if q.get(k)}
    sql, fargs = where, list(args)
    if "price" in filters and "-" in filters["price"]:
        lo, _, hi = filters["price"].partition("-")
        if lo.isdigit() and hi.isdigit():
            sql += " AND price >= ? AND price < ?"
            fargs += [int(lo), int(hi)]
    for key in ("brand", "color"):
        if key in filters:
            sql += f" AND {key} = ?"
            fargs.append(filters[key])
    order = q.get("product_list_order", "position")
    direction = "DESC" if q.get("product_list_dir") == "desc" else "ASC"
    limit = int(q["product_list_limit"]) if q.get("product_list_limit", "").isdigit() else PER_PAGE
    limit = limit if limit in LIMITS else PER_PAGE
    total = db.execute(f"SELECT COUNT(*) FROM shop_products WHERE {sql}", fargs).fetchone()[0]
    pages = max(1, -(-total // limit))
    p = min(max(1, int(q["p"]) if q.get("p", "").isdigit() else 1), pages)
    first, first_args = (f"{rank[0]}, ", rank[1]) if rank and order == "position" else ("", [])
    rows = db.execute(
        f"SELECT * FROM shop_products WHERE {sql} ORDER BY {first}"
        f"{SORTS.get(order, 'id')} {direction}, id LIMIT ? OFFSET ?",
        [*fargs, *first_args, limit, (p - 1) * limit],
    ).fetchall()
    keep = {**extra, **filters}
    if order != "position":
        keep["product_list_order"] = order
    if direction == "DESC":
        keep["product_list_dir"] = "desc"
    if limit != PER_PAGE:
        keep["product_list_limit"] = limit
    return (
        '<div class="columns"><div class="sidebar-main">'
        + _layered(db, where, args, base, extra, filters)
        + '</div><div class="column main">'
        + _toolbar(base, keep, order, direction, limit, total, p)
        + (
            _grid(rows)
            if rows
            else '<div class="message info">Your search returned no results.</div>'
        )
        + pager(base, p, pages, key="p", **keep)
        + "</div></div>"
    )


def _toolbar(base, keep, order, direction, limit, total, p) -> str:
    first, last = (p - 1) * limit + 1, min(total, p * limit)
    shown = f"Items {first}-{last} of {total}" if total else "0 Items"

    def link(label: str, **change) -> str:
        params = {**keep, **change}
        params = {k: v for k, v in params.items() if v not in (None, "")}
        return f'<a href="{base}?{qs(**params)}">{label}</a>'

    sorts = " ".join(
        f'<strong class="active">{label}</strong>'
        if key == order
        else link(label, product_list_order=key if key != "position" else None, p=None)
        for key, label in (("position", "Position"), ("name", "Product Name"), ("price", "Price"))
    )
    flip = "asc" if direction == "DESC" else "desc"
    dir_link = link(
        "Set Ascending Direction" if direction == "DESC" else "Set Descending Direction",
        product_list_dir=None if flip == "asc" else "desc",
    )
    limits = " ".join(
        f'<strong class="active">{n}</strong>'
        if n == limit
        else link(f"Show {n}", product_list_limit=None if n == PER_PAGE else n, p=None)
        for n in LIMITS
    )
    return (
        f'<div class="toolbar toolbar-products"><p class="toolbar-amount">{shown}</p>'
        f'<div class="sorter">Sort By {sorts} {dir_link}</div>'
        f'<div class="limiter">Show {limits} per page</div></div>'
    )


def _layered(db, where, args, base, extra, filters) -> str:
    """Magento's "Shop By" block: the filters applied, then each filter's options + counts."""

    def url(**change) -> str:
        params = {**extra, **filters, **change}
        return f"{base}?{qs(**{k: v for k, v in params.items() if v not in (None, '')})}"

    current = ""
    if filters:
        now = "".join(
            f'<li>{k.capitalize()}: {esc(v)} <a href="{url(**{k: None})}" '
            f'aria-label="Remove {k.capitalize()} {esc(v)}">×</a></li>'
            for k, v in filters.items()
        )
        current = (
            f'<div class="filter-current"><strong>Now Shopping by</strong><ol>{now}</ol></div>'
        )
    blocks = []
    if "price" not in filters:
        rows = db.execute(
            f"SELECT CAST(price / {PRICE_STEP} AS INTEGER) AS b, COUNT(*) FROM shop_products "
            f"WHERE {where} GROUP BY b ORDER BY b",
            args,
        ).fetchall()
        opts = "".join(
            f'<li><a href="{url(price=f"{b * PRICE_STEP}-{(b + 1) * PRICE_STEP}", p=None)}">'
            f"{_money(b * PRICE_STEP)} - {_money((b + 1) * PRICE_STEP - 0.01)}</a> "
            f'<span class="count">{n}</span></li>'
            for b, n in rows[:10]
        )
        blocks.append(("Price", opts))
    for key, label in (("brand", "Brand"), ("color", "Color")):
        if key in filters:
            continue
        rows = db.execute(
            f"SELECT {key}, COUNT(*) AS n FROM shop_products WHERE {where} GROUP BY {key} "
            f"ORDER BY n DESC, {key} LIMIT 12",
            args,
        ).fetchall()
        opts = "".join(
            f'<li><a href="{url(**{key: v}, p=None)}">{esc(v)}</a> <span class="count">{n}</span>'
            "</li>"
            for v, n in rows
        )
        blocks.append((label, opts))
    body = "".join(
        f'<div class="filter-options-item"><div class="filter-options-title" role="heading" '
        f'aria-level="3">{label}</div><div class="filter-options-content"><ol>{opts}</ol></div>'
        "</div>"
        for label, opts in blocks
        if opts
    )
    return (
        '<div class="block filter"><strong class="filter-title" role="heading" aria-level="2">'
        f"Shop By</strong>{current}{body}</div>"
    )


def _breadcrumbs(trail: list[tuple[str, str | None]]) -> str:
    items = "".join(
        f'<li><a href="{href}">{esc(name)}</a></li>'
        if href
        else f"<li><strong>{esc(name)}</strong></li>"
        for name, href in [("Home", "/"), *trail]
    )
    return f'<div class="breadcrumbs"><ul class="items">{items}</ul></div>'


def login_page(request: Request, error: str = ""):
    note = f'<div class="message error" role="alert">{esc(error)}</div>' if error else ""
    body = (
        f'<h1 class="page-title">Customer Login</h1>{note}<div class="block-customer-login">'
        '<h2 class="block-title">Registered Customers</h2>'
        f'<form method="post" action="{ACCOUNTS.login}">'
        '<div class="field"><label for="email">Email</label>'
        '<input id="email" name="username" type="email"></div>'
        '<div class="field"><label for="pass">Password</label>'
        '<input id="pass" name="password" type="password"></div>'
        '<button class="action primary" type="submit">Sign In</button></form></div>'
    )
    return page(request, "Customer Login", body)


@router.get("/")
def home(request: Request):
    with connect(request) as db:
        tops = db.execute("SELECT * FROM shop_categories WHERE level=1 ORDER BY id").fetchall()
        hot = db.execute(
            "SELECT * FROM shop_products WHERE status='Enabled' AND review_count >= 4 "
            "ORDER BY rating DESC, review_count DESC, id LIMIT 8"
        ).fetchall()
        showcase = db.execute(
            "SELECT * FROM shop_products WHERE status='Enabled' AND review_count >= 1 "
            "ORDER BY created DESC, id LIMIT 16"
        ).fetchall()
    tiles = "".join(f'<li><a href="/{t["path"]}.html">{esc(t["name"])}</a></li>' for t in tops)
    body = (
        '<div class="home-hero"><h2>Everything you need, one stop away</h2>'
        "<p>20,000 products across a dozen departments.</p></div>"
        f'<h2 class="block-title">Shop by Department</h2><ul class="category-tiles">{tiles}</ul>'
        f'<h2 class="block-title">Hot Sellers</h2>{_grid(hot)}'
        f'<h2 class="block-title">Product Showcases</h2>{_grid(showcase)}'
    )
    return page(request, TITLE, body)


@router.get("/catalogsearch/result/")
def search(request: Request, q: str = ""):
    words = [w for w in q.lower().split() if w][:8]
    # Magento's quick search reads the name and the description; names matching come first
    where = " AND ".join(
        ["status='Enabled'", *("lower(name || ' ' || description) LIKE ?" for _ in words)]
    )
    args = [f"%{w}%" for w in words]
    by_name = " AND ".join("lower(name) LIKE ?" for _ in words)
    with connect(request) as db:
        listing = (
            _listing(
                request,
                db,
                where,
                args,
                "/catalogsearch/result/",
                {"q": q},
                rank=(f"(CASE WHEN {by_name} THEN 0 ELSE 1 END)", args),
            )
            if words
            else '<div class="message info">Enter a search term.</div>'
        )
    body = (
        _breadcrumbs([(f"Search results for: '{q}'", None)])
        + f"<h1 class=\"page-title\">Search results for: '{esc(q)}'</h1>"
        + listing
    )
    return page(request, f"Search results for: '{q}'", body)


def _picture(p: Any, css_class: str) -> str:
    """The product's picture, inline (see :mod:`.images`)."""
    return images.product_svg(p["sku"], p["name"], p["top"], p["color"], css_class)


@router.get("/media/catalog/product/{sku}.svg")
def product_image(request: Request, sku: str):
    """The product's picture, drawn from its department, colour and SKU."""
    with connect(request) as db:
        p = db.execute(
            "SELECT sku, name, top, color FROM shop_products WHERE sku=?", (sku,)
        ).fetchone()
    if p is None:
        return Response("not found", status_code=404)
    svg = images.product_svg(p["sku"], p["name"], p["top"], p["color"])
    return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "max-age=3600"})


@router.get("/product/{sku}")
def product(request: Request, sku: str, user: User):
    with connect(request) as db:
        p = db.execute("SELECT * FROM shop_products WHERE sku=?", (sku,)).fetchone()
        if p is None:
            return _not_found(request)
        reviews = db.execute(
            "SELECT * FROM shop_reviews WHERE product_id=? AND status='Approved' ORDER BY id",
            (p["id"],),
        ).fetchall()
        trail = _trail(db, p["category_id"])
        colors = [
            r[0]
            for r in db.execute(
                "SELECT color FROM shop_variants WHERE product_id=? GROUP BY color ORDER BY "
                "MIN(id)",
                (p["id"],),
            )
        ]
    options = ""
    if p["sizes"]:
        opts = "".join(f'<option value="{s}">{s}</option>' for s in p["sizes"].split(","))
        options = (
            '<div class="field"><label for="size">Size</label><select id="size" name="size">'
            f'<option value="">Choose an Option...</option>{opts}</select></div>'
        )
    if len(colors) > 1:  # a configurable product in several colours
        opts = "".join(f'<option value="{esc(c)}">{esc(c)}</option>' for c in colors)
        options += (
            '<div class="field"><label for="color">Color</label><select id="color" '
            f'name="color"><option value="">Choose an Option...</option>{opts}</select></div>'
        )
    summary = (
        f'{_stars(p["rating"])} <a href="#reviews">{len(reviews)} Reviews</a>'
        if reviews
        else '<a href="#review-form">Be the first to review this product</a>'
    )
    stock = "In stock" if p["qty"] > 0 and p["status"] == "Enabled" else "Out of stock"
    more = "".join(
        f"<tr><th>{label}</th><td>{esc(p[key])}</td></tr>"
        for label, key in (("Brand", "brand"), ("Color", "color"), ("Material", "material"))
    )
    body = (
        _breadcrumbs(trail + [(p["name"], None)])
        + '<div class="columns"><div class="product media"><div class="gallery-placeholder">'
        f'{_picture(p, "gallery-image")}</div></div><div class="product-info-main">'
        f'<h1 class="page-title"><span class="base">{esc(p["name"])}</span></h1>'
        f'<div class="product-reviews-summary">{summary}</div>'
        + _price_box(p)
        + f'<div class="product-info-stock-sku"><span class="stock">{stock}</span> · SKU '
        f'<span class="sku">{esc(p["sku"])}</span></div>'
        f'<form class="box-tocart" method="post" action="/checkout/cart/add/{esc(sku)}">'
        f'{options}<div class="field"><label for="qty">Qty</label>'
        '<input id="qty" name="qty" type="number" value="1" min="1"></div>'
        '<button class="action primary" type="submit">Add to Cart</button></form>'
        f'<form method="post" action="/wishlist/add/{esc(sku)}">'
        '<button class="action towishlist" type="submit">Add to Wish List</button></form>'
        "</div></div>"
        '<div class="product info detailed">'
        '<h2 class="data item title">Details</h2>'
        f'<div class="data item content"><p>{esc(p["description"])}</p></div>'
        '<h2 class="data item title">More Information</h2>'
        f'<div class="data item content"><table class="data table">{more}</table></div>'
        + _reviews(sku, reviews)
        + "</div>"
    )
    return page(request, p["name"], body)


def _trail(db, cat_id: int) -> list[tuple[str, str | None]]:
    trail = []
    while cat_id:
        c = db.execute("SELECT * FROM shop_categories WHERE id=?", (cat_id,)).fetchone()
        trail.insert(0, (c["name"], f"/{c['path']}.html"))
        cat_id = c["parent_id"]
    return trail


def _reviews(sku: str, reviews) -> str:
    """The product's reviews and the form to write one."""
    items = "".join(
        f'<li class="review-item"><div class="review-title">{esc(r["title"])}</div>'
        f"<div>Rating {_stars(r['rating'])} <span>{r['rating'] * 20}%</span></div>"
        f'<div class="review-content">{esc(r["body"])}</div><p class="review-details">'
        f'Review by <strong class="review-author">{esc(r["author"])}</strong> Posted on '
        f"{esc(r['created'])}</p></li>"
        for r in reviews
    )
    stars = "".join(
        f'<label><input type="radio" name="rating" value="{i}"{" checked" if i == 5 else ""}>'
        f" {i} stars</label> "
        for i in range(1, 6)
    )
    return (
        f'<h2 class="data item title" id="reviews">Reviews ({len(reviews)})</h2>'
        '<div class="data item content">'
        f'<ol class="items review-items">{items or "<li>No reviews yet.</li>"}</ol>'
        '<h3 id="review-form">You\'re reviewing this product</h3>'
        f'<form method="post" action="/review/post/{esc(sku)}">'
        f'<fieldset class="rating"><legend>Rating</legend>{stars}</fieldset>'
        '<div class="field"><label for="nickname">Nickname</label>'
        '<input id="nickname" name="nickname" type="text"></div>'
        '<div class="field"><label for="summary">Summary</label>'
        '<input id="summary" name="title" type="text"></div>'
        '<div class="field"><label for="review">Review</label>'
        '<textarea id="review" name="body"></textarea></div>'
        '<button class="action primary" type="submit">Submit Review</button></form></div>'
    )


@router.post("/review/post/{sku}")
async def post_review(request: Request, sku: str):
    data = await form(request)
    rating = data.get("rating", "5")
    with connect(request) as db:
        p = _product_id(db, sku)
        if p is not None and data.get("nickname", "").strip():
            db.execute(
                "INSERT INTO shop_reviews (product_id, author, rating, title, body, created, "
                "status) VALUES (?,?,?,?,?,?,?)",
                (
                    p["id"],
                    data["nickname"].strip(),
                    int(rating) if rating in ("1", "2", "3", "4", "5") else 5,
                    data.get("title", ""),
                    data.get("body", ""),
                    "2024-01-01",
                    "Approved",
                ),
            )
    return redirect(f"/product/{sku}")


def _product_id(db, sku: str):
    return db.execute("SELECT id FROM shop_products WHERE sku=?", (sku,)).fetchone()


@router.post("/checkout/cart/add/{sku}")
async def add_to_cart(request: Request, sku: str, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form(request)
    qty = int(data["qty"]) if data.get("qty", "").isdigit() and int(data["qty"]) > 0 else 1
    chosen = [f"{k.capitalize()}: {data[k]}" for k in ("size", "color") if data.get(k)]
    options = ", ".join(chosen)
    with connect(request) as db:
        p = _product_id(db, sku)
        if p is not None:
            db.execute("INSERT INTO shop_cart VALUES (?,?,?,?)", (user, p["id"], qty, options))
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


def _account(request: Request, current: str, title: str, body: str):
    links = (
        ("My Account", "/customer/account"),
        ("My Orders", "/sales/order/history"),
        ("My Wish List", "/wishlist"),
        ("Address Book", "/customer/address"),
        ("My Product Reviews", "/review/customer"),
        ("Newsletter Subscriptions", "/newsletter/manage/"),
    )
    nav = "".join(
        f"<li><strong>{label}</strong></li>"
        if label == current
        else f'<li><a href="{href}">{label}</a></li>'
        for label, href in links
    )
    return page(
        request,
        title,
        f'<div class="columns"><div class="sidebar-main"><nav class="account-nav" '
        f'aria-label="My Account"><ul>{nav}</ul></nav></div><div class="column main">'
        f'<h1 class="page-title">{esc(title)}</h1>{body}</div></div>',
    )


def _product_table(rows) -> str:
    cells = "".join(
        f'<tr><td><a href="/product/{esc(r["sku"])}">{esc(r["name"])}</a></td>'
        f"<td>{_money(r['price'])}</td></tr>"
        for r in rows
    )
    return (
        '<table class="data table"><thead><tr><th>Product</th><th>Price</th></tr></thead>'
        f"<tbody>{cells}</tbody></table>"
    )


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
    body = _product_table(rows) if rows else "<p>You have no items in your wish list.</p>"
    return _account(request, "My Wish List", "My Wish List", body)


def _opt(row) -> str:
    return f" <small>{esc(row['options'])}</small>" if row["options"] else ""


def _cart(db, user: str) -> list:
    """The cart's lines, each at the price the shop charges (a special price below the
    regular one, as the product page shows it)."""
    return db.execute(
        "SELECT c.rowid AS line, c.product_id, p.name, p.sku, CASE WHEN p.special_price "
        "IS NOT NULL AND p.special_price < p.price THEN p.special_price ELSE p.price END "
        "AS price, c.qty, c.options "
        "FROM shop_cart c JOIN shop_products p ON p.id=c.product_id WHERE c.email=?",
        (user,),
    ).fetchall()


@router.get("/checkout/cart")
def cart(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        rows = _cart(db, user)
    cells = "".join(
        f'<tr><td><a href="/product/{esc(r["sku"])}">{esc(r["name"])}</a>'
        f"{_opt(r)}</td>"
        f"<td>{_money(r['price'])}</td><td>{r['qty']}</td><td>{_money(r['price'] * r['qty'])}"
        f'</td><td><form method="post" action="/checkout/cart/delete/{r["line"]}"><button '
        f'type="submit" aria-label="Remove {esc(r["name"])}">Remove item</button></form></td></tr>'
        for r in rows
    )
    total = sum(r["price"] * r["qty"] for r in rows)
    body = (
        (
            '<table class="data table"><thead><tr><th>Item</th><th>Price</th><th>Qty</th>'
            f"<th>Subtotal</th><th></th></tr></thead><tbody>{cells}</tbody></table>"
            f'<div class="cart-summary"><p>Order Total: <span class="price">{_money(total)}'
            '</span></p><a class="action primary" href="/checkout">Proceed to Checkout</a></div>'
        )
        if rows
        else "<p>You have no items in your shopping cart.</p>"
    )
    return page(request, "Shopping Cart", f'<h1 class="page-title">Shopping Cart</h1>{body}')


@router.post("/checkout/cart/delete/{line}")
def remove_line(request: Request, line: int, user: User):
    if user is not None:
        with connect(request) as db:
            db.execute("DELETE FROM shop_cart WHERE rowid=? AND email=?", (line, user))
    return redirect("/checkout/cart")


SHIPPING = {"flatrate": ("Flat Rate", 5.0), "bestway": ("Best Way", 15.0)}


@router.get("/checkout")
def checkout(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        rows = _cart(db, user)
        me = db.execute("SELECT * FROM shop_customers WHERE email=?", (user,)).fetchone()
    if not rows:
        return redirect("/checkout/cart")
    methods = "".join(
        f'<label><input type="radio" name="shipping" value="{k}"{" checked" if k == "flatrate" else ""}>'
        f" {label} {_money(cost)}</label> "
        for k, (label, cost) in SHIPPING.items()
    )
    body = (
        '<h1 class="page-title">Checkout</h1><form method="post" action="/checkout/place">'
        '<h2 class="block-title">Shipping Address</h2><div class="field"><label for="addr">'
        f'Street Address</label><input id="addr" name="address" type="text" value="'
        f'{esc(me["address"])}" size="60"></div><h2 class="block-title">Shipping Methods</h2>'
        f'<fieldset class="rating"><legend>Shipping method</legend>{methods}</fieldset>'
        f"<p>{len(rows)} item(s) in cart</p>"
        '<button class="action primary" type="submit">Place Order</button></form>'
    )
    return page(request, "Checkout", body)


@router.post("/checkout/place")
async def place_order(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form(request)
    shipping = SHIPPING.get(data.get("shipping", ""), SHIPPING["flatrate"])[1]
    with connect(request) as db:
        rows = _cart(db, user)
        if not rows:
            return redirect("/checkout/cart")
        me = db.execute("SELECT address FROM shop_customers WHERE email=?", (user,)).fetchone()
        oid = db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM shop_orders").fetchone()[0]
        total = round(sum(r["price"] * r["qty"] for r in rows) + shipping, 2)
        db.execute(
            "INSERT INTO shop_orders VALUES (?,?,?,?,?,?,?,?)",
            (
                oid,
                f"{oid:09d}",
                user,
                "2024-01-01 12:00:00",
                "pending",
                total,
                shipping,
                data.get("address") or me["address"],
            ),
        )
        db.executemany(
            "INSERT INTO shop_order_items VALUES (?,?,?,?,?)",
            [(oid, r["product_id"], r["qty"], r["price"], r["options"]) for r in rows],
        )
        db.execute("DELETE FROM shop_cart WHERE email=?", (user,))
    return redirect(f"/sales/order/view/{oid}")


@router.get("/customer/account")
def account(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        me = db.execute("SELECT * FROM shop_customers WHERE email=?", (user,)).fetchone()
        recent = db.execute(
            "SELECT * FROM shop_orders WHERE email=? ORDER BY created DESC, id DESC LIMIT 5",
            (user,),
        ).fetchall()
    body = (
        '<h2 class="block-title">Account Information</h2>'
        f"<p>{esc(me['name'])}<br>{esc(me['email'])}</p>"
        '<h2 class="block-title">Address Book</h2>'
        f"<p>Default Billing Address: {esc(me['address'])}</p>"
        '<h2 class="block-title">Recent Orders</h2>' + _orders_table(recent)
    )
    return _account(request, "My Account", "My Account", body)


def _orders_table(rows) -> str:
    cells = "".join(
        f"<tr><td>{esc(r['number'])}</td><td>{esc(r['created'][:10])}</td>"
        f"<td>{_money(r['grand_total'])}</td><td>{esc(r['status'].capitalize())}</td>"
        f'<td><a href="/sales/order/view/{r["id"]}">View Order {esc(r["number"])}</a></td></tr>'
        for r in rows
    )
    return (
        '<table class="data table"><thead><tr><th>Order #</th><th>Date</th><th>Order Total</th>'
        f"<th>Status</th><th>Action</th></tr></thead><tbody>{cells}</tbody></table>"
    )


@router.get("/sales/order/history/")
@router.get("/sales/order/history")
def orders(request: Request, user: User, page: int = 1):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        rows = db.execute(
            "SELECT * FROM shop_orders WHERE email=? ORDER BY created DESC, id DESC", (user,)
        ).fetchall()
    pages = max(1, -(-len(rows) // 10))
    page = min(max(1, page), pages)
    body = _orders_table(rows[(page - 1) * 10 : page * 10]) + pager(
        "/sales/order/history", page, pages
    )
    return _account(request, "My Orders", "My Orders", body)


@router.get("/sales/order/view/{oid}")
def order(request: Request, oid: int, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        o = db.execute("SELECT * FROM shop_orders WHERE id=? AND email=?", (oid, user)).fetchone()
        if o is None:
            return _not_found(request)
        items = db.execute(
            "SELECT p.name, p.sku, i.qty, i.price, i.options FROM shop_order_items i "
            "JOIN shop_products p ON p.id=i.product_id WHERE i.order_id=?",
            (oid,),
        ).fetchall()
    cells = "".join(
        f"<tr><td>{esc(r['name'])}{_opt(r)}"
        f"</td><td>{esc(r['sku'])}</td><td>{_money(r['price'])}</td><td>{r['qty']}</td>"
        f"<td>{_money(r['price'] * r['qty'])}</td></tr>"
        for r in items
    )
    body = (
        f"<p><span class='order-status'>{esc(o['status'].capitalize())}</span></p>"
        f"<p>Order Date: {esc(o['created'][:10])}</p>"
        '<table class="data table"><thead><tr><th>Product Name</th><th>SKU</th><th>Price</th>'
        f"<th>Qty</th><th>Subtotal</th></tr></thead><tbody>{cells}</tbody></table>"
        f"<p>Shipping &amp; Handling: {_money(o['shipping'])}</p>"
        f"<p><strong>Grand Total: {_money(o['grand_total'])}</strong></p>"
        f"<p>Ship to: {esc(o['address'])}</p>"
    )
    return _account(request, "My Orders", f"Order # {o['number']}", body)


@router.get("/review/customer")
def my_reviews(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    return _account(
        request, "My Product Reviews", "My Product Reviews", "<p>You have submitted no reviews.</p>"
    )


@router.get("/customer/address")
def addresses(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        me = db.execute("SELECT * FROM shop_customers WHERE email=?", (user,)).fetchone()
    boxes = "".join(
        f'<div class="box box-address-{kind}"><strong class="box-title">Default {label} '
        f'Address</strong><div class="box-content"><address>{esc(me["name"])}<br>'
        f"{esc(me['address'])}</address></div></div>"
        for kind, label in (("billing", "Billing"), ("shipping", "Shipping"))
    )
    return _account(
        request,
        "Address Book",
        "Address Book",
        f'<div class="block block-addresses-default">{boxes}</div>'
        '<p><a href="/customer/address/edit">Change Address</a></p>',
    )


#: The address form's fields: (name, label).
ADDRESS_FIELDS = (
    ("street", "Street Address"),
    ("city", "City"),
    ("region", "State/Province"),
    ("postcode", "Zip/Postal Code"),
)


@router.get("/customer/address/edit")
def edit_address(request: Request, user: User):
    """The default (billing and shipping) address's form; saved as one line."""
    if user is None:
        return redirect(ACCOUNTS.login)
    fields = "".join(
        f'<div class="field"><label for="{name}">{label}</label>'
        f'<input id="{name}" name="{name}" type="text"></div>'
        for name, label in ADDRESS_FIELDS
    )
    body = (
        '<form class="form-address-edit" method="post" action="/customer/address/edit">'
        f'<fieldset class="fieldset"><legend>Address</legend>{fields}</fieldset>'
        '<button class="action primary" type="submit">Save Address</button></form>'
    )
    return _account(request, "Address Book", "Edit Address", body)


@router.post("/customer/address/edit")
async def save_address(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form(request)
    parts = [data.get(name, "").strip() for name, _ in ADDRESS_FIELDS]
    if not parts[0] or not parts[1]:
        return redirect("/customer/address/edit")
    with connect(request) as db:
        db.execute(
            "UPDATE shop_customers SET address=? WHERE email=?",
            (", ".join(p for p in parts if p), user),
        )
    return redirect("/customer/address")


#: The label and title of the contact form's message box (Magento's wording, its apostrophe).
CONTACT_MESSAGE = "What\u2019s on your mind?"


@router.get("/newsletter/manage/")
def newsletter(request: Request, user: User, saved: str = ""):
    """Magento's Newsletter Subscription page: one General Subscription checkbox."""
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        on = db.execute("SELECT 1 FROM shop_newsletter WHERE email=?", (user,)).fetchone()
    note = '<div class="message success">We have saved your subscription.</div>' if saved else ""
    body = (
        f'{note}<form method="post" action="/newsletter/manage/"><fieldset class="fieldset">'
        '<legend>Subscription option</legend><label><input type="checkbox" name="is_subscribed" '
        f'value="1" title="General Subscription"{" checked" if on else ""}> General Subscription'
        '</label></fieldset><button class="action primary" type="submit">Save</button></form>'
    )
    return _account(request, "Newsletter Subscriptions", "Newsletter Subscription", body)


@router.post("/newsletter/manage/")
async def save_newsletter(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form(request)
    with connect(request) as db:
        db.execute("DELETE FROM shop_newsletter WHERE email=?", (user,))
        if data.get("is_subscribed") == "1":
            db.execute("INSERT INTO shop_newsletter VALUES (?)", (user,))
    return redirect("/newsletter/manage/?saved=1")


@router.get("/contact")
def contact(request: Request, user: User):
    """Magento's "Contact Us" form: name and email (the signed-in customer's), phone, message."""
    name = ""
    if user:
        with connect(request) as db:
            row = db.execute("SELECT name FROM shop_customers WHERE email=?", (user,)).fetchone()
        name = row[0] if row else ""
    body = (
        '<h1 class="page-title">Contact Us</h1><form class="form contact" method="post" '
        'action="/contact"><fieldset class="fieldset"><legend>Write Us</legend>'
        "<p>Jot us a note and we\u2019ll get back to you as quickly as possible.</p>"
        f'<label>Name <input name="name" type="text" value="{esc(name)}"></label> '
        f'<label>Email <input name="email" type="email" value="{esc(user or "")}"></label> '
        '<label>Phone Number <input name="telephone" type="tel"></label> '
        f'<label for="comment">{CONTACT_MESSAGE}</label><textarea id="comment" name="comment" '
        f'title="{CONTACT_MESSAGE}" rows="6"></textarea></fieldset>'
        '<button class="action primary" type="submit">Submit</button></form>'
    )
    return page(request, "Contact Us", body)


@router.post("/contact")
async def send_contact(request: Request):
    data = await form(request)
    if not data.get("comment", "").strip():
        return page(request, "Contact Us", '<div class="message error">Enter a message.</div>')
    return page(
        request,
        "Contact Us",
        '<div class="message success">Thanks for contacting us with your comments and '
        "questions. We\u2019ll respond to you very soon.</div>",
    )


def _not_found(request: Request):
    return page(
        request,
        "404 Not Found",
        '<h1 class="page-title">Whoops, our bad...</h1><p>The page you requested was '
        "not found.</p>",
        404,
    )


@router.get("/{path:path}")
def category_or_page(request: Request, path: str):
    """A category page (``/<top>/<sub>/<leaf>.html``) or a CMS page (``/<url-key>``)."""
    with connect(request) as db:
        if path.endswith(".html"):
            c = db.execute(
                "SELECT * FROM shop_categories WHERE path=?", (path[: -len(".html")],)
            ).fetchone()
            if c is not None:
                ids = [c["id"]]
                for _ in range(2):
                    marks = ",".join("?" * len(ids))
                    ids += [
                        r[0]
                        for r in db.execute(
                            f"SELECT id FROM shop_categories WHERE parent_id IN ({marks})", ids
                        )
                        if r[0] not in ids
                    ]
                marks = ",".join("?" * len(ids))
                where = f"status='Enabled' AND category_id IN ({marks})"
                listing = _listing(request, db, where, ids, f"/{path}", {})
                subs = db.execute(
                    "SELECT * FROM shop_categories WHERE parent_id=? ORDER BY id", (c["id"],)
                ).fetchall()
                trail = _trail(db, c["parent_id"]) if c["parent_id"] else []
                body = (
                    _breadcrumbs(trail + [(c["name"], None)])
                    + f'<h1 class="page-title">{esc(c["name"])}</h1>'
                    + (
                        '<ul class="category-tiles">'
                        + "".join(
                            f'<li><a href="/{s["path"]}.html">{esc(s["name"])}</a></li>'
                            for s in subs
                        )
                        + "</ul>"
                        if subs
                        else ""
                    )
                    + listing
                )
                return page(request, c["name"], body)
        cms = db.execute(
            "SELECT * FROM shop_cms_pages WHERE url_key=? AND status='Enabled'", (path,)
        ).fetchone()
    if cms is not None:
        return page(
            request,
            cms["title"],
            f'<h1 class="page-title">{esc(cms["title"])}</h1>' + cms["content"],
        )
    return _not_found(request)


def create_app() -> FastAPI:
    return site_app(ACCOUNTS.router(login_page), router)
