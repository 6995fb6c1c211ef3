"""Sheet's tools, with AgentBoard's names, arguments and reply texts (gspread style).

Every tool but ``open_sheet`` works on the open sheet; most edits reply with the whole sheet
(``get_all_values``), as AgentBoard's do. Positions are A1 addresses, rows and columns start
at 1.
"""

from __future__ import annotations

from typing import Any

from agentgym_envs.bounds import LimitExceeded, compile_user_regex, regex_search
from agentgym_envs.envs.sheet.world import (
    OPERATORS,
    SheetError,
    Workbook,
    a1,
    parse_a1,
    parse_formula,
)
from agentgym_envs.tools import Tool, ToolError, Toolkit, param, schema

A1_HINT = "In the sheet formula, you should use A1 notation to display the cell address, you can use get_A1_annotation(row, col) to get its A1 address."


class SheetBackend(Workbook):
    """The episode's workbook (a fresh copy of the task's sheets)."""

    def final_state(self) -> list[list[str]]:
        return self.sheet().values()


def _sheet(b: SheetBackend):
    try:
        return b.sheet()
    except SheetError as exc:
        raise ToolError(str(exc)) from None


def _run(fn, *args):
    try:
        return fn(*args)
    except SheetError as exc:
        raise ToolError(str(exc)) from None


def _grid(values_list: Any, what: str) -> list[list[Any]]:
    if (
        not isinstance(values_list, list)
        or not values_list
        or not all(isinstance(v, list) for v in values_list)
    ):
        raise ToolError(
            f"The values_list needs to be a 2D list, please check your parameter ({what})"
        )
    return values_list


def open_sheet(b: SheetBackend, name: str) -> str:
    if name not in b.sheets:
        raise ToolError(f"WorksheetNotFound('{name}'): the sheets are {sorted(b.sheets)}")
    b.current = name
    return f"You are now in {name}\n{b.sheets[name].values()}"


def del_sheet(b: SheetBackend, name: str) -> str:
    _sheet(b)
    if name not in b.sheets:
        raise ToolError(f"WorksheetNotFound('{name}')")
    del b.sheets[name]
    if b.current == name:
        b.current = None
    return f"You have deleted sheet {name} successfully"


def freeze_data(b: SheetBackend, dimension: str, num: int) -> str:
    s = _sheet(b)
    if dimension == "rows":
        s.frozen_rows = num
    else:
        s.frozen_cols = num
    return f"You have successfully freeze the {dimension} {num}"


def get_A1_annotation(b: SheetBackend, row: int, col: int) -> str:
    _sheet(b)
    return _run(a1, row, col)


def insert_cols(b: SheetBackend, values_list: list, col_idx: int) -> list[list[str]]:
    s = _sheet(b)
    s.insert_cols(
        _grid(values_list, "a list of columns, each a list of cells from top to bottom"), col_idx
    )
    return s.values()


def insert_rows(b: SheetBackend, values_list: list, row_idx: int) -> list[list[str]]:
    s = _sheet(b)
    s.insert_rows(_grid(values_list, "a list of rows, each a list of cells"), row_idx)
    return s.values()


def delete_batch_data(b: SheetBackend, dimension: str, index_list: list[int]) -> list[list[str]]:
    s = _sheet(b)
    rows, cols = s.used_size()
    if dimension == "row":
        if len(set(index_list)) >= rows - 1 and rows > 1:
            raise ToolError(
                "Warning: You cannot delete whole sheet at once, please try other functions"
            )
        s.delete_rows(sorted(set(index_list), reverse=True))
    else:
        if len(set(index_list)) >= cols:
            raise ToolError(
                "Warning: You cannot delete whole sheet at once, please try other functions"
            )
        s.delete_cols(sorted(set(index_list), reverse=True))
    return s.values()


def update_cell(b: SheetBackend, position: str, value: Any) -> list[list[str]]:
    s = _sheet(b)
    row, col = _run(parse_a1, position)
    s.set(row, col, value)
    return s.values()


def _formula(
    operator: str, start_position: str | None, end_position: str | None, position_list: list | None
):
    try:
        return parse_formula(operator, position_list, start_position, end_position)
    except SheetError as exc:
        text = str(exc)
        raise ToolError(A1_HINT if "A1" in text else text) from None


def update_cell_by_formula(
    b: SheetBackend,
    result_position: str,
    operator: str,
    start_position: str | None = None,
    end_position: str | None = None,
    position_list: list | None = None,
) -> list[list[str]]:
    s = _sheet(b)
    formula = _formula(operator, start_position, end_position, position_list)
    row, col = _run(parse_a1, result_position)
    s.set_formula(row, col, formula)
    return s.values()


