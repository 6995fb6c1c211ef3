"""Editing a repository's files on the code host (WebArena's ``gitlab``): the web editor, new
files (in new folders too), raw files, and new projects initialised with a README or a
template.

The git repositories are built once and shared by every sandbox, so an edit is a row of the
sandbox's database (``code_file_edits``), laid over the repository's ``main`` branch by
:class:`EditedRepo`: it is a commit of ``main`` (log, count, show), its file is in the tree
and its text is the file's. A snapshot of the database keeps the edits."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import PlainTextResponse

from agentgym_envs.envs.webarena.sites.common import connect, esc, form, redirect
from agentgym_envs.envs.webarena.sites.repos import Repo, check_path

router = APIRouter()

#: The branch edits go to.
BRANCH = "main"
#: What a project template puts in its first commit ("Initial commit").
TEMPLATES: dict[str, dict[str, str]] = {
    "Blank": {},
    "NodeJS Express": {
        "package.json": '{\n  "name": "app",\n  "dependencies": {"express": "^4.18.2"}\n}\n',
        "app.js": "const express = require('express');\nconst app = express();\n"
        "app.get('/', (req, res) => res.send('Hello'));\napp.listen(3000);\n",
    },
    "Ruby on Rails": {
        "Gemfile": "source 'https://rubygems.org'\ngem 'rails', '~> 7.0'\n",
        "config/routes.rb": "Rails.application.routes.draw do\nend\n",
    },
    "Android": {
        "build.gradle": "plugins {\n  id 'com.android.application'\n}\n",
        "app/src/main/AndroidManifest.xml": '<manifest package="com.example.app"/>\n',
    },
    "Pages/Plain HTML": {
        "public/index.html": "<!DOCTYPE html>\n<html>\n<head><title>Plain HTML site</title>"
        "</head>\n<body><h1>Hello</h1></body>\n</html>\n",
        ".gitlab-ci.yml": "pages:\n  script: echo deploy\n  artifacts:\n    paths: [public]\n",
    },
}


def _sha(edit: dict[str, Any]) -> str:
    return hashlib.sha1(
        f"{edit['id']}\0{edit['path']}\0{edit['content']}".encode(), usedforsecurity=False
    ).hexdigest()


class EditedRepo(Repo):
    """A repository with the sandbox's edits laid over its ``main`` branch (newest last)."""

    def __init__(self, path: Path, edits: list[dict[str, Any]]) -> None:
        super().__init__(path)
        self.edits = edits
        self.files = {e["path"]: e["content"] for e in edits}

    def _mine(self, ref: str) -> bool:
        return bool(self.edits) and ref == BRANCH

    def branches(self) -> list[str]:
        base = super().branches()
        return base if base or not self.edits else [BRANCH]

    def tree(self, ref: str, path: str = "") -> list[tuple[str, str]]:
        rows = set(super().tree(ref, path))
        if self._mine(ref):
            for f in self.files:
                if f.startswith(path):
                    head, sep, _ = f[len(path) :].partition("/")
                    rows.add(("tree" if sep else "blob", head))
        return sorted(rows, key=lambda r: (r[0] != "tree", r[1]))

    def kind(self, ref: str, path: str = "") -> str:
        if self._mine(ref):
            check_path(path)
            if path in self.files:
                return "blob"
            if not path or (path.endswith("/") and any(f.startswith(path) for f in self.files)):
                return "tree"
        return super().kind(ref, path)

    def blob(self, ref: str, path: str) -> str | None:
        if self._mine(ref) and path in self.files:
            return self.files[path]
        return super().blob(ref, path)

    def _commits(self) -> list[list[dict[str, Any]]]:
        """The edits grouped by commit, newest first."""
        groups: dict[int, list[dict[str, Any]]] = {}
        for e in self.edits:
            groups.setdefault(e["commit_no"], []).append(e)
        return [groups[k] for k in sorted(groups, reverse=True)]

    def log(self, ref: str, limit: int = 40, skip: int = 0, *, since: str | None = None):
        if not self._mine(ref) or since is not None:
            return super().log(ref, limit, skip, since=since)
        mine = [
            {
                "sha": _sha(c[0]),
                "author": c[0]["author"],
                "email": f"{c[0]['author']}@example.com",
                "date": c[0]["day"],
                "message": c[0]["message"],
            }
            for c in self._commits()
        ]
        return (mine + super().log(ref, limit + skip))[skip : skip + limit]

    def count(self, ref: str) -> int:
        return super().count(ref) + (len(self._commits()) if self._mine(ref) else 0)

    def show(self, sha: str) -> str:
        for c in self._commits():
            if _sha(c[0]) == sha:
                files = "\n".join(f"+++ {e['path']}\n{e['content']}" for e in c)
                return (
                    f"{sha}\n{c[0]['author']} <{c[0]['author']}@example.com>\n{c[0]['day']}\n\n"
                    f"{c[0]['message']}\n\n{files}"
                )
        return super().show(sha)


def edits_of(db, project_id: int) -> list[dict[str, Any]]:
    return [
        dict(r)
        for r in db.execute(
            "SELECT * FROM code_file_edits WHERE project_id=? ORDER BY id", (project_id,)
        )
    ]


