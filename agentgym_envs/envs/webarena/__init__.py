"""WebArena: web tasks on small real sites served by the package, in a real Chromium.

The sites (``sites/``: storefront, shop admin, forum, code hosting, wiki) are FastAPI apps on
127.0.0.1 with seeded SQLite state; the env (:mod:`.env`) drives Chromium through Playwright
and speaks WebArena's observation and action formats; tasks (:mod:`.tasks`) are WebArena
configs, generated from templates or loaded from WebArena's own files for a user's
deployment, where :mod:`.login` signs in to the sites; :mod:`.evaluators` are WebArena's.
Needs ``pip install "agentgym-envs[webarena]"`` and a Chromium
(:func:`agentgym_envs.browser.chromium_path`: ``AGENTGYM_CHROMIUM``, Debian's
``chromium-headless-shell`` or ``chromium``).
"""

from agentgym_envs.errors import require

for _module in ("fastapi", "uvicorn", "playwright"):
    require(_module, "webarena")
