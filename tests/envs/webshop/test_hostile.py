"""WebShop under hostile input: a huge bracket action is refused at once, the page unchanged."""

from __future__ import annotations

import gymnasium as gym

import agentgym_envs  # noqa: F401
from agentgym_envs.envs.webshop.env import MAX_PARSE_WORK


def test_huge_bracket_actions_leave_the_page_unchanged_with_the_limit_named():
    env = gym.make("AgentGym/WebShop-v0").unwrapped
    first, _ = env.reset(seed=0, options={"task_id": 0})
    ordinary_invalid = env.step("foo bar")[0]
    for action in ("a[" * 8000, "search[" + "a[" * 8000, "click[" + "[" * 16_000):
        obs, reward, terminated, _, info = env.step(action[:16_384])
        assert obs == ordinary_invalid == first
        assert str(MAX_PARSE_WORK) in info["error"] and (reward, terminated) == (0.0, False)
    # a long but ordinary action still searches
    obs, _, _, _, info = env.step("search[" + "binoculars " * 1000 + "]")
    assert "error" not in info and "Back to Search" in obs
