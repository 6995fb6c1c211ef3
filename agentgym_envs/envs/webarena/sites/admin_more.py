"""Admin pages beyond :mod:`.admin`'s, as Magento has them: the order view's panels (the
address with its Edit form; shipments' tracking numbers, each noted in the comments history
as "Tracking number N for CARRIER assigned"), the store's themes (Content > Design > Themes)
with a page each, cart price rules (Marketing > Cart Price Rules: name, customer groups,
action, discount amount) and the search terms report (Reports > Search Terms)."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.requests import Request

from agentgym_envs.envs.webarena.sites.admin import ACCOUNTS, User, _nav, render
from agentgym_envs.envs.webarena.sites.common import connect, esc, form, not_found, redirect

#: Magento's carriers (the select's labels, in its order).
CARRIERS = (
    "Custom Value",
    "DHL",
    "Federal Express",
    "United Parcel Service",
    "United States Postal Service",
)

router = APIRouter()


def split_address(address: str) -> tuple[str, str, str, str]:
    """``"12 Elm St, Apt 3, Boston, MA 02110"`` -> street, city, state, zip."""
    parts = [p.strip() for p in address.split(",")]
    tail = parts[-1].split()
    state, postcode = (tail[0], tail[1]) if len(tail) == 2 else (parts[-1], "")
    street = ", ".join(parts[:-2]) if len(parts) > 2 else parts[0]
    city = parts[-2] if len(parts) > 1 else ""
    return street, city, state, postcode


def order_panels(db, o) -> str:
    """The order view's Address Information and Shipments sections."""
    tracks = db.execute(
        "SELECT * FROM shop_order_tracks WHERE order_id=? ORDER BY rowid", (o["id"],)
    ).fetchall()
    history = "".join(
        f"<li>Tracking number {esc(t['number'])} for {esc(t['carrier'])} assigned</li>"
        for t in tracks
    )
    options = "".join(f"<option>{esc(c)}</option>" for c in CARRIERS)
    return (
        '<section class="order-address"><h2>Address Information</h2><h3>Shipping Address</h3>'
        f"<address>{esc(o['address'])}</address>"
        f'<a href="/admin/sales/order/address/{o["id"]}">Edit Shipping Address</a></section>'
        '<section class="order-shipments"><h2>Shipments</h2>'
        f'<form method="post" action="/admin/sales/order/track/{o["id"]}">'
        f'<label>Carrier <select name="carrier">{options}</select></label> '
        '<label>Tracking Number <input type="text" name="number"></label> '
        '<button type="submit">Add Tracking Number</button></form>'
        f'<h3>Comments History</h3><ul class="order-history">{history}</ul></section>'
    )


