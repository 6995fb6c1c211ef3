"""Endpoint fallback mid-run, against small OpenAI-compatible HTTP servers on 127.0.0.1 that
start failing after a number of chat calls; and the event schemas shipped with the package."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from agentgym_envs.runner import (
    EPISODE_COMPLETED,
    EVENT_TYPES,
    EXIT_ENDPOINT,
    EXIT_OK,
    event_schema,
    make_event,
    parse_profile,
    run_profile,
    schema_errors,
)


class ChatServer:
    """Answers ``/v1/models`` and ``/v1/chat/completions``; after ``healthy`` chat calls every
    call gets HTTP 503 (the endpoint has gone down)."""

    def __init__(self, name: str, healthy: int) -> None:
        self.name = name
        self.healthy = healthy
        self.calls = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _send(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._send(200, {"data": [{"id": server.name}]})

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                server.calls += 1
                if server.calls > server.healthy:
                    self._send(503, {"error": "overloaded"})
                    return
                message = {"role": "assistant", "content": "Thought: go.\nAction: move right"}
                usage = {"prompt_tokens": 10, "completion_tokens": 5}
                self._send(200, {"choices": [{"message": message}], "usage": usage})

            def log_message(self, *args: object) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http.server_address[1]}/v1"

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()


@pytest.fixture
def servers():
    made: list[ChatServer] = []
    yield lambda name, healthy: made.append(ChatServer(name, healthy)) or made[-1]
    for server in made:
        server.close()


def _profile(tmp_path, *servers):
    return parse_profile(
        {
            "model": {
                "policy": "openai",
                "endpoints": [{"name": s.name, "base_url": s.url} for s in servers],
                "max_retries": 0,
            },
            "envs": ["Maze"],
            "episodes": 4,
            "max_rounds": 2,
            "output": str(tmp_path / "out"),
            "sinks": [{"type": "jsonl"}],
        }
    )


def test_an_endpoint_that_goes_down_hands_over_to_the_next(tmp_path, servers):
    first, second = servers("tensorzero", 3), servers("ollama", 1000)
    result, _ = run_profile(_profile(tmp_path, first, second))
    assert result.exit_code == EXIT_OK and result.endpoint == "ollama"
    results = [json.loads(x) for x in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert len(results) == 4 and not any(r.get("error") for r in results)
    assert [r["endpoint"] for r in results] == ["tensorzero", "ollama", "ollama", "ollama"]
    assert all(r["turns"] == 2 for r in results)  # the episode cut short was played again
    assert second.calls >= 6


def test_every_endpoint_down_stops_the_run_and_keeps_what_finished(tmp_path, servers):
    first, second = servers("tensorzero", 2), servers("ollama", 2)
    result, _ = run_profile(_profile(tmp_path, first, second))
    assert result.exit_code == EXIT_ENDPOINT and result.status == "failed"
    assert "no model endpoint answers" in result.message
    results = [json.loads(x) for x in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert len(results) == 2  # one episode per endpoint
    events = [json.loads(x) for x in (tmp_path / "out" / "events.jsonl").read_text().splitlines()]
    assert events[-1]["status"] == "failed" and events[-1]["exit_code"] == EXIT_ENDPOINT


def test_schemas_ship_with_the_package_and_reject_bad_events():
    for kind in EVENT_TYPES:
        assert event_schema(kind)["properties"]["event"] == {"const": kind}
    good = make_event(
        EPISODE_COMPLETED,
        node="n",
        run_id="r",
        episode_id="r:Maze-v0:maze_0:0",
        batch_id="r:Maze-v0",
        env="AgentGym/Maze-v0",
        reward=1.0,
        rounds=3,
        duration_s=0.2,
        outcome="success",
        model="expert",
    )
    assert schema_errors(good) == []
    assert any("outcome" in e for e in schema_errors({**good, "outcome": "won"}))
    missing = {k: v for k, v in good.items() if k != "reward"}
    assert any("reward" in e for e in schema_errors(missing))
    with pytest.raises(ValueError, match="unknown event type"):
        make_event("agentgym.other.v1", node="n", run_id="r")
