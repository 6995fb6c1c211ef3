"""The WebArena tasks as BrowserGym tasks (``browsergym-core``'s task API), so BrowserGym and
AgentLab agents play them unchanged.

Importing this module registers, for each task set and split, one gym id per task::

    browsergym/agentgym.webarena.test.0      # task set "webarena" (WebArena's templates)
    browsergym/agentgym.agentgym.test.0      # task set "agentgym" (our own templates)

(``train`` ids too), each a :class:`browsergym.core.env.BrowserEnv` over
:class:`AgentGymWebArenaTask`. The task serves the package's sites on 127.0.0.1, gives the
episode its own copy of their database and signs in where the task needs it; the goal is the
task's intent. As in BrowserGym's WebArena tasks, the agent answers with
``send_msg_to_user(answer)`` (the last such message is WebArena's ``stop [answer]``) or
``report_infeasible(reason)`` (the answer "N/A"); that ends the episode with the task's
evaluators' score. Unlike BrowserGym's WebArena, steps without an answer are not evaluated
(a ``program_html`` check navigates the page; here it runs once, at the end).

BrowserGym launches Playwright's own Chromium (its chat window has no launch options); where
Playwright's browsers are not installed, the task makes Playwright's Chromium launches that
name no executable use the system's (:func:`agentgym_envs.browser.chromium_path`).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from agentgym_envs.spec import ENV_INFO

logger = logging.getLogger(__name__)

#: Registered task sets -> the package's gym id that plays them (for the split sizes).
TASK_SETS = {"webarena": "AgentGym/WebArenaTemplates-v0", "agentgym": "AgentGym/WebArena-v0"}

try:
    import playwright.sync_api
    from browsergym.core.registration import register_task
    from browsergym.core.task import AbstractBrowserTask
except ImportError as exc:  # pragma: no cover - the extra is missing
    raise ImportError(
        'BrowserGym tasks need browsergym-core: pip install "agentgym-envs[browsergym]"'
    ) from exc


def task_config(task_set: str, split: str, task_id: int) -> dict[str, Any]:
    """The task's WebArena config (placeholders unresolved)."""
    if task_set == "webarena":
        from agentgym_envs.envs.webarena.webarena_tasks import webarena_configs

        train, test = webarena_configs()
    elif task_set == "agentgym":
        from agentgym_envs.envs.webarena.tasks import generated_configs

        train, test = generated_configs()
    else:
        raise ValueError(f"task_set={task_set!r}: use {' or '.join(TASK_SETS)}")
    configs = test if split == "test" else train
    if not 0 <= task_id < len(configs):
        raise ValueError(
            f"task_id={task_id} is not in the {split} split: use 0..{len(configs) - 1}"
        )
    return configs[task_id]


def use_system_chromium() -> None:
    """Where Playwright's own Chromium is not installed, make its sync Chromium launches that
    name no executable use the system's (idempotent)."""
    from agentgym_envs.browser import chromium_path

    cls = playwright.sync_api.BrowserType
    if getattr(cls.launch, "_agentgym", False):
        return
    system = chromium_path()
    if system is None:
        return
    original = cls.launch

    def launch(self, *args: Any, **kwargs: Any):
        if self.name == "chromium" and not kwargs.get("executable_path"):
            bundled = Path(self.executable_path)
            if not bundled.exists():
                kwargs["executable_path"] = system
        return original(self, *args, **kwargs)

    launch._agentgym = True  # type: ignore[attr-defined]
    cls.launch = launch  # type: ignore[method-assign]


class _PageBrowser:
    """What the evaluators need (:class:`~.evaluators.Browser`) over a sync Playwright page."""

    def __init__(self, page: playwright.sync_api.Page) -> None:
        self.page = page

    def current_url(self) -> str:
        return self.page.url

    def goto(self, url: str) -> None:
        self.page.goto(url, wait_until="load")

    def content(self) -> str:
        return self.page.content()

    def evaluate(self, expression: str) -> Any:
        return self.page.evaluate(expression)


