"""Idempotency keys expire: an index on ``(org_id, created_at)`` so that pruning a tenant's
expired keys reads only those (bounded batches, on write).

Revision ID: p0002
Revises: jobs_0001
Create Date: 2026-11-29
"""

from __future__ import annotations

from alembic import op

revision = "p0002"
down_revision = "jobs_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_idempotency_keys_org_created", "idempotency_keys", ["org_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_idempotency_keys_org_created", table_name="idempotency_keys")
