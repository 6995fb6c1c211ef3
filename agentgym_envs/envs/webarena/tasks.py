"""WebArena tasks: generated from templates over the seeded sites, or loaded from WebArena's
own config files for a user's deployment.

Every task is a WebArena config dict (``intent``, ``start_url``, ``sites``, ``require_login``,
``eval`` ...) whose URLs hold WebArena's placeholders (``__SHOPPING__``); the env maps them to
the sites it serves. Generated tasks also carry ``agentgym_solution``, the plan the scripted
expert follows through the browser: steps ``["click", role, name]``,
``["type", role, name, text, enter]``, ``["press", key]``, ``["goto", url]``,
``["stop", answer]``.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from agentgym_envs.core import Task, TaskSource
from agentgym_envs.envs.webarena.sites.data import (
    FORUM_USER,
    SHOP_USER,
    seed_database,
)
from agentgym_envs.errors import BadDataError
from agentgym_envs.spec import family_record

#: WebArena's placeholders -> site keys.
PLACEHOLDERS = {
    "__SHOPPING_ADMIN__": "shopping_admin",
    "__SHOPPING__": "shopping",
    "__REDDIT__": "reddit",
    "__GITLAB__": "gitlab",
    "__MAP__": "map",
    "__WIKIPEDIA__": "wikipedia",
    "__HOMEPAGE__": "homepage",
}
#: AgentGym's URL_MAPPINGS: the "real" host shown to the agent for each site.
REAL_HOSTS = {
    "shopping": "http://onestopmarket.com",
    "shopping_admin": "http://luma.com/admin",
    "reddit": "http://reddit.com",
    "gitlab": "http://gitlab.com",
    "map": "http://openstreetmap.org",
    "wikipedia": "http://wikipedia.org",
    "homepage": "http://homepage.com",
}
#: Templates whose first instance is a test task: five per site, every kind of task on
#: every site, 20 in all (AgentEval's WebArena size). Every other instance is a train task.
TEST_TEMPLATES = frozenset(
    {
        "shop_price",
        "shop_order_status",
        "shop_search_nav",
        "shop_wishlist",
        "shop_review_write",
        "admin_invoice_total",
        "admin_review_term",
        "admin_order_status_nav",
        "admin_update_price",
        "admin_cancel_order",
        "forum_bio",
        "forum_upvote_newest",
        "forum_open",
        "forum_comment_count",
        "forum_new_post",
        "code_todos",
        "code_open_issues",
        "code_label_issues_nav",
        "code_new_issue",
        "code_invite_member",
    }
)


@dataclass(frozen=True)
class WebArenaTask(Task):
    """One task: a WebArena config (placeholders unresolved unless loaded from a deployment)."""

    config: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def intent(self) -> str:
        return str(self.config.get("intent", ""))


def resolve(text: str, urls: dict[str, str]) -> str:
    """Replace WebArena's placeholders in ``text`` with ``urls[site]``."""
    for placeholder, site in PLACEHOLDERS.items():
        if placeholder in text and site in urls:
            text = text.replace(placeholder, urls[site].rstrip("/"))
    return text


def resolve_config(config: dict[str, Any], urls: dict[str, str]) -> dict[str, Any]:
    """A deep copy of ``config`` with every placeholder replaced."""
    return json.loads(resolve(json.dumps(config), urls))


# -- templates ----------------------------------------------------------------------------
Template = Callable[[sqlite3.Connection], Iterator[dict[str, Any]]]
TEMPLATES: list[tuple[str, Template]] = []


def template(template_id: str) -> Callable[[Template], Template]:
    def add(fn: Template) -> Template:
        TEMPLATES.append((template_id, fn))
        return fn

    return add


