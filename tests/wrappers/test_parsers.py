"""AgentGym's reply parsers, as its clients read replies, and ReAct using them per family."""

from __future__ import annotations

import re

import gymnasium as gym
import pytest
from hypothesis import given
from hypothesis import strategies as st

import agentgym_envs
from agentgym_envs import expert_policy, make_llm_env
from agentgym_envs.spec import FAMILIES
from agentgym_envs.wrappers import ReAct
from agentgym_envs.wrappers.parsers import (
    MULTIPLE_ACTIONS_TEXT,
    PARSERS,
    AgentGymReply,
    between_actions,
    last_action,
    parse_agentgym,
    raw,
    single_action,
    sql_block,
)
from agentgym_envs.wrappers.react import MULTIPLE_ACTIONS, NO_ACTION
from tests.wrappers.fakes import CounterEnv

MARKER_SOUP = st.lists(
    st.sampled_from(
        [
            "Action:",
            "Thought:",
            "```sql",
            "```",
            "</s>",
            "\n",
            " ",
            "a",
            "Z",
            "9",
            ",",
            "[",
            "é",
            "{",
        ]
    ),
    max_size=40,
).map("".join)


@pytest.mark.parametrize("style", sorted(PARSERS))
@given(text=st.one_of(st.text(max_size=200), MARKER_SOUP))
def test_every_parser_is_total(style: str, text: str) -> None:
    read = parse_agentgym(style, text)
    assert isinstance(read, AgentGymReply)
    assert (read.action is None) == (read.feedback is not None)
    assert read.action is None or isinstance(read.action, str)


@given(text=st.one_of(st.text(max_size=200), MARKER_SOUP))
def test_single_action_sends_only_letters_digits_commas_and_single_spaces(text: str) -> None:
    read = single_action(text)
    if read.feedback is not None:
        assert read.feedback == MULTIPLE_ACTIONS_TEXT and read.markers > 1
    else:
        assert re.fullmatch(r"([A-Za-z0-9,]+( [A-Za-z0-9,]+)*)?", read.action)


@given(text=st.one_of(st.text(max_size=200), MARKER_SOUP))
def test_last_and_between_agree_on_a_single_marker(text: str) -> None:
    if text.count("Action:") == 1 and not text.endswith("</s>"):
        assert last_action(text).action == between_actions(text).action


def test_non_text_replies_read_as_empty() -> None:
    for style in PARSERS:
        assert parse_agentgym(style, None).action == ""  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown reply parser"):
        parse_agentgym("regex", "Action: x")


@pytest.mark.parametrize(
    "reply, action",
    [
        ("Thought:\nGo.\n\nAction:\ngo to red ball 1", "go to red ball 1"),
        ("Action: pick up the key!", "pick up the key"),
        (
            "Action:   craft 4 minecraft:oak_planks   using  1 oak log\nmore",
            "craft 4 minecraftoakplanks using 1 oak log",
        ),
        ("no marker at all", ""),
        ("Action:", ""),
    ],
)
def test_single_action_examples(reply: str, action: str) -> None:
    assert single_action(reply).action == action


def test_single_action_two_markers_is_the_client_error() -> None:
    read = single_action("Action: turn left\nAction: turn right")
    assert read.action is None and read.feedback == MULTIPLE_ACTIONS_TEXT and read.markers == 2


@pytest.mark.parametrize(
    "reply, action, thought",
    [
        ("Thought:\nI look.\n\nAction:\nlook", "look", "I look."),
        ("Action: a\nThought: b\nAction: c", "c", "b"),
        ("I will search[red shoes] now", "I will search[red shoes] now", ""),
        ("just thinking", "", "just thinking"),
        ("Thought: t\nAction: go to desk 1</s>", "go to desk", "t"),  # AgentGym slices five
    ],
)
def test_last_action_examples(reply: str, action: str, thought: str) -> None:
    read = last_action(reply)
    assert (read.action, read.thought) == (action, thought)


@pytest.mark.parametrize(
    "reply, action",
    [
        ("Thought:\nDown.\n\nAction:\nmove down", "move down"),
        ("Action: move up\nAction: move left", "move up"),
        ("move right", "move right"),
        ("Action: s o l a r\n</s>", "s o l a r"),
    ],
)
def test_between_actions_examples(reply: str, action: str) -> None:
    assert between_actions(reply).action == action


