"""The sites' generated content: diverse (texts rarely repeat), threaded, pictured, with real
diffs, deterministic; and the admin's deeper interfaces (combined filters, product attributes,
report ranges) over HTTP and its client-side widgets in Chromium."""

from __future__ import annotations

import sqlite3

import httpx
import pytest

from agentgym_envs.envs.webarena.browser import host
from agentgym_envs.envs.webarena.sites import LOGIN_COOKIES, data, images, repos, server
from agentgym_envs.envs.webarena.sites.common import sign
from agentgym_envs.envs.webarena.sites.data import ADMIN_USER

#: (table, column, least distinct ratio).
DIVERSE = (
    ("shop_reviews", "title", 0.8),
    ("shop_reviews", "body", 0.95),
    ("forum_comments", "body", 0.8),
    ("forum_posts", "title", 0.95),
    ("forum_posts", "body", 0.9),
    ("code_issues", "title", 0.8),
    ("code_merge_requests", "title", 0.8),
    ("shop_products", "name", 0.99),
)


@pytest.fixture(scope="module")
def db():
    conn = sqlite3.connect(server().seed_path)
    conn.row_factory = sqlite3.Row
    yield conn
    conn.close()


@pytest.mark.parametrize(("table", "column", "least"), DIVERSE)
def test_texts_rarely_repeat(db, table, column, least):
    n, distinct = db.execute(f"SELECT COUNT(*), COUNT(DISTINCT {column}) FROM {table}").fetchone()
    most = db.execute(f"SELECT MAX(k) FROM (SELECT COUNT(*) k FROM {table} GROUP BY {column})")
    assert n > 400 and distinct / n >= least, (table, column, n, distinct)
    assert most.fetchone()[0] <= 12, (table, column)


def test_review_bodies_state_their_titles(db):
    rows = db.execute("SELECT title, body FROM shop_reviews ORDER BY id LIMIT 500").fetchall()
    assert all(r["title"].lower() in r["body"].lower() for r in rows)


def test_comments_are_threaded_and_pages_nest_them(db):
    replies = db.execute("SELECT COUNT(*) FROM forum_comments WHERE parent_id IS NOT NULL")
    assert replies.fetchone()[0] > 1000
    bad = db.execute(
        "SELECT COUNT(*) FROM forum_comments c JOIN forum_comments p ON p.id = c.parent_id "
        "WHERE p.post_id != c.post_id OR p.id >= c.id"
    ).fetchone()[0]
    assert bad == 0
    post, forum = db.execute(
        "SELECT c.post_id, p.forum FROM forum_comments c JOIN forum_posts p ON p.id = c.post_id "
        "WHERE c.parent_id IS NOT NULL ORDER BY c.id LIMIT 1"
    ).fetchone()
    page = httpx.get(f"{server().url('reddit')}/f/{forum}/{post}")
    assert page.status_code == 200 and '<div class="comment__replies">' in page.text


def test_product_pictures_are_drawn_per_item(db):
    rows = db.execute("SELECT sku, name, top, color FROM shop_products ORDER BY id LIMIT 60")
    rows = rows.fetchall()
    svgs = [images.product_svg(*r) for r in rows]
    assert len(set(svgs)) == len(svgs)
    assert all(images.COLOURS[r["color"]] in s for r, s in zip(rows, svgs, strict=False))
    sku = db.execute("SELECT sku FROM shop_products WHERE id = 7").fetchone()[0]
    reply = httpx.get(f"{server().url('shopping')}/media/catalog/product/{sku}.svg")
    assert reply.headers["content-type"].startswith("image/svg+xml") and "<path" in reply.text
    listing = httpx.get(f"{server().url('shopping')}/catalogsearch/result/?q=tea").text
    assert listing.count('role="img" aria-label="') >= 12  # inline, drawn per product
    assert listing.count(' class="product-image-photo"><defs>') >= 12


def test_merge_requests_show_their_branch_diff(db):
    ns, name, iid, branch = db.execute(
        "SELECT p.namespace, p.name, m.iid, m.source_branch FROM code_merge_requests m JOIN "
        "code_projects p ON p.id = m.project_id ORDER BY m.id LIMIT 1"
    ).fetchone()
    page = httpx.get(f"{server().url('gitlab')}/{ns}/{name}/-/merge_requests/{iid}").text
    assert '<div class="diff-file">' in page and 'class="line add"' in page
    assert f"docs/{branch}.md" in page
    tree = httpx.get(f"{server().url('gitlab')}/{ns}/{name}/-/tree/main").text
    assert ".gitlab-ci.yml" in tree and "docs" in tree


def test_the_build_is_deterministic(tmp_path):
    """Same seed, same repositories (commit ids hash content and dates) and same tables."""
    plan = data.project_plan()[:6]
    users = data.code_user_names()
    first = repos.build_repos(tmp_path / "a", plan, users, workers=2)
    second = repos.build_repos(tmp_path / "b", plan, users, workers=2)
    assert first == second and len({row[1] for row in first}) == len(first)
    dumps = []
    for name in ("one.db", "two.db"):
        conn = sqlite3.connect(data.seed_database(tmp_path / name, first))
        dumps.append(list(conn.iterdump()))
        conn.close()
    assert dumps[0] == dumps[1]
    conn = sqlite3.connect(data.seed_database(tmp_path / "other.db", first, seed=1))
    assert list(conn.iterdump()) != dumps[0]
    conn.close()


