"""The code host's planning pages (WebArena's ``gitlab``): milestones, merge-request
comments and reviewers, new merge requests, and the dates issues are due.

Served before :mod:`.code`'s routes (``merge_requests/new`` would otherwise read as an iid)."""

from __future__ import annotations

import calendar
import datetime as dt

from fastapi import APIRouter
from starlette.requests import Request

from agentgym_envs.envs.webarena.sites.code_files import project_context
from agentgym_envs.envs.webarena.sites.common import connect, esc, form, redirect

router = APIRouter()


def parse_day(text: str) -> str | None:
    """``YYYY-MM-DD`` (or ``M/D/YYYY``) as ``YYYY-MM-DD``; None when it is no date."""
    text = text.strip()
    for fmt in ("%Y-%m-%d", "%m/%d/%Y"):
        try:
            return dt.datetime.strptime(text, fmt).date().isoformat()
        except ValueError:
            continue
    return None


def show_day(day: str | None) -> str:
    """``2030-12-31`` -> ``Dec 31, 2030`` (GitLab's way); ``None`` when there is none."""
    if not day:
        return "None"
    y, m, d = day.split("-")
    return f"{calendar.month_abbr[int(m)]} {int(d)}, {y}"


def _ctx(request: Request, ns: str, name: str):
    from agentgym_envs.envs.webarena.sites import code

    return code, code.ACCOUNTS.user(request)


def branches_line(p, m) -> str:
    """``source into target``, each a link to its branch's files."""
    base = f"/{esc(p['namespace'])}/{esc(p['name'])}/-/tree"
    return (
        '<p class="detail-page-description">'
        f'<a class="gl-font-monospace" href="{base}/{esc(m["source_branch"])}">'
        f'{esc(m["source_branch"])}</a> into <a class="gl-font-monospace" '
        f'href="{base}/{esc(m["target_branch"])}">{esc(m["target_branch"])}</a></p>'
    )


def mr_discussion(request: Request, p, m) -> str:
    """The reviewer, the comments (oldest first) and the comment form of a merge request."""
    with connect(request) as db:
        notes = db.execute(
            "SELECT * FROM code_notes WHERE project_id=? AND mr_iid=? ORDER BY id",
            (p["id"], m["iid"]),
        ).fetchall()
        who = db.execute(
            "SELECT name FROM code_users WHERE username=?", (m["reviewer"],)
        ).fetchone()
    items = "".join(
        f'<li class="note"><span class="note-author">@{esc(n["author"])}</span>'
        f'<div class="timeline-discussion-body">{esc(n["body"])}</div></li>'
        for n in notes
    )
    action = f"/{esc(p['namespace'])}/{esc(p['name'])}/-/merge_requests/{m['iid']}/notes"
    return (
        f'<div class="block reviewer">Reviewer: {esc(who[0] if who else "None")}</div>'
        f'<h2>Activity</h2><ul id="notes-list" class="notes">{items}</ul>'
        f'<form method="post" action="{action}"><textarea name="body" aria-label="Comment">'
        '</textarea><button type="submit">Comment</button></form>'
    )


@router.post("/{ns}/{name}/-/merge_requests/{iid}/notes")
async def comment(request: Request, ns: str, name: str, iid: int):
    code, user = _ctx(request, ns, name)
    if user is None:
        return redirect(code.ACCOUNTS.login)
    body = (await form(request)).get("body", "").strip()
    with connect(request) as db:
        p = code._project(db, ns, name)
        if p is not None and body:
            db.execute(
                "INSERT INTO code_notes (project_id, mr_iid, author, body) VALUES (?,?,?,?)",
                (p["id"], iid, user, body),
            )
    return redirect(f"/{ns}/{name}/-/merge_requests/{iid}")


@router.get("/{ns}/{name}/-/merge_requests/new")
def new_mr_page(request: Request, ns: str, name: str):
    code, user, p = project_context(request, ns, name)
    if user is None:
        return redirect(code.ACCOUNTS.login)
    if p is None:
        return code._missing(request)
    branches = ", ".join(esc(b) for b in code._repo(p).branches())
    body = (
        '<h1 class="page-title">New merge request</h1>'
        f"<p>Branches: {branches}</p>"
        f'<form method="post" action="/{esc(ns)}/{esc(name)}/-/merge_requests/new">'
        '<label>Source branch <input name="source_branch" type="text"></label> '
        '<label>Target branch <input name="target_branch" type="text"></label> '
        '<label>Title <input name="title" type="text"></label> '
        '<label>Reviewer <input name="reviewer" type="text"></label> '
        '<button type="submit">Create merge request</button></form>'
    )
    return code.page(
        request, f"New merge request · {ns} / {name} · GitLab", body, p, "Merge requests"
    )


