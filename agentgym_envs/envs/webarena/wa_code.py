"""WebArena's code-host templates (``gitlab``) on the sites' data."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from agentgym_envs.envs.webarena.sites.data import CODE_USER
from agentgym_envs.envs.webarena.sites.vocab import LABELS
from agentgym_envs.envs.webarena.wa_common import (
    both,
    exact,
    fuzzy,
    html,
    month_name,
    must,
    na,
    spaced,
    url,
    us_date,
)
from agentgym_envs.envs.webarena.webarena_tasks import instantiator

GITLAB = "__GITLAB__"


def _path(p) -> str:
    return f"{p['namespace']}/{p['name']}"


def _base(p) -> str:
    return f"{GITLAB}/{_path(p)}"


def open_project(db, p) -> list[list[Any]]:
    """From the dashboard: Explore projects -> filter by name -> the results' pages (sorted by
    stars, 20 a page) up to the project's -> the project."""
    rows = db.execute(
        "SELECT id FROM code_projects WHERE lower(name) LIKE ? ORDER BY stars DESC, id",
        (f"%{p['name'].lower()}%",),
    ).fetchall()
    rank = [r[0] for r in rows].index(p["id"])
    return [
        ["click", "link", "Explore projects"],
        ["type", "searchbox", "Filter by name", p["name"], 1],
        *[["click", "link", "Next Page"]] * (rank // 20),
        ["click", "link", f"{p['namespace']} / {p['name']}"],
    ]


#: A project's sidebar "Issues" (the top bar's "Issues", your dashboard's, comes first).
ISSUES = ["click", "link", "Issues", 2]


COMMITS = ["click", "link", "Commits"]


def _projects(db, where: str = "1=1") -> list[Any]:
    return db.execute(f"SELECT * FROM code_projects WHERE {where} ORDER BY id").fetchall()


def _full_name(db, username: str) -> str:
    row = db.execute("SELECT name FROM code_users WHERE username=?", (username,)).fetchone()
    return row[0] if row else username


def _ranking(db, pid: int, where: str = "1=1", args: tuple = ()) -> list[Any]:
    return db.execute(
        "SELECT author, COUNT(*) AS n FROM code_commits WHERE project_id=? AND "
        f"{where} GROUP BY author ORDER BY n DESC, author",
        (pid, *args),
    ).fetchall()


def _strict_top(rows, k: int) -> bool:
    """The first ``k`` of ``rows`` are ranked without a tie at the cut."""
    return len(rows) >= k and (len(rows) == k or rows[k - 1]["n"] > rows[k]["n"])


@instantiator(303)
def todos(db):
    yield ({}, url(f"{GITLAB}/dashboard/todos"), [["click", "link", "To-Do List"], ["stop", ""]])


@instantiator(300)
def recent_open_issues(db):
    for p in spaced(_projects(db, f"namespace='{CODE_USER}'"), 5):
        yield (
            {"__start__": _base(p)},
            url(f"{_base(p)}/-/issues?state=opened"),
            [ISSUES, ["click", "link", "Opened"], ["stop", ""]],
        )


@instantiator(325)
def public_projects(db):
    yield (
        {},
        url(f"{GITLAB}/explore/projects"),
        [["click", "link", "Explore projects"], ["stop", ""]],
    )


@instantiator(299)
def opened_with_label(db):
    for k, p in enumerate(spaced(_projects(db)[11:], 30)):
        label = LABELS[(k + 2) % len(LABELS)]
        yield (
            {"__start__": _base(p), "description": f"labeled as {label}"},
            url(f"{_base(p)}/-/issues?label_name={quote(label)}"),
            [ISSUES, ["click", "link", label], ["stop", ""]],
        )


@instantiator(349)
def label_issues(db):
    for k, p in enumerate(spaced(_projects(db), 30)):
        label = LABELS[k % len(LABELS)]
        yield (
            {"repo": p["name"], "label": label},
            url(f"{_base(p)}/-/issues?label_name={quote(label)}"),
            [
                *open_project(db, p),
                ISSUES,
                ["click", "link", label],
                ["stop", ""],
            ],
        )


@instantiator(298)
def who_has_access(db):
    for p in spaced(_projects(db, f"namespace='{CODE_USER}'"), 20):
        others = [
            r[0]
            for r in db.execute(
                "SELECT username FROM code_members WHERE project_id=? AND username != ? "
                "ORDER BY rowid",
                (p["id"], CODE_USER),
            )
        ]
        if not others:
            continue
        answer = ", ".join(others)
        yield (
            {"repo": p["name"]},
            exact(answer),
            [*open_project(db, p), ["click", "link", "Members"], ["stop", answer]],
        )


@instantiator(316)
def top_on_branch(db):
    rows = db.execute(
        "SELECT project_id, branch FROM code_commits WHERE branch != 'main' GROUP BY "
        "project_id, branch ORDER BY project_id, branch"
    ).fetchall()
    k = 0
    for r in spaced(rows, 60):
        ranking = _ranking(db, r["project_id"], "branch=?", (r["branch"],))
        if not _strict_top(ranking, 1):
            continue
        p = db.execute("SELECT * FROM code_projects WHERE id=?", (r["project_id"],)).fetchone()
        user = ranking[0]["author"]
        email = db.execute("SELECT email FROM code_users WHERE username=?", (user,)).fetchone()
        attr, value = (("name", _full_name(db, user)), ("email", email[0] if email else user))[
            k % 2
        ]
        k += 1
        yield (
            {"__start__": _base(p), "attribute": attr, "branch_name": r["branch"]},
            must(value),
            [
                ["click", "link", "Branches"],
                ["click", "link", r["branch"]],
                ["click", "link", "History"],
                ["stop", value],
            ],
        )


@instantiator(320)
def commits_on_date(db):
    for p in spaced(_projects(db)[20:], 25):
        row = db.execute(
            "SELECT author, day, COUNT(*) AS n FROM code_commits WHERE project_id=? AND "
            "branch='main' GROUP BY author, day ORDER BY n DESC, day, author LIMIT 1",
            (p["id"],),
        ).fetchone()
        yield (
            {
                "__start__": _base(p),
                "user": _full_name(db, row["author"]),
                "date": us_date(row["day"]),
            },
            must(str(row["n"])),
            [COMMITS, ["stop", str(row["n"])]],
        )


@instantiator(321)
def commits_in_period(db):
    for p in spaced(_projects(db)[40:], 25):
        row = db.execute(
            "SELECT author, substr(day, 1, 7) AS m, COUNT(*) AS n FROM code_commits WHERE "
            "project_id=? AND branch='main' GROUP BY author, m ORDER BY n DESC, m, author LIMIT 1",
            (p["id"],),
        ).fetchone()
        yield (
            {
                "__start__": _base(p),
                "user": _full_name(db, row["author"]),
                "period": f"in {month_name(row['m'])}",
            },
            must(str(row["n"])),
            [COMMITS, ["stop", str(row["n"])]],
        )


@instantiator(322)
def commits_repo_date(db):
    for p in spaced(_projects(db), 30):
        row = db.execute(
            "SELECT author, day, COUNT(*) AS n FROM code_commits WHERE project_id=? AND "
            "branch='main' GROUP BY author, day ORDER BY n DESC, day, author LIMIT 1",
            (p["id"],),
        ).fetchone()
        yield (
            {"user": _full_name(db, row["author"]), "repo": p["name"], "date": us_date(row["day"])},
            must(str(row["n"])),
            [*open_project(db, p), COMMITS, ["stop", str(row["n"])]],
        )


@instantiator(323)
def most_commits(db):
    for p in spaced(_projects(db)[2:], 40):
        ranking = _ranking(db, p["id"])
        if not _strict_top(ranking, 1):
            continue
        name = _full_name(db, ranking[0]["author"])
        yield (
            {"repo": p["name"]},
            exact(name),
            [*open_project(db, p), COMMITS, ["stop", name]],
        )


@instantiator(324)
def top3(db):
    k = 0
    for p in spaced(_projects(db)[4:], 50):
        ranking = _ranking(db, p["id"])
        if not _strict_top(ranking, 3):
            continue
        attr = ("name", "username")[k % 2]
        k += 1
        values = [
            _full_name(db, r["author"]) if attr == "name" else r["author"] for r in ranking[:3]
        ]
        yield (
            {"attribute": attr, "repo": p["name"]},
            must(*values),
            [*open_project(db, p), COMMITS, ["stop", ", ".join(values)]],
        )


def _new_issue(p, title: str, to_project: list[list[Any]] = ()) -> list[list[Any]]:
    """(``to_project``, when the task starts elsewhere) -> Issues -> New issue -> the form."""
    return [
        *to_project,
        ISSUES,
        ["click", "link", "New issue"],
        ["type", "textbox", "Title", title, 0],
        ["click", "button", "Create issue"],
        ["stop", ""],
    ]


def _issue_made(p, title: str) -> dict[str, Any]:
    return both(
        url(f"{_base(p)}/-/issues"),
        html(("last", 'document.querySelector("h1").outerText', {"exact_match": title})),
    )


@instantiator(328)
def open_issue(db):
    asks = (
        "report the broken link in the README",
        "ask for a dark mode",
        "propose a faster build",
        "report a crash on start-up",
        "request Windows support",
    )
    for k, p in enumerate(spaced(_projects(db)[6:], 30)):
        ask = asks[k % len(asks)]
        title = ask.split(" ", 1)[1].capitalize()
        yield (
            {"issue": ask, "repo": p["name"]},
            _issue_made(p, title),
            _new_issue(p, title, open_project(db, p)),
        )


@instantiator(337)
def discuss_feature(db):
    features = (
        "keyboard shortcuts",
        "a plugin system",
        "localisation",
        "offline mode",
        "an API client",
    )
    for k, p in enumerate(spaced(_projects(db, f"namespace='{CODE_USER}'"), 20)):
        feature = features[k % len(features)]
        title = f"Discussion: implementation of {feature}"
        yield (
            {"__start__": _base(p), "feature": feature},
            _issue_made(p, title),
            _new_issue(p, title),
        )


def _invite(db, p, users: list[str], role: str) -> list[list[Any]]:
    """From the dashboard to the project's Members page, then one invitation a user."""
    steps: list[list[Any]] = [*open_project(db, p), ["click", "link", "Members"]]
    for user in users:
        steps += [
            ["type", "textbox", "Username", user, 0],
            ["click", "radio", role],
            ["click", "button", "Invite"],
        ]
    return [*steps, ["stop", ""]]


def _members_are(p, users: list[str], role: str) -> dict[str, Any]:
    return html(
        *[
            (
                f"{_base(p)}/-/project_members",
                f"func:gitlab_get_project_memeber_role(__page__, '{u}')",
                {"must_include": [role]},
            )
            for u in users
        ]
    )


def _non_members(db, p, n: int, offset: int) -> list[str]:
    return [
        r[0]
        for r in db.execute(
            "SELECT username FROM code_users WHERE username NOT IN (SELECT username FROM "
            "code_members WHERE project_id=?) ORDER BY username LIMIT ? OFFSET ?",
            (p["id"], n, offset),
        )
    ]


@instantiator(351)
def add_as_role(db):
    for k, p in enumerate(spaced(_projects(db)[9:], 30)):
        role = ("Developer", "Reporter", "Maintainer", "Guest")[k % 4]
        users = _non_members(db, p, 2, k)
        yield (
            {"repo": p["name"], "role": role.lower(), "user_list": ", ".join(users)},
            _members_are(p, users, role),
            _invite(db, p, users, role),
        )


@instantiator(293)
def invite_collaborators(db):
    for k, p in enumerate(spaced(_projects(db, f"namespace='{CODE_USER}'"), 25)):
        users = _non_members(db, p, 1 + k % 2, 3 * k)
        yield (
            {"collaborator_account_list": " and ".join(users), "repo": p["name"]},
            _members_are(p, users, "Developer"),
            _invite(db, p, users, "Developer"),
        )


@instantiator(294)
def dotfiles_guest(db):
    p = db.execute(
        "SELECT * FROM code_projects WHERE namespace=? AND name='dotfiles'", (CODE_USER,)
    ).fetchone()
    if p is None:
        return
    for k in range(10):
        users = _non_members(db, p, 1, 5 * k)
        yield ({"name": users[0]}, _members_are(p, users, "Guest"), _invite(db, p, users, "Guest"))


def _my_issues(db) -> list[Any]:
    return db.execute(
        "SELECT i.*, p.namespace, p.name FROM code_issues i JOIN code_projects p ON "
        "p.id=i.project_id WHERE i.author=? ORDER BY i.created DESC, i.id DESC",
        (CODE_USER,),
    ).fetchall()


def _keyword_issues(db) -> list[tuple[str, Any]]:
    """(keyword, my latest issue with it in its title) for keywords that pick one issue."""
    mine = _my_issues(db)
    out = []
    for i in mine:
        for word in i["title"].split():
            word = word.strip("()#,.:").lower()
            if len(word) < 5 or not word.isalpha():
                continue
            first = next(j for j in mine if word in j["title"].lower())
            if first["id"] == i["id"] and word not in [w for w, _ in out]:
                out.append((word, i))
                break
    return out


def _find_my_issue(word: str, issue=None) -> list[list[Any]]:
    """Issues (your dashboard's) -> Created by me -> All (open or closed) -> search ``word``
    -> the newest result, ``issue`` (none when nothing matches)."""
    steps = [
        ["click", "link", "Issues"],
        ["click", "link", "Created by me"],
        ["click", "link", "All"],
        ["type", "searchbox", "Search or filter results...", word, 1],
    ]
    return [*steps, ["click", "link", issue["title"]]] if issue is not None else steps


@instantiator(310)
def latest_updated_issue(db):
    for word, i in _keyword_issues(db)[:15]:
        state = "closed" if i["state"] == "closed" else "open"
        answer = "Yes, it is closed" if state == "closed" else "No, it is open"
        yield (
            {"keyword": word},
            both(
                fuzzy("yes" if state == "closed" else "no"),
                url(f"{GITLAB}/{i['namespace']}/{i['name']}/-/issues/{i['iid']}"),
            ),
            [*_find_my_issue(word, i), ["stop", answer]],
        )
    yield (
        {"keyword": "quantum"},
        na("no issue of mine has 'quantum' in its title"),
        [*_find_my_issue("quantum"), ["stop", "N/A"]],
    )


@instantiator(500)
def latest_created_issue(db):
    for word, i in _keyword_issues(db)[1:16]:
        state = "closed" if i["state"] == "closed" else "open"
        yield (
            {"keyword": word},
            both(
                exact("yes" if state == "closed" else "no"),
                url(f"{GITLAB}/{i['namespace']}/{i['name']}/-/issues/{i['iid']}"),
            ),
            [*_find_my_issue(word, i), ["stop", "yes" if state == "closed" else "no"]],
        )


@instantiator(289)
def starred_contributions(db):
    mine = _projects(
        db,
        f"id IN (SELECT project_id FROM code_commits WHERE author='{CODE_USER}')",
    )
    for n in sorted({p["stars"] for p in mine})[:8]:
        names = [_path(p) for p in mine if p["stars"] == n]
        yield (
            {"description": f"exactly {n}"},
            fuzzy(*names),
            [["click", "link", "Explore projects"], ["stop", ", ".join(names)]],
        )
    yield (
        {"description": "more than 100000"},
        na("none of my repositories has that many stars"),
        [["click", "link", "Explore projects"], ["stop", "N/A"]],
    )


def _unique_name_projects(db) -> list[Any]:
    return _projects(
        db, "name IN (SELECT name FROM code_projects GROUP BY name HAVING COUNT(*) = 1)"
    )


@instantiator(329)
def ssh_clone(db):
    from agentgym_envs.envs.webarena.sites.code import clone_url

    for p in spaced(_unique_name_projects(db), 20):
        answer = f"git clone {clone_url(p, 'ssh')}"
        yield (
            {"repo": p["name"]},
            exact(answer),
            [*open_project(db, p), ["click", "DisclosureTriangle", "Clone"], ["stop", answer]],
        )


@instantiator(999)
def assign_issue(db):
    rows = db.execute(
        "SELECT i.*, p.namespace, p.name FROM code_issues i JOIN code_projects p ON "
        "p.id=i.project_id WHERE i.state='opened' AND p.name IN (SELECT name FROM code_projects "
        "GROUP BY name HAVING COUNT(*) = 1) AND i.title IN (SELECT title FROM code_issues j "
        "WHERE j.project_id=i.project_id GROUP BY title HAVING COUNT(*) = 1) ORDER BY i.id"
    ).fetchall()
    users = [r[0] for r in db.execute("SELECT username FROM code_users ORDER BY username")]
    for k, i in enumerate(spaced(rows, 25)):
        account = users[(7 * k + 3) % len(users)]
        if account == i["assignee"]:
            account = users[(7 * k + 4) % len(users)]
        p = db.execute("SELECT * FROM code_projects WHERE id=?", (i["project_id"],)).fetchone()
        yield (
            {"issue": i["title"].lower(), "repo": p["name"], "account": account},
            html(
                (
                    f"{_base(p)}/-/issues/{i['iid']}",
                    'document.querySelector(".assignee").outerText',
                    {"exact_match": account},
                )
            ),
            [
                *open_project(db, p),
                ISSUES,
                ["type", "searchbox", "Search or filter results...", i["title"], 1],
                ["click", "link", i["title"]],
                ["type", "textbox", "Assignee username", account, 1],
                ["stop", ""],
            ],
        )


def _mine(db) -> set[str]:
    """Names of the projects in the signed-in user's namespace."""
    return {
        r[0] for r in db.execute("SELECT name FROM code_projects WHERE namespace=?", (CODE_USER,))
    }


@instantiator(352)
def fork(db):
    mine = _mine(db)
    rows = [
        p
        for p in _unique_name_projects(db)
        if p["namespace"] != CODE_USER and p["name"] not in mine
    ]
    for p in spaced(rows, 20):
        yield (
            {"repo": p["name"]},
            html((f"{GITLAB}/{CODE_USER}/{p['name']}", "", {"must_include": [p["name"]]})),
            [*open_project(db, p), ["click", "button", "Fork"], ["stop", ""]],
        )


_NUMBER_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight")


@instantiator(354)
def star_top(db):
    rows = db.execute("SELECT * FROM code_projects ORDER BY stars DESC, id").fetchall()
    for n in (5, 3, 1, 4, 2, 6, 8, 7):
        if rows[n - 1]["stars"] == rows[n]["stars"]:
            continue
        top = rows[:n]
        steps: list[list[Any]] = []
        for p in top:
            steps += [
                ["click", "link", "Projects"],
                ["click", "link", "Explore projects"],
                ["click", "link", f"{p['namespace']} / {p['name']}"],
                ["click", "button", "Star"],
            ]
        yield (
            {"number": _NUMBER_WORDS[n - 1]},
            html(
                (
                    f"{GITLAB}/users/{CODE_USER}/starred",
                    "",
                    {"must_include": [f"{p['namespace']} / {p['name']}" for p in top]},
                )
            ),
            [*steps, ["stop", ""]],
        )


def _findable_users(db) -> list[str]:
    """Usernames the top bar's search lists (20 results) when searched for by username."""
    out = []
    for (u,) in db.execute(
        "SELECT username FROM code_users WHERE username != ? ORDER BY 1", (CODE_USER,)
    ):
        hits = [
            r[0]
            for r in db.execute(
                "SELECT username FROM code_users WHERE lower(username) LIKE ? OR lower(name) "
                "LIKE ? ORDER BY username LIMIT 20",
                (f"%{u.lower()}%", f"%{u.lower()}%"),
            )
        ]
        if u in hits:
            out.append(u)
    return out


def _open_user(user: str) -> list[list[Any]]:
    return [["type", "searchbox", "Search GitLab", user, 1], ["click", "link", f"@{user}"]]


@instantiator(330)
def follow_users(db):
    users = _findable_users(db)
    for k in range(10):
        picked = [users[(11 * k + 5 * j + 2) % len(users)] for j in range(1 + k % 3)]
        picked = list(dict.fromkeys(picked))
        steps: list[list[Any]] = []
        for u in picked:
            steps += [*_open_user(u), ["click", "button", "Follow"]]
        yield (
            {"account_list": str(picked)},
            html(
                (
                    f"{GITLAB}/users/{CODE_USER}/following",
                    "document.querySelector('.user-profile').outerText",
                    {"must_include": [f"@{u}" for u in picked]},
                )
            ),
            [*steps, ["stop", ""]],
        )


def _edit_profile(field: str, value: str) -> list[list[Any]]:
    return [
        ["click", "link", "Edit profile"],
        ["type", "textbox", field, value, 0],
        ["click", "button", "Update profile settings"],
        ["stop", ""],
    ]


@instantiator(361)
def set_status(db):
    statuses = (
        "In a meeting",
        "Away until Monday",
        "Focusing on reviews",
        "Working remotely",
        "On parental leave",
        "Travelling",
        "Out sick",
        "Available",
    )
    for status in statuses:
        yield (
            {"status": status},
            html(
                (
                    f"{GITLAB}/{CODE_USER}",
                    "document.querySelector('.cover-status').lastChild.textContent",
                    {"exact_match": status},
                )
            ),
            _edit_profile("Status message", status),
        )


@instantiator(331)
def set_homepage(db):
    sites = (
        "https://blaze.dev",
        "https://byte.blaze.io",
        "https://notes.example.org",
        "https://www.lanterns.net",
        "https://pixel-garden.com",
        "https://fern.works",
        "https://quiet-harbor.org",
        "https://tea.and.code.com",
    )
    for site in sites:
        yield (
            {"url": site},
            html(
                (
                    f"{GITLAB}/{CODE_USER}",
                    "document.querySelector('.profile-header [itemprop=\"url\"]').outerText",
                    {"exact_match": site.split("://", 1)[1]},
                )
            ),
            _edit_profile("Website URL", site),
        )


@instantiator(312)
def feed_token(db):
    from agentgym_envs.envs.webarena.sites.code_social import feed_token as token

    answer = token(CODE_USER)
    yield (
        {},
        exact(answer),
        [["click", "link", "Edit profile"], ["click", "link", "Access Tokens"], ["stop", answer]],
    )


def _create_project(name: str, visibility: str = "") -> list[list[Any]]:
    """From the dashboard: New project -> name (and visibility) -> Create project."""
    return [
        ["click", "link", "New project"],
        ["type", "textbox", "Project name", name, 0],
        *([["click", "radio", visibility]] if visibility else []),
        ["click", "button", "Create project"],
    ]


@instantiator(292)
def new_repository(db):
    names = (
        "weather_cli",
        "notes-sync",
        "tiny_http",
        "budget-tracker",
        "recipe_box",
        "markdown-lint",
        "sensor_logger",
        "chess-engine",
    )
    mine = _mine(db)
    for name in names:
        if name in mine:
            continue
        yield (
            {"project_name": name},
            html((f"{GITLAB}/{CODE_USER}/{name}", "", {"must_include": [name]})),
            [*_create_project(name), ["stop", ""]],
        )


@instantiator(332)
def new_project_with_members(db):
    if "planner" in _mine(db):
        return
    users = _findable_users(db)
    for k in range(10):
        scope = ("private", "public")[k % 2]
        picked = list(dict.fromkeys(users[(13 * k + 7 * j + 4) % len(users)] for j in range(2)))
        steps = [*_create_project("planner", scope.capitalize()), ["click", "link", "Members"]]
        for u in picked:
            steps += [
                ["type", "textbox", "Username", u, 0],
                ["click", "radio", "Developer"],
                ["click", "button", "Invite"],
            ]
        base = f"{GITLAB}/{CODE_USER}/planner"
        yield (
            {"scope": scope, "account_list": ", ".join(picked)},
            html(
                (
                    base,
                    "document.querySelector('.visibility-icon').getAttribute('title')",
                    {"must_include": [scope]},
                ),
                (f"{base}/-/project_members", "", {"must_include": [f"@{u}" for u in picked]}),
            ),
            [*steps, ["stop", ""]],
        )


def _unique_mrs(db) -> list[Any]:
    """Merge requests whose title is their project's only one so named, in projects whose
    name is unique."""
    return db.execute(
        "SELECT m.*, p.namespace, p.name FROM code_merge_requests m JOIN code_projects p ON "
        "p.id=m.project_id WHERE p.name IN (SELECT name FROM code_projects GROUP BY name "
        "HAVING COUNT(*) = 1) AND m.title IN (SELECT title FROM code_merge_requests j WHERE "
        "j.project_id=m.project_id GROUP BY title HAVING COUNT(*) = 1) ORDER BY m.id"
    ).fetchall()


#: A project's sidebar "Merge requests" (the top bar's, your dashboard's, comes first).
MERGE_REQUESTS = ["click", "link", "Merge requests", 2]


@instantiator(348)
def comment_on_mr(db):
    notes = (
        "Thanks, I will look at the failing test",
        "Looks good to me, merging after CI passes",
        "Could you rebase this on main?",
        "Please add a changelog entry",
        "Nice work, just one small nit left",
    )
    for k, m in enumerate(spaced(_unique_mrs(db), 25)):
        p = db.execute("SELECT * FROM code_projects WHERE id=?", (m["project_id"],)).fetchone()
        content = notes[k % len(notes)]
        yield (
            {"content": content, "mr": m["title"].lower(), "repo": p["name"]},
            html((f"{_base(p)}/-/merge_requests/{m['iid']}", "", {"must_include": [content]})),
            [
                *open_project(db, p),
                MERGE_REQUESTS,
                ["click", "link", m["title"]],
                ["type", "textbox", "Comment", content, 0],
                ["click", "button", "Comment"],
                ["stop", ""],
            ],
        )


def _day(day: str) -> str:
    from agentgym_envs.envs.webarena.sites.code_plans import show_day

    return show_day(day)


@instantiator(339)
def milestone(db):
    events = (
        ("the 2.0 release", "2030-01-16", "2030-01-30"),
        ("the accessibility audit", "2030-03-02", "2030-03-20"),
        ("the documentation sprint", "2030-05-11", "2030-05-25"),
        ("the security review", "2030-07-01", "2030-07-15"),
        ("the beta program", "2030-09-08", "2030-10-06"),
        ("the holiday code freeze", "2030-12-15", "2031-01-05"),
    )
    for (event, start, end), p in zip(
        events, spaced(_projects(db, f"namespace='{CODE_USER}'"), len(events)), strict=False
    ):
        title = event.removeprefix("the ")
        yield (
            {
                "__start__": _base(p),
                "event": event,
                "start_date": us_date(start),
                "end_date": us_date(end),
            },
            both(
                url(f"{_base(p)}/-/milestones"),
                html(
                    (
                        "last",
                        'document.querySelector("#content-body").outerText',
                        {"must_include": [title]},
                    ),
                    (
                        "last",
                        "document.querySelector('.block.start_date').outerText",
                        {"must_include": [_day(start)]},
                    ),
                    (
                        "last",
                        "document.querySelector('.block.due_date').outerText",
                        {"must_include": [_day(end)]},
                    ),
                ),
            ),
            [
                ["click", "link", "Milestones"],
                ["click", "link", "New milestone"],
                ["type", "textbox", "Title", title, 0],
                ["type", "textbox", "Start date", start, 0],
                ["type", "textbox", "Due date", end, 0],
                ["click", "button", "Create milestone"],
                ["stop", ""],
            ],
        )


@instantiator(327)
def issue_with_due_date(db):
    titles = (
        "502 error on the login page",
        "Search results are not paginated",
        "Broken image on the about page",
        "Slow start-up with many plugins",
        "Typo in the installation guide",
        "Dark theme loses contrast",
    )
    dues = (
        ("the end of 2030", "2030-12-31"),
        ("the end of January 2031", "2031-01-31"),
        ("the end of June 2030", "2030-06-30"),
        ("the end of March 2031", "2031-03-31"),
    )
    users = _findable_users(db)
    for k, p in enumerate(spaced(_unique_name_projects(db)[3:], len(titles))):
        title, (due, day) = titles[k], dues[k % len(dues)]
        account = users[(17 * k + 9) % len(users)]
        yield (
            {"repo": p["name"], "issue": title, "account": account, "due": due},
            both(
                url(f"{_base(p)}/-/issues"),
                html(
                    (
                        "last",
                        "document.querySelector('[data-qa-selector=\"title_content\"]').outerText",
                        {"exact_match": title},
                    ),
                    (
                        "last",
                        "document.querySelector('[data-testid=\"sidebar-due-date\"]').outerText",
                        {"must_include": [_day(day)]},
                    ),
                    (
                        "last",
                        "document.querySelector('.block.assignee').outerText",
                        {"must_include": [_full_name(db, account)]},
                    ),
                ),
            ),
            [
                *open_project(db, p),
                ISSUES,
                ["click", "link", "New issue"],
                ["type", "textbox", "Title", title, 0],
                ["type", "textbox", "Assignee", account, 0],
                ["type", "textbox", "Due date", day, 0],
                ["click", "button", "Create issue"],
                ["stop", ""],
            ],
        )


@instantiator(335)
def mr_with_reviewer(db):
    rows = db.execute(
        "SELECT project_id, group_concat(DISTINCT branch) AS b FROM (SELECT project_id, branch "
        "FROM code_commits WHERE branch != 'main' ORDER BY branch) GROUP BY project_id "
        "ORDER BY project_id"
    ).fetchall()
    users = _findable_users(db)
    for k, r in enumerate(spaced(rows, 12)):
        branches = sorted(r["b"].split(","))
        source = branches[0]
        target = branches[1] if k % 2 and len(branches) > 1 else "main"
        p = db.execute("SELECT * FROM code_projects WHERE id=?", (r["project_id"],)).fetchone()
        reviewer = users[(19 * k + 5) % len(users)]
        yield (
            {
                "__start__": _base(p),
                "source_branch": source,
                "target_branch": target,
                "reviewer": reviewer,
            },
            both(
                url(f"{_base(p)}/-/merge_requests"),
                html(
                    (
                        "last",
                        'document.querySelectorAll(".detail-page-description > '
                        'a.gl-font-monospace")[1].outerText',
                        {"exact_match": target},
                    ),
                    (
                        "last",
                        'document.querySelectorAll(".detail-page-description > '
                        'a.gl-font-monospace")[0].outerText',
                        {"exact_match": source},
                    ),
                    (
                        "last",
                        "document.querySelector('.block.reviewer').outerText",
                        {"must_include": [_full_name(db, reviewer)]},
                    ),
                ),
            ),
            [
                MERGE_REQUESTS,
                ["click", "link", "New merge request"],
                ["type", "textbox", "Source branch", source, 0],
                ["type", "textbox", "Target branch", target, 0],
                ["type", "textbox", "Reviewer", reviewer, 0],
                ["click", "button", "Create merge request"],
                ["stop", ""],
            ],
        )


@instantiator(290)
def mrs_assigned_to_me(db):
    yield (
        {},
        url(f"{GITLAB}/dashboard/merge_requests?assignee_username={CODE_USER}"),
        [["click", "link", "Merge requests"], ["click", "link", "Assigned to you"], ["stop", ""]],
    )


@instantiator(291)
def mrs_to_review(db):
    yield (
        {},
        url(f"{GITLAB}/dashboard/merge_requests?reviewer_username={CODE_USER}"),
        [
            ["click", "link", "Merge requests"],
            ["click", "link", "Review requests for you"],
            ["stop", ""],
        ],
    )


@instantiator(600)
def new_group(db):
    names = ("n-lab", "ml-reading", "infra-guild", "web-crew", "data-club", "ops-team")
    taken = {
        r[0]
        for r in db.execute("SELECT path FROM code_groups UNION SELECT username FROM code_users")
    }
    users = _findable_users(db)
    for k, name in enumerate(n for n in names if n not in taken):
        picked = list(
            dict.fromkeys(users[(23 * k + 3 * j + 1) % len(users)] for j in range(2 + k % 3))
        )
        steps = [
            ["click", "link", "Groups"],
            ["click", "link", "New group"],
            ["type", "textbox", "Group name", name, 0],
            ["click", "button", "Create group"],
            ["click", "link", "Members"],
        ]
        for u in picked:
            steps += [["type", "textbox", "Username", u, 0], ["click", "button", "Invite"]]
        yield (
            {"name": name, "members": ", ".join(picked)},
            html(
                (
                    f"{GITLAB}/groups/{name}/-/group_members",
                    "",
                    {"must_include": [f"@{u}" for u in picked]},
                )
            ),
            [*steps, ["stop", ""]],
        )


@instantiator(355)
def license_to_mit(db):
    from agentgym_envs.envs.webarena.sites.repos import MIT, license_of

    rows = [
        p
        for p in _unique_name_projects(db)
        if p["namespace"] == CODE_USER and license_of(p["name"]) != "MIT"
    ]
    for p in spaced(rows, 10):
        text = MIT.format(year=2023, owner=p["namespace"])
        yield (
            {"repo": _path(p)},
            html((f"{_base(p)}/-/raw/main/LICENSE", "", {"must_include": ["MIT license"]})),
            [
                *open_project(db, p),
                ["click", "link", "📄 LICENSE"],
                ["click", "link", "Edit"],
                ["type", "textbox", "File content", text, 0],
                ["type", "textbox", "Commit message", "Switch the license to MIT", 0],
                ["click", "button", "Commit changes"],
                ["stop", ""],
            ],
        )


@instantiator(2100)
def project_from_template(db):
    from agentgym_envs.envs.webarena.sites.code_files import TEMPLATES

    names = ("awesome_agents", "shop_api", "field_notes", "trail-app", "static_site", "kanban")
    mine, users = _mine(db), _findable_users(db)
    templates = list(TEMPLATES)
    for k, name in enumerate(n for n in names if n not in mine):
        template = templates[k % len(templates)]
        picked = list(dict.fromkeys(users[(29 * k + 11 * j + 6) % len(users)] for j in range(2)))
        steps = [
            ["click", "link", "New project"],
            ["type", "textbox", "Project name", name, 0],
            ["click", "radio", "Private"],
            ["click", "radio", template],
            ["click", "button", "Create project"],
            ["click", "link", "Members"],
        ]
        for u in picked:
            steps += [["type", "textbox", "Username", u, 0], ["click", "button", "Invite"]]
        base = f"{GITLAB}/{CODE_USER}/{name}"
        yield (
            {
                "project_name": name,
                "template": "blank" if template == "Blank" else template,
                "account_list": ", ".join(picked),
            },
            html(
                (
                    base,
                    "document.querySelector('.visibility-icon').getAttribute('title')",
                    {"must_include": ["Private"]},
                ),
                (f"{base}/-/commits", "", {"must_include": ["Initial commit"]}),
                (f"{base}/-/project_members", "", {"must_include": [f"@{u}" for u in picked]}),
            ),
            [*steps, ["stop", ""]],
        )


def _post_links(posts) -> tuple[list[str], str]:
    """The posts' paths (what the check looks for: hosts differ between local sites and a
    deployment) and the file text with their addresses as the agent sees them."""
    paths = [f"/f/{p['forum']}/{p['id']}" for p in posts]
    return paths, "\n".join(f"http://reddit.com{path}" for path in paths) + "\n"


def _to_forum_tab(db, forum: str, tab: str) -> list[list[Any]]:
    from agentgym_envs.envs.webarena.wa_forum import to_forum

    return [["goto", "__REDDIT__"], *to_forum(db, forum), ["click", "link", tab]]


@instantiator(84)
def recent_posts_file(db):
    forums = [
        r[0]
        for r in db.execute(
            "SELECT forum FROM forum_posts GROUP BY forum HAVING COUNT(*) >= 5 ORDER BY forum"
        )
    ]
    repos = _projects(db, f"namespace='{CODE_USER}'")
    folders = ("real_space", "reading_list", "links", "digest", "weekly", "notes")
    for k, forum in enumerate(spaced(forums, 6)):
        posts = db.execute(
            "SELECT * FROM forum_posts WHERE forum=? ORDER BY created DESC, id DESC LIMIT 5",
            (forum,),
        ).fetchall()
        p = repos[(7 * k + 2) % len(repos)]
        folder = folders[k % len(folders)]
        paths, text = _post_links(posts)
        yield (
            {"directory": folder, "gitlab_repo": p["name"], "subreddit": forum},
            html(
                (
                    f"{_base(p)}/-/raw/main/{folder}/urls.txt",
                    "",
                    {"must_include": paths},
                )
            ),
            [
                *_to_forum_tab(db, forum, "New"),
                ["goto", "__GITLAB__"],
                *open_project(db, p),
                ["click", "link", "New file"],
                ["type", "textbox", "File name", f"{folder}/urls.txt", 0],
                ["type", "textbox", "File content", text, 0],
                ["click", "button", "Commit changes"],
                ["stop", ""],
            ],
        )
    yield (
        {"directory": "moon_base", "gitlab_repo": repos[0]["name"], "subreddit": "moonbase"},
        na("the forum has no moonbase forum"),
        [["goto", "__REDDIT__"], ["click", "link", "Forums"], ["stop", "N/A"]],
    )


@instantiator(88)
def top_posts_readme(db):
    ranked = db.execute(
        "SELECT *, base_score + COALESCE((SELECT SUM(value) FROM forum_votes v WHERE "
        "v.post_id = forum_posts.id), 0) AS score FROM forum_posts WHERE forum='diy' "
        "ORDER BY score DESC, id"
    ).fetchall()
    names = ("Awesome_DIY_ideas", "diy_favourites", "DIY-hall-of-fame", "best_of_diy", "diy_picks")
    mine = _mine(db)
    for k, name in enumerate(n for n in names if n not in mine):
        n = (6, 4, 5, 3, 7)[k]
        if len(ranked) <= n or ranked[n - 1]["score"] == ranked[n]["score"]:
            continue
        paths, text = _post_links(ranked[:n])
        yield (
            {"name": name, "num": n},
            html(
                (
                    f"{GITLAB}/{CODE_USER}/{name}/-/raw/main/README.md",
                    "",
                    {"must_include": paths},
                )
            ),
            [
                *_to_forum_tab(db, "diy", "Top"),
                ["goto", "__GITLAB__"],
                *_create_project(name),
                ["click", "link", "📄 README.md"],
                ["click", "link", "Edit"],
                ["type", "textbox", "File content", f"# {name}\n\n{text}", 0],
                ["click", "button", "Commit changes"],
                ["stop", ""],
            ],
        )


@instantiator(308)
def site_title(db):
    from agentgym_envs.envs.webarena.sites.repos import site_page

    titles = ("GIVE ME SPACE", "Welcome to the lab", "Under construction", "Tiny tools", "Hello")
    rows = _projects(db, "language='JavaScript'")
    for k, p in enumerate(spaced(rows, len(titles))):
        title = titles[k]
        old = site_page(p["name"], p["description"])
        new = old.replace(f"<title>{p['name']}</title>", f"<title>{title}</title>")
        yield (
            {"__start__": _base(p), "title": title},
            html(
                (
                    f"{_base(p)}/-/raw/main/index.html",
                    "",
                    {"must_include": [f"<title>{title}</title>"]},
                )
            ),
            [
                ["click", "link", "📄 index.html"],
                ["click", "link", "Edit"],
                ["type", "textbox", "File content", new, 0],
                ["type", "textbox", "Commit message", "Retitle the site", 0],
                ["click", "button", "Commit changes"],
                ["stop", ""],
            ],
        )


@instantiator(360)
def answer_review_thread(db):
    rows = db.execute(
        "SELECT m.* FROM code_merge_requests m WHERE m.reviewer=? AND m.state='opened' AND "
        "m.title IN (SELECT title FROM code_merge_requests WHERE reviewer=? GROUP BY title "
        "HAVING COUNT(*) = 1) ORDER BY m.id",
        (CODE_USER, CODE_USER),
    ).fetchall()
    for m in spaced(rows, 12):
        last = db.execute(
            "SELECT author FROM code_notes WHERE project_id=? AND mr_iid=? ORDER BY id DESC",
            (m["project_id"], m["iid"]),
        ).fetchone()
        if last is None:
            continue
        reply = "Thank you" if last[0] == m["author"] else f"@{m['author']}"
        p = db.execute("SELECT * FROM code_projects WHERE id=?", (m["project_id"],)).fetchone()
        yield (
            {"topic": m["title"].lower()},
            html(
                (
                    f"{_base(p)}/-/merge_requests/{m['iid']}",
                    "document.querySelector('[id=\"notes-list\"').lastElementChild"
                    ".querySelector('.timeline-discussion-body').outerText",
                    {"exact_match": reply},
                )
            ),
            [
                ["click", "link", "Merge requests"],
                ["click", "link", "Review requests for you"],
                ["type", "searchbox", "Search or filter results...", m["title"], 1],
                ["click", "link", m["title"]],
                ["type", "textbox", "Comment", reply, 0],
                ["click", "button", "Comment"],
                ["stop", ""],
            ],
        )
