"""WebArena's action grammar and its PREVIOUS ACTION texts."""

from __future__ import annotations

import pytest

from agentgym_envs.envs.webarena import actions as act


def test_extract_takes_the_first_backtick_block():
    reply = "Let's think. ```click [12]``` and later ```stop [x]```"
    assert act.extract(reply) == "click [12]"
    assert act.extract("no block here") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("click [12]", act.Action("click", element_id="12", raw="click [12]")),
        (
            "type [5] [hello world]",
            act.Action(
                "type", element_id="5", text="hello world", enter=True, raw="type [5] [hello world]"
            ),
        ),
        ("type [5] [a] [0]", act.Action("type", element_id="5", text="a", raw="type [5] [a] [0]")),
        ("scroll down", act.Action("scroll", direction="down", raw="scroll down")),
        ("press [Ctrl+a]", act.Action("press", key="Ctrl+a", raw="press [Ctrl+a]")),
        (
            "goto [http://x.com/a]",
            act.Action("goto", url="http://x.com/a", raw="goto [http://x.com/a]"),
        ),
        ("tab_focus [1]", act.Action("tab_focus", tab=1, raw="tab_focus [1]")),
        ("stop [N/A]", act.Action("stop", answer="N/A", raw="stop [N/A]")),
        ("stop", act.Action("stop", raw="stop")),
        ("go_back", act.Action("go_back", raw="go_back")),
    ],
)
def test_parse(text, expected):
    assert act.parse(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("click [abc]", "Invalid click action click [abc]"),
        ("foo [1]", "Invalid action foo [1]"),
        ("scroll [left]", "Invalid scroll action scroll [left]"),
        ("", "Invalid action "),
    ],
)
def test_parse_errors_are_worded_as_webarena(text, message):
    with pytest.raises(act.ActionParsingError) as err:
        act.parse(text)
    assert str(err.value) == message


def test_descriptions_and_keys():
    click = act.parse("click [7]")
    assert act.describe(click, "link 'Home'") == "click [7] where [7] is link 'Home'"
    assert act.describe(click, None).startswith('Attempt to perfom "click" on element "[7]"')
    typed = act.parse("type [3] [a\nb] [0]")
    assert act.describe(typed, "textbox 'Q'") == "type [3] [a b] where [3] is textbox 'Q'"
    assert act.describe(act.parse("tab_focus [2]"), None) == "page_focus [2]"
    assert act.key_combo("Meta+a") == "Control+a" and act.key_combo("enter") == "Enter"
