"""Sheet under hostile input: huge ranges, inserts and cells, formula bombs, regex bombs."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import gymnasium as gym

import agentgym_envs  # noqa: F401
from agentgym_envs.envs.sheet.world import MAX_CELLS, MAX_COLS
from agentgym_envs.tools import action_text


def make():
    env = gym.make("AgentGym/Sheet-v0").unwrapped
    env.reset(seed=0, options={"split": "test", "task_id": 0})
    env.step(
        action_text("open_sheet", {"name": env.backend.sheets and next(iter(env.backend.sheets))})
    )
    return env


def call(env, tool, **args):
    return env.step(action_text(tool, args))


def test_cells_and_ranges_past_the_limits_are_refused_by_name():
    env = make()
    for tool, args in [
        ("update_cell", {"position": "ZZZ999999", "value": 1}),
        ("get_range_values", {"start_position": "A1", "end_position": "ZZZ999999"}),
        ("merge_cells", {"start_position": "A1", "end_position": "ZZ9999"}),
        ("insert_rows", {"values_list": [[1] * (MAX_COLS + 1)], "row_idx": 1}),
        ("insert_cols", {"values_list": [[1]] * (MAX_COLS + 1), "col_idx": 1}),
    ]:
        obs, _, terminated, _, info = call(env, tool, **args)
        assert "exceeds the sheet's limits" in info["error"], (tool, info)
        assert str(MAX_CELLS) in obs and not terminated
    sheet = env.backend.sheet()
    assert sheet.n_rows * sheet.n_cols <= MAX_CELLS


def test_a_formula_over_a_huge_range_reads_only_the_grid():
    env = make()
    expected = call(
        env, "get_value_by_formula", operator="SUM", start_position="A1", end_position="ZZ100"
    )[0]
    obs, _, _, _, info = call(
        env, "get_value_by_formula", operator="SUM", start_position="A1", end_position="ZZZ999999"
    )
    assert "error" not in info and obs == expected


def test_a_formula_chain_that_explodes_stops_at_the_step_budget():
    env = make()
    env.step_budget = 0.5
    # each cell sums the whole block below it: evaluation fans out exponentially
    for r in range(30, 0, -1):
        call(
            env,
            "update_cell_by_formula",
            result_position=f"AA{r}",
            operator="SUM",
            start_position=f"AA{r + 1}",
            end_position="AD40",
        )
        call(
            env,
            "update_cell_by_formula",
            result_position=f"AB{r}",
            operator="SUM",
            start_position=f"AA{r + 1}",
            end_position="AD40",
        )
    info = call(env, "get_all_values")[4]
    assert "budget" in info["error"], info
    env.step_budget = None


def test_catastrophic_regex_is_cut_off():
    env = make()
    call(env, "update_cell", position="A1", value="a" * 40 + "!")
    obs, _, _, _, info = call(env, "filter_cells", query="(a|aa)+$")
    assert "time limit" in info["error"]
    obs, _, _, _, info = call(env, "filter_cells", query="^a+!$")
    assert "error" not in info and "A1" in obs


_BOMBS = textwrap.dedent(
    """
    import json, resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))
    import gymnasium as gym
    import agentgym_envs
    from agentgym_envs.tools import action_text
    env = gym.make("AgentGym/Sheet-v0").unwrapped
    env.reset(seed=0, options={"split": "test", "task_id": 0})
    env.step(action_text("open_sheet", {"name": next(iter(env.backend.sheets))}))
    out = []
    for tool, args in json.loads(sys.argv[1]):
        obs, r, term, trunc, info = env.step(action_text(tool, args))
        out.append(info.get("error"))
    print(json.dumps(out))
    """
)


def test_memory_bombs_under_an_address_space_limit():
    bombs = [
        ["update_cell", {"position": "ZZZ999999", "value": "x"}],
        [
            "get_value_by_formula",
            {"operator": "SUM", "start_position": "A1", "end_position": "ZZZ999999"},
        ],
        ["insert_rows", {"values_list": [[7] * 700] * 5, "row_idx": 2}],
        ["insert_cols", {"values_list": [["y"]] * 703, "col_idx": 2}],
    ]
    done = subprocess.run(
        [sys.executable, "-c", _BOMBS, json.dumps(bombs)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    errors = json.loads(done.stdout.strip().splitlines()[-1])
    assert "exceeds the sheet's limits" in errors[0]
    assert errors[1] is None  # the sum reads the grid only
    assert errors[2] is None  # within the limits: done
    assert "exceeds the sheet's limits" in errors[3]