def get_value_by_formula(
    b: SheetBackend,
    operator: str,
    start_position: str | None = None,
    end_position: str | None = None,
    position_list: list | None = None,
) -> str:
    s = _sheet(b)
    return s.evaluate(_formula(operator, start_position, end_position, position_list))


def update_range(
    b: SheetBackend, start_position: str, end_position: str, values_list: list
) -> list[list[str]]:
    s = _sheet(b)
    values = _grid(values_list, "a list of rows, each a list of cells")
    (r1, c1), (r2, c2) = _run(parse_a1, start_position), _run(parse_a1, end_position)
    r1, r2, c1, c2 = min(r1, r2), max(r1, r2), min(c1, c2), max(c1, c2)
    rows, cols = s.used_size()
    if (r1, c1) == (1, 1) and (r2, c2) == (rows, cols) and rows * cols > 4:
        raise ToolError(
            "Warning: You cannot update whole sheet at once, please try other functions"
        )
    if len(values) != r2 - r1 + 1 or any(len(v) != c2 - c1 + 1 for v in values):
        shape = f"{r2 - r1 + 1} rows x {c2 - c1 + 1} columns"
        raise ToolError(
            f"The values_list does not fit the range {start_position}:{end_position} ({shape})"
        )
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            s.set(r1 + i, c1 + j, v)
    return s.values()


def sort_sheet_by_col(b: SheetBackend, col_num: int, order: str) -> list[list[str]]:
    s = _sheet(b)
    s.sort_by(col_num, order == "des")
    return s.values()


def merge_cells(b: SheetBackend, start_position: str, end_position: str) -> list[list[str]]:
    s = _sheet(b)
    _run(s.merge, start_position, end_position)
    return s.values()


def update_note(b: SheetBackend, position: str, content: str) -> str:
    s = _sheet(b)
    row, col = _run(parse_a1, position)
    s.notes[(row - 1, col - 1)] = content
    return f"Updated! the {position}'s note is {content}"


def get_note(b: SheetBackend, position: str) -> str:
    s = _sheet(b)
    row, col = _run(parse_a1, position)
    return s.notes.get((row - 1, col - 1), "")


def get_all_values(b: SheetBackend) -> list[list[str]]:
    return _sheet(b).values()


def get_range_values(b: SheetBackend, start_position: str, end_position: str) -> list[list[str]]:
    s = _sheet(b)
    return _run(s.range_values, start_position, end_position)


def get_cell_value(b: SheetBackend, position: str) -> str:
    s = _sheet(b)
    row, col = _run(parse_a1, position)
    return s.text(row - 1, col - 1)


def filter_cells(
    b: SheetBackend, query: str, in_row: int | None = None, in_column: int | None = None
) -> list[str]:
    s = _sheet(b)
    try:
        pattern = compile_user_regex(query)
    except ValueError as exc:
        raise ToolError(f"the query is not a valid regular expression ({exc})") from None
    except LimitExceeded as exc:
        raise ToolError(str(exc)) from None
    rows, cols = s.used_size()
    out = []
    for r in range(rows):
        for c in range(cols):
            wanted = (in_row is None or r + 1 == in_row) and (
                in_column is None or c + 1 == in_column
            )
            if wanted and _search(pattern, s.text(r, c)):
                out.append(a1(r + 1, c + 1))
    return out


def _search(pattern, text: str) -> bool:
    try:
        return regex_search(pattern, text)
    except LimitExceeded as exc:
        raise ToolError(str(exc)) from None


def finish(b: SheetBackend) -> list[list[str]]:
    return _sheet(b).values()


_POS = param("string", "an A1 address such as 'B3'")
_START = param("string", "the top-left A1 address, e.g. 'B1'", required=False)
_END = param("string", "the bottom-right A1 address, e.g. 'D2'", required=False)
_LIST = param(
    "array",
    "A1 addresses of single cells, e.g. ['B2', 'C2'] (instead of a range)",
    items={"type": "string"},
    required=False,
)
_OP = param("string", f"one of {', '.join(OPERATORS)}", enum=OPERATORS)
_SHEET = "the whole sheet as a 2D list of cell texts"

