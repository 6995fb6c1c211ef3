"""Hostile input: the time one pathological step takes, against the per-step budget.

    python benchmarks/bench_hostile.py            # every case
    python benchmarks/bench_hostile.py --quick    # one run per case

Each case is an action a hostile or clumsy agent could send (issue 22): cells and ranges far
past the sheet, formula fan-out, catastrophic regexes, LIKE/instr bombs in SQL, a huge bracket
action in WebShop, a 2 MB echo in TextCraft, emoji in Wordle. For every case the script prints
the worst wall time of one ``step`` and whether the env answered with ``info["error"]``; it
exits 1 when any step took longer than the budget (the core's default per-step budget,
:data:`agentgym_envs.bounds.DEFAULT_STEP_BUDGET`, plus one second of slack for work that
finishes after the last budget check). Memory bombs run in the process itself: run it on a
machine with a few GB free.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import gymnasium as gym

import agentgym_envs  # noqa: F401
from agentgym_envs.bounds import DEFAULT_STEP_BUDGET
from agentgym_envs.tools import action_text


def _sheet():
    env = gym.make("AgentGym/Sheet-v0").unwrapped
    env.reset(seed=0, options={"split": "test", "task_id": 0})
    env.step(action_text("open_sheet", {"name": next(iter(env.backend.sheets))}))
    env.step(action_text("update_cell", {"position": "A30", "value": "a" * 40 + "!"}))
    return env


def _sheet_fan_out():
    """Each of 60 cells sums the whole block below it: reading the sheet fans out."""
    env = _sheet()
    for r in range(30, 0, -1):
        for col in ("AA", "AB"):
            env.step(
                action_text(
                    "update_cell_by_formula",
                    {
                        "result_position": f"{col}{r}",
                        "operator": "SUM",
                        "start_position": f"AA{r + 1}",
                        "end_position": "AD40",
                    },
                )
            )
    return env


def _plain(env_id: str) -> Callable[[], gym.Env]:
    def make():
        env = gym.make(env_id).unwrapped
        env.reset(seed=0, options={"split": "test", "task_id": 0})
        return env

    return make


def _sql_query(sql: str) -> str:
    return f"```sql\n{sql}\n```"


CASES: list[tuple[str, Callable[[], gym.Env], str]] = [
    (
        "sheet update_cell ZZZ999999",
        _sheet,
        action_text("update_cell", {"position": "ZZZ999999", "value": 1}),
    ),
    (
        "sheet SUM(A1:ZZZ999999)",
        _sheet,
        action_text(
            "get_value_by_formula",
            {"operator": "SUM", "start_position": "A1", "end_position": "ZZZ999999"},
        ),
    ),
    (
        "sheet insert_rows 5 x 700",
        _sheet,
        action_text("insert_rows", {"values_list": [[7] * 700] * 5, "row_idx": 2}),
    ),
    ("sheet filter_cells (a|aa)+$", _sheet, action_text("filter_cells", {"query": "(a|aa)+$"})),
    ("sheet formula fan-out (budget)", _sheet_fan_out, action_text("get_all_values", {})),
    (
        "sql LIKE 800k x 10k pattern",
        _plain("AgentGym/BIRDInteractive-v0"),
        "Action: execute_sql with Action Input: "
        + "{\"sql\": \"SELECT replace(hex(zeroblob(400000)), '0', 'a') LIKE '%"
        + "a" * 10_000
        + "b'\"}",
    ),
    (
        "sql instr 800k x 200k",
        _plain("AgentGym/BIRD-v0"),
        _sql_query(
            "SELECT instr(replace(hex(zeroblob(400000)), '0', 'a'), "
            "replace(hex(zeroblob(100000)), '0', 'a') || 'b')"
        ),
    ),
    ("webshop a[ x 8000", _plain("AgentGym/WebShop-v0"), "a[" * 8000),
    ("textcraft 2 MB action", _plain("AgentGym/TextCraft-v0"), "craft " + "x" * 2_000_000),
    ("wordle emoji guess", _plain("AgentGym/Wordle-v0"), "\U0001f642" * 5),
    ("maze 16k junk", _plain("AgentGym/Maze-v0"), "left " * 3276),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one run per case")
    args = parser.parse_args()
    runs = 1 if args.quick else 3
    limit = DEFAULT_STEP_BUDGET + 1.0
    print(f"per-step budget {DEFAULT_STEP_BUDGET:g} s (+1 s slack); worst of {runs} run(s)")
    print(f"{'case':34} {'worst s':>8}  answer")
    over = 0
    for name, make, action in CASES:
        worst, error = 0.0, None
        for _ in range(runs):
            env = make()
            started = time.perf_counter()
            _, _, _, _, info = env.step(action)
            worst = max(worst, time.perf_counter() - started)
            error = info.get("error")
            env.close()
        flag = "" if worst <= limit else "  OVER BUDGET"
        over += bool(flag)
        answer = f"error: {error[:70]}" if error else "ok (no error)"
        print(f"{name:34} {worst:8.3f}  {answer}{flag}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
