"""The agent-server pages' code runs as the docs test runs it: ```python blocks by default (in
order, one namespace per page), shell blocks only after ``<!-- docs-test: run -->``, nothing
after ``<!-- docs-test: skip (...) -->``."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

PAGES = sorted((Path(__file__).parents[2] / "docs" / "agent-server").glob("*.md"))
BLOCK = re.compile(r"(?:(<!-- docs-test: [^>]*-->)\n)?```(\w+)\n(.*?)\n```", re.DOTALL)


def blocks(page: Path) -> list[tuple[str, str]]:
    out = []
    for marker, lang, code in BLOCK.findall(page.read_text(encoding="utf-8")):
        if marker.startswith("<!-- docs-test: skip"):
            continue
        if lang == "python" or (lang in ("bash", "sh") and marker == "<!-- docs-test: run -->"):
            out.append((lang, code))
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_the_page_code_runs(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    ran = blocks(page)
    assert ran, f"{page.name} has no runnable example"
    for lang, code in ran:
        if lang == "python":
            exec(compile(code, page.name, "exec"), namespace)
        else:
            env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
            done = subprocess.run(code, shell=True, cwd=tmp_path, env=env, timeout=600)
            assert done.returncode == 0, code
