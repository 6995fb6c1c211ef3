"""The dashboard: its pages and API over HTTP, and a person using it in real Chromium."""

from __future__ import annotations

import json
import socket
import threading

import pytest
from sqlalchemy import select

from agentgym_envs.experience import export_training, import_path, list_feedback
from agentgym_envs.experience.models import Episode, Run
from tests.experience.conftest import wait_for

pytest.importorskip("fastapi")


@pytest.fixture
def filled(sqlite_store, bench_runs):
    for name in ("expert", "random", "babyai"):
        import_path(sqlite_store, bench_runs[name])
    return sqlite_store


def _episode_id(store, run: str, min_turns: int = 1) -> int:
    with store.session() as s:
        return s.scalars(
            select(Episode.id)
            .join(Run)
            .where(Run.name == run, Episode.turns >= min_turns)
            .order_by(Episode.id)
        ).first()


def test_pages_and_api(filled):
    from fastapi.testclient import TestClient

    from agentgym_envs.experience import create_app

    client = TestClient(create_app(filled), base_url="http://127.0.0.1")
    feedback_post = client.get("/openapi.json").json()["paths"]["/api/feedback"]["post"]
    schema = feedback_post["requestBody"]["content"]["application/json"]["schema"]
    assert {"episode_id", "step_index", "label", "score", "comment", "author"} <= set(
        schema["properties"]
    )
    assert set(schema["required"]) == {"episode_id", "author"}
    home = client.get("/")
    assert home.status_code == 200 and 'id="n-episodes">43<' in home.text and "<svg" in home.text
    ep = _episode_id(filled, "expert", min_turns=3)
    with filled.session() as s:
        run_id = s.get(Episode, ep).run_id
    assert client.get(f"/runs/{run_id}").status_code == 200
    assert "Maze-v0" in client.get(f"/runs/{run_id}?env_id=AgentGym/Maze-v0&outcome=success").text
    page = client.get(f"/episodes/{ep}")
    assert page.status_code == 200 and "episode-data" in page.text
    data = client.get(f"/api/episodes/{ep}").json()
    assert data["id"] == ep and len(data["steps"]) == data["turns"] >= 3
    views = client.get(f"/api/episodes/{ep}/views").json()
    assert views["error"] is None and len(views["frames"]) == data["turns"] + 1
    assert all(f["kind"] == "text" for f in views["frames"])
    assert (
        client.get("/runs/999").status_code == 404
        and client.get("/episodes/999999").status_code == 404
    )

    bad = client.post("/api/feedback", json={"episode_id": ep, "label": "meh", "author": "x"})
    assert bad.status_code == 400 and "good" in bad.json()["error"]
    assert client.post("/api/feedback", content=b"not json").status_code == 400
    ok = client.post(
        "/api/feedback",
        json={"episode_id": ep, "step_index": 0, "label": "good", "author": "api-user"},
    )
    assert ok.status_code == 201 and ok.json()["target"] == "action"
    export = client.get("/api/feedback/export?fmt=jsonl&source=human").text.splitlines()
    assert [json.loads(x)["author"] for x in export] == ["api-user"]
    assert client.get("/api/feedback/export?fmt=csv").text.startswith("id,")
    assert "api-user" in client.get("/feedback").text

    versions = client.get("/api/versions").json()
    labels = sorted(v["label"] for v in versions if v["name"] in ("expert", "random"))
    cmp = client.get("/versions", params={"a": labels[0], "b": labels[1]})
    assert cmp.status_code == 200 and "A better" in cmp.text and "<svg" in cmp.text
    promoted = client.post("/versions/promote", data={"label": labels[0]}, follow_redirects=False)
    assert promoted.status_code == 303
    assert {v["label"]: v["current"] for v in client.get("/api/versions").json()}[labels[0]] is True


def test_babyai_episodes_are_drawn_as_pictures(filled):
    from fastapi.testclient import TestClient

    from agentgym_envs.experience import create_app

    ep = _episode_id(filled, "babyai")
    views = (
        TestClient(create_app(filled), base_url="http://127.0.0.1")
        .get(f"/api/episodes/{ep}/views")
        .json()
    )
    assert views["error"] is None
    assert views["frames"][0]["kind"] == "png" and views["frames"][0]["content"].startswith(
        "data:image/png;base64,"
    )


