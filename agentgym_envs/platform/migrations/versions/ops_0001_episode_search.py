"""Episode search: one embedding per episode and model, tenant-owned (row-level security).

Revision ID: ops_0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

from alembic import op

revision = "ops_0001"
down_revision = None
branch_labels = ("ops",)
depends_on = None

#: The tenant of the current transaction (``SET LOCAL agentgym.org_id``); NULL when unset, so
#: a session that set no tenant sees and writes nothing.
TENANT = "NULLIF(current_setting('agentgym.org_id', true), '')::uuid"


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
    op.execute("ALTER TABLE episode_embeddings ENABLE ROW LEVEL SECURITY")
    op.execute("ALTER TABLE episode_embeddings FORCE ROW LEVEL SECURITY")
    op.execute(
        f"CREATE POLICY tenant ON episode_embeddings USING (org_id = {TENANT}) "
        f"WITH CHECK (org_id = {TENANT})"
    )


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS episode_embeddings")
