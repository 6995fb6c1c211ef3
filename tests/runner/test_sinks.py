"""The webhook sink against a real local HTTP server that fails, and events kept on disk
across runs while their sink is down."""

from __future__ import annotations

import json
import socket
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from agentgym_envs.runner import EPISODE_COMPLETED, FIELD_STATUS, parse_profile, run_profile
from agentgym_envs.runner.sinks import JsonlSink, Outbox


class Receiver:
    """A webhook on 127.0.0.1 that answers 503 to its first ``fail`` requests."""

    def __init__(self, port: int = 0, fail: int = 0) -> None:
        self.events: list[dict] = []
        self.headers: list[tuple[str, str]] = []
        self.fail = fail
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if receiver.fail > 0:
                    receiver.fail -= 1
                    self.send_response(503)
                    self.end_headers()
                    return
                event = json.loads(body)
                receiver.events.append(event)
                receiver.headers.append(
                    (self.headers["X-AgentGym-Event"], self.headers["X-AgentGym-Event-Id"])
                )
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _profile(tmp_path, url, flush=30.0):
    return parse_profile(
        {
            "model": {"policy": "expert"},
            "envs": ["Maze"],
            "episodes": 3,
            "output": str(tmp_path / "out"),
            "flush_seconds": flush,
            "sinks": [{"type": "webhook", "url": url, "retry_max_seconds": 0.5}],
        }
    )


def test_webhook_that_fails_at_first_gets_every_event_once_in_order(tmp_path):
    receiver = Receiver(fail=3)
    try:
        result, left = run_profile(_profile(tmp_path, receiver.url))
    finally:
        receiver.close()
    assert result.exit_code == 0 and left == {"webhook": 0}
    kinds = [e["event"] for e in receiver.events]
    assert kinds[0] == FIELD_STATUS and kinds[-1] == FIELD_STATUS
    assert Counter(kinds)[EPISODE_COMPLETED] == 3
    assert len({e["event_id"] for e in receiver.events}) == len(receiver.events) == 6
    assert receiver.headers == [(e["event"], e["event_id"]) for e in receiver.events]
    times = [e["time"] for e in receiver.events]
    assert times == sorted(times)


def test_events_stay_on_disk_until_a_later_run_delivers_them(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/hook"
    first, left = run_profile(_profile(tmp_path, url, flush=0.5))  # nobody listens yet
    assert first.exit_code == 0 and first.ran == 3  # the run did not wait for the sink
    assert left == {"webhook": 6}
    outbox = tmp_path / "out" / "outbox" / "webhook"
    assert len(list(outbox.glob("*.json"))) == 6
    receiver = Receiver(port=port)
    try:
        second, left = run_profile(_profile(tmp_path, url))  # resumes: plays nothing
    finally:
        receiver.close()
    assert second.ran == 0 and left == {"webhook": 0}
    statuses = [e["status"] for e in receiver.events if e["event"] == FIELD_STATUS]
    assert statuses == ["started", "completed", "started", "completed"]
    assert Counter(e["event"] for e in receiver.events)[EPISODE_COMPLETED] == 3
    assert not list(outbox.glob("*.json"))


def test_outbox_put_never_blocks_and_close_keeps_the_rest(tmp_path):
    class Down:
        name = "down"

        def deliver(self, event):
            raise ConnectionError("refused")

        def close(self):
            pass

    box = Outbox(Down(), tmp_path / "box", retry_initial=0.05, retry_max=0.1)
    for i in range(5):
        box.put({"event": "x", "event_id": str(i)})
    assert box.close(timeout=0.3) == 5 and box.failures >= 1
    sink = JsonlSink(tmp_path / "events.jsonl")
    assert Outbox(sink, tmp_path / "box").close(timeout=30) == 0
    lines = (tmp_path / "events.jsonl").read_text().splitlines()
    assert [json.loads(line)["event_id"] for line in lines] == ["0", "1", "2", "3", "4"]


@pytest.mark.parametrize("prefix", ["", "lab.node1"])
def test_nats_subjects_follow_the_prefix(prefix):
    pytest.importorskip("nats")
    from agentgym_envs.runner.sinks import NatsSink

    sink = NatsSink(["nats://127.0.0.1:9"], subject_prefix=prefix)
    try:
        subject = sink.subject(EPISODE_COMPLETED)
    finally:
        sink.close()
    assert subject == (f"{prefix}.{EPISODE_COMPLETED}" if prefix else EPISODE_COMPLETED)


def test_an_event_with_a_lone_surrogate_and_control_characters_is_delivered(tmp_path):
    """A model's text decoded from JSON can hold a lone surrogate: the event still reaches
    the sink (as a JSON escape) instead of failing to be buffered."""
    sink = JsonlSink(tmp_path / "events.jsonl")
    box = Outbox(sink, tmp_path / "outbox", retry_initial=0.05, retry_max=0.2)
    text = "Action: \ud800 move\x00 up\x1b"
    box.put({"event": "agentgym.field.status.v1", "event_id": "e1", "note": text})
    assert box.close(60) == 0
    (line,) = (tmp_path / "events.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(line)["note"] == text
