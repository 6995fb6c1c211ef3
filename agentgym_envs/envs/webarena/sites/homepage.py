"""The homepage (WebArena's ``homepage``): links to every site the package serves."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter, FastAPI
from starlette.requests import Request

from agentgym_envs.envs.webarena.sites.common import esc, render, site_app

NAMES = {
    "shopping": ("One Stop Market", "an online shopping site"),
    "shopping_admin": ("Merchant Admin Portal", "the admin of One Stop Market"),
    "reddit": ("Postmill", "a forum"),
    "gitlab": ("GitLab", "a code hosting site"),
    "wikipedia": ("Wikipedia", "an encyclopedia"),
}

router = APIRouter()


@router.get("/")
def home(request: Request):
    sites = request.app.state.urls()
    items = "".join(
        f'<li><a href="{esc(sites[key])}/">{esc(name)}</a> {esc(about)}</li>'
        for key, (name, about) in NAMES.items()
        if key in sites
    )
    return render("Homepage", f"<h1>Websites</h1><ul>{items}</ul>")


def create_app(urls: Callable[[], dict[str, str]]) -> FastAPI:
    """``urls()`` gives each site's base URL (known once the server has its ports)."""
    app = site_app(router)
    app.state.urls = urls
    return app