class AgentGymWebArenaTask(AbstractBrowserTask):
    """One WebArena task of the package's sites as a BrowserGym task.

    Args:
        seed: BrowserGym's seed (the task is deterministic; unused).
        task_set: ``"webarena"`` or ``"agentgym"``.
        split: ``"test"`` or ``"train"``.
        task_id: the task's index in the split.
    """

    def __init__(
        self, seed: int, task_set: str = "webarena", split: str = "test", task_id: int = 0
    ):
        super().__init__(seed)
        use_system_chromium()
        self.task_set, self.split, self.task_id = task_set, split, int(task_id)
        self.viewport = {"width": 1280, "height": 720}
        self.slow_mo = 0
        self.timeout = 10000
        self._sandbox: str | None = None
        self.config: dict[str, Any] = {}

    @classmethod
    def get_task_id(cls) -> str:
        raise NotImplementedError("one class serves every task: the gym id names the task")

    def setup(self, page: playwright.sync_api.Page) -> tuple[str, dict]:
        from agentgym_envs.envs.webarena.env import site_cookies
        from agentgym_envs.envs.webarena.sites import server
        from agentgym_envs.envs.webarena.tasks import resolve_config

        srv = server()
        self._urls = {site: srv.url(site) for site in srv.ports}
        self.config = resolve_config(
            task_config(self.task_set, self.split, self.task_id), self._urls
        )
        self._sandbox = srv.new_sandbox()
        page.context.add_cookies(site_cookies(self.config, self._sandbox))
        page.goto(self.config["start_url"].split(" |AND| ")[0], wait_until="load")
        info = {
            "task_set": self.task_set,
            "split": self.split,
            "task_id": self.task_id,
            "intent_template_id": self.config.get("intent_template_id"),
        }
        return self.config["intent"], info

    def validate(
        self, page: playwright.sync_api.Page, chat_messages: list[dict]
    ) -> tuple[float, bool, str, dict]:
        from agentgym_envs.envs.webarena import helpers
        from agentgym_envs.envs.webarena.evaluators import LLMJudge, evaluate
        from agentgym_envs.envs.webarena.sites import server

        last = chat_messages[-1] if chat_messages else {}
        if last.get("role") == "assistant":
            answer = str(last.get("message", ""))
        elif last.get("role") == "infeasible":
            answer = "N/A"
        else:
            return 0.0, False, "", {}
        local = helpers.local_helpers(server().sandbox_path(self._sandbox), self._urls)
        score = evaluate(self.config, answer, _PageBrowser(page), local, LLMJudge.from_env())
        return float(score), True, "", {"success": score == 1.0, "answer": answer}

    def teardown(self) -> None:
        if self._sandbox is not None:
            from agentgym_envs.envs.webarena.sites import server

            server().drop_sandbox(self._sandbox)
            self._sandbox = None


def gym_id(task_set: str, split: str, task_id: int) -> str:
    """The BrowserGym id of a task (without the ``browsergym/`` namespace)."""
    return f"agentgym.{task_set}.{split}.{task_id}"


def close_playwright() -> None:
    """Stop the Playwright BrowserGym keeps for the whole process (``browsergym.core`` starts
    one sync Playwright on first use and never stops it). While it runs, its event loop counts
    as running in this thread, so ``asyncio.run()`` and other sync Playwright users here fail
    ("cannot be called from a running event loop"): call this once BrowserGym's envs are
    closed. Idempotent; BrowserGym starts a fresh one when it is next needed."""
    import browsergym.core as core

    playwright, core._PLAYWRIGHT = core._PLAYWRIGHT, None
    if playwright is not None:
        playwright.stop()


def register() -> list[str]:
    """Register every task of both task sets (sizes from the registry: no data is built);
    returns the ids (``browsergym/...``). Called on import; idempotent."""
    import gymnasium as gym

    ids = []
    for task_set, env_id in TASK_SETS.items():
        for split, size in ENV_INFO[env_id].splits.items():
            for task_id in range(size):
                name = gym_id(task_set, split, task_id)
                ids.append(f"browsergym/{name}")
                if ids[-1] in gym.registry:
                    continue
                register_task(
                    name,
                    AgentGymWebArenaTask,
                    task_kwargs={"task_set": task_set, "split": split, "task_id": task_id},
                )
    return ids


ALL_TASK_IDS = register()
