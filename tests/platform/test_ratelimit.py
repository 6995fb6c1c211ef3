"""Failed logins and failed API keys are limited per client address (and, for logins, per
account from that address): over a limit the answer is 429 with ``Retry-After``, another
address is never locked out, and a successful login clears its count. Against ``agentgym
platform serve``; the client address is set with ``X-Forwarded-For``, which uvicorn trusts from
127.0.0.1 as from a reverse proxy (documentation addresses, never contacted)."""

from __future__ import annotations

import uuid

import httpx
import pytest

from agentgym_envs.platform.ratelimit import (
    KEY_PER_ADDRESS,
    LOGIN_PER_ACCOUNT,
    LOGIN_PER_ADDRESS,
    AuthLimits,
)
from tests.platform.helpers import as_key

LOGIN_TRIES = int(LOGIN_PER_ACCOUNT.split("/")[0])
SPRAY_TRIES = int(LOGIN_PER_ADDRESS.split("/")[0])
KEY_TRIES = int(KEY_PER_ADDRESS.split("/")[0])
GOOD = "a good long password"


def _address() -> str:
    """A fresh documentation address per test (TEST-NET-3), so tests do not share counts."""
    n = uuid.uuid4().int
    return f"203.0.{n % 250}.{(n >> 8) % 250 + 1}"


def _user(platform) -> str:
    email = f"rl-{uuid.uuid4().hex[:8]}@org-a.example"
    with as_key(platform.url, platform.a.key) as c:
        r = c.post("/v1/users", json={"email": email, "password": GOOD, "role": "viewer"})
        assert r.status_code == 201, r.text
    return email


def _login(url: str, address: str, email: str, password: str, org: str = "org-a"):
    with httpx.Client(base_url=url, timeout=120) as c:
        return c.post(
            "/login",
            data={"org": org, "email": email, "password": password, "next": "/"},
            headers={"X-Forwarded-For": address},
        )


def _retry_after(r: httpx.Response, window: int) -> int:
    value = int(r.headers["retry-after"])
    assert 0 < value <= window
    return value


def test_failed_logins_lock_that_account_from_that_address_only(platform):
    email, here, elsewhere = _user(platform), _address(), _address()
    for _ in range(LOGIN_TRIES):
        assert _login(platform.url, here, email, "wrong password").status_code == 401
    refused = _login(platform.url, here, email, GOOD)  # even the right password now waits
    assert refused.status_code == 429
    assert "Too many failed logins" in refused.text
    _retry_after(refused, 15 * 60)
    # the user logs in from their own address: an attacker elsewhere cannot lock them out
    assert _login(platform.url, elsewhere, email, GOOD).status_code == 303
    # and the locked address may still log in to other accounts (its own count is below its limit)
    assert _login(platform.url, here, platform.a.admin, "correct horse battery").status_code == 303


def test_a_successful_login_clears_its_count(platform):
    email, here = _user(platform), _address()
    for _ in range(LOGIN_TRIES - 1):
        assert _login(platform.url, here, email, "wrong password").status_code == 401
    assert _login(platform.url, here, email, GOOD).status_code == 303
    for _ in range(LOGIN_TRIES - 1):  # a typo after a login starts from zero again
        assert _login(platform.url, here, email, "wrong password").status_code == 401
    assert _login(platform.url, here, email, GOOD).status_code == 303


def test_one_address_guessing_many_accounts_is_limited(platform):
    here, elsewhere = _address(), _address()
    for i in range(SPRAY_TRIES):  # accounts that need not exist: the answer is the same
        r = _login(platform.url, here, f"nobody{i}@org-a.example", "guess12345")
        assert r.status_code == 401
    refused = _login(platform.url, here, "someone@org-a.example", "guess12345")
    assert refused.status_code == 429
    _retry_after(refused, 15 * 60)
    assert (
        _login(platform.url, elsewhere, platform.a.admin, "correct horse battery").status_code
        == 303
    )


def test_failed_api_keys_are_limited_per_address(platform):
    here, elsewhere = _address(), _address()
    bad = "agk_" + "0" * 64 + "_" + "x" * 43  # well formed, unknown
    with httpx.Client(base_url=platform.url, timeout=120) as c:
        for i in range(KEY_TRIES):
            key = bad if i % 2 else "not-a-key"  # malformed keys count too
            r = c.get(
                "/v1/agents", headers={"Authorization": f"Bearer {key}", "X-Forwarded-For": here}
            )
            assert r.status_code == 401
        for path in ("/v1/agents", "/api/runs"):  # the API and the dashboard's gate
            r = c.get(path, headers={"Authorization": f"Bearer {bad}", "X-Forwarded-For": here})
            assert r.status_code == 429 and "too many failed API keys" in r.text
            _retry_after(r, 60)
        # another address is not limited, a request without a key is not counted
        r = c.get(
            "/v1/agents", headers={"Authorization": f"Bearer {bad}", "X-Forwarded-For": elsewhere}
        )
        assert r.status_code == 401
        r = c.get("/v1/agents", headers={"X-Forwarded-For": elsewhere})
        assert r.status_code == 401
    with as_key(platform.url, platform.a.key) as c:  # valid keys from other addresses work
        assert c.get("/v1/agents", headers={"X-Forwarded-For": elsewhere}).status_code == 200


def test_bad_limit_settings_are_one_line():
    from agentgym_envs.errors import AgentGymError

    with pytest.raises(AgentGymError, match="storage URI"):
        AuthLimits("nosuch://host")
    with pytest.raises(AgentGymError, match="5/15 minutes"):
        AuthLimits(login_per_account="often")
