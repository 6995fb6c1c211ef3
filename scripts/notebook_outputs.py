"""Run the example notebooks and keep what they print and draw for the documentation site.

    python scripts/notebook_outputs.py                 # every notebook
    python scripts/notebook_outputs.py 01_quickstart   # the ones named

Writes ``examples/notebooks/outputs/<name>.json`` (see :mod:`agentgym_envs.notebook_outputs`);
run it after changing a notebook (``tests/notebooks`` says when a page would lose an output).
"""

from __future__ import annotations

import argparse
import logging
import time
from pathlib import Path

from agentgym_envs.notebook_outputs import record

FOLDER = Path(__file__).resolve().parents[1] / "examples" / "notebooks"


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="Notebook names (default: all).")
    args = parser.parse_args()
    books = sorted(FOLDER.glob("*.ipynb"))
    if args.names:
        books = [b for b in books if b.stem in args.names or b.name in args.names]
    for book in books:
        start = time.perf_counter()
        target = record(book)
        logging.info("%s -> %s (%.0f s)", book.name, target, time.perf_counter() - start)


if __name__ == "__main__":
    main()
