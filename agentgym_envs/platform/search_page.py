"""The dashboard's episode-search page, ``/search``: free text (``?q=``) and "episodes like
this one" (``?like=<episode id>``), over the logged-in user's organisation only (the tenant
session of :mod:`~agentgym_envs.platform.deps`; row-level security shows no other rows).
Each hit links to its episode page and to episodes like it."""

# (no ``from __future__ import annotations``: FastAPI reads the route annotations)
import html
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from agentgym_envs.errors import AgentGymError
from agentgym_envs.platform.deps import credential
from agentgym_envs.platform.embeddings import Embedder
from agentgym_envs.platform.search import (
    MAX_TEXT,
    search_episodes,
    similar_episodes,
    with_executions,
)

#: Hits a page shows.
HITS = 20
_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>agentgym platform · episode search</title>
<style>body{{font:15px system-ui,sans-serif;margin:2rem}}table{{border-collapse:collapse}}
td,th{{padding:.3rem .6rem;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}}
input[name=q]{{width:30rem}}.err{{color:#b00}}pre{{white-space:pre-wrap;margin:0}}</style>
</head><body><p><a href="/">Dashboard</a> · <a href="/logout">Log out</a></p>
<h1>Episode search</h1>
<form method="get" action="/search"><input name="q" value="{q}" maxlength="{max}"
 placeholder="words from observations or actions" aria-label="search text">
<button>Search</button></form>{body}</body></html>"""


def _hits_table(hits: list[dict[str, Any]]) -> str:
    if not hits:
        return "<p>No episodes found.</p>"
    rows = []
    for h in hits:
        eid = html.escape(str(h["episode_id"]))
        link = f'<a href="/episodes/{eid}">{eid}</a>' if eid.isdigit() else eid
        like = f'<a href="/search?like={quote(str(h["episode_id"]), safe="")}">like this one</a>'
        rows.append(
            f'<tr class="hit"><td>{link}</td><td>{html.escape(h["env_id"])}</td>'
            f"<td>{h['similarity']:.3f}</td><td><pre>{html.escape(h['snippet'])}</pre></td>"
            f"<td>{like}</td></tr>"
        )
    return (
        "<table><tr><th>Episode</th><th>Env</th><th>Similarity</th><th>Text</th><th></th></tr>"
        + "".join(rows)
        + "</table>"
    )


def router(tenant_session: Callable[..., Any], embedder: Embedder) -> APIRouter:
    """``GET /search`` (a dashboard page; a login or an API key, the ``read`` permission)."""
    api = APIRouter(tags=["dashboard"])

    @api.get("/search", include_in_schema=False)
    def page(request: Request, q: str = "", like: str = ""):
        here = "/search" + (f"?{request.url.query}" if request.url.query else "")
        if credential(request)[0] is None:
            return RedirectResponse("/login?next=" + quote(here, safe=""), status_code=303)
        q, like = q.strip()[:MAX_TEXT], like.strip()[:200]
        session = tenant_session(request)
        status, body = 200, ""
        try:
            s = next(session)
            if like:
                hits = similar_episodes(s, like, HITS, embedder=embedder)
                body = f"<h2>Episodes like {html.escape(like)}</h2>" + _hits_table(
                    with_executions(s, hits)
                )
            elif q:
                hits = with_executions(s, search_episodes(s, q, HITS, embedder=embedder))
                body = f"<h2>{len(hits)} nearest to “{html.escape(q)}”</h2>" + _hits_table(hits)
        except HTTPException as exc:
            if exc.status_code == 401:
                return RedirectResponse("/login?next=" + quote(here, safe=""), status_code=303)
            raise
        except AgentGymError as exc:  # not indexed (or another organisation's: the same)
            status, body = 404, f'<p class="err" role="alert">{html.escape(str(exc))}</p>'
        finally:
            session.close()
        return HTMLResponse(
            _PAGE.format(q=html.escape(q), max=MAX_TEXT, body=body), status_code=status
        )

    return api


__all__ = ["router"]
