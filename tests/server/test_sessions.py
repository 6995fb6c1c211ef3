"""Session cap and idle eviction: the store itself (with a fake clock) and over HTTP."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from agentgym_envs.server.sessions import (
    ID_CEILING,
    ID_FLOOR,
    BrokenSessionError,
    SessionLimitError,
    SessionStore,
    UnknownSessionError,
)
from tests.server.conftest import running


class Env:
    def __init__(self) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_store_cap_close_and_eviction():
    clock = Clock()
    store = SessionStore(Env, max_sessions=2, idle_timeout=10, clock=clock)
    a, b = store.create(), store.create()
    assert (a.ordinal, b.ordinal) == (0, 1)
    assert a.id != b.id and all(ID_FLOOR <= s.id < ID_CEILING for s in (a, b))
    with pytest.raises(SessionLimitError, match="--max-sessions"):
        store.create()
    store.close(a.id)
    assert a.env.closed
    with pytest.raises(UnknownSessionError):
        store.get(a.id)
    c = store.create()
    assert c.ordinal == 2 and c.id not in (a.id, b.id)
    clock.now = 5
    store.get(c.id)  # a request keeps c alive
    clock.now = 12
    d = store.create()  # b idle 12 s > 10: evicted to make room; c (idle 7 s) stays
    assert b.env.closed and not c.env.closed
    assert store.ids() == sorted([c.id, d.id])
    with pytest.raises(UnknownSessionError, match="evicted"):
        store.get(b.id)


def test_session_in_use_is_not_evicted():
    clock = Clock()
    store = SessionStore(Env, max_sessions=1, idle_timeout=1, clock=clock)
    a = store.create()
    clock.now = 100
    with a.lock, pytest.raises(SessionLimitError):
        store.create()
    assert store.create().ordinal == 1 and a.env.closed


def test_bad_ids_and_cap_value():
    store = SessionStore(Env, max_sessions=1)
    with pytest.raises(UnknownSessionError, match="int"):
        store.get("abc")
    for bad in (False, True, 1.5, 0.0, None, [1]):
        with pytest.raises(UnknownSessionError, match="int"):
            store.get(bad)
    with pytest.raises(ValueError):
        SessionStore(Env, max_sessions=0)


def test_http_cap_is_an_error_not_sharing():
    with (
        running("Wordle-v0", max_sessions=2, max_sessions_per_client=2, idle_timeout=None) as url,
        httpx.Client(base_url=url) as http,
    ):
        ids = [http.post("/create").json()["id"] for _ in range(2)]
        full = http.post("/create")
        assert full.status_code == 200 and "session limit" in full.json()["error"]
        assert http.get("/list_envs").json() == sorted(ids)
        http.post("/close", json={"id": ids[0]})
        new = http.post("/create").json()["id"]
        assert isinstance(new, int) and new not in ids


def test_http_idle_eviction():
    with (
        running("Maze-v0", max_sessions=1, idle_timeout=0.2) as url,
        httpx.Client(base_url=url) as http,
    ):
        old = http.post("/create").json()["id"]
        http.post("/reset", json={"id": old, "game": 0})
        time.sleep(0.4)
        new = http.post("/create").json()["id"]  # evicts the idle one instead of failing
        assert new != old
        assert (
            "evicted" in http.post("/step", json={"id": old, "action": "move up"}).json()["error"]
        )


def test_concurrent_sessions_do_not_share_state():
    with running("Wordle-v0", max_sessions=8, max_sessions_per_client=8) as url:
        results: dict[int, str] = {}

        def play(seed: int) -> None:
            with httpx.Client(base_url=url) as http:
                sid = http.post("/create").json()["id"]
                http.post("/reset", json={"id": sid, "seed": seed})
                for _ in range(3):
                    http.post("/step", json={"id": sid, "action": "a b c d e"})
                results[seed] = http.get("/detail", params={"id": sid}).json()

        threads = [threading.Thread(target=play, args=(s,)) for s in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(results) == list(range(6))
        assert all(r["turns"] == 3 and r["task_id"] == seed for seed, r in results.items())


def test_a_session_closed_while_taken_closes_its_env_when_let_go():
    store = SessionStore(Env, max_sessions=2, idle_timeout=None)
    session = store.create()
    with session.taken():
        store.close(session.id)
        assert not session.env.closed  # work still runs on it
    assert session.env.closed


def test_a_broken_session_is_refused_until_closed():
    store = SessionStore(Env, max_sessions=2, idle_timeout=None)
    session = store.create()
    session.broken = f"session {session.id} is broken"
    with pytest.raises(BrokenSessionError, match="is broken"):
        store.get(session.id)
    with pytest.raises(BrokenSessionError, match="is broken"), session.taken():
        pass
    store.close(session.id)
    assert session.env.closed and len(store) == 0