@pytest.mark.parametrize(
    "reply, action",
    [
        ("```sql\nSELECT 1\n```\nno: ```sql\nSELECT 2\n```", "SELECT 2"),
        ("Action: ```sql SELECT a FROM t``` done", "SELECT a FROM t"),
        ("SELECT 3 ```python\nx```", "SELECT 3"),
        ("SELECT 4", "SELECT 4"),
    ],
)
def test_sql_block_examples(reply: str, action: str) -> None:
    assert sql_block(reply).action == action


def test_raw_is_the_reply() -> None:
    reply = 'Thought: t\nAction: get_weather with Action Input: {"city": "Oslo"}'
    assert raw(reply).action == reply


def test_family_records_name_known_parsers() -> None:
    assert {f.reply_parser for f in FAMILIES.values()} <= set(PARSERS)


# -- ReAct reads replies with the family's parser ---------------------------------------------
def _react(env_id: str, **kwargs) -> gym.Env:
    info = agentgym_envs.spec.env_info(env_id)
    if not info.installed:
        pytest.skip(f"{env_id} needs its extra")
    return ReAct(gym.make(env_id), **kwargs)


def test_maze_between_actions_sends_whole_reply_without_marker() -> None:
    env = _react("AgentGym/Maze-v0")
    env.reset(options={"split": "test", "task_id": 0})
    _, _, _, _, info = env.step("Thought: down\nAction: move down\nAction: ignored")
    assert info["action"] == "move down" and info["thought"] == "down"
    assert env.unwrapped.turns == 1
    _, _, _, _, info = env.step("move right")
    assert info["action"] == "move right" and "format_error" not in info
    assert env.unwrapped.turns == 2


def test_babyai_two_actions_is_the_client_error_without_env_step() -> None:
    env = _react("AgentGym/BabyAI-v0")
    env.reset(options={"split": "test", "task_id": 0})
    obs, reward, terminated, truncated, info = env.step("Action: turn left\nAction: turn right")
    assert obs == MULTIPLE_ACTIONS_TEXT and (reward, terminated, truncated) == (0.0, False, False)
    assert info["format_error"] == MULTIPLE_ACTIONS and env.unwrapped.turns == 0
    _, _, _, _, info = env.step("Thought: hm\nAction: turn-left!")
    assert info["action"] == "turnleft" and env.unwrapped.turns == 1


def test_counter_without_record_uses_agentgym_react_parser() -> None:
    env = ReAct(CounterEnv())
    env.reset(options={"split": "test", "task_id": 0})
    obs, _, _, _, info = env.step("I would increment now.")
    assert info["action"] == "" and info["format_error"] == NO_ACTION
    assert obs.startswith("Unknown action") and env.unwrapped.turns == 1
    assert env.reply_parser == "agentgym:last_action"
    assert ReAct(CounterEnv(), parser="strict").reply_parser == "strict"
    with pytest.raises(ValueError, match="'loose'"):
        ReAct(CounterEnv(), parser="loose")


@pytest.mark.parametrize("env_id", ["AgentGym/BIRD-v0", "AgentGym/BIRDInteractive-v0"])
def test_sql_replies(env_id: str) -> None:
    env = _react(env_id)
    _, info = env.reset(options={"split": "test", "task_id": 0})
    expert = expert_policy(env)
    reply = expert(info["env_observation"], info)
    for _ in range(6):
        obs, _, terminated, truncated, info = env.step(reply)
        if terminated or truncated:
            break
        reply = expert(obs, info)
    assert info["success"], obs
    expected = "agentgym:raw" if "Interactive" in env_id else "agentgym:sql_block"
    assert env.reply_parser == expected


@pytest.mark.parametrize(
    "env_id",
    ["AgentGym/Maze-v0", "AgentGym/Wordle-v0", "AgentGym/BabyAI-v0", "AgentGym/TextCraft-v0"],
)
def test_expert_in_agentgym_reply_format_solves_through_make_llm_env(env_id: str) -> None:
    if not agentgym_envs.spec.env_info(env_id).installed:
        pytest.skip(f"{env_id} needs its extra")
    env = make_llm_env(env_id, history=False)
    obs, info = env.reset(options={"split": "test", "task_id": 1})
    expert = expert_policy(env)
    obs = info["env_observation"]
    for _ in range(60):
        action = expert(obs, info)
        obs, _, terminated, truncated, info = env.step(f"Thought:\nI know.\n\nAction:\n{action}")
        if terminated or truncated:
            break
    assert info["success"], obs
