"""WebArena's evaluator helpers (``func:...`` in ``program_html``).

On the package's own sites they read the episode's database (:func:`local_helpers`). On a
user's deployment (:func:`deployment_helpers`) they read the sites' pages, as the episode's
signed-in browser sees them:

* ``reddit_get_post_url(url)``: the post's URL, from the URL itself (as WebArena).
* ``gitlab_get_project_memeber_role(__page__, user)``: the user's role from the members page
  (WebArena's GitLab selectors, else any table with a "role" column).
* ``shopping_get_latest_order_url()``: the first order in the signed-in customer's order
  history (WebArena asks Magento's REST API for the newest order of the whole store; the
  tasks that use it check an order the task's customer has just placed).

``shopping_get_sku_latest_review_author`` / ``_rating`` are not answered on a deployment:
Magento shows new reviews only after approval, so only its REST API (with an admin token)
has them; targets that use them score 0 with a warning.
"""

from __future__ import annotations

import html
import json
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit


def local_helpers(db_path: Path, urls: dict[str, str]) -> dict[str, Callable[..., str]]:
    """The helpers for one episode (``db_path`` is its sandbox database)."""

    def query(sql: str, *args: Any) -> list[sqlite3.Row]:
        conn = sqlite3.connect(db_path)
        conn.row_factory = sqlite3.Row
        try:
            return conn.execute(sql, args).fetchall()
        finally:
            conn.close()

    def shopping_get_latest_order_url() -> str:
        rows = query("SELECT id FROM shop_orders ORDER BY id DESC LIMIT 1")
        return f"{urls['shopping']}/sales/order/view/{rows[0]['id']}" if rows else ""

    def _latest_review(sku: str) -> sqlite3.Row | None:
        rows = query(
            "SELECT r.* FROM shop_reviews r JOIN shop_products p ON p.id = r.product_id "
            "WHERE p.sku = ? ORDER BY r.id DESC LIMIT 1",
            sku,
        )
        return rows[0] if rows else None

    def shopping_get_sku_latest_review_author(sku: str) -> str:
        review = _latest_review(sku)
        return review["author"] if review else ""

    def shopping_get_sku_latest_review_rating(sku: str) -> str:
        review = _latest_review(sku)  # Magento reports ratings in percent
        return str(review["rating"] * 20) if review else ""

    def reddit_get_post_url(url: str) -> str:
        match = re.search(r"(/f/[^/]+/\d+)", url)
        return f"{urls['reddit']}{match.group(1)}" if match else url

    def gitlab_get_project_memeber_role(page: Any, username: str) -> str:
        match = re.search(r"/([^/]+)/([^/]+)/-/project_members", page.current_url())
        if not match:
            return ""
        rows = query(
            "SELECT m.role FROM code_members m JOIN code_projects p ON p.id = m.project_id "
            "WHERE p.namespace = ? AND p.name = ? AND m.username = ?",
            match.group(1),
            match.group(2),
            username,
        )
        return rows[0]["role"] if rows else ""

    return {
        "shopping_get_latest_order_url": shopping_get_latest_order_url,
        "shopping_get_sku_latest_review_author": shopping_get_sku_latest_review_author,
        "shopping_get_sku_latest_review_rating": shopping_get_sku_latest_review_rating,
        "reddit_get_post_url": reddit_get_post_url,
        "gitlab_get_project_memeber_role": gitlab_get_project_memeber_role,
    }


def reddit_get_post_url(url: str) -> str:
    """WebArena's: ``scheme://host/f/<forum>/<id>/`` of a post or comment URL, else ``url``."""
    parts = urlsplit(url)
    path = parts.path.split("/")
    if len(path) < 4 or path[1] != "f":
        return url
    return f"{parts.scheme}://{parts.netloc}/f/{path[2]}/{path[3]}/"


_MEMBER_ROLE_JS = """(account) => {
  const text = (el) => (el ? el.innerText || el.textContent || '' : '').trim();
  const names = document.querySelectorAll(
    "td[data-label='Account'] span.gl-avatar-labeled-sublabel");
  const roles = document.querySelectorAll('td.col-max-role span');
  for (let i = 0; i < names.length; i++) {
    if (names[i].outerText === '@' + account) return roles[i] ? roles[i].outerText : '';
  }
  for (const table of document.querySelectorAll('table')) {
    const col = Array.from(table.querySelectorAll('thead th')).map(text)
      .findIndex((h) => /role/i.test(h));
    if (col < 0) continue;
    for (const row of table.querySelectorAll('tbody tr')) {
      const cells = Array.from(row.children).map(text);
      if (cells.some((c) => c === account || c.split(/\\s+/).includes('@' + account))) {
        return cells[col] || '';
      }
    }
  }
  return '';
}"""


def deployment_helpers(browser: Any, urls: dict[str, str]) -> dict[str, Callable[..., str]]:
    """The helpers a user's deployment can answer from its pages. ``browser`` is the
    episode's (``evaluate(expression)`` on the current page, ``fetch(url)`` -> final URL and
    body, with the episode's cookies)."""

    def shopping_get_latest_order_url() -> str:
        if "shopping" not in urls:
            raise LookupError("no URL for the shopping site (site_urls['shopping'])")
        final, body = browser.fetch(urls["shopping"].rstrip("/") + "/sales/order/history/")
        match = re.search(r"""href=["']([^"']*/sales/order/view/[^"']*)["']""", body)
        if not match:
            raise LookupError(f"no order in the order history at {final} (signed in?)")
        return urljoin(final, html.unescape(match.group(1)))

    def gitlab_get_project_memeber_role(page: Any, account: str) -> str:
        value = page.evaluate(f"({_MEMBER_ROLE_JS})({json.dumps(account)})")
        return str(value or "")

    return {
        "shopping_get_latest_order_url": shopping_get_latest_order_url,
        "reddit_get_post_url": reddit_get_post_url,
        "gitlab_get_project_memeber_role": gitlab_get_project_memeber_role,
    }
