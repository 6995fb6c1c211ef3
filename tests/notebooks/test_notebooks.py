"""The example notebooks: stored without outputs, and each runs top to bottom in a fresh kernel.

Every notebook asserts what it shows (the expert solves its tasks, the server's replies match
the local env, replays reach their recorded reward), so a behaviour change fails here.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

nbformat = pytest.importorskip(
    "nbformat", reason='needs the docs extra: pip install "agentgym-envs[docs]"'
)
nbclient = pytest.importorskip(
    "nbclient", reason='needs the docs extra: pip install "agentgym-envs[docs]"'
)

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "examples" / "notebooks").glob("*.ipynb"))
#: Seconds a cell may run (the longest starts the local model and plays it).
CELL_TIMEOUT = 240


def test_there_are_the_five_notebooks():
    names = [p.stem for p in NOTEBOOKS]
    for topic in ("quickstart", "bench", "agenttraj", "curriculum", "server"):
        assert any(topic in n for n in names), f"no notebook about {topic}: {names}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stored_without_outputs(path):
    book = nbformat.read(path, as_version=4)
    nbformat.validate(book)
    for cell in book.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{path.name}: a cell has outputs (strip them)"
            assert cell.execution_count is None, f"{path.name}: a cell has an execution count"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_top_to_bottom(path, tmp_path, monkeypatch):
    # the notebooks write their files under tempfile's folder: keep them in this test's
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    book = nbformat.read(path, as_version=4)
    missing = [
        m for m in book.metadata["agentgym"]["requires"] if importlib.util.find_spec(m) is None
    ]
    if missing:
        pytest.skip(f"{path.name} needs {', '.join(missing)}: pip install -e '.[all,docs]'")
    client = nbclient.NotebookClient(
        book,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()  # raises CellExecutionError naming the cell that failed
    errors = [
        o
        for cell in book.cells
        if cell.cell_type == "code"
        for o in cell.outputs
        if o.get("output_type") == "error"
    ]
    assert not errors
    assert all(c.execution_count for c in book.cells if c.cell_type == "code")