def commit_files(db, project_id: int, files: dict[str, str], message: str, user: str) -> None:
    """One commit of ``main`` that writes ``files`` (path -> text)."""
    number = db.execute(
        "SELECT COALESCE(MAX(commit_no), 0) + 1 FROM code_file_edits WHERE project_id=?",
        (project_id,),
    ).fetchone()[0]
    db.executemany(
        "INSERT INTO code_file_edits (project_id, commit_no, path, content, message, author, "
        "day) VALUES (?,?,?,?,?,?,?)",
        [
            (project_id, number, path, text, message or f"Update {path}", user, "2024-01-01")
            for path, text in sorted(files.items())
        ],
    )


def _clean(path: str) -> str | None:
    """A repository path typed in a form (``a/b.txt``), or None when it is no file path."""
    parts = [p for p in path.strip().split("/") if p]
    if not parts or any(p in (".", "..") or p.startswith("-") for p in parts):
        return None
    return "/".join(parts)


def project_context(request: Request, ns: str, name: str):
    """The code site's module, the signed-in user (or None) and the project (or None)."""
    from agentgym_envs.envs.webarena.sites import code

    with connect(request) as db:
        p = code._project(db, ns, name)
    return code, code.ACCOUNTS.user(request), p


@router.get("/{ns}/{name}/-/raw/{ref}/{path:path}")
def raw(request: Request, ns: str, name: str, ref: str, path: str):
    code, _, p = project_context(request, ns, name)
    text = code._repo(p).blob(ref, path) if p is not None else None
    if text is None:
        return PlainTextResponse("404: file not found", status_code=404)
    return PlainTextResponse(text)


def _editor(action: str, content: str, name_field: bool) -> str:
    field = (
        '<div class="gl-form-group"><label for="fname">File name</label><input id="fname" '
        'name="path" type="text"></div>'
        if name_field
        else ""
    )
    return (
        f'<form method="post" action="{action}">{field}<div class="gl-form-group"><label '
        f'for="fbody">File content</label><textarea id="fbody" name="content" rows="20">'
        f'{esc(content)}</textarea></div><div class="gl-form-group"><label for="fmsg">Commit '
        'message</label><input id="fmsg" name="message" type="text"></div>'
        '<button class="btn btn-confirm" type="submit">Commit changes</button></form>'
    )


@router.get("/{ns}/{name}/-/edit/{ref}/{path:path}")
def edit_page(request: Request, ns: str, name: str, ref: str, path: str):
    code, user, p = project_context(request, ns, name)
    if p is None or ref != BRANCH or _clean(path) is None:
        return code._missing(request)  # before the login: a bad ref or path is no page
    if user is None:
        return redirect(code.ACCOUNTS.login)
    text = code._repo(p).blob(ref, path)
    if text is None:
        return code._missing(request)
    body = f'<h1 class="page-title">Edit {esc(path)}</h1>' + _editor(
        f"/{esc(ns)}/{esc(name)}/-/edit/{esc(ref)}/{esc(path)}", text, False
    )
    return code.page(request, f"Edit {path} · {ns} / {name} · GitLab", body, p, "Repository")


@router.post("/{ns}/{name}/-/edit/{ref}/{path:path}")
async def save_edit(request: Request, ns: str, name: str, ref: str, path: str):
    code, user, p = project_context(request, ns, name)
    if user is None:
        return redirect(code.ACCOUNTS.login)
    data = await form(request)
    clean = _clean(path)
    if p is None or ref != BRANCH or clean is None:
        return code._missing(request)
    with connect(request) as db:
        commit_files(db, p["id"], {clean: data.get("content", "")}, data.get("message", ""), user)
    return redirect(f"/{ns}/{name}/-/blob/{ref}/{clean}")


@router.get("/{ns}/{name}/-/new/{ref}/{folder:path}")
def new_file_page(request: Request, ns: str, name: str, ref: str, folder: str = ""):
    code, user, p = project_context(request, ns, name)
    if p is None or ref != BRANCH or (folder.strip("/") and _clean(folder) is None):
        return code._missing(request)  # before the login: a bad ref or folder is no page
    if user is None:
        return redirect(code.ACCOUNTS.login)
    body = (
        f'<h1 class="page-title">New file</h1><p>In {esc(ref)}/{esc(folder)} (a name with '
        "slashes makes folders)</p>"
        + _editor(f"/{esc(ns)}/{esc(name)}/-/new/{esc(ref)}/{esc(folder)}", "", True)
    )
    return code.page(request, f"New file · {ns} / {name} · GitLab", body, p, "Repository")


@router.post("/{ns}/{name}/-/new/{ref}/{folder:path}")
async def new_file(request: Request, ns: str, name: str, ref: str, folder: str = ""):
    code, user, p = project_context(request, ns, name)
    if user is None:
        return redirect(code.ACCOUNTS.login)
    data = await form(request)
    path = _clean(f"{folder}/{data.get('path', '')}") if data.get("path", "").strip() else None
    if p is None or ref != BRANCH or path is None:
        return redirect(f"/{ns}/{name}/-/new/{ref}/{folder}")
    with connect(request) as db:
        commit_files(db, p["id"], {path: data.get("content", "")}, data.get("message", ""), user)
    return redirect(f"/{ns}/{name}/-/blob/{ref}/{path}")


def initialise(db, project_id: int, name: str, template: str, readme: bool, user: str) -> None:
    """A new project's first commit ("Initial commit"): the template's files, a README."""
    files = dict(TEMPLATES.get(template, {}))
    if readme:
        files.setdefault("README.md", f"# {name}\n")
    if files:
        commit_files(db, project_id, files, "Initial commit", user)
