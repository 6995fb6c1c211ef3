"""Open the experience store: SQLite under the user's data folder by default, or any URL.

The schema is kept by Alembic: :func:`open_store` upgrades the database to the newest
migration before handing it out, so a store written by an older release is migrated in place.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path

from agentgym_envs.errors import AgentGymError, require
from agentgym_envs.locks import file_lock

logger = logging.getLogger(__name__)

#: The store's file name under the data folder.
DB_FILE = "experience.db"
#: Environment variable with a full SQLAlchemy URL (``postgresql+psycopg://...``).
URL_ENV = "AGENTGYM_EXPERIENCE_URL"
#: Environment variable naming agentgym's data folder (default: the platform's user data dir).
HOME_ENV = "AGENTGYM_HOME"
_MIGRATIONS = Path(__file__).with_name("migrations")
#: PostgreSQL advisory lock key the migrations run under (one migration at a time per database).
MIGRATION_LOCK_KEY = 0x61676D6967  # "agmig"


def data_dir() -> Path:
    """``$AGENTGYM_HOME``, else the platform's user data folder for ``agentgym``."""
    home = os.environ.get(HOME_ENV)
    if home:
        return Path(home).expanduser()
    platformdirs = require("platformdirs", "experience")
    return Path(platformdirs.user_data_dir("agentgym", appauthor=False))


def default_url() -> str:
    """``$AGENTGYM_EXPERIENCE_URL``, else SQLite at ``<data dir>/experience.db``."""
    url = os.environ.get(URL_ENV)
    if url:
        return url
    return f"sqlite:///{data_dir() / DB_FILE}"


def _normalise_url(url: str) -> str:
    if "://" not in url:  # a plain file path
        return f"sqlite:///{Path(url).expanduser().resolve()}"
    if url.startswith(("postgresql://", "postgres://")):
        # psycopg 3 is the driver the extra installs; SQLAlchemy's bare scheme means psycopg2
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def _alembic_config(url: str):
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(_MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


class ExperienceStore:
    """A connection to the experience database (see :func:`open_store`).

    Use :meth:`session` for a unit of work: it commits when the block ends and rolls back
    when it raises, so a killed or failed writer never leaves half its work behind.
    """

    def __init__(
        self, url: str | os.PathLike[str] | None = None, *, upgrade: bool = True, echo: bool = False
    ) -> None:
        sqlalchemy = require("sqlalchemy", "experience")
        from sqlalchemy.orm import sessionmaker

        raw = default_url() if url is None else str(url)
        self.url = _normalise_url(raw)
        kwargs: dict = {"echo": echo, "future": True}
        if self.url.startswith("sqlite"):
            path = self.url.split("///", 1)[-1]
            if path and path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            kwargs["connect_args"] = {"timeout": 60, "check_same_thread": False}
        try:
            self.engine = sqlalchemy.create_engine(self.url, **kwargs)
        except ModuleNotFoundError as exc:
            raise AgentGymError(
                f"the database driver {exc.name!r} for {self.url.split('://')[0]} is not installed: "
                'pip install "psycopg[binary]" for PostgreSQL'
            ) from None
        if self.engine.dialect.name == "sqlite":
            sqlalchemy.event.listen(self.engine, "connect", _sqlite_pragmas)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        if upgrade:
            self.upgrade()

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def upgrade(self, revision: str = "head") -> None:
        """Bring the schema to ``revision`` (Alembic ``upgrade``)."""
        alembic_log = logging.getLogger("alembic")
        if alembic_log.level == logging.NOTSET:  # its INFO lines are noise on every open
            alembic_log.setLevel(logging.WARNING)
        from alembic import command

        cfg = _alembic_config(self.url)
        with self._migration_lock(), self.engine.begin() as conn:
            if self.dialect == "postgresql":  # held until this transaction ends
                conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK_KEY})")
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, revision)

    def _migration_lock(self) -> AbstractContextManager[None]:
        """Processes opening one SQLite file migrate it one at a time (a lock file next to it:
        two first opens would both create the tables); PostgreSQL takes an advisory lock in
        the migration's transaction instead."""
        database = self.engine.url.database if self.dialect == "sqlite" else None
        if not database or database == ":memory:" or database.startswith("file:"):
            return nullcontext()
        path = Path(database).expanduser().resolve()
        return file_lock(path.with_name(path.name + ".migrate.lock"))

    def revision(self) -> str | None:
        """The schema revision the database is at (``None`` before the first migration)."""
        from alembic.runtime.migration import MigrationContext

        with self.engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()

    @contextmanager
    def session(self) -> Iterator:
        """A :class:`sqlalchemy.orm.Session` committed at the end of the block."""
        with self._sessions() as s:
            try:
                yield s
                s.commit()
            except BaseException:
                s.rollback()
                raise

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ExperienceStore({self.engine.url.render_as_string(hide_password=True)!r})"


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cur = dbapi_connection.cursor()
    # WAL lets the dashboard read while an import writes; foreign keys make cascades real
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


def open_store(url: str | os.PathLike[str] | None = None, **kwargs) -> ExperienceStore:
    """Open (and migrate) the store at ``url``: a SQLAlchemy URL, a file path, or ``None`` for
    :func:`default_url`."""
    return ExperienceStore(url, **kwargs)


__all__ = [
    "DB_FILE",
    "HOME_ENV",
    "URL_ENV",
    "ExperienceStore",
    "data_dir",
    "default_url",
    "open_store",
]