# -- a person in a real browser --------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def served(filled):
    uvicorn = pytest.importorskip("uvicorn")
    from agentgym_envs.experience import create_app

    server = uvicorn.Server(
        uvicorn.Config(create_app(filled), host="127.0.0.1", port=_free_port(), log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    assert wait_for(lambda: server.started, timeout=60)
    yield f"http://127.0.0.1:{server.config.port}", filled
    server.should_exit = True
    thread.join(timeout=30)


@pytest.fixture
def browser():
    """Real Chromium (Debian's) driven by Playwright; assertions wait up to 30 s (loaded machines)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    from agentgym_envs.browser import CHROMIUM_ARGS, chromium_path

    chromium = chromium_path()
    if chromium is None:
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        sync_api.expect.set_options(timeout=30_000)
        b = p.chromium.launch(executable_path=chromium, args=list(CHROMIUM_ARGS))
        yield b
        b.close()


def test_open_a_run_replay_a_trajectory_and_leave_feedback(served, browser):
    from playwright.sync_api import expect

    base, store = served
    page = browser.new_page()
    page.set_default_timeout(30_000)
    page.goto(base + "/")
    expect(page.locator("#n-episodes")).to_have_text("43")
    page.get_by_role("link", name="expert", exact=True).click()
    expect(page.locator("h1")).to_contain_text("Run expert")
    # a Maze episode with several steps
    maze_ep = _episode_id(store, "expert", min_turns=4)
    page.locator(f'a[href="/episodes/{maze_ep}"]').click()
    expect(page.locator("h1")).to_contain_text(f"Episode #{maze_ep}")
    data = page.evaluate("JSON.parse(document.getElementById('episode-data').textContent)")
    steps = data["steps"]
    expect(page.locator("#position")).to_have_text(f"step 1 of {len(steps)}")
    expect(page.locator("#action")).to_have_text(steps[0]["action"])
    expect(page.locator("#view pre")).to_contain_text("#")  # the maze drawn as text
    page.locator("#next").click()
    expect(page.locator("#position")).to_have_text(f"step 2 of {len(steps)}")
    expect(page.locator("#action")).to_have_text(steps[1]["action"])
    expect(page.locator("#result")).to_have_text(steps[1]["result"])
    page.keyboard.press("ArrowRight")
    expect(page.locator("#position")).to_have_text(f"step 3 of {len(steps)}")
    page.locator("#prev").click()
    page.locator("#speed").select_option("200")
    page.locator("#play").click()
    expect(page.locator("#position")).to_have_text(f"step {len(steps)} of {len(steps)}")
    page.locator("#first").click()
    page.locator("#next").click()

    # no name: nothing is stored, the page says why
    page.locator("#step-bad").click()
    expect(page.locator("#status")).to_contain_text("Enter your name")
    assert list_feedback(store, source="human") == []

    page.locator("#author").fill("tester")
    page.locator("#step-comment").fill("walks into a wall")
    page.locator("#step-bad").click()
    expect(page.locator("#status")).to_contain_text("Saved: step 2 bad")
    page.locator("#outcome-comment").fill("got there")
    page.locator("#outcome-good").click()
    expect(page.locator("#status")).to_contain_text("Saved: outcome good")
    expect(page.locator("#steps tr[data-step='1'] td.fb")).to_contain_text("walks into a wall")
    page.locator("#next").click()  # the next step starts with an empty comment box
    expect(page.locator("#step-comment")).to_have_value("")

    stored = list_feedback(store, source="human")
    assert [
        (f["target"], f["step_index"], f["label"], f["author"], f["comment"]) for f in stored
    ] == [
        ("action", 1, "bad", "tester", "walks into a wall"),
        ("outcome", None, "good", "tester", "got there"),
    ]
    # the feedback shows up in the exports: the feedback file and the training data
    export = page.request.get(base + "/api/feedback/export?fmt=jsonl&source=human").text()
    assert [json.loads(x)["comment"] for x in export.splitlines()] == [
        "walks into a wall",
        "got there",
    ]
    rm = export_training(store, "rm", feedback="human")
    assert [r["label"] for r in rm if r["kind"] == "action"] == ["bad"]
    sft = export_training(store, "sft", feedback="human")
    (rec,) = sft
    with store.session() as s:
        turns = [st.turn for st in s.get(Episode, maze_ep).steps]
    assert rec["messages"][turns[1]]["content"] == steps[1]["action"]
    assert [rec["loss_mask"][i] for i in turns] == [i != 1 for i in range(len(turns))]

    # the name is remembered; the feedback page lists the entries
    page.reload()
    expect(page.locator("#author")).to_have_value("tester")
    page.goto(base + "/feedback")
    expect(page.locator("#feedback")).to_contain_text("walks into a wall")


def test_babyai_view_in_the_browser(served, browser):
    from playwright.sync_api import expect

    base, store = served
    page = browser.new_page()
    page.set_default_timeout(30_000)
    page.goto(f"{base}/episodes/{_episode_id(store, 'babyai')}")
    img = page.locator("#view img")
    expect(img).to_be_visible()
    assert page.evaluate("document.querySelector('#view img').naturalWidth") > 100
