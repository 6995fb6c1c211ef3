"""The code host's per-user pages (WebArena's ``gitlab``): profiles with a status and a
website, following users, starring and forking projects, new projects, the feed token and a
search that finds users as well as projects.

Served before :mod:`.code`'s routes (``/-/profile`` would otherwise read as a project)."""

from __future__ import annotations

import hashlib

from fastapi import APIRouter
from starlette.requests import Request

from agentgym_envs.envs.webarena.sites.code_files import TEMPLATES, initialise
from agentgym_envs.envs.webarena.sites.common import connect, esc, form, redirect

router = APIRouter()

#: What a new project's visibility may be (the form's radio buttons).
VISIBILITIES = ("Private", "Internal", "Public")


def feed_token(username: str) -> str:
    """The user's RSS feed token: fixed per user, 20 characters like GitLab's."""
    digest = hashlib.sha256(f"feed:{username}".encode()).hexdigest()
    return "glft" + digest[:16]


def profile_header(db, username: str, viewer: str | None) -> str:
    """A user's page header: name, ``@username``, status, website, follow button and links."""
    u = db.execute("SELECT * FROM code_users WHERE username=?", (username,)).fetchone()
    prof = db.execute("SELECT * FROM code_profiles WHERE username=?", (username,)).fetchone()
    status = prof["status"] if prof and prof["status"] else ""
    website = prof["website"] if prof and prof["website"] else ""
    shown = website.split("://", 1)[-1].rstrip("/")
    follows = (
        viewer is not None
        and db.execute(
            "SELECT 1 FROM code_follows WHERE follower=? AND followee=?", (viewer, username)
        ).fetchone()
        is not None
    )
    button = (
        f'<form method="post" action="/users/{esc(username)}/follow">'
        f'<button type="submit">{"Unfollow" if follows else "Follow"}</button></form>'
        if viewer and viewer != username
        else ""
    )
    return (
        f'<div class="profile-header"><h1 class="page-title">{esc(u["name"])}</h1>'
        f'<p class="handle">@{esc(username)}</p>'
        + (f'<div class="cover-status"><span>Status: </span>{esc(status)}</div>' if status else "")
        + (
            f'<p>Website: <a itemprop="url" href="{esc(website)}">{esc(shown)}</a></p>'
            if website
            else ""
        )
        + f'<nav aria-label="Profile"><a href="/users/{esc(username)}/starred">Starred projects'
        f'</a> <a href="/users/{esc(username)}/following">Following</a></nav>{button}</div>'
    )


def _user(request: Request) -> str | None:
    from agentgym_envs.envs.webarena.sites.code import ACCOUNTS

    return ACCOUNTS.user(request)


def _page(request: Request, title: str, body: str, status: int = 200):
    from agentgym_envs.envs.webarena.sites.code import page

    return page(request, title, body, status=status)


def _login():
    from agentgym_envs.envs.webarena.sites.code import ACCOUNTS

    return redirect(ACCOUNTS.login)


@router.get("/search")
def search(request: Request, search: str = ""):
    """Projects whose name has ``search`` and users whose name or username has it."""
    words = f"%{search.lower()}%"
    with connect(request) as db:
        projects = db.execute(
            "SELECT * FROM code_projects WHERE lower(name) LIKE ? ORDER BY stars DESC, id LIMIT 20",
            (words,),
        ).fetchall()
        users = db.execute(
            "SELECT * FROM code_users WHERE lower(username) LIKE ? OR lower(name) LIKE ? "
            "ORDER BY username LIMIT 20",
            (words, words),
        ).fetchall()
    from agentgym_envs.envs.webarena.sites.code import _project_list

    people = "".join(
        f'<li><a href="/{esc(u["username"])}">@{esc(u["username"])}</a>'
        f'<span class="issuable-info">{esc(u["name"])}</span></li>'
        for u in users
    )
    body = (
        f'<h1 class="page-title">Search results for "{esc(search)}"</h1>'
        f"<h2>Projects</h2>{_project_list(projects)}"
        f'<h2>Users</h2><ul class="content-list users-list">{people}</ul>'
    )
    return _page(request, "Search · GitLab", body)


