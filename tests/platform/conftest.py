"""Fixtures of the platform tests: a real PostgreSQL server (started here, as the experience
tests start theirs), the platform's database migrated by its owner, two organisations, and
``agentgym platform serve`` running as the service's own login role (row-level security
binds it: it is neither superuser nor owner)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("argon2")
pytest.importorskip("httpx")

from tests.experience.conftest import _free_port, _Postgres

REPO = Path(__file__).resolve().parents[2]
#: Set by ``.ci/run``: what these tests need (PostgreSQL, pgvector, Chromium and their Python
#: packages) missing fails them instead of skipping them, so CI cannot pass without running them.
REQUIRE = "AGENTGYM_REQUIRE_PLATFORM"


def missing_prerequisites() -> list[str]:
    """What the platform tests need that this machine lacks (each with its mend)."""
    import glob
    import importlib.util

    lacking = []
    if not glob.glob("/usr/lib/postgresql/*/bin/initdb"):
        lacking.append("PostgreSQL (apt-get install postgresql)")
    if not glob.glob("/usr/share/postgresql/*/extension/vector.control"):
        lacking.append("pgvector (bash .ci/pgvector.sh)")
    from agentgym_envs.browser import chromium_path

    if chromium_path() is None:
        lacking.append("Chromium (apt-get install chromium)")
    for module, package in (
        ("psycopg", "psycopg"),
        ("pgvector", "pgvector"),
        ("procrastinate", "procrastinate"),
        ("argon2", "argon2-cffi"),
        ("playwright", "playwright"),
        ("prometheus_client", "prometheus-client"),
    ):
        if importlib.util.find_spec(module) is None:
            lacking.append(f"{package} (pip install -e '.[all,test]')")
    return lacking


@pytest.fixture(scope="session", autouse=True)
def _prerequisites():
    """Under ``$AGENTGYM_REQUIRE_PLATFORM=1`` (CI), fail at once when anything is missing."""
    if os.environ.get(REQUIRE) == "1":
        lacking = missing_prerequisites()
        if lacking:
            pytest.fail(f"{REQUIRE}=1 but the platform tests lack: {', '.join(lacking)}")


APP_ROLE = "agentgym_app"
PASSWORD = "correct horse battery"


@dataclass
class Org:
    slug: str
    org_id: str
    key: str  # an admin key (all scopes)
    admin: str  # the admin user's email


@dataclass
class Platform:
    url: str  # the service's base URL
    owner_url: str
    app_url: str
    a: Org
    b: Org
    log: Path


@pytest.fixture(scope="session")
def pg_server():
    import shutil

    root = Path(tempfile.mkdtemp(prefix="agentgym-platform-pg-"))
    server = _Postgres(root)
    try:
        server.start()
        if server.error:
            if os.environ.get(REQUIRE) == "1":
                pytest.fail(f"{REQUIRE}=1 but PostgreSQL did not start: {server.error}")
            pytest.skip(f"no PostgreSQL for the tests: {server.error}")
        import psycopg

        with psycopg.connect(
            f"host=127.0.0.1 port={server.port} user=postgres dbname=postgres", autocommit=True
        ) as c:
            c.execute(f"CREATE ROLE {APP_ROLE} LOGIN")
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


def make_database(server) -> tuple[str, str]:
    """A fresh, migrated platform database: (owner URL, service URL)."""
    from agentgym_envs.platform.admin import grant_service_role
    from agentgym_envs.platform.db import migrate

    owner = server.create_database()
    migrate(owner)
    grant_service_role(owner, APP_ROLE)
    app = owner.replace("://postgres@", f"://{APP_ROLE}@")
    return owner, app


def make_org(owner_url: str, slug: str) -> Org:
    from agentgym_envs.platform.admin import create_organisation

    made = create_organisation(
        owner_url, slug, admin_email=f"admin@{slug}.example", admin_password=PASSWORD
    )
    return Org(slug, str(made.org_id), made.api_key, f"admin@{slug}.example")


def wait_healthy(url: str, proc: subprocess.Popen, log: Path, timeout: float = 120) -> None:
    import httpx

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"the platform exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(url + "/healthz", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"the platform did not come up: {log.read_text()[-2000:]}")


def serve(app_url: str, log: Path) -> tuple[subprocess.Popen, str]:
    """``agentgym platform serve`` (this worktree's code) on a free port."""
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("AGENTGYM_PLATFORM_DATABASE_URL", None)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentgym_envs.cli",
            "platform",
            "serve",
            "--database-url",
            app_url,
            "--port",
            str(port),
        ],
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        env=env,
        cwd=REPO,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, log)
    except BaseException:
        proc.kill()
        raise
    return proc, url


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="session")
def platform(pg_server, tmp_path_factory) -> Platform:
    owner, app = make_database(pg_server)
    a, b = make_org(owner, "org-a"), make_org(owner, "org-b")
    log = tmp_path_factory.mktemp("platform") / "serve.log"
    proc, url = serve(app, log)
    try:
        yield Platform(url, owner, app, a, b, log)
    finally:
        stop(proc)
