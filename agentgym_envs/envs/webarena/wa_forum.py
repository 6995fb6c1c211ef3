"""WebArena's forum templates (``reddit``, and reddit with gitlab) on the sites' data."""

from __future__ import annotations

from typing import Any

from agentgym_envs.envs.webarena import wa_code
from agentgym_envs.envs.webarena.sites.data import FORUM_USER
from agentgym_envs.envs.webarena.wa_common import both, html, must, spaced, url
from agentgym_envs.envs.webarena.webarena_tasks import instantiator

REDDIT = "__REDDIT__"
GITLAB = "__GITLAB__"
BIOS = (
    "I am a robot",
    "Pro Python Developer with 20 years of Experience",
    "Seeking SDE positions",
    "Freelance Web Developer",
    "Yoga enthusiast",
    "Busy building a startup",
    "Amateur astronomer and coffee snob",
    "Writing about trains, mostly",
)
#: Forums with a plain topic, and a topic phrase that points to them.
TOPICS = {
    "books": "novels worth reading",
    "cooking": "weeknight dinners",
    "gardening": "growing tomatoes",
    "personalfinance": "saving for retirement",
    "fitness": "building a workout routine",
    "photography": "choosing a first camera",
    "travel": "visiting Japan",
    "pets": "adopting a cat",
    "programming": "learning Rust",
    "woodworking": "building a bookshelf",
    "running": "training for a marathon",
    "chess": "openings for beginners",
    "baking": "sourdough starters",
    "camping": "ultralight tents",
    "cycling": "commuting by bike in winter",
    "knitting": "a first sweater pattern",
    "linux": "switching from Windows",
    "python": "type hints in large codebases",
    "tea": "brewing green tea",
    "coffee": "pour-over ratios",
    "space": "the next Mars mission",
    "movies": "underrated sci-fi films",
    "music": "learning the guitar as an adult",
    "poetry": "writing haiku",
    "soccer": "the offside rule",
    "languages": "learning Japanese",
    "philosophy": "free will",
    "architecture": "brutalist buildings",
    "history": "the Roman Republic",
    "boardgames": "games for two players",
}


def _posts(db, forum: str, order: str) -> list[Any]:
    return db.execute(
        f"SELECT * FROM forum_posts WHERE forum=? ORDER BY {order}", (forum,)
    ).fetchall()


def _forums(db) -> list[str]:
    return [r[0] for r in db.execute("SELECT name FROM forum_forums ORDER BY name")]


def _vote_is(post, value: int) -> tuple[str, str, dict[str, Any]]:
    return (
        f"{REDDIT}/f/{post['forum']}/{post['id']}",
        'document.querySelector(".submission__vote").dataset.myVote',
        {"exact_match": str(value)},
    )


def _vote_plan(posts, label: str, back: list[list[Any]]) -> list[list[Any]]:
    """From a list of the ``posts``' titles: open each, vote, take the ``back`` links (from the
    post's page) to the list again."""
    steps: list[list[Any]] = []
    for k, p in enumerate(posts):
        steps += [["click", "link", p["title"]], ["click", "button", label]]
        if k < len(posts) - 1:
            steps += back
    return [*steps, ["stop", ""]]


