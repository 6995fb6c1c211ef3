"""The forum's image posts (Postmill's link submissions whose URL is a picture): a ``pics``
forum of photos, each drawn by :func:`.images.photo_svg` and served at
``/submission_images/<sha256>.svg`` (WebArena's Postmill names its images by hash the same
way), and a ``funny`` forum to re-post some of them to (template 11).

Tables: ``forum_images`` (file name -> the drawing's kind, sky, ground and text alternative)
and ``forum_post_urls`` (a submission's URL, for link and image posts). Seeded from their own
random stream after :mod:`.seed_extras`, so the rows before them stay as they were.
"""

from __future__ import annotations

import hashlib
import random
import sqlite3
from datetime import date, datetime, timedelta

from agentgym_envs.envs.webarena.sites import text
from agentgym_envs.envs.webarena.sites.data import FORUM_USER, _when

PICS_FORUM = "pics"
FUNNY_FORUM = "funny"
IMAGE_PATH = "/submission_images/"

#: The photos of /f/pics: (content: what the photo shows, as its title says it; title; text
#: alternative; drawing; sky; ground; the forum it fits for a re-post).
PHOTOS = (
    ("Bald Eagle", "Bald Eagle taking off over the river this morning",
     "A bald eagle with its wings spread above a green field", "eagle", "day", "grass",
     "earthporn"),
    ("great blue heron", "A great blue heron fishing at dusk",
     "A grey heron standing in shallow water under an orange sky", "heron", "dusk", "water",
     "earthporn"),
    ("Firework", "Firework show from our rooftop last night",
     "Coloured firework bursts over a dark sky", "fireworks", "night", "street", "earthporn"),
    ("Thanksgiving turkey", "First Thanksgiving turkey I ever cooked, be kind",
     "A roast turkey on a white platter on a wooden table", "turkey", "indoor", "table",
     FUNNY_FORUM),
    ("wife's costume", "My wife's costume this year: a very round pumpkin",
     "A person dressed as an orange pumpkin", "pumpkin_costume", "indoor", "street",
     FUNNY_FORUM),
    ("costume contest", "The office costume contest got out of hand",
     "Four people in costumes, two of them in witch hats, under a banner",
     "costume_contest", "dusk", "street", FUNNY_FORUM),
    ("sunset over the lake", "Sunset over the lake, no filter",
     "An orange sun setting over calm water", "sunset", "dusk", "water", "earthporn"),
    ("snowy peaks", "Two snowy peaks seen from the trailhead",
     "Two grey mountains with snow on their tops", "mountain", "day", "snow", "earthporn"),
    ("grumpy cat", "Meet our grumpy cat, Biscuit",
     "An orange cat's face with green eyes", "cat", "indoor", "table", "aww"),
    ("golden retriever puppy", "Our golden retriever puppy saw the beach for the first time",
     "A floppy-eared puppy's face on a sandy beach", "puppy", "dusk", "sand", "aww"),
    ("lighthouse", "The old lighthouse still works at night",
     "A red and white striped lighthouse shining its beam at night", "lighthouse", "night",
     "sand", "earthporn"),
    ("autumn forest", "Autumn forest colours on my walk home",
     "A row of red, orange and yellow trees", "forest", "day", "grass", "earthporn"),
    ("hot air balloons", "Hot air balloons over the festival field",
     "Three hot air balloons floating over a meadow", "balloons", "day", "grass",
     "mildlyinteresting"),
    ("sailboat", "Took the sailboat out before the storm",
     "A sailboat with a white and an orange sail on the sea at sunset", "sailboat", "dusk",
     "water", "earthporn"),
    ("full moon", "Full moon over the frozen valley",
     "A full moon among stars above snow", "moon", "night", "snow", "earthporn"),
    ("cherry blossoms", "Cherry blossoms finally opened in the park",
     "A small tree covered in pink blossoms", "blossom", "day", "grass", "earthporn"),
    ("northern lights", "Saw the northern lights for the first time",
     "Green and purple bands of light over dark pine trees", "aurora", "night", "snow",
     "earthporn"),
    ("double rainbow", "A double rainbow right after the hail",
     "A rainbow arching over a wet street", "rainbow", "dusk", "street", "mildlyinteresting"),
    ("city skyline", "The city skyline from the bridge at midnight",
     "Dark office towers with lit windows at night", "skyline", "night", "street",
     "architecture"),
    ("birthday cake", "Baked my daughter's birthday cake from scratch",
     "A pink two-layer cake with five lit candles", "cake", "indoor", "table", "food"),
    ("homemade pizza", "Homemade pizza, third attempt at the dough",
     "A pepperoni pizza cut in slices", "pizza", "day", "table", "food"),
)  # fmt: skip


