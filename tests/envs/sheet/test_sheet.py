"""Sheet: the spreadsheet engine, the gspread-style tools, cell-match grading."""

import gymnasium as gym
import pytest

import agentgym_envs  # noqa: F401
from agentgym_envs.envs.sheet.env import match_score
from agentgym_envs.envs.sheet.tools import SHEET_TOOLS
from agentgym_envs.envs.sheet.world import (
    Sheet,
    SheetError,
    a1,
    display,
    formula_text,
    parse_a1,
    parse_formula,
)
from agentgym_envs.tools import action_text


def table():
    return Sheet.from_rows(
        "S", [["Name", "Price", "Qty"], ["b", 2.5, 3], ["a", 1, 10], ["c", 4, 1]], [None, 2, None]
    )


def call(env, tool, **args):
    return env.step(action_text(tool, args))


def make(task_id=0):
    env = gym.make("AgentGym/Sheet-v0").unwrapped
    env.reset(seed=0, options={"split": "test", "task_id": task_id})
    return env


def test_a1_notation():
    assert a1(3, 2) == "B3" and a1(1, 27) == "AA1" and parse_a1("aa10") == (10, 27)
    with pytest.raises(SheetError, match="get_A1_annotation"):
        parse_a1("B")


def test_formats_and_general_display():
    s = table()
    assert s.values()[1] == ["b", "2.50", "3"]
    assert display(1 / 3) == "0.3333333333" and display(5.0) == "5" and display(None) == ""


def test_formulas_follow_edits_and_moves():
    s = table()
    s.set_formula(5, 2, parse_formula("SUM", start="B2", end="B4"))
    s.set_formula(2, 4, parse_formula("PRODUCT", refs=["B2", "C2"]))
    assert s.text(4, 1) == "7.5" and s.text(1, 3) == "7.5"  # new cells have no number format
    s.set(2, 2, "10")  # numeric text is stored as a number
    assert s.text(4, 1) == "15" and s.text(1, 3) == "30" and s.text(1, 1) == "10.00"
    s.insert_rows([["z", 1, 1]], 2)
    assert formula_text(s.grid[5][1].formula) == "=SUM(B3:B5)"  # a range grows only around its rows
    s.delete_rows([4])
    assert formula_text(s.grid[4][1].formula) == "=SUM(B3:B4)"
    s.delete_cols([3])
    assert formula_text(s.grid[2][2].formula) == "=PRODUCT(B3,#REF!)" and s.text(2, 2) == "#REF!"
    assert parse_formula("MINUS", refs=["A1", "B1"])[0] == "MINUS"
    with pytest.raises(SheetError, match="operator should be one of"):
        parse_formula("MEDIAN", start="A1", end="A2")


def test_sort_keeps_frozen_header_and_moves_row_formulas():
    s = table()
    s.set_formula(2, 4, parse_formula("PRODUCT", refs=["B2", "C2"]))
    s.sort_by(3, descending=False)  # nothing frozen: the header is sorted too (text after numbers)
    assert s.values()[-1][0] == "Name"
    s = table()
    s.set_formula(2, 4, parse_formula("PRODUCT", refs=["B2", "C2"]))
    s.frozen_rows = 1
    s.sort_by(3, descending=True)
    assert [r[0] for r in s.values()] == ["Name", "a", "b", "c"]
    assert s.values()[2][3] == "7.5"  # b's product moved with b's row


def test_merge_reads_anchor_value_everywhere():
    s = table()
    s.merge("A2", "A3")
    assert s.values()[1][0] == s.values()[2][0] == "b"


def test_match_score_is_agentboards_overlap_share():
    assert match_score([["a", "b"], ["c", "d"]], [["a", "x"], ["c", "d"], ["e", "f"]]) == 0.75
    assert match_score([], [["a"]]) == 0.0


