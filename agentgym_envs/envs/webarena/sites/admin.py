"""The shop's admin (WebArena's ``shopping_admin``): orders, invoices, products, reviews and a
bestsellers report over the storefront's database."""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import APIRouter, Depends, FastAPI
from starlette.requests import Request
from starlette.responses import Response

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
#: Report periods -> the length of the ``created`` prefix that names one.
PERIODS = {"day": 10, "month": 7, "year": 4}

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
    ("Search Terms", "/admin/search/term/report"),
    ("Pages", "/admin/cms/page"),
    ("Cart Price Rules", "/admin/sales_rule/promo_quote"),
    ("Themes", "/admin/system_design_theme"),
    ("Sign Out", "/admin/logout"),
)


def _nav() -> str:
    """Magento's admin menu: a dark column of sections down the left."""
    items = "".join(f'<li><a href="{href}">{label}</a></li>' for label, href in MENU)
    return (
        '<nav class="admin__menu" aria-label="Admin"><a class="logo" href="/admin/dashboard" '
        f'aria-label="Magento Admin Panel">M</a><ul>{items}</ul></nav>'
    )


#: The admin's client-side widgets (Magento's are jQuery UI): a calendar beside every date
#: field (``input.admin__control-date``), selects whose options come from a JSON endpoint
#: (``select[data-options-url]``) and modal dialogs (``[data-modal]`` opens the dialog named).
WIDGETS_JS = """
(function () {
  function pad(n) { return (n < 10 ? '0' : '') + n; }
  function openCalendar(input) {
    var old = document.querySelector('.admin__calendar');
    if (old) { old.remove(); }
    var base = /^\\d{4}-\\d{2}-\\d{2}$/.test(input.value) ? new Date(input.value + 'T00:00') : new Date(2023, 0, 1);
    var shown = new Date(base.getFullYear(), base.getMonth(), 1);
    var box = document.createElement('div');
    box.className = 'admin__calendar';
    box.setAttribute('role', 'dialog');
    box.setAttribute('aria-label', 'Calendar');
    function draw() {
      var names = ['January','February','March','April','May','June','July','August',
                   'September','October','November','December'];
      var html = '<div class="cal-head"><button type="button" class="cal-prev">Prev</button>' +
        '<span class="cal-title">' + names[shown.getMonth()] + ' ' + shown.getFullYear() +
        '</span><button type="button" class="cal-next">Next</button></div><div class="cal-days">';
      var days = new Date(shown.getFullYear(), shown.getMonth() + 1, 0).getDate();
      for (var d = 1; d <= days; d++) {
        html += '<button type="button" class="cal-day" data-day="' + d + '">' + d + '</button>';
      }
      box.innerHTML = html + '</div><button type="button" class="cal-close">Close</button>';
    }
    box.addEventListener('click', function (e) {
      var t = e.target;
      if (t.classList.contains('cal-prev')) { shown.setMonth(shown.getMonth() - 1); draw(); }
      else if (t.classList.contains('cal-next')) { shown.setMonth(shown.getMonth() + 1); draw(); }
      else if (t.classList.contains('cal-close')) { box.remove(); }
      else if (t.dataset.day) {
        input.value = shown.getFullYear() + '-' + pad(shown.getMonth() + 1) + '-' + pad(+t.dataset.day);
        box.remove();
        input.focus();
      }
    });
    draw();
    input.parentNode.appendChild(box);
  }
  document.querySelectorAll('input.admin__control-date').forEach(function (input) {
    var b = document.createElement('button');
    b.type = 'button';
    b.className = 'admin__calendar-trigger';
    b.textContent = 'Pick a date';
    b.setAttribute('aria-label', 'Pick a date for ' + (input.getAttribute('aria-label') || input.name));
    b.addEventListener('click', function () { openCalendar(input); });
    input.insertAdjacentElement('afterend', b);
  });
  document.querySelectorAll('select[data-options-url]').forEach(function (select) {
    fetch(select.dataset.optionsUrl, {credentials: 'same-origin'}).then(function (r) {
      return r.json();
    }).then(function (options) {
      var chosen = select.dataset.value || '';
      options.forEach(function (o) {
        var opt = document.createElement('option');
        opt.value = o.value;
        opt.textContent = o.label;
        if (o.value === chosen) { opt.selected = true; }
        select.appendChild(opt);
      });
      select.setAttribute('data-loaded', 'true');
    }).finally(function () { select.removeAttribute('aria-busy'); });
  });
  document.querySelectorAll('[data-modal]').forEach(function (button) {
    button.addEventListener('click', function () {
      var dialog = document.getElementById(button.dataset.modal);
      dialog.hidden = false;
      var first = dialog.querySelector('button');
      if (first) { first.focus(); }
    });
  });
  document.querySelectorAll('.modal-popup [data-dismiss]').forEach(function (button) {
    button.addEventListener('click', function () {
      button.closest('.modal-popup').hidden = true;
    });
  });
})();
"""


