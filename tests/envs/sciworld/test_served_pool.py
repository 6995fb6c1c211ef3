"""SciWorld behind ``agentgym serve`` with a per-request deadline (#31.7): a frozen JVM that
hosts two sessions answers both clients with a 504 at the deadline -- never minutes later --
and the server keeps serving; what the pool shares is said in the env's docstring."""

from __future__ import annotations

import os
import signal
import threading
import time

import httpx

from agentgym_envs.envs.sciworld.simulator import SimulatorPool

from .conftest import _skip_without_simulator
from .test_jvm_faults import _wait_until_stopped


def test_a_frozen_shared_jvm_answers_every_client_at_its_deadline():
    _skip_without_simulator()
    from tests.server.conftest import running

    pool = SimulatorPool(per_jvm=8, call_timeout=120)  # both sessions on one JVM
    warm = [pool.acquire() for _ in range(2)]  # the JVM started and the task loaded once
    for sim in warm:
        sim.load("boil", 0)
        pool.release(sim)
    deadline = 15.0
    try:
        with (
            running(
                "SciWorld-v0",
                request_timeout=deadline,
                max_sessions_per_client=8,
                env_kwargs={"pool": pool},
            ) as url,
            httpx.Client(base_url=url, timeout=300) as http,
        ):
            ids = [http.post("/create").json()["id"] for _ in range(2)]
            for sid in ids:
                assert "observation" in http.post("/reset", json={"id": sid, "data_idx": 0}).json()
            for _ in range(24):  # enough fast steps that a fast path would have moved inline
                http.post("/step", json={"id": ids[0], "action": "look around"})
            assert len(pool.jvms) == 1
            jvm = pool.jvms[0]
            # another session's call in flight on a JVM that froze under it: it holds the JVM
            # (until the JVM's own 120 s limit); released here after 90 s at the latest
            held, done = threading.Event(), threading.Event()

            def hold() -> None:
                with jvm._lock:
                    held.set()
                    done.wait(90)

            threading.Thread(target=hold, daemon=True).start()
            held.wait()
            started = time.monotonic()
            reply = http.post("/step", json={"id": ids[1], "action": "look around"})
            waited = time.monotonic() - started
            done.set()
            assert reply.status_code == 504, reply.text
            assert waited < deadline + 30, waited  # the deadline, not the JVM's limit
            assert http.get("/").json()["sessions"] == 2  # the server itself never stalled
    finally:
        pool.close()


def test_a_jvm_frozen_between_calls_is_one_env_error_per_session():
    _skip_without_simulator()
    from tests.server.conftest import running

    pool = SimulatorPool(per_jvm=8, call_timeout=120)
    sim = pool.acquire()
    sim.load("boil", 0)
    pool.release(sim)
    try:
        with (
            running(
                "SciWorld-v0",
                request_timeout=60,
                max_sessions_per_client=8,
                env_kwargs={"pool": pool},
            ) as url,
            httpx.Client(base_url=url, timeout=300) as http,
        ):
            ids = [http.post("/create").json()["id"] for _ in range(2)]
            for sid in ids:
                http.post("/reset", json={"id": sid, "data_idx": 0})
            pid = pool.jvms[0].pid
            os.kill(pid, signal.SIGSTOP)
            _wait_until_stopped(pid)
            for sid in ids:  # every session on the frozen JVM ends, none hangs
                reply = http.post("/step", json={"id": sid, "action": "look around"}).json()
                assert reply["done"] and reply["info"]["outcome"] == "env_error"
            again = http.post("/reset", json={"id": ids[0], "data_idx": 0}).json()
            assert "error" not in again and "This room is called" in again["observation"]
    finally:
        pool.close()
