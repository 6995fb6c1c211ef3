"""The experience store's first schema: versions, promotions, A/B tests, runs, episodes, steps,
feedback.

Revision ID: 0001
Revises:
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _when() -> sa.Column:
    return sa.Column("created_at", sa.DateTime(timezone=True), nullable=False)


def upgrade() -> None:
    op.create_table(
        "agent_versions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("version", sa.String(200), nullable=False),
        sa.Column("model", sa.String(300), nullable=True),
        sa.Column("prompt_set", sa.String(300), nullable=True),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("parent_id", sa.Integer(), sa.ForeignKey("agent_versions.id"), nullable=True),
        sa.Column("notes", sa.Text(), nullable=False),
        _when(),
        sa.UniqueConstraint("name", "version", name="uq_agent_versions_name_version"),
    )
    op.create_table(
        "promotions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("agent_name", sa.String(200), nullable=False),
        sa.Column("version_id", sa.Integer(), sa.ForeignKey("agent_versions.id"), nullable=False),
        sa.Column("action", sa.String(20), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("author", sa.String(200), nullable=False),
        _when(),
    )
    op.create_index("ix_promotions_agent_name", "promotions", ["agent_name"])
    op.create_table(
        "ab_tests",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False, unique=True),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(40), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        _when(),
    )
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("source_key", sa.String(600), nullable=False, unique=True),
        sa.Column("name", sa.String(300), nullable=False),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("version_id", sa.Integer(), sa.ForeignKey("agent_versions.id"), nullable=True),
        sa.Column("ab_test_id", sa.Integer(), sa.ForeignKey("ab_tests.id"), nullable=True),
        sa.Column("arm", sa.String(200), nullable=True),
        sa.Column("split", sa.String(40), nullable=True),
        sa.Column("config", sa.JSON(), nullable=False),
        _when(),
    )
    op.create_index("ix_runs_version_id", "runs", ["version_id"])
    op.create_index("ix_runs_ab_test_id", "runs", ["ab_test_id"])
    op.create_table(
        "episodes",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "run_id", sa.Integer(), sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("key", sa.String(600), nullable=False),
        sa.Column("env_id", sa.String(200), nullable=False),
        sa.Column("item_id", sa.String(200), nullable=False),
        sa.Column("split", sa.String(40), nullable=True),
        sa.Column("task_id", sa.Integer(), nullable=True),
        sa.Column("sample", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=True),
        sa.Column("outcome", sa.String(40), nullable=False),
        sa.Column("success", sa.Boolean(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.Column("prompt_tokens", sa.Integer(), nullable=True),
        sa.Column("completion_tokens", sa.Integer(), nullable=True),
        sa.Column("wall_time", sa.Float(), nullable=True),
        sa.Column("env_time", sa.Float(), nullable=True),
        sa.Column("policy_time", sa.Float(), nullable=True),
        sa.Column("truncation_reason", sa.String(60), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("conversation", sa.JSON(), nullable=False),
        _when(),
        sa.UniqueConstraint("run_id", "key", name="uq_episodes_run_key"),
    )
    op.create_index("ix_episodes_run_id", "episodes", ["run_id"])
    op.create_index("ix_episodes_env_item", "episodes", ["env_id", "item_id"])
    op.create_table(
        "steps",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "episode_id",
            sa.Integer(),
            sa.ForeignKey("episodes.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("index", sa.Integer(), nullable=False),
        sa.Column("observation", sa.Text(), nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("result", sa.Text(), nullable=True),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("reward", sa.Float(), nullable=True),
        sa.Column("latency", sa.Float(), nullable=True),
        sa.UniqueConstraint("episode_id", "index", name="uq_steps_episode_index"),
    )
    op.create_index("ix_steps_episode_id", "steps", ["episode_id"])
    op.create_table(
        "feedback",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "episode_id",
            sa.Integer(),
            sa.ForeignKey("episodes.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "step_id", sa.Integer(), sa.ForeignKey("steps.id", ondelete="CASCADE"), nullable=True
        ),
        sa.Column("target", sa.String(20), nullable=False),
        sa.Column("label", sa.String(20), nullable=True),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("comment", sa.Text(), nullable=False),
        sa.Column("author", sa.String(200), nullable=False),
        sa.Column("source", sa.String(20), nullable=False),
        _when(),
    )
    op.create_index("ix_feedback_episode_id", "feedback", ["episode_id"])


def downgrade() -> None:
    for table in (
        "feedback",
        "steps",
        "episodes",
        "runs",
        "ab_tests",
        "promotions",
        "agent_versions",
    ):
        op.drop_table(table)