def render(title: str, body: str, nav: str = "", status: int = 200):
    """An admin page: Magento's stylesheet, and its widgets' script at the end of the body."""
    return _render(title, body + f"<script>{WIDGETS_JS}</script>", nav, status, "admin", "admin")


def _date_field(name: str, label: str, value: str) -> str:
    return (
        f'<label>{esc(label)} <input type="text" class="admin__control-date" name="{name}" '
        f'aria-label="{esc(label)}" value="{esc(value)}" placeholder="YYYY-MM-DD" '
        'autocomplete="off"></label>'
    )


def _modal(ident: str, title: str, text: str, action: str, confirm: str) -> str:
    """A hidden confirmation dialog (shown by a ``data-modal`` button)."""
    return (
        f'<div class="modal-popup" id="{ident}" role="dialog" aria-modal="true" '
        f'aria-labelledby="{ident}-title" hidden><div class="modal-inner">'
        f'<h2 id="{ident}-title">{esc(title)}</h2><p>{esc(text)}</p>'
        f'<form method="post" action="{action}"><button type="button" data-dismiss>Cancel'
        f'</button> <button class="primary" type="submit">{esc(confirm)}</button></form>'
        "</div></div>"
    )


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
        + _date_field("created_from", "Purchase Date from", created_from)
        + " "
        + _date_field("created_to", "to", created_to)
        + ' <button type="submit">Apply Filters</button></form>'
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
        from agentgym_envs.envs.webarena.sites.admin_more import order_panels

        panels = order_panels(db, o)
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
        + panels
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


PRODUCT_LIMITS = (20, 30, 50, 100, 200)


@router.get("/admin/catalog/category/options")
def category_options(request: Request, user: User):
    """The departments as ``[{value, label}]`` (the product grid's filter loads them)."""
    if user is None:
        return Response("[]", media_type="application/json", status_code=403)
    with connect(request) as db:
        rows = db.execute("SELECT name FROM shop_categories WHERE level = 1 ORDER BY id").fetchall()
    data = [{"value": r[0], "label": r[0]} for r in rows]
    return Response(json.dumps(data), media_type="application/json")


