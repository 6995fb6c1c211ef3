"""SearchQA over AgentGym's wire protocol (family C), with the request shapes AgentGym's
``SearchQAEnvClient`` sends, on a real uvicorn server."""

from __future__ import annotations

import socket
import threading
import time

import gymnasium as gym
import pytest

pytest.importorskip("fastapi")
uvicorn = pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

from agentgym_envs.server.app import create_app
from agentgym_envs.spec import expert_policy


@pytest.fixture(scope="module")
def url():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(create_app("SearchQA-v0"), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.mark.parametrize("item", [0, 123])
def test_agentgym_client_shapes_and_twin_transcript(url, item):
    twin = gym.make("AgentGym/SearchQA-v0")
    obs, info = twin.reset(options={"split": "test", "task_id": item})
    expert = expert_policy(twin)
    with httpx.Client(base_url=url) as http:
        env_idx = http.post("/create", json={"id": 0}).json()
        assert isinstance(env_idx, int)
        # SearchQAEnvClient.reset posts {"env_idx", "id"} and gets the observation string
        assert http.post("/reset", json={"env_idx": env_idx, "id": item}).json() == obs
        assert http.get("/observation", params={"env_idx": env_idx}).json() == obs
        done = False
        while not done:
            action = expert(obs, info)
            obs, reward, terminated, _, info = twin.step(action)
            reply = http.post("/step", json={"env_idx": env_idx, "action": action}).json()
            assert (reply["observation"], reply["reward"], reply["done"]) == (
                obs,
                reward,
                terminated,
            )
            done = reply["done"]
        assert reply["reward"] == 1.0
        assert http.post("/close", json={"env_idx": env_idx}).status_code == 200
