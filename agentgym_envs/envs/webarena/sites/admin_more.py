"""The admin's order panels beyond :mod:`.admin`'s order view, as Magento has them: the
order's address (Edit -> the address form) and its shipments' tracking numbers (carrier and
number; the comments history notes each one as "Tracking number N for CARRIER assigned");
and the store's themes (Content > Design > Themes) with a preview page each."""

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
