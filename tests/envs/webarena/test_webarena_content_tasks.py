"""WebArena's templates 11 (re-post a photo of /f/pics) and 151 (something for jaw bruxism) on
the sites: the forum's image posts and its submission form's URL field, the store's search
over product descriptions, and both templates played through the env in real Chromium."""

from __future__ import annotations

import importlib.util
import re
import sqlite3
import urllib.error
import urllib.parse
import urllib.request

import pytest

if importlib.util.find_spec("webarena") is None:
    pytest.skip("the webarena task set needs libwebarena", allow_module_level=True)

from agentgym_envs.envs.webarena.browser import host
from agentgym_envs.envs.webarena.env import WebArenaEnv
from agentgym_envs.envs.webarena.marks import decode_png
from agentgym_envs.envs.webarena.sites import LOGIN_COOKIES, server
from agentgym_envs.envs.webarena.sites.common import sign
from agentgym_envs.envs.webarena.sites.data import FORUM_USER
from agentgym_envs.envs.webarena.sites.photos import IMAGE_PATH, PHOTOS, PICS_FORUM
from agentgym_envs.envs.webarena.tasks import REAL_HOSTS
from tests.envs.webarena.expert_play import play_expert


@pytest.fixture(scope="module")
def env():
    made = WebArenaEnv(task_set="webarena")
    yield made
    made.close()


@pytest.fixture(scope="module")
def seed():
    db = sqlite3.connect(server().seed_path)
    db.row_factory = sqlite3.Row
    yield db
    db.close()


@pytest.fixture
def sandbox():
    """A fresh copy of the sites' database, and the cookies that select it and sign in."""
    srv = server()
    name = srv.new_sandbox()
    cookies = {"sandbox": srv.sandbox_cookie(name)["value"], "user": sign(FORUM_USER)}
    yield name, cookies
    srv.drop_sandbox(name)


def _fetch(path: str, cookies: dict[str, str], data: dict[str, str] | None = None):
    """``(status, final URL, body)`` of a forum page, signed in, in the sandbox."""
    srv = server()
    header = "; ".join(
        (
            f"{srv.sandbox_cookie('x')['name']}={cookies['sandbox']}",
            f"{LOGIN_COOKIES['reddit']}={cookies['user']}",
        )
    )
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    request = urllib.request.Request(srv.url("reddit") + path, data=body)
    request.add_header("Cookie", header)
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return reply.status, reply.url, reply.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.url, exc.read().decode()


def _test_task(env, template: int) -> int:
    for task_id in range(env.tasks.size("test")):
        if env.tasks.get("test", task_id).config["intent_template_id"] == template:
            return task_id
    raise AssertionError(f"no test task of template {template}")


def _play(env, task_id: int, plan: list[list] | None = None) -> dict:
    """The expert's episode on the test task (its own plan, or ``plan``)."""
    return play_expert(env, task_id, plan)


# -- the forum's image posts ---------------------------------------------------------------------
def test_pics_forum_shows_its_photos_rendered_and_told_apart_by_title_and_alt(seed):
    srv = server()
    cookies = [srv.sandbox_cookie(srv.default_sandbox)]

    async def shoot():
        context = await host().new_context(srv.origins, cookies)
        page = await context.new_page()
        try:
            await page.goto(f"{srv.url('reddit')}/f/{PICS_FORUM}", wait_until="load")
            listed = await page.evaluate(
                "[...document.querySelectorAll('article.submission')].map(a => [a.querySelector("
                "'.submission__title').innerText, a.querySelector('.submission__thumbnail svg')"
                "?.getAttribute('aria-label'), a.querySelector('.submission__thumbnail')"
                "?.getAttribute('href')])"
            )
            first = listed[0][2]
            await page.goto(srv.url("reddit") + first, wait_until="load")
            shot = await page.screenshot()
            kind = await page.evaluate("document.contentType")
        finally:
            await context.close()
        return listed, shot, kind

    listed, shot, kind = host().run(shoot, 120)
    assert len(listed) == len(PHOTOS) >= 15
    titles = {t for t, _, _ in listed}
    alts = {a for _, a, _ in listed}
    assert titles == {p[1] for p in PHOTOS} and alts == {p[2] for p in PHOTOS}
    for content, *_ in PHOTOS:  # the intent's phrase names one photo's title
        assert sum(content.lower() in t.lower() for t in titles) == 1, content
    hrefs = [h for _, _, h in listed]
    assert len(set(hrefs)) == len(hrefs)
    assert all(re.fullmatch(re.escape(IMAGE_PATH) + "[0-9a-f]{64}[.]svg", h) for h in hrefs)
    # the image itself: an SVG document, drawn in colour (not a grey placeholder)
    assert kind == "image/svg+xml"
    pixels = decode_png(shot)[:240:8, :320:8].reshape(-1, 3)
    assert len({tuple(px) for px in pixels}) >= 8
    assert (pixels.max(axis=1).astype(int) - pixels.min(axis=1)).max() > 80  # saturated
    assert urllib.request.urlopen(srv.url("reddit") + hrefs[0], timeout=60).status == 200
    with pytest.raises(urllib.error.HTTPError):
        urllib.request.urlopen(f"{srv.url('reddit')}{IMAGE_PATH}{'0' * 64}.svg", timeout=60)


