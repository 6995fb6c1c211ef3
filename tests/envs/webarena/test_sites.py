"""The sites look like the apps they stand in for: each site's main pages rendered in real
Chromium with their stylesheets applied (computed styles, pixels, page sizes), at scale."""

from __future__ import annotations

import sqlite3

import pytest

from agentgym_envs.envs.webarena.browser import host
from agentgym_envs.envs.webarena.marks import decode_png
from agentgym_envs.envs.webarena.sites import LOGIN_COOKIES, server
from agentgym_envs.envs.webarena.sites.common import sign
from agentgym_envs.envs.webarena.sites.data import ADMIN_USER, CODE_USER, FORUM_USER, SHOP_USER

#: site -> (CSS selector of the app's signature bar, its background colour).
SIGNATURE = {
    "shopping": ("nav.navigation", "rgb(240, 240, 240)"),
    "shopping_admin": (".page-header", "rgb(55, 51, 48)"),
    "reddit": (".site-nav", "rgb(31, 42, 68)"),
    "gitlab": (".navbar-gitlab", "rgb(41, 41, 97)"),
    "wikipedia": (".kiwix-bar", "rgb(234, 236, 240)"),
    "map": (".osm-header", "rgb(255, 255, 255)"),
}

_STYLE_JS = """(selector) => {
  const el = document.querySelector(selector);
  const box = el ? el.getBoundingClientRect() : null;
  return {
    background: el ? getComputedStyle(el).backgroundColor : null,
    bar: box ? [box.x, box.y, box.width, box.height] : null,
    font: getComputedStyle(document.body).fontFamily,
    sheets: document.styleSheets.length,
    rules: Array.from(document.styleSheets).reduce((n, s) => n + s.cssRules.length, 0),
    width: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight,
    links: document.querySelectorAll('a[href]').length,
  };
}"""


def _pages(db: sqlite3.Connection) -> list[tuple[str, str]]:
    forum, post = db.execute("SELECT forum, id FROM forum_posts ORDER BY id LIMIT 1").fetchone()
    ns, name = db.execute(
        "SELECT namespace, name FROM code_projects ORDER BY id LIMIT 1"
    ).fetchone()
    sku = db.execute("SELECT sku FROM shop_products WHERE review_count > 2 LIMIT 1").fetchone()[0]
    leaf = db.execute("SELECT path FROM shop_categories WHERE level = 3 LIMIT 1").fetchone()[0]
    mr_ns, mr_name, mr = db.execute(
        "SELECT p.namespace, p.name, m.iid FROM code_merge_requests m JOIN code_projects p "
        "ON p.id = m.project_id ORDER BY m.id LIMIT 1"
    ).fetchone()
    return [
        ("shopping", "/"),
        ("shopping", f"/{leaf}.html"),
        ("shopping", "/catalogsearch/result/?q=tea"),
        ("shopping", f"/product/{sku}"),
        ("shopping", "/sales/order/history"),
        ("shopping_admin", "/dashboard"),
        ("shopping_admin", "/sales/order"),
        ("shopping_admin", "/catalog/product"),
        ("shopping_admin", "/customer/index"),
        ("shopping_admin", "/reports/sales?period=month"),
        ("shopping_admin", "/cms/page"),
        ("reddit", "/"),
        ("reddit", "/forums"),
        ("reddit", f"/f/{forum}"),
        ("reddit", f"/f/{forum}/{post}"),
        ("reddit", f"/user/{FORUM_USER}"),
        ("gitlab", "/"),
        ("gitlab", f"/{ns}/{name}"),
        ("gitlab", f"/{ns}/{name}/-/tree/main"),
        ("gitlab", f"/{ns}/{name}/-/commits/main"),
        ("gitlab", f"/{ns}/{name}/-/issues"),
        ("gitlab", f"/{ns}/{name}/-/project_members"),
        ("gitlab", f"/{mr_ns}/{mr_name}/-/merge_requests/{mr}"),
        ("wikipedia", "/"),
        ("wikipedia", "/search?pattern=river"),
        ("map", "/"),
        ("map", "/search?query=cafe"),
    ]


