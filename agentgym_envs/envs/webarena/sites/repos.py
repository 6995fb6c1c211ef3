"""The code host's git repositories, made with ``git fast-import`` (one bare repository per
project, a ``main`` branch and feature branches, authored and dated commits) and read back
with ``git`` for the repository pages (:class:`Repo`)."""

from __future__ import annotations

import random
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from agentgym_envs.envs.webarena.sites import vocab

MIT = """MIT License

Copyright (c) {year} {owner}

Permission is hereby granted, free of charge, to any person obtaining a copy of this software
and associated documentation files (the "Software"), to deal in the Software without
restriction, including without limitation the rights to use, copy, modify, merge, publish,
distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the
Software is furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or
substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED.
"""
FEATURES = (
    "add-dark-mode", "fix-typo", "update-docs", "refactor-config", "new-api", "ci", "i18n",
    "perf", "tests",
)  # fmt: skip


def _source(ext: str, name: str, n: int) -> str:
    """A small source file in the project's language with ``n`` functions."""
    fn = {
        "py": "def {f}(value):\n    return value + {i}\n",
        "js": "export function {f}(value) {{\n  return value + {i};\n}}\n",
        "go": "func {f}(value int) int {{\n\treturn value + {i}\n}}\n",
        "rs": "pub fn {f}(value: i64) -> i64 {{\n    value + {i}\n}}\n",
        "rb": "def {f}(value)\n  value + {i}\nend\n",
    }[ext]
    head = "package main\n\n" if ext == "go" else ""
    body = "\n".join(fn.format(f=f"{name.replace('-', '_')}_{i}", i=i) for i in range(n))
    return head + body


@dataclass
class _Commit:
    branch: str
    author: tuple[str, str]
    when: datetime
    message: str
    files: dict[str, str]


def _plan_commits(p: dict[str, Any], users: list[tuple[str, str]], rng: random.Random):
    owner = p["namespace"]
    files: dict[str, str] = {}
    commits: list[_Commit] = []
    when = datetime(2023, 1, 1, tzinfo=timezone.utc) + timedelta(days=rng.randrange(120))
    module = f"src/{p['name'].replace('-', '_')}.{p['ext']}"
    authors = [u for u in rng.sample(users, 4)]

    def commit(branch: str, message: str, changes: dict[str, str], author=None) -> None:
        nonlocal when
        when += timedelta(hours=rng.randrange(1, 60))
        files.update(changes)
        commits.append(_Commit(branch, author or rng.choice(authors), when, message, changes))

    readme = f"# {p['name']}\n\n{p['description']}.\n\n## Usage\n\nSee the docs folder.\n"
    commit(
        "main",
        "Initial commit",
        {
            "README.md": readme,
            "LICENSE": MIT.format(year=2023, owner=owner),
            ".gitignore": "*.log\nbuild/\n",
        },
    )
    for k in range(rng.randrange(4, 25)):
        kind = rng.random()
        if kind < 0.5:
            change = {module: _source(p["ext"], p["name"], k + 2)}
            message = f"Add {p['name'].replace('-', '_')}_{k + 1}"
        elif kind < 0.75:
            change = {"docs/usage.md": f"# Usage\n\nStep {k}: run the {p['name']} tool.\n"}
            message = f"Update usage docs (step {k})"
        else:
            change = {"CHANGELOG.md": files.get("CHANGELOG.md", "# Changelog\n") + f"- {k}\n"}
            message = f"Changelog for 0.{k}.0"
        commit("main", message, change)
    for feature in rng.sample(FEATURES, rng.randrange(0, 6)):
        author = rng.choice(authors)
        for j in range(rng.randrange(1, 3)):
            commit(
                feature,
                f"{feature.replace('-', ' ').capitalize()} (part {j + 1})",
                {f"notes/{feature}.md": f"# {feature}\n\nPart {j + 1}.\n"},
                author,
            )
    return commits


