"""The admin's write interfaces behind WebArena's templates 237, 243, 246, 252 and 256 (sale
flags and special prices, review moderation, configurable products' options, Add Product),
driven over real HTTP on the sites' server (a sandbox of their own), with what the storefront
then shows; and the templates' expert plans solving their test tasks in Chromium."""

from __future__ import annotations

import html as htmllib
import re
import sqlite3

import httpx
import pytest

from agentgym_envs.envs.webarena.sites import LOGIN_COOKIES, SANDBOX_COOKIE, server
from agentgym_envs.envs.webarena.sites.common import sign
from agentgym_envs.envs.webarena.sites.data import ADMIN_USER, SHOP_USER
from tests.envs.webarena.expert_play import play_expert


@pytest.fixture
def site():
    """``(admin client, shop client, db)`` on a fresh sandbox; the admin signed in."""
    srv = server()
    name = srv.new_sandbox()
    admin = httpx.Client(
        base_url=srv.url("shopping_admin").removesuffix("/admin"),
        cookies={SANDBOX_COOKIE: name, LOGIN_COOKIES["shopping_admin"]: sign(ADMIN_USER)},
        timeout=120,
    )
    shop = httpx.Client(base_url=srv.url("shopping"), cookies={SANDBOX_COOKIE: name}, timeout=120)
    db = sqlite3.connect(srv.sandbox_path(name))
    db.row_factory = sqlite3.Row
    yield admin, shop, db
    admin.close()
    shop.close()
    db.close()
    srv.drop_sandbox(name)


def _one(db, sql: str, *args):
    return db.execute(sql, args).fetchone()


def test_signed_out_admin_writes_go_to_the_login(site):
    _, _, db = site
    srv = server()
    anon = httpx.Client(base_url=srv.url("shopping_admin").removesuffix("/admin"), timeout=60)
    for path in (
        "/admin/review/product/massaction",
        "/admin/catalog/product/massaction",
        "/admin/catalog/product/new",
        "/admin/catalog/product/configurations/1",
        "/admin/review/product/edit/id/1",
    ):
        reply = anon.post(path, data={"action": "delete", "select_all": "1"})
        assert reply.status_code == 303 and reply.headers["location"] == "/admin", path
    assert _one(db, "SELECT COUNT(*) FROM shop_reviews WHERE id=1")[0] == 1


def test_review_grid_filters_by_status_and_the_shop_shows_approved_only(site):
    admin, shop, db = site
    pending = db.execute("SELECT * FROM shop_reviews WHERE status='Pending' ORDER BY id").fetchall()
    assert len(pending) >= 5
    page = admin.get("/admin/reviews", params={"status": "Pending"}).text
    assert f"{len(pending)} records found" in page
    assert all(f"Edit review {r['id']}" in page for r in pending)
    # the storefront neither shows nor counts a pending review
    r = pending[0]
    p = _one(db, "SELECT * FROM shop_products WHERE id=?", r["product_id"])
    approved = _one(
        db,
        "SELECT COUNT(*) FROM shop_reviews WHERE product_id=? AND status='Approved'",
        p["id"],
    )[0]
    assert p["review_count"] == approved
    html = shop.get(f"/product/{p['sku']}").text
    assert htmllib.escape(r["body"]) not in html and f"Reviews ({approved})" in html


def test_approving_and_deleting_reviews_by_mass_action_and_edit_page(site):
    admin, shop, db = site
    pending = db.execute("SELECT * FROM shop_reviews WHERE status='Pending' ORDER BY id").fetchall()
    good = [r for r in pending if r["rating"] >= 4]
    reply = admin.post(
        "/admin/review/product/massaction",
        data={"action": "update_status", "status_id": "1", "ids": [str(r["id"]) for r in good]},
    )
    assert reply.status_code == 303
    page = admin.get(reply.headers["location"]).text
    assert f"A total of {len(good)} record(s) have been updated." in page
    r = good[0]
    edit = admin.get(f"/admin/review/product/edit/id/{r['id']}").text
    assert re.search(r'<option value="1" selected>Approved</option>', edit)
    # approved: on the storefront, and counted in the product's rating
    p = _one(db, "SELECT * FROM shop_products WHERE id=?", r["product_id"])
    assert htmllib.escape(r["body"]) in shop.get(f"/product/{p['sku']}").text
    assert (
        p["review_count"]
        == _one(
            db,
            "SELECT COUNT(*) FROM shop_reviews WHERE product_id=? AND status='Approved'",
            p["id"],
        )[0]
    )
    # the edit page's status list: Not Approved
    bad = [r for r in pending if r["rating"] <= 2]
    admin.post(f"/admin/review/product/edit/id/{bad[0]['id']}", data={"status_id": "3"})
    assert _one(db, "SELECT status FROM shop_reviews WHERE id=?", bad[0]["id"])[0] == (
        "Not Approved"
    )
    # Select All deletes what the grid's filters find, nothing else
    nick = bad[1]["author"]
    mine = _one(db, "SELECT COUNT(*) FROM shop_reviews WHERE author LIKE ?", f"%{nick}%")[0]
    total = _one(db, "SELECT COUNT(*) FROM shop_reviews")[0]
    reply = admin.post(
        "/admin/review/product/massaction",
        data={"action": "delete", "select_all": "1", "nickname": nick},
    )
    assert _one(db, "SELECT COUNT(*) FROM shop_reviews")[0] == total - mine
    gone = admin.get(f"/admin/review/product/edit/id/{bad[1]['id']}").text
    assert "Rating isn't Available" in gone
    assert (
        "Rating isn't Available" not in admin.get(f"/admin/review/product/edit/id/{r['id']}").text
    )
    # no action chosen: nothing happens, and the page says why
    reply = admin.post("/admin/review/product/massaction", data={"ids": [str(r["id"])]})
    assert "Please select an action." in admin.get(reply.headers["location"]).text