@router.get("/users/{username}/starred")
def starred(request: Request, username: str):
    with connect(request) as db:
        rows = db.execute(
            "SELECT p.* FROM code_stars s JOIN code_projects p ON p.id=s.project_id "
            "WHERE s.username=? ORDER BY p.stars DESC, p.id",
            (username,),
        ).fetchall()
    from agentgym_envs.envs.webarena.sites.code import _project_list

    body = f'<h1 class="page-title">Starred projects of @{esc(username)}</h1>' + _project_list(rows)
    return _page(request, "Starred projects · GitLab", body)


@router.get("/users/{username}/following")
def following(request: Request, username: str):
    with connect(request) as db:
        rows = db.execute(
            "SELECT u.* FROM code_follows f JOIN code_users u ON u.username=f.followee "
            "WHERE f.follower=? ORDER BY u.username",
            (username,),
        ).fetchall()
    items = "".join(
        f'<li><a href="/{esc(u["username"])}">{esc(u["name"])}</a> @{esc(u["username"])}</li>'
        for u in rows
    )
    body = (
        f'<h1 class="page-title">Followed by @{esc(username)}</h1>'
        f'<div class="user-profile"><ul class="content-list">{items}</ul></div>'
    )
    return _page(request, "Following · GitLab", body)


@router.post("/users/{username}/follow")
def follow(request: Request, username: str):
    """Follow ``username`` (unfollow when already following)."""
    viewer = _user(request)
    if viewer is None:
        return _login()
    with connect(request) as db:
        known = db.execute("SELECT 1 FROM code_users WHERE username=?", (username,)).fetchone()
        if known and username != viewer:
            gone = db.execute(
                "DELETE FROM code_follows WHERE follower=? AND followee=?", (viewer, username)
            ).rowcount
            if not gone:
                db.execute("INSERT INTO code_follows VALUES (?,?)", (viewer, username))
    return redirect(f"/{username}")


@router.get("/-/profile")
def profile(request: Request):
    viewer = _user(request)
    if viewer is None:
        return _login()
    with connect(request) as db:
        prof = db.execute("SELECT * FROM code_profiles WHERE username=?", (viewer,)).fetchone()
    status = prof["status"] if prof and prof["status"] else ""
    website = prof["website"] if prof and prof["website"] else ""
    body = (
        '<h1 class="page-title">Edit profile</h1><nav aria-label="User settings">'
        '<a href="/-/profile/personal_access_tokens">Access Tokens</a></nav>'
        '<form method="post" action="/-/profile"><div class="gl-form-group">'
        f'<label for="status">Status message</label><input id="status" name="status" '
        f'type="text" value="{esc(status)}"></div><div class="gl-form-group">'
        f'<label for="website">Website URL</label><input id="website" name="website" '
        f'type="text" value="{esc(website)}"></div>'
        '<button class="btn btn-confirm" type="submit">Update profile settings</button></form>'
    )
    return _page(request, "Edit profile · User Settings · GitLab", body)


@router.post("/-/profile")
async def save_profile(request: Request):
    viewer = _user(request)
    if viewer is None:
        return _login()
    data = await form(request)
    with connect(request) as db:
        db.execute(
            "INSERT OR REPLACE INTO code_profiles VALUES (?,?,?)",
            (viewer, data.get("status", "").strip(), data.get("website", "").strip()),
        )
    return redirect("/-/profile")


@router.get("/-/profile/personal_access_tokens")
def tokens(request: Request):
    viewer = _user(request)
    if viewer is None:
        return _login()
    body = (
        '<h1 class="page-title">Access Tokens</h1><section><h2>Feed token</h2>'
        "<p>Your feed token authenticates you when your RSS reader loads a personalized RSS "
        f'feed.</p><input type="text" readonly aria-label="Feed token" '
        f'value="{esc(feed_token(viewer))}"><code class="feed-token">{esc(feed_token(viewer))}'
        "</code></section>"
    )
    return _page(request, "Access Tokens · User Settings · GitLab", body)


