"""WebArena's shop-admin templates that change the catalogue and the reviews: sale flags (237),
approving (243) and deleting (246) reviews, configurable products' options (252) and new
products (256). Each is checked as WebArena checks it (``program_html`` on the admin's pages);
a check that the rest stayed as it was is added where doing everything would pass otherwise
(approving every pending review, deleting every review, putting the whole catalogue on
sale)."""

from __future__ import annotations

from typing import Any

from agentgym_envs.envs.webarena.sites.admin_catalog import grid_where, variant_name
from agentgym_envs.envs.webarena.sites.seed_shop import COLOR_OPTIONS, SCAMMERS
from agentgym_envs.envs.webarena.wa_admin import ADMIN, _open_edit, _unique_products
from agentgym_envs.envs.webarena.wa_common import both, html, na, spaced, url
from agentgym_envs.envs.webarena.webarena_tasks import instantiator

SALE = 'document.querySelector("[name=sale]").value'
STATUS = 'document.querySelector("[name=status_id]").value'
GONE = "Rating isn't Available"


def _pick(label: str, moves: int) -> list[list[Any]]:
    """Open the list ``label`` and choose the option ``moves`` below the first."""
    return [["click", "combobox", label], *[["press", "ArrowDown"]] * moves, ["press", "Enter"]]


def _edit_page(pid: int) -> str:
    return f"{ADMIN}/catalog/product/edit/{pid}"


def _review_page(rid: int) -> str:
    return f"{ADMIN}/review/product/edit/id/{rid}"


@instantiator(237)
def mark_on_sale(db):
    brands = [r[0] for r in db.execute("SELECT DISTINCT brand FROM shop_products ORDER BY brand")]
    for brand in spaced(brands, 10):
        shirts = db.execute(
            "SELECT id FROM shop_products WHERE brand=? AND lower(name) LIKE '%shirt%' ORDER BY id",
            (brand,),
        ).fetchall()
        where, args = grid_where({"q": f"{brand} shirt"})
        found = [r[0] for r in db.execute(f"SELECT id FROM shop_products WHERE {where}", args)]
        other = db.execute(
            "SELECT id FROM shop_products WHERE brand=? AND lower(name) NOT LIKE '%shirt%' "
            "ORDER BY id LIMIT 1",
            (brand,),
        ).fetchone()
        if not shirts or sorted(found) != [r[0] for r in shirts] or other is None:
            continue
        checks = [(_edit_page(r[0]), SALE, {"exact_match": "1"}) for r in shirts]
        checks.append((_edit_page(other[0]), SALE, {"exact_match": "0"}))
        yield (
            {"brand": brand},
            html(*checks),
            [
                ["click", "link", "Products"],
                ["type", "searchbox", "Search by keyword", f"{brand} shirt", 1],
                ["click", "checkbox", "Select All"],
                *_pick("Actions", 1),
                ["click", "button", "Submit"],
                *_pick("Sale", 1),
                ["click", "button", "Save"],
                ["stop", ""],
            ],
        )


def _pending(db, where: str = "1=1") -> list[Any]:
    return db.execute(
        f"SELECT r.*, p.name FROM shop_reviews r JOIN shop_products p ON p.id=r.product_id "
        f"WHERE r.status='Pending' AND {where} ORDER BY r.id"
    ).fetchall()


def _mass(ids: list[int], action_moves: int) -> list[list[Any]]:
    """Reviews -> Pending -> tick the reviews (top down: the grid has the newest first) ->
    Actions (Delete 1, Update Status 2) -> Submit (the status list opens on Approved)."""
    return [
        ["click", "link", "Reviews"],
        ["click", "link", "Pending"],
        *[["click", "checkbox", f"Select review {i}"] for i in sorted(ids, reverse=True)],
        *_pick("Actions", action_moves),
        ["click", "button", "Submit"],
        ["stop", ""],
    ]


@instantiator(243)
def approve_positive(db):
    good, bad = _pending(db, "r.rating >= 4"), _pending(db, "r.rating <= 2")
    checks = [(_review_page(r["id"]), STATUS, {"exact_match": "1"}) for r in good]
    checks += [(_review_page(r["id"]), STATUS, {"exact_match": "2"}) for r in bad]
    yield ({}, html(*checks), _mass([r["id"] for r in good], 2))


