"""The code-hosting site (WebArena's ``gitlab``): projects, issues with labels, merge
requests, commits, members and a to-do list."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, FastAPI
from starlette.requests import Request

from agentgym_envs.envs.webarena.sites import code_files, code_plans, code_social
from agentgym_envs.envs.webarena.sites.common import (
    DATA,
    Accounts,
    connect,
    esc,
    form,
    login_form,
    paged_table,
    pager,
    qs,
    redirect,
    render,
    site_app,
    table,
)
from agentgym_envs.envs.webarena.sites.data import CODE_USER, LABELS, ROLES
from agentgym_envs.envs.webarena.sites.repos import BadRef, Repo

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
        f'<a href="/dashboard/todos">To-Do List</a><a href="/dashboard/issues">Issues</a>'
        f'<a href="/dashboard/merge_requests">Merge requests</a><span>{esc(user)}</span>'
        f'<a href="/{esc(user)}">Your profile</a><a href="/-/profile">Edit profile</a>'
        '<a href="/users/sign_out">Sign out</a>'
        if user
        else '<a href="/users/sign_in">Sign in</a>'
    )
    return (
        '<nav class="navbar-gitlab" aria-label="Main"><a class="brand" href="/">GitLab</a>'
        '<a href="/">Projects</a><a href="/explore/groups">Groups</a>'
        '<form role="search" action="/search" method="get"><input type="search" name="search" '
        'aria-label="Search GitLab" placeholder="Search GitLab"></form>'
        f'<div class="right">{me}</div></nav>'
    )


def _sidebar(ns: str, name: str, active: str) -> str:
    base = f"/{esc(ns)}/{esc(name)}"
    items = (
        ("Project information", base),
        ("Repository", f"{base}/-/tree/main"),
        ("Commits", f"{base}/-/commits/main"),
        ("Branches", f"{base}/-/branches"),
        ("Issues", f"{base}/-/issues"),
        ("Milestones", f"{base}/-/milestones"),
        ("Merge requests", f"{base}/-/merge_requests"),
        ("Members", f"{base}/-/project_members"),
        ("Settings", f"{base}/edit"),
    )
    links = "".join(
        f'<li class="{"active" if label == active else ""}"><a href="{href}">{label}</a></li>'
        for label, href in items
    )
    return (
        f'<aside class="nav-sidebar" aria-label="Project navigation"><div class="context-header">'
        f"{esc(name)}</div><ul>{links}</ul></aside>"
    )


def page(request: Request, title: str, body: str, project=None, active: str = "", status=200):
    """GitLab's layout: the top bar, the project's sidebar (when in a project), the content."""
    side = _sidebar(project["namespace"], project["name"], active) if project else ""
    crumbs = (
        f'<div class="breadcrumbs"><a href="/{esc(project["namespace"])}">'
        f'{esc(project["namespace"])}</a> / <a href="/{esc(project["namespace"])}/'
        f'{esc(project["name"])}">{esc(project["name"])}</a> / {esc(active)}</div>'
        if project
        else ""
    )
    return render(
        title,
        f'<div class="layout-page">{side}<div class="content-wrapper">{crumbs}{body}</div></div>',
        _nav(request),
        status,
        css="gitlab",
    )


def _project(db, ns: str, name: str) -> dict | None:
    """The project's row, with ``repo`` the ``namespace/name`` whose repository it shows
    (its fork source's for a fork) and ``forked_from`` that source (``""``: not a fork)."""
    row = db.execute(
        "SELECT * FROM code_projects WHERE namespace=? AND name=?", (ns, name)
    ).fetchone()
    if row is None:
        return None
    source = db.execute(
        "SELECT s.namespace, s.name FROM code_forks f JOIN code_projects s ON s.id=f.source_id "
        "WHERE f.project_id=?",
        (row["id"],),
    ).fetchone()
    out = dict(row)
    out["forked_from"] = f"{source[0]}/{source[1]}" if source else ""
    out["repo"] = out["forked_from"] or f"{ns}/{name}"
    out["edits"] = code_files.edits_of(db, row["id"])
    return out


def _repo(p) -> Repo:
    """The project's repository with the sandbox's edits of ``main`` laid over it."""
    assert DATA.repos is not None
    ns, _, name = p["repo"].partition("/")
    return code_files.EditedRepo(DATA.repos / ns / f"{name}.git", p["edits"])


def _missing(request: Request):
    return page(request, "Not Found", "<h1>404: Page not found</h1>", status=404)


def login_page(request: Request, error: str = ""):
    return render(
        "Sign in · GitLab",
        '<div class="content-wrapper login-page"><h1 class="page-title">GitLab Community '
        'Edition</h1><div class="login-box"><h2>Sign in</h2>'
        + login_form(ACCOUNTS.login, "Username", error)
        + "</div></div>",
        css="gitlab",
    )


def _project_list(rows) -> str:
    items = "".join(
        f'<li><div><a class="project-name" href="/{esc(p["namespace"])}/{esc(p["name"])}">'
        f'{esc(p["namespace"])} / {esc(p["name"])}</a><div class="project-description">'
        f'{esc(p["description"])}</div></div><div class="issuable-info">★ {p["stars"]} · '
        f"{esc(p['language'])} · {esc(p['visibility'])}</div></li>"
        for p in rows
    )
    return f'<ul class="content-list projects-list">{items}</ul>'


@router.get("/")
def projects(request: Request, user: User, name: str = "", sort: str = "", page: int = 1):
    """Your projects (the ones you are a member of), filtered by name, 20 a page."""
    order = {"stars": "stars DESC, id", "name": "name, id", "": "id"}.get(sort, "id")
    with connect(request) as db:
        rows = db.execute(
            "SELECT p.* FROM code_projects p WHERE p.id IN (SELECT project_id FROM code_members "
            f"WHERE username=?) AND lower(p.name) LIKE ? ORDER BY {order}",
            (user or CODE_USER, f"%{name.lower()}%"),
        ).fetchall()
    pages = max(1, -(-len(rows) // PER_PAGE))
    page = min(max(1, page), pages)
    body = (
        '<h1 class="page-title">Projects</h1><div class="top-area"><ul class="nav-links">'
        f'<li><a class="active" href="/">Your projects <span class="badge">{len(rows)}</span>'
        '</a></li><li><a href="/explore/projects">Explore projects</a></li></ul>'
        '<a class="btn btn-confirm" href="/projects/new">New project</a>'
        '<form role="search" method="get" action="/"><input type="search" name="name" '
        f'aria-label="Filter by name" placeholder="Filter by name" value="{esc(name)}"></form>'
        "</div>"
        + _project_list(rows[(page - 1) * PER_PAGE : page * PER_PAGE])
        + pager("/", page, pages, name=name, sort=sort)
    )
    return page_(request, "Projects · Dashboard · GitLab", body)


page_ = page


@router.get("/explore/projects")
def explore(request: Request, name: str = "", page: int = 1):
    with connect(request) as db:
        rows = db.execute(
            "SELECT * FROM code_projects WHERE lower(name) LIKE ? ORDER BY stars DESC, id",
            (f"%{name.lower()}%",),
        ).fetchall()
    pages = max(1, -(-len(rows) // PER_PAGE))
    page = min(max(1, page), pages)
    body = (
        '<h1 class="page-title">Explore projects</h1>'
        '<form role="search" method="get" action="/explore/projects"><input type="search" '
        f'name="name" aria-label="Filter by name" value="{esc(name)}"></form>'
        + _project_list(rows[(page - 1) * PER_PAGE : page * PER_PAGE])
        + pager("/explore/projects", page, pages, name=name)
    )
    return page_(request, "Explore projects · GitLab", body)


@router.get("/explore/groups")
def groups(request: Request):
    with connect(request) as db:
        rows = db.execute("SELECT * FROM code_groups ORDER BY path").fetchall()
    items = "".join(
        f'<li><a href="/{esc(g["path"])}">{esc(g["name"])}</a><span class="issuable-info">'
        f"{esc(g['description'])}</span></li>"
        for g in rows
    )
    return page_(
        request,
        "Groups · GitLab",
        '<h1 class="page-title">Groups</h1><a class="btn btn-confirm" href="/groups/new">New '
        f'group</a><ul class="content-list">{items}</ul>',
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
    return page_(
        request,
        "To-Do List · GitLab",
        f'<h1 class="page-title">To-Do List</h1><ul class="content-list">{items}</ul>',
    )


@router.get("/dashboard/{kind}")
def dashboard_list(
    request: Request,
    kind: str,
    user: User,
    state: str = "opened",
    scope: str = "",
    search: str = "",
    assignee_username: str = "",
    reviewer_username: str = "",
):
    """Issues assigned to you (``scope=created``: that you opened) or merge requests you
    authored (assigned to ``assignee_username``, to review by ``reviewer_username``), by state
    (``all`` for both), filtered by words of their title."""
    if user is None:
        return redirect(ACCOUNTS.login)
    if kind not in ("issues", "merge_requests"):
        return _missing(request)
    table = "code_issues" if kind == "issues" else "code_merge_requests"
    who = "author" if kind == "merge_requests" or scope == "created" else "assignee"
    person = user
    if kind == "merge_requests" and (assignee_username or reviewer_username):
        who = "assignee" if assignee_username else "reviewer"
        person = assignee_username or reviewer_username
    with connect(request) as db:
        rows = db.execute(
            f"SELECT r.*, p.namespace, p.name FROM {table} r JOIN code_projects p ON "
            f"p.id = r.project_id WHERE r.{who}=? AND (r.state=? OR ?='all') AND "
            "instr(lower(r.title), ?) > 0 ORDER BY r.created DESC, r.id DESC",
            (person, state, state, search.lower()),
        ).fetchall()
    items = "".join(
        f'<li><a href="/{esc(r["namespace"])}/{esc(r["name"])}/-/{kind}/{r["iid"]}">'
        f'{esc(r["title"])}</a><span class="issuable-info">{esc(r["namespace"])}/'
        f"{esc(r['name'])} · {esc(r['state'])}</span></li>"
        for r in rows
    )
    base = f"/dashboard/{kind}"
    scopes = (
        '<nav aria-label="Scope">'
        + " ".join(
            f'<a href="{base}?{qs(scope=key, state=state)}">{label}</a>'
            for key, label in (("", "Assigned to me"), ("created", "Created by me"))
        )
        + "</nav>"
        if kind == "issues"
        else '<nav aria-label="Scope">'
        + " ".join(
            f'<a href="{base}?{qs(**{key: user} if key else {})}">{label}</a>'
            for key, label in (
                ("", "Created by you"),
                ("assignee_username", "Assigned to you"),
                ("reviewer_username", "Review requests for you"),
            )
        )
        + "</nav>"
    )
    people = {"assignee_username": assignee_username, "reviewer_username": reviewer_username}
    states = " ".join(
        f'<a href="{base}?{qs(scope=scope, state=key, **people)}">{key.capitalize()}</a>'
        for key in ("opened", "closed", "all")
    )
    title = "Issues" if kind == "issues" else "Merge requests"
    body = (
        f'<h1 class="page-title">{title}</h1>{scopes}<nav aria-label="State">{states}</nav>'
        f'<form role="search" method="get" action="{base}"><input type="search" name="search" '
        f'aria-label="Search or filter results..." value="{esc(search)}">'
        f'<input type="hidden" name="scope" value="{esc(scope)}">'
        f'<input type="hidden" name="state" value="{esc(state)}">'
        + "".join(
            f'<input type="hidden" name="{key}" value="{esc(value)}">'
            for key, value in people.items()
            if value
        )
        + f'</form><ul class="content-list">{items}</ul>'
    )
    return page_(request, f"{title} · Dashboard · GitLab", body)


@router.get("/{ns}")
def group(request: Request, ns: str):
    """A group's projects, or a user's profile (status, website, follow) and projects."""
    with connect(request) as db:
        g = db.execute("SELECT * FROM code_groups WHERE path=?", (ns,)).fetchone()
        u = db.execute("SELECT * FROM code_users WHERE username=?", (ns,)).fetchone()
        rows = db.execute(
            "SELECT * FROM code_projects WHERE namespace=? ORDER BY name", (ns,)
        ).fetchall()
        header = (
            f'<h1 class="page-title">{esc(g["name"])}</h1><a href="/groups/{esc(ns)}/-/'
            'group_members">Members</a>'
            if g is not None
            else code_social.profile_header(db, ns, ACCOUNTS.user(request))
            if u is not None
            else None
        )
    if header is None:
        return _missing(request)
    title = g["name"] if g else u["name"]
    return page_(request, f"{title} · GitLab", header + _project_list(rows))


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
        starred = code_social.starred_by(db, ACCOUNTS.user(request), p["id"])
    repo = _repo(p)
    base = f"/{esc(ns)}/{esc(name)}"
    readme = repo.blob("main", "README.md") or ""
    body = (
        f'<h1 class="project-title">{esc(name)} <span class="visibility-icon" '
        f'title="{esc(p["visibility"])}">{esc(p["visibility"])}</span></h1>'
        + (
            f'<p class="fork-info">Forked from {esc(p["forked_from"])}</p>'
            if p["forked_from"]
            else ""
        )
        + f'<p class="project-description">{esc(p["description"])}</p>'
        f'<div class="project-actions"><form method="post" action="{base}/star"><button '
        f'type="submit">{"Unstar" if starred else "Star"}</button></form><form method="post" '
        f'action="{base}/fork"><button type="submit">Fork</button></form></div>'
        '<div class="project-stats">'
        f'<a href="{base}/-/commits/main">{repo.count("main")} Commits</a>'
        f'<a href="{base}/-/branches">{len(repo.branches())} Branches</a>'
        f"<span>Stars: {p['stars']}</span><span>Forks: {p['forks']}</span></div>"
        f"<p>Open issues: {n_open}</p><p>Open merge requests: {n_mr}</p>"
        '<details class="clone-dropdown"><summary>Clone</summary>'
        f'<p>Clone with SSH <code class="clone-url">{esc(clone_url(p, "ssh"))}</code></p>'
        f'<p>Clone with HTTP <code class="clone-url">{esc(clone_url(p, "http"))}</code></p>'
        "</details>"
        f'<a class="btn" href="{base}/-/new/main/">New file</a>'
        + _tree_table(p, repo, "main", "")
        + f'<div class="readme"><pre>{esc(readme)}</pre></div>'
    )
    return page(request, f"{ns} / {name} · GitLab", body, p, "Project information")


def clone_url(p, kind: str) -> str:
    """The project's clone address as the agent sees hosts (``gitlab.com``)."""
    if kind == "ssh":
        return f"ssh://git@gitlab.com:2222/{p['namespace']}/{p['name']}.git"
    return f"http://gitlab.com/{p['namespace']}/{p['name']}.git"


def _tree_table(p, repo: Repo, ref: str, path: str) -> str:
    base = f"/{esc(p['namespace'])}/{esc(p['name'])}/-"
    rows = "".join(
        f'<tr class="{"folder" if kind == "tree" else "file"}"><td><a href="{base}/'
        f'{"tree" if kind == "tree" else "blob"}/{esc(ref)}/{esc(path + entry)}">'
        f"{esc(entry)}</a></td></tr>"
        for kind, entry in repo.tree(ref, path)
    )
    return f'<table class="table tree-table"><thead><tr><th>Name</th></tr></thead>{rows}</table>'


@router.get("/{ns}/{name}/-/tree/{ref}/{path:path}")
@router.get("/{ns}/{name}/-/tree/{ref}")
def tree(request: Request, ns: str, name: str, ref: str, path: str = ""):
    with connect(request) as db:
        p = _project(db, ns, name)
    if p is None:
        return _missing(request)
    repo = _repo(p)
    path = path.strip("/")
    prefix = f"{path}/" if path else ""
    if repo.kind(ref, prefix) != "tree":
        return _missing(request)
    branches = "".join(
        f'<a class="btn" href="/{esc(ns)}/{esc(name)}/-/tree/{esc(b)}">{esc(b)}</a> '
        for b in repo.branches()
    )
    body = (
        f'<h1 class="page-title">{esc(name)} / {esc(path)}</h1><p>Branch: {esc(ref)} · '
        f"Switch branch: {branches} · "
        f'<a href="/{esc(ns)}/{esc(name)}/-/commits/{esc(ref)}">History</a>'
        + (
            f' · <a href="/{esc(ns)}/{esc(name)}/-/new/{esc(ref)}/{esc(prefix)}">New file</a>'
            if ref == code_files.BRANCH
            else ""
        )
        + "</p>"
        + _tree_table(p, repo, ref, prefix)
    )
    return page(request, f"Files · {ref} · {ns} / {name} · GitLab", body, p, "Repository")


@router.get("/{ns}/{name}/-/blob/{ref}/{path:path}")
def blob(request: Request, ns: str, name: str, ref: str, path: str):
    with connect(request) as db:
        p = _project(db, ns, name)
    text = _repo(p).blob(ref, path) if p is not None else None
    if text is None:
        return _missing(request)
    body = (
        f'<h1 class="page-title">{esc(path)}</h1><div class="file-holder"><div class="file-title">'
        f'{esc(path)}</div><pre class="blob">{esc(text)}</pre></div>'
        + (
            f'<a class="btn" href="/{esc(ns)}/{esc(name)}/-/edit/{esc(ref)}/{esc(path)}">Edit</a>'
            if ref == code_files.BRANCH
            else ""
        )
    )
    return page(request, f"{path} · {ref} · {ns} / {name} · GitLab", body, p, "Repository")


@router.get("/{ns}/{name}/-/commits/{ref}")
def commits(request: Request, ns: str, name: str, ref: str, page: int = 1):
    with connect(request) as db:
        p = _project(db, ns, name)
    if p is None:
        return _missing(request)
    repo = _repo(p)
    total = repo.count(ref)
    if not total:
        return _missing(request)
    pages = max(1, -(-total // 40))
    page = min(max(1, page), pages)
    items = "".join(
        f'<li><div><a href="/{esc(ns)}/{esc(name)}/-/commit/{c["sha"]}">{esc(c["message"])}</a>'
        f'<div class="commit-info">{esc(c["author"])} authored {esc(c["date"])}</div></div>'
        f"<code>{c['sha'][:8]}</code></li>"
        for c in repo.log(ref, 40, (page - 1) * 40)
    )
    body = (
        f'<h1 class="page-title">Commits</h1><p>Branch: {esc(ref)}</p>'
        f'<ul class="content-list commit-list">{items}</ul>'
        + pager(f"/{ns}/{name}/-/commits/{ref}", page, pages)
    )
    return page_(request, f"Commits · {ns} / {name} · GitLab", body, p, "Commits")


@router.get("/{ns}/{name}/-/commits")
def commits_default(request: Request, ns: str, name: str, page: int = 1):
    return commits(request, ns, name, "main", page)


@router.get("/{ns}/{name}/-/commit/{sha}")
def commit(request: Request, ns: str, name: str, sha: str):
    with connect(request) as db:
        p = _project(db, ns, name)
    if p is None or not all(c in "0123456789abcdef" for c in sha):
        return _missing(request)
    text = _repo(p).show(sha)
    if not text:
        return _missing(request)
    head, _, diff = text.partition("\n\n")
    body = (
        f'<h1 class="page-title">Commit {esc(sha[:8])}</h1><pre class="commit-info">'
        f'{esc(head)}</pre><pre class="diff">{esc(diff)}</pre>'
    )
    return page(request, f"{sha[:8]} · Commits · {ns} / {name} · GitLab", body, p, "Commits")


@router.get("/{ns}/{name}/-/branches")
def branches(request: Request, ns: str, name: str):
    with connect(request) as db:
        p = _project(db, ns, name)
    if p is None:
        return _missing(request)
    repo = _repo(p)
    items = "".join(
        f'<li><a href="/{esc(ns)}/{esc(name)}/-/tree/{esc(b)}">{esc(b)}</a>'
        f'<span class="commit-info">{esc((repo.log(b, 1) or [{"message": ""}])[0]["message"])}'
        "</span></li>"
        for b in repo.branches()
    )
    body = f'<h1 class="page-title">Branches</h1><ul class="content-list">{items}</ul>'
    return page(request, f"Branches · {ns} / {name} · GitLab", body, p, "Branches")


@router.get("/{ns}/{name}/edit")
def settings(request: Request, ns: str, name: str, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        p = _project(db, ns, name)
    if p is None:
        return _missing(request)
    options = "".join(
        f'<label><input type="radio" name="visibility" value="{v}"'
        f"{' checked' if v == p['visibility'] else ''}> {v}</label> "
        for v in ("Private", "Internal", "Public")
    )
    body = (
        '<h1 class="page-title">General settings</h1><section class="settings-section">'
        f'<form method="post" action="/{esc(ns)}/{esc(name)}/edit">'
        '<div class="gl-form-group"><label for="pdesc">Project description (optional)</label>'
        f'<textarea id="pdesc" name="description">{esc(p["description"])}</textarea></div>'
        f'<fieldset class="gl-form-group"><legend>Project visibility</legend>{options}</fieldset>'
        '<button class="btn btn-confirm" type="submit">Save changes</button></form></section>'
    )
    return page(request, f"General settings · {ns} / {name} · GitLab", body, p, "Settings")


@router.post("/{ns}/{name}/edit")
async def save_settings(request: Request, ns: str, name: str, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form(request)
    visibility = data.get("visibility")
    with connect(request) as db:
        p = _project(db, ns, name)
        if p is not None:
            db.execute(
                "UPDATE code_projects SET description=?, visibility=? WHERE id=?",
                (
                    data.get("description", p["description"]),
                    visibility if visibility in ("Private", "Internal", "Public") else "Private",
                    p["id"],
                ),
            )
    return redirect(f"/{ns}/{name}/edit")


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
        f'<h1 class="page-title">Issues</h1><nav aria-label="State">{states}</nav>'
        f'<form role="search" method="get" action="{base}"><input type="search" name="search" '
        f'aria-label="Search or filter results..." value="{esc(search)}">'
        f'<input type="hidden" name="state" value="{esc(state)}"></form>'
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
    return page_(request, f"Issues · {ns} / {name} · GitLab", body, p, "Issues")


@router.get("/{ns}/{name}/-/issues/new")
def new_issue_page(request: Request, ns: str, name: str, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    body = (
        f'<h1>New Issue</h1><form method="post" action="/{esc(ns)}/{esc(name)}/-/issues/new">'
        '<label>Title <input name="title" type="text"></label> '
        '<label>Description <textarea name="body"></textarea></label> '
        '<label>Assignee <input name="assignee" type="text"></label> '
        '<label>Due date <input name="due" type="text" placeholder="YYYY-MM-DD"></label> '
        '<button type="submit">Create issue</button></form>'
    )
    return page_(request, f"New Issue · {ns} / {name} · GitLab", body)


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
        assignee = data.get("assignee", "").strip().lstrip("@")
        known = db.execute("SELECT 1 FROM code_users WHERE username=?", (assignee,)).fetchone()
        db.execute(
            "INSERT INTO code_issues (project_id, iid, title, body, state, labels, "
            "author, created, assignee, due) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                p["id"],
                iid,
                data["title"].strip(),
                data.get("body", ""),
                "opened",
                "",
                user,
                "2024-01-01",
                assignee if known else None,
                code_plans.parse_day(data.get("due", "")),
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
        who = (
            i
            and db.execute(
                "SELECT name FROM code_users WHERE username=?", (i["assignee"],)
            ).fetchone()
        )
    if not i:
        return _missing(request)
    action = "close" if i["state"] == "opened" else "reopen"
    body = (
        f"<h1 data-qa-selector='title_content'>{esc(i['title'])}</h1><p>Status: <span "
        "class='issue-state'>"
        f"{'Open' if i['state'] == 'opened' else 'Closed'}</span></p>"
        f"<p>Labels: {esc(i['labels'].replace(',', ', ') or 'None')}</p>"
        f"<p>{esc(i['body'])}</p>"
        f'<form method="post" action="/{esc(ns)}/{esc(name)}/-/issues/{iid}/{action}">'
        f'<button type="submit">{action.capitalize()} issue</button></form>'
        f'<aside class="issuable-sidebar"><p>Assignee: <span class="assignee">'
        f"{esc(i['assignee'] or 'None')}</span></p>"
        f'<form method="post" action="/{esc(ns)}/{esc(name)}/-/issues/{iid}/assignee">'
        '<input name="assignee" type="text" aria-label="Assignee username"> '
        '<button type="submit">Assign</button></form>'
        f'<div class="block assignee">{esc(who[0] if who else "None")}</div>'
        f'<p data-testid="sidebar-due-date">Due date: {esc(code_plans.show_day(i["due"]))}</p>'
        "</aside>"
    )
    return page_(request, f"{i['title']} (#{iid}) · Issues · GitLab", body, p, "Issues")


@router.post("/{ns}/{name}/-/issues/{iid}/assignee")
async def assign(request: Request, ns: str, name: str, iid: int, user: User):
    """Set the issue's assignee to a known username (an unknown one changes nothing)."""
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form(request)
    username = data.get("assignee", "").strip().lstrip("@")
    with connect(request) as db:
        p = _project(db, ns, name)
        known = db.execute("SELECT 1 FROM code_users WHERE username=?", (username,)).fetchone()
        if p is not None and known:
            db.execute(
                "UPDATE code_issues SET assignee=? WHERE project_id=? AND iid=?",
                (username, p["id"], iid),
            )
    return redirect(f"/{ns}/{name}/-/issues/{iid}")


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
            f'<a href="/{esc(ns)}/{esc(name)}/-/merge_requests/{m["iid"]}">{esc(m["title"])}</a>',
            f"!{m['iid']}",
            esc(m["state"]),
            esc(m["author"]),
            f"{esc(m['source_branch'])} into {esc(m['target_branch'])}",
        ]
        for m in rows
    ]
    body = (
        '<h1 class="page-title">Merge requests</h1>'
        f'<a href="/{esc(ns)}/{esc(name)}/-/merge_requests/new">New merge request</a>'
    ) + table(["Title", "ID", "State", "Author", "Branches"], cells)
    return page_(request, f"Merge requests · {ns} / {name} · GitLab", body, p, "Merge requests")


def _diff_html(diff: str) -> str:
    """``git diff --stat --patch`` as GitLab shows it: one box per file, lines marked."""
    stat, _, patch = diff.partition("\ndiff --git ")
    if not patch:
        return "<p>No changes.</p>"
    files = []
    for chunk in ("diff --git " + patch).split("\ndiff --git "):
        lines = chunk.splitlines()
        path = lines[0].rsplit(" b/", 1)[-1] if lines else ""
        rows = []
        for line in lines[1:]:
            if line.startswith(("index ", "--- ", "+++ ", "new file", "deleted file")):
                continue
            kind = (
                "hunk"
                if line.startswith("@@")
                else "add"
                if line.startswith("+")
                else "del"
                if line.startswith("-")
                else "ctx"
            )
            rows.append(f'<span class="line {kind}">{esc(line)}</span>')
        files.append(
            f'<div class="diff-file"><div class="file-title">{esc(path)}</div>'
            f'<pre class="diff">{"".join(rows)}</pre></div>'
        )
    return f'<pre class="diff-stat">{esc(stat.strip(chr(10)))}</pre>' + "".join(files)


@router.get("/{ns}/{name}/-/merge_requests/{iid}")
def merge_request(request: Request, ns: str, name: str, iid: int):
    """One merge request: its state, branches, description and the source branch's commits."""
    with connect(request) as db:
        p = _project(db, ns, name)
        m = (
            db.execute(
                "SELECT * FROM code_merge_requests WHERE project_id=? AND iid=?", (p["id"], iid)
            ).fetchone()
            if p is not None
            else None
        )
    if m is None:
        return _missing(request)
    commits = "".join(
        f'<li><a href="/{esc(ns)}/{esc(name)}/-/commit/{c["sha"]}">{esc(c["message"])}</a>'
        f'<span class="commit-info">{esc(c["author"])} · {esc(c["date"])}</span></li>'
        for c in _repo(p).log(m["source_branch"], 20, since="main")
    )
    state = {"opened": "open", "merged": "merged", "closed": "closed"}[m["state"]]
    changes = _diff_html(_repo(p).diff(m["target_branch"], m["source_branch"]))
    description = "".join(
        f"<h3>{esc(part[3:].split(chr(10), 1)[0])}</h3><p>{esc(part.partition(chr(10))[2])}</p>"
        if part.startswith("## ")
        else f"<p>{esc(part)}</p>"
        for part in m["description"].split("\n\n")
    )
    body = (
        f'<h1 class="page-title">{esc(m["title"])}</h1><p><span class="status-box '
        f'status-box-{state}">{esc(m["state"].capitalize())}</span> '
        f"{esc(m['author'])} requested to merge</p>"
        + code_plans.branches_line(p, m)
        + f'<div class="description">{description}</div>'
        f'<h2>Commits</h2><ul class="content-list">{commits}</ul>'
        f'<h2>Changes</h2><div class="diffs">{changes}</div>'
        + code_plans.mr_discussion(request, p, m)
    )
    return page_(
        request, f"{m['title']} (!{iid}) · Merge requests · GitLab", body, p, "Merge requests"
    )


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
        + table(
            ["Account", "Username", "Max role"],
            [[esc(m["username"]), f"@{esc(m['username'])}", esc(m["role"])] for m in rows],
        )
        + f'<h2>Invite members</h2><form method="post" action="/{esc(ns)}/{esc(name)}/-/'
        'project_members"><label>Username <input name="username" type="text"></label> '
        f"<fieldset><legend>Select a role</legend>{radios}</fieldset>"
        '<button type="submit">Invite</button></form>'
    )
    return page_(request, f"Members · {ns} / {name} · GitLab", body, p, "Members")


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
    app = site_app(
        ACCOUNTS.router(login_page),
        code_social.router,
        code_plans.router,
        code_files.router,
        router,
    )

    @app.exception_handler(BadRef)
    async def bad_ref(request: Request, exc: BadRef):
        """A URL whose ref or path git must not see is a page that does not exist."""
        return _missing(request)

    return app
