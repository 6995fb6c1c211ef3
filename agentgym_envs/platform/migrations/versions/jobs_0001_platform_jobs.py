"""Training jobs inside the service: a job belongs to a platform agent, can be cancelled, keeps
the outputs of its finished stages (a job resumed after its worker died does not redo them),
counts its attempts, and remembers its queue job; the service's tenant role may queue, cancel
and run jobs (procrastinate's tables and functions).

Revision ID: jobs_0001
Revises: ops_0002
Create Date: 2026-11-29
"""

from __future__ import annotations

from alembic import op

from agentgym_envs.platform.migrations.rls import TENANT_ROLE

revision = "jobs_0001"
down_revision = "ops_0002"
branch_labels = ("jobs",)
depends_on = None

STATUSES = "('queued', 'running', 'succeeded', 'failed', 'cancelled')"


def upgrade() -> None:
    op.execute("ALTER TABLE training_jobs DROP CONSTRAINT IF EXISTS training_jobs_status_check")
    op.execute(
        f"ALTER TABLE training_jobs ADD CONSTRAINT training_jobs_status_check CHECK (status IN {STATUSES})"
    )
    op.execute(
        "ALTER TABLE training_jobs "
        "ADD COLUMN agent_id uuid REFERENCES agents(id) ON DELETE CASCADE, "
        "ADD COLUMN queue_job_id bigint, "
        "ADD COLUMN attempts integer NOT NULL DEFAULT 0, "
        "ADD COLUMN checkpoint jsonb NOT NULL DEFAULT '{}'::jsonb, "
        "ADD COLUMN created_by text NOT NULL DEFAULT ''"
    )
    op.execute("CREATE INDEX training_jobs_org_agent ON training_jobs (org_id, agent_id)")
    # the queue itself (no tenant rows: a job's arguments are its row's id and organisation)
    op.execute(
        f"""
        DO $$ DECLARE t text; BEGIN
          FOR t IN SELECT tablename FROM pg_tables
                   WHERE schemaname = 'public' AND tablename LIKE 'procrastinate%' LOOP
            EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO {TENANT_ROLE}', t);
          END LOOP;
          FOR t IN SELECT sequencename FROM pg_sequences
                   WHERE schemaname = 'public' AND sequencename LIKE 'procrastinate%' LOOP
            EXECUTE format('GRANT USAGE, SELECT, UPDATE ON SEQUENCE %I TO {TENANT_ROLE}', t);
          END LOOP;
        END $$
        """
    )


def downgrade() -> None:
    op.execute(
        f"""
        DO $$ DECLARE t text; BEGIN
          FOR t IN SELECT tablename FROM pg_tables
                   WHERE schemaname = 'public' AND tablename LIKE 'procrastinate%' LOOP
            EXECUTE format('REVOKE ALL ON %I FROM {TENANT_ROLE}', t);
          END LOOP;
        END $$
        """
    )
    op.execute("DELETE FROM training_jobs WHERE status = 'cancelled'")
    op.execute("ALTER TABLE training_jobs DROP CONSTRAINT training_jobs_status_check")
    op.execute(
        "ALTER TABLE training_jobs ADD CONSTRAINT training_jobs_status_check "
        "CHECK (status IN ('queued', 'running', 'succeeded', 'failed'))"
    )
    op.execute(
        "ALTER TABLE training_jobs DROP COLUMN agent_id, DROP COLUMN queue_job_id, "
        "DROP COLUMN attempts, DROP COLUMN checkpoint, DROP COLUMN created_by"
    )