def test_submission_form_posts_an_image_by_its_url(seed, sandbox):
    _name, cookies = sandbox
    file = seed.execute(
        "SELECT u.url FROM forum_post_urls u JOIN forum_posts p ON p.id = u.post_id WHERE "
        "p.forum=? ORDER BY p.id LIMIT 1",
        (PICS_FORUM,),
    ).fetchone()[0][len(IMAGE_PATH) :]
    status, _, page = _fetch("/submit/funny", cookies)
    assert status == 200 and '<label for="url">URL</label>' in page
    # the address as the agent sees it (the shown host): kept by the image's path
    status, where, page = _fetch(
        "/submit/funny",
        cookies,
        {"url": f"{REAL_HOSTS['reddit']}{IMAGE_PATH}{file}", "title": "Look", "body": "from x"},
    )
    assert status == 200 and re.search(r"/f/funny/\d+$", where)
    inner = page.split('class="submission__inner"', 1)[1].split("</article>", 1)[0]
    assert f'href="{IMAGE_PATH}{file}"' in inner and "<svg" in inner and "from x" in inner
    # any other web address is a link post; something else is refused with the mend
    status, _, page = _fetch(
        "/submit/funny", cookies, {"url": "https://example.org/a.png", "title": "Elsewhere"}
    )
    assert status == 200 and 'href="https://example.org/a.png"' in page
    status, _, page = _fetch("/submit/funny", cookies, {"url": "javascript:x()", "title": "Bad"})
    assert status == 400 and "must start with http:// or https://" in page
    assert 'value="Bad"' in page  # the form keeps what was typed


# -- the store's descriptions ----------------------------------------------------------------
def test_product_descriptions_say_what_products_are_for_and_search_reads_them(seed):
    rows = seed.execute("SELECT name, description FROM shop_products").fetchall()
    said = [r["description"].rsplit(". ", 1)[-1] for r in rows]
    assert all(s.endswith(".") and len(s) > 15 for s in said)
    assert len(set(said)) > 1000  # the uses vary by product, not one line per category
    helped = seed.execute(
        "SELECT name FROM shop_products WHERE status='Enabled' AND description LIKE '%jaw bruxism%'"
    ).fetchall()
    assert helped and not [r for r in rows if "bruxism" in r["name"].lower()]
    srv = server()
    with urllib.request.urlopen(
        srv.url("shopping") + "/catalogsearch/result/?q=jaw+bruxism", timeout=60
    ) as reply:
        page = reply.read().decode()
    names = re.findall(r'class="product-item-name"><a href="[^"]+">([^<]+)</a>', page)
    assert names and all(("Guard" in n) for n in names)
    # names that match come first (Magento's relevance); descriptions add the rest
    with urllib.request.urlopen(
        srv.url("shopping") + "/catalogsearch/result/?q=night+guard", timeout=60
    ) as reply:
        names = re.findall(
            r'class="product-item-name"><a href="[^"]+">([^<]+)</a>', reply.read().decode()
        )
    assert names and all("Night Guard" in n for n in names)


# -- the templates, through the env --------------------------------------------------------------
def test_repost_image_is_solved_by_the_expert_and_failed_without_the_image(env, seed):
    env.judge = None
    task_id = _test_task(env, 11)
    config = env.tasks.get("test", task_id).config
    assert config["start_url"].endswith(f"/f/{PICS_FORUM}")
    content = config["instantiation_dict"]["content"]
    assert content.lower() in config["intent"].lower()
    solved = _play(env, task_id)
    assert solved["success"] and solved["score"] == 1.0
    # a do-nothing stop, and the same post without the image's URL, both fail
    assert _play(env, task_id, [["stop", "Done"]])["score"] == 0.0
    no_image = [s for s in config["agentgym_solution"] if s[:3] != ["type", "textbox", "URL"]]
    assert _play(env, task_id, no_image)["score"] == 0.0
    # another photo's URL fails too
    plan = config["agentgym_solution"]
    other = seed.execute(
        "SELECT u.url FROM forum_post_urls u JOIN forum_posts p ON p.id = u.post_id WHERE "
        "p.forum=? AND lower(p.title) NOT LIKE ? ORDER BY p.id LIMIT 1",
        (PICS_FORUM, f"%{content.lower()}%"),
    ).fetchone()[0]
    wrong = [
        [*s[:3], REAL_HOSTS["reddit"] + other, 0] if s[:3] == ["type", "textbox", "URL"] else s
        for s in plan
    ]
    assert _play(env, task_id, wrong)["score"] == 0.0


def test_alleviate_bruxism_is_solved_by_the_expert_and_failed_by_a_bare_stop(env):
    env.judge = None
    task_id = _test_task(env, 151)
    solved = _play(env, task_id)
    assert solved["success"] and solved["score"] == 1.0
    assert _play(env, task_id, [["stop", "mouth guard"]])["score"] == 0.0
    # a search for the wrong words ends on a page without the problem
    wrong = [["type", "searchbox", "Search entire store here...", "mouth guard", 1], ["stop", ""]]
    assert _play(env, task_id, wrong)["score"] == 0.0
