"""The agent server attacked (#42.3): ``agentgym agent-server`` as a real process on 127.0.0.1
with model endpoints that trickle, never end or never send their headers (real HTTP servers,
:mod:`hostile_models`), rows naming URLs it was not started with, bodies no client library
sends (raw sockets), deeply nested JSON, and one client on another's session."""

from __future__ import annotations

import json
import threading
import time

import httpx
import pytest
from conftest import AgentServerProcess, free_port
from hostile_models import HostileModel

from agentgym_envs.agents import AgentServer, ExpertChatServer
from agentgym_envs.agents.episodes import ModelLimits
from tests.raw_http import endless_chunks, send_raw

ENVS = ["AgentGym/Maze-v0", "AgentGym/BIRD-v0"]
DEEP = b"[" * 100_000 + b"]" * 100_000


@pytest.fixture(scope="module")
def expert():
    with ExpertChatServer(ENVS) as server:
        yield server


@pytest.fixture(scope="module")
def hostile():
    models = {kind: HostileModel(kind) for kind in ("trickle", "endless", "slow-headers")}
    yield models
    for model in models.values():
        model.close()


@pytest.fixture(scope="module")
def server(expert, hostile):
    args = ["multistep", "--model-url", expert.base_url, "-j", "4"]
    for kind, model in hostile.items():
        args += ["--allow-model-url", f"{kind}={model.base_url}"]
    args += ["--model-timeout", "120", "--episode-timeout", "300", "--max-reply-mb", "4"]
    args += ["--max-body-mb", "1"]
    proc = AgentServerProcess(*args)
    yield proc
    proc.stop()


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        line = next(x for x in f if x.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


def _run_in_background(url: str, rows: list[dict], answers: list) -> list[threading.Thread]:
    def one(row: dict) -> None:
        try:
            reply = httpx.post(url + "/run", json=row, timeout=900)
            answers.append((row["model"], reply.status_code, reply.json()))
        except httpx.HTTPError as exc:  # the server was stopped under it
            answers.append((row["model"], None, str(exc)))

    threads = [threading.Thread(target=one, args=(row,), daemon=True) for row in rows]
    for t in threads:
        t.start()
    return threads


def test_a_normal_row_is_answered_while_32_hostile_rows_are_in_flight(server, hostile):
    """The issue's done-when: trickling, endless and header-less endpoints on the allow-list
    hold only their own slots; the normal row is played meanwhile."""
    rows = [
        {"env_id": "Maze-v0", "task_id": i % 5, "model": kind}
        for i, kind in enumerate(["trickle"] * 12 + ["endless"] * 12 + ["slow-headers"] * 8)
    ]
    answers: list = []
    threads = _run_in_background(server.url, rows, answers)
    # every hostile endpoint is being called (each lane holds 4 rows at a time)
    assert hostile["trickle"].wait_open(4) and hostile["slow-headers"].wait_open(4)
    normal = httpx.post(
        server.url + "/run", json={"env_id": "Maze-v0", "task_id": 3}, timeout=600
    ).json()
    trickled = [a for a in answers if a[0] == "trickle"]
    assert normal["outcome"] == "success" and normal["reward"] == 1.0
    assert len(trickled) < 12, "the normal row waited for the trickling rows"
    health = httpx.get(server.url + "/health", timeout=60).json()
    assert health["running"] >= 1  # hostile rows still in flight
    # the endless bodies were cut at the reply cap: env_error, the server's memory bounded
    for t, row in zip(threads, rows, strict=True):
        if row["model"] == "endless":
            t.join(300)
    endless = [a for a in answers if a[0] == "endless"]
    assert len(endless) == 12
    assert all(a[1] == 200 and a[2]["outcome"] == "env_error" for a in endless), endless[:2]
    assert all("byte limit" in a[2]["error"] for a in endless), endless[0]
    assert _rss_mb(server.proc.pid) < 1000


def test_an_endless_model_body_does_not_grow_memory_past_the_cap(server, hostile):
    pid = server.proc.pid
    httpx.post(server.url + "/run", json={"env_id": "Maze-v0", "task_id": 1}, timeout=600)
    before = _rss_mb(pid)
    rows = [{"env_id": "Maze-v0", "task_id": i, "model": "endless"} for i in range(8)]
    answers: list = []
    for t in _run_in_background(server.url, rows, answers):
        t.join(600)
    assert [a[2]["outcome"] for a in answers] == ["env_error"] * 8
    # four at a time, 4 MB each: far from the 400+ MB one endless body used to take
    assert _rss_mb(pid) - before < 200


@pytest.mark.parametrize(
    ("model", "says"),
    [
        ("file:///etc/passwd", "not an http(s) URL"),
        ({"base_url": "gopher://127.0.0.1:70/v1"}, "not an http(s) URL"),
        ("http://127.0.0.1:9/v1", "--allow-model-url http://127.0.0.1:9/v1"),
        ({"base_url": "http://169.254.169.254/v1"}, "not on this agent server's allow-list"),
        ("no-such-name", "not on this agent server's allow-list"),
        (12, "must be a name or URL"),
    ],
)
def test_model_urls_come_only_from_the_servers_configuration(server, model, says):
    for field, agent in (("model", "multistep"), ("user_model", "multiturn-user")):
        row = {"env_id": "Maze-v0", "task_id": 1, "agent": agent, field: model}
        reply = httpx.post(server.url + "/run", json=row, timeout=60)
        assert reply.status_code == 400 and says in reply.json()["detail"], reply.text


def test_a_row_chooses_an_allowed_model_by_name_or_url(server, expert):
    for model in ("default", expert.base_url, {"base_url": expert.base_url + "/"}):
        row = {"env_id": "Maze-v0", "task_id": 2, "model": model}
        assert httpx.post(server.url + "/run", json=row, timeout=600).json()["reward"] == 1.0
    listed = httpx.get(server.url + "/health").json()["models"]
    assert any(m.startswith("trickle (") for m in listed)


def test_a_time_limit_episode_stops_its_work():
    """An episode cut at its deadline while its model trickles ends its thread: the process's
    thread count comes back to where it was."""
    with HostileModel("trickle") as trickle:
        options = {"episode_timeout": 3.0, "limits": ModelLimits(total=600, read=600)}
        with AgentServer(model={"base_url": trickle.base_url}, **options) as server:
            with httpx.Client(base_url=server.url, timeout=600) as http:
                http.get("/health")
                baseline = threading.active_count()
                answers = []
                for t in _run_in_background(
                    server.url,
                    [{"env_id": "Maze-v0", "task_id": i, "model": "default"} for i in range(4)],
                    answers,
                ):
                    t.join(600)
            assert [a[2]["outcome"] for a in answers] == ["time_limit"] * 4
            assert all(a[2]["reward_valid"] is False for a in answers)
            deadline = time.monotonic() + 120
            while threading.active_count() > baseline and time.monotonic() < deadline:
                time.sleep(0.1)
            leaked = [t.name for t in threading.enumerate() if t.name.startswith("agent-")]
            assert threading.active_count() <= baseline, leaked
            assert trickle.wait_idle()  # the server hung up on it


@pytest.mark.parametrize("path", ["/run", "/seed_session", "/aggregate_metrics", "/step", "/x"])
def test_big_bodies_are_413_before_they_are_read(server, path):
    size = 64 << 20
    head = (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {size}\r\n\r\n"
    ).encode()
    reply, sent = send_raw(server.port, head, iter([b"x" * 65536] * (size // 65536)))
    assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
    assert sent < size // 2
    head = (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    ).encode()
    reply, sent = send_raw(server.port, head, endless_chunks())
    assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
    assert httpx.get(server.url + "/health").json()["status"] == "ok"


@pytest.mark.parametrize(
    "path", ["/run", "/seed_session", "/aggregate_metrics", "/step", "/verify", "/submit_sql"]
)
def test_deeply_nested_json_is_a_400(server, path):
    with httpx.Client(base_url=server.url, timeout=60) as http:
        if path in ("/step", "/verify", "/submit_sql"):
            http.post("/seed_session", json={"env_id": "BIRD-v0", "task_id": 1})
        for body in (DEEP, b'{"env_id": "Maze-v0", "x": ' + DEEP + b"}"):
            reply = http.post(path, content=body, headers={"Content-Type": "application/json"})
            assert reply.status_code == 400 and "nested deeper" in reply.json()["detail"]
        shallow = b'{"x": ' + b"[" * 20 + b"]" * 20 + b"}"
        reply = http.post(path, content=shallow, headers={"Content-Type": "application/json"})
        assert reply.status_code != 500 and "nested" not in reply.text


def test_one_client_cannot_step_or_verify_anothers_session(server):
    with httpx.Client(base_url=server.url, timeout=60) as a:
        seeded = a.post("/seed_session", json={"env_id": "BIRD-v0", "task_id": 2}).json()
        sid, token = seeded["session_id"], seeded["session_token"]
        tool = seeded["tools"][0]["function"]["name"]
        with httpx.Client(base_url=server.url, timeout=60) as b:  # knows the id, not the token
            for path, body in (("/step", {"action": "x"}), (f"/{tool}", {}), ("/verify", {})):
                for headers in (
                    {"X-Session-Id": sid},
                    {"X-Session-Id": sid, "X-Session-Token": "no"},
                ):
                    reply = b.post(path, json=body, headers=headers)
                    assert reply.status_code == 403 and "X-Session-Token" in reply.json()["detail"]
            assert b.post("/close_session", headers={"X-Session-Id": sid}).status_code == 403
        # A's session is untouched: its cookies, or the id and token as headers, still work
        assert a.post("/step", json={"action": "x"}).status_code == 200
        with httpx.Client(base_url=server.url, timeout=60) as again:
            headers = {"X-Session-Id": sid, "X-Session-Token": token}
            verified = again.post("/verify", json={}, headers=headers).json()
            assert "reward" in verified


def test_the_agent_server_cli_refuses_a_file_model_url():
    from typer.testing import CliRunner

    from agentgym_envs.cli import app

    port = str(free_port())
    argv = ["agent-server", "--allow-model-url", "file:///etc/passwd", "--port", port]
    result = CliRunner().invoke(app, argv)
    assert result.exit_code != 0 and "not an http(s) URL" in str(result.exception or result.output)


def test_aggregate_metrics_skips_rows_that_are_not_answers(server):
    rows = [{"reward": 1.0, "success": True, "outcome": "success"}, 3, "x", [1], None]
    reply = httpx.post(server.url + "/aggregate_metrics", content=json.dumps(rows))
    assert reply.status_code == 200 and reply.json()["episodes"] == 1
