"""One Chromium per process, driven by Playwright's async API on a background event loop.

Every browser operation is a coroutine submitted to that loop with a time limit
(:meth:`BrowserHost.run`): a call that exceeds it is cancelled and reported as
:class:`ActionTimeout`, so a hanging page never hangs the caller. The loop thread belongs to
the process (any thread may submit work). Chromium is started on first use, restarted when it
has crashed, and closed at interpreter exit.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import logging
import os
import threading
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar
from urllib.parse import urlsplit

from agentgym_envs.browser import CHROMIUM_ARGS, INSTALL_HINT, chromium_path

logger = logging.getLogger(__name__)

T = TypeVar("T")

VIEWPORT = {"width": 1280, "height": 720}
#: The observation shows the browser's node ids (axtree.py), which Chromium hands out as it first
#: touches a node. Its navigation predictor touches the links in view on a timer while a page
#: loads, which would make the ids differ from run to run; with it off, the same page reached by
#: the same steps gets the same ids.
WEBARENA_ARGS = ("--disable-features=NavigationPredictor",)


class MissingChromiumError(RuntimeError):
    """No Chromium executable was found (the message says how to install one)."""


class ActionTimeout(Exception):
    """A browser operation ran past its time limit and was cancelled."""


class BrowserHost:
    """The process's Chromium and the event loop that drives it (use :func:`host`)."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._playwright: Any = None
        self._browser: Any = None
        self._launching: asyncio.Lock | None = None  # one launch at a time, on the loop
        self._lock = threading.Lock()
        self.launches = 0

    # -- the loop -----------------------------------------------------------------------
    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=loop.run_forever, name="agentgym-webarena-browser", daemon=True
                )
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def run(self, make: Callable[[], Awaitable[T]], timeout: float) -> T:
        """Run the coroutine ``make()`` on the browser loop; cancel it after ``timeout`` s."""
        loop = self._ensure_loop()
        if threading.current_thread() is self._thread:
            raise RuntimeError("BrowserHost.run called from the browser loop itself")

        async def limited() -> T:
            return await asyncio.wait_for(make(), timeout)

        future = asyncio.run_coroutine_threadsafe(limited(), loop)
        try:
            return future.result(timeout + 5.0)
        except (asyncio.TimeoutError, concurrent.futures.TimeoutError) as exc:
            future.cancel()
            raise ActionTimeout(f"timed out after {timeout:g} s") from exc

    # -- the browser --------------------------------------------------------------------
    async def browser(self) -> Any:
        """The live Chromium, launched (or relaunched after a crash) on demand. Envs that
        reset at the same time share one launch: they wait for it instead of each starting a
        browser of its own."""
        if self._browser is not None and self._browser.is_connected():
            return self._browser
        if self._launching is None:
            self._launching = asyncio.Lock()
        async with self._launching:
            if self._browser is not None and self._browser.is_connected():
                return self._browser  # launched while this call waited
            return await self._launch()

    async def _launch(self) -> Any:
        from agentgym_envs.errors import require

        require("playwright", "webarena")
        from playwright.async_api import async_playwright

        if self._playwright is None:
            self._playwright = await async_playwright().start()
        if self._browser is not None:
            logger.warning("Chromium disconnected; starting a new one")
        try:
            self._browser = await self._playwright.chromium.launch(
                executable_path=chromium_path(),
                args=[*CHROMIUM_ARGS, *WEBARENA_ARGS],
                headless=True,
            )
        except Exception as exc:
            if "xecutable doesn't exist" in str(exc):
                raise MissingChromiumError(f"WebArena needs Chromium: {INSTALL_HINT}") from exc
            raise
        self.launches += 1
        return self._browser

    async def new_context(
        self,
        allowed_origins: Iterable[str],
        cookies: list[dict],
        storage_state: str | os.PathLike[str] | None = None,
    ) -> Any:
        """A fresh browser context that can reach only ``allowed_origins`` (``http://h:p``),
        started from a Playwright ``storage_state`` file where one is given."""
        browser = await self.browser()
        context = await browser.new_context(
            viewport=VIEWPORT,
            java_script_enabled=True,
            storage_state=os.fspath(storage_state) if storage_state is not None else None,
        )
        allowed = {o.rstrip("/") for o in allowed_origins}

        async def gate(route: Any) -> None:
            parts = urlsplit(route.request.url)
            if f"{parts.scheme}://{parts.netloc}" in allowed or parts.scheme in ("about", "blob"):
                await route.continue_()
            else:
                await route.abort("blockedbyclient")

        await context.route("**/*", gate)
        if cookies:
            await context.add_cookies(cookies)
        return context

    def close(self) -> None:
        """Close Chromium and Playwright and stop the loop (idempotent)."""
        loop = self._loop
        if loop is None:
            return

        async def shutdown() -> None:
            if self._browser is not None:
                try:
                    await self._browser.close()
                except Exception as exc:
                    logger.debug("closing Chromium: %s", exc)
            if self._playwright is not None:
                await self._playwright.stop()

        try:
            asyncio.run_coroutine_threadsafe(shutdown(), loop).result(20)
        except Exception as exc:
            logger.warning("closing Chromium failed: %s", exc)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(5)
        self._browser = self._playwright = self._launching = None
        self._loop = self._thread = None


_HOST: BrowserHost | None = None
_HOST_LOCK = threading.Lock()


def host() -> BrowserHost:
    """The process's :class:`BrowserHost` (created on first use, closed at exit)."""
    global _HOST
    with _HOST_LOCK:
        if _HOST is None:
            _HOST = BrowserHost()
            atexit.register(_HOST.close)
        return _HOST
