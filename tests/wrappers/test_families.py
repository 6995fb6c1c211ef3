"""Every registered family works with the LLM wrappers.

For each installed id: the instructions are text, the tool schemas are well-formed OpenAI tools
using only schema keywords the FunctionCalling validator checks, and a few expert actions sent
through ReAct give exactly the bare env's observations and rewards, with AgentGym's reply
parser for the family (default) and with our strict one: the parser never alters a family's
action. A reply is written as a model following the family's prompt would: ``Thought:`` and
``Action:`` around the action, or, for the families whose AgentGym client sends the whole reply
(``raw``: the tool families, SearchQA) and experts that write whole replies (BIRD's), the
expert's text as it is.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

from agentgym_envs import ENV_INFO, expert_policy
from agentgym_envs.tools import SCHEMA_KEYWORDS
from agentgym_envs.wrappers import ReAct, format_react, parse_react

IDS = sorted(ENV_INFO)
STEPS = 4


def _installed(env_id: str) -> None:
    if not ENV_INFO[env_id].installed:
        pytest.skip(f"extra {ENV_INFO[env_id].extra!r} is not installed")


def _walk(schema: Any, where: str) -> list[str]:
    if not isinstance(schema, dict):
        return [f"{where} is not an object"]
    problems = [f"{where} uses {k!r}" for k in schema if k not in SCHEMA_KEYWORDS]
    for name, sub in (schema.get("properties") or {}).items():
        problems += _walk(sub, f"{where}.{name}")
    if isinstance(schema.get("items"), dict):
        problems += _walk(schema["items"], f"{where}[]")
    for key in ("anyOf", "oneOf", "allOf"):
        for i, sub in enumerate(schema.get(key) or []):
            problems += _walk(sub, f"{where}.{key}[{i}]")
    return problems


def _reply(env_id: str, action: str, parser: str) -> str:
    whole = ENV_INFO[env_id].record.reply_parser == "raw" or parse_react(action).ok
    if parser == "strict" and not parse_react(action).ok:
        whole = False
    if whole:
        return action
    reply = format_react("thinking", action)
    if parser == "strict":
        assert parse_react(reply).action == action.strip()
    return reply


@pytest.mark.parametrize("parser", ["agentgym", "strict"])
@pytest.mark.parametrize("env_id", IDS)
def test_family_prompt_tools_and_react_actions(env_id: str, parser: str) -> None:
    _installed(env_id)
    bare = gym.make(env_id)
    react = ReAct(gym.make(env_id), parser=parser)
    obs, info = bare.reset(seed=0, options={"split": "test", "task_id": 0})
    _, rinfo = react.reset(seed=0, options={"split": "test", "task_id": 0})
    assert rinfo["env_observation"] == obs
    assert isinstance(rinfo["instructions"], str) and len(rinfo["instructions"]) > 40

    tools = bare.unwrapped.tool_schemas()
    assert tools, "a family declares at least one tool"
    for tool in tools:
        assert tool["type"] == "function"
        fn = tool["function"]
        assert (
            isinstance(fn["name"], str)
            and fn["name"]
            and isinstance(fn.get("description", ""), str)
        )
        assert fn["parameters"]["type"] == "object"
        assert _walk(fn["parameters"], fn["name"]) == []

    expert = expert_policy(bare)
    for _ in range(STEPS):
        action = expert(obs, info)
        raw = ENV_INFO[env_id].record.reply_parser == "raw"
        if parser == "strict" and raw and not parse_react(action).ok:
            # SearchQA's tagged replies have no "Action:": only the whole text reaches the env
            pytest.skip("this family's replies need AgentGym's parser (the whole reply)")
        reply = _reply(env_id, action, parser)
        ref = bare.step(action)
        got = react.step(reply)
        assert got[:4] == ref[:4]
        obs, info = ref[0], ref[4]
        if ref[2] or ref[3]:
            break
    bare.close()
    react.close()