def test_update_attributes_puts_products_on_sale_with_a_special_price(site):
    admin, shop, db = site
    rows = db.execute(
        "SELECT * FROM shop_products WHERE brand='Acme' AND lower(name) LIKE '%shirt%'"
    ).fetchall()
    reply = admin.post(
        "/admin/catalog/product/massaction",
        data={"action": "attributes", "select_all": "1", "q": "Acme shirt"},
    )
    assert reply.status_code == 303
    form = admin.get(reply.headers["location"])
    assert f"{len(rows)} products selected" in form.text
    ids = re.search(r'name="ids" value="([\d,]+)"', form.text).group(1)
    admin.post(
        "/admin/catalog/product_action_attribute/save",
        data={"ids": ids, "sale": "1", "special_price": "9.50"},
    )
    on_sale = {r[0] for r in db.execute("SELECT id FROM shop_products WHERE sale=1")}
    assert on_sale == {r["id"] for r in rows}
    edit = admin.get(f"/admin/catalog/product/edit/{rows[0]['id']}").text
    assert '<option value="1" selected>Yes</option>' in edit and 'value="9.50"' in edit
    html = shop.get(f"/product/{rows[0]['sku']}").text
    assert "Special Price" in html and "$9.50" in html and ">Sale</span>" in html
    # the product form's own Sale field turns it off again
    p = rows[0]
    admin.post(
        f"/admin/catalog/product/edit/{p['id']}",
        data={
            "name": p["name"],
            "price": str(p["price"]),
            "qty": str(p["qty"]),
            "stock_status": "In Stock",
            "status": "Enabled",
            "sale": "0",
            "special_price": "",
        },
    )
    after = _one(db, "SELECT sale, special_price FROM shop_products WHERE id=?", p["id"])
    assert tuple(after) == (0, None)


def test_the_cart_and_the_order_charge_the_special_price(site):
    admin, shop, db = site
    p = db.execute("SELECT * FROM shop_products ORDER BY id LIMIT 1").fetchone()
    special = round(p["price"] / 2, 2)
    admin.post(
        "/admin/catalog/product_action_attribute/save",
        data={"ids": str(p["id"]), "sale": "1", "special_price": f"{special:.2f}"},
    )
    shop.cookies.set(LOGIN_COOKIES["shopping"], sign(SHOP_USER))
    shop.post(f"/checkout/cart/add/{p['sku']}", data={"qty": "2"})
    cart = shop.get("/checkout/cart").text
    assert f"${special * 2:,.2f}" in cart and f"${p['price'] * 2:,.2f}" not in cart
    shop.post("/checkout/place", data={"shipping": "flatrate"})
    charged = _one(
        db,
        "SELECT i.price FROM shop_order_items i JOIN shop_orders o ON o.id=i.order_id "
        "WHERE o.email=? AND i.product_id=? ORDER BY o.id DESC",
        SHOP_USER,
        p["id"],
    )
    assert charged[0] == special


def test_edit_configurations_adds_variants_shown_in_the_store(site):
    admin, shop, db = site
    p = _one(db, "SELECT * FROM shop_products WHERE sizes != '' ORDER BY id LIMIT 1")
    new_color = next(
        c
        for c in ("Brown", "Orange", "Purple")
        if not _one(db, "SELECT 1 FROM shop_variants WHERE product_id=? AND color=?", p["id"], c)
    )
    admin.post(
        f"/admin/catalog/product/configurations/{p['id']}",
        data={"size": ["S", "M", "XXL"], "color": [new_color]},
    )
    edit = admin.get(f"/admin/catalog/product/edit/{p['id']}").text
    panel = edit[edit.index('data-index="configurable"') :]
    for size in ("S", "M", "XXL"):
        assert f"{p['name']}-{size}-{new_color}" in panel
    html = shop.get(f"/product/{p['sku']}").text
    assert '<option value="XXL">XXL</option>' in html
    assert f'<option value="{new_color}">{new_color}</option>' in html


