"""Sheet's tasks: AgentGym-style spreadsheet operations with an expected final sheet.

Each task names its sheet (``"SheetN"``) in a workbook that also holds two other sheets, and
asks for operations in the phrasing of AgentGym's sheet data: update from given data then
sort, sort then adjust the last rows, insert rows then sort, delete rows by a condition, add a
total column, add an average row with formulas, raise prices, delete empty rows and columns,
update a person's task statuses. The expected final sheet is computed here in plain Python from
the starting table (independently of the spreadsheet engine the agent drives); the solution
plan is the tool calls that get there.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentgym_envs.envs.sheet.world import a1, col_letter, display
from agentgym_envs.spec import family_record
from agentgym_envs.tools import PlanStep, Subgoal, ToolTask
from agentgym_envs.tools.tasks import GeneratedToolTasks

TEST_SIZE = 20  # AgentEval's Sheet split
TRAIN_SIZE = 500

PRODUCTS = (
    ("beef", "meat"),
    ("pork", "meat"),
    ("chicken", "meat"),
    ("lamb", "meat"),
    ("duck", "meat"),
    ("fish", "seafood"),
    ("shrimp", "seafood"),
    ("salmon", "seafood"),
    ("apple", "fruit"),
    ("banana", "fruit"),
    ("orange", "fruit"),
    ("carrot", "vegetable"),
)
INVENTORY_HEADER = [
    "Product",
    "Category",
    "Price",
    "Quantity",
    "Discount",
    "Location",
    "Product Rating",
]
INVENTORY_FORMATS = [None, None, 2, None, None, None, 1]
SCORES_HEADER = ["Name", "Class", "Math", "English", "Physics", "Chemistry", "Biology"]
PROJECT_HEADER = ["Task Name", "Responsible Person", "Status", "Priority", "Estimated Hours"]
STUDENTS = (
    "Alice",
    "Bob",
    "Charlie",
    "Diana",
    "Ethan",
    "Fiona",
    "George",
    "Hannah",
    "Ian",
    "Julia",
    "Kevin",
    "Laura",
    "Michael",
    "Nina",
    "Oscar",
    "Paula",
    "Quentin",
    "Rachel",
    "Steven",
    "Tina",
    "Umar",
    "Victor",
    "Wendy",
    "Xavier",
    "Yvonne",
    "Zack",
    "Nelson",
    "Robert",
    "Emily",
    "Frank",
)
PEOPLE = ("Alice", "Bob", "Carol", "David")
PROJECT_TASKS = (
    "Design homepage",
    "Write API docs",
    "Set up CI",
    "Fix login bug",
    "Plan sprint",
    "Review budget",
    "Update logo",
    "Migrate database",
    "Write unit tests",
    "Prepare demo",
    "User interviews",
    "Refactor payments",
    "Translate UI",
    "Security audit",
    "Draft press release",
)

Table = list[list[Any]]


@dataclass(frozen=True)
class SheetTask(ToolTask):
    """An operation on ``sheet_name``; ``sheets`` is the starting workbook, ``answer`` the expected sheet."""

    sheet_name: str = "Sheet1"
    #: ``(name, rows, formats)`` per sheet; rows hold Python values (numbers, text, ``None``).
    sheets: tuple[tuple[str, tuple[tuple[Any, ...], ...], tuple[int | None, ...]], ...] = ()
    #: Cell notes of the starting workbook: ``(sheet name, A1 address, text)``.
    notes: tuple[tuple[str, str, str], ...] = ()


# -- tables --------------------------------------------------------------------------------
def inventory(rng: random.Random) -> tuple[Table, list[int | None]]:
    quantities = rng.sample(range(8, 160), len(PRODUCTS))
    ratings = [r / 10 for r in rng.sample(range(25, 51), len(PRODUCTS))]
    rows: Table = [list(INVENTORY_HEADER)]
    for (name, cat), q, rating in zip(PRODUCTS, quantities, ratings):
        price = round(rng.uniform(1.0, 30.0) * 4) / 4
        rows.append(
            [
                name,
                cat,
                price,
                q,
                rng.choice([0, 5, 10, 15, 20]),
                rng.choice(["Warehouse A", "Warehouse B", "Warehouse C"]),
                rating,
            ]
        )
    return rows, list(INVENTORY_FORMATS)


def scores(rng: random.Random, n: int | None = None) -> tuple[Table, list[int | None]]:
    n = n or rng.randint(8, 12)
    names = rng.sample(STUDENTS[:26], n)
    rows: Table = [list(SCORES_HEADER)]
    for name in names:
        rows.append([name, rng.randint(1, 3)] + [rng.randint(45, 100) for _ in range(5)])
    return rows, [None] * len(SCORES_HEADER)


def project(rng: random.Random) -> tuple[Table, list[int | None]]:
    names = rng.sample(PROJECT_TASKS, rng.randint(10, 14))
    rows: Table = [list(PROJECT_HEADER)]
    for name in names:
        rows.append(
            [
                name,
                rng.choice(PEOPLE),
                rng.choice(["Not Started", "In Progress", "Completed"]),
                rng.choice(["High", "Medium", "Low"]),
                rng.randint(2, 40),
            ]
        )
    return rows, [None] * len(PROJECT_HEADER)


def rendered(rows: Table, formats: list[int | None]) -> list[list[str]]:
    """The expected sheet as text: header as written, body with the column formats."""
    width = max(len(r) for r in rows)
    out = []
    for i, row in enumerate(rows):
        cells = []
        for c in range(width):
            v = row[c] if c < len(row) else None
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                v = float(v)
            cells.append(display(v, formats[c] if i > 0 and c < len(formats) else None))
        out.append(cells)
    # trim empty trailing rows/cols as get_all_values does
    while out and not any(out[-1]):
        out.pop()
    width = max(
        (max((c + 1 for c, v in enumerate(r) if v != ""), default=0) for r in out), default=0
    )
    return [r[:width] for r in out]


def _sort(body: Table, col: int, descending: bool) -> Table:
    numbers = [r for r in body if isinstance(r[col], (int, float))]
    texts = [r for r in body if isinstance(r[col], str)]
    numbers.sort(key=lambda r: r[col], reverse=descending)
    texts.sort(key=lambda r: r[col].casefold(), reverse=descending)
    return texts + numbers if descending else numbers + texts


def _num(v: float) -> Any:
    """A number as a model would type it into a cell."""
    return int(v) if float(v).is_integer() else v


class _Builder:
    def __init__(self, name: str) -> None:
        self.name = name
        self.steps: list[PlanStep] = [
            PlanStep("open_sheet", {"name": name}, f'I should open "{name}" first.')
        ]
        self.notes: list[tuple[str, str]] = []

    def call(self, tool: str, args: dict, thought: str) -> None:
        self.steps.append(PlanStep(tool, args, thought))

    def freeze(self) -> None:
        self.call(
            "freeze_data",
            {"dimension": "rows", "num": 1},
            "I will freeze the header row before sorting.",
        )


Kind = Callable[[random.Random, _Builder], tuple[str, Table, Table, list[int | None], str]]


def k_update_then_sort(rng, p):
    rows, fmt = inventory(rng)
    while True:
        sold = [rng.randint(0, r[3] - 1) for r in rows[1:]]
        new = [r[3] - s for r, s in zip(rows[1:], sold)]
        if len(set(new)) == len(new):
            break
    sales = [["Product", "Today Sold"]] + [[r[0], str(s)] for r, s in zip(rows[1:], sold)]
    body = [r[:3] + [q] + r[4:] for r, q in zip(rows[1:], new)]
    gold = [rows[0]] + _sort(body, 3, True)
    p.freeze()
    n = len(rows)
    p.call(
        "update_range",
        {"start_position": "D2", "end_position": f"D{n}", "values_list": [[q] for q in new]},
        "I will write the new quantities (quantity minus today's sales).",
    )
    p.call(
        "sort_sheet_by_col",
        {"col_num": 4, "order": "des"},
        "Now I sort by Quantity in descending order.",
    )
    goal = (
        f'Product Update: The table in "{p.name}" contains the product inventory information, and {sales} is today\'s '
        f'sales data. Please update the product information in "{p.name}" in time and then sort by "Quantity" in descending order.'
    )
    return goal, rows, gold, fmt, "easy"


def k_sort_and_discount(rng, p):
    rows, fmt = inventory(rng)
    body = _sort(rows[1:], 6, True)
    for r in body[-3:]:
        r[4] = r[4] + 5
    gold = [rows[0]] + body
    p.freeze()
    p.call(
        "sort_sheet_by_col",
        {"col_num": 7, "order": "des"},
        "I sort by Product Rating in descending order.",
    )
    n = len(rows)
    p.call(
        "update_range",
        {
            "start_position": f"E{n - 2}",
            "end_position": f"E{n}",
            "values_list": [[r[4]] for r in body[-3:]],
        },
        "The last three rows have the lowest ratings; I raise their discount by 5.",
    )
    goal = (
        f'Product Promotion: "{p.name}" contains the product inventory information. Please sort the products in descending '
        "order by product ratings, and then, increase the discount rate of the three products with the lowest ratings by 5 percentage points."
    )
    return goal, rows, gold, fmt, "easy"


def k_insert_and_sort(rng, p):
    rows, fmt = scores(rng)
    present = {r[0] for r in rows[1:]}
    new_names = rng.sample([s for s in STUDENTS if s not in present], 2)
    new_rows = [
        [name, rng.randint(1, 3)] + [rng.randint(45, 100) for _ in range(5)] for name in new_names
    ]
    gold = [rows[0]] + _sort(rows[1:] + [list(r) for r in new_rows], 0, False)
    n = len(rows)
    p.call(
        "insert_rows",
        {"values_list": [[str(v) for v in r] for r in new_rows], "row_idx": n + 1},
        "I append the two students at the end.",
    )
    p.freeze()
    p.call(
        "sort_sheet_by_col",
        {"col_num": 1, "order": "asc"},
        "Now I sort by Name in ascending order.",
    )
    spoken = " and ".join('"' + " ".join(str(v) for v in r) + '"' for r in new_rows)
    goal = f'Insert {spoken} into "{p.name}" and sort this table by "Name" in ascending order.'
    return goal, rows, gold, fmt, "hard"


def k_delete_category(rng, p):
    rows, fmt = inventory(rng)
    cat = rng.choice(["fruit", "seafood", "vegetable"])
    drop = [i + 1 for i, r in enumerate(rows) if i > 0 and r[1] == cat]
    gold = [r for i, r in enumerate(rows) if i + 1 not in drop]
    p.call(
        "delete_batch_data",
        {"dimension": "row", "index_list": drop},
        f"Rows {drop} hold {cat} products; I delete them.",
    )
    goal = f'Stock Clearance: the store no longer sells {cat} products. Please delete all {cat} products from "{p.name}".'
    return goal, rows, gold, fmt, "hard"


def k_total_column(rng, p):
    rows, fmt = scores(rng)
    totals = [sum(r[2:7]) for r in rows[1:]]
    gold = [rows[0] + ["Total"]] + [r + [t] for r, t in zip(rows[1:], totals)]
    n = len(rows)
    p.call(
        "update_range",
        {
            "start_position": "H1",
            "end_position": f"H{n}",
            "values_list": [["Total"]] + [[t] for t in totals],
        },
        "I write the header and each student's total in column H.",
    )
    goal = f'Score Summary: "{p.name}" has students\' scores. Please add a column "Total" right after the last column with each student\'s total score over the five subjects.'
    return goal, rows, gold, fmt + [None], "hard"


def k_average_row(rng, p):
    rows, fmt = scores(rng)
    n = len(rows)
    avgs = [sum(r[c] for r in rows[1:]) / (n - 1) for c in range(2, 7)]
    gold = rows + [["Average", None] + avgs]
    p.call("update_cell", {"position": f"A{n + 1}", "value": "Average"}, "I label the new row.")
    for c in range(2, 7):
        letter = col_letter(c + 1)
        p.call(
            "update_cell_by_formula",
            {
                "start_position": f"{letter}2",
                "end_position": f"{letter}{n}",
                "result_position": f"{letter}{n + 1}",
                "operator": "AVERAGE",
            },
            f"The average of {rows[0][c]} goes in {letter}{n + 1}.",
        )
    goal = f'Class Averages: in "{p.name}", add a row at the bottom labelled "Average" (in column A) with the average score of each subject, computed with the AVERAGE formula; leave Class empty.'
    return goal, rows, gold, fmt, "hard"


def k_price_increase(rng, p):
    rows, fmt = inventory(rng)
    cat = rng.choice(["fruit", "seafood"])
    gold = [list(r) for r in rows]
    for i, r in enumerate(gold):
        if i > 0 and r[1] == cat:
            r[2] = round(r[2] * 1.1, 2)
            p.call(
                "update_cell",
                {"position": f"C{i + 1}", "value": r[2]},
                f"The new price of {r[0]} is {r[2]}.",
            )
    goal = f'Price Update: the supplier raised the price of all {cat} products by 10%. Please update the prices in "{p.name}" (round to two decimals).'
    return goal, rows, gold, fmt, "easy"


def k_delete_empty(rng, p):
    rows, fmt = inventory(rng)
    blank_rows = sorted(rng.sample(range(2, len(rows)), 2))
    blank_col = rng.randint(2, len(INVENTORY_HEADER) - 1)
    messy: Table = []
    for i, r in enumerate(rows):
        messy.append(r[:blank_col] + [None] + r[blank_col:])
        if i in blank_rows:
            messy.append([None] * (len(r) + 1))
    messy_fmt = fmt[:blank_col] + [None] + fmt[blank_col:]
    drop_rows = [i + 1 for i, r in enumerate(messy) if all(v is None for v in r)]
    p.call(
        "delete_batch_data",
        {"dimension": "row", "index_list": drop_rows},
        f"Rows {drop_rows} are empty; I delete them.",
    )
    p.call(
        "delete_batch_data",
        {"dimension": "col", "index_list": [blank_col + 1]},
        f"Column {blank_col + 1} is empty; I delete it.",
    )
    goal = f'Data Cleaning: "{p.name}" has some empty rows and an empty column inside the table. Please delete them.'
    return goal, messy, rows, messy_fmt, "easy", fmt


def k_status_update(rng, p):
    while True:
        rows, fmt = project(rng)
        person = rng.choice(PEOPLE)
        mine = [i for i, r in enumerate(rows) if i > 0 and r[1] == person]
        if 2 <= len(mine) <= 5:
            break
    gold = [list(r) for r in rows]
    for i in mine:
        gold[i][2] = "Completed"
        p.call(
            "update_cell",
            {"position": f"C{i + 1}", "value": "Completed"},
            f"Row {i + 1} is {person}'s task {rows[i][0]}.",
        )
    goal = f'Status Update: {person} has finished all of their tasks. Please set the Status of every task of {person} in "{p.name}" to "Completed".'
    return goal, rows, gold, fmt, "easy"


def k_note_instruction(rng, p):
    rows, fmt = scores(rng)
    r = rng.randrange(1, len(rows))
    c = rng.randrange(2, 7)
    bonus = rng.choice([3, 5, 10])
    gold = [list(x) for x in rows]
    gold[r][c] = min(100, rows[r][c] + bonus)
    pos = a1(r + 1, c + 1)
    p.notes.append((pos, f"Bonus: add {bonus} points to this score (the maximum score is 100)."))
    p.call("get_note", {"position": pos}, f"I will read the note on {pos}.")
    p.call(
        "update_cell",
        {"position": pos, "value": gold[r][c]},
        f"The note gives a bonus of {bonus} points.",
    )
    goal = f'The teacher left a note on cell {pos} of "{p.name}". Please read the note and update the sheet as it says.'
    return goal, rows, gold, fmt, "hard"


def k_title_row(rng, p):
    rows, fmt = rng.choice([inventory, project])(rng)
    title = rng.choice(["Inventory Report", "June Overview", "Status Board", "Weekly Summary"])
    width = len(rows[0])
    gold = [[title] * width] + [list(r) for r in rows]
    p.call(
        "insert_rows", {"values_list": [[title]], "row_idx": 1}, "I insert the title row on top."
    )
    p.call(
        "merge_cells",
        {"start_position": "A1", "end_position": f"{col_letter(width)}1"},
        "Now I merge it across the table.",
    )
    goal = f'Add a title row "{title}" above the table in "{p.name}" and merge its cells across all the columns of the table.'
    return goal, rows, gold, fmt, "easy"


KINDS: dict[str, Callable[..., tuple]] = {
    "update_then_sort": k_update_then_sort,
    "sort_and_discount": k_sort_and_discount,
    "insert_and_sort": k_insert_and_sort,
    "delete_category": k_delete_category,
    "total_column": k_total_column,
    "average_row": k_average_row,
    "price_increase": k_price_increase,
    "delete_empty": k_delete_empty,
    "status_update": k_status_update,
    "note_instruction": k_note_instruction,
    "title_row": k_title_row,
}
_DISTRACTORS = (inventory, scores, project)


def make_task(split: str, task_id: int) -> SheetTask:
    rng = random.Random(f"agentgym-envs/sheet/{split}/{task_id}")
    names = list(KINDS)
    kind = names[task_id % len(names)] if split == "test" else rng.choice(names)
    number = task_id + 1 if split == "test" else 21 + task_id % 479
    sheet_name = f"Sheet{number}"
    builder = _Builder(sheet_name)
    out = KINDS[kind](rng, builder)
    goal, start, gold_rows, fmt, difficulty = out[:5]
    gold_fmt = out[5] if len(out) > 5 else fmt
    gold = rendered(gold_rows, gold_fmt)
    builder.steps.append(PlanStep("finish", {}, "The sheet is done."))
    others = sorted(rng.sample([n for n in range(1, 500) if n != number], 2))
    sheets = [(sheet_name, start, fmt)]
    for n in others:
        rows, f = rng.choice(_DISTRACTORS)(rng)
        sheets.append((f"Sheet{n}", rows, f))
    sheets.sort(key=lambda s: int(s[0][5:]))
    frozen = tuple((name, tuple(tuple(r) for r in rows), tuple(f)) for name, rows, f in sheets)
    subgoals = (Subgoal(gold, "finish", "the final sheet"),)
    return SheetTask(
        task_id,
        split,
        goal,
        gold,
        subgoals,
        tuple(builder.steps),
        difficulty,
        kind,
        sheet_name=sheet_name,
        sheets=frozen,
        notes=tuple((sheet_name, pos, text) for pos, text in builder.notes),
    )


class SheetTasks(GeneratedToolTasks):
    """Generated sheet operations: test 20 (AgentEval's size), train 500."""

    item_prefix = family_record("sheet").item_prefix
    train_size = TRAIN_SIZE
    test_size = TEST_SIZE
    make_task = staticmethod(make_task)


__all__ = ["KINDS", "SheetTask", "SheetTasks", "a1", "make_task", "rendered"]