@router.get("/admin/catalog/product")
def products(
    request: Request,
    user: User,
    q: str = "",
    page: int = 1,
    status: str = "",
    department: str = "",
    price_from: str = "",
    price_to: str = "",
    qty_from: str = "",
    qty_to: str = "",
    limit: int = PER_PAGE,
    message: str = "",
):
    """Magento's product grid: a keyword search and filters that combine (status, department,
    price and quantity ranges), the active filters listed, and a page size; Add Product, and
    mass actions on the rows chosen (:mod:`.admin_catalog`)."""
    if user is None:
        return redirect(ACCOUNTS.login)
    from agentgym_envs.envs.webarena.sites.admin_catalog import (
        grid_filters,
        massaction_form,
        row_checkbox,
    )

    params = {
        "status": status,
        "department": department,
        "price_from": price_from,
        "price_to": price_to,
        "qty_from": qty_from,
        "qty_to": qty_to,
    }
    where, args, active = grid_filters({"q": q, **params})
    limit = limit if limit in PRODUCT_LIMITS else PER_PAGE
    db = connect(request)
    rows = SqlRows(db, "shop_products", where, args, "id")
    chips = "".join(
        f'<li>{esc(label)}: {esc(value)} <a href="/admin/catalog/product?'
        f'{qs(q=q, **{k: v for k, v in params.items() if k != key})}" '
        f'aria-label="Remove {esc(label)}">Remove</a></li>'
        for label, value, key in active
    )
    status_options = "".join(
        f'<option value="{v}"{" selected" if v == status else ""}>{v or "Any"}</option>'
        for v in ("", "Enabled", "Disabled")
    )
    limits = "".join(
        f'<option value="{n}"{" selected" if n == limit else ""}>{n}</option>'
        for n in PRODUCT_LIMITS
    )
    filters = (
        '<details class="admin__data-grid-filters"><summary>Filters</summary>'
        '<form method="get" action="/admin/catalog/product">'
        f'<input type="hidden" name="q" value="{esc(q)}">'
        f'<label>Status <select name="status">{status_options}</select></label> '
        f'<label>Department <select name="department" data-options-url="/admin/catalog/category/'
        f'options" aria-busy="true" data-value="{esc(department)}"><option value="">Any</option></select></label> '
        f'<label>Price from <input type="text" name="price_from" value="{esc(price_from)}">'
        f'</label> <label>Price to <input type="text" name="price_to" value="{esc(price_to)}">'
        f'</label> <label>Quantity from <input type="text" name="qty_from" '
        f'value="{esc(qty_from)}"></label> <label>Quantity to <input type="text" name="qty_to" '
        f'value="{esc(qty_to)}"></label> <label>Per page <select name="limit">{limits}</select>'
        '</label> <button class="primary" type="submit">Apply Filters</button></form></details>'
        + (
            f'<ul class="admin__current-filters" aria-label="Active filters">{chips}</ul>'
            if chips
            else ""
        )
    )
    search = (
        '<form role="search" method="get" action="/admin/catalog/product"><input type="search" '
        f'name="q" aria-label="Search by keyword" value="{esc(q)}"> '
        '<button type="submit">Search</button></form>'
    )
    note = f"<p role='status'>{esc(message)}</p>" if message else ""
    body = (
        '<h1>Products</h1><a class="action-primary" href="/admin/catalog/product/new">'
        f"Add Product</a>{note}"
        + search
        + filters
        + massaction_form({"q": q, **params})
        + f"<p>{len(rows)} records found</p>"
        + paged_table(
            rows,
            page,
            limit,
            ["", "Name", "SKU", "Price", "Quantity", "Status", "Action"],
            lambda p: [
                row_checkbox(p),
                esc(p["name"]),
                esc(p["sku"]),
                f"${p['price']:,.2f}",
                str(p["qty"]),
                esc(p["status"]),
                f'<a href="/admin/catalog/product/edit/{p["id"]}">Edit {esc(p["name"])}</a>',
            ],
            "/admin/catalog/product",
            q=q,
            limit=limit if limit != PER_PAGE else "",
            **params,
        )
    )
    return render("Products / Magento Admin", body, _nav())


#: The product form's attributes (column, label) besides name, price and quantity.
ATTRIBUTES = (("brand", "Brand"), ("material", "Material"), ("sizes", "Sizes"))


