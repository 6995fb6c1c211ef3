"""The Sheet environment."""

from __future__ import annotations

from typing import Any

import numpy as np

from agentgym_envs.envs.sheet.tasks import SheetTask, SheetTasks
from agentgym_envs.envs.sheet.tools import SHEET_TOOLS, SheetBackend
from agentgym_envs.envs.sheet.world import OPERATORS, Sheet, parse_a1
from agentgym_envs.tools import Tool, ToolEnv

HINT = """Here are some common senses you may need:
1. You should open the sheet mentioned in the goal before operating it.
2. You should use A1 notation to display the cell address in the sheet.
3. The column and row numbers start from 1.
4. Freeze the first row before sorting by a column, so that the header row stays on top.
5. If you have finished the goal, you will call "finish" action.
Please first open the sheet! Check the sheet content by get_all_values first!"""
EXAMPLE = """Goal: "Sheet90" holds the clothing inventory [Product, Category, Price, Quantity]. Add the stock value (Price x Quantity) of the first product in E2.

Thought: I should open "Sheet90" first.

Action: open_sheet with Action Input: {"name": "Sheet90"}
Observation: You are now in Sheet90
[['Product', 'Category', 'Price', 'Quantity'], ['shirt', 'tops', '12.50', '4'], ['jeans', 'bottoms', '30.00', '2']]

Thought: The stock value of the first product is PRODUCT(C2, D2); I write it into E2.

Action: update_cell_by_formula with Action Input: {"position_list": ["C2", "D2"], "result_position": "E2", "operator": "PRODUCT"}
Observation: [['Product', 'Category', 'Price', 'Quantity', ''], ['shirt', 'tops', '12.50', '4', '50'], ['jeans', 'bottoms', '30.00', '2', '']]

Thought: The goal is done.

Action: finish with Action Input: {}
Observation: [['Product', 'Category', 'Price', 'Quantity', ''], ['shirt', 'tops', '12.50', '4', '50'], ['jeans', 'bottoms', '30.00', '2', '']]
"""


def match_score(current: list[list[str]], gold: list[list[str]]) -> float:
    """AgentBoard's sheet score: equal cells / cells of the overlapping region of the two sheets."""
    rows = min(len(current), len(gold))
    cols = min(
        min((len(r) for r in current[:rows]), default=0),
        min((len(r) for r in gold[:rows]), default=0),
    )
    if rows == 0 or cols == 0:
        return 0.0
    equal = sum(current[r][c] == gold[r][c] for r in range(rows) for c in range(cols))
    return equal / (rows * cols)


