"""The forum (WebArena's ``reddit``, a Postmill look-alike): forums, posts, comments, votes
and user profiles with biographies."""

from __future__ import annotations

import re
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI
from starlette.requests import Request
from starlette.responses import Response

from agentgym_envs.envs.webarena.sites import images
from agentgym_envs.envs.webarena.sites.common import (
    Accounts,
    connect,
    esc,
    form,
    login_form,
    not_found,
    pager,
    redirect,
    render,
    site_app,
)
from agentgym_envs.envs.webarena.sites.photos import IMAGE_PATH

ACCOUNTS = Accounts(
    cookie="forum_session",
    users="forum_users",
    name_column="name",
    login="/login",
    logout="/logout",
    home="/",
    logged_out="/",
    error="Bad credentials.",
)
User = Annotated[str | None, Depends(ACCOUNTS.user)]

router = APIRouter()


PER_PAGE = 25


def _nav(request: Request) -> str:
    user = ACCOUNTS.user(request)
    me = (
        f'<li><a href="/user/{esc(user)}">{esc(user)}</a></li><li><a href="/logout">Log out</a></li>'
        if user
        else '<li><a href="/login">Log in</a></li><li><a href="/registration">Sign up</a></li>'
    )
    return (
        '<nav class="site-nav" aria-label="Site"><ul>'
        '<li class="site-nav__brand"><a href="/">Postmill</a></li>'
        '<li><a href="/forums">Forums</a></li><li><a href="/create_forum">Create forum</a></li>'
        '<li class="site-nav__search"><form role="search" action="/search" method="get">'
        '<input type="search" name="q" aria-label="Search query" placeholder="Search…"></form>'
        f"</li>{me}</ul></nav>"
    )


render = partial(render, css="postmill")


def _score(db, post_id: int) -> int:
    base = db.execute("SELECT base_score FROM forum_posts WHERE id=?", (post_id,)).fetchone()
    votes = db.execute(
        "SELECT COALESCE(SUM(value), 0) FROM forum_votes WHERE post_id=?", (post_id,)
    ).fetchone()[0]
    return (base[0] or 0 if base else 0) + votes


def _vote_form(post_id: int, back: str, mine: int = 0) -> str:
    buttons = "".join(
        f'<form method="post" action="/vote/{post_id}">'
        f'<input type="hidden" name="value" value="{v}"><input type="hidden" name="back" '
        f'value="{esc(back)}"><button class="vote__{cls}" type="submit">{label}</button></form>'
        for v, cls, label in ((1, "up", "Upvote"), (-1, "down", "Downvote"))
    )
    state = {1: " vote--up", -1: " vote--down"}.get(mine, "")
    return f'<div class="vote{state}">{buttons}</div>'


def _link(db, post_id: int) -> str:
    """The submission's URL (link and image posts), else ``""``."""
    row = db.execute("SELECT url FROM forum_post_urls WHERE post_id=?", (post_id,)).fetchone()
    return row[0] if row else ""


def _photo(db, url: str, width: int) -> str:
    """The picture a submission's ``url`` names (one of the forum's images), inline; ``""``
    for any other URL."""
    if not url.startswith(IMAGE_PATH):
        return ""
    row = db.execute(
        "SELECT * FROM forum_images WHERE file=?", (url[len(IMAGE_PATH) :],)
    ).fetchone()
    if row is None:
        return ""
    return images.photo_svg(row["kind"], row["sky"], row["ground"], row["file"], row["alt"], width)


def _link_block(db, url: str, width: int, css: str) -> str:
    """A link post's picture (linked to the image), or its URL as a link."""
    if not url:
        return ""
    photo = _photo(db, url, width)
    if photo:
        return f'<a class="{css}" href="{esc(url)}">{photo}</a>'
    return f'<p class="submission__url"><a href="{esc(url)}">{esc(url)}</a></p>'


