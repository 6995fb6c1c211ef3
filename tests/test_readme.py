"""The README stays true: its env table is the registry's, its test command is CI's."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _env_table():
    spec = importlib.util.spec_from_file_location("env_table", ROOT / "scripts" / "env_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.table()


def test_env_table_matches_registry():
    readme = (ROOT / "README.md").read_text()
    assert _env_table() in readme, (
        "README's env table is stale: paste the output of python scripts/env_table.py"
    )


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    match = re.search(r"<!-- test-command -->\s*```(?:sh|bash)?\n(.+?)\n```", readme, re.S)
    assert match, "README lacks the marked test command block"
    command = match.group(1).strip()
    assert command in (ROOT / ".ci" / "run").read_text()
