"""Per-request deadline on a real uvicorn server: a step or a ``/create`` that runs too long is
answered with HTTP 504 at once, its session is broken (refused, then closable), other sessions
carry on, and the env is closed once the abandoned work ends."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import gymnasium as gym
import httpx
import pytest

from agentgym_envs.envs.maze.env import MazeEnv
from agentgym_envs.server.routes import FAST_CALLS
from agentgym_envs.spec import ENV_INFO, FAMILIES, env_info, register_env
from tests.server.conftest import running

#: Long enough for an ordinary Maze request on a loaded machine, short enough to wait for.
LIMIT = 2.0
#: How long a blocked call waits for the test to release it (only reached if the test fails).
BLOCK_AT_MOST = 300.0


class SlowMaze(MazeEnv):
    """Maze whose ``wait`` action (and, while :attr:`slow_make` is set, construction) blocks
    until the test sets :attr:`release`."""

    release = threading.Event()
    slow_make = threading.Event()
    instances: list[SlowMaze] = []

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.closed = threading.Event()
        self.waited = False
        SlowMaze.instances.append(self)
        if SlowMaze.slow_make.is_set():
            SlowMaze.release.wait(BLOCK_AT_MOST)

    def _act(self, action: str):
        if action == "wait":
            self.waited = True
            SlowMaze.release.wait(BLOCK_AT_MOST)
        return super()._act(action)

    def close(self) -> None:
        self.closed.set()
        super().close()


@pytest.fixture
def url() -> Iterator[str]:
    maze = env_info("Maze-v0")
    info = register_env(
        FAMILIES[maze.family],
        "SlowMaze-v0",
        splits=maze.splits,
        description="Maze with a blocking 'wait' action (test only).",
        entry_point=SlowMaze,  # type: ignore[arg-type]
        ours=True,
    )
    SlowMaze.release.clear()
    SlowMaze.slow_make.clear()
    SlowMaze.instances.clear()
    try:
        with running(info.id, request_timeout=LIMIT, idle_timeout=None) as base:
            yield base
    finally:
        SlowMaze.release.set()  # never leave a worker blocked
        ENV_INFO.pop(info.id, None)
        gym.registry.pop(info.id, None)


def _started(http: httpx.Client) -> int:
    sid = http.post("/create").json()["id"]
    assert "observation" in http.post("/reset", json={"id": sid, "game": 0}).json()
    return sid


def test_a_step_past_the_limit_is_a_504_and_breaks_only_its_session(url):
    with httpx.Client(base_url=url, timeout=120) as http:
        slow, other = _started(http), _started(http)
        reply = http.post("/step", json={"id": slow, "action": "wait"})
        assert reply.status_code == 504
        message = reply.json()["error"]
        assert "\n" not in message and f"{LIMIT:g} s request limit" in message
        assert "--request-timeout" in message and "/close it" in message
        (hung,) = [env for env in SlowMaze.instances if env.waited]

        # the step still runs in its worker; every other session is served as usual
        reply = http.post("/step", json={"id": other, "action": "move up"})
        assert reply.status_code == 200 and "observation" in reply.json()

        # the broken session is refused at once, whatever is asked of it
        for path, body in (("/step", {"action": "move up"}), ("/reset", {"game": 1})):
            reply = http.post(path, json={"id": slow, **body})
            assert reply.status_code == 200 and f"session {slow} is broken" in reply.json()["error"]
        assert "is broken" in http.get("/observation", params={"id": slow}).json()["error"]

        # /close frees it; the env is closed when the abandoned step lets go of it
        assert "error" not in http.post("/close", json={"id": slow}).json()
        assert not hung.closed.is_set()
        SlowMaze.release.set()
        assert hung.closed.wait(BLOCK_AT_MOST)
        assert (
            "unknown session"
            in http.post("/step", json={"id": slow, "action": "x"}).json()["error"]
        )
        assert http.get("/").json()["sessions"] == 1


def test_a_create_past_the_limit_is_a_504_and_leaves_no_session(url):
    with httpx.Client(base_url=url, timeout=120) as http:
        SlowMaze.slow_make.set()
        reply = http.post("/create")
        assert reply.status_code == 504
        assert "no session was created" in reply.json()["error"]
        SlowMaze.slow_make.clear()
        assert _started(http)  # the server takes new sessions meanwhile
        SlowMaze.release.set()
        late = SlowMaze.instances[0]
        assert late.closed.wait(BLOCK_AT_MOST)  # the abandoned /create closed what it built
        assert http.get("/").json()["sessions"] == 1


def test_a_fast_path_never_waits_on_the_loop_for_a_held_session(url):
    with httpx.Client(base_url=url, timeout=120) as http, ThreadPoolExecutor(2) as pool:
        slow, other = _started(http), _started(http)
        for _ in range(FAST_CALLS * 2):  # /observation now runs on the event loop
            assert "error" not in http.get("/observation", params={"id": other}).text
        step = pool.submit(http.post, "/step", json={"id": slow, "action": "wait"})
        while not any(env.waited for env in SlowMaze.instances):
            time.sleep(0.05)
        # waiting for the held session on the loop would stall the whole server
        look = pool.submit(http.get, "/observation", params={"id": slow})
        reply = http.get("/observation", params={"id": other})
        assert reply.status_code == 200 and "error" not in reply.text
        assert step.result().status_code == 504
        assert "error" in look.result().json()
        SlowMaze.release.set()