def test_add_product_saves_a_simple_product_seen_in_grid_and_store(site):
    admin, shop, _ = site
    reply = admin.post(
        "/admin/catalog/product/new",
        data={
            "status": "Enabled",
            "name": "Trailhead Men Fleece Shirt",
            "price": "59.5",
            "qty": "42",
            "sizes": "M",
            "color": "Green",
            "category": "shirts",
        },
    )
    assert reply.status_code == 303
    edit = admin.get(reply.headers["location"]).text
    for field, value in (("price", "59.50"), ("qty", "42"), ("sizes", "M")):
        assert re.search(rf'name="{field}" type="text" value="{value}"', edit), field
    assert '<option value="Green" selected>Green</option>' in edit
    assert "Clothing, Shoes &amp; Jewelry &gt; Men &gt; Shirts" in edit
    grid = admin.get("/admin/catalog/product", params={"q": "Trailhead Men Fleece"}).text
    assert "1 records found" in grid
    html = shop.get("/product/Trailhead Men Fleece Shirt").text
    assert "$59.50" in html and "In stock" in html
    # errors send the form back with the reason
    for data, why in (
        ({"name": "", "price": "1", "category": "Shirts"}, "name"),
        ({"name": "X Thing", "price": "lots", "category": "Shirts"}, "price"),
        ({"name": "X Thing", "price": "3", "category": "Nowhere"}, "category"),
        ({"name": "Trailhead Men Fleece Shirt", "price": "3", "category": "Shirts"}, "sku"),
    ):
        reply = admin.post("/admin/catalog/product/new", data=data)
        assert reply.headers["location"].endswith(f"error={why}"), why


# -- the templates' tasks, played in Chromium ----------------------------------------------
@pytest.fixture(scope="module")
def env():
    from agentgym_envs.envs.webarena.env import WebArenaEnv

    pytest.importorskip("webarena")
    made = WebArenaEnv(task_set="webarena")
    made.judge = None
    yield made
    made.close()


def _test_task(env, template: int) -> int:
    for task_id in range(env.tasks.size("test")):
        if env.tasks.get("test", task_id).config["intent_template_id"] == template:
            return task_id
    raise AssertionError(f"template {template} has no test task")


def _play(env, task_id: int, plan=None) -> dict:
    """The expert's episode on the test task, following ``plan`` instead of the task's own
    when given."""
    return play_expert(env, task_id, plan)


@pytest.mark.parametrize("template", [237, 243, 246, 252, 256, 277])
def test_expert_solves_the_test_task_and_a_bare_stop_fails(env, template):
    task_id = _test_task(env, template)
    solved = _play(env, task_id)
    assert solved["success"] and solved["score"] == 1.0
    assert _play(env, task_id, [["stop", "Done"]])["score"] == 0.0


def _pick(label: str, moves: int) -> list[list]:
    return [["click", "combobox", label], *[["press", "ArrowDown"]] * moves, ["press", "Enter"]]


@pytest.mark.parametrize(
    ("template", "plan"),
    [
        # approving every pending review: the negative ones too
        (
            243,
            [
                ["click", "link", "Reviews"],
                ["click", "link", "Pending"],
                ["click", "checkbox", "Select All"],
                *_pick("Actions", 2),
                ["click", "button", "Submit"],
                ["stop", ""],
            ],
        ),
        # deleting every pending review: the positive ones too
        (
            246,
            [
                ["click", "link", "Reviews"],
                ["click", "link", "Pending"],
                ["click", "checkbox", "Select All"],
                *_pick("Actions", 1),
                ["click", "button", "Submit"],
                ["stop", ""],
            ],
        ),
        # every product of the brand on sale, not only its shirts
        (
            237,
            [
                ["click", "link", "Products"],
                ["type", "searchbox", "Search by keyword", "Acme", 1],
                ["click", "checkbox", "Select All"],
                *_pick("Actions", 1),
                ["click", "button", "Submit"],
                *_pick("Sale", 1),
                ["click", "button", "Save"],
                ["stop", ""],
            ],
        ),
    ],
    ids=["approve-all", "delete-all-pending", "whole-brand-on-sale"],
)
def test_doing_too_much_fails(env, template, plan):
    task_id = _test_task(env, template)
    if template == 237:
        assert "Acme" in env.tasks.get("test", task_id).config["intent"]
    done = _play(env, task_id, plan)
    assert done["score"] == 0.0