class SheetEnv(ToolEnv):
    """Operate on a spreadsheet with gspread-style tools until it equals the expected sheet.

    ## Description
    AgentGym's Sheet (from AgentBoard's tool-operation tasks). AgentGym drives a copy of a
    Google spreadsheet; here an in-memory engine (A1 notation, number formats, frozen rows,
    sort, insert/delete rows and columns, merges, notes, SUM/AVERAGE/COUNT/MAX/MIN/MINUS/PRODUCT
    formulas that follow later edits) holds the task's workbook: the task's ``SheetN`` and two
    other sheets. Tasks are operations (update from given data, sort, insert, delete by a
    condition, add totals or averages) judged by the final sheet.
    Identical to AgentGym in everything the tool envs share
    (:class:`~agentgym_envs.tools.env.ToolEnv`).
    Stand-ins: the spreadsheets (an in-memory engine with generated workbooks) and the tasks
    (generated; AgentGym's item ids do not name these tasks).

    ## Action Space
    ``Action: <tool> with Action Input: {...}``. Tools (AgentBoard's sheet
    set): ``open_sheet(name)``, ``del_sheet(name)``, ``freeze_data(dimension, num)``,
    ``get_A1_annotation(row, col)``, ``insert_cols(values_list, col_idx)``,
    ``insert_rows(values_list, row_idx)``, ``delete_batch_data(dimension, index_list)``,
    ``update_cell(position, value)``, ``update_cell_by_formula(start_position, end_position |
    position_list, result_position, operator)``, ``update_range(start_position, end_position,
    values_list)``, ``sort_sheet_by_col(col_num, order)``, ``merge_cells(start_position,
    end_position)``, ``update_note(position, content)``, ``get_note(position)``,
    ``get_all_values``, ``get_range_values``, ``get_cell_value``, ``get_value_by_formula``,
    ``filter_cells(query, in_row, in_column)``, ``finish`` (no arguments), in AgentGym's order
    (its Sheet server has no ``check_valid_actions``; an unknown name's error lists the tools).
    Replies are read as AgentGym's servers read them (``parser``, see
    :class:`~agentgym_envs.tools.env.ToolEnv`).

    ## Observation Space
    ``Observation: <result>\\nGive me one action.`` -- most edits reply with the whole sheet as
    a list of rows of cell texts; until a sheet is open every tool answers ``Please open a sheet
    before operating it``.

    ## Starting State
    The task's workbook, no sheet open.

    ## Rewards
    As AgentGym's Sheet server: the share of equal cells between the open sheet and the
    expected sheet over their overlapping region (0 before a sheet is open), as a running
    maximum; the step reward is its increase. The share is high as soon as the right sheet is
    open (most cells are unchanged by a task) -- use ``success`` for solved / not solved.
    ``info["agentgym_reward"]``: AgentGym's wire reward, as in every tool env
    (:class:`~agentgym_envs.tools.env.ToolEnv`).

    In process and through ``agentgym serve`` the rewards differ on purpose: ``env.step``
    returns the *increase* of the running share (the step rewards sum to the episode's
    score), while ``agentgym serve`` sends, as AgentGym's Sheet server does, the *running
    share itself* as each ``/step``'s ``reward`` (AgentGym scores an episode by its last
    reward). A share of 0.8 after two steps is rewards 0.5, 0.3 in process and 0.5, 0.8 on
    the wire; either way the episode's score is 0.8.

    ## Episode End
    ``finish`` terminates. AgentGym's max rounds is 15.

    ## Information
    ``progress`` (= the cell-match share, AgentBoard's progress rate for Sheet), ``goal``,
    ``tool``, ``error``; at the end ``answer`` (the expected sheet). ``success`` when, at
    ``finish``, the task's sheet equals the expected sheet exactly (same size, same texts).
    ``agentgym_reward``: AgentGym's wire reward (the running share, not its increase: what
    ``agentgym serve`` sends as ``reward``; see Rewards).

    ## Arguments
    ``train_size``: generated train tasks (default 500; test has AgentEval's 20).
    ``parser``: as in every tool env (:class:`~agentgym_envs.tools.env.ToolEnv`).

    ## Version History
    v0: initial release. Replies AgentGym cannot read get its format-error text
    (``parser="lenient"`` reads them as before), and every step carries
    ``info["agentgym_reward"]`` (the cell-match share AgentGym's server returns, so a solved
    episode ends at 1.0 there too).
    """

    family = "sheet"
    toolkit = SHEET_TOOLS
    hint = HINT
    example = EXAMPLE

    def __init__(
        self, train_size: int = 500, parser: str = "agentgym", render_mode: str | None = None
    ) -> None:
        super().__init__(SheetTasks(train_size), parser=parser, render_mode=render_mode)

    def agentgym_done(self, line: str) -> bool:
        return "finish" in line.lower()

    def invalid_action_text(self, name: str) -> str:
        return f"ERROR | Invalid action: {name}. Please choose another valid action from {list(self.toolkit)}"

    def _make_backend(self, task: SheetTask) -> SheetBackend:
        sheets = {
            name: Sheet.from_rows(name, [list(r) for r in rows], list(formats))
            for name, rows, formats in task.sheets
        }
        for name, position, text in task.notes:
            row, col = parse_a1(position)
            sheets[name].notes[(row - 1, col - 1)] = text
        return SheetBackend(sheets)

    def _score(self, finished: bool) -> float:
        task: SheetTask = self.task  # type: ignore[assignment]
        backend: SheetBackend = self.backend
        if backend.current is None or backend.current not in backend.sheets:
            now = 0.0
        else:
            now = match_score(backend.sheets[backend.current].values(), task.answer)
        return max(self.score, now)

    def _solved(self, answer: Any) -> bool:
        task: SheetTask = self.task  # type: ignore[assignment]
        sheet = self.backend.sheets.get(task.sheet_name)
        return sheet is not None and sheet.values() == task.answer

    def _act(self, action: str):
        result = super()._act(action)
        # tool errors and format errors do not go through the tracker: rescore like AgentBoard
        before = self.score
        self.score = float(self._score(False))
        result.reward += self.score - before
        result.info["progress"] = self.score
        result.info["agentgym_reward"] = self.agentgym_reward()
        return result

    def _begin(self, task: SheetTask):
        obs, info = super()._begin(task)
        info["progress"] = 0.0
        return obs, info

    def _random_arguments(self, tool: Tool, rng: np.random.Generator) -> dict[str, Any]:
        task: SheetTask = self.task  # type: ignore[assignment]
        names = [name for name, _, _ in task.sheets]
        row, col = int(rng.integers(1, 14)), int(rng.integers(1, 8))
        row2, col2 = row + int(rng.integers(0, 3)), col + int(rng.integers(0, 2))
        pos = f"{chr(64 + col)}{row}"
        end = f"{chr(64 + col2)}{row2}"
        words = ["beef", "Alice", "Completed", "12", "3.5", "Total", "Average", ""]
        value = words[int(rng.integers(len(words)))]
        values = {
            "name": names[int(rng.integers(len(names)))],
            "dimension": None,
            "num": 1,
            "row": row,
            "col": col,
            "values_list": [[value] * (col2 - col + 1) for _ in range(row2 - row + 1)],
            "col_idx": col,
            "row_idx": row,
            "index_list": [row],
            "position": pos,
            "value": value,
            "start_position": pos,
            "end_position": end,
            "position_list": [pos, end],
            "result_position": f"{chr(64 + col)}{row2 + 1}",
            "operator": OPERATORS[int(rng.integers(len(OPERATORS)))],
            "col_num": col,
            "order": "asc" if rng.random() < 0.5 else "des",
            "content": value,
            "query": value or "a",
            "in_row": row,
            "in_column": col,
        }
        out = {}
        for arg in tool.argument_names:
            if arg in ("position_list", "in_row", "in_column"):
                continue  # optional: the range form is used
            if arg == "dimension":
                out[arg] = (
                    ("rows", "columns")[int(rng.integers(2))]
                    if tool.name == "freeze_data"
                    else ("row", "col")[int(rng.integers(2))]
                )
            elif arg == "values_list" and tool.name in ("insert_rows", "insert_cols"):
                out[arg] = [[value] * 3]
            else:
                out[arg] = values[arg]
        if tool.name == "update_cell_by_formula" and out["operator"] == "MINUS":
            out["operator"] = "SUM"
        return out
