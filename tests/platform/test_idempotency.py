"""Idempotency keys expire after the service's retention (24 h by default): a retry inside it
records once, the same key for another request is a 422, an expired key is claimed anew, and
each new claim prunes a bounded batch of the tenant's expired keys -- never another tenant's.
Against ``agentgym platform serve`` over a real PostgreSQL (ages set by the database owner)."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from agentgym_envs.errors import AgentGymError
from agentgym_envs.platform.api import PRUNE_BATCH, idempotency_retention
from tests.platform.helpers import as_key, count


def _owner(platform, sql: str, params=()) -> None:
    """Run ``sql`` as the database owner with row-level security off."""
    dsn = platform.owner_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(dsn) as c:
        c.execute("SET row_security = off")
        c.execute(sql, params)


def _execution(c, agent_id: str, key: str, body: dict):
    return c.post(f"/v1/agents/{agent_id}/executions", json=body, headers={"Idempotency-Key": key})


def test_a_retry_inside_the_window_records_once_and_another_body_is_refused(platform):
    with as_key(platform.url, platform.a.key) as c:
        agent_id = c.post("/v1/agents", json={"name": "Expiry", "version": "1"}).json()["id"]
        key, body = str(uuid.uuid4()), {"input": "q", "output": "a"}  # no execution id of its own
        first = _execution(c, agent_id, key, body)
        _owner(  # 23 h later: still inside the 24 h window
            platform,
            "UPDATE idempotency_keys SET created_at = now() - interval '23 hours' WHERE key = %s",
            (key,),
        )
        again = _execution(c, agent_id, key, body)
        assert first.status_code == again.status_code == 201
        assert again.headers.get("idempotent-replayed") == "true"
        assert again.json()["execution_id"] == first.json()["execution_id"]
        other = _execution(c, agent_id, key, {**body, "output": "b"})
        assert other.status_code == 422
        assert "another request" in other.json()["detail"] and "new key" in other.json()["detail"]
        listed = c.get(f"/v1/agents/{agent_id}/executions").json()
    assert [e["execution_id"] for e in listed] == [first.json()["execution_id"]]


def test_an_expired_key_is_claimed_anew(platform):
    with as_key(platform.url, platform.a.key) as c:
        agent_id = c.post("/v1/agents", json={"name": "Expired", "version": "1"}).json()["id"]
        key, body = str(uuid.uuid4()), {"input": "q", "output": "a"}
        first = _execution(c, agent_id, key, body).json()["execution_id"]
        _owner(
            platform,
            "UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = %s",
            (key,),
        )
        # past the retention the key means nothing: this is a new request (and may differ)
        later = _execution(c, agent_id, key, {**body, "output": "b"})
        assert later.status_code == 201 and "idempotent-replayed" not in later.headers
        assert later.json()["execution_id"] != first
        assert _execution(c, agent_id, key, {**body, "output": "b"}).headers.get(
            "idempotent-replayed"
        )  # and the key is remembered again from now on


def test_a_new_claim_prunes_a_bounded_batch_of_its_own_tenants_expired_keys(platform):
    tag = uuid.uuid4().hex[:8]
    rows = [(platform.a.org_id, f"old-a-{tag}-{i}") for i in range(PRUNE_BATCH + 20)]
    rows += [(platform.b.org_id, f"old-b-{tag}-{i}") for i in range(5)]
    rows += [(platform.a.org_id, f"new-a-{tag}")]
    dsn = platform.owner_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(dsn) as conn:
        conn.execute("SET row_security = off")
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO idempotency_keys (org_id, key, request_hash, created_at) "
                "VALUES (%s, %s, 'x', now() - interval '30 hours')",
                rows[:-1],
            )
            cur.execute(
                "INSERT INTO idempotency_keys (org_id, key, request_hash, created_at) "
                "VALUES (%s, %s, 'x', now() - interval '1 hour')",
                rows[-1],
            )

    def left(prefix: str) -> int:
        return count(
            platform.owner_url,
            f"SELECT count(*) FROM idempotency_keys WHERE key LIKE '{prefix}-{tag}%'",
        )

    with as_key(platform.url, platform.a.key) as c:
        r = c.post("/v1/agents", json={"name": f"Prune {tag}"}, headers={"Idempotency-Key": tag})
        assert r.status_code == 201
        assert left("old-a") <= 20  # one write deleted at most a batch (the oldest first)...
        r = c.post(
            "/v1/agents", json={"name": f"Prune2 {tag}"}, headers={"Idempotency-Key": tag + "2"}
        )
        assert r.status_code == 201
    assert left("old-a") == 0  # ...and the next one the rest
    assert left("old-b") == 5  # another tenant's rows are not even seen
    assert left("new-a") == 1  # a key inside the window stays


def test_the_retention_is_checked():
    assert idempotency_retention(None).total_seconds() > 0
    assert idempotency_retention("0.5").total_seconds() == 1800
    for bad in ("soon", 0, -1, "inf"):
        with pytest.raises(AgentGymError, match="positive number of hours"):
            idempotency_retention(bad)