def file_name(seed: int, title: str) -> str:
    """An image's file name: the hash of what it shows, as WebArena's Postmill names them."""
    return hashlib.sha256(f"webarena-photo-{seed}-{title}".encode()).hexdigest() + ".svg"


def seed_photos(conn: sqlite3.Connection, seed: int) -> None:
    """Add the ``pics`` and ``funny`` forums, the image tables and the photo posts."""
    rng = random.Random(f"webarena-photos-{seed}")
    conn.execute(
        "CREATE TABLE forum_images (file TEXT PRIMARY KEY, kind TEXT, sky TEXT, ground TEXT, "
        "alt TEXT)"
    )
    conn.execute("CREATE TABLE forum_post_urls (post_id INTEGER PRIMARY KEY, url TEXT)")
    users = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM forum_users WHERE name != ? ORDER BY name", (FORUM_USER,)
        )
    ]
    conn.executemany(
        "INSERT INTO forum_forums VALUES (?,?,?,?,?)",
        [
            (
                PICS_FORUM,
                "Pics",
                "A place for photographs, pictures, and other images",
                "2018-11-02",
                rng.choice(users),
            ),
            (
                FUNNY_FORUM,
                "Funny",
                "Pictures and stories that made you laugh",
                "2018-12-19",
                rng.choice(users),
            ),
        ],
    )
    next_id = conn.execute("SELECT MAX(id) FROM forum_posts").fetchone()[0] + 1
    next_comment = conn.execute("SELECT MAX(id) FROM forum_comments").fetchone()[0] + 1
    posts, urls, images, comments = [], [], [], []
    for k, (content, title, alt, kind, sky, ground, _target) in enumerate(PHOTOS):
        pid, name = next_id + k, file_name(seed, title)
        created = _when(rng, date(2022, 6, 1), 400)
        body = text.post_body(rng, f"the {content.lower()}", f"/f/{PICS_FORUM}")
        posts.append(
            (pid, PICS_FORUM, rng.choice(users), title, body, created, rng.randrange(5, 900))
        )
        urls.append((pid, IMAGE_PATH + name))
        images.append((name, kind, sky, ground, alt))
        for c in range(rng.choice((0, 1, 2, 3, 5))):
            comments.append(
                (
                    next_comment + len(comments),
                    pid,
                    rng.choice(users),
                    text.reply(rng, f"the {content.lower()}"),
                    (
                        datetime.fromisoformat(created)
                        + timedelta(minutes=23 * (c + 1) + rng.randrange(0, 300))
                    ).isoformat(sep=" "),
                    None,
                )
            )
    conn.executemany("INSERT INTO forum_posts VALUES (?,?,?,?,?,?,?)", posts)
    conn.executemany("INSERT INTO forum_post_urls VALUES (?,?)", urls)
    conn.executemany("INSERT INTO forum_images VALUES (?,?,?,?,?)", images)
    conn.executemany("INSERT INTO forum_comments VALUES (?,?,?,?,?,?)", comments)
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name='forum_comment_votes'").fetchone():
        conn.executemany(
            "INSERT INTO forum_comment_votes VALUES (?,?,?)",
            [(c[0], rng.randrange(0, 40), rng.choice((0, 0, 1, 2, 4))) for c in comments],
        )