@router.get("/projects/new")
def new_project_page(request: Request):
    if _user(request) is None:
        return _login()
    radios = "".join(
        f'<label><input type="radio" name="visibility" value="{v}"'
        f"{' checked' if v == 'Private' else ''}> {v}</label> "
        for v in VISIBILITIES
    )
    templates = "".join(
        f'<label><input type="radio" name="template" value="{esc(t)}"'
        f"{' checked' if t == 'Blank' else ''}> {esc(t)}</label> "
        for t in TEMPLATES
    )
    body = (
        '<h1 class="page-title">Create new project</h1><form method="post" '
        'action="/projects/new"><div class="gl-form-group"><label for="pname">Project name'
        '</label><input id="pname" name="name" type="text"></div>'
        f"<fieldset><legend>Visibility Level</legend>{radios}</fieldset>"
        f"<fieldset><legend>Template</legend>{templates}</fieldset>"
        '<label><input type="checkbox" name="readme" value="on" checked> Initialize '
        "repository with a README</label> "
        '<button class="btn btn-confirm" type="submit">Create project</button></form>'
    )
    return _page(request, "New Project · GitLab", body)


def _new_project(db, namespace: str, name: str, visibility: str, description: str = "") -> int:
    pid = db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM code_projects").fetchone()[0]
    db.execute(
        "INSERT INTO code_projects VALUES (?,?,?,?,?,?,?,?,?,?)",
        (pid, namespace, name, description, 0, 0, "", visibility, "2024-01-01", "main"),
    )
    db.execute("INSERT INTO code_members VALUES (?,?,?)", (pid, namespace, "Owner"))
    return pid


@router.post("/projects/new")
async def new_project(request: Request):
    """A blank project in the user's namespace (a taken name changes nothing)."""
    viewer = _user(request)
    if viewer is None:
        return _login()
    data = await form(request)
    name = data.get("name", "").strip()
    visibility = data.get("visibility")
    visibility = visibility if visibility in VISIBILITIES else "Private"
    ok = bool(name) and all(c.isalnum() or c in "-_." for c in name)
    with connect(request) as db:
        taken = db.execute(
            "SELECT 1 FROM code_projects WHERE namespace=? AND name=?", (viewer, name)
        ).fetchone()
        if not ok or taken:
            return redirect("/projects/new")
        pid = _new_project(db, viewer, name, visibility)
        template = data.get("template", "Blank")
        initialise(db, pid, name, template, data.get("readme") == "on", viewer)
    return redirect(f"/{viewer}/{name}")


@router.post("/{ns}/{name}/star")
def star(request: Request, ns: str, name: str):
    """Star the project (unstar when starred); its star count follows."""
    viewer = _user(request)
    if viewer is None:
        return _login()
    with connect(request) as db:
        p = db.execute(
            "SELECT id FROM code_projects WHERE namespace=? AND name=?", (ns, name)
        ).fetchone()
        if p is not None:
            gone = db.execute(
                "DELETE FROM code_stars WHERE username=? AND project_id=?", (viewer, p["id"])
            ).rowcount
            if not gone:
                db.execute("INSERT INTO code_stars VALUES (?,?)", (viewer, p["id"]))
            db.execute(
                "UPDATE code_projects SET stars = stars + ? WHERE id=?",
                (-1 if gone else 1, p["id"]),
            )
    return redirect(f"/{ns}/{name}")


def starred_by(db, viewer: str | None, pid: int) -> bool:
    return (
        viewer is not None
        and db.execute(
            "SELECT 1 FROM code_stars WHERE username=? AND project_id=?", (viewer, pid)
        ).fetchone()
        is not None
    )


@router.post("/{ns}/{name}/fork")
def fork(request: Request, ns: str, name: str):
    """Fork the project into the user's namespace: a project that shows the source's
    repository (a fork already there is where the user lands)."""
    viewer = _user(request)
    if viewer is None:
        return _login()
    with connect(request) as db:
        p = db.execute(
            "SELECT * FROM code_projects WHERE namespace=? AND name=?", (ns, name)
        ).fetchone()
        if p is None:
            return redirect("/")
        mine = db.execute(
            "SELECT 1 FROM code_projects WHERE namespace=? AND name=?", (viewer, name)
        ).fetchone()
        if not mine:
            pid = _new_project(db, viewer, name, p["visibility"], p["description"])
            db.execute("UPDATE code_projects SET language=? WHERE id=?", (p["language"], pid))
            source = db.execute(
                "SELECT source_id FROM code_forks WHERE project_id=?", (p["id"],)
            ).fetchone()
            db.execute(
                "INSERT INTO code_forks VALUES (?,?)", (pid, source[0] if source else p["id"])
            )
            db.execute("UPDATE code_projects SET forks = forks + 1 WHERE id=?", (p["id"],))
    return redirect(f"/{viewer}/{name}")


