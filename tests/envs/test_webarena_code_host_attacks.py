"""The code host (WebArena's ``gitlab``) attacked through its URLs (#42.2): every route of the
real site server, in a process of its own whose working folder is a fresh temp folder, gets
git options (``--output=<file>``) in each of its path parameters. No file may appear in that
folder (or in the repositories), and each answer is a 4xx, never a 500.

Outside ``tests/envs/webarena`` on purpose: the site server needs no browser."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

from agentgym_envs.envs.webarena.sites import code
from agentgym_envs.envs.webarena.sites.repos import BadRef, check_path, check_ref

_SERVE = textwrap.dedent(
    """
    import json, sqlite3, sys
    from agentgym_envs.envs.webarena.sites import server
    s = server()
    db = sqlite3.connect(s.seed_path)
    ns, name = db.execute(
        "SELECT p.namespace, p.name FROM code_merge_requests m JOIN code_projects p "
        "ON p.id = m.project_id ORDER BY m.id LIMIT 1"
    ).fetchone()
    print(json.dumps({"url": s.url("gitlab"), "ns": ns, "name": name,
                      "repos": str(s.data.repos)}), flush=True)
    sys.stdin.read()
    """
)

#: What a hostile URL puts where a ref or path goes: each is an option git would obey.
PAYLOADS = ("--output=pwned", "--output=pwned-{n}.txt", "-opwned-short")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("site-cwd")
    proc = subprocess.Popen(
        [sys.executable, "-c", _SERVE],
        cwd=folder,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        if not line:
            pytest.fail("the site server did not start")
        info = json.loads(line)
        info["cwd"] = folder
        yield info
    finally:
        proc.stdin.close()
        proc.terminate()
        proc.wait(30)


def _routes() -> list[tuple[str, str]]:
    """Every (method, path template) of the code host's app."""
    out = []
    pending = list(code.create_app().routes)
    while pending:
        route = pending.pop(0)
        inner = getattr(route, "original_router", None) or getattr(route, "routes", None)
        if inner is not None:  # an included router (its routes are the site's pages)
            pending.extend(getattr(inner, "routes", inner))
            continue
        for method in sorted(getattr(route, "methods", None) or ()):
            if method in ("GET", "POST"):
                out.append((method, route.path))
    return out


def _attacks(site: dict) -> list[tuple[str, str, str]]:
    """(method, URL path, parameter attacked) for each route and each of its parameters."""
    real = {"ns": site["ns"], "name": site["name"], "ref": "main", "path": "README.md"}
    out = []
    n = 0
    for method, template in _routes():
        params = re.findall(r"{(\w+)(?::\w+)?}", template)
        for target in params:
            for payload in PAYLOADS:
                n += 1
                values = {p: real.get(p, "1") for p in params}
                values[target] = payload.format(n=n)
                path = template
                for name, value in values.items():
                    path = re.sub("{" + name + r"(?::\w+)?}", lambda _, v=value: v, path)
                out.append((method, path, target))
    return out


def _files(site: dict) -> set[str]:
    from pathlib import Path

    found = {str(p) for p in Path(site["cwd"]).rglob("*")}
    found |= {str(p) for p in Path(site["repos"]).rglob("pwned*")}
    return found


def test_every_route_refuses_git_options_in_its_urls(site):
    attacks = _attacks(site)
    routes = {t for _, t in _routes()}
    assert any("/-/commits/{ref}" in t for t in routes)
    assert any("/-/blob/{ref}/{path:path}" in t for t in routes)
    assert len(attacks) > 60
    before = _files(site)
    answers = []
    with httpx.Client(base_url=site["url"], timeout=60, follow_redirects=False) as http:
        for method, path, target in attacks:
            reply = http.request(method, path)
            answers.append((reply.status_code, method, path, target))
    created = _files(site) - before
    assert not created, f"git wrote files from URL options: {sorted(created)[:5]}"
    errors = [a for a in answers if a[0] >= 500]
    assert not errors, errors[:5]
    # a ref or path the attack went into is a page that does not exist (or a login/redirect
    # for the POST forms, which never reach git)
    git = [a for a in answers if a[3] in ("ref", "path") and a[1] == "GET"]
    assert git and all(400 <= a[0] < 500 for a in git), [a for a in git if a[0] < 400][:5]


def test_the_real_pages_still_render(site):
    base = f"/{site['ns']}/{site['name']}"
    with httpx.Client(base_url=site["url"], timeout=60) as http:
        for path in (
            base,
            f"{base}/-/tree/main",
            f"{base}/-/blob/main/README.md",
            f"{base}/-/commits/main",
            f"{base}/-/commits",
            f"{base}/-/branches",
            f"{base}/-/merge_requests/1",
        ):
            reply = http.get(path)
            assert reply.status_code == 200, path
        commits = http.get(f"{base}/-/commits/main").text
        sha = re.search(r"/-/commit/([0-9a-f]{40})", commits).group(1)
        assert http.get(f"{base}/-/commit/{sha}").status_code == 200
        assert http.get(f"{base}/-/tree/no-such-branch").status_code == 404
        assert http.get(f"{base}/-/commits/no-such-branch").status_code == 404


@pytest.mark.parametrize(
    "ref",
    ["-x", "--output=a", "main..dev", "a b", "a:b", "@{-1}", "x.lock", "a//b", "..", "/abs", ""],
)
def test_check_ref_refuses_what_git_would_not_take_as_a_branch(ref):
    with pytest.raises(BadRef):
        check_ref(ref)


def test_check_ref_and_path_take_real_names():
    assert check_ref("main") == "main" and check_ref("feature/dark-mode") == "feature/dark-mode"
    assert check_ref("0123abcd") == "0123abcd"
    assert check_path("docs/usage.md") == "docs/usage.md"
    assert check_path("--output=x") == "--output=x"  # a file may be named so: after "ref:"
    for bad in ("../x", "/etc/passwd", "a/../b", "a\x00b"):
        with pytest.raises(BadRef):
            check_path(bad)