def _config(
    site: str,
    intent: str,
    template_text: str,
    start: str,
    eval_: dict[str, Any],
    solution: list[list[Any]],
    login: bool = True,
    **inst: Any,
) -> dict[str, Any]:
    ev = {
        "eval_types": [],
        "reference_answers": None,
        "reference_url": "",
        "program_html": [],
        "string_note": "",
    }
    ev.update(eval_)
    return {
        "sites": [site],
        "require_login": login,
        "storage_state": f"./.auth/{site}_state.json" if login else None,
        "start_url": start,
        "geolocation": None,
        "intent_template": template_text,
        "instantiation_dict": inst,
        "intent": intent,
        "require_reset": False,
        "eval": ev,
        "agentgym_solution": solution,
    }


def _money(value: float) -> str:
    return f"${value:,.2f}"


def _unique_products(db: sqlite3.Connection, limit: int) -> list[sqlite3.Row]:
    rows = db.execute(
        "SELECT * FROM shop_products WHERE name IN (SELECT name FROM shop_products GROUP BY name "
        "HAVING COUNT(*) = 1) ORDER BY id"
    ).fetchall()
    return rows[:limit]


def _search(name: str) -> list[list[Any]]:
    return [["type", "searchbox", "Search entire store here...", name, 1], ["click", "link", name]]


@template("shop_price")
def _shop_price(db):
    tpl = "What is the price of {{product}} in the One Stop Market?"
    for p in _unique_products(db, 40):
        yield _config(
            "shopping",
            tpl.replace("{{product}}", p["name"]),
            tpl,
            "__SHOPPING__",
            {
                "eval_types": ["string_match"],
                "reference_answers": {"must_include": [f"{p['price']:.2f}"]},
            },
            [
                ["type", "searchbox", "Search entire store here...", p["name"], 1],
                ["stop", _money(p["price"])],
            ],
            login=False,
            product=p["name"],
        )


@template("shop_review_count")
def _shop_review_count(db):
    tpl = "How many customer reviews does {{product}} have?"
    for p in _unique_products(db, 80)[40:]:
        n = db.execute(
            "SELECT COUNT(*) FROM shop_reviews WHERE product_id=?", (p["id"],)
        ).fetchone()[0]
        yield _config(
            "shopping",
            tpl.replace("{{product}}", p["name"]),
            tpl,
            "__SHOPPING__",
            {"eval_types": ["string_match"], "reference_answers": {"must_include": [str(n)]}},
            [*_search(p["name"]), ["stop", str(n)]],
            login=False,
            product=p["name"],
        )


