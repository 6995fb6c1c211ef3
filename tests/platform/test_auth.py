"""Keys and roles: a revoked key fails at once, a rotated key is replaced in one step, scopes
and roles decide what a caller may do (on the API and in the dashboard), logins end."""

from __future__ import annotations

import pytest

from agentgym_envs.platform import AgentGym, PlatformError
from tests.platform.helpers import as_key, count, login


def test_a_revoked_key_fails_at_once(platform):
    with as_key(platform.url, platform.a.key) as admin:
        made = admin.post("/v1/keys", json={"name": "ci", "scopes": ["read", "write"]}).json()
        assert "key" in made and made["key"].startswith("agk_")
        with as_key(platform.url, made["key"]) as ci:
            assert ci.get("/v1/agents").status_code == 200  # works, and the connection is warm
            assert admin.post(f"/v1/keys/{made['id']}/revoke").status_code == 200
            r = ci.get("/v1/agents")  # the very next request, same connection
            assert r.status_code == 401 and "revoked" in r.json()["detail"]
            assert ci.post("/v1/agents", json={"name": "x"}).status_code == 401
        listed = {k["id"]: k for k in admin.get("/v1/keys").json()}
        assert listed[made["id"]]["revoked_at"] is not None


def test_keys_are_hashed_at_rest(platform):
    with as_key(platform.url, platform.a.key) as admin:
        made = admin.post("/v1/keys", json={"name": "hashed"}).json()
    secret = made["key"].rsplit("_", 1)[1]
    assert (
        count(
            platform.owner_url,
            f"SELECT count(*) FROM api_keys WHERE secret_hash LIKE '%{secret[:20]}%'",
        )
        == 0
    )
    assert (
        count(platform.owner_url, f"SELECT count(*) FROM api_keys WHERE id = '{made['id']}'") == 1
    )


def test_rotation_replaces_a_key_in_one_step(platform):
    with as_key(platform.url, platform.a.key) as admin:
        old = admin.post("/v1/keys", json={"name": "rotating", "scopes": ["read"]}).json()
        new = admin.post(f"/v1/keys/{old['id']}/rotate").json()
        assert new["scopes"] == ["read"] and new["rotated_from"] == old["id"]
        assert admin.post(f"/v1/keys/{old['id']}/rotate").status_code == 409
    with as_key(platform.url, old["key"]) as c:
        assert c.get("/v1/agents").status_code == 401
    with as_key(platform.url, new["key"]) as c:
        assert c.get("/v1/agents").status_code == 200


def test_a_forged_or_malformed_key_is_refused(platform):
    org, rest = platform.a.key[4:36], platform.a.key[36:]
    forged = f"agk_{platform.b.org_id.replace('-', '')}{rest}"  # A's key id and secret, B's org
    for key in (forged, "agk_nonsense", platform.a.key[:-2] + "xx", "x"):
        with as_key(platform.url, key) as c:
            assert c.get("/v1/agents").status_code == 401, key
    assert org


def test_scopes_limit_a_key(platform):
    with as_key(platform.url, platform.a.key) as admin:
        reader = admin.post("/v1/keys", json={"name": "reader", "scopes": ["read"]}).json()["key"]
        bad = admin.post("/v1/keys", json={"name": "x", "scopes": ["root"]})
        assert bad.status_code == 400 and "use some of" in bad.json()["detail"]
    with as_key(platform.url, reader) as c:
        assert c.get("/v1/agents").status_code == 200
        assert c.post("/v1/agents", json={"name": "nope"}).status_code == 403
        assert c.get("/v1/keys").status_code == 403


@pytest.fixture(scope="module")
def people(platform):
    """A viewer and an annotator of organisation A, and an execution to judge."""
    with as_key(platform.url, platform.a.key) as admin:
        for role in ("viewer", "annotator"):
            r = admin.post(
                "/v1/users",
                json={
                    "email": f"{role}@org-a.example",
                    "role": role,
                    "password": f"{role}-password",
                },
            )
            assert r.status_code in (201, 409)
    gym = AgentGym(api_key=platform.a.key, base_url=platform.url)
    agent_id = gym.register_agent(name="Roles", description="", version="1")
    ex = gym.record_execution(agent_id, "q", "a", success=True)
    eid = gym.get_execution(agent_id, ex.execution_id)["id"]
    gym.close()
    return {"agent_id": agent_id, "execution_id": ex.execution_id, "episode_id": eid}


