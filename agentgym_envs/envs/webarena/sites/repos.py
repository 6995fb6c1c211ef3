"""The code host's git repositories, made with ``git fast-import`` (one bare repository per
project, a ``main`` branch and feature branches, authored and dated commits) and read back
with ``git`` for the repository pages (:class:`Repo`)."""

from __future__ import annotations

import random
import re
import subprocess
import zlib
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
APACHE = """Apache License
Version 2.0, January 2004
http://www.apache.org/licenses/

Copyright {year} {owner}

Licensed under the Apache License, Version 2.0 (the "License"); you may not use this file
except in compliance with the License. Unless required by applicable law or agreed to in
writing, software distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
"""


def site_page(name: str, description: str) -> str:
    """The ``index.html`` of a JavaScript project's site (its title is the project's name)."""
    return (
        f'<!DOCTYPE html>\n<html>\n<head>\n  <meta charset="utf-8">\n  <title>{name}</title>\n'
        f"</head>\n<body>\n  <h1>{name}</h1>\n  <p>{description}.</p>\n</body>\n</html>\n"
    )


def license_of(name: str) -> str:
    """``MIT`` or ``Apache-2.0``: a project's licence, fixed by its name (a third are Apache)."""
    return "Apache-2.0" if zlib.crc32(name.encode()) % 3 == 0 else "MIT"


FEATURES = (
    "add-dark-mode", "fix-typo", "update-docs", "refactor-config", "new-api", "ci", "i18n",
    "perf", "tests",
)  # fmt: skip


_FN = {
    "py": 'def {f}(value, scale={k}):\n    """{doc}"""\n    return {expr}\n',
    "js": "/** {doc} */\nexport function {f}(value, scale = {k}) {{\n  return {expr};\n}}\n",
    "go": "// {F} {doc_l}\nfunc {F}(value int, scale int) int {{\n\treturn {expr}\n}}\n",
    "rs": "/// {doc}\npub fn {f}(value: i64, scale: i64) -> i64 {{\n    {expr}\n}}\n",
    "rb": "# {doc}\ndef {f}(value, scale = {k})\n  {expr}\nend\n",
}
_EXPRS = (
    "value * scale",
    "value + scale",
    "(value - scale) * 2",
    "value * scale + 1",
    "max(value, scale)",
    "value // scale if scale else value",
)
_EXPRS_C = (
    "value * scale",
    "value + scale",
    "(value - scale) * 2",
    "value * scale + 1",
    "value - scale",
    "value / (scale + 1)",
)
_VERBS = ("parse", "load", "render", "merge", "validate", "format", "fetch", "resolve", "split",
          "normalize", "encode", "decode", "count", "filter", "sort", "retry")  # fmt: skip
_NOUNS = ("config", "items", "headers", "path", "tokens", "rows", "payload", "options", "cache",
          "entries", "query", "colors", "events", "users", "version", "theme")  # fmt: skip
#: language -> files: (manifest, [source files], test file).
_LAYOUT = {
    "py": ("pyproject.toml", ["src/{pkg}/core.py", "src/{pkg}/cli.py", "src/{pkg}/utils.py"],
           "tests/test_core.py"),
    "js": ("package.json", ["src/index.js", "src/lib/core.js", "src/lib/utils.js"],
           "test/core.test.js"),
    "go": ("go.mod", ["main.go", "internal/core/core.go", "internal/util/util.go"],
           "core_test.go"),
    "rs": ("Cargo.toml", ["src/lib.rs", "src/main.rs", "src/util.rs"], "tests/integration.rs"),
    "rb": ("Gemfile", ["lib/{pkg}.rb", "lib/{pkg}/core.rb", "lib/{pkg}/utils.rb"],
           "spec/core_spec.rb"),
}  # fmt: skip


def _function(ext: str, name: str, variant: int) -> str:
    exprs = _EXPRS if ext in ("py", "rb") else _EXPRS_C
    expr = exprs[variant % len(exprs)]
    if ext == "rb":
        expr = expr.replace("max(value, scale)", "[value, scale].max").replace(
            "value // scale if scale else value", "scale.zero? ? value : value / scale"
        )
    doc = f"{name.replace('_', ' ').capitalize()} (variant {variant})."
    camel = "".join(w.capitalize() for w in name.split("_"))
    return _FN[ext].format(f=name, F=camel, k=variant + 1, doc=doc, doc_l=doc.lower(), expr=expr)


def _source(ext: str, functions: dict[str, int]) -> str:
    """A source file in the project's language holding ``functions`` (name -> variant)."""
    head = "package main\n\n" if ext == "go" else ""
    return head + "\n".join(_function(ext, f, v) for f, v in functions.items())


def _manifest(ext: str, name: str, version: str) -> str:
    return {
        "py": f'[project]\nname = "{name}"\nversion = "{version}"\nrequires-python = ">=3.9"\n',
        "js": f'{{\n  "name": "{name}",\n  "version": "{version}",\n  "type": "module"\n}}\n',
        "go": f"module example.com/{name}\n\ngo 1.21\n// version {version}\n",
        "rs": f'[package]\nname = "{name}"\nversion = "{version}"\nedition = "2021"\n',
        "rb": f'source "https://rubygems.org"\n# {name} {version}\ngem "rake"\n',
    }[ext]


@dataclass
class _Commit:
    branch: str
    author: tuple[str, str]
    when: datetime
    message: str
    files: dict[str, str]


