"""The platform: organisations, users, API keys, login sessions, agents, idempotency keys and
live routes; every experience table becomes tenant-owned (``org_id`` + row-level security).

Revision ID: p0001
Revises: 0001 (the experience store's schema)
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import UUID

from agentgym_envs.platform.migrations.rls import (
    CURRENT_ORG,
    TENANT_ROLE,
    create_tenant_role,
    disable_tenant_rls,
    enable_tenant_rls,
)

revision = "p0001"
down_revision = "0001"
branch_labels = ("platform",)
depends_on = None

EXPERIENCE = ("agent_versions", "promotions", "ab_tests", "runs", "episodes", "steps", "feedback")
#: Experience uniques that become unique per organisation: (table, old name, columns).
UNIQUES = (
    ("agent_versions", "uq_agent_versions_name_version", ("name", "version")),
    ("ab_tests", "ab_tests_name_key", ("name",)),
    ("runs", "runs_source_key_key", ("source_key",)),
)


def _org() -> sa.Column:
    return sa.Column(
        "org_id", UUID(as_uuid=True), nullable=False, server_default=sa.text(CURRENT_ORG)
    )


def _id() -> sa.Column:
    return sa.Column("id", UUID(as_uuid=True), primary_key=True)


def _when(name: str = "created_at", nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        raise RuntimeError("the platform's database is PostgreSQL (row-level security)")
    create_tenant_role(op)
    op.create_table(
        "organisations",
        _id(),
        sa.Column("slug", sa.String(100), nullable=False, unique=True),
        sa.Column("name", sa.String(200), nullable=False),
        _when(),
    )
    op.execute(f"GRANT SELECT ON organisations TO {TENANT_ROLE}")
    op.create_table(
        "users",
        _id(),
        _org(),
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("password_hash", sa.Text(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        _when(),
        sa.UniqueConstraint("org_id", "email", name="uq_users_org_email"),
        sa.CheckConstraint("role IN ('admin', 'annotator', 'viewer')", name="ck_users_role"),
    )
    op.create_table(
        "api_keys",
        _id(),
        _org(),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("secret_hash", sa.String(64), nullable=False),
        sa.Column("scopes", sa.JSON(), nullable=False),
        sa.Column("created_by", sa.String(320), nullable=False),
        _when(),
        _when("revoked_at", nullable=True),
        sa.Column("rotated_from", UUID(as_uuid=True), nullable=True),
    )
    op.create_table(
        "login_sessions",
        _id(),
        _org(),
        sa.Column(
            "user_id",
            UUID(as_uuid=True),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("secret_hash", sa.String(64), nullable=False),
        _when(),
        _when("expires_at"),
        _when("ended_at", nullable=True),
    )
    op.create_table(
        "agents",
        _id(),
        _org(),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        _when(),
        sa.UniqueConstraint("org_id", "name", name="uq_agents_org_name"),
    )
    op.create_table(
        "idempotency_keys",
        sa.Column(
            "org_id",
            UUID(as_uuid=True),
            primary_key=True,
            server_default=sa.text(CURRENT_ORG),
        ),
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=True),
        sa.Column("response", sa.JSON(), nullable=True),
        _when(),
    )
    op.create_table(
        "routes",
        _id(),
        _org(),
        sa.Column(
            "agent_id",
            UUID(as_uuid=True),
            sa.ForeignKey("agents.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("arms", sa.JSON(), nullable=False),
        sa.Column("control", sa.String(200), nullable=False),
        sa.Column("previous_control", sa.String(200), nullable=True),
        sa.Column("salt", sa.String(64), nullable=False),
        sa.Column("ab_test_id", sa.Integer(), sa.ForeignKey("ab_tests.id"), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        _when("updated_at"),
        sa.UniqueConstraint("org_id", "agent_id", name="uq_routes_org_agent"),
    )
    op.create_table(
        "route_decisions",
        sa.Column("id", sa.BigInteger(), primary_key=True, autoincrement=True),
        _org(),
        sa.Column(
            "route_id",
            UUID(as_uuid=True),
            sa.ForeignKey("routes.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("user_hash", sa.String(64), nullable=False),
        sa.Column("version", sa.String(200), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        _when(),
    )
    op.create_index("ix_route_decisions_route_id", "route_decisions", ["route_id"])
    for table in EXPERIENCE:
        op.add_column(table, _org())
        op.create_index(f"ix_{table}_org_id", table, ["org_id"])
    for table, old, cols in UNIQUES:
        op.drop_constraint(old, table, type_="unique")
        op.create_unique_constraint(f"uq_{table}_org_{'_'.join(cols)}", table, ["org_id", *cols])
    op.create_index("ix_episodes_org_key", "episodes", ["org_id", "key"])
    for table in (
        *EXPERIENCE,
        "users",
        "api_keys",
        "login_sessions",
        "agents",
        "idempotency_keys",
        "routes",
        "route_decisions",
    ):
        enable_tenant_rls(op, table)
    op.execute(f"GRANT USAGE ON SCHEMA public TO {TENANT_ROLE}")
    op.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {TENANT_ROLE}")
    op.execute(f"ALTER DEFAULT PRIVILEGES GRANT USAGE, SELECT ON SEQUENCES TO {TENANT_ROLE}")


def downgrade() -> None:
    for table in (
        "route_decisions",
        "routes",
        "idempotency_keys",
        "agents",
        "login_sessions",
        "api_keys",
        "users",
    ):
        op.drop_table(table)
    op.drop_index("ix_episodes_org_key", "episodes")
    for table, old, cols in UNIQUES:
        op.drop_constraint(f"uq_{table}_org_{'_'.join(cols)}", table, type_="unique")
        op.create_unique_constraint(old, table, list(cols))
    for table in EXPERIENCE:
        disable_tenant_rls(op, table)
        op.drop_index(f"ix_{table}_org_id", table)
        op.drop_column(table, "org_id")
    op.drop_table("organisations")