def test_roles_on_the_dashboard(platform, people):
    feedback = {"episode_id": people["episode_id"], "label": "good", "author": "someone"}
    with login(platform.url, "org-a", "viewer@org-a.example", "viewer-password") as viewer:
        assert viewer.get(f"/episodes/{people['episode_id']}").status_code == 200
        r = viewer.post("/api/feedback", json=feedback)
        assert r.status_code == 403 and "feedback" in r.json()["error"]
        assert viewer.post("/versions/promote", data={"label": "Roles@1"}).status_code == 403
    with login(platform.url, "org-a", "annotator@org-a.example", "annotator-password") as annotator:
        assert annotator.post("/api/feedback", json=feedback).status_code == 201
        assert annotator.post("/versions/promote", data={"label": "Roles@1"}).status_code == 403
    with login(platform.url, "org-a", platform.a.admin) as admin:
        assert admin.post("/versions/promote", data={"label": "Roles@1"}).status_code == 303


def test_roles_on_the_api(platform, people):
    path = f"/v1/agents/{people['agent_id']}/executions/{people['execution_id']}/feedback"
    with login(platform.url, "org-a", "viewer@org-a.example", "viewer-password") as viewer:
        assert viewer.get(path).status_code == 200
        assert viewer.post(path, json={"label": "bad"}).status_code == 403
        assert viewer.get("/v1/users").status_code == 403
    with login(platform.url, "org-a", "annotator@org-a.example", "annotator-password") as annotator:
        r = annotator.post(path, json={"label": "bad", "comment": "judged"})
        assert r.status_code == 201 and r.json()["author"] == "annotator@org-a.example"
        assert annotator.post("/v1/agents", json={"name": "x"}).status_code == 403
        assert annotator.post("/v1/keys", json={}).status_code == 403
    with login(platform.url, "org-a", platform.a.admin) as admin:
        users = {u["email"]: u for u in admin.get("/v1/users").json()}
        uid = users["viewer@org-a.example"]["id"]
        assert admin.patch(f"/v1/users/{uid}", json={"role": "annotator"}).status_code == 200
        assert admin.patch(f"/v1/users/{uid}", json={"role": "root"}).status_code == 400
    with login(platform.url, "org-a", "viewer@org-a.example", "viewer-password") as promoted:
        assert promoted.post(path, json={"label": "good"}).status_code == 201
    with login(platform.url, "org-a", platform.a.admin) as admin:
        assert (
            admin.patch(f"/v1/users/{uid}", json={"role": "viewer", "active": False}).status_code
            == 200
        )


def test_login_logout_and_wrong_passwords(platform):
    import httpx

    with httpx.Client(base_url=platform.url, timeout=60) as c:
        r = c.get("/runs/1")
        assert r.status_code == 303 and r.headers["location"].startswith("/login?next=")
        assert c.get("/api/runs").status_code == 401
        for org, email, pw in (
            ("org-a", platform.a.admin, "wrong password"),
            ("org-b", platform.a.admin, "correct horse battery"),
            ("nope", "x@y.z", "whatever1"),
        ):
            r = c.post("/login", data={"org": org, "email": email, "password": pw})
            assert r.status_code == 401 and "Wrong organisation, email or password" in r.text
        r = c.post(
            "/login",
            data={
                "org": "org-a",
                "email": platform.a.admin,
                "password": "correct horse battery",
                "next": "//evil.example/x",
            },
        )
        assert r.status_code == 303 and r.headers["location"] == "/"
        cookie = r.cookies["agentgym_session"]
        set_cookie = r.headers["set-cookie"].lower()
        assert "httponly" in set_cookie and "samesite=strict" in set_cookie
        assert c.get("/api/runs").status_code == 200
        assert c.post("/logout").status_code == 303
        assert c.get("/api/runs").status_code == 401
    with httpx.Client(
        base_url=platform.url, timeout=60, cookies={"agentgym_session": cookie}
    ) as stolen:
        assert stolen.get("/api/runs").status_code == 401  # the ended login is dead server-side


