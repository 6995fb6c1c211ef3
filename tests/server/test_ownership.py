"""Sessions belong to their creator on ``agentgym serve`` (#31.1): a real uvicorn server, two
clients. With ``--session-auth`` another client's step, reset, close and observation are refused
(HTTP 403); nobody lists another's sessions; one address cannot take every slot."""

from __future__ import annotations

import subprocess
import sys

import httpx

from agentgym_envs.server.sessions import TOKEN_HEADER
from tests.server.conftest import free_port, running


def test_with_session_auth_only_the_creator_works_on_a_session():
    with (
        running("Maze-v0", max_sessions=8, idle_timeout=None, session_auth=True) as url,
        httpx.Client(base_url=url, timeout=60) as owner,
        httpx.Client(base_url=url, timeout=60) as thief,
    ):
        created = owner.post("/create")
        sid, token = created.json()["id"], created.headers[TOKEN_HEADER]
        assert created.json()["session_token"] == token
        mine = {TOKEN_HEADER: token}
        assert owner.post("/reset", json={"id": sid, "game": 0}, headers=mine).status_code == 200
        # the other client knows the id (guessed, logged, listed) but not the token
        for attempt in (
            thief.post("/step", json={"id": sid, "action": "move up"}),
            thief.post("/reset", json={"id": sid, "game": 1}),
            thief.post("/close", json={"id": sid}),
            thief.get("/observation", params={"id": sid}),
            thief.post("/step", json={"id": sid, "action": "move up", "session_token": "x" * 32}),
        ):
            assert attempt.status_code == 403, attempt.text
            assert TOKEN_HEADER in attempt.json()["error"]
        assert thief.get("/list_envs").json() == []
        assert owner.get("/list_envs", headers=mine).json() == [sid]
        # the owner's session is untouched: still on game 0, open, and its own to step
        step = owner.post("/step", json={"id": sid, "action": "move up"}, headers=mine)
        assert step.status_code == 200 and "observation" in step.json()
        body_token = owner.post(
            "/step", json={"id": sid, "action": "move up", "session_token": token}
        )
        assert body_token.status_code == 200
        assert owner.post("/close", json={"id": sid}, headers=mine).json() == {"closed": sid}


def test_without_session_auth_agentgym_clients_work_and_listing_is_per_address():
    with (
        running("Wordle-v0", max_sessions=8, idle_timeout=None) as url,
        httpx.Client(base_url=url, timeout=60) as http,
    ):
        created = http.post("/create")
        sid = created.json()["id"]
        assert "session_token" not in created.json() and created.headers[TOKEN_HEADER]
        assert http.post("/reset", json={"id": sid, "seed": 0}).status_code == 200
        assert http.get("/list_envs").json() == [sid]


def test_one_address_cannot_take_every_slot():
    with (
        running("Maze-v0", max_sessions=4, idle_timeout=None) as url,
        httpx.Client(base_url=url, timeout=60) as http,
    ):
        ids = [http.post("/create").json()["id"] for _ in range(2)]
        assert all(isinstance(i, int) for i in ids)
        third = http.post("/create").json()
        assert "per-client session limit" in third["error"]
        assert "--max-sessions-per-client" in third["error"]
        http.post("/close", json={"id": ids[0]})
        assert isinstance(http.post("/create").json()["id"], int)


def test_serve_cli_has_session_auth_and_per_client_cap():
    port = free_port()
    cmd = [sys.executable, "-c", "from agentgym_envs.cli import main; main()"]
    proc = subprocess.Popen(
        [
            *cmd,
            "serve",
            "Maze-v0",
            "--port",
            str(port),
            "--session-auth",
            "--max-sessions-per-client",
            "1",
            "--log-level",
            "warning",
        ],
    )
    try:
        url = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=url, timeout=60) as http:
            for _ in range(600):
                try:
                    http.get("/")
                    break
                except httpx.TransportError:
                    import time

                    time.sleep(0.1)
            created = http.post("/create")
            sid = created.json()["id"]
            assert http.post("/reset", json={"id": sid, "game": 0}).status_code == 403
            assert "per-client" in http.post("/create").json()["error"]
    finally:
        proc.terminate()
        proc.wait(timeout=60)
