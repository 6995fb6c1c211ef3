"""The forum (WebArena's ``reddit``, a Postmill look-alike): forums, posts, comments, votes
and user profiles with biographies."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, FastAPI
from starlette.requests import Request

from agentgym_envs.envs.webarena.sites.common import (
    Accounts,
    connect,
    esc,
    form,
    login_form,
    not_found,
    redirect,
    render,
    site_app,
)

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


def _nav(request: Request) -> str:
    user = ACCOUNTS.user(request)
    me = (
        f'<a href="/user/{esc(user)}">{esc(user)}</a> <a href="/logout">Log out</a>'
        if user
        else '<a href="/login">Log in</a>'
    )
    return (
        f'<nav aria-label="Site"><a href="/">Postmill</a> <a href="/forums">Forums</a> {me}</nav>'
    )


def _score(db, post_id: int) -> int:
    return db.execute(
        "SELECT COALESCE(SUM(value), 0) FROM forum_votes WHERE post_id=?", (post_id,)
    ).fetchone()[0]


def _vote_form(post_id: int, back: str) -> str:
    return "".join(
        f'<form method="post" action="/vote/{post_id}" style="display:inline">'
        f'<input type="hidden" name="value" value="{v}"><input type="hidden" name="back" '
        f'value="{esc(back)}"><button type="submit">{label}</button></form>'
        for v, label in ((1, "Upvote"), (-1, "Downvote"))
    )


@router.get("/")
@router.get("/forums")
def forums(request: Request):
    with connect(request) as db:
        rows = db.execute("SELECT * FROM forum_forums ORDER BY name").fetchall()
    items = "".join(
        f'<li><a href="/f/{esc(f["name"])}">{esc(f["name"])}</a> {esc(f["description"])}</li>'
        for f in rows
    )
    return render("List of forums", f"<h1>List of forums</h1><ul>{items}</ul>", _nav(request))


@router.get("/f/{forum}")
def forum(request: Request, forum: str, sort: str = "hot"):
    with connect(request) as db:
        f = db.execute("SELECT * FROM forum_forums WHERE name=?", (forum,)).fetchone()
        if f is None:
            return not_found(_nav(request))
        posts = db.execute("SELECT * FROM forum_posts WHERE forum=?", (forum,)).fetchall()
        scored = [
            (
                p,
                _score(db, p["id"]),
                db.execute(
                    "SELECT COUNT(*) FROM forum_comments WHERE post_id=?", (p["id"],)
                ).fetchone()[0],
            )
            for p in posts
        ]
    if sort == "new":
        scored.sort(key=lambda t: t[0]["created"], reverse=True)
    else:
        scored.sort(key=lambda t: (-t[1], t[0]["id"]))
    items = "".join(
        f'<article><h2><a href="/f/{esc(forum)}/{p["id"]}">{esc(p["title"])}</a></h2>'
        f"<p>Submitted by {esc(p['author'])} on {esc(p['created'][:10])}, score {s}</p>"
        f'<a href="/f/{esc(forum)}/{p["id"]}#comments">{c} comments</a> '
        f"{_vote_form(p['id'], f'/f/{forum}?sort={sort}')}</article>"
        for p, s, c in scored
    )
    body = (
        f"<h1>/f/{esc(forum)}</h1><p>{esc(f['description'])}</p>"
        f'<nav aria-label="Sort">Sort by: <a href="/f/{esc(forum)}?sort=hot">Hot</a> '
        f'<a href="/f/{esc(forum)}?sort=new">New</a></nav>'
        f'<a href="/submit/{esc(forum)}">Submit a new post</a>{items}'
    )
    return render(f"/f/{forum}", body, _nav(request))


@router.get("/f/{forum}/{post_id}")
def post(request: Request, forum: str, post_id: int, user: User):
    with connect(request) as db:
        p = db.execute(
            "SELECT * FROM forum_posts WHERE id=? AND forum=?", (post_id, forum)
        ).fetchone()
        if p is None:
            return not_found(_nav(request))
        comments = db.execute(
            "SELECT * FROM forum_comments WHERE post_id=? ORDER BY id", (post_id,)
        ).fetchall()
        score = _score(db, post_id)
        mine = db.execute(
            "SELECT value FROM forum_votes WHERE user=? AND post_id=?", (user or "", post_id)
        ).fetchone()
    listing = "".join(
        f'<article class="comment"><p>{esc(c["author"])} wrote:</p>'
        f"<p>{esc(c['body'])}</p></article>"
        for c in comments
    )
    body = (
        f'<h1 class="submission__title">{esc(p["title"])}</h1>'
        f"<p>Submitted by {esc(p['author'])} in /f/{esc(forum)}</p><p>{esc(p['body'])}</p>"
        f'<div class="submission__vote" data-my-vote="{mine[0] if mine else 0}">'
        f"Score {score} {_vote_form(post_id, f'/f/{forum}/{post_id}')}</div>"
        f'<section id="comments"><h2>{len(comments)} comments</h2>{listing}'
        f'<form method="post" action="/f/{esc(forum)}/{post_id}/comment">'
        '<label>Comment <textarea name="body"></textarea></label> '
        '<button type="submit">Post</button></form></section>'
    )
    return render(p["title"], body, _nav(request))


@router.post("/f/{forum}/{post_id}/comment")
async def comment(request: Request, forum: str, post_id: int, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form(request)
    if data.get("body", "").strip():
        with connect(request) as db:
            db.execute(
                "INSERT INTO forum_comments (post_id, author, body, created) VALUES (?,?,?,?)",
                (post_id, user, data["body"].strip(), "2024-01-01"),
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
    body = (
        f"<h1>Create submission in /f/{esc(forum)}</h1>"
        f'<form method="post" action="/submit/{esc(forum)}">'
        '<label>Title <input name="title" type="text"></label> '
        '<label>Body <textarea name="body"></textarea></label> '
        '<button type="submit">Create submission</button></form>'
    )
    return render("Create submission", body, _nav(request))


@router.post("/submit/{forum}")
async def submit(request: Request, forum: str, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form(request)
    if not data.get("title", "").strip():
        return redirect(f"/submit/{forum}")
    with connect(request) as db:
        cur = db.execute(
            "INSERT INTO forum_posts (forum, author, title, body, created) VALUES (?,?,?,?,?)",
            (forum, user, data["title"].strip(), data.get("body", ""), "2024-01-01T00:00:00"),
        )
        post_id = cur.lastrowid
    return redirect(f"/f/{forum}/{post_id}")


@router.get("/user/{name}")
def user_page(request: Request, name: str, user: User):
    with connect(request) as db:
        u = db.execute("SELECT * FROM forum_users WHERE name=?", (name,)).fetchone()
        if u is None:
            return not_found(_nav(request))
        posts = db.execute(
            "SELECT * FROM forum_posts WHERE author=? ORDER BY id DESC", (name,)
        ).fetchall()
    edit = f'<a href="/user/{esc(name)}/edit_biography">Edit biography</a>' if user == name else ""
    items = "".join(
        f'<li><a href="/f/{esc(p["forum"])}/{p["id"]}">{esc(p["title"])}</a></li>' for p in posts
    )
    body = (
        f"<h1>{esc(name)}</h1><h2>Biography</h2>"
        f'<p class="user-bio__biography">{esc(u["bio"])}</p>{edit}'
        f"<h2>Submissions</h2><ul>{items}</ul>"
    )
    return render(name, body, _nav(request))


@router.get("/user/{name}/edit_biography")
def bio_page(request: Request, name: str, user: User):
    if user != name:
        return redirect(ACCOUNTS.login)
    body = (
        f'<h1>Edit biography</h1><form method="post" action="/user/{esc(name)}/edit_biography">'
        '<label>Biography <textarea name="bio"></textarea></label> '
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
        "Log in", "<h1>Log in</h1>" + login_form(ACCOUNTS.login, "Username", error), _nav(request)
    )


def create_app() -> FastAPI:
    return site_app(ACCOUNTS.router(login_page), router)
