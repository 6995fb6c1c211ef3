"""``Tool`` and argument validation against its JSON schema."""

import pytest

from agentgym_envs.tools import Tool, Toolkit, param, schema, validate_arguments

SCHEMA = schema(
    latitude=param("number", "lat", minimum=-90, maximum=90),
    day=param("string", "YYYY-MM-DD", pattern=r"^\d{4}-\d{2}-\d{2}$"),
    order=param("string", "asc or des", enum=["asc", "des"]),
    ids=param("array", "ids", items={"type": "integer"}, required=False),
    flag=param(["string", "boolean"], "flag", required=False),
)


def test_valid_call_passes_and_coerces_numbers_given_as_text():
    args, problems = validate_arguments(
        SCHEMA,
        {"latitude": "40.7", "day": "2023-01-02", "order": "ASC", "ids": ["3", 4.0]},
        coerce=True,
    )
    assert problems == []
    assert args == {"latitude": 40.7, "day": "2023-01-02", "order": "asc", "ids": [3, 4]}


@pytest.mark.parametrize(
    "arguments, needle",
    [
        ({"day": "2023-01-02", "order": "asc"}, "missing argument 'latitude'"),
        ({"latitude": "north", "day": "2023-01-02", "order": "asc"}, "must be of type number"),
        ({"latitude": 100, "day": "2023-01-02", "order": "asc"}, "<= 90"),
        ({"latitude": 1, "day": "Jan 2", "order": "asc"}, "(expected format: YYYY-MM-DD)"),
        ({"latitude": 1, "day": "2023-01-02", "order": "up"}, "one of ['asc', 'des']"),
        (
            {"latitude": 1, "day": "2023-01-02", "order": "asc", "ids": [1.5]},
            "'ids'[0] must be of type integer",
        ),
        (
            {"latitude": 1, "day": "2023-01-02", "order": "asc", "colour": "red"},
            "unexpected argument 'colour'",
        ),
        ({"latitude": True, "day": "2023-01-02", "order": "asc"}, "must be of type number"),
    ],
)
def test_problems_are_named(arguments, needle):
    _, problems = validate_arguments(SCHEMA, arguments, coerce=True)
    assert any(needle in p for p in problems), problems


def test_non_dict_input():
    _, problems = validate_arguments(SCHEMA, ["x"], coerce=True)
    assert problems == ["arguments must be of type object, got ['x']"]


def test_type_lists_and_optional_arguments():
    args, problems = validate_arguments(
        SCHEMA, {"latitude": 0, "day": "2023-01-02", "order": "des", "flag": True}, coerce=True
    )
    assert problems == [] and args["flag"] is True


def test_tool_describes_itself_in_agentgym_prompt_format_and_as_openai_schema():
    tool = Tool(
        "get_x",
        "Get x.",
        lambda b, latitude, day, order, ids=None, flag=None: latitude,
        SCHEMA,
        "a number",
    )
    text = tool.describe()
    assert text.startswith(
        "Name: get_x(latitude, day, order, ids, flag)\nDescription: Get x.\nParameters:\n- latitude (Type: number): lat"
    )
    assert "- ids (Type: array, optional)" in text and text.endswith("Returns:\n- a number")
    spec = tool.openai_schema()
    assert spec["type"] == "function" and spec["function"]["name"] == "get_x"
    assert spec["function"]["parameters"]["required"] == ["latitude", "day", "order"]
    assert tool(None, {"latitude": 3, "day": "d", "order": "asc"}) == 3


def test_toolkit_rejects_duplicates_and_suggests_close_names():
    t = Tool("get_tasks", "d", lambda b: None)
    with pytest.raises(ValueError, match="duplicate"):
        Toolkit([t, t])
    assert "get_tasks" in Toolkit([t]).unknown("get_task")


def test_param_rejects_unknown_types():
    with pytest.raises(ValueError, match="unknown JSON schema type"):
        param("float", "x")


def test_strict_validation_converts_nothing():
    arguments = {"latitude": "40.7", "day": "2023-01-02", "order": "ASC", "ids": [4.0]}
    checked, problems = validate_arguments(SCHEMA, arguments, coerce=False)
    assert problems == [
        "argument 'latitude' must be of type number, got '40.7'",
        "argument 'order' must be one of ['asc', 'des'], got 'ASC'",
    ]
    assert checked == arguments


def test_a_tool_without_a_function_declares_a_call():
    move = Tool("move", "Move.", parameters=schema(direction=param("string", enum=["up"])))
    assert move.openai_schema() == {
        "type": "function",
        "function": {
            "name": "move",
            "description": "Move.",
            "parameters": {
                "type": "object",
                "properties": {"direction": {"type": "string", "enum": ["up"]}},
                "required": ["direction"],
                "additionalProperties": False,
            },
        },
    }
    with pytest.raises(TypeError, match="no function"):
        move(None, {"direction": "up"})


def test_a_free_form_argument_keeps_what_it_holds():
    finish = schema(answer=param(["object", "array"], "the answer"))
    answer = {"temperatures": [0.1, 2.0], "rainy_days": 1, "nested": {"a": ["1"]}}
    for coerce in (True, False):
        assert validate_arguments(finish, {"answer": answer}, coerce=coerce) == (
            {"answer": answer},
            [],
        )
    assert validate_arguments({"type": "object"}, {"x": 1}, coerce=True) == ({"x": 1}, [])
