"""Alembic environment of the platform's database.

The revisions are the experience store's (``experience/migrations/versions``: the platform's
database holds the same tables) and the platform's (``versions`` here, branching from the
experience schema; other branches such as ``ops`` join the same graph): upgrade to ``heads``.
:func:`agentgym_envs.platform.db.migrate` hands its open connection over in
``config.attributes["connection"]``; from the ``alembic`` command line the URL comes from
``$AGENTGYM_PLATFORM_ADMIN_URL`` (or ``sqlalchemy.url``).
"""

from __future__ import annotations

import os

from alembic import context
from sqlalchemy import create_engine, pool

from agentgym_envs.experience.models import Base
from agentgym_envs.platform.models import PlatformBase

config = context.config
target_metadata = [Base.metadata, PlatformBase.metadata]


def _run(connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = os.environ.get("AGENTGYM_PLATFORM_ADMIN_URL") or config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit(
            "set AGENTGYM_PLATFORM_ADMIN_URL to the database owner's URL "
            "(postgresql+psycopg://owner@host/db)"
        )
    engine = create_engine(url, poolclass=pool.NullPool)
    with engine.connect() as conn:
        _run(conn)


if context.is_offline_mode():
    raise SystemExit("the platform's migrations run online: give the database URL")
run_migrations_online()
