"""The ReAct parser and wrapper."""

from __future__ import annotations

import re

import gymnasium as gym
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentgym_envs.wrappers import ReAct, format_react, parse_react
from agentgym_envs.wrappers.react import (
    INVALID_ACTION_TEXT,
    MULTIPLE_ACTIONS,
    MULTIPLE_ACTIONS_TEXT,
    NO_ACTION,
    REPLY_FORMAT,
    ParsedReply,
)
from tests.wrappers.fakes import CounterEnv


@pytest.mark.parametrize(
    "reply, action, thought",
    [
        ("Thought: go up\nAction: move up", "move up", "go up"),
        (
            "Thought:\nI think so\n\nAction:\nmove up\n",
            "move up",
            "I think so",
        ),  # AgentGym's layout
        ("Action: move up</s>", "move up", ""),
        ("Action: c r a n e<|im_end|>\nAction: garbage after EOS", "c r a n e", ""),
        ("Thought: hm\nAction: move up<|eot_id|>", "move up", "hm"),
        ("**Thought:** hm\n**Action:** `move up`", "move up", "hm"),
        ("### Action: move down", "move down", ""),
        ("action: move down", "move down", ""),
        ("ACTION: Move Up", "Move Up", ""),
        ("THOUGHT: x\nACTION: inc", "inc", "x"),
        (
            "Thought: the best action: is clear. Action: move left",
            "move left",
            "the best action: is clear.",
        ),
        ("Action: ```sql\nSELECT name FROM t;\n```", "SELECT name FROM t;", ""),
        ("Thought: sql\nAction:\n```\nSELECT 1;\n```", "SELECT 1;", "sql"),
        ("Action: ```click [3]```", "click [3]", ""),
        (
            "Thought: done\n\nAction: submit ```sql\nSELECT 1\nFROM t\n```\nbye",
            "submit ```sql\nSELECT 1\nFROM t\n```",
            "done",
        ),
        ("Action: move up\n\nI hope this works.", "move up", ""),
        (
            'Action: get_weather with Action Input: {"city": "Paris"}',
            'get_weather with Action Input: {"city": "Paris"}',
            "",
        ),
        (
            'Thought: t\nAction: get_weather with Action Input: {\n  "city": "Paris"\n}\nObservation: x',
            'get_weather with Action Input: {\n  "city": "Paris"\n}',
            "t",
        ),
        ("<think>Action: not this one</think>\nAction: inc", "inc", "Action: not this one"),
        ("Thought: a\r\nAction: inc\r\n", "inc", "a"),
        ("I reckon we should go.\nAction: inc", "inc", "I reckon we should go."),
    ],
)
def test_parse_react_examples(reply: str, action: str, thought: str) -> None:
    parsed = parse_react(reply)
    assert parsed == ParsedReply(action, thought, None, 1)
    assert parsed.ok


@pytest.mark.parametrize(
    "reply, error, n",
    [
        ("I will move up", NO_ACTION, 0),
        ("", NO_ACTION, 0),
        ("Thought: thinking\nAction:", NO_ACTION, 1),
        ("Action:   \n\n", NO_ACTION, 1),
        ("Thought: x\nAction: a\nAction: b", MULTIPLE_ACTIONS, 2),
        (
            "Thought: the previous Action: failed\nAction: x",
            MULTIPLE_ACTIONS,
            2,
        ),  # as AgentGym counts
        ("Action: a Action: b Action: c", MULTIPLE_ACTIONS, 3),
    ],
)
def test_parse_react_errors(reply: str, error: str, n: int) -> None:
    parsed = parse_react(reply)
    assert parsed.error == error and parsed.n_actions == n and not parsed.ok


def test_multiple_actions_keeps_first_and_non_text_is_no_action() -> None:
    assert parse_react("Action: a\nAction: b").action == "a"
    assert parse_react(None).error == NO_ACTION  # type: ignore[arg-type]
    assert parse_react(42).error == NO_ACTION  # type: ignore[arg-type]


def test_action_input_is_not_a_marker() -> None:
    parsed = parse_react('Action: finish with Action Input: {"answer": "x"}')
    assert parsed.n_actions == 1 and parsed.action.startswith("finish with Action Input:")


@settings(max_examples=400, deadline=None)
@given(st.text())
def test_parse_react_never_raises(text: str) -> None:
    parsed = parse_react(text)
    assert isinstance(parsed, ParsedReply)
    assert parsed.error in (None, NO_ACTION, MULTIPLE_ACTIONS)
    assert (parsed.action is not None) == (parsed.error is None) or parsed.error == MULTIPLE_ACTIONS
    assert isinstance(parsed.thought, str)


_snippets = st.sampled_from(
    [
        "Action:",
        "action:",
        "Thought:",
        "```",
        "</s>",
        "<|im_end|>",
        "<think>",
        "</think>",
        "{",
        "}",
        "\n",
        "**",
        " ",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=12), _snippets), max_size=20).map("".join))
def test_parse_react_never_raises_on_marker_soup(text: str) -> None:
    assert isinstance(parse_react(text), ParsedReply)


_MARKERISH = re.compile(
    r"action|thought|```|<\||</s>|<eos>|<think>|</think>|[*_`{}\[\]()]", re.IGNORECASE
)
_words = st.text(
    alphabet=st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=40
).filter(lambda s: s.strip() and not _MARKERISH.search(s))


