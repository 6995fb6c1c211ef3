"""Limits on guessing credentials: failed dashboard logins and failed API-key authentication,
counted with the ``limits`` library (moving windows).

Policy (only failures count; a request over a limit is answered 429 with ``Retry-After``
before the password is checked, so it costs no Argon2 work):

* a login of one account (organisation + email) from one client address: :data:`LOGIN_PER_ACCOUNT`
  failures; a successful login from that address clears its count;
* a client address over all accounts: :data:`LOGIN_PER_ADDRESS` failures (password spraying);
* API keys from one client address: :data:`KEY_PER_ADDRESS` failed authentications (unknown,
  malformed or revoked keys); a request that sends no credential is not counted.

An account is never locked as a whole: failures from one address never limit another address,
so nobody can lock a user out from elsewhere, and every limit ends when its window moves on.
Guessing spread over many addresses is slowed per address only; each guess still costs an
Argon2 verification and passwords have at least 8 characters.

The client address is the one uvicorn reports: behind a reverse proxy it is the
``X-Forwarded-For`` address, trusted only from the proxies in ``$FORWARDED_ALLOW_IPS``
(uvicorn's setting, ``127.0.0.1`` by default).

Counts live in process memory (``memory://``): ``agentgym platform serve`` is one process, whose
worker threads share them. Several processes or replicas behind one address would each count
on their own (N times the attempts): give them one store with
``$AGENTGYM_PLATFORM_RATE_LIMIT_STORAGE`` (a ``limits`` storage URI such as
``redis://host:6379``, with the ``redis`` package installed).
"""

from __future__ import annotations

import logging
import math
import os
import time
from dataclasses import dataclass

from agentgym_envs.errors import AgentGymError, require

logger = logging.getLogger(__name__)

#: Failed logins of one account from one address, per window.
LOGIN_PER_ACCOUNT = "5/15 minutes"
#: Failed logins from one address over all accounts, per window.
LOGIN_PER_ADDRESS = "30/15 minutes"
#: Failed API-key authentications from one address, per window.
KEY_PER_ADDRESS = "60/minute"
#: Environment variable naming the ``limits`` storage (default ``memory://``).
STORAGE_ENV = "AGENTGYM_PLATFORM_RATE_LIMIT_STORAGE"


@dataclass(frozen=True)
class Blocked:
    """A refusal: what was limited and how many seconds until the next attempt counts."""

    what: str
    retry_after: int

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)}


class AuthLimits:
    """The service's limits on failed logins and failed API keys.

    Args:
        storage: a ``limits`` storage URI (default ``$AGENTGYM_PLATFORM_RATE_LIMIT_STORAGE``,
            else ``memory://``).
        login_per_account, login_per_address, key_per_address: ``limits`` rate strings
            (``"5/15 minutes"``).
    """

    def __init__(
        self,
        storage: str | None = None,
        *,
        login_per_account: str = LOGIN_PER_ACCOUNT,
        login_per_address: str = LOGIN_PER_ADDRESS,
        key_per_address: str = KEY_PER_ADDRESS,
    ) -> None:
        limits = require("limits", "platform")
        from limits.strategies import MovingWindowRateLimiter

        uri = storage or os.environ.get(STORAGE_ENV) or "memory://"
        try:
            self._storage = limits.storage.storage_from_string(uri)
            self.login_account = limits.parse(login_per_account)
            self.login_address = limits.parse(login_per_address)
            self.key_address = limits.parse(key_per_address)
        except (ValueError, limits.errors.ConfigurationError) as exc:
            raise AgentGymError(
                f"rate limits: {exc} (a storage URI such as memory:// or redis://host:6379 in "
                f"${STORAGE_ENV}; rates such as '5/15 minutes')"
            ) from None
        self._limiter = MovingWindowRateLimiter(self._storage)

    def _blocked(self, what: str, item, *ids: str) -> Blocked | None:
        if self._limiter.test(item, *ids):
            return None
        reset = self._limiter.get_window_stats(item, *ids).reset_time
        return Blocked(what, max(1, math.ceil(reset - time.time())))

    # -- logins ---------------------------------------------------------------------------------
    def login_blocked(self, account: str, address: str) -> Blocked | None:
        """Whether a login of ``account`` from ``address`` is refused now (and for how long)."""
        return self._blocked("address", self.login_address, "login", address) or self._blocked(
            "account", self.login_account, "login", account, address
        )

    def login_failed(self, account: str, address: str) -> None:
        self._limiter.hit(self.login_address, "login", address)
        self._limiter.hit(self.login_account, "login", account, address)

    def login_succeeded(self, account: str, address: str) -> None:
        self._limiter.clear(self.login_account, "login", account, address)

    # -- API keys ---------------------------------------------------------------------------------
    def key_blocked(self, address: str) -> Blocked | None:
        return self._blocked("address", self.key_address, "key", address)

    def key_failed(self, address: str) -> None:
        if not self._limiter.hit(self.key_address, "key", address):
            logger.warning("failed API keys from %s: over %s", address, self.key_address)


def address_of(request) -> str:
    """The client address of a Starlette request (``"unknown"`` without one)."""
    client = getattr(request, "client", None)
    return client.host if client and client.host else "unknown"


def account_of(org_slug: str, email: str) -> str:
    return f"{org_slug.strip().lower()}/{email.strip().lower()}"


__all__ = [
    "KEY_PER_ADDRESS",
    "LOGIN_PER_ACCOUNT",
    "LOGIN_PER_ADDRESS",
    "STORAGE_ENV",
    "AuthLimits",
    "Blocked",
    "account_of",
    "address_of",
]
