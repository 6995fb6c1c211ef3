"""The code-hosting site (WebArena's ``gitlab``): projects, issues with labels, merge
requests, commits, members and a to-do list."""

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
    paged_table,
    qs,
    redirect,
    render,
    site_app,
    table,
)
from agentgym_envs.envs.webarena.sites.data import LABELS, ROLES

ACCOUNTS = Accounts(
    cookie="code_session",
    users="code_users",
    name_column="username",
    login="/users/sign_in",
    logout="/users/sign_out",
    home="/",
    logged_out="/users/sign_in",
    error="Invalid login or password.",
)
User = Annotated[str | None, Depends(ACCOUNTS.user)]
PER_PAGE = 20

router = APIRouter()


def _nav(request: Request) -> str:
    user = ACCOUNTS.user(request)
    me = (
        f'<a href="/dashboard/todos">To-Do List</a> <span>{esc(user)}</span> '
        '<a href="/users/sign_out">Sign out</a>'
        if user
        else '<a href="/users/sign_in">Sign in</a>'
    )
    return f'<nav aria-label="Main"><a href="/">Projects</a> {me}</nav>'


def _project(db, ns: str, name: str):
    return db.execute(
        "SELECT * FROM code_projects WHERE namespace=? AND name=?", (ns, name)
    ).fetchone()


def _missing(request: Request):
    return render("Not Found", "<h1>404: Page not found</h1>", _nav(request), 404)


def login_page(request: Request, error: str = ""):
    return render(
        "Sign in · GitLab", "<h1>Sign in</h1>" + login_form(ACCOUNTS.login, "Username", error)
    )


@router.get("/")
def projects(request: Request):
    with connect(request) as db:
        rows = db.execute("SELECT * FROM code_projects ORDER BY id").fetchall()
    items = "".join(
        f'<li><a href="/{esc(p["namespace"])}/{esc(p["name"])}">{esc(p["namespace"])} / '
        f"{esc(p['name'])}</a> {esc(p['description'])}</li>"
        for p in rows
    )
    return render(
        "Projects · Dashboard · GitLab", f"<h1>Projects</h1><ul>{items}</ul>", _nav(request)
    )


