"""Row-level security for tenant-owned tables, for the platform's migrations (and any branch
that adds tables, such as ``ops``).

A tenant-owned table has ``org_id uuid NOT NULL``; :func:`enable_tenant_rls` enables and
forces row-level security on it with one policy: a row is visible and writable only when its
``org_id`` is the transaction's ``agentgym.org_id`` (which :mod:`agentgym_envs.platform.db`
sets with ``SET LOCAL`` semantics at the start of every transaction of a request). With no
tenant set, ``NULLIF(..., '')`` makes the expression null: no row is visible and no insert
passes, instead of an error about a missing setting.

The service connects as a role that is a member of :data:`TENANT_ROLE` (never the tables'
owner or a superuser: those bypass row-level security), and only tables given to that role
here are reachable at all.
"""

from __future__ import annotations

#: The group role the service's login role belongs to (``GRANT agentgym_tenant TO app``).
TENANT_ROLE = "agentgym_tenant"
#: The tenant of the current transaction (null when none is set).
CURRENT_ORG = "NULLIF(current_setting('agentgym.org_id', true), '')::uuid"
#: The policy's expression.
POLICY = f"org_id = {CURRENT_ORG}"


def create_tenant_role(op) -> None:
    """Create :data:`TENANT_ROLE` (``NOLOGIN``) if the cluster has none yet."""
    op.execute(
        "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = "
        f"'{TENANT_ROLE}') THEN CREATE ROLE {TENANT_ROLE} NOLOGIN; END IF; END $$"
    )


def enable_tenant_rls(
    op, table: str, *, privileges: str = "SELECT, INSERT, UPDATE, DELETE"
) -> None:
    """Enable and force row-level security on ``table`` with the tenant policy, and grant
    ``privileges`` on it to :data:`TENANT_ROLE`."""
    op.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
    op.execute(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY")
    op.execute(f"CREATE POLICY tenant_isolation ON {table} USING ({POLICY}) WITH CHECK ({POLICY})")
    op.execute(f"GRANT {privileges} ON {table} TO {TENANT_ROLE}")


def disable_tenant_rls(op, table: str) -> None:
    """Undo :func:`enable_tenant_rls`."""
    op.execute(f"REVOKE ALL ON {table} FROM {TENANT_ROLE}")
    op.execute(f"DROP POLICY IF EXISTS tenant_isolation ON {table}")
    op.execute(f"ALTER TABLE {table} NO FORCE ROW LEVEL SECURITY")
    op.execute(f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY")


__all__ = [
    "CURRENT_ORG",
    "POLICY",
    "TENANT_ROLE",
    "create_tenant_role",
    "disable_tenant_rls",
    "enable_tenant_rls",
]