def _plan_commits(p: dict[str, Any], users: list[tuple[str, str]], rng: random.Random):
    """A project's history: a scaffold in its language (manifest, three source files, tests,
    docs, CI), then commits that add and change functions, docs and the version, and feature
    branches whose commits change the sources (their merge requests show real diffs)."""
    owner, ext = p["namespace"], p["ext"]
    pkg = p["name"].replace("-", "_")
    manifest, sources, test_file = _LAYOUT[ext]
    sources = [f.format(pkg=pkg) for f in sources]
    files: dict[str, str] = {}
    functions: dict[str, dict[str, int]] = {f: {} for f in sources}
    commits: list[_Commit] = []
    when = datetime(2023, 1, 1, tzinfo=timezone.utc) + timedelta(days=rng.randrange(120))
    authors = [u for u in rng.sample(users, 4)]
    version = [0, 1, 0]

    def commit(branch: str, message: str, changes: dict[str, str], author=None) -> None:
        nonlocal when
        when += timedelta(hours=rng.randrange(1, 60))
        files.update(changes)
        commits.append(_Commit(branch, author or rng.choice(authors), when, message, changes))

    def new_function(source: str) -> str:
        name = f"{rng.choice(_VERBS)}_{rng.choice(_NOUNS)}"
        while any(name in fns for fns in functions.values()):
            name = f"{rng.choice(_VERBS)}_{rng.choice(_NOUNS)}_{rng.randrange(2, 9)}"
        functions[source][name] = rng.randrange(6)
        return name

    readme = (
        f"# {p['name']}\n\n{p['description']}.\n\n## Install\n\nSee `{manifest}`.\n\n"
        f"## Usage\n\nSee the docs folder.\n"
    )
    scaffold = {
        "README.md": readme,
        "LICENSE": (MIT if license_of(p["name"]) == "MIT" else APACHE).format(
            year=2023, owner=owner
        ),
        ".gitignore": "*.log\nbuild/\n",
        manifest: _manifest(ext, p["name"], "0.1.0"),
        ".gitlab-ci.yml": f"stages: [test]\n\ntest:\n  stage: test\n  script: make test  # {ext}\n",
        "docs/index.md": f"# {p['name']}\n\nStart with the README.\n",
    }
    if ext == "js":  # a project site: its page, served as the project's pages
        scaffold["index.html"] = site_page(p["name"], p["description"])
    for source in sources:
        new_function(source)
        scaffold[source] = _source(ext, functions[source])
    scaffold[test_file] = f"# tests for {p['name']}\n"
    commit("main", "Initial commit", scaffold)
    for k in range(rng.randrange(4, 25)):
        kind = rng.random()
        source = rng.choice(sources)
        if kind < 0.4:
            name = new_function(source)
            message = rng.choice(("Add {f}", "Add {f} to {file}", "Implement {f}")).format(
                f=name, file=source.rsplit("/", 1)[-1]
            )
            change = {source: _source(ext, functions[source])}
        elif kind < 0.6 and functions[source]:
            name = rng.choice(sorted(functions[source]))
            functions[source][name] += 1
            message = rng.choice(("Fix {f}", "Fix off-by-one in {f}", "Simplify {f}")).format(
                f=name
            )
            change = {source: _source(ext, functions[source])}
        elif kind < 0.75:
            name = rng.choice([f for fns in functions.values() for f in fns])
            text = files.get(test_file, "") + f"# checks {name} with {rng.randrange(2, 99)}\n"
            change, message = {test_file: text}, f"Add tests for {name}"
        elif kind < 0.88:
            section = rng.choice(("Configuration", "Examples", "FAQ", "Troubleshooting"))
            text = files["docs/index.md"] + f"\n## {section} ({k})\n\nHow to use it.\n"
            change, message = {"docs/index.md": text}, f"Document {section.lower()}"
        else:
            version[1] += 1
            tag = ".".join(map(str, version))
            log = files.get("CHANGELOG.md", "# Changelog\n") + f"\n## {tag}\n\n- Fixes.\n"
            change = {"CHANGELOG.md": log, manifest: _manifest(ext, p["name"], tag)}
            message = f"Release {tag}"
        commit("main", message, change)
    for feature in rng.sample(FEATURES, rng.randrange(0, 6)):
        author = rng.choice(authors)
        branch_functions = {f: dict(fns) for f, fns in functions.items()}
        for j in range(rng.randrange(1, 4)):
            source = rng.choice(sources)
            fns = branch_functions[source]
            if fns and rng.random() < 0.6:
                name = rng.choice(sorted(fns))
                fns[name] += 1 + j
                message = f"{feature.replace('-', ' ').capitalize()}: rework {name}"
            else:
                name = f"{feature.replace('-', '_')}_{rng.choice(_NOUNS)}_{j + 1}"
                fns[name] = rng.randrange(6)
                message = f"{feature.replace('-', ' ').capitalize()}: add {name}"
            change = {source: _source(ext, fns)}
            if j == 0:
                change[f"docs/{feature}.md"] = f"# {feature}\n\nWhy: see the merge request.\n"
            commit(feature, message, change, author)
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

    def diff(self, base: str, head: str) -> str:
        """The changes ``head`` makes since it left ``base`` (``git diff base...head``)."""
        spec = f"{check_ref(base)}...{check_ref(head)}"
        return self._git("diff", "--stat", "--patch", "--end-of-options", spec, "--")

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
