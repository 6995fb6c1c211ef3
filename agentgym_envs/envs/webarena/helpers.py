"""WebArena's evaluator helpers (``func:...`` in ``program_html``), answered from the package's
own sites: the episode's database and its pages."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any


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