@router.post("/{ns}/{name}/-/merge_requests/new")
async def new_mr(request: Request, ns: str, name: str):
    """A merge request between two existing, different branches (else back to the form)."""
    code, user = _ctx(request, ns, name)
    if user is None:
        return redirect(code.ACCOUNTS.login)
    data = await form(request)
    source, target = data.get("source_branch", "").strip(), data.get("target_branch", "").strip()
    reviewer = data.get("reviewer", "").strip().lstrip("@")
    with connect(request) as db:
        p = code._project(db, ns, name)
        if p is None:
            return code._missing(request)
        branches = code._repo(p).branches()
        if source not in branches or target not in branches or source == target:
            return redirect(f"/{ns}/{name}/-/merge_requests/new")
        known = db.execute("SELECT 1 FROM code_users WHERE username=?", (reviewer,)).fetchone()
        iid = db.execute(
            "SELECT COALESCE(MAX(iid), 0) + 1 FROM code_merge_requests WHERE project_id=?",
            (p["id"],),
        ).fetchone()[0]
        db.execute(
            "INSERT INTO code_merge_requests (project_id, iid, title, state, author, "
            "source_branch, target_branch, created, description, reviewer) "
            "VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                p["id"],
                iid,
                data.get("title", "").strip() or f"Merge {source} into {target}",
                "opened",
                user,
                source,
                target,
                "2024-01-01",
                "",
                reviewer if known else None,
            ),
        )
    return redirect(f"/{ns}/{name}/-/merge_requests/{iid}")


@router.get("/{ns}/{name}/-/milestones")
def milestones(request: Request, ns: str, name: str):
    code, _ = _ctx(request, ns, name)
    with connect(request) as db:
        p = code._project(db, ns, name)
        rows = (
            db.execute(
                "SELECT * FROM code_milestones WHERE project_id=? ORDER BY id", (p["id"],)
            ).fetchall()
            if p
            else []
        )
    if p is None:
        return code._missing(request)
    base = f"/{esc(ns)}/{esc(name)}/-/milestones"
    items = "".join(
        f'<li><a href="{base}/{r["id"]}">{esc(r["title"])}</a><span class="issuable-info">'
        f"{esc(show_day(r['start_date']))} – {esc(show_day(r['due_date']))}</span></li>"
        for r in rows
    )
    body = (
        f'<h1 class="page-title">Milestones</h1><a href="{base}/new">New milestone</a>'
        f'<ul class="content-list">{items}</ul>'
    )
    return code.page(request, f"Milestones · {ns} / {name} · GitLab", body, p, "Milestones")


@router.get("/{ns}/{name}/-/milestones/new")
def new_milestone_page(request: Request, ns: str, name: str):
    code, user, p = project_context(request, ns, name)
    if user is None:
        return redirect(code.ACCOUNTS.login)
    if p is None:
        return code._missing(request)
    body = (
        '<h1 class="page-title">New Milestone</h1>'
        f'<form method="post" action="/{esc(ns)}/{esc(name)}/-/milestones/new">'
        '<label>Title <input name="title" type="text"></label> '
        '<label>Start date <input name="start_date" type="text" placeholder="YYYY-MM-DD">'
        '</label> <label>Due date <input name="due_date" type="text" placeholder="YYYY-MM-DD">'
        '</label> <button type="submit">Create milestone</button></form>'
    )
    return code.page(request, f"New Milestone · {ns} / {name} · GitLab", body, p, "Milestones")


@router.post("/{ns}/{name}/-/milestones/new")
async def new_milestone(request: Request, ns: str, name: str):
    code, user = _ctx(request, ns, name)
    if user is None:
        return redirect(code.ACCOUNTS.login)
    data = await form(request)
    title = data.get("title", "").strip()
    with connect(request) as db:
        p = code._project(db, ns, name)
        if p is None or not title:
            return redirect(f"/{ns}/{name}/-/milestones/new")
        mid = db.execute(
            "INSERT INTO code_milestones (project_id, title, start_date, due_date) "
            "VALUES (?,?,?,?)",
            (
                p["id"],
                title,
                parse_day(data.get("start_date", "")),
                parse_day(data.get("due_date", "")),
            ),
        ).lastrowid
    return redirect(f"/{ns}/{name}/-/milestones/{mid}")


@router.get("/{ns}/{name}/-/milestones/{mid}")
def milestone(request: Request, ns: str, name: str, mid: int):
    code, _ = _ctx(request, ns, name)
    with connect(request) as db:
        p = code._project(db, ns, name)
        m = (
            db.execute(
                "SELECT * FROM code_milestones WHERE project_id=? AND id=?", (p["id"], mid)
            ).fetchone()
            if p
            else None
        )
    if m is None:
        return code._missing(request)
    body = (
        f'<div id="content-body"><h1 class="page-title">{esc(m["title"])}</h1>'
        f'<div class="block start_date">Start date: {esc(show_day(m["start_date"]))}</div>'
        f'<div class="block due_date">Due date: {esc(show_day(m["due_date"]))}</div></div>'
    )
    return code.page(request, f"{m['title']} · Milestones · GitLab", body, p, "Milestones")
