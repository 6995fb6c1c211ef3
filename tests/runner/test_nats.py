"""Events on a real nats-server: every event of a batch arrives once; a server killed mid-batch
and started again loses none (the outbox buffers them on disk and retries)."""

from __future__ import annotations

import threading
from collections import Counter

from agentgym_envs.runner import (
    BATCH_COMPLETED,
    EPISODE_COMPLETED,
    FIELD_STATUS,
    FieldRunner,
    parse_profile,
    plan_field,
    run_profile,
    schema_errors,
)
from agentgym_envs.runner.endpoints import PolicyChain
from agentgym_envs.runner.sinks import build_bus

from .conftest import Subscriber, read_stream


def _profile(tmp_path, url, **sink):
    return parse_profile(
        {
            "node": "test-node",
            "model": {"policy": "expert"},
            "envs": ["Maze", "Wordle"],
            "episodes": 3,
            "repeat": 2,
            "output": str(tmp_path / "out"),
            "flush_seconds": 60,
            "sinks": [{"type": "nats", "servers": [url], "retry_max_seconds": 1, **sink}],
        }
    )


def test_every_event_of_a_batch_arrives_once_on_its_subject(tmp_path, nats_server):
    sub = Subscriber(nats_server.url, "lab.node1.agentgym.>")
    try:
        profile = _profile(tmp_path, nats_server.url, subject_prefix="lab.node1")
        result, undelivered = run_profile(profile)
        expected = 2 + 2 * 3 * 2 + 2  # status x2, 12 episodes, 2 batches
        sub.wait_for(expected)
    finally:
        sub.close()
    assert result.exit_code == 0 and undelivered == {"nats": 0}
    ids = Counter(event["event_id"] for _, event in sub.messages)
    assert len(ids) == expected and set(ids.values()) == {1}
    for subject, event in sub.messages:
        assert subject == f"lab.node1.{event['event']}"
        assert schema_errors(event) == []
    kinds = Counter(event["event"] for _, event in sub.messages)
    assert kinds == {EPISODE_COMPLETED: 12, BATCH_COMPLETED: 2, FIELD_STATUS: 2}
    episodes = {e["episode_id"] for _, e in sub.messages if e["event"] == EPISODE_COMPLETED}
    assert len(episodes) == 12
    statuses = [e["status"] for _, e in sub.messages if e["event"] == FIELD_STATUS]
    assert statuses == ["started", "completed"]


class _GatedExpert(PolicyChain):
    """The expert, pausing at the start of chosen episodes until the test lets it go on."""

    def __init__(self, profile, gates):
        super().__init__(profile.model)
        self.gates = gates  # episode number -> (reached, release)
        self.started = 0

    def start(self):
        spec = super().start()
        make = spec.factory

        def factory(env, seed):
            number, self.started = self.started, self.started + 1
            if number in self.gates:
                reached, release = self.gates[number]
                reached.set()
                assert release.wait(120), "the test never released the episode"
            return make(env, seed)

        spec.factory = factory
        return spec


def test_server_killed_mid_batch_loses_no_event(tmp_path, nats_server):
    profile = _profile(tmp_path, nats_server.url, jetstream=True, stream="FIELD")
    out = tmp_path / "out"
    gates = {n: (threading.Event(), threading.Event()) for n in (4, 8)}
    chain = _GatedExpert(profile, gates)
    chain.start()
    bus = build_bus(profile.sinks, out)
    runner = FieldRunner(profile, plan_field(profile), out, bus, chain)
    results = []
    thread = threading.Thread(target=lambda: results.append(runner.run()))
    thread.start()
    try:
        assert gates[4][0].wait(120)
        assert bus.outboxes[0].flush(60)  # episodes 0-3 are in the stream
        nats_server.kill()
        gates[4][1].set()  # episodes 4-7 finish while the server is down
        assert gates[8][0].wait(120)
        assert len(bus.outboxes[0].pending()) >= 4  # buffered on disk, not lost
        nats_server.start()
        gates[8][1].set()
        thread.join(120)
    finally:
        for _, release in gates.values():
            release.set()
    left = bus.close(60)
    assert left == {"nats": 0}
    assert results and results[0].exit_code == 0 and results[0].ran == 12
    stored = read_stream(nats_server.url, "FIELD")
    counts = Counter(event["event_id"] for event in stored)
    assert set(counts.values()) == {1}  # JetStream dropped any redelivered copy
    assert set(counts) == {event["event_id"] for event in bus.emitted}
    assert Counter(e["event"] for e in stored)[EPISODE_COMPLETED] == 12


def test_server_killed_mid_batch_of_a_thousand_then_a_rerun_delivers_each_event_once(
    tmp_path, nats_server
):
    """kill -9 while 1,000 episodes stream events: what the server had stays, what it never
    acked stays in the outbox, and a rerun after the restart drains it: every event of both
    runs is in the stream exactly once (JetStream drops a resent copy by ``Nats-Msg-Id``)."""
    profile = parse_profile(
        {
            "node": "test-node",
            "model": {"policy": "expert"},
            "envs": ["Maze"],
            "episodes": 25,
            "repeat": 40,
            "output": str(tmp_path / "out"),
            "flush_seconds": 1,
            "sinks": [
                {
                    "type": "nats",
                    "servers": [nats_server.url],
                    "retry_max_seconds": 1,
                    "jetstream": True,
                    "stream": "FIELD",
                }
            ],
        }
    )
    out = tmp_path / "out"
    chain = PolicyChain(profile.model)
    chain.start()
    bus = build_bus(profile.sinks, out)
    results = out / "results.jsonl"

    def kill_mid_batch():
        while not results.is_file() or results.read_bytes().count(b"\n") < 300:
            threading.Event().wait(0.02)
        nats_server.kill()  # SIGKILL, with publishes in flight

    killer = threading.Thread(target=kill_mid_batch)
    killer.start()
    try:
        first = FieldRunner(profile, plan_field(profile), out, bus, chain).run()
    finally:
        killer.join(120)
        left = bus.close(profile.flush_seconds)
        chain.close()
    assert first.exit_code == 0 and first.ran == 1000
    assert left["nats"] > 0  # the server stayed down: these wait on disk
    nats_server.start()  # same port, same store
    second, undelivered = run_profile(profile)
    assert second.ran == 0 and second.skipped == 1000 and undelivered == {"nats": 0}
    stored = read_stream(nats_server.url, "FIELD")
    counts = Counter(event["event_id"] for event in stored)
    assert set(counts.values()) == {1}, "an event is in the stream twice"
    first_ids = {event["event_id"] for event in bus.emitted}
    assert len(first_ids) == 1003 and first_ids <= set(counts)  # 1,000 episodes, 1 batch, 2 status
    assert len(counts) == 1003 + 2  # and the rerun's two status events