def _submission(db, p, back: str, user: str | None) -> str:
    comments = db.execute(
        "SELECT COUNT(*) FROM forum_comments WHERE post_id=?", (p["id"],)
    ).fetchone()[0]
    mine = db.execute(
        "SELECT value FROM forum_votes WHERE user=? AND post_id=?", (user or "", p["id"])
    ).fetchone()
    url = f"/f/{esc(p['forum'])}/{p['id']}"
    thumb = _link_block(db, _link(db, p["id"]), 120, "submission__thumbnail")
    return (
        f'<article class="submission">{_vote_form(p["id"], back, mine[0] if mine else 0)}'
        f'{thumb}<div class="submission__inner"><h2 class="submission__title"><a href="{url}">'
        f"{esc(p['title'])}</a></h2>"
        f'<p class="submission__info">Submitted by <a href="/user/{esc(p["author"])}">'
        f"{esc(p['author'])}</a> on <time>{esc(p['created'][:16])}</time> in "
        f'<a href="/f/{esc(p["forum"])}">/f/{esc(p["forum"])}</a> · '
        f'<span class="vote__net-score">{_score(db, p["id"])}</span> points</p>'
        f'<nav class="submission__nav"><a href="{url}#comments">{comments} comments</a></nav>'
        "</div></article>"
    )


def _sidebar(f, subscribe: str = "") -> str:
    return (
        f'<aside class="sidebar"><section><h2>/f/{esc(f["name"])}</h2><p>{esc(f["description"])}'
        f'</p>{subscribe}<p><a class="button" href="/submit/{esc(f["name"])}">Submit a new post'
        "</a></p>"
        f"<p>Created {esc(f['created'])} by {esc(f['creator'] or 'admin')}</p></section></aside>"
    )


def subscribe_form(db, user: str | None, forum: str, back: str) -> str:
    """The forum's Subscribe (or Unsubscribe) button for the signed-in user."""
    if not user:
        return ""
    on = db.execute(
        "SELECT 1 FROM forum_subscriptions WHERE user=? AND forum=?", (user, forum)
    ).fetchone()
    label = "Unsubscribe" if on else "Subscribe"
    return (
        f'<form method="post" action="/f/{esc(forum)}/subscribe"><input type="hidden" '
        f'name="back" value="{esc(back)}"><input type="hidden" name="on" value="{int(not on)}">'
        f'<button class="subscribe-button" type="submit">{label}</button></form>'
    )


def subscriptions_section(db, user: str | None) -> str:
    """The front page sidebar's first section: the forums the signed-in user subscribes to."""
    if not user:
        return ""
    names = [
        r[0]
        for r in db.execute(
            "SELECT forum FROM forum_subscriptions WHERE user=? ORDER BY forum", (user,)
        )
    ]
    items = "".join(f'<li><a href="/f/{esc(n)}">{esc(n)}</a></li>' for n in names)
    listing = f"<ul>{items}</ul>" if names else "<p>None yet.</p>"
    return f"<section><h2>Subscribed forums</h2>{listing}</section>"