@settings(max_examples=300, deadline=None)
@given(thought=st.one_of(st.just(""), _words), action=_words)
def test_well_formed_replies_round_trip(thought: str, action: str) -> None:
    parsed = parse_react(format_react(thought, action))
    assert parsed.ok
    assert parsed.action == action.strip()
    assert parsed.thought == thought.strip()


@settings(max_examples=200, deadline=None)
@given(
    thought=_words,
    action=_words,
    eos=st.sampled_from(["", "</s>", "<|im_end|>", "<|eot_id|>\n", "\n\n"]),
    upper=st.booleans(),
)
def test_round_trip_tolerates_eos_and_case(
    thought: str, action: str, eos: str, upper: bool
) -> None:
    reply = (
        f"THOUGHT: {thought}\nACTION: {action}{eos}"
        if upper
        else f"Thought: {thought}\nAction: {action}{eos}"
    )
    parsed = parse_react(reply)
    assert (parsed.action, parsed.thought) == (action.strip(), thought.strip())


# -- the wrapper ---------------------------------------------------------------------------


def _env(**kwargs) -> ReAct:
    """Our strict parser (these tests pin it); AgentGym's parsers are tested below."""
    return ReAct(CounterEnv(), **{"parser": "strict", **kwargs})


def test_reset_prompt_is_instructions_format_then_observation() -> None:
    env = _env()
    obs, info = env.reset(seed=0, options={"split": "test", "task_id": 1})
    assert info["instructions"] == "Count up to the target. Actions: inc, noop.\n\n" + REPLY_FORMAT
    assert info["env_observation"] == "Count to 3. Count: 0"
    assert obs == info["instructions"] + "\n\n" + info["env_observation"]
    assert info["task_id"] == 1 and info["split"] == "test"
    obs, _ = _env(include_instructions=False).reset(options={"split": "test", "task_id": 1})
    assert obs == "Count to 3. Count: 0"


def test_valid_reply_steps_env_with_thought_in_info() -> None:
    env = _env()
    env.reset(options={"split": "test", "task_id": 0})
    obs, reward, terminated, truncated, info = env.step("Thought: one up\nAction: inc")
    assert (obs, reward, terminated, truncated) == ("Count: 1", 0.0, False, False)
    assert info["thought"] == "one up" and info["action"] == "inc"
    obs, reward, terminated, _, info = env.step("Thought: again\nAction: INC</s>")
    assert (obs, reward, terminated, info["success"], info["score"]) == (
        "Done!",
        1.0,
        True,
        True,
        1.0,
    )


def test_multiple_actions_is_agentgym_error_without_env_step() -> None:
    env = _env()
    env.reset(options={"split": "test", "task_id": 0})
    obs, reward, terminated, truncated, info = env.step("Thought: x\nAction: inc\nAction: inc")
    assert obs == MULTIPLE_ACTIONS_TEXT
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["format_error"] == MULTIPLE_ACTIONS and "2 'Action:'" in info["error"]
    assert env.unwrapped.turns == 0 and env.unwrapped.count == 0
    for key in ("task_id", "split", "success", "score", "available_actions"):
        assert key in info


def test_no_action_is_invalid_action_plus_observation_without_env_step() -> None:
    env = _env()
    env.reset(options={"split": "test", "task_id": 1})
    env.step("Action: inc")
    obs, reward, terminated, truncated, info = env.step("I would increment now.")
    assert obs == f"{INVALID_ACTION_TEXT}\n\nCount: 1"
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["format_error"] == NO_ACTION and info["thought"] == "I would increment now."
    assert env.unwrapped.turns == 1


def test_on_invalid_step_sends_it_to_the_env() -> None:
    env = _env(on_invalid="step")
    env.reset(options={"split": "test", "task_id": 1})
    obs, _, _, _, info = env.step("inc")  # no marker: the whole reply is the action
    assert obs == "Count: 1" and env.unwrapped.turns == 1 and info["format_error"] == NO_ACTION
    obs, _, _, _, info = env.step("Action: inc\nAction: noop")  # the first action is sent
    assert obs == "Done!" or obs == "Count: 2"
    assert env.unwrapped.turns == 2 and info["action"] == "inc"


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="'sometimes'"):
        _env(on_invalid="sometimes")
    with pytest.raises(TypeError, match="TextEnv"):
        ReAct(gym.make("CartPole-v1"))


def test_wordle_family_prompt_and_step() -> None:
    env = ReAct(gym.make("AgentGym/Wordle-v0"))
    obs, info = env.reset(seed=0, options={"split": "test", "task_id": 0})
    assert obs.startswith("You are playing Wordle") and obs.endswith(info["env_observation"])
    assert "Thought:" in obs and "Action:" in obs
    obs, _, _, _, info = env.step("Thought: a common opener.\nAction: s o l a r")
    assert re.fullmatch(r"[bgy]( [bgy]){4}\n", obs) and info["guesses_left"] == 5


def test_no_second_reply_format_when_family_states_one() -> None:
    env = CounterEnv()
    env.instructions = lambda: "Reply as:\nThought: <why>\nAction: <inc or noop>"  # type: ignore[method-assign]
    _, info = ReAct(env).reset(options={"split": "test", "task_id": 0})
    assert info["instructions"] == "Reply as:\nThought: <why>\nAction: <inc or noop>"


def test_malformed_reply_after_the_end_keeps_the_episode_terminated() -> None:
    env = _env()
    env.reset(options={"split": "test", "task_id": 0})
    env.step("Action: inc")
    assert env.step("Action: inc")[2]
    _, _, terminated, truncated, info = env.step("no action")
    assert terminated and not truncated and info["success"]
