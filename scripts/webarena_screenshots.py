"""Screenshots of every WebArena site the package serves, in real Chromium, for the docs.

    python scripts/webarena_screenshots.py                 # docs/assets/webarena-*.png
    python scripts/webarena_screenshots.py --out /tmp/shots

Starts the sites in this process (building their data on first use), signs in where a site
has accounts (WebArena's test users), opens one telling page per site in Chromium
(``agentgym_envs.browser.chromium_path``) at WebArena's 1280 x 720 viewport and saves it as a
small palette PNG.
"""

from __future__ import annotations

import argparse
import logging
import sqlite3
import sys
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
log = logging.getLogger("webarena_screenshots")


def pages(db: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """(file name, site, path) of the pages to shoot."""
    from agentgym_envs.envs.webarena.sites.citywiki import city_world
    from agentgym_envs.envs.webarena.sites.mapdata import city

    leaf = db.execute("SELECT path FROM shop_categories WHERE level = 3 LIMIT 1").fetchone()[0]
    sku = db.execute("SELECT sku FROM shop_products WHERE review_count > 3 LIMIT 1").fetchone()[0]
    post, forum = db.execute(
        "SELECT c.post_id, p.forum FROM forum_comments c JOIN forum_posts p ON p.id = c.post_id "
        "GROUP BY c.post_id HAVING SUM(c.parent_id IS NOT NULL) >= 3 ORDER BY c.post_id LIMIT 1"
    ).fetchone()
    ns, name, mr = db.execute(
        "SELECT p.namespace, p.name, m.iid FROM code_merge_requests m JOIN code_projects p "
        "ON p.id = m.project_id ORDER BY m.id LIMIT 1"
    ).fetchone()
    c = city()
    a, b = c.places[3], c.places[150]
    city_article = max(city_world().articles(), key=lambda a: len(a[1]))[0]
    return [
        ("homepage", "homepage", "/"),
        ("shopping", "shopping", f"/{leaf}.html"),
        ("shopping-product", "shopping", f"/product/{sku}"),
        ("shopping-admin", "shopping_admin", "/reports/sales?period=month"),
        ("shopping-admin-product", "shopping_admin", "/catalog/product/edit/12"),
        ("reddit", "reddit", f"/f/{forum}/{post}"),
        ("gitlab", "gitlab", f"/{ns}/{name}/-/merge_requests/{mr}"),
        ("wikipedia", "wikipedia", "/search?pattern=river"),
        ("map", "map", f"/directions?engine=fossgis_osrm_foot&route={a.coords};{b.coords}"),
        ("shopping-login", "shopping", "/customer/account/login"),
        ("shopping-admin-reviews", "shopping_admin", "/reviews?status=Pending"),
        ("reddit-pics", "reddit", "/f/pics"),
        ("wikipedia-city", "wikipedia", "/wiki/" + quote(city_article.replace(" ", "_"))),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "assets")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    from docs_screenshots import save_small_png

    from agentgym_envs.envs.webarena.browser import host
    from agentgym_envs.envs.webarena.sites import LOGIN_COOKIES, server
    from agentgym_envs.envs.webarena.sites.common import sign
    from agentgym_envs.envs.webarena.sites.data import ADMIN_USER, CODE_USER, FORUM_USER

    srv = server()
    db = sqlite3.connect(srv.seed_path)
    shots = pages(db)
    db.close()
    users = {"shopping_admin": ADMIN_USER, "reddit": FORUM_USER, "gitlab": CODE_USER}
    cookies = [srv.sandbox_cookie(srv.default_sandbox)] + [
        {"name": LOGIN_COOKIES[s], "value": sign(u), "domain": srv.host, "path": "/"}
        for s, u in users.items()
    ]
    args.out.mkdir(parents=True, exist_ok=True)

    async def shoot() -> list[tuple[str, bytes]]:
        context = await host().new_context(srv.origins, cookies)
        page = await context.new_page()
        out = []
        try:
            for file, site, path in shots:
                await page.goto(srv.url(site) + path, wait_until="load")
                await page.wait_for_timeout(300)  # the pages' own scripts (widgets, images)
                out.append((file, await page.screenshot()))
        finally:
            await context.close()
        return out

    for file, png in host().run(shoot, 600):
        path = args.out / f"webarena-{file}.png"
        save_small_png(png, path)
        log.info(
            "wrote %s (%d kB)",
            path.relative_to(ROOT) if path.is_relative_to(ROOT) else path,
            path.stat().st_size // 1024,
        )


if __name__ == "__main__":
    main()