def test_a_write_from_another_site_is_refused(platform):
    with login(platform.url, "org-a", platform.a.admin) as admin:
        r = admin.post(
            "/v1/agents", json={"name": "csrf"}, headers={"Origin": "http://evil.example"}
        )
        assert r.status_code == 403
        r = admin.post(
            "/api/feedback",
            json={"episode_id": 1, "label": "bad", "author": "x"},
            headers={"Sec-Fetch-Site": "cross-site"},
        )
        assert r.status_code == 403
        r = admin.post(
            "/api/feedback",
            content="episode_id=1",
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        assert r.status_code == 415
    with pytest.raises(PlatformError):
        AgentGym(api_key=platform.a.key, base_url=platform.url, retries=0).get_agent("not-a-uuid")


def test_a_revoked_key_fails_at_once_on_every_service_process(platform, tmp_path):
    """Two ``agentgym platform serve`` processes on one database (replicas behind a balancer):
    a key revoked through one is refused by the other on its very next request -- keys are
    checked in the database on every request, no process keeps a copy."""
    from tests.platform.conftest import serve, stop

    proc, other = serve(platform.app_url, tmp_path / "second.log")
    try:
        with as_key(platform.url, platform.a.key) as admin:
            made = admin.post("/v1/keys", json={"name": "replicas", "scopes": ["read"]}).json()
            with as_key(other, made["key"]) as there:
                assert there.get("/v1/agents").status_code == 200  # known, connection warm
                assert admin.post(f"/v1/keys/{made['id']}/revoke").status_code == 200
                assert there.get("/v1/agents").status_code == 401
            # a rotated key: the old one stops and the new one works on the other process too
            made = admin.post("/v1/keys", json={"name": "rotated", "scopes": ["read"]}).json()
            new = admin.post(f"/v1/keys/{made['id']}/rotate").json()
            with as_key(other, made["key"]) as old, as_key(other, new["key"]) as fresh:
                assert old.get("/v1/agents").status_code == 401
                assert fresh.get("/v1/agents").status_code == 200
        # a logout through one process ends the login on the other
        with login(platform.url, "org-a", platform.a.admin) as browser:
            cookie = browser.cookies.get("agentgym_session")
            import httpx

            with httpx.Client(base_url=other, cookies={"agentgym_session": cookie}) as twin:
                assert twin.get("/api/runs").status_code == 200
                browser.post("/logout")
                assert twin.get("/api/runs").status_code == 401
    finally:
        stop(proc)


def test_every_mutating_route_refuses_a_role_without_its_permission(platform, people):
    """Generated from the service's own routes: every write (API and dashboard) refuses a
    viewer's login and a read-only key with 403, and an annotator's login except the feedback
    writes -- before looking at the ids or the body -- and nothing is written."""
    import re

    from tests.platform.helpers import service_routes

    writes = [
        (m, re.sub(r"\{(\w+)(:\w+)?\}", r"{\1}", p))
        for m, p, _ in service_routes(platform.app_url)
        if m not in ("GET", "HEAD", "OPTIONS") and p not in ("/login", "/logout")
    ]
    assert len(writes) >= 15, writes
    ids = {
        "agent_id": people["agent_id"],
        "execution_id": people["execution_id"],
        "episode_id": str(people["episode_id"]),
        "key_id": "00000000-0000-4000-8000-000000000000",
        "user_id": "00000000-0000-4000-8000-000000000000",
        "job_id": "00000000-0000-4000-8000-000000000000",
    }
    with as_key(platform.url, platform.a.key) as admin:
        reader_key = admin.post("/v1/keys", json={"name": "ro", "scopes": ["read"]}).json()["key"]
        users = {u["email"]: u["id"] for u in admin.get("/v1/users").json()}
        for role in ("viewer", "annotator"):  # as the people fixture made them (active)
            r = admin.patch(
                f"/v1/users/{users[f'{role}@org-a.example']}", json={"role": role, "active": True}
            )
            assert r.status_code == 200, r.text
    rows = "SELECT (SELECT count(*) FROM episodes) + (SELECT count(*) FROM feedback) + (SELECT count(*) FROM agents) + (SELECT count(*) FROM api_keys) + (SELECT count(*) FROM users)"
    before = count(platform.owner_url, rows)
    with (
        login(platform.url, "org-a", "viewer@org-a.example", "viewer-password") as viewer,
        login(platform.url, "org-a", "annotator@org-a.example", "annotator-password") as annotator,
        as_key(platform.url, reader_key) as reader,
    ):
        for method, path in writes:
            url = path.format(**ids)
            body = {"label": "bad", "episode_id": people["episode_id"], "name": "x", "version": "9"}
            for who, caller in (("viewer", viewer), ("read key", reader), ("annotator", annotator)):
                if who == "annotator" and "feedback" in path:
                    continue  # the annotator's own permission
                r = caller.request(method, url, json=body)
                assert r.status_code == 403, (who, method, path, r.status_code, r.text[:200])
    assert count(platform.owner_url, rows) == before
