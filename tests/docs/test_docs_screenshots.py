"""Screenshots in the docs: small committed files the pages use, made by the script from a real
``agentgym dashboard`` in Chromium."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: Largest committed screenshot (palette PNGs of flat UI are a few tens of KB).
MAX_BYTES = 150_000


def _images() -> dict[Path, list[Path]]:
    used: dict[Path, list[Path]] = {}
    for page in DOCS.rglob("*.md"):
        for target in re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", page.read_text("utf-8")):
            used.setdefault((page.parent / target).resolve(), []).append(page)
    return used


def test_the_dashboard_guide_shows_screenshots_that_exist_and_are_small():
    used = _images()
    guide = DOCS / "guides" / "experience.md"
    shown = [image for image, pages in used.items() if guide in pages]
    assert len(shown) >= 2
    for image in used:
        assert image.is_file(), f"{image} is shown but missing"
        assert image.stat().st_size < MAX_BYTES, f"{image.name} is too big: shrink it"


def test_the_script_shoots_a_real_dashboard(tmp_path):
    pytest.importorskip(
        "playwright", reason='needs playwright: pip install "agentgym-envs[webshop]"'
    )
    pytest.importorskip(
        "fastapi", reason='needs the experience extra: pip install "agentgym-envs[experience]"'
    )
    from agentgym_envs.browser import chromium_path

    if chromium_path(headless_shell=False) is None:
        pytest.skip("needs Chromium: apt-get install chromium")
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "docs_screenshots.py"),
            "--only",
            "dashboard",
            "--assets",
            str(tmp_path),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    from PIL import Image

    for name in ("dashboard-home", "dashboard-episode"):
        image = Image.open(tmp_path / f"{name}.png")
        assert image.size == (1400, 860)
        assert len(image.getcolors(256) or []) > 8  # a page was drawn, not a blank
        assert (tmp_path / f"{name}.png").stat().st_size < MAX_BYTES
