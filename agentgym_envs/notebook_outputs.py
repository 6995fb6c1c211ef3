"""What the example notebooks print and draw, kept beside them for the documentation site.

The notebooks are stored without outputs (their tests run them). :func:`record` runs one in a
fresh kernel and writes what each code cell showed (text, tables as text, PNG figures) to
``examples/notebooks/outputs/<name>.json``, keyed by a hash of the cell's source; the site's
notebook pages show a cell's output under it only while that source is unchanged, so a page
never shows the output of code it no longer has. ``python scripts/notebook_outputs.py``
records them all.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path
from typing import Any

#: The folder, next to the notebooks, that holds their recorded outputs.
OUTPUTS = "outputs"
#: Longest text output shown on a page (the rest is cut with a note).
MAX_TEXT = 4000


def source_key(source: str) -> str:
    """The key of a code cell's recorded output: a hash of its source."""
    return hashlib.sha256(source.strip("\n").encode("utf-8")).hexdigest()[:16]


def _shown(output: dict[str, Any]) -> dict[str, str] | None:
    kind = output.get("output_type")
    if kind == "stream":
        return {"text": "".join(output.get("text", ""))}
    if kind in ("execute_result", "display_data"):
        data = output.get("data", {})
        if "image/png" in data:
            return {"png": "".join(data["image/png"]).replace("\n", "")}
        if "text/plain" in data:
            return {"text": "".join(data["text/plain"])}
    return None  # errors and other kinds are not shown


def record(path: str | Path, timeout: int = 600) -> Path:
    """Run the notebook at ``path`` top to bottom (its folder's ``outputs/`` receives the
    result, written only when every cell ran) and return the file written."""
    import tempfile

    import nbclient
    import nbformat

    path = Path(path)
    book = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory() as work:
        nbclient.NotebookClient(
            book, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": work}}
        ).execute()
    cells = {}
    for cell in book.cells:
        if cell.cell_type != "code":
            continue
        shown = [s for s in map(_shown, cell.outputs) if s]
        if shown:
            cells[source_key(cell.source)] = shown
    target = path.parent / OUTPUTS / f"{path.stem}.json"
    target.parent.mkdir(exist_ok=True)
    target.write_text(json.dumps({"cells": cells}, indent=1) + "\n", encoding="utf-8")
    return target


def recorded(path: str | Path) -> dict[str, list[dict[str, str]]]:
    """The recorded outputs of the notebook at ``path`` by :func:`source_key` (``{}`` when none
    were recorded)."""
    path = Path(path)
    target = path.parent / OUTPUTS / f"{path.stem}.json"
    if not target.is_file():
        return {}
    return json.loads(target.read_text(encoding="utf-8")).get("cells", {})


def _output_fence(text: str) -> str:
    """Printed text as a block the stylesheet leaves unwrapped (tables keep their columns)."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}text {{.notebook-output}}\n{text}\n{ticks}"


def as_markdown(shown: list[dict[str, str]], fence: Any = _output_fence) -> str:
    """A cell's recorded outputs as Markdown: text in a ``text`` block, figures as images."""
    parts, text = [], ""
    for item in shown:
        if "text" in item:
            text += item["text"]
            continue
        if text:
            parts.append(fence(_cut(text)))
            text = ""
        data = base64.b64decode(item["png"])  # checked: a broken record fails the build here
        parts.append(f"![output](data:image/png;base64,{base64.b64encode(data).decode()})")
    if text:
        parts.append(fence(_cut(text)))
    return "\n\n".join(parts)


def _cut(text: str) -> str:
    text = text.rstrip()
    if len(text) <= MAX_TEXT:
        return text
    return text[:MAX_TEXT].rstrip() + f"\n... ({len(text) - MAX_TEXT} more characters)"


__all__ = ["OUTPUTS", "as_markdown", "record", "recorded", "source_key"]
