"""Sheet's offline backend: a small in-memory spreadsheet engine (Google Sheets semantics).

A :class:`Workbook` holds named :class:`Sheet` s. A sheet is a grid of cells; a cell holds a
number, a text or nothing, a display format (decimal places, as the sheet's number formats
show values: ``8.50``) and optionally a formula -- ``=SUM(B2:D2)``, ``=AVERAGE(...)``,
``=COUNT``, ``=MAX``, ``=MIN``, ``=PRODUCT`` over a range or a list of cells, or
``=MINUS(A1,B1)`` -- evaluated whenever the sheet is read, so it follows later edits.

Structural edits behave as in Google Sheets: inserting or deleting rows and columns shifts the
cells and the formulas' references (a reference to a deleted cell becomes ``#REF!``); sorting
moves whole rows below the frozen header rows (text after numbers, blanks last, stable) and a
formula that refers to its own row follows it; merged cells read back with the top-left value
in every cell of the merge (``combine_merged_cells=True``). Values are read as the formatted
strings gspread's ``get_all_values`` returns.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from agentgym_envs.bounds import checkpoint
from agentgym_envs.tools.tool import ToolError

OPERATORS = ("SUM", "AVERAGE", "COUNT", "MAX", "MIN", "MINUS", "PRODUCT")
_A1 = re.compile(r"^\s*\$?([A-Za-z]{1,3})\$?(\d{1,6})\s*$")
_NUMERIC = re.compile(r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$")


#: Declared size limits of one sheet. Google Sheets allows 10 million cells and columns up to
#: ZZZ; an episode needs a few hundred, and a grid held in memory must stay small.
MAX_ROWS = 10_000
MAX_COLS = 702  # ZZ
MAX_CELLS = 200_000


class SheetError(ToolError):
    """An operation the sheet refuses; the message says why (as the live tools do).

    A :class:`~agentgym_envs.tools.ToolError`, so a refusal anywhere in a tool is its reply.
    """


def _too_big(what: str) -> SheetError:
    return SheetError(
        f"{what} exceeds the sheet's limits: at most {MAX_ROWS} rows, {MAX_COLS} columns "
        f"(A to ZZ) and {MAX_CELLS} cells"
    )


def check_size(rows: int, cols: int, what: str) -> None:
    """Refuse a grid or range of ``rows`` x ``cols`` cells beyond the declared limits."""
    if rows > MAX_ROWS or cols > MAX_COLS or rows * cols > MAX_CELLS:
        raise _too_big(what)


# -- A1 notation ---------------------------------------------------------------------------
def col_letter(col: int) -> str:
    """1-based column number to letters (1 -> A, 27 -> AA)."""
    if col < 1:
        raise SheetError(f"column {col} is out of range: columns start at 1")
    out = ""
    while col:
        col, rem = divmod(col - 1, 26)
        out = chr(65 + rem) + out
    return out


def a1(row: int, col: int) -> str:
    """1-based (row, col) to an A1 address."""
    if row < 1:
        raise SheetError(f"row {row} is out of range: rows start at 1")
    return f"{col_letter(col)}{row}"


def parse_a1(text: str) -> tuple[int, int]:
    """An A1 address to 1-based (row, col)."""
    m = _A1.match(str(text))
    if not m:
        raise SheetError(
            f"'{text}' is not an A1 address such as 'B3': you can use get_A1_annotation(row, col) to get its A1 address."
        )
    col = 0
    for ch in m.group(1).upper():
        col = col * 26 + ord(ch) - 64
    row = int(m.group(2))
    if row < 1:
        raise SheetError(f"'{text}' is not a valid address: rows start at 1")
    return row, col


# -- values --------------------------------------------------------------------------------
def coerce(value: Any) -> float | str | None:
    """A written value as the sheet stores it: numeric text becomes a number (RAW input)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(float(value)) else str(value)
    text = str(value)
    if text == "":
        return None
    if _NUMERIC.match(text):
        return float(text)
    return text


