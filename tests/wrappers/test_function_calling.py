"""Tool-call parsing, argument validation and the FunctionCalling wrapper."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentgym_envs.tools import validate_arguments
from agentgym_envs.wrappers import FunctionCalling, ToolCall, parse_tool_call
from agentgym_envs.wrappers.function_calling import ParsedToolCall
from tests.wrappers.fakes import CounterEnv

EXPECTED = ToolCall("move", {"direction": "up"})


class SDKMessage:
    """Shaped like openai's ChatCompletionMessage (a pydantic model)."""

    def __init__(self, data: dict) -> None:
        self._data = data

    def model_dump(self) -> dict:
        return self._data


@pytest.mark.parametrize(
    "action",
    [
        {"name": "move", "arguments": {"direction": "up"}},
        {"name": "move", "arguments": '{"direction": "up"}'},
        {"name": "move", "parameters": {"direction": "up"}},  # Llama-style
        {"type": "function", "function": {"name": "move", "arguments": '{"direction": "up"}'}},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "move", "arguments": '{"direction": "up"}'},
                }
            ],
        },
        {
            "role": "assistant",
            "function_call": {"name": "move", "arguments": '{"direction": "up"}'},
        },
        [{"name": "move", "arguments": {"direction": "up"}}],
        SDKMessage(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "move", "arguments": '{"direction": "up"}'},
                    }
                ],
            }
        ),
        '{"name": "move", "arguments": {"direction": "up"}}',
        'I will go up.\n<tool_call>\n{"name": "move", "arguments": {"direction": "up"}}\n</tool_call>',
        'Sure:\n```json\n{"name": "move", "arguments": {"direction": "up"}}\n```',
        'Calling now {"name": "move", "arguments": {"direction": "up"}} done',
        b'{"name": "move", "arguments": {"direction": "up"}}',
    ],
)
def test_parse_tool_call_forms(action) -> None:
    parsed = parse_tool_call(action)
    assert parsed.ok, parsed.error
    assert (parsed.call.name, parsed.call.arguments) == (EXPECTED.name, EXPECTED.arguments)


@pytest.mark.parametrize(
    "action, fragment",
    [
        ("move up", "no tool call"),
        ("", "no tool call"),
        ('{"name": "move", "arguments": "{bad json"}', "not valid JSON"),
        ('{"name": "move", "arguments": [1, 2]}', "must be a JSON object"),
        ('{"arguments": {}}', "no 'name'"),
        ('{"a": 1}', "expected 'name'"),
        ("call {oops", "not valid JSON"),
        (42, "expected a tool call"),
        ({"role": "assistant", "content": "I am not sure."}, "no tool call"),
    ],
)
def test_parse_tool_call_errors(action, fragment) -> None:
    parsed = parse_tool_call(action)
    assert not parsed.ok and fragment in parsed.error


def test_several_calls_are_parsed_but_not_ok() -> None:
    parsed = parse_tool_call([{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}])
    assert parsed.error is None and len(parsed.calls) == 2 and not parsed.ok and parsed.call is None


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                ["name", "arguments", "function", "tool_calls", "role", "content", "id", "x"]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(), _json, _json.map(json.dumps)))
def test_parse_tool_call_never_raises(action) -> None:
    parsed = parse_tool_call(action)
    assert isinstance(parsed, ParsedToolCall)
    assert parsed.ok or parsed.error is not None or len(parsed.calls) != 1


