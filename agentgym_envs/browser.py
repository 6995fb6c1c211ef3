"""Which Chromium to run: one finder for every caller (WebArena, WebShop's browser mode, the
doctor, the field runner's pre-flight, the docs tests).

:func:`chromium_path` prefers ``$AGENTGYM_CHROMIUM``, then Debian's headless shell (package
``chromium-headless-shell``: Chromium's old headless mode, the same Blink without the full
browser's window machinery, about 2.5 times cheaper per WebArena step), then a full Chromium.
"""

from __future__ import annotations

import os
import shutil

#: Names the Chromium executable to use (checked first).
CHROMIUM_ENV = "AGENTGYM_CHROMIUM"
#: Debian's Chromium builds, lightest first.
SYSTEM_CHROMIUMS = ("/usr/lib/chromium/chromium-headless-shell", "/usr/bin/chromium")
#: Executables looked up on ``PATH`` after those.
PATH_NAMES = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome")
#: Flags for a headless Chromium here: no sandbox (root in a container), no GPU, no calls home.
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
)
#: What installs one (said by every "Chromium is missing" message).
INSTALL_HINT = (
    "apt-get install -y chromium-headless-shell (or chromium), or set AGENTGYM_CHROMIUM "
    "to a Chromium executable"
)


def chromium_path(headless_shell: bool = True) -> str | None:
    """A Chromium executable: ``$AGENTGYM_CHROMIUM``, else Debian's headless shell (unless
    ``headless_shell`` is false: a page that needs the full browser), else Debian's Chromium,
    else one on ``PATH``; ``None`` when there is none (Playwright then tries its own)."""
    explicit = os.environ.get(CHROMIUM_ENV)
    if explicit and os.path.isfile(explicit) and os.access(explicit, os.X_OK):
        return explicit
    fixed = SYSTEM_CHROMIUMS if headless_shell else SYSTEM_CHROMIUMS[1:]
    names = PATH_NAMES if headless_shell else PATH_NAMES[1:]
    for candidate in fixed:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


__all__ = ["CHROMIUM_ARGS", "CHROMIUM_ENV", "INSTALL_HINT", "SYSTEM_CHROMIUMS", "chromium_path"]