@router.get("/admin/catalog/product/edit/{pid}")
def edit_product(request: Request, pid: int, user: User, saved: str = "", error: str = ""):
    """Magento's product form: status, name, SKU, price, quantity, stock status, colour and the
    other attributes, description; Save, and Delete behind a confirmation dialog."""
    if user is None:
        return redirect(ACCOUNTS.login)
    from agentgym_envs.envs.webarena.sites import admin_catalog as catalog

    with connect(request) as db:
        p = db.execute("SELECT * FROM shop_products WHERE id=?", (pid,)).fetchone()
        if p is None:
            return not_found(_nav())
        category = catalog.category_field(db, p["category_id"])
        configurations = catalog.configurations_panel(db, p)
    COLORS = catalog.COLOR_OPTIONS

    note = "<p role='status'>You saved the product.</p>" if saved else ""
    if error == "sku":
        note = "<p role='alert'>The value specified in the SKU field is already used.</p>"
    enabled = " checked" if p["status"] == "Enabled" else ""
    stock = "In Stock" if p["qty"] > 0 else "Out of Stock"
    stock_options = "".join(
        f'<option value="{v}"{" selected" if v == stock else ""}>{v}</option>'
        for v in ("In Stock", "Out of Stock")
    )
    colours = "".join(
        f'<option value="{c}"{" selected" if c == p["color"] else ""}>{c}</option>' for c in COLORS
    )
    attributes = "".join(
        f'<label>{label} <input name="{column}" type="text" value="{esc(p[column])}"></label> '
        for column, label in ATTRIBUTES
    )
    body = (
        f"<h1>{esc(p['name'])}</h1>{note}"
        f'<form class="product-form" method="post" action="/admin/catalog/product/edit/{pid}">'
        "<fieldset><legend>Product Details</legend>"
        f'<label>Enable Product <input name="status" type="checkbox" value="Enabled"{enabled}>'
        f'</label> <label>Product Name <input name="name" type="text" value="{esc(p["name"])}">'
        f'</label> <label>SKU <input name="sku" type="text" value="{esc(p["sku"])}"></label> '
        f'<label>Price <input name="price" type="text" value="{p["price"]:.2f}"></label> '
        f'<label>Quantity <input name="qty" type="text" value="{p["qty"]}"></label> '
        f'<label>Stock Status <select name="stock_status">{stock_options}</select></label> '
        f'<label>Color <select name="color">{colours}</select></label> {attributes}'
        f"{category}{catalog.pricing_fields(p)}"
        "</fieldset><fieldset><legend>Content</legend>"
        f'<label>Description <textarea name="description" rows="4">{esc(p["description"])}'
        f"</textarea></label></fieldset>{configurations}"
        '<button class="primary" type="submit">Save Product</button> '
        '<button type="button" data-modal="delete-product">Delete</button></form>'
        + _modal(
            "delete-product",
            "Delete product",
            f"Are you sure you want to delete {p['name']}?",
            f"/admin/catalog/product/delete/{pid}",
            "OK",
        )
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
        p = db.execute("SELECT * FROM shop_products WHERE id=?", (pid,)).fetchone()
        if p is None:
            return not_found(_nav())
        if data.get("stock_status") == "Out of Stock":
            qty = 0
        # A form without the new fields (an older page) keeps the stored values.
        status = data.get("status", "Disabled") if "stock_status" in data else p["status"]
        values = {column: data.get(column, p[column]).strip() for column, _ in ATTRIBUTES}
        sku = data.get("sku", p["sku"]).strip() or p["sku"]
        taken = db.execute("SELECT 1 FROM shop_products WHERE sku=? AND id!=?", (sku, pid))
        if taken.fetchone() is not None:
            return redirect(f"/admin/catalog/product/edit/{pid}?error=sku")
        from agentgym_envs.envs.webarena.sites.admin_catalog import save_extras

        save_extras(db, pid, data)
        db.execute(
            "UPDATE shop_products SET name=?, price=?, qty=?, status=?, sku=?, color=?, "
            "description=?, brand=?, material=?, sizes=? WHERE id=?",
            (
                data.get("name", "").strip() or "Unnamed",
                round(price, 2),
                qty,
                status,
                sku,
                data.get("color", p["color"]),
                data.get("description", p["description"]),
                values["brand"],
                values["material"],
                values["sizes"],
                pid,
            ),
        )
    return redirect(f"/admin/catalog/product/edit/{pid}?saved=1")


@router.post("/admin/catalog/product/delete/{pid}")
def delete_product(request: Request, pid: int, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        db.execute("DELETE FROM shop_products WHERE id=?", (pid,))
    return redirect("/admin/catalog/product?deleted=1")


@router.get("/admin/reports/bestsellers")
def bestsellers(
    request: Request,
    user: User,
    year: str = "",
    period: str = "",
    date_from: str = "",
    date_to: str = "",
):
    """Magento's Bestsellers report: the top products of a year (the year links), or of each
    day, month or year of a date range (the filter form)."""
    if user is None:
        return redirect(ACCOUNTS.login)
    sold = (
        "SELECT {interval} AS interval, p.name, SUM(i.qty) AS sold FROM shop_order_items i "
        "JOIN shop_orders o ON o.id=i.order_id JOIN shop_products p ON p.id=i.product_id "
        "WHERE o.status != 'canceled' AND {where} GROUP BY interval, p.id"
    )
    with connect(request) as db:
        years = [
            y[0]
            for y in db.execute("SELECT DISTINCT substr(created, 1, 4) FROM shop_orders ORDER BY 1")
        ]
        rows, ranged = [], []
        if year:
            rows = db.execute(
                sold.format(interval="substr(o.created, 1, 4)", where="substr(o.created, 1, 4)=?")
                + " ORDER BY sold DESC, p.name LIMIT 10",
                (year,),
            ).fetchall()
        elif period in PERIODS and (date_from or date_to):
            width = PERIODS[period]
            ranged = db.execute(
                "SELECT * FROM ("
                + sold.format(
                    interval=f"substr(o.created, 1, {width})",
                    where="substr(o.created, 1, 10) >= ? AND substr(o.created, 1, 10) <= ?",
                )
                + ") ORDER BY interval, sold DESC, name",
                (date_from or "0000", date_to or "9999"),
            ).fetchall()
    links = " ".join(f'<a href="/admin/reports/bestsellers?year={y}">{y}</a>' for y in years)
    options = "".join(
        f'<option value="{p}"{" selected" if p == (period or "month") else ""}>'
        f"{p.capitalize()}</option>"
        for p in PERIODS
    )
    filters = (
        '<form class="grid-filters" method="get" action="/admin/reports/bestsellers">'
        f'<label>Period <select name="period">{options}</select></label> '
        + _date_field("date_from", "From", date_from)
        + " "
        + _date_field("date_to", "To", date_to)
        + ' <button class="primary" type="submit">Show Report</button></form>'
    )
    body = f'<h1>Bestsellers Report</h1><nav aria-label="Year">Year: {links}</nav>{filters}'
    if year:
        cells = [[str(k), esc(r["name"]), str(r["sold"])] for k, r in enumerate(rows, 1)]
        body += f"<h2>Bestsellers of {esc(year)}</h2>" + table(
            ["Rank", "Product", "Order Quantity"], cells
        )
    elif ranged:
        top: dict[str, list] = {}
        for r in ranged:
            top.setdefault(r["interval"], [])
            if len(top[r["interval"]]) < 5:
                top[r["interval"]].append(r)
        cells = [
            [esc(interval), str(k), esc(r["name"]), str(r["sold"])]
            for interval, best in top.items()
            for k, r in enumerate(best, 1)
        ]
        body += table(["Interval", "Rank", "Product", "Order Quantity"], cells)
    elif period:
        body += "<p>Choose a date range to see the report.</p>"
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
        f"{options}</select></label> "
        + _date_field("date_from", "From", date_from)
        + " "
        + _date_field("date_to", "To", date_to)
        + ' <button class="primary" type="submit">Show Report</button></form>'
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
    from agentgym_envs.envs.webarena.sites import admin_catalog, admin_more, admin_reviews

    return site_app(
        ACCOUNTS.router(login_page),
        admin_catalog.router,
        admin_reviews.router,
        router,
        admin_more.router,
    )
