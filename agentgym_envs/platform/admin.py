"""What the database owner does that no tenant can: create organisations (with their first
admin and API key), and give the service's login role its group role."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

from agentgym_envs.errors import AgentGymError
from agentgym_envs.experience.models import utcnow
from agentgym_envs.platform import auth
from agentgym_envs.platform.db import make_engine, sessionmaker_for
from agentgym_envs.platform.migrations.rls import TENANT_ROLE

_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,99}$")
_ROLE = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


@dataclass
class NewOrganisation:
    org_id: uuid.UUID
    slug: str
    api_key: str
    admin_email: str | None


def _sessions(admin_url: str):
    return sessionmaker_for(make_engine(admin_url, pool_size=1, max_overflow=0))


def create_organisation(
    admin_url: str,
    slug: str,
    name: str | None = None,
    *,
    admin_email: str | None = None,
    admin_password: str | None = None,
    key_name: str = "admin",
    scopes=auth.PERMISSIONS,
) -> NewOrganisation:
    """Create organisation ``slug`` with an API key (``scopes``) and, given an email and a
    password, its first admin user. Returns the key (shown this once)."""
    from sqlalchemy.exc import IntegrityError

    from agentgym_envs.platform.api import new_key
    from agentgym_envs.platform.models import Organisation, User

    slug = slug.strip().lower()
    if not _SLUG.match(slug):
        raise AgentGymError(f"organisation {slug!r}: lower-case letters, digits and dashes")
    if admin_email is not None and not admin_password:
        raise AgentGymError("the admin needs a password (--admin-password or its prompt)")
    sessions = _sessions(admin_url)
    org_id = uuid.uuid4()
    try:
        with sessions() as s:
            s.add(Organisation(id=org_id, slug=slug, name=name or slug, created_at=utcnow()))
            s.commit()
            s.info["org_id"] = org_id
            if admin_email is not None:
                s.add(
                    User(
                        id=uuid.uuid4(),
                        email=admin_email.strip().lower(),
                        name="",
                        role="admin",
                        password_hash=auth.hash_password(admin_password or ""),
                        active=True,
                        created_at=utcnow(),
                    )
                )
            key = new_key(s, org_id, key_name, scopes, "owner")
            s.commit()
    except IntegrityError:
        raise AgentGymError(f"organisation {slug!r} exists already") from None
    finally:
        sessions.kw["bind"].dispose()
    return NewOrganisation(org_id, slug, key["key"], admin_email)


def grant_service_role(admin_url: str, role: str) -> None:
    """Make login role ``role`` a member of ``agentgym_tenant`` (the service's rights)."""
    if not _ROLE.match(role):
        raise AgentGymError(f"role {role!r}: a plain PostgreSQL role name")
    engine = make_engine(admin_url, pool_size=1, max_overflow=0)
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql(f'GRANT {TENANT_ROLE} TO "{role}"')
    finally:
        engine.dispose()


__all__ = ["NewOrganisation", "create_organisation", "grant_service_role"]
