"""The experience store's tables (SQLAlchemy 2 declarative models).

Every table is created by the Alembic migrations in ``migrations/versions``; the models here
are the one description of the schema the migrations must match (a test compares them).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def utcnow() -> dt.datetime:
    """Timezone-aware now (stored as UTC)."""
    return dt.datetime.now(dt.timezone.utc)


class Base(DeclarativeBase):
    """Declarative base of the experience tables."""


class AgentVersion(Base):
    """One version of an agent: what ran (model, prompt set, config) and what it came from."""

    __tablename__ = "agent_versions"
    __table_args__ = (UniqueConstraint("name", "version", name="uq_agent_versions_name_version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    version: Mapped[str] = mapped_column(String(200))
    model: Mapped[str | None] = mapped_column(String(300), nullable=True)
    prompt_set: Mapped[str | None] = mapped_column(String(300), nullable=True)
    config: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("agent_versions.id"), nullable=True)
    notes: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    parent: Mapped[AgentVersion | None] = relationship(remote_side="AgentVersion.id")

    @property
    def label(self) -> str:
        return f"{self.name}@{self.version}"


class Promotion(Base):
    """A promotion (or rollback) of a version to *current* for its agent name: the audit trail.

    The current version of an agent is the one named by its latest promotion.
    """

    __tablename__ = "promotions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    agent_name: Mapped[str] = mapped_column(String(200), index=True)
    version_id: Mapped[int] = mapped_column(ForeignKey("agent_versions.id"))
    action: Mapped[str] = mapped_column(String(20))  # promote | rollback
    reason: Mapped[str] = mapped_column(Text, default="")
    author: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    version: Mapped[AgentVersion] = relationship()


class ABTest(Base):
    """An A/B test: its arms (versions), traffic split, task set and stopping rules."""

    __tablename__ = "ab_tests"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    config: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    status: Mapped[str] = mapped_column(String(40), default="created")
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Run(Base):
    """One imported run: a benchmark folder, a recording file, or an A/B test arm's batch."""

    __tablename__ = "runs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    source_key: Mapped[str] = mapped_column(String(600), unique=True)
    name: Mapped[str] = mapped_column(String(300))
    kind: Mapped[str] = mapped_column(String(40))  # bench | recording | ab
    source: Mapped[str] = mapped_column(Text, default="")
    version_id: Mapped[int | None] = mapped_column(
        ForeignKey("agent_versions.id"), nullable=True, index=True
    )
    ab_test_id: Mapped[int | None] = mapped_column(
        ForeignKey("ab_tests.id"), nullable=True, index=True
    )
    arm: Mapped[str | None] = mapped_column(String(200), nullable=True)
    split: Mapped[str | None] = mapped_column(String(40), nullable=True)
    config: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    version: Mapped[AgentVersion | None] = relationship()
    episodes: Mapped[list[Episode]] = relationship(
        back_populates="run", cascade="all, delete-orphan"
    )


class Episode(Base):
    """One played episode: what task, how it ended, what it cost, and its conversation."""

    __tablename__ = "episodes"
    __table_args__ = (
        UniqueConstraint("run_id", "key", name="uq_episodes_run_key"),
        Index("ix_episodes_env_item", "env_id", "item_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    #: What identifies the episode within its run (env|item|sample, or a recording's line).
    key: Mapped[str] = mapped_column(String(600))
    env_id: Mapped[str] = mapped_column(String(200))
    item_id: Mapped[str] = mapped_column(String(200))
    split: Mapped[str | None] = mapped_column(String(40), nullable=True)
    task_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    sample: Mapped[int] = mapped_column(Integer, default=0)
    seed: Mapped[int | None] = mapped_column(Integer, nullable=True)
    outcome: Mapped[str] = mapped_column(String(40))
    success: Mapped[bool] = mapped_column(Boolean)
    score: Mapped[float] = mapped_column(Float)
    turns: Mapped[int] = mapped_column(Integer)
    prompt_tokens: Mapped[int | None] = mapped_column(Integer, nullable=True)
    completion_tokens: Mapped[int | None] = mapped_column(Integer, nullable=True)
    wall_time: Mapped[float | None] = mapped_column(Float, nullable=True)
    env_time: Mapped[float | None] = mapped_column(Float, nullable=True)
    policy_time: Mapped[float | None] = mapped_column(Float, nullable=True)
    truncation_reason: Mapped[str | None] = mapped_column(String(60), nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: The AgentTraj conversation as recorded (kept whole for exports).
    conversation: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    run: Mapped[Run] = relationship(back_populates="episodes")
    steps: Mapped[list[Step]] = relationship(
        back_populates="episode", cascade="all, delete-orphan", order_by="Step.index"
    )
    feedback: Mapped[list[Feedback]] = relationship(
        back_populates="episode", cascade="all, delete-orphan", order_by="Feedback.id"
    )


class Step(Base):
    """One agent action: the observation it answered, the action, and what came back."""

    __tablename__ = "steps"
    __table_args__ = (UniqueConstraint("episode_id", "index", name="uq_steps_episode_index"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    episode_id: Mapped[int] = mapped_column(
        ForeignKey("episodes.id", ondelete="CASCADE"), index=True
    )
    index: Mapped[int] = mapped_column(Integer)
    observation: Mapped[str] = mapped_column(Text)
    action: Mapped[str] = mapped_column(Text)
    result: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: Position of the action's ``gpt`` turn in the episode's conversation.
    turn: Mapped[int] = mapped_column(Integer)
    reward: Mapped[float | None] = mapped_column(Float, nullable=True)
    latency: Mapped[float | None] = mapped_column(Float, nullable=True)

    episode: Mapped[Episode] = relationship(back_populates="steps")


class Feedback(Base):
    """A judgement of one action (``step_id`` set) or of a whole outcome (``step_id`` null).

    ``source`` is ``human`` (the dashboard, the HTTP API, the CLI) or ``auto`` (the env's own
    success and score, written on import); ``author`` says who.
    """

    __tablename__ = "feedback"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    episode_id: Mapped[int] = mapped_column(
        ForeignKey("episodes.id", ondelete="CASCADE"), index=True
    )
    step_id: Mapped[int | None] = mapped_column(
        ForeignKey("steps.id", ondelete="CASCADE"), nullable=True
    )
    target: Mapped[str] = mapped_column(String(20))  # action | outcome
    label: Mapped[str | None] = mapped_column(String(20), nullable=True)  # good | bad
    score: Mapped[float | None] = mapped_column(Float, nullable=True)
    comment: Mapped[str] = mapped_column(Text, default="")
    author: Mapped[str] = mapped_column(String(200))
    source: Mapped[str] = mapped_column(String(20))  # human | auto
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    episode: Mapped[Episode] = relationship(back_populates="feedback")
    step: Mapped[Step | None] = relationship()


def success_rate():
    """``avg(success)`` as a float on every backend (PostgreSQL cannot cast a boolean to a float)."""
    from sqlalchemy import case, func

    return func.avg(case((Episode.success, 1.0), else_=0.0))


__all__ = [
    "ABTest",
    "AgentVersion",
    "Base",
    "Episode",
    "Feedback",
    "Promotion",
    "Run",
    "Step",
    "success_rate",
    "utcnow",
]
