"""Signing in to a user's WebArena deployment: the storage states its task configs name.

A WebArena config names a Playwright storage state (``./.auth/gitlab.reddit_state.json``:
the cookies of a signed-in user on each site) that WebArena's ``auto_login.py`` writes.
:class:`Login` reads it if it exists and its cookies are still valid; otherwise it signs in
to the named sites through their login forms, with the user's accounts (WebArena's
``ACCOUNTS`` table), saves the state and hands it on, so later episodes reuse it.

The forms of the deployment's sites are declared per WebArena site kind in
:data:`WEBARENA_FORMS` (Magento's storefront and admin, Postmill, GitLab); a user whose sites
differ overrides them. :func:`package_forms` and :func:`package_accounts` describe the
package's own sites, for playing them as if they were a deployment.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from agentgym_envs.errors import AgentGymError

logger = logging.getLogger(__name__)

ACCOUNTS_VARIABLE = "AGENTGYM_WEBARENA_ACCOUNTS"


class LoginError(AgentGymError):
    """Signing in to a site failed, or no account was given for it."""


@dataclasses.dataclass(frozen=True)
class LoginForm:
    """How to sign in to one kind of site.

    Args:
        path: the login page, under the site's base URL (``""``: the base URL itself).
        username: CSS selector of the user-name field.
        password: CSS selector of the password field; where it is still on the page after
            the form is sent, the sign-in failed.
        submit: CSS selector of the button that sends the form.
        check: a page only a signed-in user sees, under the base URL (``{username}`` is
            the account's; others get the login form there or are sent to it): a saved
            state works if this page opens without the login form.
    """

    path: str
    username: str
    password: str
    submit: str
    check: str


#: The login forms of WebArena's sites, per site kind: the pages ``auto_login.py`` fills and
#: checks (Magento's storefront and admin, Postmill, GitLab).
WEBARENA_FORMS: dict[str, LoginForm] = {
    "shopping": LoginForm("/customer/account/login/", "#email", "#pass", "#send2", "/wishlist/"),
    "shopping_admin": LoginForm("", "#username", "#login", "button.action-login", "/dashboard"),
    "reddit": LoginForm(
        "/login",
        "#login-username",
        "#login-password",
        "form.form--login button[type=submit]",
        "/user/{username}/account",
    ),
    "gitlab": LoginForm(
        "/users/sign_in",
        '[data-testid="username-field"]',
        '[data-testid="password-field"]',
        '[data-testid="sign-in-button"]',
        "/-/profile",
    ),
}
#: Pages of the package's own sites that send a visitor who is not signed in to log in.
_PACKAGE_CHECKS = {
    "shopping": "/wishlist",
    "shopping_admin": "/dashboard",
    "reddit": "/user/{username}/edit_biography",
    "gitlab": "/dashboard/todos",
}


def package_forms() -> dict[str, LoginForm]:
    """The login forms of the package's own sites (:mod:`.sites`), per WebArena site kind."""
    import importlib

    from agentgym_envs.envs.webarena.sites import BASE_PATHS, SITES

    forms = {}
    for site, module in SITES.items():
        accounts = getattr(importlib.import_module(module), "ACCOUNTS", None)
        if accounts is None:  # the wiki has no accounts
            continue
        login = accounts.login
        form = f'form[action="{login}"]'
        forms[site] = LoginForm(
            path=login[len(BASE_PATHS.get(site, "")) :],
            username=f"{form} input[name=username]",
            password=f"{form} input[name=password]",
            submit=f"{form} button[type=submit]",
            check=_PACKAGE_CHECKS[site],
        )
    return forms


def package_accounts() -> dict[str, dict[str, str]]:
    """The test accounts of the package's own sites, in WebArena's ``ACCOUNTS`` shape."""
    from agentgym_envs.envs.webarena.sites import data

    return {
        "shopping": {"username": data.SHOP_USER, "password": data.SHOP_PASSWORD},
        "shopping_admin": {"username": data.ADMIN_USER, "password": data.ADMIN_PASSWORD},
        "reddit": {"username": data.FORUM_USER, "password": data.FORUM_PASSWORD},
        "gitlab": {"username": data.CODE_USER, "password": data.CODE_PASSWORD},
    }


def _forms(overrides: Mapping[str, LoginForm | Mapping[str, str]] | None) -> dict[str, LoginForm]:
    forms = dict(WEBARENA_FORMS)
    for site, form in (overrides or {}).items():
        if isinstance(form, LoginForm):
            forms[site] = form
        elif site in forms:
            forms[site] = dataclasses.replace(forms[site], **form)
        else:
            forms[site] = LoginForm(**form)
    return forms


def _accounts(accounts: Mapping[str, Mapping[str, str]] | None) -> dict[str, dict[str, str]]:
    if accounts is not None:
        return {site: dict(account) for site, account in accounts.items()}
    path = os.environ.get(ACCOUNTS_VARIABLE)
    if not path:
        return {}
    try:
        return json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise LoginError(f"cannot read {ACCOUNTS_VARIABLE}={path}: {exc}") from exc


def _expired(path: Path) -> bool:
    """Whether a cookie of the saved state has passed its expiry (session cookies never do)."""
    try:
        cookies = json.loads(path.read_text()).get("cookies", [])
    except (OSError, json.JSONDecodeError, AttributeError):
        return True
    now = time.time()
    return any(0 < float(c.get("expires", -1)) < now for c in cookies)


_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_LOCK = threading.Lock()
#: (path, mtime) of the state files this process has seen work: checked once each.
_WORKING: set[tuple[str, int]] = set()


def _lock(path: Path) -> threading.Lock:
    with _LOCKS_LOCK:
        return _LOCKS.setdefault(str(path), threading.Lock())


def _stamp(path: Path) -> tuple[str, int]:
    return str(path), path.stat().st_mtime_ns


@dataclasses.dataclass(frozen=True)
class Step:
    """Signing in to one site: its key, base URL, form and account."""

    site: str
    base: str
    form: LoginForm
    account: dict[str, str]

    def url(self, path: str) -> str:
        return self.base.rstrip("/") + path.replace("{username}", self.account["username"])


#: Runs ``job(context)`` in a fresh browser context (started from a storage state, or empty)
#: that may reach the deployment's sites; the last argument scales its time limit.
InContext = Callable[[Callable[[Any], Awaitable[Any]], "Path | None", int], Any]


class Login:
    """The storage states of a deployment's task configs, produced on demand.

    Args:
        urls: site key -> the deployment's base URL.
        accounts: site key -> ``{"username": ..., "password": ...}`` (WebArena's
            ``ACCOUNTS``); default: the JSON file named by ``AGENTGYM_WEBARENA_ACCOUNTS``.
        forms: per site key, a :class:`LoginForm` or a dict of the fields to change in
            :data:`WEBARENA_FORMS` (e.g. ``{"gitlab": {"path": "/gitlab/users/sign_in"}}``).
        auth_dir: the folder relative ``storage_state`` paths are under (default: the
            working directory, as WebArena's scripts run from their repository's root).
    """

    def __init__(
        self,
        urls: Mapping[str, str],
        accounts: Mapping[str, Mapping[str, str]] | None = None,
        forms: Mapping[str, LoginForm | Mapping[str, str]] | None = None,
        auth_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        self.urls = dict(urls)
        self.accounts = _accounts(accounts)
        self.forms = _forms(forms)
        self.auth_dir = Path(auth_dir) if auth_dir is not None else None

    def state_path(self, config: Mapping[str, Any]) -> Path | None:
        """The storage state file ``config`` names, resolved (None if it names none)."""
        name = config.get("storage_state")
        if not name:
            return None
        path = Path(name).expanduser()
        if not path.is_absolute():
            path = (self.auth_dir or Path.cwd()) / path
        return path

    def sites(self, config: Mapping[str, Any], path: Path) -> list[str]:
        """The sites to sign in to: those the file name lists, as ``auto_login.py`` names
        its files (``gitlab.reddit_state.json``), else the config's ``sites``; only sites
        with a login form (a map needs none)."""
        named = path.name.removesuffix(".json").rsplit("_", 1)[0].split(".")
        sites = named if all(s in self.urls for s in named) else list(config.get("sites", []))
        return [s for s in sites if s in self.forms and s in self.urls]

    def steps(self, config: Mapping[str, Any], path: Path) -> list[Step]:
        """One :class:`Step` per site to sign in to (:class:`LoginError` if an account is
        missing)."""
        steps = []
        for site in self.sites(config, path):
            account = self.accounts.get(site)
            if not account or "username" not in account or "password" not in account:
                raise LoginError(
                    f"no account to sign in to {site!r}: pass accounts={{{site!r}: "
                    "{'username': ..., 'password': ...}} or set "
                    f"{ACCOUNTS_VARIABLE} to a JSON file of them"
                )
            steps.append(Step(site, self.urls[site], self.forms[site], dict(account)))
        return steps

    def storage_state(
        self, config: Mapping[str, Any], in_context: InContext
    ) -> tuple[Path | None, bool]:
        """The state file for ``config`` and whether it was produced just now.

        A task that requires login gets its file as it is if it exists, its cookies have
        not expired and (checked once per process) it still signs the browser in;
        otherwise the env signs in, writes the file and hands it on. A task that does not
        require login gets the file if it exists, and no sign-in otherwise.
        """
        path = self.state_path(config)
        if path is None:
            return None, False
        with _lock(path):
            usable = path.exists() and not _expired(path)
            if not config.get("require_login"):
                return (path if usable else None), False
            if usable and _stamp(path) in _WORKING:
                return path, False
            if usable:
                try:
                    steps = self.steps(config, path)
                except LoginError:  # no accounts to check or renew with: the file is all
                    return path, False
                if in_context(lambda c: _signed_in(c, steps), path, len(steps)):
                    _WORKING.add(_stamp(path))
                    return path, False
                logger.warning("the sign-in saved in %s no longer works; signing in again", path)
            steps = self.steps(config, path)
            logger.info("signing in to %s for %s", ", ".join(s.site for s in steps), path)
            path.parent.mkdir(parents=True, exist_ok=True)
            in_context(lambda c: _sign_in(c, steps, path), None, len(steps))
            _WORKING.add(_stamp(path))
            return path, True


async def _sign_in(context: Any, steps: list[Step], path: Path) -> None:
    """Fill and send each login form in ``context``, then save its storage state at
    ``path`` (written whole or not at all). Raises :class:`LoginError` when a form is still
    shown after it was sent."""
    page = await context.new_page()
    try:
        for step in steps:
            url, form = step.url(step.form.path), step.form
            await page.goto(url, wait_until="load")
            for selector, value in (
                (form.username, step.account["username"]),
                (form.password, step.account["password"]),
            ):
                try:
                    await page.fill(selector, value)
                except Exception as exc:
                    raise LoginError(
                        f"the login page of {step.site} ({url}) has no field {selector!r}: "
                        "override its form (login_forms=...)"
                    ) from exc
            async with page.expect_navigation(wait_until="load"):
                await page.click(form.submit)
            if await page.locator(form.password).count():
                raise LoginError(
                    f"signing in to {step.site} at {url} as {step.account['username']!r} "
                    "failed (the login form is shown again): check the account, or the "
                    "form's selectors (login_forms=...)"
                )
    finally:
        await page.close()
    partial = path.with_name(path.name + f".{os.getpid()}.part")
    await context.storage_state(path=str(partial))
    os.replace(partial, path)


async def _signed_in(context: Any, steps: list[Step]) -> bool:
    """Whether ``context`` is signed in to every site: each check page opens (wherever it
    redirects: Magento's admin adds a key to its URLs) and shows no login form."""
    page = await context.new_page()
    try:
        for step in steps:
            response = await page.goto(step.url(step.form.check), wait_until="load")
            if response is not None and not response.ok:
                return False
            if await page.locator(step.form.password).count():
                return False
        return True
    finally:
        await page.close()