@router.post("/f/{forum}/subscribe")
async def subscribe(request: Request, forum: str, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form(request)
    with connect(request) as db:
        db.execute("DELETE FROM forum_subscriptions WHERE user=? AND forum=?", (user, forum))
        if data.get("on") == "1":
            db.execute("INSERT INTO forum_subscriptions VALUES (?,?)", (user, forum))
    back = data.get("back", "")
    return redirect(back if back.startswith("/") else f"/f/{forum}")


@router.get("/")
def front(request: Request, user: User, page: int = 1):
    with connect(request) as db:
        rows = db.execute(
            "SELECT * FROM forum_posts ORDER BY created DESC, id DESC LIMIT ? OFFSET ?",
            (PER_PAGE, (max(1, page) - 1) * PER_PAGE),
        ).fetchall()
        total = db.execute("SELECT COUNT(*) FROM forum_posts").fetchone()[0]
        items = "".join(_submission(db, p, "/", user) for p in rows)
        subscriptions = subscriptions_section(db, user)
    pages = max(1, -(-total // PER_PAGE))
    body = (
        '<div class="content-with-sidebar"><div class="content">'
        '<h1 class="page-heading">Submissions</h1>'
        f"{items}{pager('/', min(page, pages), pages)}</div>"
        f'<aside class="sidebar" id="sidebar">{subscriptions}<section><h2>Postmill</h2>'
        '<p>A forum of forums.</p><p><a href="/forums">Forums</a></p></section></aside></div>'
    )
    return render("Postmill", body, _nav(request))


@router.get("/forums")
def forums(request: Request, page: int = 1):
    with connect(request) as db:
        rows = db.execute(
            "SELECT f.*, (SELECT COUNT(*) FROM forum_posts p WHERE p.forum = f.name) AS n "
            "FROM forum_forums f ORDER BY f.name"
        ).fetchall()
    pages = max(1, -(-len(rows) // 50))
    page = min(max(1, page), pages)
    cells = "".join(
        f'<tr><td><a href="/f/{esc(f["name"])}">{esc(f["name"])}</a></td>'
        f"<td>{esc(f['title'])}</td><td>{f['n']}</td></tr>"
        for f in rows[(page - 1) * 50 : page * 50]
    )
    body = (
        '<h1 class="page-heading">List of forums</h1><table class="forum-list"><thead><tr>'
        f"<th>Name</th><th>Title</th><th>Submissions</th></tr></thead><tbody>{cells}</tbody>"
        f"</table>{pager('/forums', page, pages)}"
    )
    return render("List of forums", body, _nav(request))


@router.get("/f/{forum}")
def forum(request: Request, forum: str, user: User, sort: str = "hot", page: int = 1):
    order = {
        "new": "created DESC, id DESC",
        "top": "(base_score + COALESCE((SELECT SUM(value) FROM forum_votes v WHERE "
        "v.post_id = forum_posts.id), 0)) DESC, id",
        "hot": "(base_score + COALESCE((SELECT SUM(value) FROM forum_votes v WHERE "
        "v.post_id = forum_posts.id), 0)) / (julianday('2023-08-01') - julianday(created) + 2) "
        "DESC, id",
    }
    sort = sort if sort in order else "hot"
    with connect(request) as db:
        f = db.execute("SELECT * FROM forum_forums WHERE name=?", (forum,)).fetchone()
        if f is None:
            return not_found(_nav(request))
        total = db.execute("SELECT COUNT(*) FROM forum_posts WHERE forum=?", (forum,)).fetchone()[0]
        pages = max(1, -(-total // PER_PAGE))
        page = min(max(1, page), pages)
        rows = db.execute(
            f"SELECT * FROM forum_posts WHERE forum=? ORDER BY {order[sort]} LIMIT ? OFFSET ?",
            (forum, PER_PAGE, (page - 1) * PER_PAGE),
        ).fetchall()
        back = f"/f/{forum}?sort={sort}"
        items = "".join(_submission(db, p, back, user) for p in rows)
        subscribe = subscribe_form(db, user, forum, back)
        side = _sidebar_text(db, forum)
        if side:
            subscribe += f'<div class="forum-sidebar">{esc(side)}</div>'
        if user and user == f["creator"]:
            subscribe += f'<p><a href="/f/{esc(forum)}/edit">Edit forum</a></p>'
    tabs = "".join(
        f'<li><a class="{"active" if s == sort else ""}" href="/f/{esc(forum)}?sort={s}">'
        f"{s.capitalize()}</a></li>"
        for s in ("hot", "new", "top")
    )
    body = (
        '<div class="content-with-sidebar"><div class="content">'
        f'<h1 class="page-heading">/f/{esc(forum)}</h1>'
        f'<ul class="tabs" aria-label="Sort">{tabs}</ul>{items}'
        f"{pager(f'/f/{forum}', page, pages, sort=sort)}</div>{_sidebar(f, subscribe)}</div>"
    )
    return render(f"/f/{forum}", body, _nav(request))


#: Comments with their up and down vote counts (``up``, ``down``).
COMMENTS_WITH_VOTES = (
    "SELECT c.*, COALESCE(v.up, 0) AS up, COALESCE(v.down, 0) AS down FROM forum_comments c "
    "LEFT JOIN forum_comment_votes v ON v.comment_id = c.id"
)


def _votes(c) -> str:
    return f'<span class="comment__votes">{c["up"]} upvotes, {c["down"]} downvotes</span>'


def _thread(comments) -> str:
    """The comments as Postmill shows them: replies nested under the comment they answer."""
    children: dict[int | None, list[Any]] = {}
    ids = {c["id"] for c in comments}
    for c in comments:
        parent = c["parent_id"]
        children.setdefault(parent if parent in ids else None, []).append(c)

    def render_one(c, depth: int) -> str:
        replies = "".join(render_one(r, depth + 1) for r in children.get(c["id"], []))
        nested = f'<div class="comment__replies">{replies}</div>' if replies else ""
        return (
            f'<article class="comment comment--depth-{min(depth, 6)}" id="comment-{c["id"]}">'
            f'<p class="comment__info"><a href="/user/{esc(c["author"])}">'
            f"{esc(c['author'])}</a> wrote on {esc(c['created'][:16])} · {_votes(c)}</p>"
            f'<div class="comment__body">{esc(c["body"])}</div>{nested}</article>'
        )

    return "".join(render_one(c, 0) for c in children.get(None, []))


@router.get("/f/{forum}/edit")
def edit_forum_page(request: Request, forum: str, user: User):
    """The forum's settings (its creator's): title, description and sidebar."""
    with connect(request) as db:
        f = db.execute("SELECT * FROM forum_forums WHERE name=?", (forum,)).fetchone()
        side = _sidebar_text(db, forum)
    if f is None or user is None or user != f["creator"]:
        return redirect(ACCOUNTS.login)
    body = (
        f'<h1 class="page-heading">Edit forum /f/{esc(forum)}</h1>'
        f'<form method="post" action="/f/{esc(forum)}/edit"><div class="form-row"><label '
        f'for="forum_title">Title</label><input id="forum_title" name="title" type="text" '
        f'value="{esc(f["title"])}"></div><div class="form-row"><label for="forum_description">'
        f'Description</label><textarea id="forum_description" name="description">'
        f'{esc(f["description"])}</textarea></div><div class="form-row"><label '
        f'for="forum_sidebar">Sidebar</label><textarea id="forum_sidebar" name="sidebar">'
        f'{esc(side)}</textarea></div><button type="submit">Save</button></form>'
    )
    return render(f"Edit forum /f/{forum}", body, _nav(request))


@router.post("/f/{forum}/edit")
async def edit_forum(request: Request, forum: str, user: User):
    data = await form(request)
    with connect(request) as db:
        done = db.execute(
            "UPDATE forum_forums SET title=?, description=? WHERE name=? AND creator=?",
            (data.get("title", ""), data.get("description", ""), forum, user or ""),
        ).rowcount
        if done:
            db.execute("DELETE FROM forum_sidebars WHERE forum=?", (forum,))
            db.execute("INSERT INTO forum_sidebars VALUES (?,?)", (forum, data.get("sidebar", "")))
    return redirect(f"/f/{forum}")


def _sidebar_text(db, forum: str) -> str:
    row = db.execute("SELECT sidebar FROM forum_sidebars WHERE forum=?", (forum,)).fetchone()
    return row[0] if row else ""


@router.get("/f/{forum}/{post_id}")
def post(request: Request, forum: str, post_id: int, user: User):
    with connect(request) as db:
        p = db.execute(
            "SELECT * FROM forum_posts WHERE id=? AND forum=?", (post_id, forum)
        ).fetchone()
        f = db.execute("SELECT * FROM forum_forums WHERE name=?", (forum,)).fetchone()
        if p is None or f is None:
            return not_found(_nav(request))
        comments = db.execute(
            f"{COMMENTS_WITH_VOTES} WHERE c.post_id=? ORDER BY c.id", (post_id,)
        ).fetchall()
        score = _score(db, post_id)
        subscribe = subscribe_form(db, user, forum, f"/f/{forum}/{post_id}")
        mine = db.execute(
            "SELECT value FROM forum_votes WHERE user=? AND post_id=?", (user or "", post_id)
        ).fetchone()
        link = _link_block(db, _link(db, post_id), 480, "submission__image")
    listing = _thread(comments)
    back = f"/f/{forum}/{post_id}"
    edit = f' · <a href="/f/{esc(forum)}/{post_id}/edit">Edit</a>' if user == p["author"] else ""
    body = (
        '<div class="content-with-sidebar"><div class="content">'
        f'<article class="submission"><div class="submission__vote" data-my-vote='
        f'"{mine[0] if mine else 0}">{_vote_form(post_id, back, mine[0] if mine else 0)}'
        f'<span class="vote__net-score">{score}</span></div><div class="submission__inner">'
        f'<h1 class="submission__title">{esc(p["title"])}</h1>'
        f'<p class="submission__info">Submitted by <a href="/user/{esc(p["author"])}">'
        f"{esc(p['author'])}</a> on {esc(p['created'][:16])} in "
        f'<a href="/f/{esc(forum)}">/f/{esc(forum)}</a>{edit}</p>{link}'
        f'<div class="submission__body">{esc(p["body"])}</div></div></article>'
        f'<section id="comments"><h2>{len(comments)} comments</h2>'
        f'<form method="post" action="/f/{esc(forum)}/{post_id}/comment">'
        '<div class="form-row"><label for="comment">Comment</label>'
        '<textarea id="comment" name="body"></textarea></div>'
        f'<button type="submit">Post</button></form>{listing}</section></div>'
        f"{_sidebar(f, subscribe)}</div>"
    )
    return render(p["title"], body, _nav(request))


@router.get("/f/{forum}/{post_id}/edit")
def edit_page(request: Request, forum: str, post_id: int, user: User):
    with connect(request) as db:
        p = db.execute(
            "SELECT * FROM forum_posts WHERE id=? AND forum=?", (post_id, forum)
        ).fetchone()
    if p is None or user != p["author"]:
        return redirect(ACCOUNTS.login)
    body = (
        '<h1 class="page-heading">Edit submission</h1>'
        f'<form method="post" action="/f/{esc(forum)}/{post_id}/edit">'
        '<div class="form-row"><label for="title">Title</label><input id="title" name="title" '
        f'type="text" value="{esc(p["title"])}"></div><div class="form-row"><label for="body">'
        f'Body</label><textarea id="body" name="body">{esc(p["body"])}</textarea></div>'
        '<button type="submit">Edit submission</button></form>'
    )
    return render("Edit submission", body, _nav(request))


@router.post("/f/{forum}/{post_id}/edit")
async def edit_post(request: Request, forum: str, post_id: int, user: User):
    data = await form(request)
    with connect(request) as db:
        db.execute(
            "UPDATE forum_posts SET title=?, body=? WHERE id=? AND forum=? AND author=?",
            (data.get("title", "").strip(), data.get("body", ""), post_id, forum, user or ""),
        )
    return redirect(f"/f/{forum}/{post_id}")


@router.get("/create_forum")
def create_forum_page(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    body = (
        '<h1 class="page-heading">Create forum</h1><form method="post" action="/create_forum">'
        '<div class="form-row"><label for="name">Name</label><input id="name" name="name" '
        'type="text"></div><div class="form-row"><label for="title">Title</label><input '
        'id="title" name="title" type="text"></div><div class="form-row"><label for="desc">'
        'Description</label><textarea id="desc" name="description"></textarea></div>'
        '<div class="form-row"><label for="sidebar">Sidebar</label><textarea id="sidebar" '
        'name="sidebar"></textarea></div><button type="submit">Create forum</button></form>'
    )
    return render("Create forum", body, _nav(request))


@router.post("/create_forum")
async def create_forum(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form(request)
    name = data.get("name", "").strip()
    if not name or not all(c.isalnum() or c == "_" for c in name):
        return redirect("/create_forum")
    with connect(request) as db:
        db.execute(
            "INSERT OR IGNORE INTO forum_forums VALUES (?,?,?,?,?)",
            (name, data.get("title", name), data.get("description", ""), "2024-01-01", user),
        )
        if data.get("sidebar", "").strip():
            db.execute(
                "INSERT INTO forum_sidebars SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM "
                "forum_sidebars WHERE forum=?)",
                (name, data["sidebar"], name),
            )
    return redirect(f"/f/{name}")


@router.get("/search")
def search(request: Request, user: User, q: str = "", page: int = 1):
    words = [w for w in q.lower().split() if w][:6]
    with connect(request) as db:
        rows = (
            db.execute(
                "SELECT * FROM forum_posts WHERE "
                + " AND ".join("lower(title) LIKE ?" for _ in words)
                + " ORDER BY created DESC LIMIT 500",
                [f"%{w}%" for w in words],
            ).fetchall()
            if words
            else []
        )
        pages = max(1, -(-len(rows) // PER_PAGE))
        page = min(max(1, page), pages)
        items = "".join(
            _submission(db, p, f"/search?q={q}", user)
            for p in rows[(page - 1) * PER_PAGE : page * PER_PAGE]
        )
    body = (
        f'<h1 class="page-heading">Search results for "{esc(q)}"</h1><p>{len(rows)} results</p>'
        + items
        + pager("/search", page, pages, q=q)
    )
    return render(f"Search: {q}", body, _nav(request))


@router.post("/f/{forum}/{post_id}/comment")
async def comment(request: Request, forum: str, post_id: int, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form(request)
    if data.get("body", "").strip():
        with connect(request) as db:
            db.execute(
                "INSERT INTO forum_comments (post_id, author, body, created) VALUES (?,?,?,?)",
                (post_id, user, data["body"].strip(), "2024-01-01 00:00:00"),
            )
    return redirect(f"/f/{forum}/{post_id}")


@router.post("/vote/{post_id}")
async def vote(request: Request, post_id: int, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form(request)
    value = 1 if data.get("value") == "1" else -1
    with connect(request) as db:
        db.execute("INSERT OR REPLACE INTO forum_votes VALUES (?,?,?)", (user, post_id, value))
    back = data.get("back", "/")
    return redirect(back if back.startswith("/") else "/")


@router.get("/submit/{forum}")
def submit_page(request: Request, forum: str, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    return _submit_form(request, forum)


def _submit_form(request: Request, forum: str, data: dict[str, str] | None = None, error: str = ""):
    """Postmill's submission form: a URL (a link or an image post), a title and a body."""
    data = data or {}
    note = f'<div class="alert alert--error" role="alert">{esc(error)}</div>' if error else ""
    body = (
        f'<h1 class="page-heading">Create submission in /f/{esc(forum)}</h1>{note}'
        f'<form method="post" action="/submit/{esc(forum)}">'
        '<div class="form-row"><label for="url">URL</label><input id="url" name="url" '
        f'type="url" value="{esc(data.get("url", ""))}"></div>'
        '<div class="form-row"><label for="title">Title</label><input id="title" name="title" '
        f'type="text" value="{esc(data.get("title", ""))}"></div>'
        '<div class="form-row"><label for="body">Body</label>'
        f'<textarea id="body" name="body">{esc(data.get("body", ""))}</textarea></div>'
        '<button type="submit">Create submission</button></form>'
    )
    return render("Create submission", body, _nav(request), status=400 if error else 200)


_IMAGE_FILE = re.compile(re.escape(IMAGE_PATH) + r"([0-9a-f]{64}\.svg)$")


def _submitted_url(raw: str) -> str | None:
    """The URL to keep for a submission: the forum's own images by their path (whatever host
    the agent saw them under), any other http(s) URL as given; None when it is not a URL."""
    raw = raw.strip()
    if not raw:
        return ""
    if not raw.startswith(("http://", "https://", "/")) or any(c.isspace() for c in raw):
        return None
    found = _IMAGE_FILE.search(raw.split("?", 1)[0].split("#", 1)[0])
    return IMAGE_PATH + found.group(1) if found else raw


@router.get(IMAGE_PATH + "{name}")
def submission_image(request: Request, name: str):
    """One of the forum's images (an SVG drawn from its row: see :mod:`.photos`)."""
    with connect(request) as db:
        photo = _photo(db, IMAGE_PATH + name, 640)
    if not photo:
        return Response("not found", status_code=404, media_type="text/plain")
    return Response(photo, media_type="image/svg+xml", headers={"Cache-Control": "max-age=3600"})


@router.post("/submit/{forum}")
async def submit(request: Request, forum: str, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form(request)
    link = _submitted_url(data.get("url", ""))
    if link is None:
        return _submit_form(
            request, forum, data, "The URL must start with http:// or https:// (or be left empty)."
        )
    if not data.get("title", "").strip():
        return redirect(f"/submit/{forum}")
    with connect(request) as db:
        cur = db.execute(
            "INSERT INTO forum_posts (forum, author, title, body, created, base_score) "
            "VALUES (?,?,?,?,?,?)",
            (forum, user, data["title"].strip(), data.get("body", ""), "2024-01-01 00:00:00", 1),
        )
        post_id = cur.lastrowid
        if link:
            db.execute("INSERT INTO forum_post_urls VALUES (?,?)", (post_id, link))
    return redirect(f"/f/{forum}/{post_id}")


@router.get("/user/{name}")
def user_page(request: Request, name: str, user: User):
    with connect(request) as db:
        u = db.execute("SELECT * FROM forum_users WHERE name=?", (name,)).fetchone()
        if u is None:
            return not_found(_nav(request))
        posts = db.execute(
            "SELECT * FROM forum_posts WHERE author=? ORDER BY id DESC LIMIT 50", (name,)
        ).fetchall()
        comments = db.execute(
            "SELECT c.*, p.forum, COALESCE(v.up, 0) AS up, COALESCE(v.down, 0) AS down "
            "FROM forum_comments c JOIN forum_posts p ON p.id = c.post_id LEFT JOIN "
            "forum_comment_votes v ON v.comment_id = c.id WHERE c.author=? "
            "ORDER BY c.id DESC LIMIT 50",
            (name,),
        ).fetchall()
    edit = f'<a href="/user/{esc(name)}/edit_biography">Edit biography</a>' if user == name else ""
    items = "".join(
        f'<li><a href="/f/{esc(p["forum"])}/{p["id"]}">{esc(p["title"])}</a></li>' for p in posts
    )
    notes = "".join(
        f'<li><a href="/f/{esc(c["forum"])}/{c["post_id"]}#comment-{c["id"]}">'
        f"{esc(c['body'][:80])}</a> {_votes(c)}</li>"
        for c in comments
    )
    body = (
        '<div class="content-with-sidebar"><div class="content">'
        f'<h1 class="page-heading">{esc(name)}</h1><h2>Submissions</h2><ul>{items}</ul>'
        f'<h2>Comments</h2><ul class="user-comments">{notes}</ul></div>'
        '<aside class="sidebar"><section><h2>Biography</h2>'
        f'<p class="user-bio__biography">{esc(u["bio"])}</p>{edit}'
        f"<p>Registered {esc(u['created'])}</p></section></aside></div>"
    )
    return render(name, body, _nav(request))


@router.get("/user/{name}/edit_biography")
def bio_page(request: Request, name: str, user: User):
    if user != name:
        return redirect(ACCOUNTS.login)
    body = (
        '<h1 class="page-heading">Edit biography</h1>'
        f'<form method="post" action="/user/{esc(name)}/edit_biography">'
        '<div class="form-row"><label for="bio">Biography</label>'
        '<textarea id="bio" name="bio"></textarea></div>'
        '<button type="submit">Save</button></form>'
    )
    return render("Edit biography", body, _nav(request))


@router.post("/user/{name}/edit_biography")
async def save_bio(request: Request, name: str, user: User):
    if user != name:
        return redirect(ACCOUNTS.login)
    data = await form(request)
    with connect(request) as db:
        db.execute("UPDATE forum_users SET bio=? WHERE name=?", (data.get("bio", ""), name))
    return redirect(f"/user/{name}")


def login_page(request: Request, error: str = ""):
    return render(
        "Log in",
        '<section class="login-box"><h1 class="page-heading">Log in</h1>'
        + login_form(ACCOUNTS.login, "Username", error)
        + '<p class="login-help">Forgot your password? Ask a moderator.</p></section>',
        _nav(request),
    )


def create_app() -> FastAPI:
    return site_app(ACCOUNTS.router(login_page), router)
