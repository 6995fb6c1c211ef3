"""WebArena's tests need Chromium: skipped without it."""

from __future__ import annotations

import importlib.util
import os

import gymnasium as gym
import pytest

if importlib.util.find_spec("playwright") is None or not os.path.exists("/usr/bin/chromium"):
    pytest.skip("WebArena needs playwright and /usr/bin/chromium", allow_module_level=True)

ENV_ID = "AgentGym/WebArena-v0"


@pytest.fixture(scope="module")
def env():
    made = gym.make(ENV_ID).unwrapped
    yield made
    made.close()