@router.get("/admin/sales/order/address/{oid}")
def address_page(request: Request, oid: int, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        o = db.execute("SELECT * FROM shop_orders WHERE id=?", (oid,)).fetchone()
    if o is None:
        return not_found(_nav())
    fields = zip(
        ("street", "city", "region", "postcode"),
        ("Street Address", "City", "State/Province", "Zip/Postal Code"),
        split_address(o["address"]),
        strict=True,
    )
    rows = "".join(
        f'<div class="form-row"><label for="{n}">{label}</label><input id="{n}" name="{n}" '
        f'type="text" value="{esc(v)}"></div>'
        for n, label, v in fields
    )
    body = (
        f"<h1>Edit Order {esc(o['number'])} Shipping Address</h1>"
        f'<form method="post" action="/admin/sales/order/address/{oid}">{rows}'
        '<button class="primary" type="submit">Save Order Address</button></form>'
    )
    return render(f"Edit Order {o['number']} Shipping Address / Magento Admin", body, _nav())


@router.post("/admin/sales/order/address/{oid}")
async def save_address(request: Request, oid: int, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form(request)
    parts = [data.get(k, "").strip() for k in ("street", "city", "region", "postcode")]
    address = f"{parts[0]}, {parts[1]}, {parts[2]} {parts[3]}".strip()
    with connect(request) as db:
        db.execute("UPDATE shop_orders SET address=? WHERE id=?", (address, oid))
    return redirect(f"/admin/sales/order/view/{oid}")


@router.post("/admin/sales/order/track/{oid}")
async def add_track(request: Request, oid: int, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form(request)
    carrier, number = data.get("carrier", ""), data.get("number", "").strip()
    if carrier in CARRIERS and number:
        with connect(request) as db:
            db.execute(
                "INSERT INTO shop_order_tracks (order_id, carrier, number) VALUES (?,?,?)",
                (oid, carrier, number),
            )
    return redirect(f"/admin/sales/order/view/{oid}")


#: The store's themes (Content > Design > Themes): id -> title, parent, path.
THEMES = {
    1: ("Magento Blank", "", "Magento/blank"),
    2: ("Magento Backend", "", "Magento/backend"),
    3: ("Magento Luma", "Magento Blank", "Magento/luma"),
    4: ("One Stop Classic", "Magento Luma", "OneStop/classic"),
    5: ("One Stop Holiday", "One Stop Classic", "OneStop/holiday"),
}


@router.get("/admin/system_design_theme")
def themes(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    rows = "".join(
        f"<tr><td>{esc(t)}</td><td>{esc(p)}</td><td>{esc(path)}</td><td><a "
        f'href="/admin/system_design_theme/edit/id/{i}" aria-label="View {esc(t)}">View</a>'
        "</td></tr>"
        for i, (t, p, path) in THEMES.items()
    )
    body = (
        "<h1>Themes</h1><table><thead><tr><th>Theme Title</th><th>Parent Theme</th>"
        f"<th>Theme Path</th><th>Action</th></tr></thead><tbody>{rows}</tbody></table>"
    )
    return render("Themes / Design / Content / Magento Admin", body, _nav())


@router.get("/admin/system_design_theme/edit/id/{tid}")
def theme(request: Request, tid: int, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    if tid not in THEMES:
        return not_found(_nav())
    title, parent, path = THEMES[tid]
    body = (
        f"<h1>{esc(title)}</h1><section class='theme-preview'><h2>Theme Preview</h2>"
        f"<p>Parent Theme: {esc(parent or 'None')}</p><p>Theme Path: {esc(path)}</p></section>"
        '<p><a href="/admin/system_design_theme">Back</a></p>'
    )
    return render(f"{title} / Themes / Magento Admin", body, _nav())


#: Cart price rules: the customer groups and the actions (value -> label), as Magento's.
CUSTOMER_GROUPS = ("NOT LOGGED IN", "General", "Wholesale", "Retailer")
RULE_ACTIONS = {
    "by_percent": "Percent of product price discount",
    "by_fixed": "Fixed amount discount",
    "cart_fixed": "Fixed amount discount for whole cart",
    "buy_x_get_y": "Buy X get Y free (discount amount is Y)",
}


@router.get("/admin/sales_rule/promo_quote")
def price_rules(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        rules = db.execute("SELECT * FROM shop_price_rules ORDER BY id").fetchall()
    rows = "".join(
        f"<tr><td>{r['id']}</td><td><a href='/admin/sales_rule/promo_quote/edit/{r['id']}'>"
        f"{esc(r['name'])}</a></td><td>{esc(RULE_ACTIONS.get(r['simple_action'], ''))}</td>"
        f"<td>{r['discount_amount']:g}</td></tr>"
        for r in rules
    )
    body = (
        '<h1>Cart Price Rules</h1><p><a class="button" href="/admin/sales_rule/promo_quote/new">'
        "Add New Rule</a></p><table><thead><tr><th>ID</th><th>Rule</th><th>Action</th>"
        f"<th>Discount Amount</th></tr></thead><tbody>{rows}</tbody></table>"
    )
    return render("Cart Price Rules / Marketing / Magento Admin", body, _nav())


def _rule_form(action: str, r=None) -> str:
    groups = set((r["customer_groups"] or "").split(",")) if r else set()
    boxes = "".join(
        f'<label><input type="checkbox" name="customer_group_ids" value="{i}"'
        f"{' checked' if str(i) in groups else ''}> {esc(g)}</label> "
        for i, g in enumerate(CUSTOMER_GROUPS)
    )
    actions = "".join(
        f'<option value="{k}"{" selected" if r and r["simple_action"] == k else ""}>'
        f"{esc(v)}</option>"
        for k, v in RULE_ACTIONS.items()
    )
    amount = f"{r['discount_amount']:g}" if r else ""
    return (
        f'<form method="post" action="{action}"><div class="form-row"><label for="rule_name">'
        f'Rule Name</label><input id="rule_name" name="name" type="text" value="'
        f'{esc(r["name"]) if r else ""}"></div><div class="form-row"><label for="websites">'
        'Websites</label><select id="websites" name="website_ids"><option value="1">Main '
        "Website</option></select></div><fieldset><legend>Customer Groups</legend>"
        f'{boxes}</fieldset><div class="form-row"><label for="simple_action">Apply</label>'
        f'<select id="simple_action" name="simple_action">{actions}</select></div>'
        '<div class="form-row"><label for="discount_amount">Discount Amount</label><input '
        f'id="discount_amount" name="discount_amount" type="text" value="{amount}"></div>'
        '<button class="primary" type="submit">Save and Continue Edit</button></form>'
    )


@router.get("/admin/sales_rule/promo_quote/new")
def new_rule(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    body = "<h1>New Cart Price Rule</h1>" + _rule_form("/admin/sales_rule/promo_quote/new")
    return render("New Cart Price Rule / Magento Admin", body, _nav())


async def _read_rule(request: Request) -> tuple[str, str, str, float]:
    """The rule form's name, customer groups (``0,1,...``), action and discount amount."""
    data = await request.form()
    try:
        amount = float(str(data.get("discount_amount", "0")) or 0)
    except ValueError:
        amount = 0.0
    action = str(data.get("simple_action", "by_percent"))
    return (
        str(data.get("name", "")).strip(),
        ",".join(str(g) for g in data.getlist("customer_group_ids")),
        action if action in RULE_ACTIONS else "by_percent",
        amount,
    )


@router.post("/admin/sales_rule/promo_quote/new")
async def save_rule(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    values = await _read_rule(request)
    with connect(request) as db:
        rid = db.execute(
            "INSERT INTO shop_price_rules (name, customer_groups, simple_action, "
            "discount_amount) VALUES (?,?,?,?)",
            values,
        ).lastrowid
    return redirect(f"/admin/sales_rule/promo_quote/edit/{rid}")


@router.post("/admin/sales_rule/promo_quote/edit/{rid}")
async def update_rule(request: Request, rid: int, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    values = await _read_rule(request)
    with connect(request) as db:
        db.execute(
            "UPDATE shop_price_rules SET name=?, customer_groups=?, simple_action=?, "
            "discount_amount=? WHERE id=?",
            (*values, rid),
        )
    return redirect(f"/admin/sales_rule/promo_quote/edit/{rid}")


@router.get("/admin/sales_rule/promo_quote/edit/{rid}")
def edit_rule(request: Request, rid: int, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        r = db.execute("SELECT * FROM shop_price_rules WHERE id=?", (rid,)).fetchone()
    if r is None:
        return not_found(_nav())
    body = f"<h1>{esc(r['name'])}</h1><p>You saved the rule.</p>" + _rule_form(
        f"/admin/sales_rule/promo_quote/edit/{rid}", r
    )
    return render(f"{r['name']} / Cart Price Rules / Magento Admin", body, _nav())


@router.get("/admin/search/term/report")
def search_terms(request: Request, user: User):
    """Reports > Search Terms: the shop's search queries, most used first."""
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        terms = db.execute("SELECT * FROM shop_search_terms ORDER BY uses DESC, term").fetchall()
    rows = "".join(
        f"<tr><td>{esc(t['term'])}</td><td>{t['results']}</td><td>{t['uses']}</td></tr>"
        for t in terms
    )
    body = (
        "<h1>Search Terms Report</h1><table><thead><tr><th>Search Query</th><th>Results</th>"
        f"<th>Uses</th></tr></thead><tbody>{rows}</tbody></table>"
    )
    return render("Search Terms Report / Reports / Magento Admin", body, _nav())
