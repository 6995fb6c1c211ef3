"""Hostile requests against a real uvicorn server on 127.0.0.1: deep and huge bodies, loose
types for ids and indices, guessed ids, idle sessions nobody touches, bad ``serve`` options."""

from __future__ import annotations

import subprocess
import sys
import time

import httpx
import pytest

from agentgym_envs.server.routes import MAX_BODY_BYTES, MAX_JSON_DEPTH
from agentgym_envs.server.sessions import ID_CEILING, ID_FLOOR
from tests.server.conftest import running

CLI = [sys.executable, "-c", "from agentgym_envs.cli import main; main()"]


@pytest.fixture(scope="module")
def url():
    with running("Maze-v0", max_sessions=8, max_sessions_per_client=8, idle_timeout=None) as base:
        yield base


def _post_raw(http: httpx.Client, path: str, body: bytes) -> httpx.Response:
    return http.post(path, content=body, headers={"content-type": "application/json"})


def test_nested_brackets_are_a_json_4xx_and_the_server_lives(url):
    with httpx.Client(base_url=url, timeout=60) as http:
        for body in (b"[" * 100_000, b'{"id": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"):
            reply = _post_raw(http, "/step", body)
            assert reply.status_code == 400
            assert "nested deeper" in reply.json()["error"]
        # brackets inside a string are text, not nesting
        sid = http.post("/create").json()["id"]
        http.post("/reset", json={"id": sid, "game": 0})
        reply = http.post("/step", json={"id": sid, "action": "[" * 1000})
        assert reply.status_code == 200 and "observation" in reply.json()
        inner = MAX_JSON_DEPTH - 1  # the object itself is one level
        shallow = b'{"id": %d, "x": ' % sid + b"[" * inner + b"]" * inner + b"}"
        assert "nested" not in _post_raw(http, "/step", shallow).json()["error"]
        assert http.get("/").json()["env_id"] == "AgentGym/Maze-v0"


def test_huge_body_is_refused_with_413(url):
    with httpx.Client(base_url=url, timeout=60) as http:
        body = b'{"id": 1, "action": "' + b"a" * (MAX_BODY_BYTES + 10) + b'"}'
        reply = _post_raw(http, "/step", body)
        assert reply.status_code == 413 and "bytes" in reply.json()["error"]
        for junk in (b"{", b"nul", b"\xff\xfe", b"[1, 2]", b'"text"'):
            reply = _post_raw(http, "/reset", junk)
            assert reply.status_code == 200 and "error" in reply.json()


def test_loose_ids_and_indices_are_errors(url):
    with httpx.Client(base_url=url, timeout=60) as http:
        sid = http.post("/create").json()["id"]
        assert http.post("/reset", json={"id": sid, "game": 0}).json()["observation"]
        for bad_id in (False, True, 0, 1.5, float(sid), str(sid) + ".0", None, [sid], {"a": 1}):
            reply = http.post("/step", json={"id": bad_id, "action": "move up"})
            assert reply.status_code == 200 and "error" in reply.json(), bad_id
        for bad_index in (1.5, 1.0, True, "1.5", None, [1]):
            reply = http.post("/reset", json={"id": sid, "game": bad_index})
            assert reply.status_code == 200
            assert "item index" in reply.json().get("error", ""), bad_index
        # the real id still works, also as a query string
        assert "observation" in http.post("/step", json={"id": sid, "action": "move up"}).json()
        assert isinstance(http.get("/observation", params={"id": sid}).json(), str)


def test_session_ids_are_large_random_ints(url):
    with httpx.Client(base_url=url, timeout=60) as http:
        ids = [http.post("/create").json()["id"] for _ in range(4)]
        try:
            assert all(isinstance(i, int) and ID_FLOOR <= i < ID_CEILING for i in ids)
            assert len(set(ids)) == 4
            assert sorted(ids) != [ids[0] + k for k in range(4)]  # not sequential
            # small ids (AgentGym's scheme) name nobody's session
            for guess in range(4):
                assert "unknown session" in http.post("/close", json={"id": guess}).json()["error"]
        finally:
            for i in ids:
                http.post("/close", json={"id": i})


def test_idle_sessions_are_evicted_without_any_request():
    with (
        running("Maze-v0", max_sessions=4, idle_timeout=0.5) as base,
        httpx.Client(base_url=base, timeout=60) as http,
    ):
        sid = http.post("/create").json()["id"]
        app_sessions = http.get("/").json()["sessions"]
        assert app_sessions == 1
        deadline = time.monotonic() + 60
        # only / is polled: it neither creates nor touches a session
        while http.get("/").json()["sessions"]:
            assert time.monotonic() < deadline, "idle session never evicted"
            time.sleep(0.2)
        assert "unknown session" in http.post("/reset", json={"id": sid, "game": 0}).json()["error"]


@pytest.mark.parametrize(
    "options",
    [
        ["--max-sessions", "0"],
        ["--max-sessions", "-3"],
        ["--port", "70000"],
        ["--idle-timeout", "-1"],
        ["--log-level", "loud"],
    ],
)
def test_bad_serve_options_are_one_line_errors(options):
    done = subprocess.run(
        [*CLI, "serve", "Maze-v0", *options],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and options[0] in lines[0]
    assert "Traceback" not in done.stderr


def test_endless_chunked_body_is_answered_413_not_cut(url):
    """A body sent chunked that never ends: the server answers 413 once it is over the limit
    (the client reading alongside sees the answer, not a reset connection), then serves on."""
    from urllib.parse import urlsplit

    from tests.raw_http import endless_chunks, send_raw

    port = urlsplit(url).port
    for path in (b"/step", b"/reset", b"/create"):
        head = (
            b"POST " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        reply, sent = send_raw(port, head, endless_chunks())
        assert reply.startswith(b"HTTP/1.1 413"), (path, reply[:200], sent)
        assert sent < 64 * MAX_BODY_BYTES  # it stopped reading long before that
    assert httpx.get(url + "/", timeout=60).json()["env_id"] == "AgentGym/Maze-v0"
