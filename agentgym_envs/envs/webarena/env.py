"""The WebArena env: the package's own sites in a real Chromium, WebArena's observation,
action grammar and evaluators."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, ClassVar
from urllib.parse import urlsplit

import numpy as np

from agentgym_envs.core import StepResult, TaskSource, TextEnv
from agentgym_envs.envs.webarena import actions as act
from agentgym_envs.envs.webarena import marks
from agentgym_envs.envs.webarena.axtree import Node, ShownIds, build_tree, tab_line
from agentgym_envs.envs.webarena.browser import ActionTimeout, MissingChromiumError, host
from agentgym_envs.envs.webarena.evaluators import LLMJudge, evaluate
from agentgym_envs.envs.webarena.login import Login, LoginError, LoginForm
from agentgym_envs.envs.webarena.tasks import (
    REAL_HOSTS,
    ConfigTasks,
    GeneratedTasks,
    WebArenaTask,
    resolve_config,
)

logger = logging.getLogger(__name__)

OBSERVATION_TEMPLATE = (
    "OBSERVATION:\n{tree}\nURL: {url}\nOBJECTIVE: {objective}\nPREVIOUS ACTION: {previous}"
)
RESET_TIMEOUT = 30.0  # seconds a reset may take at least (the first page of a big site)
NAV_WAIT = 0.06  # seconds to wait for a click or key press to start a navigation
#: The observation kinds: WebArena's accessibility tree, the page's HTML, set-of-marks.
OBSERVATIONS = ("axtree", "html", "som")
#: The task sets: our own templates, or WebArena's templates on the sites' data.
TASK_SETS = ("agentgym", "webarena")
BROWSER_GONE = "The browser crashed and was closed; call reset() to start the task again."


def _root_name(nodes: list[dict[str, Any]]) -> str:
    """The document title, as the AX tree's root names it."""
    return str(nodes[0].get("name", {}).get("value", "")) if nodes else ""


def _under(url: str, base: str) -> bool:
    """Whether ``url`` is ``base`` or below it (``http://h:80`` is not under ``http://h:8``)."""
    return url.startswith(base) and url[len(base) : len(base) + 1] in ("", "/", "?", "#")


def site_cookies(config: dict[str, Any], sandbox: str | None) -> list[dict[str, Any]]:
    """The cookies a browser needs for ``config`` on the package's sites: the episode's
    database copy (``sandbox``; the shared seed copy if None) and, where the task requires
    login, the signed-in test accounts of its sites."""
    from agentgym_envs.envs.webarena.sites import LOGIN_COOKIES, server
    from agentgym_envs.envs.webarena.sites.common import sign
    from agentgym_envs.envs.webarena.sites.data import (
        ADMIN_USER,
        CODE_USER,
        FORUM_USER,
        SHOP_USER,
    )

    srv = server()
    cookies = [srv.sandbox_cookie(sandbox or srv.default_sandbox)]
    if config.get("require_login"):
        users = {
            "shopping": SHOP_USER,
            "shopping_admin": ADMIN_USER,
            "reddit": FORUM_USER,
            "gitlab": CODE_USER,
        }
        for site in config.get("sites", []):
            if site in LOGIN_COOKIES:
                cookies.append(
                    {
                        "name": LOGIN_COOKIES[site],
                        "value": sign(users[site]),
                        "domain": srv.host,
                        "path": "/",
                    }
                )
    return cookies


