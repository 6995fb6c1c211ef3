"""WebArena's tests need Chromium: skipped without it."""

from __future__ import annotations

import importlib.util

import gymnasium as gym
import pytest

from agentgym_envs.browser import chromium_path

if importlib.util.find_spec("playwright") is None or chromium_path() is None:
    pytest.skip("WebArena needs playwright and Chromium", allow_module_level=True)

ENV_ID = "AgentGym/WebArena-v0"


@pytest.fixture(scope="module")
def env():
    made = gym.make(ENV_ID).unwrapped
    yield made
    made.close()
