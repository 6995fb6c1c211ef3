"""Answer comparison: AgentGym's Python ``==``, and the lenient matcher (numbers, units, case,
lists, dicts, yes/no)."""

import pytest

from agentgym_envs.tools import answers_match, canonical, parse_number
from agentgym_envs.tools.answers import agentgym_equal, answer_matcher


@pytest.mark.parametrize(
    "pred, gold",
    [
        (18.5, 18.5),
        ("18.5", 18.5),
        ("18.5 degC", 18.5),
        ("18.5 C", 18.5),
        (18.46, 18.5),
        ("1,366.51 km", 1366.5125333931778),
        (1367, 1366.5125333931778),
        ("$1,000,000", 1000000),
        ("300 minutes", "300(minute)"),
        ("300(minute)", "300(minute)"),
        (0, 0.0),
        ("2", 2),
        ("Fair", "fair"),
        (" fair. ", "fair"),
        ('"Houston"', "Houston"),
        ("Tucson, Arizona, USA", "Tucson, Arizona, USA"),
        ("Yes", "yes"),
        ("yes.", "Yes"),
        (True, "Yes"),
        ("no", "No"),
        (["b", "a"], ["a", "b"]),
        ("['b', 'a']", ["a", "b"]),
        ("a, b", ["a", "b"]),
        (["x"], "x"),
        (
            {"Temperatures": [5.6, 3.7], "rainy_days": "2"},
            {"temperatures": [5.6, 3.7], "rainy_days": 2},
        ),
        (None, None),
        ("None", None),
        ("2023-03-08", "2023-03-08"),
    ],
)
def test_matches(pred, gold):
    assert answers_match(pred, gold)


@pytest.mark.parametrize(
    "pred, gold",
    [
        (18.7, 18.5),
        ("5 cm", "5 mm"),
        (2, 3),
        ("fair", "good"),
        ("no", "yes"),
        ("maybe", "yes"),
        (["a"], ["a", "b"]),
        (["a", "a"], ["a", "b"]),
        ("1366 apples", 1366.0),
        ("2023-03-09", "2023-03-08"),
        ({"a": 1}, {"a": 1, "b": 2}),
        ({"t": [2, 1]}, {"t": [1, 2]}),
        ("Houston", ["Houston", "Denver"]),
        (None, "x"),
        ("18.5", "Denver"),
        ("", 0),
    ],
)
def test_mismatches(pred, gold):
    assert not answers_match(pred, gold)


def test_parse_number_and_units():
    assert parse_number("12.5 mm") == (12.5, "mm")
    assert parse_number("-0.1") == (-0.1, None)
    assert parse_number("1e3") == (1000.0, None)
    assert parse_number("two") is None and parse_number(True) is None


def test_canonical_sorts_lists_like_agentgym_finish():
    assert canonical(["b", "a"]) == ["a", "b"]
    assert canonical([2, "a"]) == [2, "a"]
    assert canonical("x") == "x"


@pytest.mark.parametrize(
    ("pred", "gold", "equal"),
    [
        (18.5, 18.5, True),
        ("18.5", 18.5, False),  # AgentGym's == grades the type too
        ("Fair", "fair", False),
        (0, 0.0, True),
        (True, 1, True),  # Python's ==, quirks included
        (canonical(["b", "a"]), ["a", "b"], True),  # finish sorts lists first
        (["b", "a"], ["a", "b"], False),
        ({"rainy_days": 2, "temperatures": [5.6]}, {"temperatures": [5.6], "rainy_days": 2}, True),
        (None, None, True),
        ("None", None, False),
    ],
)
def test_agentgym_equal_is_pythons_equality(pred, gold, equal):
    assert agentgym_equal(pred, gold) is equal
    assert answer_matcher("agentgym")(pred, gold) is equal


def test_answer_matcher_names():
    assert answer_matcher("lenient") is answers_match
    assert answer_matcher("lenient")("18.5 degrees", 18.5) and not answer_matcher("agentgym")(
        "18.5 degrees", 18.5
    )
    with pytest.raises(ValueError, match="use 'agentgym' or 'lenient'"):
        answer_matcher("fuzzy")


def test_agentgym_equal_never_raises():
    class Odd:
        def __eq__(self, other):
            raise RuntimeError("no")

    assert agentgym_equal(Odd(), 1) is False