@template("shop_order_status")
def _shop_order_status(db):
    tpl = "Tell me the status of my order {{number}}."
    rows = db.execute(
        "SELECT * FROM shop_orders WHERE email=? ORDER BY created DESC, id DESC", (SHOP_USER,)
    ).fetchall()
    for i, o in enumerate(rows[:20]):
        pages = [["click", "link", "Next Page"]] * (i // 10)  # the history shows 10 a page
        yield _config(
            "shopping",
            tpl.replace("{{number}}", o["number"]),
            tpl,
            "__SHOPPING__",
            {"eval_types": ["string_match"], "reference_answers": {"must_include": [o["status"]]}},
            [
                ["click", "link", "My Account"],
                ["click", "link", "My Orders"],
                *pages,
                ["click", "link", f"View Order {o['number']}"],
                ["stop", o["status"].capitalize()],
            ],
            number=o["number"],
        )


@template("shop_search_nav")
def _shop_search_nav(db):
    tpl = 'Search for "{{query}}" in the store.'
    cats = [r[0] for r in db.execute("SELECT DISTINCT category FROM shop_products ORDER BY 1")]
    words = sorted(
        {
            w.lower()
            for (n,) in db.execute("SELECT name FROM shop_products")
            for w in n.split()
            if w.isalpha() and len(w) > 5
        }
    )
    for q in [c.lower() for c in cats] + words[:25]:
        yield _config(
            "shopping",
            tpl.replace("{{query}}", q),
            tpl,
            "__SHOPPING__",
            {
                "eval_types": ["url_match"],
                "reference_url": f"__SHOPPING__/catalogsearch/result/?q={q}",
                "url_note": "GOLD in PRED",
            },
            [["type", "searchbox", "Search entire store here...", q, 1], ["stop", ""]],
            login=False,
            query=q,
        )


@template("shop_wishlist")
def _shop_wishlist(db):
    tpl = "Add {{product}} to my wish list."
    for p in _unique_products(db, 120)[80:100]:
        yield _config(
            "shopping",
            tpl.replace("{{product}}", p["name"]),
            tpl,
            "__SHOPPING__",
            {
                "eval_types": ["program_html"],
                "program_html": [
                    {
                        "url": "__SHOPPING__/wishlist",
                        "locator": "",
                        "required_contents": {"must_include": [p["name"]]},
                    }
                ],
            },
            [*_search(p["name"]), ["click", "button", "Add to Wish List"], ["stop", ""]],
            product=p["name"],
        )


@template("shop_review_write")
def _shop_review_write(db):
    tpl = 'Write a {{stars}}-star review of {{product}} as "{{nickname}}" with the summary "{{summary}}".'
    nicks = ["Emma L", "happy buyer", "EmmaShops", "Lopez E"]
    for i, p in enumerate(_unique_products(db, 140)[100:120]):
        stars, nick, summary = 1 + i % 5, nicks[i % 4], ["Loved it", "Not great", "Okay"][i % 3]
        intent = (
            tpl.replace("{{stars}}", str(stars))
            .replace("{{product}}", p["name"])
            .replace("{{nickname}}", nick)
            .replace("{{summary}}", summary)
        )
        yield _config(
            "shopping",
            intent,
            tpl,
            "__SHOPPING__",
            {
                "eval_types": ["program_html"],
                "program_html": [
                    {
                        "url": "last",
                        "locator": f"func:shopping_get_sku_latest_review_author('{p['sku']}')",
                        "required_contents": {"must_include": [nick]},
                    },
                    {
                        "url": "last",
                        "locator": f"func:shopping_get_sku_latest_review_rating('{p['sku']}')",
                        "required_contents": {"must_include": [str(stars * 20)]},
                    },
                ],
            },
            [
                *_search(p["name"]),
                ["type", "textbox", "Nickname", nick, 0],
                ["click", "radio", f"{stars} stars"],
                ["type", "textbox", "Summary", summary, 0],
                ["click", "button", "Submit Review"],
                ["stop", ""],
            ],
            login=False,
            product=p["name"],
            stars=stars,
            nickname=nick,
            summary=summary,
        )


@template("admin_invoice_total")
def _admin_invoice_total(db):
    tpl = "Tell me the grand total of invoice {{id}}."
    for inv in db.execute("SELECT * FROM shop_invoices ORDER BY id DESC LIMIT 15"):
        yield _config(
            "shopping_admin",
            tpl.replace("{{id}}", inv["number"]),
            tpl,
            "__SHOPPING_ADMIN__",
            {
                "eval_types": ["string_match"],
                "reference_answers": {"must_include": [f"{inv['grand_total']:,.2f}"]},
            },
            [
                ["click", "link", "Invoices"],
                ["type", "searchbox", "Search by invoice number", inv["number"], 1],
                ["stop", _money(inv["grand_total"])],
            ],
            id=inv["number"],
        )


@template("admin_bestseller")
def _admin_bestseller(db):
    tpl = "What is the top-1 best-selling product in {{year}}?"
    for year in ("2022", "2023"):
        top = db.execute(
            "SELECT p.name, SUM(i.qty) AS sold FROM shop_order_items i JOIN shop_orders o "
            "ON o.id=i.order_id JOIN shop_products p ON p.id=i.product_id WHERE "
            "o.status != 'canceled' AND substr(o.created, 1, 4)=? GROUP BY p.id "
            "ORDER BY sold DESC, p.name LIMIT 1",
            (year,),
        ).fetchone()
        yield _config(
            "shopping_admin",
            tpl.replace("{{year}}", year),
            tpl,
            "__SHOPPING_ADMIN__",
            {"eval_types": ["string_match"], "reference_answers": {"exact_match": top["name"]}},
            [["click", "link", "Reports"], ["click", "link", year], ["stop", top["name"]]],
            n=1,
            year=year,
        )


@template("admin_review_term")
def _admin_review_term(db):
    tpl = (
        'Tell me the number of reviews that our store received by far that mention term "{{term}}".'
    )
    from agentgym_envs.envs.webarena.sites.data import REVIEW_PHRASES

    for term in REVIEW_PHRASES:
        n = db.execute(
            "SELECT COUNT(*) FROM shop_reviews WHERE lower(body) LIKE ?", (f"%{term}%",)
        ).fetchone()[0]
        yield _config(
            "shopping_admin",
            tpl.replace("{{term}}", term),
            tpl,
            "__SHOPPING_ADMIN__",
            {"eval_types": ["string_match"], "reference_answers": {"must_include": [str(n)]}},
            [
                ["click", "link", "Reviews"],
                ["type", "searchbox", "Search reviews", term, 1],
                ["stop", str(n)],
            ],
            term=term,
        )


@template("admin_order_status_nav")
def _admin_order_status_nav(db):
    tpl = "Show me the orders with status {{status}}."
    for status in ("canceled", "pending", "complete", "processing"):
        yield _config(
            "shopping_admin",
            tpl.replace("{{status}}", status),
            tpl,
            "__SHOPPING_ADMIN__",
            {
                "eval_types": ["url_match"],
                "reference_url": f"__SHOPPING_ADMIN__/sales/order?status={status}",
                "url_note": "GOLD in PRED",
            },
            [["click", "link", "Orders"], ["click", "link", status.capitalize()], ["stop", ""]],
            status=status,
        )


@template("admin_update_price")
def _admin_update_price(db):
    tpl = "Update the price of {{product}} to ${{price}}."
    for i, p in enumerate(_unique_products(db, 160)[120:140]):
        price = f"{round(p['price'] * 1.1 + 1 + i % 3, 2):.2f}"
        yield _config(
            "shopping_admin",
            tpl.replace("{{product}}", p["name"]).replace("{{price}}", price),
            tpl,
            "__SHOPPING_ADMIN__",
            {
                "eval_types": ["program_html"],
                "program_html": [
                    {
                        "url": f"__SHOPPING_ADMIN__/catalog/product/edit/{p['id']}",
                        "locator": 'document.querySelector("[name=price]").value',
                        "required_contents": {"exact_match": price},
                    }
                ],
            },
            [
                ["click", "link", "Products"],
                ["type", "searchbox", "Search by keyword", p["name"], 1],
                ["click", "link", f"Edit {p['name']}"],
                ["click", "textbox", "Price"],
                ["press", "Meta+a"],
                ["press", "Backspace"],
                ["type", "textbox", "Price", price, 0],
                ["click", "button", "Save Product"],
                ["stop", ""],
            ],
            product=p["name"],
            price=price,
        )


@template("admin_cancel_order")
def _admin_cancel_order(db):
    tpl = "Cancel order {{number}}."
    for o in db.execute(
        "SELECT * FROM shop_orders WHERE status IN ('pending', 'processing') ORDER BY id"
    ):
        yield _config(
            "shopping_admin",
            tpl.replace("{{number}}", o["number"]),
            tpl,
            "__SHOPPING_ADMIN__",
            {
                "eval_types": ["program_html"],
                "program_html": [
                    {
                        "url": f"__SHOPPING_ADMIN__/sales/order/view/{o['id']}",
                        "locator": 'document.querySelector(".order-status").outerText',
                        "required_contents": {"exact_match": "Canceled"},
                    }
                ],
            },
            [
                ["click", "link", "Orders"],
                ["type", "searchbox", "Search by order number", o["number"], 1],
                ["click", "link", f"View Order {o['number']}"],
                ["click", "button", "Cancel Order"],
                ["stop", ""],
            ],
            number=o["number"],
        )


BIOS = [
    "I am a robot",
    "Pro Python Developer with 20 years of Experience",
    "Seeking SDE positions",
    "Freelance Web Developer",
    "Yoga enthusiast",
]


@template("forum_bio")
def _forum_bio(db):
    tpl = 'Change my reddit bio to "{{content}}"'
    for bio in BIOS:
        yield _config(
            "reddit",
            tpl.replace("{{content}}", bio),
            tpl,
            "__REDDIT__",
            {
                "eval_types": ["program_html"],
                "program_html": [
                    {
                        "url": f"__REDDIT__/user/{FORUM_USER}",
                        "locator": 'document.querySelector(".user-bio__biography").outerText',
                        "required_contents": {"exact_match": bio},
                    }
                ],
            },
            [
                ["click", "link", FORUM_USER],
                ["click", "link", "Edit biography"],
                ["type", "textbox", "Biography", bio, 0],
                ["click", "button", "Save"],
                ["stop", ""],
            ],
            content=bio,
        )


def _forums(db):
    return [r["name"] for r in db.execute("SELECT name FROM forum_forums ORDER BY name")]


@template("forum_upvote_newest")
def _forum_upvote_newest(db):
    tpl = "Upvote the newest post in {{subreddit}} subreddit"
    for forum in _forums(db):
        post = db.execute(
            "SELECT * FROM forum_posts WHERE forum=? ORDER BY created DESC LIMIT 1", (forum,)
        ).fetchone()
        yield _config(
            "reddit",
            tpl.replace("{{subreddit}}", forum),
            tpl,
            "__REDDIT__",
            {
                "eval_types": ["program_html"],
                "program_html": [
                    {
                        "url": f"__REDDIT__/f/{forum}/{post['id']}",
                        "locator": 'document.querySelector(".submission__vote").dataset.myVote',
                        "required_contents": {"exact_match": "1"},
                    }
                ],
            },
            [
                ["click", "link", forum],
                ["click", "link", "New"],
                ["click", "button", "Upvote"],
                ["stop", ""],
            ],
            subreddit=forum,
        )


@template("forum_open")
def _forum_open(db):
    tpl = "Open the {{subreddit}} forum."
    for forum in _forums(db):
        yield _config(
            "reddit",
            tpl.replace("{{subreddit}}", forum),
            tpl,
            "__REDDIT__",
            {
                "eval_types": ["url_match"],
                "reference_url": f"__REDDIT__/f/{forum}",
                "url_note": "GOLD in PRED",
            },
            [["click", "link", forum], ["stop", ""]],
            subreddit=forum,
        )


@template("forum_comment_count")
def _forum_comment_count(db):
    tpl = 'How many comments does the post "{{title}}" have?'
    for post in db.execute("SELECT * FROM forum_posts ORDER BY id LIMIT 20"):
        n = db.execute(
            "SELECT COUNT(*) FROM forum_comments WHERE post_id=?", (post["id"],)
        ).fetchone()[0]
        yield _config(
            "reddit",
            tpl.replace("{{title}}", post["title"]),
            tpl,
            "__REDDIT__",
            {"eval_types": ["string_match"], "reference_answers": {"must_include": [str(n)]}},
            [["click", "link", post["forum"]], ["click", "link", post["title"]], ["stop", str(n)]],
            title=post["title"],
        )


@template("forum_new_post")
def _forum_new_post(db):
    tpl = 'Post in the {{subreddit}} forum with the title "{{title}}".'
    for k, forum in enumerate(_forums(db)):
        title = f"Looking for {['advice', 'friends', 'ideas', 'feedback'][k % 4]} on {forum}"
        yield _config(
            "reddit",
            tpl.replace("{{subreddit}}", forum).replace("{{title}}", title),
            tpl,
            "__REDDIT__",
            {
                "eval_types": ["program_html"],
                "program_html": [
                    {
                        "url": "func:reddit_get_post_url('__last_url__')",
                        "locator": 'document.querySelector(".submission__title").outerText',
                        "required_contents": {"exact_match": title},
                    }
                ],
            },
            [
                ["click", "link", forum],
                ["click", "link", "Submit a new post"],
                ["type", "textbox", "Title", title, 0],
                ["click", "button", "Create submission"],
                ["stop", ""],
            ],
            subreddit=forum,
            title=title,
        )


@template("forum_reply")
def _forum_reply(db):
    tpl = 'Reply to the post "{{title}}" with "{{comment}}".'
    for k, post in enumerate(db.execute("SELECT * FROM forum_posts ORDER BY id DESC LIMIT 15")):
        comment = ["Thanks for sharing!", "I disagree.", "Great question", "Same here"][k % 4]
        yield _config(
            "reddit",
            tpl.replace("{{title}}", post["title"]).replace("{{comment}}", comment),
            tpl,
            "__REDDIT__",
            {
                "eval_types": ["program_html"],
                "program_html": [
                    {
                        "url": f"__REDDIT__/f/{post['forum']}/{post['id']}",
                        "locator": "",
                        "required_contents": {"must_include": [comment]},
                    }
                ],
            },
            [
                ["click", "link", post["forum"]],
                ["click", "link", post["title"]],
                ["type", "textbox", "Comment", comment, 0],
                ["click", "button", "Post"],
                ["stop", ""],
            ],
            title=post["title"],
            comment=comment,
        )


def _projects(db):
    return db.execute("SELECT * FROM code_projects ORDER BY id").fetchall()


def _plink(p) -> list[Any]:
    return ["click", "link", f"{p['namespace']} / {p['name']}"]


@template("code_todos")
def _code_todos(db):
    tpl = "Check out my todos"
    yield _config(
        "gitlab",
        tpl,
        tpl,
        "__GITLAB__",
        {
            "eval_types": ["url_match"],
            "reference_url": "__GITLAB__/dashboard/todos",
            "url_note": "GOLD in PRED",
        },
        [["click", "link", "To-Do List"], ["stop", ""]],
    )


@template("code_open_issues")
def _code_open_issues(db):
    tpl = "How many open issues does the {{repo}} project have?"
    for p in _projects(db):
        n = db.execute(
            "SELECT COUNT(*) FROM code_issues WHERE project_id=? AND state='opened'", (p["id"],)
        ).fetchone()[0]
        yield _config(
            "gitlab",
            tpl.replace("{{repo}}", p["name"]),
            tpl,
            "__GITLAB__",
            {"eval_types": ["string_match"], "reference_answers": {"must_include": [str(n)]}},
            [_plink(p), ["stop", str(n)]],
            repo=p["name"],
        )


@template("code_commits_by_user")
def _code_commits_by_user(db):
    tpl = "How many commits did {{user}} make to {{repo}} on {{date}}?"
    for p in _projects(db):
        for row in db.execute(
            "SELECT author, day, COUNT(*) AS n FROM code_commits WHERE project_id=? "
            "GROUP BY author, day ORDER BY n DESC, day, author LIMIT 3",
            (p["id"],),
        ):
            intent = (
                tpl.replace("{{user}}", row["author"])
                .replace("{{repo}}", p["name"])
                .replace("{{date}}", row["day"])
            )
            yield _config(
                "gitlab",
                intent,
                tpl,
                "__GITLAB__",
                {
                    "eval_types": ["string_match"],
                    "reference_answers": {"must_include": [str(row["n"])]},
                },
                [_plink(p), ["click", "link", "Commits"], ["stop", str(row["n"])]],
                user=row["author"],
                repo=p["name"],
                date=row["day"],
            )


@template("code_label_issues_nav")
def _code_label_issues_nav(db):
    tpl = (
        "Display the list of issues in the {{repo}} repository that have labels related "
        "to {{label}}"
    )
    from agentgym_envs.envs.webarena.sites.data import LABELS

    for p in _projects(db):
        for label in LABELS[:4]:
            path = f"{p['namespace']}/{p['name']}"
            yield _config(
                "gitlab",
                tpl.replace("{{repo}}", path).replace("{{label}}", label),
                tpl,
                "__GITLAB__",
                {
                    "eval_types": ["url_match"],
                    "reference_url": f"__GITLAB__/{path}/-/issues?label_name={label}",
                    "url_note": "GOLD in PRED",
                },
                [_plink(p), ["click", "link", "Issues"], ["click", "link", label], ["stop", ""]],
                repo=path,
                label=label,
            )


@template("code_new_issue")
def _code_new_issue(db):
    tpl = 'Create an issue in the {{repo}} project titled "{{title}}".'
    for k, p in enumerate(_projects(db)):
        for title in ("Add a contributing guide", "Document the release process")[: 1 + k % 2]:
            yield _config(
                "gitlab",
                tpl.replace("{{repo}}", p["name"]).replace("{{title}}", title),
                tpl,
                "__GITLAB__",
                {
                    "eval_types": ["program_html"],
                    "program_html": [
                        {
                            "url": f"__GITLAB__/{p['namespace']}/{p['name']}/-/issues",
                            "locator": "",
                            "required_contents": {"must_include": [title]},
                        }
                    ],
                },
                [
                    _plink(p),
                    ["click", "link", "Issues"],
                    ["click", "link", "New issue"],
                    ["type", "textbox", "Title", title, 0],
                    ["click", "button", "Create issue"],
                    ["stop", ""],
                ],
                repo=p["name"],
                title=title,
            )


@template("code_invite_member")
def _code_invite_member(db):
    tpl = "Invite {{user}} to the {{repo}} project as {{role}}."
    from agentgym_envs.envs.webarena.sites.data import CODE_USERS

    for k, p in enumerate(_projects(db)):
        for j, (user, _) in enumerate(CODE_USERS[1:4]):
            role = ["Developer", "Reporter", "Maintainer", "Guest"][(k + j) % 4]
            yield _config(
                "gitlab",
                tpl.replace("{{user}}", user)
                .replace("{{repo}}", p["name"])
                .replace("{{role}}", role),
                tpl,
                "__GITLAB__",
                {
                    "eval_types": ["program_html"],
                    "program_html": [
                        {
                            "url": f"__GITLAB__/{p['namespace']}/{p['name']}/-/project_members",
                            "locator": f"func:gitlab_get_project_memeber_role(__page__, '{user}')",
                            "required_contents": {"must_include": [role]},
                        }
                    ],
                },
                [
                    _plink(p),
                    ["click", "link", "Members"],
                    ["type", "textbox", "Username", user, 0],
                    ["click", "radio", role],
                    ["click", "button", "Invite"],
                    ["stop", ""],
                ],
                user=user,
                repo=p["name"],
                role=role,
            )


@template("code_close_issue")
def _code_close_issue(db):
    tpl = 'Close the issue "{{title}}" in {{repo}}.'
    for p in _projects(db):
        for i in db.execute(
            "SELECT * FROM code_issues WHERE project_id=? AND state='opened' "
            "ORDER BY iid DESC LIMIT 3",
            (p["id"],),
        ):
            yield _config(
                "gitlab",
                tpl.replace("{{title}}", i["title"]).replace("{{repo}}", p["name"]),
                tpl,
                "__GITLAB__",
                {
                    "eval_types": ["program_html"],
                    "program_html": [
                        {
                            "url": f"__GITLAB__/{p['namespace']}/{p['name']}/-/issues/{i['iid']}",
                            "locator": 'document.querySelector(".issue-state").outerText',
                            "required_contents": {"exact_match": "Closed"},
                        }
                    ],
                },
                [
                    _plink(p),
                    ["click", "link", "Issues"],
                    ["click", "link", i["title"]],
                    ["click", "button", "Close issue"],
                    ["stop", ""],
                ],
                title=i["title"],
                repo=p["name"],
            )


# -- the source ---------------------------------------------------------------------------
@lru_cache(maxsize=1)
def generated_configs() -> tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]]:
    """``(train, test)`` configs from every template (the first instance of each template in
    :data:`TEST_TEMPLATES` is a test task); deterministic, built once per process."""
    with tempfile.TemporaryDirectory() as tmp:
        db = sqlite3.connect(seed_database(Path(tmp) / "seed.db"))
        db.row_factory = sqlite3.Row
        train: list[dict[str, Any]] = []
        test: list[dict[str, Any]] = []
        for number, (template_id, fn) in enumerate(TEMPLATES):
            for k, config in enumerate(fn(db)):
                config["instantiation_dict"] = {
                    key: value
                    for key, value in config["instantiation_dict"].items()
                    if not key.startswith("_")
                }
                config["intent_template_id"] = number
                config["agentgym_template"] = template_id
                (test if k == 0 and template_id in TEST_TEMPLATES else train).append(config)
        db.close()
    for split in (train, test):
        for task_id, config in enumerate(split):
            config["task_id"] = task_id
    return tuple(train), tuple(test)


