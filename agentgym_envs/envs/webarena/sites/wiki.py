"""The wiki (WebArena's ``wikipedia``, a Kiwix-served Wikipedia): the generated encyclopedia
of the SearchQA family, with a main page, full-text search and one page per article. Read
only, shared by every episode."""

from __future__ import annotations

import sqlite3
from urllib.parse import quote

from fastapi import APIRouter, FastAPI
from starlette.requests import Request

from agentgym_envs.envs.webarena.sites.common import DATA, esc, pager, render, site_app

TITLE = "Wikipedia"
PER_PAGE = 20

router = APIRouter()


def _db() -> sqlite3.Connection:
    if DATA.wiki_db is None:
        raise LookupError("the wiki's database is not built")
    conn = sqlite3.connect(f"file:{DATA.wiki_db}?mode=ro", uri=True, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    return conn


def _bar() -> str:
    return (
        '<div class="kiwix-bar"><a class="home" href="/">Wikipedia</a>'
        '<a href="/random">Random article</a>'
        '<form role="search" action="/search" method="get"><input name="pattern" type="search" '
        'aria-label="Search Wikipedia" placeholder="Search Wikipedia">'
        '<button type="submit">Search</button></form></div>'
    )


def _page(title: str, body: str, status: int = 200):
    return render(title, body, _bar(), status, css="wiki")


def article_url(title: str) -> str:
    return "/wiki/" + quote(title.replace(" ", "_"))


@router.get("/")
def main_page(page: int = 1):
    with _db() as db:
        total = db.execute("SELECT COUNT(*) FROM articles").fetchone()[0]
        pages = max(1, -(-total // 100))
        page = min(max(1, page), pages)
        rows = db.execute(
            "SELECT title FROM articles ORDER BY title LIMIT 100 OFFSET ?", ((page - 1) * 100,)
        ).fetchall()
    links = "".join(f'<li><a href="{article_url(r[0])}">{esc(r[0])}</a></li>' for r in rows)
    body = (
        '<h1 class="firstHeading">Welcome to Wikipedia</h1>'
        f"<p>the free encyclopedia that anyone can read: {total:,} articles.</p>"
        f'<h2>All articles</h2><ul class="index">{links}</ul>' + pager("/", page, pages)
    )
    return _page(TITLE, body)


@router.get("/random")
def random_article():
    from starlette.responses import RedirectResponse

    with _db() as db:
        row = db.execute("SELECT title FROM articles ORDER BY random() LIMIT 1").fetchone()
    return RedirectResponse(article_url(row[0]), status_code=303)


@router.get("/wiki/{name:path}")
def article(name: str):
    title = name.replace("_", " ")
    with _db() as db:
        row = db.execute("SELECT * FROM articles WHERE title=?", (title,)).fetchone()
    if row is None:
        return _page(
            "Not found",
            f'<h1 class="firstHeading">{esc(title)}</h1><p>Wikipedia '
            "does not have an article with this exact name.</p>",
            404,
        )
    paras = "".join(_block(p) for p in row["body"].split("\n\n"))
    body = (
        f'<h1 class="firstHeading" id="firstHeading">{esc(title)}</h1>'
        f'<div class="mw-parser-output">{paras}</div>'
    )
    return _page(f"{title} - Wikipedia", body)


def _block(text: str) -> str:
    """A paragraph of an article's body as HTML: ``== Heading ==`` a section heading, lines
    starting ``* `` a list, else a paragraph."""
    if text.startswith("== ") and text.endswith(" =="):
        return f'<h2><span class="mw-headline">{esc(text[3:-3])}</span></h2>'
    lines = text.split("\n")
    if all(line.startswith("* ") for line in lines):
        return "<ul>" + "".join(f"<li>{esc(line[2:])}</li>" for line in lines) + "</ul>"
    return f"<p>{esc(text)}</p>"


@router.get("/search")
def search(request: Request, pattern: str = "", page: int = 1):
    words = [w for w in "".join(c if c.isalnum() else " " for c in pattern).split() if w][:8]
    rows: list[sqlite3.Row] = []
    if words:
        query = " ".join(f'"{w}"' for w in words)
        with _db() as db:
            exact = db.execute("SELECT title FROM articles WHERE title=?", (pattern,)).fetchone()
            rows = db.execute(
                "SELECT a.title, snippet(articles_fts, 1, '', '', ' … ', 16) AS snip FROM "
                "articles_fts JOIN articles a ON a.id = articles_fts.rowid WHERE articles_fts "
                "MATCH ? ORDER BY bm25(articles_fts) LIMIT 200",
                (query,),
            ).fetchall()
        if exact is not None:
            rows.sort(key=lambda r: r["title"] != exact[0])
    pages = max(1, -(-len(rows) // PER_PAGE))
    page = min(max(1, page), pages)
    items = "".join(
        f'<li><a href="{article_url(r["title"])}">{esc(r["title"])}</a>'
        f'<div class="searchresult">{esc(r["snip"])}</div></li>'
        for r in rows[(page - 1) * PER_PAGE : page * PER_PAGE]
    )
    body = (
        f'<h1 class="firstHeading">Search results</h1><p>{len(rows)} results for '
        f'"{esc(pattern)}"</p><div class="searchresults"><ul>{items}</ul></div>'
        + pager("/search", page, pages, pattern=pattern)
    )
    return _page(f"Search: {pattern}", body)


def create_app() -> FastAPI:
    return site_app(router)