def _fast_import_stream(commits: list[_Commit], emails: dict[str, str]) -> bytes:
    out: list[bytes] = []
    tips: dict[str, int] = {}
    main_tips: list[int] = []
    for mark, c in enumerate(commits, start=1):
        user, name = c.author
        stamp = f"{int(c.when.timestamp())} +0000"
        msg = c.message.encode()
        out.append(f"commit refs/heads/{c.branch}\nmark :{mark}\n".encode())
        out.append(f"author {name} <{emails[user]}> {stamp}\n".encode())
        out.append(f"committer {name} <{emails[user]}> {stamp}\n".encode())
        out.append(f"data {len(msg)}\n".encode() + msg + b"\n")
        if c.branch in tips:
            out.append(f"from :{tips[c.branch]}\n".encode())
        elif c.branch != "main" and main_tips:
            out.append(f"from :{main_tips[-1]}\n".encode())
        for path, text in c.files.items():
            data = text.encode()
            out.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")
        tips[c.branch] = mark
        if c.branch == "main":
            main_tips.append(mark)
    return b"".join(out)


def _make_repo(path: Path, commits: list[_Commit], emails: dict[str, str]) -> list[str]:
    """Create the bare repository at ``path``; the commits' SHAs in order."""
    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["git", "init", "--bare", "-q", "--template=", "-b", "main", str(path)],
        check=True,
        capture_output=True,
    )
    marks = path / "marks"
    subprocess.run(
        [
            "git",
            "-c",
            "fastimport.unpackLimit=0",
            "--git-dir",
            str(path),
            "fast-import",
            "--quiet",
            f"--export-marks={marks}",
        ],
        input=_fast_import_stream(commits, emails),
        check=True,
        capture_output=True,
    )
    by_mark = dict(line.split() for line in marks.read_text().splitlines())
    marks.unlink()
    return [by_mark[f":{i}"] for i in range(1, len(commits) + 1)]


def build_repos(
    root: Path, plan: list[dict[str, Any]], users: list[str], seed: int = 0, workers: int = 4
) -> list[tuple[Any, ...]]:
    """Every project's repository under ``root/<namespace>/<name>.git``; returns the commits
    as database rows ``(project_id, sha, author, day, message, branch)``."""
    people = [(u, u.capitalize()) for u in users[:60]]
    emails = {u: f"{u}@example.com" for u, _ in people}
    jobs = []
    for p in plan:
        rng = random.Random(f"webarena-repo-{seed}-{p['id']}")
        jobs.append((p, _plan_commits(p, people, rng)))

    def make(job) -> list[tuple[Any, ...]]:
        p, commits = job
        shas = _make_repo(root / p["namespace"] / f"{p['name']}.git", commits, emails)
        return [
            (p["id"], sha, c.author[0], c.when.date().isoformat(), c.message, c.branch)
            for sha, c in zip(shas, commits, strict=True)
        ]

    with ThreadPoolExecutor(workers) as pool:
        return [row for rows in pool.map(make, jobs) for row in rows]


class BadRef(ValueError):
    """A ref or path from a URL that git must not see (an option, a range, a path that climbs)."""


#: Characters git's ``check-ref-format`` refuses in a ref name, and ``:`` (our ``ref:path``).
_REF_BAD = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]")


def check_ref(ref: str) -> str:
    """``ref`` if it is a branch name or commit id as ``git check-ref-format --branch`` allows
    one (and never an option: no leading ``-``); :class:`BadRef` otherwise."""
    if (
        not ref
        or len(ref) > 255
        or ref.startswith(("-", "/", "."))
        or ref.endswith(("/", ".", ".lock"))
        or ".." in ref
        or "//" in ref
        or "@{" in ref
        or "/." in ref
        or ref == "@"
        or _REF_BAD.search(ref)
    ):
        raise BadRef(f"not a branch name or commit id: {ref[:60]!r}")
    return ref


