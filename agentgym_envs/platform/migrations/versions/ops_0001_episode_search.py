"""Episode search: one embedding per episode and model, tenant-owned (row-level security).

Revision ID: ops_0001
Revises: p0001
Create Date: 2026-11-29
"""

from __future__ import annotations

from alembic import op

from agentgym_envs.platform.migrations.rls import CURRENT_ORG, create_tenant_role, enable_tenant_rls

revision = "ops_0001"
down_revision = "p0001"  # after the platform's tables and roles
branch_labels = ("ops",)
depends_on = None

TENANT = CURRENT_ORG  # null when no tenant is set: nothing visible, nothing written


def upgrade() -> None:
    op.execute("CREATE EXTENSION IF NOT EXISTS vector")
    op.execute(
        f"""
        CREATE TABLE episode_embeddings (
            id bigserial PRIMARY KEY,
            org_id uuid NOT NULL DEFAULT {TENANT},
            episode_id text NOT NULL,
            env_id text NOT NULL DEFAULT '',
            model text NOT NULL,
            summary text NOT NULL DEFAULT '',
            embedding vector NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now(),
            UNIQUE (org_id, episode_id, model)
        )
        """
    )
    op.execute("CREATE INDEX episode_embeddings_org_model ON episode_embeddings (org_id, model)")
    create_tenant_role(op)
    enable_tenant_rls(op, "episode_embeddings")  # the platform's policy, granted to its tenant role


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS episode_embeddings")