@router.get("/dashboard/todos")
def todos(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        rows = db.execute(
            "SELECT t.*, p.namespace, p.name FROM code_todos t JOIN code_projects p ON "
            "p.id=t.project_id WHERE t.username=? AND t.state='pending'",
            (user,),
        ).fetchall()
    items = "".join(
        f"<li>{esc(t['body'])} ({esc(t['namespace'])}/{esc(t['name'])} {esc(t['target'])})</li>"
        for t in rows
    )
    return render("To-Do List · GitLab", f"<h1>To-Do List</h1><ul>{items}</ul>", _nav(request))


@router.get("/{ns}/{name}")
def project(request: Request, ns: str, name: str):
    with connect(request) as db:
        p = _project(db, ns, name)
        if p is None:
            return _missing(request)
        n_open = db.execute(
            "SELECT COUNT(*) FROM code_issues WHERE project_id=? AND state='opened'", (p["id"],)
        ).fetchone()[0]
        n_mr = db.execute(
            "SELECT COUNT(*) FROM code_merge_requests WHERE project_id=? AND state='opened'",
            (p["id"],),
        ).fetchone()[0]
    base = f"/{esc(ns)}/{esc(name)}"
    body = (
        f"<h1>{esc(name)}</h1><p>{esc(p['description'])}</p><p>Stars: {p['stars']}</p>"
        f'<nav aria-label="Project"><a href="{base}/-/issues">Issues</a> '
        f'<a href="{base}/-/merge_requests">Merge requests</a> '
        f'<a href="{base}/-/commits">Commits</a> '
        f'<a href="{base}/-/project_members">Members</a></nav>'
        f"<p>Open issues: {n_open}</p><p>Open merge requests: {n_mr}</p>"
    )
    return render(f"{ns} / {name} · GitLab", body, _nav(request))


def _issue_cells(base: str):
    return lambda i: [
        f'<a href="{base}/{i["iid"]}">{esc(i["title"])}</a>',
        f"#{i['iid']}",
        esc(i["labels"].replace(",", ", ")),
        esc(i["author"]),
    ]


@router.get("/{ns}/{name}/-/issues")
def issues(
    request: Request,
    ns: str,
    name: str,
    state: str = "opened",
    label_name: str = "",
    search: str = "",
    page: int = 1,
):
    with connect(request) as db:
        p = _project(db, ns, name)
        if p is None:
            return _missing(request)
        rows = db.execute(
            "SELECT * FROM code_issues WHERE project_id=? ORDER BY iid DESC", (p["id"],)
        ).fetchall()
    rows = [
        i
        for i in rows
        if (state == "all" or i["state"] == state)
        and (not label_name or label_name in i["labels"].split(","))
        and search.lower() in i["title"].lower()
    ]
    base = f"/{esc(ns)}/{esc(name)}/-/issues"
    states = " ".join(
        f'<a href="{base}?{qs(state=s, label_name=label_name)}">{s.capitalize()}</a>'
        for s in ("opened", "closed", "all")
    )
    labels = " ".join(f'<a href="{base}?{qs(label_name=lab)}">{lab}</a>' for lab in LABELS)
    body = (
        f'<h1>Issues</h1><nav aria-label="State">{states}</nav>'
        f'<nav aria-label="Labels">Labels: {labels}</nav>'
        f'<a href="{base}/new">New issue</a>'
        + paged_table(
            rows,
            page,
            PER_PAGE,
            ["Title", "ID", "Labels", "Author"],
            _issue_cells(base),
            base,
            state=state,
            label_name=label_name,
            search=search,
        )
    )
    return render(f"Issues · {ns} / {name} · GitLab", body, _nav(request))


@router.get("/{ns}/{name}/-/issues/new")
def new_issue_page(request: Request, ns: str, name: str, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    body = (
        f'<h1>New Issue</h1><form method="post" action="/{esc(ns)}/{esc(name)}/-/issues/new">'
        '<label>Title <input name="title" type="text"></label> '
        '<label>Description <textarea name="body"></textarea></label> '
        '<button type="submit">Create issue</button></form>'
    )
    return render(f"New Issue · {ns} / {name} · GitLab", body, _nav(request))


@router.post("/{ns}/{name}/-/issues/new")
async def new_issue(request: Request, ns: str, name: str, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form(request)
    with connect(request) as db:
        p = _project(db, ns, name)
        if p is None or not data.get("title", "").strip():
            return redirect(f"/{ns}/{name}/-/issues/new")
        iid = db.execute(
            "SELECT COALESCE(MAX(iid), 0) + 1 FROM code_issues WHERE project_id=?", (p["id"],)
        ).fetchone()[0]
        db.execute(
            "INSERT INTO code_issues (project_id, iid, title, body, state, labels, "
            "author, created) VALUES (?,?,?,?,?,?,?,?)",
            (
                p["id"],
                iid,
                data["title"].strip(),
                data.get("body", ""),
                "opened",
                "",
                user,
                "2024-01-01",
            ),
        )
    return redirect(f"/{ns}/{name}/-/issues/{iid}")


@router.get("/{ns}/{name}/-/issues/{iid}")
def issue(request: Request, ns: str, name: str, iid: int):
    with connect(request) as db:
        p = _project(db, ns, name)
        i = (
            p
            and db.execute(
                "SELECT * FROM code_issues WHERE project_id=? AND iid=?", (p["id"], iid)
            ).fetchone()
        )
    if not i:
        return _missing(request)
    action = "close" if i["state"] == "opened" else "reopen"
    body = (
        f"<h1>{esc(i['title'])}</h1><p>Status: <span class='issue-state'>"
        f"{'Open' if i['state'] == 'opened' else 'Closed'}</span></p>"
        f"<p>Labels: {esc(i['labels'].replace(',', ', ') or 'None')}</p>"
        f"<p>{esc(i['body'])}</p>"
        f'<form method="post" action="/{esc(ns)}/{esc(name)}/-/issues/{iid}/{action}">'
        f'<button type="submit">{action.capitalize()} issue</button></form>'
    )
    return render(f"{i['title']} (#{iid}) · Issues · GitLab", body, _nav(request))


@router.post("/{ns}/{name}/-/issues/{iid}/{action}")
def set_state(request: Request, ns: str, name: str, iid: int, action: str, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    state = {"close": "closed", "reopen": "opened"}.get(action)
    with connect(request) as db:
        p = _project(db, ns, name)
        if p is not None and state:
            db.execute(
                "UPDATE code_issues SET state=? WHERE project_id=? AND iid=?",
                (state, p["id"], iid),
            )
    return redirect(f"/{ns}/{name}/-/issues/{iid}")


@router.get("/{ns}/{name}/-/merge_requests")
def merge_requests(request: Request, ns: str, name: str):
    with connect(request) as db:
        p = _project(db, ns, name)
        if p is None:
            return _missing(request)
        rows = db.execute(
            "SELECT * FROM code_merge_requests WHERE project_id=? ORDER BY iid DESC", (p["id"],)
        ).fetchall()
    cells = [
        [
            esc(m["title"]),
            f"!{m['iid']}",
            esc(m["state"]),
            esc(m["author"]),
            f"{esc(m['source_branch'])} into {esc(m['target_branch'])}",
        ]
        for m in rows
    ]
    body = "<h1>Merge requests</h1>" + table(["Title", "ID", "State", "Author", "Branches"], cells)
    return render(f"Merge requests · {ns} / {name} · GitLab", body, _nav(request))


@router.get("/{ns}/{name}/-/commits")
def commits(request: Request, ns: str, name: str, page: int = 1):
    with connect(request) as db:
        p = _project(db, ns, name)
        if p is None:
            return _missing(request)
        rows = db.execute(
            "SELECT * FROM code_commits WHERE project_id=? ORDER BY day DESC, id DESC",
            (p["id"],),
        ).fetchall()
    body = "<h1>Commits</h1>" + paged_table(
        rows,
        page,
        40,
        ["Message", "Author", "Date", "SHA"],
        lambda c: [esc(c["message"]), esc(c["author"]), esc(c["day"]), esc(c["sha"][:8])],
        f"/{esc(ns)}/{esc(name)}/-/commits",
    )
    return render(f"Commits · {ns} / {name} · GitLab", body, _nav(request))


@router.get("/{ns}/{name}/-/project_members")
def members(request: Request, ns: str, name: str):
    with connect(request) as db:
        p = _project(db, ns, name)
        if p is None:
            return _missing(request)
        rows = db.execute(
            "SELECT * FROM code_members WHERE project_id=? ORDER BY rowid", (p["id"],)
        ).fetchall()
    radios = "".join(
        f'<label><input type="radio" name="role" value="{r}"'
        f"{' checked' if r == 'Guest' else ''}> {r}</label> "
        for r in ROLES
    )
    body = (
        "<h1>Project members</h1>"
        + table(["Account", "Max role"], [[esc(m["username"]), esc(m["role"])] for m in rows])
        + f'<h2>Invite members</h2><form method="post" action="/{esc(ns)}/{esc(name)}/-/'
        'project_members"><label>Username <input name="username" type="text"></label> '
        f"<fieldset><legend>Select a role</legend>{radios}</fieldset>"
        '<button type="submit">Invite</button></form>'
    )
    return render(f"Members · {ns} / {name} · GitLab", body, _nav(request))


@router.post("/{ns}/{name}/-/project_members")
async def invite(request: Request, ns: str, name: str, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form(request)
    role = data.get("role") if data.get("role") in ROLES else "Guest"
    with connect(request) as db:
        p = _project(db, ns, name)
        known = db.execute(
            "SELECT 1 FROM code_users WHERE username=?", (data.get("username", ""),)
        ).fetchone()
        if p is not None and known:
            db.execute(
                "DELETE FROM code_members WHERE project_id=? AND username=?",
                (p["id"], data["username"]),
            )
            db.execute("INSERT INTO code_members VALUES (?,?,?)", (p["id"], data["username"], role))
    return redirect(f"/{ns}/{name}/-/project_members")


def create_app() -> FastAPI:
    return site_app(ACCOUNTS.router(login_page), router)