def to_forum(db, forum: str) -> list[list[Any]]:
    """From any forum page: Forums -> the list's pages (by name, 50 a page) -> ``forum``."""
    rank = _forums(db).index(forum)
    return [
        ["click", "link", "Forums"],
        *[["click", "link", "Next Page"]] * (rank // 50),
        ["click", "link", forum],
    ]


@instantiator(6)
def bio(db):
    for text in BIOS:
        yield (
            {"content": text},
            html(
                (
                    f"{REDDIT}/user/{FORUM_USER}",
                    'document.querySelector(".user-bio__biography").outerText',
                    {"exact_match": text},
                )
            ),
            [
                ["click", "link", FORUM_USER],
                ["click", "link", "Edit biography"],
                ["type", "textbox", "Biography", text, 0],
                ["click", "button", "Save"],
                ["stop", ""],
            ],
        )


@instantiator(22)
def upvote_newest(db):
    for forum in spaced(_forums(db), 30):
        posts = _posts(db, forum, "created DESC, id DESC")
        if not posts:
            continue
        yield (
            {"subreddit": forum},
            html(_vote_is(posts[0], 1)),
            [
                *to_forum(db, forum),
                ["click", "link", "New"],
                ["click", "button", "Upvote"],
                ["stop", ""],
            ],
        )


def _score(db, post_id: int) -> int:
    return db.execute(
        "SELECT base_score + COALESCE((SELECT SUM(value) FROM forum_votes WHERE post_id=?), 0) "
        "FROM forum_posts WHERE id=?",
        (post_id, post_id),
    ).fetchone()[0]


@instantiator(24)
def thumbs_down_top(db):
    for k, forum in enumerate(spaced(_forums(db)[1:], 30)):
        n = 1 + k % 3
        ranked = sorted(_posts(db, forum, "id"), key=lambda p: (-_score(db, p["id"]), p["id"]))
        if len(ranked) <= n or _score(db, ranked[n - 1]["id"]) == _score(db, ranked[n]["id"]):
            continue
        yield (
            {"k": n, "subreddit": forum},
            html(*[_vote_is(p, -1) for p in ranked[:n]]),
            [
                *to_forum(db, forum),
                ["click", "link", "Top"],
                *_vote_plan(
                    ranked[:n],
                    "Downvote",
                    [["click", "link", f"/f/{forum}"], ["click", "link", "Top"]],
                ),
            ],
        )


def _by_user(db, n: int, offset: int):
    rows = db.execute(
        "SELECT forum, author, COUNT(*) AS c FROM forum_posts GROUP BY forum, author "
        "HAVING c BETWEEN 2 AND 3 ORDER BY forum, author"
    ).fetchall()
    return spaced(rows[offset:], n)


@instantiator(25)
def like_all(db):
    for r in _by_user(db, 25, 0):
        posts = db.execute(
            "SELECT * FROM forum_posts WHERE forum=? AND author=? ORDER BY id",
            (r["forum"], r["author"]),
        ).fetchall()
        yield (
            {"user": r["author"], "subreddit": r["forum"]},
            html(*[_vote_is(p, 1) for p in posts]),
            [
                ["goto", f"{REDDIT}/user/{r['author']}"],
                *_vote_plan(posts, "Upvote", [["click", "link", r["author"]]]),
            ],
        )


@instantiator(1510)
def dislike_all(db):
    for r in _by_user(db, 25, 7):
        posts = db.execute(
            "SELECT * FROM forum_posts WHERE forum=? AND author=? ORDER BY id",
            (r["forum"], r["author"]),
        ).fetchall()
        yield (
            {"user": r["author"], "subreddit": r["forum"]},
            html(*[_vote_is(p, -1) for p in posts]),
            [
                ["goto", f"{REDDIT}/user/{r['author']}"],
                *_vote_plan(posts, "Downvote", [["click", "link", r["author"]]]),
            ],
        )


@instantiator(17)
def among_top(db):
    for k, forum in enumerate(spaced(_forums(db)[2:], 30)):
        n = (5, 10)[k % 2]
        ranked = sorted(_posts(db, forum, "id"), key=lambda p: (-_score(db, p["id"]), p["id"]))[:n]
        counts = [
            (
                db.execute(
                    "SELECT COUNT(*) FROM forum_comments WHERE post_id=?", (p["id"],)
                ).fetchone()[0],
                p,
            )
            for p in ranked
        ]
        counts.sort(key=lambda c: -c[0])
        if len(counts) < 2 or counts[0][0] == counts[1][0]:
            continue
        title = counts[0][1]["title"]
        yield (
            {
                "number": n,
                "subreddit": forum,
                "description": "which one has the most comments? Tell me its title",
            },
            must(title),
            [*to_forum(db, forum), ["click", "link", "Top"], ["stop", title]],
        )


def _post(
    db, forum: str, title: str, body: str, *check: str
) -> tuple[dict[str, Any], list[list[Any]]]:
    ev = both(
        url(f"{REDDIT}/f/{forum}"),
        html(
            (
                "func:reddit_get_post_url('__last_url__')",
                'document.querySelector(".submission__title").outerText + " " + '
                'document.querySelector(".submission__body").outerText',
                {"must_include": list(check)},
            )
        ),
    )
    plan = [
        *to_forum(db, forum),
        ["click", "link", "Submit a new post"],
        ["type", "textbox", "Title", title, 0],
        *([["type", "textbox", "Body", body, 0]] if body else []),
        ["click", "button", "Create submission"],
        ["stop", ""],
    ]
    return ev, plan


@instantiator(5)
def ask_in_topic_forum(db):
    questions = ("what should I try first?", "is it worth it?", "where do I start?")
    for k, (forum, topic) in enumerate(TOPICS.items()):
        q = f"Any advice on {topic}: {questions[k % 3]}"
        ev, plan = _post(db, forum, q, "", q)
        yield ({"topic": topic, "question": q}, ev, plan)


@instantiator(3765)
def ask_where_answered(db):
    for forum, topic in list(TOPICS.items())[3:]:
        q = f"What is your best tip for {topic}?"
        ev, plan = _post(db, forum, q, "", q)
        yield ({"question": q}, ev, plan)


@instantiator(9)
def book_review(db):
    books = (
        "To Kill a Mockingbird",
        "Dune",
        "The Hobbit",
        "Middlemarch",
        "Beloved",
        "Moby-Dick",
        "The Left Hand of Darkness",
        "Things Fall Apart",
        "Pride and Prejudice",
        "The Remains of the Day",
        "Invisible Cities",
        "A Wizard of Earthsea",
    )
    notes = ("Great book!", "A slow start, then gripping.", "Read it twice.", "Not for me.")
    for k, book in enumerate(books):
        note = notes[k % len(notes)]
        ev, plan = _post(db, "books", book, note, book, note)
        yield ({"book": book, "content": note}, ev, plan)


@instantiator(13)
def opinion_post(db):
    for forum, topic in TOPICS.items():
        ev, plan = _post(db, forum, topic, "your opinion", topic, "your opinion")
        yield ({"topic": topic}, ev, plan)


@instantiator(15)
def budget_recommendations(db):
    for k, forum in enumerate(
        ("photography", "running", "coffee", "cycling", "gaming", "camping", "baking", "tea")
        + ("fitness", "music", "knitting", "woodworking", "gardening", "space", "pets")
    ):
        category, price = (f"{forum} gear", ("$100", "$250", "$500")[k % 3])
        title = f"Recommendations for {category} within a budget of {price}?"
        ev, plan = _post(db, forum, title, "", category, price)
        yield ({"category": category, "price": price, "subreddit": forum}, ev, plan)


@instantiator(6100)
def budget_appropriate(db):
    for k, forum in enumerate(list(TOPICS)[:20]):
        price = ("$50", "$200", "$1000", "$75", "$300")[k % 5]
        title = f"Recommendations for {forum} products within a budget of {price}?"
        ev, plan = _post(db, forum, title, "", price)
        yield ({"category": forum, "price": price}, ev, plan)


@instantiator(16)
def meetup_notice(db):
    dates = ("March 23rd", "April 2nd", "May 14th", "June 1st", "July 9th", "August 30th")
    for k, forum in enumerate(list(TOPICS)[:16]):
        date = dates[k % len(dates)]
        title = f"Virtual meetup for {forum} enthusiasts on {date}"
        ev, plan = _post(db, forum, title, "", forum, date)
        yield ({"interest": forum, "date": date, "subreddit": forum}, ev, plan)


@instantiator(19)
def ml_help(db):
    for forum in ("science", "history", "music", "art", "cooking", "sports", "space", "chess")[
        :8
    ] + ("gardening", "photography", "writing", "poetry", "architecture", "soccer"):
        title = f"How could machine learning help {forum}?"
        ev, plan = _post(db, forum, title, "", "machine learning")
        yield ({"subreddit": forum}, ev, plan)


@instantiator(23)
def reply_in_post(db):
    rows = db.execute(
        "SELECT * FROM forum_posts WHERE id IN (SELECT post_id FROM forum_comments) ORDER BY id"
    ).fetchall()
    replies = (
        "thanks! I am a big fan of your website.",
        "I think this is a great point.",
        "Could you share a source for this?",
        "Same experience here, thanks for posting.",
    )
    for k, post in enumerate(spaced(rows, 30)):
        text = replies[k % len(replies)]
        page = f"{REDDIT}/f/{post['forum']}/{post['id']}"
        yield (
            {
                "__start__": page,
                "position_description": ("the author", "the original poster")[k % 2],
                "content_description": text,
            },
            html((page, 'document.querySelector("#comments").outerText', {"must_include": [text]})),
            [["type", "textbox", "Comment", text, 0], ["click", "button", "Post"], ["stop", ""]],
        )


@instantiator(117)
def promote_repo(db):
    projects = db.execute(
        "SELECT * FROM code_projects WHERE description != '' ORDER BY stars DESC, id LIMIT 60"
    ).fetchall()
    forums = _forums(db)
    for k, p in enumerate(spaced(projects, 36)):
        forum = forums[(k * 7) % len(forums)]
        ev, plan = _post(db, forum, p["description"], "", p["description"])
        plan[:0] = [["goto", GITLAB], *wa_code.open_project(db, p), ["goto", REDDIT]]
        yield ({"repo": f"{p['namespace']}/{p['name']}", "subreddit": forum}, ev, plan)


@instantiator(116)
def link_repo(db):
    rows = db.execute(
        "SELECT * FROM code_projects WHERE name IN (SELECT name FROM code_projects GROUP BY name "
        "HAVING COUNT(*)=1) ORDER BY stars DESC, id"
    ).fetchall()
    for p in spaced(rows, 30):
        word = p["name"].replace("-", " ")
        path = f"{p['namespace']}/{p['name']}"
        title = f"Check out {path}, a project about {word}"
        ev, plan = _post(db, "programming", title, "", path)
        plan[:0] = [["goto", GITLAB], *wa_code.open_project(db, p), ["goto", REDDIT]]
        yield ({"topic": word}, ev, plan)


@instantiator(101)
def review_titles_to_forum(db):
    from agentgym_envs.envs.webarena.wa_shop import _search, _to_reviews

    rows = db.execute(
        "SELECT p.* FROM shop_products p WHERE p.status='Enabled' AND p.name IN (SELECT name "
        "FROM shop_products GROUP BY name HAVING COUNT(*)=1) AND (SELECT COUNT(*) FROM "
        "shop_reviews r WHERE r.product_id=p.id AND r.status='Approved' AND r.rating <= 2) "
        "BETWEEN 1 AND 3 ORDER BY p.id"
    ).fetchall()
    for k, p in enumerate(spaced(rows, 20)):
        stars = 2 - k % 2
        titles = [
            r[0]
            for r in db.execute(
                "SELECT title FROM shop_reviews WHERE product_id=? AND status='Approved' AND "
                "rating <= ? ORDER BY id",
                (p["id"], stars),
            )
        ]
        if not titles:
            continue
        title = f"real user feedback on {p['name']}"
        ev = both(
            url(f"{REDDIT}/f/gaming"),
            html(
                (
                    "func:reddit_get_post_url('__last_url__')",
                    'document.querySelector(".submission__title").outerText',
                    {"exact_match": title},
                ),
                (
                    "func:reddit_get_post_url('__last_url__')",
                    'document.querySelector(".submission__body").outerText',
                    {"must_include": titles},
                ),
            ),
        )
        plan = [
            *_search(p["name"]),
            *_to_reviews(db, p["id"]),
            ["goto", REDDIT],
            *to_forum(db, "gaming"),
            ["click", "link", "Submit a new post"],
            ["type", "textbox", "Title", title, 0],
            ["type", "textbox", "Body", "; ".join(titles), 0],
            ["click", "button", "Create submission"],
            ["stop", ""],
        ]
        rating = f"{stars} stars and less" if stars > 1 else "1 star"
        yield ({"product": p["name"], "rating": rating}, ev, plan)


#: Advice topics for template 12, with the words the post must contain.
RELATION_ISSUES = (
    ("long-distance relationships", ("long", "distance", "relation")),
    ("a partner who forgets birthdays", ("partner", "birthday")),
    ("meeting a partner's parents", ("meeting", "parents")),
    ("splitting chores fairly", ("chores", "fair")),
    ("a friend who cancels plans", ("friend", "cancel")),
    ("moving in together", ("moving", "together")),
)


@instantiator(12)
def relationship_advice(db):
    from agentgym_envs.envs.webarena.sites.seed_extras import RELATION_FORUM

    for issue, words in RELATION_ISSUES:
        title = f"Need advice about {issue}"
        body = f"Looking for advice about {issue}. What worked for you?"
        ev, plan = _post(db, RELATION_FORUM, title, body, *words)
        yield ({"issue": issue}, ev, plan)


#: Lines template 27 adds to the user's own posts.
EDIT_LINES = (
    "EDIT: This aged well",
    "EDIT: thanks for all the replies!",
    "Update: still going strong",
    "EDIT: fixed the link",
    "Update: sold it last week",
    "EDIT: a mod asked me to add the source",
    "Update: it worked out in the end",
    "EDIT: typo in the title, sorry",
)


@instantiator(27)
def edit_my_post(db):
    from agentgym_envs.envs.webarena.sites.seed_extras import MY_POSTS

    rows = db.execute(
        "SELECT * FROM forum_posts WHERE author=? ORDER BY id", (FORUM_USER,)
    ).fetchall()
    for (_forum, topic), line, p in zip(MY_POSTS, EDIT_LINES, rows, strict=False):
        first = p["body"].split(". ")[0]
        yield (
            {"post": topic, "content": line},
            html(
                (
                    f"{REDDIT}/f/{p['forum']}/{p['id']}",
                    "document.querySelector('.submission__body').outerText",
                    {"must_include": [line, first]},
                )
            ),
            [
                ["click", "link", FORUM_USER],
                ["click", "link", p["title"]],
                ["click", "link", "Edit"],
                ["click", "textbox", "Body"],
                ["press", "Meta+a"],
                ["press", "Backspace"],
                ["type", "textbox", "Body", f"{p['body']}\n{line}", 0],
                ["click", "button", "Edit submission"],
                ["stop", ""],
            ],
        )


_HOT = (
    "(base_score + COALESCE((SELECT SUM(value) FROM forum_votes v WHERE v.post_id = "
    "forum_posts.id), 0)) / (julianday('2023-08-01') - julianday(created) + 2) DESC, id"
)


@instantiator(4)
def subscribe_trending(db):
    for forum in list(TOPICS)[5:12]:
        hot = _posts(db, forum, _HOT)
        if not hot:
            continue
        yield (
            {"subreddit": forum},
            both(
                url(f"{REDDIT}/f/{forum}"),
                html(
                    (
                        f"{REDDIT}/",
                        'document.querySelector("#sidebar > section").outerText',
                        {"must_include": [forum]},
                    )
                ),
            ),
            [
                *to_forum(db, forum),
                ["click", "link", hot[0]["title"]],
                ["click", "button", "Subscribe"],
                ["stop", ""],
            ],
        )


#: Template 7's new forums: name, description, sidebar entries.
NEW_FORUMS = (
    ("sci_fi_shelf", "A wild place for sci-fi readers", ("New", "Classic", "Movies", "Random")),
    ("karaoke_nights", "Place for karaoke lovers", ("devices", "setup", "songs")),
    ("cat_plants", "Cat parents and plant lovers", ("Cat friendly", "Toxic plants!", "Vendors")),
    ("retro_consoles", "Welcome to the past of gaming", ("Games", "Repairs", "Mods")),
    ("urban_sketchers", "Drawing the city one street at a time", ("Pens", "Meetups", "Gallery")),
)


@instantiator(7)
def create_forum_with_sidebar(db):
    for name, description, sidebar in NEW_FORUMS:
        edit = f"{REDDIT}/f/{name}/edit"
        yield (
            {"name": name, "description": description, "sidebar_list": list(sidebar)},
            html(
                (
                    edit,
                    'document.querySelector("#forum_description").value',
                    {"must_include": [description]},
                ),
                (
                    edit,
                    'document.querySelector("#forum_sidebar").value',
                    {"must_include": list(sidebar)},
                ),
            ),
            [
                ["click", "link", "Create forum"],
                ["type", "textbox", "Name", name, 0],
                ["type", "textbox", "Title", name.replace("_", " ").title(), 0],
                ["type", "textbox", "Description", description, 0],
                ["type", "textbox", "Sidebar", ", ".join(sidebar), 0],
                ["click", "button", "Create forum"],
                ["stop", ""],
            ],
        )


@instantiator(33)
def downvoted_comments(db):
    seen: set[str] = set()
    for forum in _forums(db):
        latest = _posts(db, forum, "created DESC, id DESC")
        if not latest or latest[0]["author"] in seen:
            continue
        author = latest[0]["author"]
        seen.add(author)
        votes = db.execute(
            "SELECT COUNT(*) AS n, COALESCE(SUM(v.down > v.up), 0) AS bad FROM forum_comments c "
            "JOIN forum_comment_votes v ON v.comment_id = c.id WHERE c.author=?",
            (author,),
        ).fetchone()
        if not 0 < votes["n"] <= 50 or votes["bad"] < 2:
            continue
        yield (
            {"forum": forum},
            must(str(votes["bad"])),
            [
                *to_forum(db, forum),
                ["click", "link", "New"],
                ["click", "link", author],
                ["stop", str(votes["bad"])],
            ],
        )


#: WebArena's locators for template 11 (the new post's text, and its links' and images'
#: addresses).
_POST_TEXT = "document.querySelector('.submission__inner').outerText"
_POST_LINKS = (
    "[...document.querySelector('.submission__inner').querySelectorAll('[href],[src]')]"
    ".map(elem => elem.getAttribute('href') || elem.getAttribute('src')).join(' ')"
)


@instantiator(11)
def repost_image(db):
    """Re-post one of /f/pics' photos (told by what its title says it shows) to the forum
    that fits it, noting where it came from: a link post whose URL is the image's."""
    from agentgym_envs.envs.webarena.sites.photos import IMAGE_PATH, PHOTOS, PICS_FORUM
    from agentgym_envs.envs.webarena.tasks import REAL_HOSTS

    note = f"from /f/{PICS_FORUM}"
    for content, title, alt, *_, target in PHOTOS:
        row = db.execute(
            "SELECT p.id, u.url FROM forum_posts p JOIN forum_post_urls u ON u.post_id = p.id "
            "WHERE p.forum=? AND p.title=?",
            (PICS_FORUM, title),
        ).fetchone()
        same = db.execute(
            "SELECT COUNT(*) FROM forum_posts WHERE forum=? AND lower(title) LIKE ?",
            (PICS_FORUM, f"%{content.lower()}%"),
        ).fetchone()[0]
        if row is None or same != 1 or not row["url"].startswith(IMAGE_PATH):
            continue
        ev = both(
            url(f"{REDDIT}/f/{target}"),
            html(
                ("func:reddit_get_post_url('__last_url__')", _POST_TEXT, {"must_include": [note]}),
                (
                    "func:reddit_get_post_url('__last_url__')",
                    _POST_LINKS,
                    {"must_include": [row["url"][len(IMAGE_PATH) :]]},
                ),
            ),
        )
        plan = [
            ["click", "link", alt],  # the photo: its address is the image's URL
            ["goto", REDDIT],
            *to_forum(db, target),
            ["click", "link", "Submit a new post"],
            ["type", "textbox", "URL", REAL_HOSTS["reddit"] + row["url"], 0],
            ["type", "textbox", "Title", title, 0],
            ["type", "textbox", "Body", note, 0],
            ["click", "button", "Create submission"],
            ["stop", ""],
        ]
        yield ({"content": content, "subreddit": target}, ev, plan)
