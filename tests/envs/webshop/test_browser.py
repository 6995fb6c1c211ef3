"""Browser mode: the shop as a real web app on 127.0.0.1, driven by Chromium through Playwright.

A browser session searches, opens the target, picks options and buys; the score the done page
shows must equal the text env's reward for the same actions. Needs Debian's Chromium
(``apt-get install chromium``); skipped without it.
"""

from __future__ import annotations

import httpx
import pytest

pytest.importorskip("bm25s")
pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from agentgym_envs.browser import CHROMIUM_ARGS, chromium_path
from agentgym_envs.envs.webshop.env import WebShopEnv
from agentgym_envs.envs.webshop.expert import key_terms
from agentgym_envs.envs.webshop.web import ShopServer, html_to_text

CHROMIUM = chromium_path()


@pytest.fixture(scope="module")
def server():
    with ShopServer(num_products=10_000) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed: apt-get install -y chromium")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=list(CHROMIUM_ARGS))
        yield b
        b.close()


def text_env_reward(split: str, task_id: int, actions: list[str]) -> tuple[float, str]:
    env = WebShopEnv()
    obs, _ = env.reset(options={"split": split, "task_id": task_id})
    reward = 0.0
    for action in actions:
        obs, reward, done, _, info = env.step(action)
        assert "error" not in info, (action, info)
    assert done
    return reward, obs


def shop_in_browser(
    page, base: str, task_id: int, choose_wrong: bool = False
) -> tuple[float, list[str]]:
    """Search, open the target, pick options, buy -- through the HTML pages only."""
    env = WebShopEnv()
    env.reset(options={"split": "test", "task_id": task_id})
    goal, product = env.goal, env.catalog.by_asin[env.goal.asin]
    actions = []

    page.goto(f"{base}/start?split=test&task_id={task_id}")
    assert page.locator("#instruction-text").inner_text() == goal.instruction_text
    assert html_to_text(page.content()) == env.shop.observation()

    for keywords in (key_terms(goal.instruction_text, goal.goal_options), goal.name):
        if page.locator("#search_input").count() == 0:
            with page.expect_navigation():
                page.get_by_role("button", name="Back to Search").click()
            actions.append("click[Back to Search]")
        page.fill("#search_input", keywords)
        with page.expect_navigation():
            page.get_by_role("button", name="Search").click()
        actions.append(f"search[{keywords}]")
        if page.get_by_role("link", name=goal.asin, exact=True).count():
            break
    with page.expect_navigation():
        page.get_by_role("link", name=goal.asin, exact=True).click()
    actions.append(f"click[{goal.asin}]")
    assert product.title in page.locator("body").inner_text()

    for name, value in goal.goal_options.items():
        if choose_wrong:
            value = next(v for v in product.options[name] if v != value)
        radio = page.locator(f'input[type=radio][data-group="{name}"][value="{value}"]')
        with page.expect_navigation():
            page.locator(f'label[for="{radio.get_attribute("id")}"]').click()
        actions.append(f"click[{value}]")
        assert page.locator(f'input[type=radio][data-group="{name}"][value="{value}"]').is_checked()

    with page.expect_navigation():
        page.get_by_role("button", name="Buy Now").click()
    actions.append("click[Buy Now]")
    assert "Thank you for shopping with us!" in page.locator("body").inner_text()
    return float(page.locator("#reward").inner_text()), actions


@pytest.mark.parametrize("task_id", [0, 1])
def test_browser_purchase_scores_like_the_text_env(server, browser, task_id):
    page = browser.new_page()
    try:
        score, actions = shop_in_browser(page, server, task_id)
        reward, done_obs = text_env_reward("test", task_id, actions)
        assert score == reward == 1.0
        assert html_to_text(page.content()) == done_obs
    finally:
        page.close()


def test_browser_partial_purchase_scores_like_the_text_env(server, browser):
    page = browser.new_page()
    try:
        score, actions = shop_in_browser(page, server, 2, choose_wrong=True)
        reward, _ = text_env_reward("test", 2, actions)
        assert 0.0 < score < 1.0
        assert score == pytest.approx(reward)
    finally:
        page.close()


def test_every_page_renders_the_text_observation(server):
    """Without a browser: the HTML of each page converts to exactly the text env's observation."""
    env = WebShopEnv()
    env.reset(options={"split": "test", "task_id": 7})
    with httpx.Client(base_url=server, follow_redirects=True) as client:
        r = client.get("/start", params={"split": "test", "task_id": 7})
        sid = str(r.url).rsplit("/", 1)[-1]
        steps = [
            ("search", "bookcase storage"),
            ("click", "next >"),
            ("click", "< prev"),
            ("pick", 0),
            ("pick", "option"),
            ("click", "description"),
            ("click", "< prev"),
            ("click", "features"),
            ("click", "< prev"),
            ("click", "reviews"),
            ("click", "< prev"),
            ("click", "< prev"),
            ("click", "back to search"),
        ]
        for kind, arg in steps:
            if kind == "search":
                r = client.post(f"/session/{sid}/search", data={"keywords": arg})
                env.step(f"search[{arg}]")
            else:
                if kind == "pick":
                    clickables = env.shop.clickables()
                    keys = [
                        k
                        for k, e in clickables.items()
                        if e.kind == ("link" if arg == 0 else "option")
                    ]
                    arg = keys[0]
                r = client.post(f"/session/{sid}/click", data={"value": arg})
                env.step(f"click[{arg}]")
            assert r.status_code == 200
            assert html_to_text(r.text) == env.shop.observation(), (kind, arg)
        state = client.get(f"/session/{sid}/state").json()
        assert state["observation"] == env.shop.observation() and state["done"] is False
        assert client.get("/session/nope").status_code == 404
        assert client.get("/start", params={"split": "test", "task_id": 10_000}).status_code == 400
