"""``agentgym platform``: migrate (and Alembic's own command line), create-org, and serve's
refusal of a connection that row-level security would not bind."""

from __future__ import annotations

import os
import subprocess
import sys

import httpx

from tests.platform.conftest import APP_ROLE, REPO, make_org


def _agentgym(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agentgym_envs.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "200", **(env or {})},
        check=False,
    )


def test_migrate_create_org_and_serve_refusing_the_owner(pg_server):
    owner = pg_server.create_database()
    r = _agentgym("platform", "migrate", "--database-url", owner, "--grant-to", APP_ROLE)
    assert r.returncode == 0, r.stderr
    again = _agentgym("platform", "migrate", "--database-url", owner)  # nothing left to do
    assert again.returncode == 0, again.stderr
    r = _agentgym(
        "platform", "create-org", "cli-org", "--admin-email", "a@cli.example",
        env={"AGENTGYM_PLATFORM_ADMIN_URL": owner, "AGENTGYM_ADMIN_PASSWORD": "long enough pw"},
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    key = r.stdout.strip().splitlines()[-1]
    assert key.startswith("agk_")
    dup = _agentgym("platform", "create-org", "cli-org", "--database-url", owner)
    assert dup.returncode == 2 and "exists already" in dup.stderr
    bad = _agentgym("platform", "create-org", "Bad Slug!", "--database-url", owner)
    assert bad.returncode == 2 and "lower-case" in bad.stderr
    refused = _agentgym("platform", "serve", "--database-url", owner, "--port", "1")
    assert refused.returncode == 2
    assert "row-level security would not apply" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    missing = _agentgym("platform", "serve", env={"AGENTGYM_PLATFORM_DATABASE_URL": ""})
    assert missing.returncode == 2 and "--database-url" in missing.stderr


def test_alembic_command_line_upgrades_heads(pg_server):
    owner = pg_server.create_database()
    ini = REPO / "agentgym_envs" / "platform" / "migrations" / "alembic.ini"
    env = {**os.environ, "PYTHONPATH": str(REPO), "AGENTGYM_PLATFORM_ADMIN_URL": owner}
    r = subprocess.run(
        [sys.executable, "-m", "alembic", "-c", str(ini), "upgrade", "heads"],
        capture_output=True, text=True, timeout=300, env=env, cwd=REPO, check=False,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    r = subprocess.run(
        [sys.executable, "-m", "alembic", "-c", str(ini), "heads"],
        capture_output=True, text=True, timeout=300, env=env, cwd=REPO, check=False,
    )  # fmt: skip
    assert r.stdout.strip().splitlines() == [r.stdout.strip()]  # one head (p0002, after jobs_0001)
    assert r.stdout.split()[0] == "p0002" and {"platform", "ops", "jobs"} <= set(
        r.stdout.split("(")[1].rstrip(") ").replace(",", " ").split()
    )
    org = make_org(owner, "alembic-org")
    assert org.key.startswith("agk_")


def test_serve_answers_only_its_hosts(platform):
    r = httpx.get(platform.url + "/healthz", headers={"Host": "evil.example"})
    assert r.status_code == 400 and "not served here" in r.text
