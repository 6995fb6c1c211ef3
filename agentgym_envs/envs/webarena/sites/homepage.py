"""The homepage (WebArena's ``homepage``): links to every site the package serves."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI

from agentgym_envs.envs.webarena.sites.common import esc, render

NAMES = {
    "shopping": ("One Stop Market", "an online shopping site"),
    "shopping_admin": ("Merchant Admin Portal", "the admin of One Stop Market"),
    "reddit": ("Postmill", "a forum"),
    "gitlab": ("GitLab", "a code hosting site"),
}


def create_app(urls: Callable[[], dict[str, str]]) -> FastAPI:
    """``urls()`` gives each site's base URL (known once the server has its ports)."""
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)

    @app.get("/")
    def home():
        sites = urls()
        items = "".join(
            f'<li><a href="{esc(sites[key])}/">{esc(name)}</a> {esc(about)}</li>'
            for key, (name, about) in NAMES.items()
            if key in sites
        )
        return render("Homepage", f"<h1>Websites</h1><ul>{items}</ul>")

    return app