@router.get("/groups/new")
def new_group_page(request: Request):
    if _user(request) is None:
        return _login()
    body = (
        '<h1 class="page-title">Create group</h1><form method="post" action="/groups/new">'
        '<div class="gl-form-group"><label for="gname">Group name</label><input id="gname" '
        'name="name" type="text"></div><button class="btn btn-confirm" type="submit">Create '
        "group</button></form>"
    )
    return _page(request, "New Group · GitLab", body)


@router.post("/groups/new")
async def new_group(request: Request):
    """A group whose path is its name (a taken or odd name changes nothing); its creator is
    its owner."""
    viewer = _user(request)
    if viewer is None:
        return _login()
    name = (await form(request)).get("name", "").strip()
    if not name or not all(c.isalnum() or c in "-_." for c in name):
        return redirect("/groups/new")
    with connect(request) as db:
        taken = db.execute(
            "SELECT 1 FROM code_groups WHERE path=? UNION SELECT 1 FROM code_users WHERE "
            "username=?",
            (name, name),
        ).fetchone()
        if taken:
            return redirect("/groups/new")
        db.execute("INSERT INTO code_groups VALUES (?,?,?)", (name, name, ""))
        db.execute("INSERT INTO code_group_members VALUES (?,?,?)", (name, viewer, "Owner"))
    return redirect(f"/{name}")


@router.get("/groups/{path}/-/group_members")
def group_members(request: Request, path: str):
    from agentgym_envs.envs.webarena.sites.code import ROLES, table

    with connect(request) as db:
        g = db.execute("SELECT * FROM code_groups WHERE path=?", (path,)).fetchone()
        rows = db.execute(
            "SELECT * FROM code_group_members WHERE path=? ORDER BY rowid", (path,)
        ).fetchall()
    if g is None:
        return _page(request, "Not Found", "<h1>404: Page not found</h1>", 404)
    radios = "".join(
        f'<label><input type="radio" name="role" value="{r}"'
        f"{' checked' if r == 'Guest' else ''}> {r}</label> "
        for r in ROLES
    )
    body = (
        f'<h1 class="page-title">Group members of {esc(g["name"])}</h1>'
        + table(
            ["Account", "Username", "Max role"],
            [[esc(m["username"]), f"@{esc(m['username'])}", esc(m["role"])] for m in rows],
        )
        + f'<h2>Invite members</h2><form method="post" action="/groups/{esc(path)}/-/'
        'group_members"><label>Username <input name="username" type="text"></label> '
        f"<fieldset><legend>Select a role</legend>{radios}</fieldset>"
        '<button type="submit">Invite</button></form>'
    )
    return _page(request, f"Members · {g['name']} · GitLab", body)


@router.post("/groups/{path}/-/group_members")
async def invite_to_group(request: Request, path: str):
    from agentgym_envs.envs.webarena.sites.code import ROLES

    if _user(request) is None:
        return _login()
    data = await form(request)
    username = data.get("username", "").strip().lstrip("@")
    role = data.get("role") if data.get("role") in ROLES else "Guest"
    with connect(request) as db:
        g = db.execute("SELECT 1 FROM code_groups WHERE path=?", (path,)).fetchone()
        known = db.execute("SELECT 1 FROM code_users WHERE username=?", (username,)).fetchone()
        if g and known:
            db.execute(
                "DELETE FROM code_group_members WHERE path=? AND username=?", (path, username)
            )
            db.execute("INSERT INTO code_group_members VALUES (?,?,?)", (path, username, role))
    return redirect(f"/groups/{path}/-/group_members")
