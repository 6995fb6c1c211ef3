"""The platform's own tables: organisations (tenants), their users, API keys, dashboard login
sessions, agents, idempotency keys and live traffic routes.

The experience tables (:mod:`agentgym_envs.experience.models`: versions, runs, episodes,
steps, feedback, A/B tests, promotions) are shared with the library; on the platform's
PostgreSQL database the migrations give each of them an ``org_id`` whose default is the
request's tenant, so the experience code runs unchanged under row-level security.

Every table here but ``organisations`` is tenant-owned: ``org_id uuid NOT NULL`` and a
row-level security policy (``migrations/rls.py``).
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import UUID
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from agentgym_envs.experience.models import utcnow

#: The column default of every tenant-owned table: the tenant of the current transaction.
CURRENT_ORG = "NULLIF(current_setting('agentgym.org_id', true), '')::uuid"


def org_column() -> Mapped[uuid.UUID]:
    """``org_id uuid NOT NULL`` defaulting to the transaction's tenant."""
    return mapped_column(UUID(as_uuid=True), nullable=False, server_default=text(CURRENT_ORG))


class PlatformBase(DeclarativeBase):
    """Declarative base of the platform tables."""


class Organisation(PlatformBase):
    """A tenant. Readable by the service (it finds an organisation by slug at login); only the
    database owner (``agentgym platform org create``) writes it."""

    __tablename__ = "organisations"

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    slug: Mapped[str] = mapped_column(String(100), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class User(PlatformBase):
    """A person of one organisation with a role (``admin``, ``annotator`` or ``viewer``)."""

    __tablename__ = "users"
    __table_args__ = (UniqueConstraint("org_id", "email", name="uq_users_org_email"),)

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    org_id: Mapped[uuid.UUID] = org_column()
    email: Mapped[str] = mapped_column(String(320))
    name: Mapped[str] = mapped_column(String(200), default="")
    role: Mapped[str] = mapped_column(String(20))
    password_hash: Mapped[str] = mapped_column(Text)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ApiKey(PlatformBase):
    """An API key of an organisation: only the SHA-256 of its secret is kept."""

    __tablename__ = "api_keys"

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    org_id: Mapped[uuid.UUID] = org_column()
    name: Mapped[str] = mapped_column(String(200))
    secret_hash: Mapped[str] = mapped_column(String(64))
    scopes: Mapped[list[str]] = mapped_column(JSON)
    created_by: Mapped[str] = mapped_column(String(320), default="")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: The key this one replaced (rotation revokes the old key in the same transaction).
    rotated_from: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True), nullable=True)


class LoginSession(PlatformBase):
    """A dashboard login: the cookie carries the id and a secret whose SHA-256 is kept here."""

    __tablename__ = "login_sessions"

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    org_id: Mapped[uuid.UUID] = org_column()
    user_id: Mapped[uuid.UUID] = mapped_column(
        UUID(as_uuid=True), ForeignKey("users.id", ondelete="CASCADE")
    )
    secret_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    ended_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class Agent(PlatformBase):
    """An agent registered through the API; its versions are experience ``agent_versions``
    rows named after it."""

    __tablename__ = "agents"
    __table_args__ = (UniqueConstraint("org_id", "name", name="uq_agents_org_name"),)

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    org_id: Mapped[uuid.UUID] = org_column()
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class IdempotencyKey(PlatformBase):
    """A write already done: a retry with the same key gets the stored answer (for the
    service's retention, 24 h by default; expired rows are pruned on write)."""

    __tablename__ = "idempotency_keys"
    __table_args__ = (Index("ix_idempotency_keys_org_created", "org_id", "created_at"),)

    org_id: Mapped[uuid.UUID] = mapped_column(
        UUID(as_uuid=True), primary_key=True, server_default=text(CURRENT_ORG)
    )
    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    request_hash: Mapped[str] = mapped_column(String(64))
    status_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    response: Mapped[Any] = mapped_column(JSON, nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Route(PlatformBase):
    """The live traffic split of one agent: arms (version -> percentage), the control (what
    the other arms are compared with), the control before the last promotion (what a rollback
    returns to) and the A/B test its executions are recorded under."""

    __tablename__ = "routes"
    __table_args__ = (UniqueConstraint("org_id", "agent_id", name="uq_routes_org_agent"),)

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    org_id: Mapped[uuid.UUID] = org_column()
    agent_id: Mapped[uuid.UUID] = mapped_column(
        UUID(as_uuid=True), ForeignKey("agents.id", ondelete="CASCADE")
    )
    arms: Mapped[dict[str, float]] = mapped_column(JSON)
    control: Mapped[str] = mapped_column(String(200))
    #: The control before the last promotion (what a rollback returns to).
    previous_control: Mapped[str | None] = mapped_column(String(200), nullable=True)
    salt: Mapped[str] = mapped_column(String(64))
    #: The experience ``ab_tests`` row (a foreign key in the migration; another metadata here).
    ab_test_id: Mapped[int] = mapped_column(Integer)
    revision: Mapped[int] = mapped_column(Integer, default=1)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class RouteDecision(PlatformBase):
    """One routed live request: which version an end user (by hash) was sent to."""

    __tablename__ = "route_decisions"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    org_id: Mapped[uuid.UUID] = org_column()
    route_id: Mapped[uuid.UUID] = mapped_column(
        UUID(as_uuid=True), ForeignKey("routes.id", ondelete="CASCADE"), index=True
    )
    user_hash: Mapped[str] = mapped_column(String(64))
    version: Mapped[str] = mapped_column(String(200))
    revision: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


#: Tables of the experience store that become tenant-owned on the platform's database.
EXPERIENCE_TABLES = (
    "agent_versions",
    "promotions",
    "ab_tests",
    "runs",
    "episodes",
    "steps",
    "feedback",
)
#: The platform's tenant-owned tables.
TENANT_TABLES = (
    "users",
    "api_keys",
    "login_sessions",
    "agents",
    "idempotency_keys",
    "routes",
    "route_decisions",
)

__all__ = [
    "CURRENT_ORG",
    "EXPERIENCE_TABLES",
    "TENANT_TABLES",
    "Agent",
    "ApiKey",
    "IdempotencyKey",
    "LoginSession",
    "Organisation",
    "PlatformBase",
    "Route",
    "RouteDecision",
    "User",
]
