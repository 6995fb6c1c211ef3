"""The admin's catalogue writes, as Magento has them: the product grid's mass actions (select
rows or Select All, then Update attributes: the Sale flag and the Special Price; Enable,
Disable), Add Product (a simple product: name, SKU, price, quantity, size, colour,
category), a configurable product's Configurations (its variants, one per size and colour,
listed on the product form; Edit Configurations adds the chosen sizes x colours), and the
pieces of the product form these use (sale and Advanced Pricing fields, the category)."""

from __future__ import annotations

from urllib.parse import parse_qs

from fastapi import APIRouter
from starlette.requests import Request

from agentgym_envs.envs.webarena.sites.admin import ACCOUNTS, User, _nav, render
from agentgym_envs.envs.webarena.sites.common import connect, esc, not_found, qs, redirect
from agentgym_envs.envs.webarena.sites.seed_shop import COLOR_OPTIONS, SIZE_OPTIONS

router = APIRouter()

#: The product grid's mass actions (value -> label), in the Actions list's order.
PRODUCT_ACTIONS = {"attributes": "Update attributes", "enable": "Enable", "disable": "Disable"}
#: The grid filters a mass action's Select All carries (the grid's query parameters).
GRID_FILTERS = ("q", "status", "department", "price_from", "price_to", "qty_from", "qty_to")


async def form_lists(request: Request) -> dict[str, list[str]]:
    """An urlencoded form body with every value of a repeated field (checkbox lists)."""
    body = (await request.body()).decode("utf-8", "replace")
    return parse_qs(body, keep_blank_values=True)


def first(data: dict[str, list[str]], key: str, default: str = "") -> str:
    return data.get(key, [default])[-1]


def grid_filters(params: dict[str, str]) -> tuple[str, list[object], list[tuple[str, str, str]]]:
    """The product grid's WHERE clause and arguments for its search and filters, and the
    filters in force as ``(label, value, parameter)``."""
    clauses, args, active = ["1=1"], [], []
    for word in params.get("q", "").lower().split()[:8]:
        clauses.append("lower(name) LIKE ?")
        args.append(f"%{word}%")
    if params.get("status") in ("Enabled", "Disabled"):
        clauses.append("status = ?")
        args.append(params["status"])
        active.append(("Status", params["status"], "status"))
    if params.get("department"):
        clauses.append("top = ?")
        args.append(params["department"])
        active.append(("Department", params["department"], "department"))
    for label, column, key, op in (
        ("Price from", "price", "price_from", ">="),
        ("Price to", "price", "price_to", "<="),
        ("Quantity from", "qty", "qty_from", ">="),
        ("Quantity to", "qty", "qty_to", "<="),
    ):
        value = params.get(key, "")
        try:
            number = float(value) if value.strip() else None
        except ValueError:
            number = None
        if number is not None:
            clauses.append(f"{column} {op} ?")
            args.append(number)
            active.append((label, value, key))
    return " AND ".join(clauses), args, active


def grid_where(params: dict[str, str]) -> tuple[str, list[object]]:
    """The product grid's WHERE clause and arguments (see :func:`grid_filters`)."""
    where, args, _ = grid_filters(params)
    return where, args


def massaction_form(params: dict[str, str]) -> str:
    """The grid's mass-action bar: Select All (every record the search and filters find),
    the Actions list and Submit; the rows' checkboxes belong to this form."""
    hidden = "".join(
        f'<input type="hidden" name="{k}" value="{esc(params.get(k, ""))}">' for k in GRID_FILTERS
    )
    options = "".join(
        f'<option value="{v}">{esc(label)}</option>' for v, label in PRODUCT_ACTIONS.items()
    )
    return (
        '<form id="product-massaction" class="admin__data-grid-massaction" method="post" '
        f'action="/admin/catalog/product/massaction">{hidden}'
        '<label>Select All <input type="checkbox" name="select_all" value="1"></label> '
        f'<label>Actions <select name="action"><option value="">Actions</option>{options}'
        '</select></label> <button type="submit">Submit</button></form>'
    )


def row_checkbox(p) -> str:
    return (
        f'<input type="checkbox" name="ids" value="{p["id"]}" form="product-massaction" '
        f'aria-label="Select {esc(p["name"])}">'
    )