SHEET_TOOLS = Toolkit(
    [
        Tool(
            "open_sheet",
            "Open a sheet by its name (do this first).",
            open_sheet,
            schema(name=param("string", "the sheet name, e.g. 'Sheet1'")),
            "the sheet's values",
        ),
        Tool(
            "del_sheet",
            "Delete a sheet by its name.",
            del_sheet,
            schema(name=param("string", "the sheet name")),
            "a confirmation",
        ),
        Tool(
            "freeze_data",
            "Freeze the first rows or columns of the open sheet (frozen header rows stay in place when sorting).",
            freeze_data,
            schema(
                dimension=param("string", "'rows' or 'columns'", enum=["rows", "columns"]),
                num=param("integer", "how many rows or columns", minimum=0),
            ),
            "a confirmation",
        ),
        Tool(
            "get_A1_annotation",
            "Get the A1 address of a cell from its row and column numbers (both start at 1).",
            get_A1_annotation,
            schema(
                row=param("integer", "the row number", minimum=1),
                col=param("integer", "the column number", minimum=1),
            ),
            "the A1 address, e.g. 'B3'",
        ),
        Tool(
            "insert_cols",
            "Insert columns before column col_idx; values_list is a list of columns, each a list of cells from top to bottom.",
            insert_cols,
            schema(
                values_list=param(
                    "array", "a 2D list: columns of cell values", items={"type": "array"}
                ),
                col_idx=param(
                    "integer", "where the first new column goes (starts at 1)", minimum=1
                ),
            ),
            _SHEET,
        ),
        Tool(
            "insert_rows",
            "Insert rows before row row_idx; values_list is a list of rows, each a list of cells.",
            insert_rows,
            schema(
                values_list=param(
                    "array", "a 2D list: rows of cell values", items={"type": "array"}
                ),
                row_idx=param("integer", "where the first new row goes (starts at 1)", minimum=1),
            ),
            _SHEET,
        ),
        Tool(
            "delete_batch_data",
            "Delete rows or columns by their numbers (start at 1).",
            delete_batch_data,
            schema(
                dimension=param("string", "'row' or 'col'", enum=["row", "col"]),
                index_list=param(
                    "array", "the row or column numbers", items={"type": "integer", "minimum": 1}
                ),
            ),
            _SHEET,
        ),
        Tool(
            "update_cell",
            "Write a value into a cell.",
            update_cell,
            schema(position=_POS, value=param(["string", "number"], "the value")),
            _SHEET,
        ),
        Tool(
            "update_cell_by_formula",
            "Write a formula into result_position: operator over the range start_position:end_position, or over the cells in position_list.",
            update_cell_by_formula,
            schema(
                start_position=_START,
                end_position=_END,
                position_list=_LIST,
                result_position=_POS,
                operator=_OP,
            ),
            _SHEET,
        ),
        Tool(
            "update_range",
            "Write a 2D list of values into the range start_position:end_position (its shape must fit the range).",
            update_range,
            schema(
                start_position=param("string", "the top-left A1 address"),
                end_position=param("string", "the bottom-right A1 address"),
                values_list=param(
                    "array", "a 2D list: rows of cell values", items={"type": "array"}
                ),
            ),
            _SHEET,
        ),
        Tool(
            "sort_sheet_by_col",
            "Sort the rows below the frozen rows by a column ('asc' or 'des').",
            sort_sheet_by_col,
            schema(
                col_num=param("integer", "the column number (starts at 1)", minimum=1),
                order=param("string", "'asc' or 'des'", enum=["asc", "des"]),
            ),
            _SHEET,
        ),
        Tool(
            "merge_cells",
            "Merge the cells of a range (the top-left value is kept).",
            merge_cells,
            schema(
                start_position=param("string", "the top-left A1 address"),
                end_position=param("string", "the bottom-right A1 address"),
            ),
            _SHEET,
        ),
        Tool(
            "update_note",
            "Set the note of a cell.",
            update_note,
            schema(position=_POS, content=param("string", "the note text")),
            "a confirmation",
        ),
        Tool(
            "get_all_values", "Get all values of the open sheet.", get_all_values, schema(), _SHEET
        ),
        Tool(
            "get_range_values",
            "Get the values of a range.",
            get_range_values,
            schema(
                start_position=param("string", "the top-left A1 address"),
                end_position=param("string", "the bottom-right A1 address"),
            ),
            "a 2D list of cell texts",
        ),
        Tool(
            "get_cell_value",
            "Get the value of a cell.",
            get_cell_value,
            schema(position=_POS),
            "the cell text",
        ),
        Tool(
            "get_value_by_formula",
            "Compute operator over a range or a list of cells without writing it.",
            get_value_by_formula,
            schema(start_position=_START, end_position=_END, position_list=_LIST, operator=_OP),
            "the value as text",
        ),
        Tool(
            "filter_cells",
            "Find the cells whose text matches a regular expression (case-sensitive), optionally in one row or column.",
            filter_cells,
            schema(
                query=param("string", "a regular expression"),
                in_row=param("integer", "only this row", minimum=1, required=False),
                in_column=param("integer", "only this column", minimum=1, required=False),
            ),
            "a list of A1 addresses",
        ),
        Tool(
            "get_note",
            "Get the note of a cell.",
            get_note,
            schema(position=_POS),
            "the note text, or ''",
        ),
        Tool(
            "finish",
            "Call this when the sheet is done; it ends the task.",
            finish,
            schema(),
            _SHEET,
        ),
    ]
)