def check_path(path: str) -> str:
    """``path`` if it names a file inside the tree (relative, no ``..``, no control
    characters); :class:`BadRef` otherwise."""
    parts = path.split("/")
    if (
        len(path) > 4096
        or path.startswith("/")
        or any(p in ("..", ".") for p in parts)
        or re.search(r"[\x00-\x1f\x7f]", path)
    ):
        raise BadRef(f"not a path in the repository: {path[:60]!r}")
    return path


class Repo:
    """Read access to one bare repository with ``git`` (tree, blob, log, branches).

    Refs and paths come from URLs: each is checked (:func:`check_ref`, :func:`check_path`;
    :class:`BadRef` for a bad one) and passed after ``--end-of-options``, so nothing a URL
    holds reaches git as an option."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _git(self, *args: str) -> str:
        reply = subprocess.run(
            ["git", "--git-dir", str(self.path), *args],
            capture_output=True,
            text=True,
            timeout=20,
        )
        return reply.stdout if reply.returncode == 0 else ""

    def exists(self) -> bool:
        return self.path.is_dir()

    def branches(self) -> list[str]:
        return self._git("for-each-ref", "--format=%(refname:short)", "refs/heads").split()

    def tree(self, ref: str, path: str = "") -> list[tuple[str, str]]:
        """``(kind, name)`` of the entries at ``path`` (``tree`` or ``blob``), folders first."""
        spec = f"{check_ref(ref)}:{check_path(path)}"
        rows = []
        for line in self._git("ls-tree", "--end-of-options", spec).splitlines():
            meta, _, name = line.partition("\t")
            rows.append((meta.split()[1], name))
        return sorted(rows, key=lambda r: (r[0] != "tree", r[1]))

    def kind(self, ref: str, path: str = "") -> str:
        """``tree``, ``blob`` or ``commit`` for what ``ref:path`` names (``""``: nothing)."""
        spec = f"{check_ref(ref)}:{check_path(path)}"
        return self._git("cat-file", "-t", "--end-of-options", spec).strip()

    def blob(self, ref: str, path: str) -> str | None:
        spec = f"{check_ref(ref)}:{check_path(path)}"
        text = self._git("show", "--end-of-options", spec)
        return text if text or self.kind(ref, path) else None

    def log(
        self, ref: str, limit: int = 40, skip: int = 0, *, since: str | None = None
    ) -> list[dict[str, str]]:
        """Commits of ``ref`` (those not on ``since`` when given), newest first."""
        fmt = "%H%x1f%an%x1f%ae%x1f%ad%x1f%s"
        spec = check_ref(ref) if since is None else f"{check_ref(since)}..{check_ref(ref)}"
        out = self._git(
            "log",
            f"--format={fmt}",
            "--date=short",
            f"-n{int(limit)}",
            f"--skip={int(skip)}",
            "--end-of-options",
            spec,
            "--",
        )
        keys = ("sha", "author", "email", "date", "message")
        return [dict(zip(keys, line.split("\x1f"), strict=True)) for line in out.splitlines()]

    def count(self, ref: str) -> int:
        out = self._git("rev-list", "--count", "--end-of-options", check_ref(ref), "--")
        return int(out) if out.strip().isdigit() else 0

    def show(self, sha: str) -> str:
        if not sha or len(sha) > 64 or set(sha) - set("0123456789abcdef"):
            raise BadRef(f"not a commit id: {sha[:60]!r}")
        return self._git(
            "show",
            "--stat",
            "--patch",
            "--format=%H%n%an <%ae>%n%ad%n%n%s",
            "--end-of-options",
            sha,
            "--",
        )


def repo_dates() -> tuple[date, date]:
    """The span the commits fall in (tasks ask about days in it)."""
    return date(2023, 1, 1), date(2023, 9, 1)


__all__ = ["BadRef", "Repo", "build_repos", "check_path", "check_ref", "vocab"]