def test_tools_need_an_open_sheet_and_refuse_whole_sheet_edits():
    env = make()
    obs, *_ = call(env, "get_all_values")
    assert "Please open a sheet before operating it" in obs
    obs, *_ = call(env, "open_sheet", name="Sheet999")
    assert "WorksheetNotFound" in obs
    obs, *_, info = call(env, "open_sheet", name=env.task.sheet_name)
    assert (
        obs.startswith(f"Observation: You are now in {env.task.sheet_name}\n[[")
        and info["score"] > 0
    )
    rows = len(env.backend.sheet().values())
    obs, *_ = call(env, "delete_batch_data", dimension="row", index_list=list(range(2, rows + 1)))
    assert "You cannot delete whole sheet at once" in obs
    obs, *_ = call(env, "update_range", start_position="A1", end_position="B2", values_list=[["x"]])
    assert "does not fit the range" in obs
    obs, *_ = call(
        env,
        "update_cell_by_formula",
        start_position="B2",
        end_position="zz",
        result_position="H1",
        operator="SUM",
    )
    assert "A1 notation" in obs
    obs, *_ = call(env, "get_A1_annotation", row=3, col=2)
    assert obs.startswith("Observation: B3")
    obs, *_ = call(env, "update_note", position="B2", content="check")
    assert "Updated! the B2's note is check" in obs
    obs, *_ = call(env, "get_note", position="B2")
    assert obs.startswith("Observation: check")
    obs, *_ = call(env, "filter_cells", query="^Name$|^Product$")
    assert "'A1'" in obs


def test_every_tool_names_a_missing_argument():
    env = make()
    call(env, "open_sheet", name=env.task.sheet_name)
    for name, tool in SHEET_TOOLS.items():
        required = tool.parameters["required"]
        if required:
            *_, info = call(env, name)
            assert f"missing argument '{required[0]}'" in info["error"]


def test_success_needs_the_exact_sheet_and_episodes_are_isolated():
    env = make(4)  # add a Total column
    call(env, "open_sheet", name=env.task.sheet_name)
    call(env, "update_cell", position="H1", value="Total")
    *_, info = call(env, "finish")
    # AgentBoard's score compares the overlapping region only: the missing totals are not seen
    assert not info["success"] and info["score"] == 1.0
    env.reset(options={"split": "test", "task_id": 4})
    obs, *_ = call(env, "open_sheet", name=env.task.sheet_name)
    assert "Total" not in obs  # the last episode's edit is gone
    for step in env.task.plan[1:]:
        *_, info = env.step(step.action())
    assert info["success"] and info["score"] == 1.0 and info["progress"] == 1.0


def test_note_tasks_carry_their_note_and_title_tasks_merge():
    env = gym.make("AgentGym/Sheet-v0").unwrapped
    kinds = {env.tasks.get("test", i).kind: i for i in range(20)}
    env.reset(options={"split": "test", "task_id": kinds["note_instruction"]})
    (_, position, text) = env.task.notes[0]
    call(env, "open_sheet", name=env.task.sheet_name)
    obs, *_ = call(env, "get_note", position=position)
    assert obs.startswith(f"Observation: {text}") and "Bonus" in text
    env.reset(options={"split": "test", "task_id": kinds["title_row"]})
    for step in env.task.plan:
        *_, info = env.step(step.action())
    assert info["success"] and len(set(env.backend.sheets[env.task.sheet_name].values()[0])) == 1


@pytest.mark.parametrize("task_id", [0, 7, 19])
def test_solved_episode_has_agentgyms_reward_one_at_the_end(task_id):
    env = make(task_id)
    wire, rewards = [], []
    for step in env.task.plan:
        _, reward, terminated, _, info = env.step(step.action())
        rewards.append(reward)
        wire.append(info["agentgym_reward"])
    assert terminated and info["success"]
    # AgentGym's server sends the running cell-match share at every step and its client keeps
    # the last one: a solved episode scores 1.0 there
    assert wire[-1] == 1.0 == info["score"]
    assert wire == sorted(wire) and wire[0] > 0  # running max; the headers match once open
    assert sum(rewards) == pytest.approx(info["score"])  # the env's rewards sum to the score
    assert rewards[-1] == 0.0 or len(rewards) == 1  # finish itself changes nothing


def test_unsolved_episode_keeps_the_share_as_agentgyms_reward():
    env = make(0)
    first = env.task.plan[0]
    _, reward, _, _, info = env.step(first.action())
    assert 0 < info["agentgym_reward"] < 1 and reward == info["agentgym_reward"]
    _, reward, terminated, _, info = env.step(action_text("finish", {}))
    assert terminated and not info["success"] and reward == 0.0
    assert info["agentgym_reward"] == info["score"] > 0