def test_main_pages_render_styled_in_chromium(tmp_path):
    srv = server()
    db = sqlite3.connect(srv.seed_path)
    pages = _pages(db)
    db.close()
    users = {"shopping": SHOP_USER, "shopping_admin": ADMIN_USER, "reddit": FORUM_USER}
    users["gitlab"] = CODE_USER
    cookies = [srv.sandbox_cookie(srv.default_sandbox)] + [
        {"name": LOGIN_COOKIES[s], "value": sign(u), "domain": srv.host, "path": "/"}
        for s, u in users.items()
    ]

    async def shoot():
        context = await host().new_context(srv.origins, cookies)
        page = await context.new_page()
        results = []
        try:
            for site, path in pages:
                reply = await page.goto(srv.url(site) + path, wait_until="load")
                style = await page.evaluate(_STYLE_JS, SIGNATURE[site][0])
                png = await page.screenshot()
                (tmp_path / f"{site}{path.replace('/', '_')[:60]}.png").write_bytes(png)
                results.append((site, path, reply.status, style, png))
        finally:
            await context.close()
        return results

    results = host().run(shoot, 300)
    for site, path, status, style, png in results:
        where = f"{site}{path}"
        assert status == 200, where
        _, colour = SIGNATURE[site]
        assert style["sheets"] == 1 and style["rules"] > 12, where  # the site's own stylesheet
        assert style["background"] == colour, (where, style)
        assert "Times" not in style["font"], where
        assert style["width"] <= 1280, (where, style["width"])  # no horizontal overflow
        image = decode_png(png)
        assert image.shape == (720, 1280, 3)
        x, y, _, h = style["bar"]
        centre = image[int(y + min(h, 700) / 2), int(x + 4)]
        assert tuple(centre) == tuple(int(c) for c in colour[4:-1].split(", ")), where
        assert len({tuple(px) for px in image[::40, ::40].reshape(-1, 3)}) >= 6, (
            where
        )  # not black on white
    listing = {(s, p): st for s, p, _, st, _ in results}
    # at scale: long listings scroll, and the pages link widely
    assert listing[("shopping", "/catalogsearch/result/?q=tea")]["height"] > 1500
    assert listing[("reddit", "/")]["height"] > 2000
    assert listing[("shopping", "/")]["links"] > 40


def test_data_is_at_webarenas_scale():
    srv = server()
    db = sqlite3.connect(srv.seed_path)
    count = lambda table: db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    assert count("shop_products") >= 20000
    assert db.execute("SELECT MAX(level) FROM shop_categories").fetchone()[0] == 3
    assert count("shop_reviews") > 20000
    assert count("shop_orders") >= 1000 and count("shop_customers") >= 500
    assert count("forum_forums") >= 80 and count("forum_users") >= 1000
    assert count("forum_posts") + count("forum_comments") >= 10000
    assert count("code_projects") >= 200
    assert count("code_issues") > 2000 and count("code_merge_requests") > 200
    repos = list(srv.data.repos.glob("*/*.git"))
    assert len(repos) == count("code_projects")
    db.close()


@pytest.mark.parametrize("observation", ["html", "som"])
def test_observations_give_html_and_set_of_marks(observation):
    from agentgym_envs.envs.webarena.env import WebArenaEnv

    env = WebArenaEnv(render_mode="rgb_array", observation=observation)
    obs, info = env.reset(seed=0, options={"split": "test", "task_id": 0})
    if observation == "html":
        assert '<link rel="stylesheet" href="/static/luma.css">' in obs
        assert 'data-agentgym-id="' in obs and "screenshot" not in info
    else:
        assert "[searchbox] [Search entire store here...]" in obs
        marked = info["screenshot"]
        plain = env.screenshot()
        assert marked.shape == plain.shape == (720, 1280, 3)
        assert (marked != plain).any(axis=2).mean() > 0.005  # the boxes are drawn
        assert env.render() is marked
    assert env.current_url().startswith("http://127.0.0.1:")
    env.close()
    with pytest.raises(ValueError, match="not one of axtree, html, som"):
        WebArenaEnv(observation="pixels")


def test_a_browser_gone_before_its_form_arrives_is_no_server_error():
    """A form POST whose client disconnects before the body (the agent's next action left the
    page) gets an answer nobody reads, not a ClientDisconnect traceback in the logs."""
    import asyncio

    app = server().apps["reddit"]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "path": "/login",
        "raw_path": b"/login",
        "query_string": b"",
        "headers": [(b"content-type", b"application/x-www-form-urlencoded")],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
        "scheme": "http",
        "root_path": "",
    }
    sent = []

    async def receive():
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 499
