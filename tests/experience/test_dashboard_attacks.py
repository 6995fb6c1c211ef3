"""The dashboard attacked (#31.5), on a real uvicorn server: forged cross-site writes,
DNS-rebinding Host headers, 20-digit ids, and an observation that tries to break out of the
replay viewer's script (in real Chromium)."""

from __future__ import annotations

import json
import threading

import httpx
import pytest

from agentgym_envs.experience import import_path, list_feedback
from agentgym_envs.experience.versions import current_version, get_or_register, promote
from tests.experience.conftest import wait_for
from tests.experience.test_dashboard import _free_port, browser  # noqa: F401

pytest.importorskip("fastapi")

TRICK = "<!--<script>alert(1)</script> & </script><b>"


@pytest.fixture
def site(sqlite_store, tmp_path):
    uvicorn = pytest.importorskip("uvicorn")
    from agentgym_envs.experience import create_app

    record = {
        "item_id": "maze_0",
        "conversations": [
            {"from": "human", "value": f"start {TRICK}", "loss": None},
            {"from": "gpt", "value": "Action: move up", "loss": True},
            {"from": "human", "value": f"after {TRICK}", "loss": None},
            {"from": "gpt", "value": "Action: move down", "loss": True},
        ],
        "reward": 0.0,
        "success": False,
    }
    path = tmp_path / "rec.jsonl"
    path.write_text(json.dumps(record) + "\n")
    import_path(sqlite_store, path)
    with sqlite_store.session() as s:
        get_or_register(s, "agent", "v1")
        get_or_register(s, "agent", "v2")
    promote(sqlite_store, "agent@v1", author="me", reason="first")
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(sqlite_store), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    assert wait_for(lambda: server.started, timeout=60)
    yield f"http://127.0.0.1:{port}", sqlite_store
    server.should_exit = True
    thread.join(timeout=10)


def _episode(store) -> int:
    from sqlalchemy import select

    from agentgym_envs.experience.models import Episode

    with store.session() as s:
        return s.scalars(select(Episode.id)).first()


def test_cross_site_writes_are_refused(site):
    base, store = site
    ep = _episode(store)
    evil = "http://evil.example"
    feedback = json.dumps({"episode_id": ep, "label": "bad", "author": "x"})
    # what a hostile page can make the user's browser send without a preflight
    plain = httpx.post(
        f"{base}/api/feedback",
        content=feedback,
        headers={"content-type": "text/plain", "origin": evil, "sec-fetch-site": "cross-site"},
    )
    assert plain.status_code == 403
    no_origin_plain = httpx.post(
        f"{base}/api/feedback", content=feedback, headers={"content-type": "text/plain"}
    )
    assert no_origin_plain.status_code == 415
    form = httpx.post(
        f"{base}/versions/promote",
        data={"label": "agent@v2", "author": "evil"},
        headers={"origin": evil},
    )
    assert form.status_code == 403
    null_origin = httpx.post(
        f"{base}/versions/promote", data={"label": "agent@v2"}, headers={"origin": "null"}
    )
    assert null_origin.status_code == 403
    assert list_feedback(store, source="human") == []
    assert current_version(store, "agent").version == "v1"
    # the dashboard's own pages (same origin) still write
    same = httpx.post(
        f"{base}/api/feedback",
        content=feedback,
        headers={"content-type": "application/json", "origin": base},
    )
    assert same.status_code == 201
    moved = httpx.post(
        f"{base}/versions/promote", data={"label": "agent@v2"}, headers={"origin": base}
    )
    assert moved.status_code == 303 and current_version(store, "agent").version == "v2"


def test_foreign_host_headers_are_refused(site):
    base, _ = site
    port = base.rsplit(":", 1)[1]
    rebound = httpx.get(f"{base}/", headers={"host": f"attacker.example:{port}"})
    assert rebound.status_code == 400 and "not served here" in rebound.json()["error"]
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}"):
        assert httpx.get(f"{base}/api/runs", headers={"host": host}).status_code == 200


def test_huge_ids_are_404(site):
    base, _ = site
    big = "9" * 20
    for path in (
        f"/episodes/{big}",
        f"/api/episodes/{big}",
        f"/api/episodes/{big}/views",
        f"/runs/{big}",
        f"/ab/{big}",
        f"/api/feedback?episode_id={big}",
    ):
        assert httpx.get(base + path).status_code == 404, path
    posted = httpx.post(
        f"{base}/api/feedback", json={"episode_id": int(big), "label": "good", "author": "x"}
    )
    assert posted.status_code == 404


def test_an_observation_cannot_break_the_replay_viewer(site, browser):  # noqa: F811
    from playwright.sync_api import expect

    base, store = site
    ep = _episode(store)
    html = httpx.get(f"{base}/episodes/{ep}").text
    script = html.split('<script id="episode-data" type="application/json">')[1].split("</script>")[
        0
    ]
    assert "<" not in script and json.loads(script)["steps"][1]["observation"].endswith(TRICK)
    page = browser.new_page()
    page.set_default_timeout(30_000)
    page.goto(f"{base}/episodes/{ep}")
    expect(page.locator("#position")).to_have_text("step 1 of 2")
    page.locator("#next").click()
    expect(page.locator("#position")).to_have_text("step 2 of 2")
    expect(page.locator("#action")).to_have_text("Action: move down")
    expect(page.locator("#result")).to_have_count(1)