@router.post("/admin/catalog/product/massaction")
async def product_massaction(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form_lists(request)
    action = first(data, "action")
    with connect(request) as db:
        if first(data, "select_all"):
            where, args = grid_where({k: first(data, k) for k in GRID_FILTERS})
            ids = [r[0] for r in db.execute(f"SELECT id FROM shop_products WHERE {where}", args)]
        else:
            ids = [int(i) for i in data.get("ids", []) if i.isdigit()]
        if not ids or action not in PRODUCT_ACTIONS:
            why = "Please select products." if not ids else "Please select an action."
            return redirect(f"/admin/catalog/product?{qs(message=why)}")
        if action == "attributes":
            return redirect(
                "/admin/catalog/product_action_attribute/edit?ids=" + ",".join(map(str, ids))
            )
        status = "Enabled" if action == "enable" else "Disabled"
        db.executemany("UPDATE shop_products SET status=? WHERE id=?", [(status, i) for i in ids])
    return redirect(f"/admin/catalog/product?{qs(message=_updated(len(ids)))}")


def _updated(n: int) -> str:
    return f"A total of {n} record(s) were updated."


def _ids(text: str) -> list[int]:
    return [int(i) for i in text.split(",") if i.strip().isdigit()][:5000]


@router.get("/admin/catalog/product_action_attribute/edit")
def attributes_page(request: Request, user: User, ids: str = ""):
    """Update Attributes: the selected products, and the attributes to change on all of them
    (an attribute left on "Keep" or blank keeps each product's value)."""
    if user is None:
        return redirect(ACCOUNTS.login)
    chosen = _ids(ids)
    with connect(request) as db:
        names = [
            r[0]
            for r in db.execute(
                f"SELECT name FROM shop_products WHERE id IN ({','.join('?' * len(chosen))}) "
                "ORDER BY id",
                chosen,
            )
        ]
    if not names:
        return redirect(f"/admin/catalog/product?{qs(message='Please select products.')}")
    items = "".join(f"<li>{esc(n)}</li>" for n in names)
    body = (
        f"<h1>Update Attributes</h1><p>{len(names)} products selected</p>"
        '<form class="product-form" method="post" action="/admin/catalog/product_action_attribute/'
        f'save"><input type="hidden" name="ids" value="{esc(ids)}"><fieldset><legend>Attributes'
        '</legend><label>Sale <select name="sale"><option value="">Keep</option>'
        '<option value="1">Yes</option><option value="0">No</option></select></label> '
        '<label>Special Price <input type="text" name="special_price" value=""></label>'
        '</fieldset><button class="primary" type="submit">Save</button></form>'
        f'<details><summary>Selected products</summary><ul class="selected-products">{items}'
        "</ul></details>"
    )
    return render("Update Attributes / Products / Magento Admin", body, _nav())


@router.post("/admin/catalog/product_action_attribute/save")
async def attributes_save(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form_lists(request)
    chosen = _ids(first(data, "ids"))
    sale, special = first(data, "sale"), first(data, "special_price").strip()
    try:
        price = round(float(special), 2) if special else None
    except ValueError:
        price = None
    with connect(request) as db:
        for pid in chosen:
            if sale in ("0", "1"):
                db.execute("UPDATE shop_products SET sale=? WHERE id=?", (int(sale), pid))
            if price is not None:
                db.execute("UPDATE shop_products SET special_price=? WHERE id=?", (price, pid))
    return redirect(f"/admin/catalog/product?{qs(message=_updated(len(chosen)))}")


def category_paths(db) -> dict[int, str]:
    """Leaf categories by id: ``Top > Sub > Leaf``."""
    rows = db.execute("SELECT id, parent_id, name, level FROM shop_categories").fetchall()
    by_id = {r["id"]: r for r in rows}

    def path(r) -> str:
        parts = [r["name"]]
        while r["parent_id"]:
            r = by_id[r["parent_id"]]
            parts.insert(0, r["name"])
        return " > ".join(parts)

    return {r["id"]: path(r) for r in rows if r["level"] == 3}


def resolve_category(db, typed: str) -> int | None:
    """The leaf category the Categories field names: its whole path, else a leaf name only one
    department has (case aside)."""
    want = " ".join(typed.lower().split())
    paths = category_paths(db)
    for cid, path in paths.items():
        if path.lower() == want:
            return cid
    leaves = [cid for cid, path in paths.items() if path.lower().rsplit(" > ", 1)[-1] == want]
    return leaves[0] if len(leaves) == 1 else None


def category_field(db, category_id: int | None) -> str:
    """The Categories field: a text box with the leaf paths as suggestions."""
    paths = category_paths(db)
    options = "".join(f'<option value="{esc(p)}">' for p in paths.values())
    return (
        '<label>Categories <input type="text" name="category" list="category-paths" '
        f'value="{esc(paths.get(category_id or 0, ""))}"></label>'
        f'<datalist id="category-paths">{options}</datalist> '
    )


def pricing_fields(p) -> str:
    """The product form's Sale flag and Advanced Pricing (the special price)."""
    sale = "".join(
        f'<option value="{v}"{" selected" if v == str(p["sale"]) else ""}>{label}</option>'
        for v, label in (("0", "No"), ("1", "Yes"))
    )
    special = "" if p["special_price"] is None else f"{p['special_price']:.2f}"
    return (
        f'<label>Sale <select name="sale">{sale}</select></label> '
        "<fieldset class='advanced-pricing'><legend>Advanced Pricing</legend>"
        f'<label>Special Price <input name="special_price" type="text" value="{special}">'
        "</label></fieldset>"
    )


def variant_name(name: str, size: str, color: str) -> str:
    """A configurable product's variant, named as Magento names the generated products."""
    return f"{name}-{size}-{color}"


def configurations_panel(db, p) -> str:
    """The product form's Configurations section: its variants and Edit Configurations."""
    rows = db.execute(
        "SELECT * FROM shop_variants WHERE product_id=? ORDER BY id", (p["id"],)
    ).fetchall()
    if not rows and not p["sizes"]:
        return ""
    cells = "".join(
        f"<tr><td>{esc(variant_name(p['name'], v['size'], v['color']))}</td>"
        f"<td>{esc(p['sku'])}-{esc(v['size'])}-{esc(v['color'])}</td><td>{esc(v['size'])}</td>"
        f"<td>{esc(v['color'])}</td><td>{v['qty']}</td><td>${p['price']:,.2f}</td></tr>"
        for v in rows
    )
    table = (
        "<table><thead><tr><th>Name</th><th>SKU</th><th>Size</th><th>Color</th><th>Quantity"
        f"</th><th>Price</th></tr></thead><tbody>{cells}</tbody></table>"
        if rows
        else "<p>No configurations yet.</p>"
    )
    return (
        '<section class="admin__fieldset" data-index="configurable"><h2>Configurations</h2>'
        f'{table}<a href="/admin/catalog/product/configurations/{p["id"]}">Edit Configurations'
        "</a></section>"
    )


def _checks(name: str, values: tuple[str, ...]) -> str:
    return "".join(
        f'<label><input type="checkbox" name="{name}" value="{esc(v)}"> {esc(v)}</label> '
        for v in values
    )


@router.get("/admin/catalog/product/configurations/{pid}")
def configurations_page(request: Request, pid: int, user: User):
    """Edit Configurations: pick values of the size and colour attributes; Generate Products
    adds a variant for every chosen size in every chosen colour (the ones it has stay)."""
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        p = db.execute("SELECT * FROM shop_products WHERE id=?", (pid,)).fetchone()
        if p is None:
            return not_found(_nav())
        panel = configurations_panel(db, p)
    body = (
        f"<h1>{esc(p['name'])}: Edit Configurations</h1>{panel}"
        f'<form class="product-form" method="post" action="/admin/catalog/product/configurations/'
        f'{pid}"><fieldset><legend>Size</legend>{_checks("size", SIZE_OPTIONS)}</fieldset>'
        f"<fieldset><legend>Color</legend>{_checks('color', COLOR_OPTIONS)}</fieldset>"
        '<label>Quantity per product <input type="text" name="qty" value="10"></label> '
        '<button class="primary" type="submit">Generate Products</button></form>'
    )
    return render(f"{p['name']} / Configurations / Magento Admin", body, _nav())


@router.post("/admin/catalog/product/configurations/{pid}")
async def configurations_save(request: Request, pid: int, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form_lists(request)
    sizes = [s for s in SIZE_OPTIONS if s in data.get("size", [])]
    colors = [c for c in COLOR_OPTIONS if c in data.get("color", [])]
    qty = first(data, "qty", "0")
    with connect(request) as db:
        p = db.execute("SELECT * FROM shop_products WHERE id=?", (pid,)).fetchone()
        if p is None:
            return not_found(_nav())
        have = {
            (r["size"], r["color"])
            for r in db.execute("SELECT size, color FROM shop_variants WHERE product_id=?", (pid,))
        }
        new = [(s, c) for s in sizes for c in colors if (s, c) not in have]
        db.executemany(
            "INSERT INTO shop_variants (product_id, size, color, qty) VALUES (?,?,?,?)",
            [(pid, s, c, int(qty) if qty.isdigit() else 0) for s, c in new],
        )
        all_sizes = {
            r[0] for r in db.execute("SELECT size FROM shop_variants WHERE product_id=?", (pid,))
        }
        db.execute(
            "UPDATE shop_products SET sizes=? WHERE id=?",
            (",".join(s for s in SIZE_OPTIONS if s in all_sizes), pid),
        )
    if not new:
        return redirect(f"/admin/catalog/product/configurations/{pid}")
    return redirect(f"/admin/catalog/product/edit/{pid}?saved=1")


def _choices(name: str, label: str, values: tuple[str, ...]) -> str:
    """One of ``values`` (Magento's swatches: one click picks a value)."""
    options = "".join(
        f'<label><input type="radio" name="{name}" value="{esc(v)}"> {esc(v)}</label> '
        for v in values
    )
    return f'<fieldset class="swatches"><legend>{label}</legend>{options}</fieldset> '


@router.get("/admin/catalog/product/new")
def new_product(request: Request, user: User, error: str = ""):
    """Add Product (a simple product): status, name, SKU (the name when left blank), price,
    quantity, size, colour, category."""
    if user is None:
        return redirect(ACCOUNTS.login)
    notes = {
        "sku": "The value specified in the SKU field is already used.",
        "name": "Enter the product's name.",
        "price": "Enter the price as a number, e.g. 19.99.",
        "qty": "Enter the quantity as a whole number.",
        "category": "Choose a category from the list (Department > Group > Category).",
    }
    note = f"<p role='alert'>{esc(notes[error])}</p>" if error in notes else ""
    with connect(request) as db:
        categories = category_field(db, None)
    body = (
        f"<h1>New Product</h1>{note}"
        '<form class="product-form" method="post" action="/admin/catalog/product/new">'
        "<fieldset><legend>Product Details</legend>"
        '<label>Enable Product <input name="status" type="checkbox" value="Enabled" checked>'
        '</label> <label>Product Name <input name="name" type="text" value=""></label> '
        '<label>SKU <input name="sku" type="text" value=""></label> '
        '<label>Price <input name="price" type="text" value=""></label> '
        '<label>Quantity <input name="qty" type="text" value=""></label> '
        + _choices("sizes", "Size", SIZE_OPTIONS)
        + _choices("color", "Color", COLOR_OPTIONS)
        + categories
        + "</fieldset>"
        '<button class="primary" type="submit">Save Product</button></form>'
    )
    return render("New Product / Products / Magento Admin", body, _nav())


@router.post("/admin/catalog/product/new")
async def create_product(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = {k: v[-1] for k, v in (await form_lists(request)).items()}
    name = " ".join(data.get("name", "").split())
    try:
        price = round(float(data.get("price", "")), 2)
    except ValueError:
        price = None
    qty = data.get("qty", "0").strip() or "0"
    with connect(request) as db:
        category_id = resolve_category(db, data.get("category", ""))
        error = (
            "name"
            if not name
            else "price"
            if price is None or price < 0
            else "qty"
            if not qty.isdigit()
            else "category"
            if category_id is None
            else ""
        )
        sku = data.get("sku", "").strip() or name
        if not error and db.execute("SELECT 1 FROM shop_products WHERE sku=?", (sku,)).fetchone():
            error = "sku"
        if error:
            return redirect(f"/admin/catalog/product/new?error={error}")
        leaf = db.execute("SELECT name FROM shop_categories WHERE id=?", (category_id,)).fetchone()
        top = category_paths(db)[category_id].split(" > ")[0]
        size = data.get("sizes", "") if data.get("sizes", "") in SIZE_OPTIONS else ""
        color = data.get("color", "") if data.get("color", "") in COLOR_OPTIONS else ""
        cur = db.execute(
            "INSERT INTO shop_products (sku, name, price, category_id, top, category, brand, "
            "color, material, sizes, description, qty, status, created, rating, review_count) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                sku,
                name,
                price,
                category_id,
                top,
                leaf[0],
                name.split()[0],
                color,
                "",
                size,
                "",
                int(qty),
                "Enabled" if data.get("status") == "Enabled" else "Disabled",
                "2023-05-01",
                0.0,
                0,
            ),
        )
        pid = cur.lastrowid
    return redirect(f"/admin/catalog/product/edit/{pid}?saved=1")


def save_extras(db, pid: int, data: dict[str, str]) -> None:
    """The product form's sale flag, special price and category, when the form has them."""
    if data.get("sale") in ("0", "1"):
        db.execute("UPDATE shop_products SET sale=? WHERE id=?", (int(data["sale"]), pid))
    if "special_price" in data:
        try:
            special = (
                round(float(data["special_price"]), 2) if data["special_price"].strip() else None
            )
        except ValueError:
            special = None
        db.execute("UPDATE shop_products SET special_price=? WHERE id=?", (special, pid))
    category_id = resolve_category(db, data.get("category", "")) if data.get("category") else None
    if category_id is not None:
        leaf = db.execute("SELECT name FROM shop_categories WHERE id=?", (category_id,)).fetchone()
        top = category_paths(db)[category_id].split(" > ")[0]
        db.execute(
            "UPDATE shop_products SET category_id=?, category=?, top=? WHERE id=?",
            (category_id, leaf[0], top, pid),
        )