def display(value: float | str | None, fmt: int | None = None) -> str:
    """A stored value as the sheet shows it (``fmt`` decimal places, or general format)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if fmt is not None:
        return f"{value:.{fmt}f}"
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    text = f"{value:.10f}".rstrip("0").rstrip(".")
    return text if text not in ("-0", "") else "0"


@dataclass
class Cell:
    value: float | str | None = None
    fmt: int | None = None
    formula: tuple[str, tuple[tuple[int, ...], ...]] | None = None  # (op, args); args 0-based

    def copy(self) -> Cell:
        return Cell(self.value, self.fmt, self.formula)


def parse_formula(
    op: str, refs: list[str] | None = None, start: str | None = None, end: str | None = None
) -> tuple[str, tuple[tuple[int, ...], ...]]:
    op = str(op).upper()
    if op not in OPERATORS:
        raise SheetError(f"the operator should be one of {list(OPERATORS)}".replace("'", '"'))
    if refs:
        args = tuple((r - 1, c - 1) for r, c in (parse_a1(x) for x in refs))
        if op == "MINUS" and len(args) != 2:
            raise SheetError("MINUS takes exactly two cells: position_list=['A1', 'B1']")
        return op, args
    if start is None or end is None:
        raise SheetError("give either start_position and end_position, or position_list")
    (r1, c1), (r2, c2) = parse_a1(start), parse_a1(end)
    if op == "MINUS":
        raise SheetError("MINUS takes exactly two cells: position_list=['A1', 'B1']")
    return op, ((min(r1, r2) - 1, min(c1, c2) - 1, max(r1, r2) - 1, max(c1, c2) - 1),)


def formula_text(formula: tuple[str, tuple[tuple[int, ...], ...]]) -> str:
    op, args = formula
    parts = []
    for arg in args:
        if any(x < 0 for x in arg):
            parts.append("#REF!")
        elif len(arg) == 2:
            parts.append(a1(arg[0] + 1, arg[1] + 1))
        else:
            parts.append(f"{a1(arg[0] + 1, arg[1] + 1)}:{a1(arg[2] + 1, arg[3] + 1)}")
    return f"={op}({','.join(parts)})"


@dataclass
class Sheet:
    """One worksheet."""

    name: str
    grid: list[list[Cell]] = field(default_factory=list)
    frozen_rows: int = 0
    frozen_cols: int = 0
    notes: dict[tuple[int, int], str] = field(default_factory=dict)  # 0-based
    merges: list[tuple[int, int, int, int]] = field(default_factory=list)  # 0-based inclusive

    @classmethod
    def from_rows(
        cls, name: str, rows: list[list[Any]], formats: list[int | None] | None = None
    ) -> Sheet:
        width = max((len(r) for r in rows), default=0)
        formats = list(formats or []) + [None] * width
        grid = [
            [
                Cell(coerce(r[c]) if c < len(r) else None, formats[c] if i > 0 else None)
                for c in range(width)
            ]
            for i, r in enumerate(rows)
        ]
        return cls(name, grid)

    # -- geometry -------------------------------------------------------------------------
    @property
    def n_rows(self) -> int:
        return len(self.grid)

    @property
    def n_cols(self) -> int:
        return len(self.grid[0]) if self.grid else 0

    def _ensure(self, row: int, col: int) -> None:
        """Grow the grid to hold 0-based (row, col)."""
        width = max(self.n_cols, col + 1)
        check_size(
            max(self.n_rows, row + 1), width, f"Range ('{self.name}'!{a1(row + 1, col + 1)})"
        )
        for r in self.grid:
            r.extend(Cell() for _ in range(width - len(r)))
        while len(self.grid) <= row:
            self.grid.append([Cell() for _ in range(width)])

    # -- reading --------------------------------------------------------------------------
    def _number(self, r: int, c: int, depth: int) -> float | str | None:
        if r < 0 or c < 0 or r >= self.n_rows or c >= self.n_cols:
            return None
        return self._value(r, c, depth + 1)

    def _value(self, r: int, c: int, depth: int = 0) -> float | str | None:
        cell = self.grid[r][c]
        if cell.formula is None:
            return cell.value
        if depth > 50:
            return "#REF!"
        op, args = cell.formula
        values: list[Any] = []
        for arg in args:
            if any(x < 0 for x in arg):
                return "#REF!"
            if len(arg) == 2:
                values.append(self._number(arg[0], arg[1], depth))
            else:
                # cells past the grid are empty and count for nothing: read only the grid
                for rr in range(arg[0], min(arg[2], self.n_rows - 1) + 1):
                    checkpoint()
                    for cc in range(arg[1], min(arg[3], self.n_cols - 1) + 1):
                        if (rr, cc) != (r, c):
                            values.append(self._number(rr, cc, depth))
        if any(v == "#REF!" for v in values):
            return "#REF!"
        nums = [float(v) for v in values if isinstance(v, float)]
        if op == "SUM":
            return float(sum(nums))
        if op == "COUNT":
            return float(len(nums))
        if op == "PRODUCT":
            return float(math.prod(nums)) if nums else 0.0
        if op == "MAX":
            return max(nums) if nums else 0.0
        if op == "MIN":
            return min(nums) if nums else 0.0
        if op == "AVERAGE":
            return sum(nums) / len(nums) if nums else "#DIV/0!"
        if op == "MINUS":
            a, b = (v if isinstance(v, float) else 0.0 for v in values[:2])
            return a - b
        return "#NAME?"

    def _merged_anchor(self, r: int, c: int) -> tuple[int, int]:
        for r1, c1, r2, c2 in self.merges:
            if r1 <= r <= r2 and c1 <= c <= c2:
                return r1, c1
        return r, c

    def text(self, r: int, c: int) -> str:
        """0-based cell as displayed (merged cells show their anchor's value)."""
        if r >= self.n_rows or c >= self.n_cols:
            return ""
        r, c = self._merged_anchor(r, c)
        return display(self._value(r, c), self.grid[r][c].fmt)

    def used_size(self) -> tuple[int, int]:
        rows = cols = 0
        for r in range(self.n_rows):
            for c in range(self.n_cols):
                if self.grid[r][c].value is not None or self.grid[r][c].formula is not None:
                    rows, cols = max(rows, r + 1), max(cols, c + 1)
        return rows, cols

    def values(self) -> list[list[str]]:
        """Every used cell as text, from A1 to the last used row and column."""
        rows, cols = self.used_size()
        return [[self.text(r, c) for c in range(cols)] for r in range(rows)]

    def range_values(self, start: str, end: str) -> list[list[str]]:
        (r1, c1), (r2, c2) = parse_a1(start), parse_a1(end)
        check_size(abs(r2 - r1) + 1, abs(c2 - c1) + 1, f"Range ('{self.name}'!{start}:{end})")
        return [
            [self.text(r - 1, c - 1) for c in range(min(c1, c2), max(c1, c2) + 1)]
            for r in range(min(r1, r2), max(r1, r2) + 1)
        ]

    # -- writing --------------------------------------------------------------------------
    def set(self, row: int, col: int, value: Any) -> None:
        """Write 1-based (row, col); the cell keeps its format, loses any formula."""
        self._ensure(row - 1, col - 1)
        cell = self.grid[row - 1][col - 1]
        cell.value, cell.formula = coerce(value), None

    def set_formula(
        self, row: int, col: int, formula: tuple[str, tuple[tuple[int, ...], ...]]
    ) -> None:
        self._ensure(row - 1, col - 1)
        cell = self.grid[row - 1][col - 1]
        cell.value, cell.formula = None, formula

    def evaluate(self, formula: tuple[str, tuple[tuple[int, ...], ...]]) -> str:
        """The value of a formula, without writing it anywhere."""
        self._ensure(0, self.n_cols)
        self.grid[0][-1].formula = formula
        try:
            return display(self._value(0, self.n_cols - 1))
        finally:
            for row in self.grid:
                row.pop()

    # -- structure ------------------------------------------------------------------------
    def _remap(
        self,
        rows: dict[int, int | None] | None,
        cols: dict[int, int | None] | None,
        permute: bool = False,
    ) -> None:
        def fix(index: int, mapping: dict[int, int | None] | None) -> int:
            if mapping is None or index not in mapping:
                return index
            new = mapping[index]
            return -1 if new is None else new

        for row in self.grid:
            for cell in row:
                if cell.formula is None:
                    continue
                op, args = cell.formula
                new_args = []
                for arg in args:
                    if len(arg) == 2:
                        new_args.append((fix(arg[0], rows), fix(arg[1], cols)))
                    elif permute:
                        same_row = arg[0] == arg[2]
                        r = fix(arg[0], rows) if same_row else arg[0]
                        new_args.append((r, arg[1], r if same_row else arg[2], arg[3]))
                    else:
                        new_args.append(_shift_range(arg, rows, cols))
                cell.formula = (op, tuple(new_args))

    def insert_rows(self, values: list[list[Any]], row: int) -> None:
        """Insert rows so the first new one is 1-based ``row``."""
        at = min(max(row - 1, 0), self.n_rows)
        width = max([self.n_cols] + [len(v) for v in values])
        check_size(self.n_rows + len(values), width, f"Inserting {len(values)} rows")
        self._ensure(0, width - 1)
        new = [
            [Cell(coerce(v[c]) if c < len(v) else None) for c in range(self.n_cols)] for v in values
        ]
        mapping = {r: (r if r < at else r + len(new)) for r in range(self.n_rows)}
        self._remap(mapping, None)
        self.grid[at:at] = new
        self.notes = {((r if r < at else r + len(new)), c): n for (r, c), n in self.notes.items()}
        self.merges = [_shift_merge(m, mapping, None) for m in self.merges]

    def insert_cols(self, values: list[list[Any]], col: int) -> None:
        """Insert columns (each a top-down list) so the first new one is 1-based ``col``."""
        at = min(max(col - 1, 0), self.n_cols)
        height = max([self.n_rows] + [len(v) for v in values])
        check_size(height, self.n_cols + len(values), f"Inserting {len(values)} columns")
        if height > self.n_rows:
            self._ensure(height - 1, 0)
        mapping = {c: (c if c < at else c + len(values)) for c in range(self.n_cols)}
        self._remap(None, mapping)
        for r, row in enumerate(self.grid):
            row[at:at] = [Cell(coerce(v[r]) if r < len(v) else None) for v in values]
        self.notes = {
            (r, (c if c < at else c + len(values))): n for (r, c), n in self.notes.items()
        }
        self.merges = [_shift_merge(m, None, mapping) for m in self.merges]

    def delete_rows(self, indexes: list[int]) -> None:
        gone, mapping = _deletion(indexes, self.n_rows)
        self._remap(mapping, None)
        self.grid = [row for r, row in enumerate(self.grid) if r not in gone]
        self.notes = {
            (mapping[r], c): n for (r, c), n in self.notes.items() if mapping.get(r) is not None
        }
        self.merges = [
            m for m in (_shift_merge(m, mapping, None) for m in self.merges) if m[0] <= m[2]
        ]

    def delete_cols(self, indexes: list[int]) -> None:
        gone, mapping = _deletion(indexes, self.n_cols)
        self._remap(None, mapping)
        self.grid = [[cell for c, cell in enumerate(row) if c not in gone] for row in self.grid]
        self.notes = {
            (r, mapping[c]): n for (r, c), n in self.notes.items() if mapping.get(c) is not None
        }
        self.merges = [
            m for m in (_shift_merge(m, None, mapping) for m in self.merges) if m[1] <= m[3]
        ]

    def sort_by(self, col: int, descending: bool) -> None:
        """Sort the rows below the frozen rows by 1-based ``col`` (stable; blanks last)."""
        start = self.frozen_rows
        last = self.used_size()[0]
        body = list(range(start, last))
        c = col - 1

        def key(r: int) -> tuple[int, Any]:
            v = self._value(r, c) if c < self.n_cols else None
            if v is None:
                return (2, 0)
            if isinstance(v, float):
                return (0, -v if descending else v)
            return (1, v.casefold())

        blanks = [r for r in body if key(r)[0] == 2]
        filled = [r for r in body if key(r)[0] != 2]
        numbers = sorted((r for r in filled if key(r)[0] == 0), key=key)
        texts = sorted((r for r in filled if key(r)[0] == 1), key=key, reverse=descending)
        order = (texts + numbers if descending else numbers + texts) + blanks
        mapping = {old: start + i for i, old in enumerate(order)}
        self._remap(mapping, None, permute=True)
        rows = [self.grid[r] for r in order]
        self.grid[start:last] = rows
        self.notes = {(mapping.get(r, r), cc): n for (r, cc), n in self.notes.items()}

    def merge(self, start: str, end: str) -> None:
        (r1, c1), (r2, c2) = parse_a1(start), parse_a1(end)
        r1, r2, c1, c2 = min(r1, r2) - 1, max(r1, r2) - 1, min(c1, c2) - 1, max(c1, c2) - 1
        self._ensure(r2, c2)
        for r in range(r1, r2 + 1):
            for c in range(c1, c2 + 1):
                if (r, c) != (r1, c1):
                    self.grid[r][c] = Cell(None, self.grid[r][c].fmt)
        self.merges = [m for m in self.merges if m[2] < r1 or m[0] > r2 or m[3] < c1 or m[1] > c2]
        self.merges.append((r1, c1, r2, c2))


def _remap_index(i: int, mapping: dict[int, int | None]) -> int | None:
    if i in mapping:
        return mapping[i]
    top = max(mapping, default=-1)
    if i > top:  # past the grid: shift by the change in size
        new_size = max((v for v in mapping.values() if v is not None), default=-1) + 1
        return new_size + (i - top - 1)
    return i


def _shift_range(
    arg: tuple[int, ...], rows: dict[int, int | None] | None, cols: dict[int, int | None] | None
) -> tuple[int, ...]:
    """A range after rows/columns moved: it spans its surviving cells (-1 when none survive)."""
    r1, c1, r2, c2 = arg

    def span(lo: int, hi: int, mapping: dict[int, int | None] | None) -> tuple[int, int]:
        if mapping is None:
            return lo, hi
        kept = [k for k in (_remap_index(i, mapping) for i in range(lo, hi + 1)) if k is not None]
        return (min(kept), max(kept)) if kept else (-1, -1)

    nr1, nr2 = span(r1, r2, rows)
    nc1, nc2 = span(c1, c2, cols)
    return nr1, nc1, nr2, nc2


def _deletion(indexes: list[int], size: int) -> tuple[set[int], dict[int, int | None]]:
    """The 0-based lines that 1-based ``indexes`` delete, and where every line moves to."""
    gone = {i - 1 for i in indexes if 1 <= i <= size}
    mapping: dict[int, int | None] = {}
    k = 0
    for line in range(size):
        mapping[line] = None if line in gone else k
        k += line not in gone
    return gone, mapping


def _shift_merge(
    m: tuple[int, int, int, int],
    rows: dict[int, int | None] | None,
    cols: dict[int, int | None] | None,
) -> tuple[int, int, int, int]:
    r1, c1, r2, c2 = _shift_range(m, rows, cols)
    return (r1, c1, r2, c2) if min(r1, c1, r2, c2) >= 0 else (1, 1, 0, 0)


@dataclass
class Workbook:
    """Named sheets and the one currently open."""

    sheets: dict[str, Sheet]
    current: str | None = None

    def sheet(self) -> Sheet:
        if self.current is None or self.current not in self.sheets:
            raise SheetError("Please open a sheet before operating it")
        return self.sheets[self.current]
