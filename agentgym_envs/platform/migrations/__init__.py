"""Alembic migrations of the platform's PostgreSQL database (see :mod:`.rls`)."""
