"""Credentials: API keys, dashboard login sessions, passwords, roles and scopes.

An API key reads ``agk_<organisation id><key id>_<secret>`` (ids as 32 hex digits each): the
service learns the tenant from the key itself, sets it on the transaction, and only then looks
the key up -- under row-level security, so a key can never be checked against another
organisation's rows. The database keeps the SHA-256 of the secret (256 random bits: a slow
hash adds nothing). A login cookie has the same shape (``<org><session>.<secret>``). Passwords
are hashed with Argon2id (argon2-cffi).

Permissions: ``read`` (GET), ``feedback`` (judge episodes), ``write`` (agents, versions,
executions, routes), ``admin`` (users, keys, promote and rollback). Roles grant them as
:data:`ROLES` says; an API key carries a subset as its scopes.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import uuid
from dataclasses import dataclass, field

from agentgym_envs.errors import AgentGymError, require

PERMISSIONS = ("read", "feedback", "write", "admin")
ROLES: dict[str, frozenset[str]] = {
    "viewer": frozenset({"read"}),
    "annotator": frozenset({"read", "feedback"}),
    "admin": frozenset(PERMISSIONS),
}
#: Scopes a new key gets when none are given.
DEFAULT_SCOPES = ("read", "feedback", "write")
KEY_PREFIX = "agk_"
_KEY = re.compile(r"^agk_([0-9a-f]{32})([0-9a-f]{32})_([A-Za-z0-9_-]{20,100})$")
_COOKIE = re.compile(r"^([0-9a-f]{32})([0-9a-f]{32})\.([A-Za-z0-9_-]{20,100})$")


@dataclass(frozen=True)
class Principal:
    """Who a request is from: an organisation and a user (login) or a key."""

    org_id: uuid.UUID
    kind: str  # "key" | "user"
    subject_id: uuid.UUID
    name: str
    permissions: frozenset[str] = field(default_factory=frozenset)
    role: str | None = None

    def can(self, permission: str) -> bool:
        return permission in self.permissions


def digest(secret: str) -> str:
    """The SHA-256 (hex) kept for a key's or a session's secret."""
    return hashlib.sha256(secret.encode()).hexdigest()


def same(secret: str, stored: str) -> bool:
    """Whether ``secret`` hashes to ``stored`` (constant time)."""
    return hmac.compare_digest(digest(secret), stored)


def new_secret() -> str:
    return secrets.token_urlsafe(32)


def format_key(org_id: uuid.UUID, key_id: uuid.UUID, secret: str) -> str:
    return f"{KEY_PREFIX}{org_id.hex}{key_id.hex}_{secret}"


def parse_key(text: str) -> tuple[uuid.UUID, uuid.UUID, str] | None:
    """``(org id, key id, secret)`` of an API key, ``None`` if it is not one."""
    m = _KEY.match(text.strip())
    if m is None:
        return None
    return uuid.UUID(m.group(1)), uuid.UUID(m.group(2)), m.group(3)


def format_cookie(org_id: uuid.UUID, session_id: uuid.UUID, secret: str) -> str:
    return f"{org_id.hex}{session_id.hex}.{secret}"


def parse_cookie(text: str) -> tuple[uuid.UUID, uuid.UUID, str] | None:
    m = _COOKIE.match(text.strip())
    if m is None:
        return None
    return uuid.UUID(m.group(1)), uuid.UUID(m.group(2)), m.group(3)


def check_scopes(scopes) -> list[str]:
    """The scopes as a sorted list, or a one-line error naming the known ones."""
    out = sorted({str(s).strip() for s in scopes if str(s).strip()})
    bad = [s for s in out if s not in PERMISSIONS]
    if bad or not out:
        raise AgentGymError(
            f"scopes {bad or out}: use some of {', '.join(PERMISSIONS)} (comma-separated)"
        )
    return out


def check_role(role: str) -> str:
    if role not in ROLES:
        raise AgentGymError(f"role {role!r}: use one of {', '.join(ROLES)}")
    return role


def _hasher():
    argon2 = require("argon2", "platform")
    return argon2.PasswordHasher()


def hash_password(password: str) -> str:
    """Argon2id hash of ``password`` (at least 8 characters)."""
    if len(password) < 8:
        raise AgentGymError("a password needs at least 8 characters")
    return _hasher().hash(password)


def verify_password(stored: str, password: str) -> bool:
    from argon2.exceptions import InvalidHashError, VerificationError

    try:
        return _hasher().verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


#: A hash to verify against when the user does not exist (the answer takes as long).
_DUMMY: list[str] = []


def dummy_verify(password: str) -> None:
    if not _DUMMY:
        _DUMMY.append(_hasher().hash("not a password of anyone"))
    verify_password(_DUMMY[0], password)


__all__ = [
    "DEFAULT_SCOPES",
    "PERMISSIONS",
    "ROLES",
    "Principal",
    "check_role",
    "check_scopes",
    "digest",
    "format_cookie",
    "format_key",
    "hash_password",
    "new_secret",
    "parse_cookie",
    "parse_key",
    "same",
    "verify_password",
]
