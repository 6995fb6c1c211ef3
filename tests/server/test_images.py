"""Frames sent as AgentGym's ``/render`` pictures: base64 PNGs any decoder reads back."""

from __future__ import annotations

import base64
import io

import gymnasium as gym
import httpx
import numpy as np
import pytest

from agentgym_envs.server.images import is_frame, png_base64
from agentgym_envs.spec import FAMILIES
from tests.server.conftest import running


def test_minigrid_frame_round_trips_through_png():
    image = pytest.importorskip("PIL.Image")
    pytest.importorskip("minigrid")
    level = gym.make("BabyAI-GoToRedBallGrey-v0", render_mode="rgb_array")
    level.reset(seed=3)
    frame = level.render()
    assert is_frame(frame)
    decoded = np.asarray(image.open(io.BytesIO(base64.b64decode(png_base64(frame)))))
    assert decoded.shape == frame.shape and (decoded == frame).all()


def test_only_rgb_uint8_arrays_are_frames():
    assert not is_frame(np.zeros((4, 4), dtype=np.uint8))
    assert not is_frame(np.zeros((4, 4, 3), dtype=np.float32))
    assert not is_frame([[0, 0, 0]]) and not is_frame("text")


def test_babyai_render_endpoint_sends_a_png():
    assert "render" in FAMILIES["babyai"].wire.get_endpoints
    with running("BabyAI-v0") as url, httpx.Client(base_url=url) as http:
        sid = http.post("/create").json()["id"]
        http.post("/reset", json={"id": sid, "data_idx": 0})
        picture = http.post("/render", json={"id": sid}).json()  # AgentGym's request shape
    prefix = "data:image/png;base64,"  # as AgentGym's BabyAI server sends it
    assert picture.startswith(prefix)
    assert base64.b64decode(picture[len(prefix) :]).startswith(b"\x89PNG\r\n\x1a\n")