_names = st.from_regex(r"[a-z_][a-z0-9_]{0,15}", fullmatch=True)
_args = st.dictionaries(
    st.text(min_size=1, max_size=8),
    st.one_of(st.integers(), st.text(max_size=10), st.booleans()),
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(name=_names, arguments=_args, form=st.sampled_from(["openai", "message", "json", "tagged"]))
def test_well_formed_calls_round_trip(name: str, arguments: dict, form: str) -> None:
    entry = ToolCall(name, arguments, "call_9").as_openai()
    action = {
        "openai": entry,
        "message": {"role": "assistant", "content": None, "tool_calls": [entry]},
        "json": json.dumps({"name": name, "arguments": arguments}),
        "tagged": f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>",
    }[form]
    parsed = parse_tool_call(action)
    assert parsed.ok and parsed.call.name == name and parsed.call.arguments == arguments


SCHEMA = {
    "type": "object",
    "properties": {
        "word": {"type": "string", "pattern": "^[a-z]{5}$"},
        "n": {"type": "integer", "minimum": 1, "maximum": 3},
        "mode": {"enum": ["fast", "slow"]},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
    },
    "required": ["word"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    "arguments, problems",
    [
        ({"word": "crane"}, []),
        ({"word": "crane", "n": 2, "mode": "fast", "tags": ["a"]}, []),
        ({"word": "crane", "n": 2.0}, []),
        ({}, ["missing argument 'word'"]),
        ({"word": "cr"}, ["argument 'word' must match ^[a-z]{5}$, got 'cr'"]),
        ({"word": 5}, ["argument 'word' must be of type string, got 5"]),
        ({"word": "crane", "n": True}, ["argument 'n' must be of type integer, got True"]),
        ({"word": "crane", "n": 9}, ["argument 'n' must be <= 3, got 9"]),
        (
            {"word": "crane", "mode": "warp"},
            ["argument 'mode' must be one of ['fast', 'slow'], got 'warp'"],
        ),
        ({"word": "crane", "tags": ["a", 1]}, ["argument 'tags'[1] must be of type string, got 1"]),
        ({"word": "crane", "tags": ["a", "b", "c"]}, ["argument 'tags' must have at most 2 items"]),
        (
            {"word": "crane", "color": "red"},
            ["unexpected argument 'color' (allowed: 'word', 'n', 'mode', 'tags')"],
        ),
    ],
)
def test_validate_arguments_names_each_problem(arguments, problems) -> None:
    assert validate_arguments(SCHEMA, arguments, coerce=False)[1] == problems


# -- the wrapper ---------------------------------------------------------------------------


def _env() -> FunctionCalling:
    env = FunctionCalling(CounterEnv())
    env.reset(options={"split": "test", "task_id": 1})
    return env


def test_reset_gives_tools_and_instructions() -> None:
    env = FunctionCalling(CounterEnv())
    obs, info = env.reset(options={"split": "test", "task_id": 1})
    assert [t["function"]["name"] for t in info["tools"]] == ["press", "note"]
    assert "press(button: string, times: integer)" in info["instructions"]
    assert obs == info["instructions"] + "\n\nCount to 3. Count: 0"


def test_valid_call_steps_env() -> None:
    env = _env()
    obs, reward, terminated, truncated, info = env.step(
        {"name": "press", "arguments": {"button": "inc"}}
    )
    assert (obs, reward, terminated, truncated) == ("Count: 1", 0.0, False, False)
    assert (
        info["action"] == "inc"
        and info["tools"]
        and info["tool_calls"][0]["function"]["name"] == "press"
    )
    assert info["tool_calls"][0]["id"]


@pytest.mark.parametrize(
    "call, fragment",
    [
        (
            {"name": "pres", "arguments": {"button": "inc"}},
            "unknown tool 'pres': did you mean 'press'?",
        ),
        ({"name": "press", "arguments": {"button": "jump"}}, "argument 'button' must be one of"),
        (
            {"name": "press", "arguments": {"button": "inc", "times": 2}},
            "argument 'times' must be <= 1",
        ),
        ({"name": "press", "arguments": {}}, "missing argument 'button'"),
        ({"name": "note", "arguments": {"text": "hi"}}, "notes are not actions"),
        ("press the button", "no tool call"),
        (
            [{"name": "press", "arguments": {"button": "inc"}}] * 2,
            "exactly one tool per turn, got 2",
        ),
    ],
)
def test_bad_call_is_feedback_without_env_step(call, fragment) -> None:
    env = _env()
    obs, reward, terminated, truncated, info = env.step(call)
    assert obs.startswith("Invalid tool call: ") and fragment in obs and fragment in info["error"]
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert env.unwrapped.turns == 0
    for key in ("task_id", "split", "success", "score", "tools"):
        assert key in info


def test_rejects_non_text_env() -> None:
    with pytest.raises(TypeError, match="TextEnv"):
        FunctionCalling(gym.make("CartPole-v1"))


def test_wordle_and_maze_tools() -> None:
    env = FunctionCalling(gym.make("AgentGym/Wordle-v0"))
    env.reset(seed=0, options={"split": "test", "task_id": 0})
    obs, _, _, _, info = env.step({"name": "guess", "arguments": {"word": "SOLAR"}})
    assert info["action"] == "s o l a r" and "error" not in info
    obs, _, _, _, info = env.step({"name": "guess", "arguments": {"word": "cran"}})
    assert "argument 'word' must match" in obs and info["guesses_left"] == 5
    env = FunctionCalling(gym.make("AgentGym/Maze-v0"))
    env.reset(options={"split": "test", "task_id": 0})
    obs, _, _, _, info = env.step('{"name": "move", "arguments": {"direction": "north"}}')
    assert "argument 'direction' must be one of" in obs and "'up'" in obs and "'north'" in obs


def test_bad_call_after_the_end_keeps_the_episode_terminated() -> None:
    env = _env()
    for _ in range(3):
        env.step({"name": "press", "arguments": {"button": "inc"}})
    _, _, terminated, _, info = env.step("no call")
    assert terminated and info["success"]


def test_tool_name_case_is_tolerated() -> None:
    env = _env()
    obs, _, _, _, info = env.step({"name": "PRESS", "arguments": {"button": "inc"}})
    assert obs == "Count: 1" and info["action"] == "inc"
