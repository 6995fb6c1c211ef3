"""WebShop under hostile input: a huge bracket action is refused at once, the page unchanged;
the ``name[arg]`` parse is linear for callers that do not bound the action."""

from __future__ import annotations

import random
import re

import gymnasium as gym

import agentgym_envs  # noqa: F401
from agentgym_envs.envs.webshop.env import MAX_PARSE_WORK
from agentgym_envs.envs.webshop.shop import parse_action


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


def test_parse_action_is_linear_for_callers_that_do_not_bound_the_action():
    # WebShop's regex backtracks once per '[' over the rest of the line: 100k characters of
    # ``a[a[...`` took seconds; the parse now scans the line a constant number of times
    action = "a[" * 50_000
    assert parse_action(action) == (action, None)
    assert parse_action(action + "]") == (action[:-3], "a[")
    assert parse_action("click[" + "[" * 100_000 + "]") == ("click" + "[" * 99_999, "[")
    env = gym.make("AgentGym/WebShop-v0").unwrapped
    env.reset(seed=0, options={"task_id": 0})
    outcome = env.shop.step("search" + action)  # the Shop itself, no length bound in front
    assert (outcome.reward, outcome.done) == (0.0, False)
    assert "is not search[keywords] or click[value]" in outcome.error


def test_parse_action_matches_webshop_regex():
    pattern = re.compile(r"(.+)\[(.+)\]")  # WebShop's own, on inputs small enough for it

    def webshop(action: str) -> tuple[str, str | None]:
        m = pattern.match(action.strip())
        if m is None:
            return action.strip().lower(), None
        return m.group(1).strip().lower(), m.group(2).lower()

    rng = random.Random(0)
    cases = ["search[Red Shoes]", "click[< Prev]", "[a]", "a[]", "a[]]", "x\ny[z]", " a[b] \n"]
    cases += [
        "".join(rng.choice("ab[] \nA") for _ in range(rng.randrange(12))) for _ in range(5000)
    ]
    for action in cases:
        assert parse_action(action) == webshop(action), action
