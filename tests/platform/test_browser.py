"""Login, logout and CSRF in real Chromium (Debian's, driven by Playwright)."""

from __future__ import annotations

import http.server
import threading

import pytest

from agentgym_envs.browser import CHROMIUM_ARGS, chromium_path
from agentgym_envs.platform import AgentGym
from tests.platform.conftest import PASSWORD
from tests.platform.helpers import count

playwright_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = chromium_path()
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium: apt-get install -y chromium")


class EvilSite:
    """Another origin (same host, another port) whose page tries to write to the platform
    with the visitor's login: a form that promotes a version, and a fetch that posts feedback."""

    def __init__(self, target: str, episode_id: int) -> None:
        page = f"""<!doctype html><html><body><h1>win a prize</h1>
<form id="f" method="post" action="{target}/versions/promote">
<input name="label" value="Browser@2"></form>
<script>
fetch("{target}/api/feedback", {{method: "POST", mode: "no-cors", credentials: "include",
  body: JSON.stringify({{episode_id: {episode_id}, label: "bad", author: "evil"}})}})
  .finally(() => document.getElementById("f").submit());
</script></body></html>""".encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_login_csrf_and_logout_in_chromium(platform):
    with AgentGym(api_key=platform.a.key, base_url=platform.url) as gym:
        agent_id = gym.register_agent("Browser", "", "1")
        gym.register_version(agent_id, "2")
        ex = gym.record_execution(agent_id, "the question", "the answer", version="1")
        episode_id = gym.get_execution(agent_id, ex.execution_id)["id"]
    feedback_sql = (
        f"SELECT count(*) FROM feedback WHERE episode_id = {episode_id} AND source = 'human'"
    )
    promotions_sql = "SELECT count(*) FROM promotions WHERE agent_name = 'Browser'"
    evil = EvilSite(platform.url, episode_id)
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=list(CHROMIUM_ARGS)
        )
        try:
            page = browser.new_page()
            page.goto(f"{platform.url}/episodes/{episode_id}")
            assert "/login" in page.url  # not logged in: sent to the login page
            page.fill("input[name=org]", "org-a")
            page.fill("input[name=email]", platform.a.admin)
            page.fill("input[name=password]", "not the password")
            page.click("button")
            assert "Wrong organisation, email or password" in page.content()
            page.fill("input[name=password]", PASSWORD)
            page.click("button")
            page.wait_for_url(f"{platform.url}/episodes/{episode_id}")
            assert "the question" in page.content()
            cookie = next(c for c in page.context.cookies() if c["name"] == "agentgym_session")
            assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
            assert page.evaluate("document.cookie").find("agentgym_session") == -1  # HttpOnly

            # episode search from the dashboard's nav: free text, then the hit's episode page
            page.goto(f"{platform.url}/")
            page.click("a[href='/search']")
            page.fill("input[name=q]", "the question")
            page.click("form[action='/search'] button")
            page.click(f"tr.hit a[href='/episodes/{episode_id}']")
            page.wait_for_url(f"{platform.url}/episodes/{episode_id}")
            page.goto(f"{platform.url}/search?like={episode_id}")
            assert "Episodes like" in page.content()

            # a same-origin write from the dashboard's own page works
            status = page.evaluate(
                f"""fetch("/api/feedback", {{method: "POST", headers: {{"Content-Type": "application/json"}},
                    body: JSON.stringify({{episode_id: {episode_id}, label: "good", author: "me"}})}}).then(r => r.status)"""
            )
            assert status == 201 and count(platform.owner_url, feedback_sql) == 1

            # another site's page, visited while logged in, cannot write
            before = count(platform.owner_url, promotions_sql)
            page.goto(evil.url)
            page.wait_for_url(f"{platform.url}/versions/promote")
            assert "refused" in page.content()
            assert count(platform.owner_url, feedback_sql) == 1
            assert count(platform.owner_url, promotions_sql) == before

            # logout ends the login: the dashboard asks for it again
            page.goto(f"{platform.url}/logout")
            page.click("button")
            page.wait_for_url(f"{platform.url}/login")
            assert not [c for c in page.context.cookies() if c["name"] == "agentgym_session"]
            page.goto(f"{platform.url}/episodes/{episode_id}")
            assert "/login" in page.url
        finally:
            browser.close()
            evil.close()


def test_failed_logins_are_limited_in_chromium(platform):
    """Five wrong passwords through the login form, then the page says to wait (429 with
    Retry-After); a browser at another address logs in to the same account at once."""
    from tests.platform.test_ratelimit import GOOD, LOGIN_TRIES, _address, _user

    email = _user(platform)
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=list(CHROMIUM_ARGS)
        )
        try:
            for address, tries in ((_address(), LOGIN_TRIES), (_address(), 0)):
                context = browser.new_context(extra_http_headers={"X-Forwarded-For": address})
                page = context.new_page()
                page.goto(f"{platform.url}/login")
                page.fill("input[name=org]", "org-a")
                page.fill("input[name=email]", email)
                for _ in range(tries):
                    page.fill("input[name=password]", "not the password")
                    with page.expect_response(lambda r: r.url.endswith("/login")) as answer:
                        page.click("button")
                    assert answer.value.status == 401
                page.fill("input[name=password]", GOOD)
                with page.expect_response(lambda r: r.url.endswith("/login")) as answer:
                    page.click("button")
                if tries:  # the attacker's browser: told to wait, the password not even checked
                    assert answer.value.status == 429
                    assert int(answer.value.headers["retry-after"]) > 0
                    assert "Too many failed logins" in page.content()
                else:  # the user's browser elsewhere: logged in
                    page.wait_for_url(f"{platform.url}/")
                    assert any(c["name"] == "agentgym_session" for c in context.cookies())
                context.close()
        finally:
            browser.close()
