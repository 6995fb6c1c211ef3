"""Training jobs: the queue's engine (procrastinate's schema) and the tenant-owned job rows
(row-level security) that the API and the SDK read progress from.

Revision ID: ops_0002
Revises: ops_0001
Create Date: 2026-11-29
"""

from __future__ import annotations

from alembic import op

from agentgym_envs.platform.migrations.rls import CURRENT_ORG, create_tenant_role, enable_tenant_rls

revision = "ops_0002"
down_revision = "ops_0001"
branch_labels = None
depends_on = None

TENANT = CURRENT_ORG  # null when no tenant is set: nothing visible, nothing written


def upgrade() -> None:
    from procrastinate.schema import SchemaManager

    # procrastinate's own tables and functions (its queue: jobs, locks, LISTEN/NOTIFY);
    # a later procrastinate release brings its migrations, applied by a later revision here
    # straight to the driver: the script has '%' in its functions and no parameters
    op.get_bind().connection.driver_connection.execute(SchemaManager.get_schema())
    op.execute(
        f"""
        CREATE TABLE training_jobs (
            id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
            org_id uuid NOT NULL DEFAULT {TENANT},
            kind text NOT NULL DEFAULT 'fine-tune',
            status text NOT NULL DEFAULT 'queued'
                CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
            stage text NOT NULL DEFAULT '',
            progress real NOT NULL DEFAULT 0 CHECK (progress >= 0 AND progress <= 1),
            params jsonb NOT NULL DEFAULT '{{}}'::jsonb,
            result jsonb,
            error text,
            created_at timestamptz NOT NULL DEFAULT now(),
            updated_at timestamptz NOT NULL DEFAULT now(),
            started_at timestamptz,
            finished_at timestamptz
        )
        """
    )
    op.execute("CREATE INDEX training_jobs_org_created ON training_jobs (org_id, created_at)")
    create_tenant_role(op)
    enable_tenant_rls(op, "training_jobs")  # the platform's policy, granted to its tenant role


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS training_jobs")
