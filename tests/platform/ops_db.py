"""A real PostgreSQL (with pgvector) for the platform-operations tests: the ``ops`` migrations
applied by the superuser, and an application role that is *not* a superuser (superusers skip
row-level security), as the platform connects. ``tenant_session`` is the stand-in for the
platform's dependency: a SQLAlchemy session with ``SET LOCAL agentgym.org_id`` applied."""

from __future__ import annotations

import contextlib
import importlib.util
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("alembic")

ROOT = Path(__file__).resolve().parents[2]
VERSIONS = ROOT / "agentgym_envs" / "platform" / "migrations" / "versions"
APP_ROLE = "agentgym_app"
ORG_HEADER = "X-Test-Org"


def migration_modules() -> list:
    """The ``ops`` branch's migration modules, in revision order."""
    mods = {}
    for path in sorted(VERSIONS.glob("ops_*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        mods[mod.revision] = mod
    # the branch starts after the platform's own revision (applied or not: ops needs none of it)
    ordered, head = [], next(m.down_revision for m in mods.values() if m.down_revision not in mods)
    while True:
        nxt = [m for m in mods.values() if m.down_revision == head]
        if not nxt:
            return ordered
        ordered.append(nxt[0])
        head = nxt[0].revision


def apply_ops_migrations(url: str) -> None:
    """Run every ``ops`` migration's ``upgrade()`` on ``url`` (as alembic would)."""
    from alembic.operations import Operations
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy import create_engine

    engine = create_engine(url)
    with engine.begin() as conn:
        ctx = MigrationContext.configure(conn)
        with Operations.context(ctx):
            for mod in migration_modules():
                mod.upgrade()
    engine.dispose()


def pgvector_missing() -> str | None:
    import glob

    if not glob.glob("/usr/share/postgresql/*/extension/vector.control"):
        return "pgvector is not installed (bash .ci/pgvector.sh)"
    return None


def app_database(postgres) -> tuple[str, str]:
    """A fresh database with the ``ops`` schema: (superuser URL, application-role URL)."""
    import psycopg

    reason = pgvector_missing()
    if reason:
        pytest.skip(reason)
    admin = postgres.create_database()
    apply_ops_migrations(admin)
    name = admin.rsplit("/", 1)[-1]
    with psycopg.connect(
        f"host=127.0.0.1 port={postgres.port} user=postgres dbname={name}", autocommit=True
    ) as c:
        exists = c.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (APP_ROLE,)).fetchone()
        if not exists:
            c.execute(f"CREATE ROLE {APP_ROLE} LOGIN NOSUPERUSER NOBYPASSRLS")
        c.execute(f"GRANT ALL ON SCHEMA public TO {APP_ROLE}")
        c.execute(
            f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {APP_ROLE}"
        )
        c.execute(f"GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO {APP_ROLE}")
        c.execute(f"GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO {APP_ROLE}")
    app = f"postgresql+psycopg://{APP_ROLE}@127.0.0.1:{postgres.port}/{name}"
    return admin, app


@contextlib.contextmanager
def tenant(engine, org: str) -> Iterator:
    """A session of organisation ``org`` (one transaction, committed at the end)."""
    from sqlalchemy import text
    from sqlalchemy.orm import Session

    with Session(engine) as s, s.begin():
        s.execute(text("SELECT set_config('agentgym.org_id', :org, true)"), {"org": org})
        yield s


def tenant_dependency(engine):
    """The stand-in for ``agentgym_envs.platform.deps.tenant_session``: the organisation comes
    from the ``X-Test-Org`` header here (the platform takes it from the API key)."""
    from fastapi import Header

    def tenant_session(x_test_org: str = Header(...)) -> Iterator:
        uuid.UUID(x_test_org)
        with tenant(engine, x_test_org) as s:
            yield s

    return tenant_session
