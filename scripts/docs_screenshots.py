"""Screenshots of the real documentation site and of a real ``agentgym dashboard``, in Chromium.

    python scripts/docs_screenshots.py                    # build the site, shoot everything
    python scripts/docs_screenshots.py --site site        # an already built site
    python scripts/docs_screenshots.py --only dashboard   # only the dashboard (docs/assets/)

Site pages (the home page, one family page, the agent-server index where it exists, the
dashboard guide) are written to ``--out`` (default ``site-screenshots/``, not committed) so a
person can check they look right. The dashboard screenshots the experience guide shows are
written to ``docs/assets/`` (``--assets``): a store is filled with two benchmark runs of two
agent versions and a piece of feedback, ``agentgym dashboard`` serves it on a free loopback
port, and Chromium (``/usr/bin/chromium``) takes the pictures, saved as small palette PNGs.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Wide enough for Material to show both sidebars (from 1220 px).
VIEWPORT = {"width": 1400, "height": 860}
#: Site pages to shoot: (file name, path in the site); a page the site lacks is skipped.
SITE_PAGES = [
    ("home", "index.html"),
    ("family-maze", "families/maze.html"),
    ("agent-server-index", "agent-server/index.html"),
    ("dashboard-guide", "guides/experience.html"),
]
log = logging.getLogger("docs_screenshots")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(command: list[str], port: int, cwd: Path):
    """Run ``command`` until the block ends; wait until it accepts connections on ``port``."""
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 2):
                break
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{' '.join(command)} did not start: {process.stderr.read()}")
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)


def save_small_png(png: bytes, path: Path, colors: int = 128) -> None:
    """Write ``png`` as a palette PNG (a screenshot of flat UI shrinks several times)."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    image.quantize(colors=colors, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


def shoot(urls: dict[str, str], folder: Path, full_page: bool = False) -> list[Path]:
    """Open each URL in Chromium and save ``folder/<name>.png``."""
    from playwright.sync_api import sync_playwright

    from agentgym_envs.browser import CHROMIUM_ARGS, chromium_path

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    with sync_playwright() as p:
        chromium = chromium_path(headless_shell=False)
        browser = p.chromium.launch(executable_path=chromium, args=list(CHROMIUM_ARGS))
        try:
            page = browser.new_page(viewport=VIEWPORT)
            for name, url in urls.items():
                page.goto(url, wait_until="networkidle")
                path = folder / f"{name}.png"
                save_small_png(page.screenshot(full_page=full_page), path)
                written.append(path)
                log.info("%s -> %s", url, path)
        finally:
            browser.close()
    return written


def fill_store(work: Path) -> Path:
    """A store with two agent versions' runs on Maze and Wordle, and one piece of feedback."""
    from agentgym_envs.benchmarks import expert_spec, random_spec, run_benchmark
    from agentgym_envs.experience import (
        add_feedback,
        import_path,
        open_store,
        register_version,
        select_episodes,
    )

    db = work / "experience.db"
    store = open_store(db)
    register_version(store, "agent", "1", model="scripted expert")
    register_version(store, "agent", "2", model="random moves", parent="agent@1")
    for version, spec in (("1", expert_spec()), ("2", random_spec())):
        out = work / "runs" / f"agent-{version}"
        run_benchmark("Maze-v0,Wordle-v0", spec, out=out, limit=6, resume=True)
        import_path(store, out, version=f"agent@{version}")
    episode = select_episodes(store, versions=["agent@1"], envs=["Maze-v0"])[0]
    add_feedback(store, episode, step_index=0, label="bad", comment="a detour", author="docs")
    return db


def dashboard_screenshots(assets: Path) -> list[Path]:
    """``docs/assets/dashboard-home.png`` and ``dashboard-episode.png`` from a real dashboard."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        db = fill_store(work)
        port = free_port()
        command = [sys.executable, "-m", "agentgym_envs.cli", "dashboard", "--db", str(db)]
        with serving([*command, "--port", str(port)], port, work) as url:
            return shoot(
                {"dashboard-home": url + "/", "dashboard-episode": url + "/episodes/1"}, assets
            )


def site_screenshots(site: Path, out: Path) -> list[Path]:
    """The home page, a family page, the agent-server index and the dashboard guide."""
    present = {n: path for n, path in SITE_PAGES if (site / path).is_file()}
    for name, path in SITE_PAGES:
        if name not in present:
            log.warning("the site has no %s page (%s): skipped", name, path)
    port = free_port()
    command = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"]
    with serving(command, port, site) as url:
        return shoot({n: f"{url}/{path}" for n, path in present.items()}, out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="A built site (default: build one).")
    parser.add_argument("--out", type=Path, default=Path("site-screenshots"))
    parser.add_argument("--assets", type=Path, default=ROOT / "docs" / "assets")
    parser.add_argument("--only", choices=["site", "dashboard"], help="One kind of screenshot.")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    written = []
    if args.only != "site":
        written += dashboard_screenshots(args.assets)
    if args.only != "dashboard":
        site = args.site
        if site is None:
            from agentgym_envs.docs import build_site

            site = build_site(Path(tempfile.mkdtemp()) / "site", ROOT / "mkdocs.yml")
        written += site_screenshots(site, args.out)
    for path in written:
        print(f"{path} ({path.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
