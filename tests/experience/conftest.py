"""Fixtures of the experience tests: benchmark runs made by the real runner, and stores on
SQLite and on a real PostgreSQL server started here (skipped with the reason where it cannot)."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("alembic")


def _pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def _run(cmd: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Postgres:
    """A throwaway PostgreSQL cluster in a temp folder, on a free port of 127.0.0.1."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.data = root / "data"
        self.port = _free_port()
        self.prefix: list[str] = []
        self.error: str | None = None

    def start(self) -> None:
        initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
        if not initdb or not pg_ctl:
            self.error = "PostgreSQL is not installed (apt-get install postgresql)"
            return
        try:
            import psycopg  # noqa: F401
        except ImportError:
            self.error = 'the psycopg driver is not installed (pip install "psycopg[binary]")'
            return
        if os.geteuid() == 0:  # postgres refuses to run as root: run it as the postgres user
            if shutil.which("runuser") is None:
                self.error = (
                    "running as root without runuser: cannot start PostgreSQL as another user"
                )
                return
            try:
                import pwd

                pw = pwd.getpwnam("postgres")
            except KeyError:
                self.error = "running as root and there is no 'postgres' user to run PostgreSQL as"
                return
            self.prefix = ["runuser", "-u", "postgres", "--"]
            self.root.chmod(0o700)
            os.chown(self.root, pw.pw_uid, pw.pw_gid)
        r = _run(
            [
                *self.prefix,
                initdb,
                "-D",
                str(self.data),
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
            ]
        )
        if r.returncode != 0:
            self.error = f"initdb failed: {r.stderr.strip()[-300:]}"
            return
        opts = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} -c fsync=off -c full_page_writes=off"
        r = _run(
            [
                *self.prefix,
                pg_ctl,
                "-D",
                str(self.data),
                "-o",
                opts,
                "-l",
                str(self.root / "log"),
                "-w",
                "-t",
                "60",
                "start",
            ]
        )
        if r.returncode != 0:
            log = (self.root / "log").read_text() if (self.root / "log").exists() else r.stderr
            self.error = f"pg_ctl start failed: {log.strip()[-300:]}"

    def url(self, db: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{db}"

    def create_database(self) -> str:
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(
            f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True
        ) as c:
            c.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        pg_ctl = _pg_bin("pg_ctl")
        if pg_ctl and self.data.exists():
            _run([*self.prefix, pg_ctl, "-D", str(self.data), "-m", "immediate", "-w", "stop"])


@pytest.fixture(scope="session")
def postgres():
    """A running PostgreSQL server for this test session (skip with the reason if none)."""
    # not under pytest's temp root: that is private to this user, and the server may run as
    # the postgres user
    root = Path(tempfile.mkdtemp(prefix="agentgym-pg-"))
    server = _Postgres(root)
    try:
        server.start()
        if server.error:
            pytest.skip(f"no PostgreSQL for the tests: {server.error}")
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    """An empty, migrated store: on SQLite (a file) and on PostgreSQL (a fresh database)."""
    from agentgym_envs.experience import open_store

    if request.param == "sqlite":
        s = open_store(tmp_path / "experience.db")
    else:
        s = open_store(request.getfixturevalue("postgres").create_database())
    yield s
    s.close()


@pytest.fixture
def sqlite_store(tmp_path):
    from agentgym_envs.experience import open_store

    s = open_store(tmp_path / "experience.db")
    yield s
    s.close()


@pytest.fixture(scope="session")
def bench_runs(tmp_path_factory) -> dict[str, Path]:
    """Run folders written by the real benchmark runner: the expert and the random policy on the
    first 10 tasks of Maze and Wordle, and the expert on 3 BabyAI tasks."""
    from agentgym_envs.benchmarks.policies import expert_spec, random_spec
    from agentgym_envs.benchmarks.runner import run_benchmark

    root = tmp_path_factory.mktemp("runs")
    out = {}
    for name, spec in (("expert", expert_spec()), ("random", random_spec())):
        out[name] = root / name
        run_benchmark("Maze-v0,Wordle-v0", spec, out=out[name], limit=10, reports=False)
    out["babyai"] = root / "babyai"
    run_benchmark("BabyAI-v0", expert_spec(), out=out["babyai"], limit=3, reports=False)
    return out


def wait_for(predicate, timeout: float = 60.0, interval: float = 0.05) -> bool:
    """Poll ``predicate`` until it is true or ``timeout`` seconds pass (no timing asserts)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()