def _kept(db, not_ids: list[int]) -> tuple[str, str, dict[str, str]]:
    """A check that a review other than ``not_ids`` is still there, with its status: a pending
    positive one (deleting every pending review fails), else an approved one."""
    marks = ",".join("?" * len(not_ids))
    rid, status = db.execute(
        f"SELECT id, status FROM shop_reviews WHERE id NOT IN ({marks}) AND (status='Approved' "
        "OR (status='Pending' AND rating >= 4)) ORDER BY status='Pending' DESC, id LIMIT 1",
        not_ids,
    ).fetchone()
    return (_review_page(rid), STATUS, {"exact_match": "2" if status == "Pending" else "1"})


def _deleted(db, rows) -> dict[str, Any]:
    ids = [r["id"] for r in rows]
    checks = [(_review_page(i), "", {"must_include": [GONE]}) for i in ids]
    return html(*checks, _kept(db, ids))


@instantiator(246)
def delete_reviews(db):
    negative = _pending(db, "r.rating <= 2")
    for r in negative[:2]:
        yield (
            {"review_type": f"pending negative reviews for {r['name']}"},
            _deleted(db, [r]),
            _mass([r["id"]], 1),
        )
    yield (
        {"review_type": "pending negative reviews"},
        _deleted(db, negative),
        _mass([r["id"] for r in negative], 1),
    )
    below = _pending(db, "r.rating < 4")
    yield (
        {"review_type": "pending reviews with less than 4 stars"},
        _deleted(db, below),
        _mass([r["id"] for r in below], 1),
    )
    for nick in SCAMMERS:
        rows = db.execute(
            "SELECT * FROM shop_reviews WHERE author=? ORDER BY id", (nick,)
        ).fetchall()
        like = db.execute(
            "SELECT COUNT(*) FROM shop_reviews WHERE lower(author) LIKE ?", (f"%{nick.lower()}%",)
        ).fetchone()[0]
        if not rows or like != len(rows):
            continue
        yield (
            {"review_type": f"reviews from the scammer {nick}"},
            _deleted(db, rows),
            [
                ["click", "link", "Reviews"],
                ["type", "textbox", "Nickname", nick, 0],
                ["click", "button", "Apply Filters"],
                ["click", "checkbox", "Select All"],
                *_pick("Actions", 1),
                ["click", "button", "Submit"],
                ["stop", ""],
            ],
        )
    for p in negative[2:4]:
        yield from _no_negative(db, p["product_id"])


def _no_negative(db, near: int):
    """An unachievable instance: a product near ``near`` whose reviews are all positive."""
    p = db.execute(
        "SELECT p.* FROM shop_products p WHERE p.id > ? AND p.review_count >= 2 AND NOT EXISTS "
        "(SELECT 1 FROM shop_reviews r WHERE r.product_id=p.id AND r.rating <= 2) AND name IN "
        "(SELECT name FROM shop_products GROUP BY name HAVING COUNT(*)=1) ORDER BY p.id LIMIT 1",
        (near,),
    ).fetchone()
    if p is None:
        return
    yield (
        {"review_type": f"negative reviews for {p['name']}"},
        na(f"no review of {p['name']} is negative"),
        [
            ["click", "link", "Reviews"],
            ["type", "textbox", "Product", p["name"], 0],
            ["click", "button", "Apply Filters"],
            ["stop", "N/A"],
        ],
    )


def _variants(db, pid: int) -> list[Any]:
    return db.execute(
        "SELECT * FROM shop_variants WHERE product_id=? ORDER BY id", (pid,)
    ).fetchall()


def _configure(p, sizes: list[str], colors: list[str]) -> list[list[Any]]:
    return [
        *_open_edit(p),
        ["click", "link", "Edit Configurations"],
        *[["click", "checkbox", s] for s in sizes],
        *[["click", "checkbox", c] for c in colors],
        ["click", "button", "Generate Products"],
        ["stop", ""],
    ]


def _configured(p, sizes: list[str], colors: list[str]) -> dict[str, Any]:
    names = [variant_name(p["name"], s, c) for s in sizes for c in colors]
    locator = "document.querySelector('[data-index=\"configurable\"]').outerText"
    return html((_edit_page(p["id"]), locator, {"must_include": names}))


