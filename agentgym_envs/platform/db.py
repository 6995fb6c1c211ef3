"""The platform's database: PostgreSQL only, reached as a role that row-level security binds.

Every transaction a tenant's request opens starts with
``SELECT set_config('agentgym.org_id', '<uuid>', true)`` (``SET LOCAL``: it ends with the
transaction, so a pooled connection never carries one tenant into the next request). The
experience code (feedback, versions, A/B analysis, training export, the dashboard's queries)
runs unchanged over a :class:`TenantStore`, which hands out such sessions.
"""

from __future__ import annotations

import contextvars
import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agentgym_envs.errors import AgentGymError, require

logger = logging.getLogger(__name__)

_MIGRATIONS = Path(__file__).with_name("migrations")
_EXPERIENCE_VERSIONS = _MIGRATIONS.parent.parent / "experience" / "migrations" / "versions"
#: The tenant of the dashboard request being served (set by the login middleware).
current_org: contextvars.ContextVar[uuid.UUID | None] = contextvars.ContextVar(
    "agentgym_platform_org", default=None
)
#: PostgreSQL advisory lock key the migrations run under.
MIGRATION_LOCK_KEY = 0x61676D706C  # "agmpl"


def normalise_url(url: str) -> str:
    """A PostgreSQL URL with the psycopg 3 driver (``postgresql://`` works too)."""
    if url.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    if not url.startswith("postgresql+"):
        raise AgentGymError(
            f"the platform needs PostgreSQL (row-level security): give a postgresql:// URL, "
            f"not {url.split('://')[0]!r}"
        )
    return url


def make_engine(url: str, *, pool_size: int = 20, max_overflow: int = 20):
    """A SQLAlchemy engine for ``url`` (PostgreSQL)."""
    sqlalchemy = require("sqlalchemy", "platform")
    return sqlalchemy.create_engine(
        normalise_url(url),
        pool_size=pool_size,
        max_overflow=max_overflow,
        pool_pre_ping=True,
        future=True,
    )


def _set_tenant(session, _transaction, connection) -> None:
    org = session.info.get("org_id")
    if org is not None:
        connection.exec_driver_sql("SELECT set_config('agentgym.org_id', %s, true)", (str(org),))


def sessionmaker_for(engine):
    """A sessionmaker whose sessions set their ``info["org_id"]`` as the tenant at the start of
    every transaction."""
    from sqlalchemy import event
    from sqlalchemy.orm import Session, sessionmaker

    class TenantSession(Session):
        pass

    event.listen(TenantSession, "after_begin", _set_tenant)
    return sessionmaker(engine, class_=TenantSession, expire_on_commit=False)


class TenantStore:
    """What the experience code needs of a store (``session()``, ``dialect``), for one tenant.

    Args:
        sessions: from :func:`sessionmaker_for`.
        org_id: the tenant; ``None`` reads :data:`current_org` when a session opens (the
            dashboard's requests).
    """

    dialect = "postgresql"

    def __init__(self, sessions, org_id: uuid.UUID | None = None) -> None:
        self._sessions = sessions
        self.org_id = org_id

    @property
    def engine(self):
        return self._sessions.kw["bind"]

    @contextmanager
    def session(self) -> Iterator:
        org = self.org_id if self.org_id is not None else current_org.get()
        if org is None:
            raise AgentGymError("no organisation for this request: log in first")
        with self._sessions() as s:
            s.info["org_id"] = org
            try:
                yield s
                s.commit()
            except BaseException:
                s.rollback()
                raise

    def __repr__(self) -> str:
        return f"TenantStore({self.engine.url.render_as_string(hide_password=True)!r})"


class SessionStore:
    """The experience code's store interface over one open session (the request's
    transaction): what it writes commits or rolls back with the request."""

    dialect = "postgresql"

    def __init__(self, session) -> None:
        self._s = session

    @contextmanager
    def session(self) -> Iterator:
        yield self._s
        self._s.flush()


def alembic_config(url: str):
    """Alembic's configuration for the platform's migrations (experience and platform
    revisions in one graph)."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(_MIGRATIONS))
    cfg.set_main_option("path_separator", "os")
    cfg.set_main_option("version_locations", f"{_MIGRATIONS / 'versions'}:{_EXPERIENCE_VERSIONS}")
    cfg.set_main_option("sqlalchemy.url", normalise_url(url).replace("%", "%%"))
    return cfg


def migrate(admin_url: str, revision: str = "heads") -> None:
    """Upgrade the database at ``admin_url`` (as its owner) to ``revision`` (all heads)."""
    from alembic import command

    alembic_log = logging.getLogger("alembic")
    if alembic_log.level == logging.NOTSET:
        alembic_log.setLevel(logging.WARNING)
    engine = make_engine(admin_url, pool_size=1, max_overflow=0)
    try:
        cfg = alembic_config(admin_url)
        with engine.begin() as conn:
            conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK_KEY})")
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, revision)
    finally:
        engine.dispose()


def check_app_role(engine) -> None:
    """Refuse to serve as a role that row-level security does not bind (a superuser, a role
    with ``BYPASSRLS``, or the owner of the tables), with the mend."""
    with engine.connect() as conn:
        role, superuser, bypass = conn.exec_driver_sql(
            "SELECT current_user, rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user"
        ).one()
        owns = conn.exec_driver_sql(
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tableowner = current_user"
        ).scalar()
        migrated = conn.exec_driver_sql("SELECT to_regclass('public.organisations')").scalar()
    if not migrated:
        raise AgentGymError(
            "the platform's tables are missing: run agentgym platform migrate "
            "--database-url <the database owner's URL> first"
        )
    if superuser or bypass or owns:
        why = "a superuser" if superuser else "BYPASSRLS" if bypass else "the tables' owner"
        raise AgentGymError(
            f"the service connects as {role!r}, which is {why}: row-level security would not "
            "apply. Connect as a login role that is only a member of agentgym_tenant "
            "(CREATE ROLE app LOGIN PASSWORD '...' IN ROLE agentgym_tenant)"
        )


__all__ = [
    "SessionStore",
    "TenantStore",
    "alembic_config",
    "check_app_role",
    "current_org",
    "make_engine",
    "migrate",
    "normalise_url",
    "sessionmaker_for",
]