class GeneratedTasks(TaskSource):
    """Tasks from the templates over the seeded sites: 20 test tasks (five per site) and the
    other instances of every template as train tasks."""

    item_prefix = family_record("webarena").item_prefix

    def __init__(self) -> None:
        self._train, self._test = generated_configs()

    def size(self, split: str) -> int:
        return len(self._test if split == "test" else self._train)

    def _load(self, split: str, task_id: int) -> WebArenaTask:
        configs = self._test if split == "test" else self._train
        return WebArenaTask(task_id, split, config=configs[task_id])

    def __reduce__(self):
        return (GeneratedTasks, ())


class ConfigTasks(TaskSource):
    """WebArena's own task configs (``config_files/test.raw.json`` or a folder of
    ``{i}.json``) for a user's deployment; every task is a test task, train is empty.

    Args:
        path: the raw JSON list, one config file, or a folder of numbered config files.
        urls: site key (``shopping``, ``shopping_admin``, ``reddit``, ``gitlab``, ``map``,
            ``wikipedia``, ``homepage``) -> the deployment's base URL; placeholders of sites
            not given stay as they are (those tasks cannot reach the site).
    """

    item_prefix = family_record("webarena").item_prefix
    user_data = True

    def __init__(self, path: str | Path, urls: dict[str, str]) -> None:
        self.path, self.urls = Path(path), dict(urls)
        unknown = set(self.urls) - set(PLACEHOLDERS.values())
        if unknown:
            raise BadDataError(
                f"unknown WebArena site(s) {sorted(unknown)}: use "
                + ", ".join(sorted(PLACEHOLDERS.values()))
            )
        self._configs = [resolve_config(c, self.urls) for c in _read_configs(self.path)]

    def size(self, split: str) -> int:
        return len(self._configs) if split == "test" else 0

    def _load(self, split: str, task_id: int) -> WebArenaTask:
        return WebArenaTask(task_id, split, config=self._configs[task_id])

    def __reduce__(self):
        return (ConfigTasks, (str(self.path), self.urls))


def _read_configs(path: Path) -> list[dict[str, Any]]:
    if path.is_dir():
        files = sorted(
            (p for p in path.glob("*.json") if p.stem.isdigit()), key=lambda p: int(p.stem)
        )
        if not files:
            raise BadDataError(f"no numbered WebArena config files (0.json ...) in {path}")
        return [_read_json(p) for p in files]
    if not path.exists():
        raise BadDataError(
            f"WebArena config {path} not found: pass config_files/test.raw.json or a folder "
            "of {i}.json files"
        )
    data = _read_json(path)
    configs = data if isinstance(data, list) else [data]
    for c in configs:
        if not isinstance(c, dict) or "intent" not in c or "eval" not in c:
            raise BadDataError(f"{path} is not a WebArena config (needs 'intent' and 'eval')")
    return configs


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise BadDataError(f"cannot read WebArena config {path}: {exc}") from exc