@instantiator(252)
def add_option(db):
    sized = [p for p in _unique_products(db, 0, 100000) if p["sizes"]]
    singles, multi = [], []
    for p in spaced(sized, 60):
        colors = sorted({v["color"] for v in _variants(db, p["id"])})
        (multi if len(colors) > 1 else singles).append((p, colors))
    new_colors = [c for c in COLOR_OPTIONS if c in ("Brown", "Orange", "Purple", "Yellow")]
    kinds = ("one size", "two sizes", "one colour")
    for k, (p, colors) in enumerate(singles[:9]):
        kind = kinds[k % 3]
        if kind == "one colour":
            size = ("XXL", "XXXL", "XXS")[k % 3]
            yield (
                {
                    "option": "size",
                    "value": size,
                    "base_setting": f"{colors[0].lower()} variant",
                    "product": p["name"],
                },
                _configured(p, [size], colors),
                _configure(p, [size], colors),
            )
            continue
        color = next(c for c in new_colors[k % 4 :] + new_colors if c not in colors)
        sizes = ["S"] if kind == "one size" else ["S", "M"]
        yield (
            {
                "option": "color",
                "value": color.lower(),
                "base_setting": "size " + " and ".join(sizes),
                "product": p["name"],
            },
            _configured(p, sizes, [color]),
            _configure(p, sizes, [color]),
        )
    for k, (p, colors) in enumerate(multi[:3]):
        sizes = [("XXL", "XXXL"), ("XXS", "XXL"), ("XXS", "XXXL")][k % 3]
        yield (
            {
                "option": "size",
                "value": " and ".join(sizes),
                "base_setting": "color variants",
                "product": p["name"],
            },
            _configured(p, list(sizes), colors),
            _configure(p, list(sizes), colors),
        )


#: Template 256's new products: name, category (leaf), stock, size, colour, price.
NEW_PRODUCTS = (
    ("Energy-Bulk Women Tank Top", "Tops", 50, "S", "Blue", "60"),
    ("Energy-Bulk Men Jogger Pants", "Pants", 50, "L", "Yellow", "69.99"),
    ("FancyBoy Men Casual Oxford Shirt", "Shirts", 42, "M", "Blue", "169.99"),
    ("Lelelumon Women Wrap Dress", "Dresses", 42, "XS", "Black", "89.5"),
    ("Trailcraft Men Rain Jacket", "Jackets", 18, "XL", "Green", "124"),
    ("Swiftstep Women Running Shoe", "Shoes", 30, "M", "Pink", "79.99"),
    ("Northpeak Men Fleece Jacket", "Jackets", 25, "XXL", "Gray", "99.95"),
    ("Sunbloom Women Sundress", "Dresses", 12, "S", "Yellow", "45"),
)


@instantiator(256)
def add_product(db):
    def value(name: str) -> str:
        return f'document.querySelector("[name={name}]").value'

    for name, leaf, stock, size, color, price in NEW_PRODUCTS:
        if db.execute("SELECT 1 FROM shop_products WHERE name=?", (name,)).fetchone():
            continue
        shown = f"{float(price):.2f}"
        checks = [
            ("last", value("price"), {"exact_match": shown}),
            ("last", value("name"), {"must_include": [name]}),
            ("last", value("qty"), {"exact_match": str(stock)}),
            ("last", value("sizes"), {"exact_match": size}),
            ("last", value("color"), {"exact_match": color}),
            ("last", value("category"), {"must_include": [leaf]}),
        ]
        yield (
            {
                "product": name,
                "stock": str(stock),
                "size": size,
                "color": color.lower(),
                "price": price,
            },
            both(url(f"{ADMIN}/catalog/product"), html(*checks)),
            [
                ["click", "link", "Products"],
                ["click", "link", "Add Product"],
                ["type", "textbox", "Product Name", name, 0],
                ["type", "textbox", "Price", price, 0],
                ["type", "textbox", "Quantity", str(stock), 0],
                ["click", "radio", size],
                ["click", "radio", color],
                ["type", "combobox", "Categories", leaf, 0],
                ["click", "button", "Save Product"],
                ["stop", ""],
            ],
        )