class _Tab:
    """One page of the episode and the navigation it is waiting for."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.cdp: Any = None
        self.ids = ShownIds()
        self.nav_started = asyncio.Event()
        self.loaded = asyncio.Event()
        page.on("request", self._on_request)
        page.on("requestfailed", self._on_failed)
        page.on("load", lambda *_: self.loaded.set())

    def _on_request(self, request: Any) -> None:
        if request.is_navigation_request() and request.frame == self.page.main_frame:
            self.loaded.clear()
            self.nav_started.set()

    def _on_failed(self, request: Any) -> None:
        if request.is_navigation_request() and request.frame == self.page.main_frame:
            self.loaded.set()

    async def settle(self, timeout: float, expected: bool, scripted: bool) -> None:
        """Wait for a navigation the last input started to load. ``expected``: the input was
        a link or a form submission, so wait for the navigation to start however long it takes
        (under load it may start late). Otherwise only pages with scripts (``scripted``: a
        user's deployment; the package's sites have none) get a moment to navigate."""
        if not expected and not scripted:
            return
        try:
            await asyncio.wait_for(self.nav_started.wait(), timeout if expected else NAV_WAIT)
        except asyncio.TimeoutError:
            return
        self.nav_started.clear()
        try:
            await asyncio.wait_for(self.loaded.wait(), timeout)
        except asyncio.TimeoutError:
            logger.debug("page did not finish loading within %s s", timeout)


_NAVIGATES_JS = """function (enter) {
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el) return false;
  const a = el.closest('a[href]');
  if (a && !enter) {
    const here = location.href.split('#')[0];
    return !(a.href.split('#')[0] === here && a.hash) && !a.href.startsWith('javascript:');
  }
  const control = el.closest('button, input, textarea, select');
  if (!control || !control.form) return false;
  if (enter) return control.tagName === 'INPUT' && !['checkbox', 'radio'].includes(control.type);
  return control.tagName === 'BUTTON' ? (control.type || 'submit') === 'submit'
       : ['submit', 'image'].includes(control.type);
}"""


_TARGET_JS = (
    """function (enter) {
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el) return null;
  el.scrollIntoViewIfNeeded ? el.scrollIntoViewIfNeeded(true) : el.scrollIntoView();
  let boxes;  // the first box, as a wrapped link's centre may fall between its lines
  if (this.nodeType === 1) { boxes = this.getClientRects(); }
  else { const r = document.createRange(); r.selectNodeContents(this); boxes = r.getClientRects(); }
  const rect = Array.from(boxes).find(b => b.width > 0 && b.height > 0);
  if (!rect) return null;
  const x = rect.left + rect.width / 2, y = rect.top + rect.height / 2;
  // the click lands on whatever is at its point (a link inside a clicked article, say)
  const hit = document.elementFromPoint(x, y) || this;
  const navigates = ("""
    + _NAVIGATES_JS
    + """).call(hit, enter);
  return [x, y, navigates];
}"""
)


class WebArenaEnv(TextEnv):
    """WebArena's web tasks on small real sites the package serves itself.

    ## Description
    A storefront, its admin, a forum, a code-hosting site, a wiki and a map run on 127.0.0.1
    (FastAPI + SQLite, seeded and deterministic; the map's tasks are in the ``webarena`` task
    set, and in our own set its share of the tasks goes to the wiki); one Chromium per
    process, driven by Playwright, shows them. Each episode opens a fresh browser context on a
    fresh copy of the sites' database, so tasks that change state repeat exactly. Tasks are
    WebArena configs: information seeking (answer with ``stop [answer]``), navigation (end on
    the right page) and content changes (the change is checked on the site). A user's own
    WebArena deployment and its config files can be played instead (``config_path`` and
    ``site_urls``).

    Envs in one process (threads) share its Chromium, each in a context of its own; envs that
    reset at the same time wait for one launch. Where Debian's ``chromium-headless-shell`` is
    installed it is the browser: Chromium's old headless mode, the same Blink and the same
    transcripts as the full ``chromium`` at about half the CPU a step (``AGENTGYM_CHROMIUM``
    names another). Steps/s of the expert in one process, ``benchmarks/bench_webarena.py`` on
    2 cores shared with 3-4 other agents (load average 8-18 at 1 and 8 envs; 51-157 at 32,
    most of it the benchmark's own browsers), all three modes in the same run:

    * 1 env: 6.1 before (one launch per env, full Chromium), 4.0 full Chromium, 6.9 headless
      shell; CPU a step 139 / 145 / 86 ms (the first two run the same code with one env:
      their gap is the shared machine's).
    * 8 envs: 4.8 / 4.6 / 8.6 steps/s in all; CPU a step 261 / 191 / 89 ms.
    * 32 envs: 0.0 (32 browsers launched, not one step in 30 s) / 3.4 / 8.2; CPU a step
      297 ms (full Chromium) and 102 ms (headless shell).

    Memory beyond the shared browser, each env on its task's page: 23 MB an env at 32 envs
    with the headless shell, 72 MB with the full Chromium (AgentGym's WebArena server:
    1,717 MB for one). WebArena's own setup takes 3.4-4.7 s a step (0.2-0.3 steps/s an env).

    ## Action Space
    A model reply, read as AgentGym reads it: the first triple-backtick block holds one
    action of WebArena's grammar -- ``click [id]``, ``type [id] [text] [0|1]``, ``hover [id]``,
    ``press [key_comb]``, ``scroll [down|up]``, ``new_tab``, ``tab_focus [i]``, ``close_tab``,
    ``goto [url]``, ``go_back``, ``go_forward``, ``stop [answer]``.

    ## Observation Space
    AgentGym's WebArena text: ``OBSERVATION:`` + the tab line and the accessibility tree of
    the viewport (``[id] role 'name' props``; the ids number the browser's DOM nodes in
    document order, stable while the agent types, the same for the same steps), ``URL:`` (shown
    with AgentGym's "real" host names, e.g. ``http://onestopmarket.com``), ``OBJECTIVE:`` and
    ``PREVIOUS ACTION:``. ``observation="html"`` puts the page's HTML in place of the tree
    (interactive elements carry their ids as ``data-agentgym-id``); ``observation="som"``
    (VisualWebArena's set-of-marks) puts one ``[id] [role] [name]`` line per interactive
    element and gives the screenshot with the numbered boxes in ``info["screenshot"]``
    (``H x W x 3`` uint8). Whatever the observation, :meth:`screenshot`, :meth:`page_html`
    and :meth:`current_url` show the page, and ``render_mode="rgb_array"`` renders pixels.

    ## Starting State
    The task's start page, logged in where the task needs it. On a deployment, the browser
    starts from the Playwright storage state the config names (``storage_state``); if that
    file does not exist (or its cookies expired) and the task requires login, the env signs
    in to the task's sites with the accounts given and saves the file for later episodes.

    ## Rewards
    At ``stop`` the product of the task's evaluators (``string_match``, ``url_match``,
    ``program_html``), 1 or 0; 0 on every other step (AgentGym counts only the final reward).

    ## Episode End
    ``stop`` terminates (the reply is the page as the stop found it, as AgentGym's server
    sends it). Turn limits are wrappers (AgentGym: 25 rounds).

    ## Information
    ``task_id``, ``split``, ``success``, ``score``, ``url`` (the local URL); at reset
    ``agentgym_reset_observation`` (the tab line and tree alone, AgentGym's ``/reset`` reply);
    ``error`` when an action could not be parsed or executed (no backtick block, bad grammar,
    an id not in the observation, a blocked or unreachable URL, the time limit, a crash).
    On a deployment, reset's info has ``storage_state`` (the state file the browser started
    from) and ``signed_in`` (True when this reset signed in to produce it).

    ## Arguments
    * ``config_path`` / ``site_urls``: play WebArena's own configs on a deployment
      (:class:`~agentgym_envs.envs.webarena.tasks.ConfigTasks`).
    * ``accounts``: the deployment's accounts, WebArena's ``ACCOUNTS`` table (site ->
      ``{"username", "password"}``); default: the JSON file ``AGENTGYM_WEBARENA_ACCOUNTS``
      names. ``login_forms``: overrides of the sites' login forms
      (:data:`~agentgym_envs.envs.webarena.login.WEBARENA_FORMS`). ``auth_dir``: the folder
      relative ``storage_state`` paths are under (default: the working directory).
    * ``observation``: ``"axtree"`` (default), ``"html"`` or ``"som"``.
    * ``action_timeout``: seconds each action may take (default 10).
    * ``viewport_only``: prune the tree to the viewport as WebArena does (default True).
    * ``require_backticks``: read actions only from a triple-backtick block, as AgentGym
      (default True); False also accepts a bare action.
    * ``judge``: an :class:`~agentgym_envs.envs.webarena.evaluators.LLMJudge` for fuzzy
      matches (default: from ``AGENTGYM_WEBARENA_JUDGE_URL``, else the deterministic match).
    * ``task_set``: ``"agentgym"`` (default: our own templates, :mod:`.templates`) or
      ``"webarena"`` (WebArena's own intent templates from the installed ``libwebarena``,
      instantiated on the sites' data: :mod:`.webarena_tasks`).

    ## Version History
    * v0: initial version.
    """

    family = "webarena"
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(
        self,
        render_mode: str | None = None,
        *,
        observation: str = "axtree",
        config_path: str | None = None,
        site_urls: dict[str, str] | None = None,
        action_timeout: float = 10.0,
        viewport_only: bool = True,
        require_backticks: bool = True,
        judge: LLMJudge | None = None,
        task_set: str = "agentgym",
        tasks: TaskSource | None = None,
        accounts: dict[str, dict[str, str]] | None = None,
        login_forms: dict[str, LoginForm | dict[str, str]] | None = None,
        auth_dir: str | None = None,
    ) -> None:
        if observation not in OBSERVATIONS:
            raise ValueError(
                f"observation={observation!r} is not one of {', '.join(OBSERVATIONS)}: pass "
                "'axtree' (WebArena's tree), 'html' (the page's HTML) or 'som' (set-of-marks)"
            )
        if task_set not in TASK_SETS:
            raise ValueError(
                f"task_set={task_set!r} is not one of {', '.join(TASK_SETS)}: pass 'agentgym' "
                "(our own templates) or 'webarena' (WebArena's templates on the sites' data)"
            )
        if tasks is None and config_path:
            tasks = ConfigTasks(config_path, site_urls or {})
        elif tasks is None and task_set == "webarena":
            from agentgym_envs.envs.webarena.webarena_tasks import WebArenaTemplateTasks

            tasks = WebArenaTemplateTasks()
        elif tasks is None:
            tasks = GeneratedTasks()
        super().__init__(tasks, render_mode)
        self.observation = observation
        self._image: np.ndarray | None = None
        self._kwargs = {
            "observation": observation,
            "config_path": config_path,
            "site_urls": site_urls,
            "action_timeout": action_timeout,
            "viewport_only": viewport_only,
            "require_backticks": require_backticks,
            "judge": judge,
            "task_set": task_set,
            "accounts": accounts,
            "login_forms": login_forms,
            "auth_dir": auth_dir,
        }
        self.action_timeout = float(action_timeout)
        self.viewport_only = viewport_only
        self.require_backticks = require_backticks
        self.judge = judge if judge is not None else LLMJudge.from_env()
        self.deployment = isinstance(tasks, ConfigTasks)
        self._site_urls = dict(site_urls or {})
        self._login = (
            Login(self._site_urls, accounts, login_forms, auth_dir) if self.deployment else None
        )
        self._context: Any = None
        self._tabs: list[_Tab] = []
        self._current = 0
        self._sandbox: str | None = None
        self._nodes: dict[str, Node] = {}
        self._previous = "None"
        self._config: dict[str, Any] = {}
        self._restore: dict[str, Any] | None = None

    # -- sites ----------------------------------------------------------------------------
    def _urls(self) -> dict[str, str]:
        if self.deployment:
            return self._site_urls
        from agentgym_envs.envs.webarena.sites import server

        srv = server()
        return {site: srv.url(site) for site in srv.ports}

    def _to_shown(self, url: str) -> str:
        for site, local in sorted(self._urls().items(), key=lambda kv: -len(kv[1])):
            if site in REAL_HOSTS and _under(url, local.rstrip("/")):
                return REAL_HOSTS[site] + url[len(local.rstrip("/")) :]
        return url

    def _to_local(self, url: str) -> str:
        urls = self._urls()
        for site, real in sorted(REAL_HOSTS.items(), key=lambda kv: -len(kv[1])):
            for shown in (real, real.replace("http://", "https://", 1)):
                if site in urls and _under(url, shown):
                    return urls[site].rstrip("/") + url[len(shown) :]
        return url

    def _cookies(self, config: dict[str, Any]) -> list[dict[str, Any]]:
        if self.deployment:
            return []
        return site_cookies(config, self._sandbox)

    # -- browser plumbing -------------------------------------------------------------------
    def _run(self, make, timeout: float | None = None):
        return host().run(make, timeout or self.action_timeout)

    def _origins(self) -> list[str]:
        return [f"{urlsplit(u).scheme}://{urlsplit(u).netloc}" for u in self._urls().values()]

    async def _open_context(
        self, cookies: list[dict], urls: list[str], storage_state: Any = None
    ) -> None:
        if await self._reuse_context(cookies, storage_state):
            old, self._tabs, self._current = self._tabs, [], 0
        else:
            if self._context is not None:
                await self._close_context()
            self._context = await host().new_context(self._origins(), cookies, storage_state)
            self._context.set_default_timeout(self.action_timeout * 800)
            old, self._tabs, self._current = [], [], 0
        for url in urls:
            tab = await self._new_tab()
            await tab.page.goto(url, wait_until="load")

        for tab in old:  # after the new tab exists, so the context's renderer stays warm
            try:
                await tab.page.close()
            except Exception as exc:
                logger.debug("closing a tab: %s", exc)

    async def _reuse_context(self, cookies: list[dict], storage_state: Any) -> bool:
        """On the package's sites, keep the live context for the next episode (a new context
        costs a renderer process): its cookies are replaced and its tabs closed, so nothing of
        the last episode (sandbox, sign-ins, history) carries over. Deployments, whose
        episodes start from storage states, get a new context."""
        if self.deployment or storage_state is not None or not self._browser_alive():
            return False
        try:
            await self._context.clear_cookies()
            await self._context.add_cookies(cookies)
        except Exception as exc:
            logger.debug("reusing the context failed: %s", exc)
            return False
        return True

    async def _new_tab(self) -> _Tab:
        page = await self._context.new_page()
        tab = _Tab(page)
        self._tabs.append(tab)
        self._current = len(self._tabs) - 1
        return tab

    async def _close_context(self) -> None:
        context, self._context, self._tabs = self._context, None, []
        if context is not None:
            try:
                await context.close()
            except Exception as exc:
                logger.debug("closing context: %s", exc)

    async def _observe(self) -> str:
        tab = self._tabs[self._current]
        if tab.cdp is None:
            tab.cdp = await self._context.new_cdp_session(tab.page)
        # The tree is read on a session of its own, detached at once: a session left attached
        # keeps Chromium's accessibility on while the next page loads, which shifted that
        # page's ids by one now and then (1 load in 40 under load; 0 in 64 detached).
        if not self.deployment:
            await self._await_widgets(tab.page)
        reader = await self._context.new_cdp_session(tab.page)
        try:
            # the snapshot numbers the nodes (ShownIds) and bounds them for viewport pruning
            snapshot = await reader.send("DOMSnapshot.captureSnapshot", {"computedStyles": []})
            ax = await reader.send("Accessibility.getFullAXTree")
        finally:
            await reader.detach()
        tab.ids.update(snapshot)
        tree, self._nodes = build_tree(
            ax["nodes"], snapshot if self.viewport_only else None, ids=tab.ids
        )
        titles = [_root_name(ax["nodes"]) if t is tab else await t.page.title() for t in self._tabs]
        if self.observation == "html":
            await self._label_elements(tab)
            tree = await tab.page.content()
        elif self.observation == "som":
            self._image = marks.draw_marks(await tab.page.screenshot(), self._nodes)
            tree = marks.marks_text(self._nodes)
        return f"{tab_line(titles, self._current)}\n\n{tree}"

    async def _await_widgets(self, page: Any) -> None:
        """Wait for the sites' widgets that load after the page (``aria-busy`` until their
        data came): else what the agent sees would depend on the machine's load."""
        try:
            await page.wait_for_function(
                "() => document.readyState === 'complete' && "
                "!document.querySelector('[aria-busy=\"true\"]')",
                timeout=self.action_timeout * 800,
            )
        except Exception as exc:
            logger.debug("widgets still busy: %s", exc)

    async def _label_elements(self, tab: _Tab) -> None:
        """Give every interactive element of the observation its id as ``data-agentgym-id``
        (so actions on the HTML observation name elements as on the tree)."""
        wanted = {k: n for k, n in self._nodes.items() if n.role in marks.INTERACTIVE}
        if not wanted:
            return
        await tab.cdp.send("DOM.getDocument", {"depth": 0})
        pushed = await tab.cdp.send(
            "DOM.pushNodesByBackendIdsToFrontend",
            {"backendNodeIds": [n.backend_id for n in wanted.values()]},
        )
        for key, node_id in zip(wanted, pushed.get("nodeIds", []), strict=False):
            if node_id:
                try:
                    await tab.cdp.send(
                        "DOM.setAttributeValue",
                        {"nodeId": node_id, "name": "data-agentgym-id", "value": key},
                    )
                except Exception as exc:  # a text node or a node gone since the snapshot
                    logger.debug("labelling [%s]: %s", key, exc)

    # -- pixels ---------------------------------------------------------------------------
    def screenshot(self, marks_on: bool = False) -> np.ndarray:
        """The current tab's viewport as an ``H x W x 3`` uint8 array (1280 x 720);
        ``marks_on``: with a numbered box on each interactive element of the last
        observation (set-of-marks, the ids the actions take)."""
        if not self._tabs:
            raise RuntimeError("no page yet: call reset() first")
        png = self._run(lambda: self._tabs[self._current].page.screenshot())
        return marks.draw_marks(png, self._nodes) if marks_on else marks.decode_png(png)

    def page_html(self) -> str:
        """The current tab's HTML as the browser has it now."""
        if not self._tabs:
            raise RuntimeError("no page yet: call reset() first")
        return self._run(lambda: self._tabs[self._current].page.content())

    def render(self) -> Any:
        """``ansi``: the last observation; ``rgb_array``: the screenshot (with marks when the
        observation is ``som``)."""
        if self.render_mode == "rgb_array":
            if self.observation == "som" and self._image is not None:
                return self._image
            return self.screenshot()
        return super().render()

    def _observation(self, tree: str) -> str:
        return OBSERVATION_TEMPLATE.format(
            tree=tree,
            url=self._to_shown(self.current_url()),
            objective=self._config.get("intent", ""),
            previous=self._previous,
        )

    def current_url(self) -> str:
        """The current tab's URL (local form)."""
        return self._tabs[self._current].page.url if self._tabs else ""

    # -- TextEnv hooks --------------------------------------------------------------------
    def _begin(self, task: WebArenaTask) -> tuple[str, dict[str, Any]]:
        self._restore = None
        self._config = resolve_config(task.config, self._urls())
        self._previous = "None"
        if not self.deployment:
            from agentgym_envs.envs.webarena.sites import server

            if self._sandbox is not None:
                server().drop_sandbox(self._sandbox)
            self._sandbox = server().new_sandbox()
        starts = [u.strip() for u in self._config["start_url"].split(" |AND| ")]
        cookies = self._cookies(self._config)
        state: Any = None
        signed_in = False

        async def start() -> str:
            await self._open_context(cookies, starts, state)
            return await self._observe()

        try:
            if self._login is not None:
                state, signed_in = self._login.storage_state(self._config, self._in_context)
            tree = self._run(start, max(self.action_timeout * 2, RESET_TIMEOUT))
        except (MissingChromiumError, LoginError):
            raise
        except Exception as exc:
            logger.warning("reset failed: %s", exc)
            return "TimeoutError" if isinstance(exc, ActionTimeout) else str(exc), {
                "error": f"reset failed: {exc}"
            }
        # AgentGym's /reset replies with the page text alone (its /observation adds the rest).
        info: dict[str, Any] = {
            "url": self.current_url(),
            "agentgym_reset_observation": tree,
            **self._pixels(),
        }
        if state is not None:
            info.update(storage_state=str(state), signed_in=signed_in)
        return self._observation(tree), info

    def _in_context(self, job: Any, storage_state: Any, sites: int) -> Any:
        """Run ``job(context)`` in a context of its own that may reach the deployment
        (signing in, checking a saved sign-in); ``sites`` scales the time limit."""

        async def run() -> Any:
            context = await host().new_context(self._origins(), [], storage_state)
            context.set_default_timeout(self.action_timeout * 800)
            try:
                return await job(context)
            finally:
                await context.close()

        return self._run(run, self.action_timeout * (1 + 3 * sites))

    def _act(self, action: str) -> StepResult:
        if self._restore is not None:
            self._restore_state()
        text = act.extract(action)
        if text is None:
            if self.require_backticks:
                return StepResult(act.NO_BACKTICKS, error="no triple-backtick action block")
            text = action.strip()
        try:
            parsed = act.parse(text)
        except act.ActionParsingError as exc:
            return StepResult(str(exc), error=str(exc))
        if parsed.name == "stop":
            return self._finish(parsed)
        node = self._nodes.get(parsed.element_id) if parsed.element_id else None
        self._previous = act.describe(parsed, node.line if node else None)
        if parsed.element_id and node is None:
            error = f"element [{parsed.element_id}] is not in the observation"
        else:
            error = self._execute(parsed, node)
        try:
            tree = self._run(self._observe)
        except Exception as exc:
            if not self._browser_alive():
                return StepResult(BROWSER_GONE, error="the browser crashed")
            return StepResult(f"Failed to observe the page: {exc}", error=f"observe: {exc}")
        info = {"url": self.current_url(), **self._pixels()}
        return StepResult(self._observation(tree), error=error, info=info)

    def _pixels(self) -> dict[str, Any]:
        """``screenshot`` (the set-of-marks image) for the ``som`` observation."""
        return {"screenshot": self._image} if self.observation == "som" else {}

    def _browser_alive(self) -> bool:
        context = self._context
        try:
            return bool(context is not None and context.browser and context.browser.is_connected())
        except Exception:
            return False

    def _execute(self, action: act.Action, node: Node | None) -> str | None:
        try:
            self._run(lambda: self._perform(action, node))
        except ActionTimeout:
            try:
                self._run(self._stop_loading)
            except Exception as exc:
                logger.debug("stop loading: %s", exc)
            return f"{action.name} took longer than {self.action_timeout:g} s"
        except Exception as exc:
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return f"{action.name} failed: {message}"
        return None

    async def _perform(self, action: act.Action, node: Node | None) -> None:
        tab = self._tabs[self._current]
        page = tab.page
        settle = self.action_timeout * 0.8
        tab.nav_started.clear()
        if action.name in ("click", "hover", "type"):
            assert node is not None
            if tab.cdp is None:
                tab.cdp = await self._context.new_cdp_session(page)
            x, y, expected = await self._target(tab, node.backend_id, action.name == "type")
            if action.name == "hover":
                await page.mouse.move(x, y)
                return
            await page.mouse.click(x, y)
            if action.name == "type":
                if "\n" in action.text:
                    await page.keyboard.type(action.text)
                else:  # one input event: same result in a form, far faster than per key
                    await page.keyboard.insert_text(action.text)
                if action.enter:
                    await page.keyboard.press("Enter")
            if action.name == "click" or action.enter:
                await tab.settle(settle, expected, scripted=self.deployment)
        elif action.name == "press":
            if tab.cdp is None:
                tab.cdp = await self._context.new_cdp_session(page)
            expected = await self._will_navigate(tab, None, True)
            await page.keyboard.press(act.key_combo(action.key))
            if "Enter" in act.key_combo(action.key):
                await tab.settle(settle, expected, scripted=self.deployment)
        elif action.name == "scroll":
            sign = "-" if action.direction == "up" else "+"
            await page.evaluate(
                "document.scrollingElement.scrollTop = document.scrollingElement.scrollTop "
                f"{sign} window.innerHeight"
            )
        elif action.name == "goto":
            await self._goto(page, self._to_local(action.url))
        elif action.name == "new_tab":
            await self._new_tab()
        elif action.name == "tab_focus":
            if not 0 <= action.tab < len(self._tabs):
                raise IndexError(f"there is no tab {action.tab}")
            self._current = action.tab
            await self._tabs[action.tab].page.bring_to_front()
        elif action.name == "close_tab":
            await page.close()
            self._tabs.pop(self._current)
            if not self._tabs:
                await self._new_tab()
            self._current = len(self._tabs) - 1
            await self._tabs[self._current].page.bring_to_front()
        elif action.name == "go_back":
            await page.go_back(wait_until="load")
        elif action.name == "go_forward":
            await page.go_forward(wait_until="load")

    async def _target(self, tab: _Tab, backend_id: int, enter: bool) -> tuple[float, float, bool]:
        """Scroll the element into view; its centre in the viewport and whether activating it
        loads a page (one round trip to the page)."""
        resolved = await tab.cdp.send("DOM.resolveNode", {"backendNodeId": backend_id})
        reply = await tab.cdp.send(
            "Runtime.callFunctionOn",
            {
                "objectId": resolved["object"]["objectId"],
                "functionDeclaration": _TARGET_JS,
                "arguments": [{"value": enter}],
                "returnByValue": True,
            },
        )
        value = reply.get("result", {}).get("value")
        if not value:
            raise RuntimeError("the element has no visible box")
        return float(value[0]), float(value[1]), bool(value[2])

    async def _will_navigate(self, tab: _Tab, backend_id: int | None, enter: bool) -> bool:
        """Whether activating the element (``enter``: pressing Enter in it; ``None``: the
        focused element) loads a page: a link to another document, a submit button, or a field
        of a form that Enter submits."""
        try:
            if backend_id is None:
                target = await tab.cdp.send(
                    "Runtime.evaluate", {"expression": "document.activeElement"}
                )
            else:
                target = await tab.cdp.send("DOM.resolveNode", {"backendNodeId": backend_id})
            object_id = (target.get("object") or target.get("result") or {}).get("objectId")
            if not object_id:
                return False
            reply = await tab.cdp.send(
                "Runtime.callFunctionOn",
                {
                    "objectId": object_id,
                    "functionDeclaration": _NAVIGATES_JS,
                    "arguments": [{"value": enter}],
                    "returnByValue": True,
                },
            )
            return bool(reply.get("result", {}).get("value"))
        except Exception as exc:
            logger.debug("navigation check failed: %s", exc)
            return False

    async def _goto(self, page: Any, url: str) -> None:
        parts = urlsplit(url)
        allowed = {urlsplit(u).netloc for u in self._urls().values()}
        if parts.scheme not in ("http", "https") or parts.netloc not in allowed:
            raise RuntimeError(f"Failed to load the page: {url}")
        try:
            await page.goto(url, wait_until="load")
        except Exception:
            await self._stop_loading()
            raise

    async def _stop_loading(self) -> None:
        """Abandon a navigation that failed or hangs, so the page can still be observed."""
        tab = self._tabs[self._current]
        if tab.cdp is None:
            tab.cdp = await self._context.new_cdp_session(tab.page)
        await tab.cdp.send("Page.stopLoading")

    def _finish(self, action: act.Action) -> StepResult:
        # AgentGym's server builds the reply from the page as the stop found it, then
        # evaluates (evaluators may navigate away).
        self._previous = act.describe(action, None)
        try:
            obs = self._observation(self._run(self._observe))
        except Exception as exc:
            obs = f"Failed to observe the page: {exc}"
        try:
            score = evaluate(
                self._config, action.answer, _EvalBrowser(self), self._helpers(), self.judge
            )
        except Exception as exc:
            logger.warning("evaluation failed: %s", exc)
            self.score, self.success = 0.0, False
            return StepResult(obs, 0.0, True, error=f"evaluation failed: {exc}")
        self.score, self.success = float(score), score >= 1.0
        return StepResult(obs, float(score), True, info={"url": self.current_url()})

    def _helpers(self) -> dict[str, Any]:
        from agentgym_envs.envs.webarena import helpers

        if self.deployment:
            return helpers.deployment_helpers(_EvalBrowser(self), self._urls())
        from agentgym_envs.envs.webarena.sites import server

        return helpers.local_helpers(server().sandbox_path(self._sandbox), self._urls())

    # -- LLM wrappers ---------------------------------------------------------------------
    def instructions(self) -> str:
        return (
            "You are an autonomous agent browsing the web to complete a task. Each turn you see "
            "the objective, the current page as an accessibility tree (one element per line: "
            "[id] role 'name'), its URL, the open tabs and your previous action. Answer with "
            "your reasoning, then exactly one action inside triple backticks, e.g. "
            "```click [12]```. Actions:\n"
            "click [id] / hover [id] -- click or hover an element\n"
            "type [id] [text] [0|1] -- type into a field; 1 (default) presses Enter after\n"
            "press [key_comb] -- press keys, e.g. press [Meta+a]\n"
            "scroll [down|up] -- show the rest of the page\n"
            "new_tab / tab_focus [index] / close_tab -- manage tabs\n"
            "goto [url] / go_back / go_forward -- navigate\n"
            "stop [answer] -- finish; put the answer in the brackets (N/A if impossible).\n"
            "The sites are listed at http://homepage.com."
        )

    def action_from_tool_call(self, name: str, arguments: dict[str, Any]) -> str:
        return f"```{super().action_from_tool_call(name, arguments)}```"

    # -- the random baseline --------------------------------------------------------------
    def random_action(self, rng: np.random.Generator) -> str:
        """A well-formed action: a click, scroll or typing on the page, or a guessed stop."""
        ids = sorted(self._nodes)
        roll = rng.random()
        if roll < 0.25:
            body = f"stop [{int(rng.integers(0, 10))}]"
        elif roll < 0.35 or not ids:
            body = "scroll [down]"
        elif roll < 0.5:
            body = f"type [{ids[int(rng.integers(len(ids)))]}] [test] [1]"
        else:
            body = f"click [{ids[int(rng.integers(len(ids)))]}]"
        return f"In summary, the next action I will perform is ```{body}```"

    # -- pickling -------------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("_context", "_tabs", "_image")}
        if self._tabs:
            cookies = self._run(lambda: self._context.cookies())
            db = None
            if self._sandbox is not None:
                from agentgym_envs.envs.webarena.sites import server

                db = server().sandbox_path(self._sandbox).read_bytes()
            state["_restore"] = {
                "urls": [t.page.url for t in self._tabs],
                "current": self._current,
                "cookies": cookies,
                "db": db,
            }
        state["_sandbox"], state["_nodes"] = None, {}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._context, self._tabs, self._image = None, [], None

    def _restore_state(self) -> None:
        snap, self._restore = self._restore, None
        assert snap is not None
        if snap["db"] is not None:
            from agentgym_envs.envs.webarena.sites import server

            self._sandbox = server().new_sandbox(snap["db"])
            for cookie in snap["cookies"]:
                if cookie["name"] == "agentgym_sandbox":
                    cookie["value"] = self._sandbox

        async def reopen() -> None:
            await self._open_context(snap["cookies"], snap["urls"])
            self._current = snap["current"]
            await self._observe()

        self._run(reopen, self.action_timeout * 2)

    def close(self) -> None:
        if self._context is not None:
            try:
                self._run(self._close_context)
            except Exception as exc:
                logger.debug("close: %s", exc)
        if self._sandbox is not None and not self.deployment:
            from agentgym_envs.envs.webarena.sites import server

            server().drop_sandbox(self._sandbox)
            self._sandbox = None
        super().close()


class _EvalBrowser:
    """The evaluators' view of the episode's current tab."""

    def __init__(self, env: WebArenaEnv) -> None:
        self.env = env

    def current_url(self) -> str:
        return self.env.current_url()

    def _page(self):
        return self.env._tabs[self.env._current].page

    def goto(self, url: str) -> None:
        self.env._run(lambda: self._page().goto(url, wait_until="load"))

    def content(self) -> str:
        return self.env._run(lambda: self._page().content())

    def evaluate(self, expression: str) -> Any:
        return self.env._run(lambda: self._page().evaluate(expression))

    def fetch(self, url: str) -> tuple[str, str]:
        """GET ``url`` with the episode's cookies, off the page; the final URL (after
        redirects) and the body."""

        async def get() -> tuple[str, str]:
            reply = await self.env._context.request.get(url)
            return reply.url, await reply.text()

        return self.env._run(get)
