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
    "map": ("OpenStreetMap", "a map with directions"),
}

router = APIRouter()


#: Each site's card colour and initials.
BADGES = {
    "shopping": ("#f26322", "OS"),
    "shopping_admin": ("#373330", "MA"),
    "reddit": ("#1f2a44", "PM"),
    "gitlab": ("#292961", "GL"),
    "wikipedia": ("#54595d", "W"),
    "map": ("#7ebc6f", "OSM"),
}


@router.get("/")
def home(request: Request):
    sites = request.app.state.urls()
    cards = "".join(
        f'<li class="app-card"><a href="{esc(sites[key])}/"><span class="app-badge" '
        f'style="background:{BADGES[key][0]}" aria-hidden="true">{BADGES[key][1]}</span>'
        f'<span class="app-name">{esc(name)}</span></a><p class="app-about">{esc(about)}</p></li>'
        for key, (name, about) in NAMES.items()
        if key in sites
    )
    body = (
        "<h1>Websites</h1><p class='lead'>The sites of this web environment. Open one to start; "
        "the accounts you need are already signed in where a task needs them.</p>"
        f'<ul class="app-grid">{cards}</ul>'
    )
    return render("Homepage", body, css="homepage")


def create_app(urls: Callable[[], dict[str, str]]) -> FastAPI:
    """``urls()`` gives each site's base URL (known once the server has its ports)."""
    app = site_app(router)
    app.state.urls = urls
    return app