def _admin() -> httpx.Client:
    srv = server()
    base = srv.url("shopping_admin").rsplit("/admin", 1)[0]
    sandbox = srv.new_sandbox()
    cookies = {LOGIN_COOKIES["shopping_admin"]: sign(ADMIN_USER), "agentgym_sandbox": sandbox}
    return httpx.Client(base_url=base, cookies=cookies)


def test_product_grid_filters_combine(db):
    params = {
        "status": "Enabled",
        "department": "Electronics",
        "price_from": "10",
        "price_to": "40",
        "qty_from": "100",
    }
    want = db.execute(
        "SELECT COUNT(*) FROM shop_products WHERE status='Enabled' AND top='Electronics' AND "
        "price >= 10 AND price <= 40 AND qty >= 100"
    ).fetchone()[0]
    with _admin() as admin:
        page = admin.get("/admin/catalog/product", params=params).text
        fewer = admin.get("/admin/catalog/product", params={**params, "qty_to": "200"}).text
        options = admin.get("/admin/catalog/category/options").json()
    assert f"<p>{want} records found</p>" in page and 0 < want < 2000
    assert 'aria-label="Active filters"' in page and "Remove Price to" in page
    assert "Remove Quantity to" not in page
    assert int(fewer.split(" records found")[0].rsplit(">", 1)[1]) < want
    assert {"value": "Electronics", "label": "Electronics"} in options


def test_product_edit_saves_attributes_stock_and_status():
    with _admin() as admin:
        form = {
            "name": "Renamed Lamp",
            "sku": "B-LAMP-1",
            "price": "12.50",
            "qty": "40",
            "stock_status": "Out of Stock",
            "color": "Navy",
            "brand": "Lumen",
            "material": "Brass",
            "sizes": "",
            "description": "A brass lamp.",
        }  # "status" left out: the Enable Product box unticked
        assert admin.post("/admin/catalog/product/edit/9", data=form).status_code == 303
        page = admin.get("/admin/catalog/product/edit/9").text
        assert 'value="Renamed Lamp"' in page and 'value="B-LAMP-1"' in page
        assert '<option value="Out of Stock" selected>' in page
        assert '<option value="Navy" selected>' in page and 'value="Brass"' in page
        assert 'name="status" type="checkbox" value="Enabled">' in page  # not checked
        assert 'role="dialog"' in page and "Are you sure you want to delete" in page
        grid = admin.get("/admin/catalog/product", params={"q": "Renamed Lamp"}).text
        assert "<td>0</td><td>Disabled</td>" in grid
        taken = {**form, "sku": "B-LAMP-1", "name": "Another"}
        reply = admin.post("/admin/catalog/product/edit/10", data=taken, follow_redirects=True)
        assert "already used" in reply.text and 'value="Another"' not in reply.text


def test_bestsellers_by_period_over_a_date_range(db):
    with _admin() as admin:
        page = admin.get(
            "/admin/reports/bestsellers",
            params={"period": "month", "date_from": "2022-03-01", "date_to": "2022-05-31"},
        ).text
    months = {m for m in ("2022-02", "2022-03", "2022-04", "2022-05", "2022-06") if m in page}
    assert months == {"2022-03", "2022-04", "2022-05"}
    assert 'class="admin__control-date"' in page


def test_admin_widgets_work_in_chromium():
    """The calendar fills a date field, the department list is loaded by the page's script,
    and the delete button opens its confirmation dialog."""
    srv = server()
    cookies = [
        srv.sandbox_cookie(srv.default_sandbox),
        {
            "name": LOGIN_COOKIES["shopping_admin"],
            "value": sign(ADMIN_USER),
            "domain": srv.host,
            "path": "/",
        },
    ]

    async def drive():
        context = await host().new_context(srv.origins, cookies)
        page = await context.new_page()
        try:
            await page.goto(srv.url("shopping_admin") + "/reports/sales", wait_until="load")
            await page.get_by_role("button", name="Pick a date for From").click()
            await page.get_by_role("button", name="Next").click()
            await page.locator(".cal-day", has_text="14").first.click()
            picked = await page.input_value("input[name=date_from]")
            await page.goto(srv.url("shopping_admin") + "/catalog/product", wait_until="load")
            await page.wait_for_selector(
                "select[name=department][data-loaded=true]", state="attached"
            )
            departments = await page.eval_on_selector_all(
                "select[name=department] option", "els => els.map(e => e.textContent)"
            )
            await page.goto(
                srv.url("shopping_admin") + "/catalog/product/edit/3", wait_until="load"
            )
            hidden_before = await page.is_hidden("#delete-product")
            await page.get_by_role("button", name="Delete").click()
            shown = await page.is_visible("#delete-product")
            await page.get_by_role("button", name="Cancel").click()
            hidden_after = await page.is_hidden("#delete-product")
        finally:
            await context.close()
        return picked, departments, hidden_before, shown, hidden_after

    picked, departments, hidden_before, shown, hidden_after = host().run(drive, 120)
    assert picked == "2023-02-14"
    assert departments[0] == "Any" and "Electronics" in departments and len(departments) == 13
    assert hidden_before and shown and hidden_after
