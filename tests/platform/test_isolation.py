"""Tenant isolation: organisation B cannot read, write or even detect organisation A's agents,
versions, executions (episodes), feedback, splits, training jobs, keys or users -- through the API (every
endpoint that takes an id), the SDK and the dashboard -- and the database enforces it on its
own (row-level security), not only the handlers."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import text

from agentgym_envs.platform import AgentGym, PlatformError
from tests.platform.helpers import as_key, count, login

MISSING_UUID = "00000000-0000-4000-8000-000000000000"
MISSING_INT = 2_000_000_000


@pytest.fixture(scope="module")
def a_data(platform):
    """Everything organisation A has: an agent with two versions, executions (one with steps),
    feedback on an action and an outcome, a live split with a routed request, a second key,
    a viewer."""
    gym = AgentGym(api_key=platform.a.key, base_url=platform.url)

    def agent(query, history, trace):
        trace.step("lookup(order)", observation=query, result="order 7 shipped")
        return f"Your order shipped ({len(history)} earlier messages)."

    agent_id = gym.register_agent(
        name="Secret Support", description="A's", version="1.0.0", agent=agent
    )
    gym.register_version(agent_id, "1.1.0")
    ex = gym.execute_with_feedback(
        agent_id=agent_id, input_data="where is my order", context=["hi"]
    )
    gym.feedback_action(agent_id, ex.execution_id, 0, "good", comment="right tool")
    gym.feedback_outcome(agent_id, ex.execution_id, "bad", comment="too curt")
    gym.create_ab_test(agent_id, {"1.0.0": 50, "1.1.0": 50})
    routed = gym.execute_with_feedback(agent_id=agent_id, input_data="again", context=[], user="u1")
    job = gym.queue_training(
        agent_id, "2.0.0"
    )  # no worker runs in this module: queued till the end
    with as_key(platform.url, platform.a.key) as c:
        key = c.post("/v1/keys", json={"name": "second", "scopes": ["read"]}).json()
        user = c.post(
            "/v1/users",
            json={
                "email": "isolation-viewer@org-a.example",
                "role": "viewer",
                "password": "viewer-pass-1",
            },
        ).json()
        detail = c.get(f"/v1/agents/{agent_id}/executions/{ex.execution_id}").json()
        split = c.get(f"/v1/agents/{agent_id}/split").json()
        # the execution's episode, searchable by A (the episode-search routes are in the matrix)
        indexed = c.post(
            "/v1/search/episodes",
            json={"episode_id": str(detail["id"]), "steps": [["lookup(order)", "order 7"]]},
        )
        assert indexed.status_code == 201, indexed.text
    gym.close()
    yield {
        "agent_id": agent_id,
        "execution_id": ex.execution_id,
        "routed_execution_id": routed.execution_id,
        "episode_id": detail["id"],
        "run_id": detail["run_id"],
        "ab_test_id": split["ab_test_id"],
        "key_id": key["id"],
        "key": key["key"],
        "user_id": user["id"],
        "job_id": job["id"],
        "label": "Secret Support@1.1.0",  # B registers its own 1.0.0
    }
    # the session's platform is shared with other modules: a job left queued would be the
    # first one their workers run (test_jobs waits for its own job behind it)
    with AgentGym(api_key=platform.a.key, base_url=platform.url) as owner:
        if owner.get_job(job["id"])["status"] == "queued":
            owner.cancel_job(job["id"])


def _ids(d, missing: bool) -> dict[str, str]:
    if missing:
        return {
            "agent_id": MISSING_UUID,
            "execution_id": MISSING_UUID,
            "key_id": MISSING_UUID,
            "user_id": MISSING_UUID,
            "episode_id": MISSING_UUID,
            "job_id": MISSING_UUID,
        }
    keys = ("agent_id", "execution_id", "key_id", "user_id", "episode_id", "job_id")
    return {k: d[k] for k in keys}


#: A body for each write (valid for the owner of the ids).
BODIES = {
    "/v1/agents/{agent_id}/versions": {"version": "9.9.9"},
    "/v1/agents/{agent_id}/executions": {"input": "x", "output": "y", "version": "1.0.0"},
    "/v1/agents/{agent_id}/executions/{execution_id}/feedback": {
        "label": "bad",
        "comment": "B was here",
    },
    "/v1/agents/{agent_id}/split": {"arms": {"1.0.0": 100}},
    "/v1/agents/{agent_id}/route": {"user": "u1"},
    "/v1/agents/{agent_id}/split/promote": {"version": "1.1.0"},
    "/v1/agents/{agent_id}/split/rollback": {},
    "/v1/users/{user_id}": {"role": "admin"},
}


def _v1_endpoints(platform) -> list[tuple[str, str]]:
    """Every (method, path) of the API that names an id."""
    with as_key(platform.url, platform.b.key) as c:
        spec = c.get("/v1/openapi.json").json()
    return sorted(
        (method.upper(), path)
        for path, ops in spec["paths"].items()
        if "{" in path
        for method in ops
    )


def test_b_gets_404_for_every_endpoint_given_a_ids_as_for_ids_that_do_not_exist(platform, a_data):
    endpoints = _v1_endpoints(platform)
    assert len(endpoints) >= 15  # the matrix covers the whole API, not a sample
    with as_key(platform.url, platform.b.key) as b:  # B's admin key: every permission
        for method, path in endpoints:
            answers = []
            for missing in (False, True):
                url = path.format(**_ids(a_data, missing))
                r = b.request(method, url, json=BODIES.get(path, {}) if method != "GET" else None)
                answers.append(r.status_code)
            assert answers == [404, 404], (method, path, answers)
    # A's data is as it was: nothing B sent was written
    with as_key(platform.url, platform.a.key) as a:
        agent = a.get(f"/v1/agents/{a_data['agent_id']}").json()
        assert agent["versions"] == ["1.0.0", "1.1.0"]
        split = a.get(f"/v1/agents/{a_data['agent_id']}/split").json()
        assert split["arms"] == {"1.0.0": 50.0, "1.1.0": 50.0} and split["revision"] == 1
        fb = a.get(
            f"/v1/agents/{a_data['agent_id']}/executions/{a_data['execution_id']}/feedback"
        ).json()
        assert not any("B was here" in e["comment"] for e in fb["entries"])
        assert len(a.get(f"/v1/agents/{a_data['agent_id']}/executions").json()) == 2
        assert a.get("/v1/me").status_code == 200
        assert a.get(f"/v1/jobs/{a_data['job_id']}").json()["status"] == "queued"  # not cancelled
    with as_key(platform.url, a_data["key"]) as second:  # B could not revoke or rotate it
        assert second.get("/v1/agents").status_code == 200


def test_b_lists_none_of_a(platform, a_data):
    with as_key(platform.url, platform.b.key) as b:
        assert all(x["id"] != a_data["agent_id"] for x in b.get("/v1/agents").json())
        assert all(k["id"] != a_data["key_id"] for k in b.get("/v1/keys").json())
        assert all(u["email"].endswith("@org-b.example") for u in b.get("/v1/users").json())
        assert all(j["id"] != a_data["job_id"] for j in b.get("/v1/jobs").json()["jobs"])
        assert b.get("/v1/jobs", params={"agent_id": a_data["agent_id"]}).json() == {"jobs": []}


def test_the_sdk_of_b_cannot_see_or_touch_a(platform, a_data):
    gym = AgentGym(api_key=platform.b.key, base_url=platform.url)
    calls = [
        lambda: gym.get_agent(a_data["agent_id"]),
        lambda: gym.list_versions(a_data["agent_id"]),
        lambda: gym.get_feedback(a_data["agent_id"], a_data["execution_id"]),
        lambda: gym.get_execution(a_data["agent_id"], a_data["execution_id"]),
        lambda: gym.feedback_outcome(a_data["agent_id"], a_data["execution_id"], "bad"),
        lambda: gym.record_execution(a_data["agent_id"], "x", "y", version="1.0.0"),
        lambda: gym.export_training_data(a_data["agent_id"]),
        lambda: gym.route(a_data["agent_id"], "u1"),
        lambda: gym.promote(a_data["agent_id"], "1.1.0"),
        lambda: gym.ab_test_results(a_data["agent_id"]),
        lambda: gym.execute_with_feedback(a_data["agent_id"], "x", agent=lambda q, c: "y"),
        lambda: gym.queue_training(a_data["agent_id"], "3.0.0"),
        lambda: gym.get_job(a_data["job_id"]),
        lambda: gym.cancel_job(a_data["job_id"]),
        lambda: gym.wait_for_job(a_data["job_id"], timeout=0),
    ]
    for call in calls:
        with pytest.raises(PlatformError) as err:
            call()
        assert err.value.status == 404
    # registering an agent of the same name makes B's own agent, not A's
    own = gym.register_agent(name="Secret Support", description="B's", version="1.0.0")
    assert own != a_data["agent_id"]
    gym.close()


def test_the_dashboard_of_b_answers_a_ids_as_missing_ones(platform, a_data):
    pages = [
        ("GET", "/runs/{run}"),
        ("GET", "/episodes/{ep}"),
        ("GET", "/ab/{ab}"),
        ("GET", "/api/episodes/{ep}"),
        ("GET", "/api/episodes/{ep}/views"),
    ]
    with login(platform.url, "org-b", platform.b.admin) as b:
        for method, page in pages:
            real = b.request(
                method,
                page.format(run=a_data["run_id"], ep=a_data["episode_id"], ab=a_data["ab_test_id"]),
            )
            fake = b.request(method, page.format(run=MISSING_INT, ep=MISSING_INT, ab=MISSING_INT))
            assert real.status_code == fake.status_code == 404, (
                page,
                real.status_code,
                fake.status_code,
            )
        real = b.get(f"/api/feedback?episode_id={a_data['episode_id']}")
        fake = b.get(f"/api/feedback?episode_id={MISSING_INT}")
        assert real.status_code == fake.status_code == 200 and real.json() == fake.json() == []
        real = b.post(
            "/api/feedback",
            json={"episode_id": a_data["episode_id"], "label": "bad", "author": "b"},
        )
        fake = b.post(
            "/api/feedback", json={"episode_id": MISSING_INT - 1, "label": "bad", "author": "b"}
        )
        assert real.status_code == fake.status_code and real.status_code in (400, 404)
        assert real.json()["error"].replace(str(a_data["episode_id"]), "N") == fake.json()[
            "error"
        ].replace(str(MISSING_INT - 1), "N")
        real = b.post("/versions/promote", data={"label": a_data["label"]})
        fake = b.post("/versions/promote", data={"label": "Nobody@1"})
        assert real.status_code == fake.status_code == 400
        listings = (
            "/",
            "/api/runs",
            "/api/versions",
            "/feedback?source=",
            "/api/feedback",
            "/jobs",
        )
        for listing in listings:
            body = b.get(listing).text
            secrets = ("Secret Support@1.1.0", "where is my order", "too curt", "right tool")
            for secret in (*secrets, a_data["job_id"][:8]):
                assert secret not in body, (listing, secret)
    # and A sees its own in the same dashboard
    with login(platform.url, "org-a", platform.a.admin) as a:
        assert a.get(f"/episodes/{a_data['episode_id']}").status_code == 200
        assert "Secret Support" in a.get("/api/versions").text
        assert "too curt" in a.get(f"/api/feedback?episode_id={a_data['episode_id']}").text
        assert "Secret Support" in a.get("/jobs").text


def test_the_database_itself_isolates_tenants(platform, a_data):
    """As the service's role, straight SQL: no tenant set sees nothing; B's tenant sees none
    of A's rows and cannot write a row as A."""
    from agentgym_envs.platform.db import make_engine

    engine = make_engine(platform.app_url, pool_size=1, max_overflow=0)
    try:
        with engine.begin() as c:
            for table in (
                "agents",
                "episodes",
                "feedback",
                "steps",
                "runs",
                "api_keys",
                "users",
                "routes",
                "training_jobs",
            ):
                assert c.execute(text(f"SELECT count(*) FROM {table}")).scalar() == 0, table
        with engine.begin() as c:
            c.execute(
                text("SELECT set_config('agentgym.org_id', :o, true)"), {"o": platform.b.org_id}
            )
            assert (
                c.execute(
                    text("SELECT count(*) FROM episodes WHERE id = :i"), {"i": a_data["episode_id"]}
                ).scalar()
                == 0
            )
            assert (
                c.execute(
                    text("UPDATE episodes SET score = 0 WHERE id = :i"), {"i": a_data["episode_id"]}
                ).rowcount
                == 0
            )
        with pytest.raises(Exception, match="row-level security"), engine.begin() as c:
            c.execute(
                text("SELECT set_config('agentgym.org_id', :o, true)"), {"o": platform.b.org_id}
            )
            c.execute(
                text(
                    "INSERT INTO agents (id, org_id, name, description, created_at) VALUES (:i, :o, 'x', '', now())"
                ),
                {"i": str(uuid.uuid4()), "o": platform.a.org_id},
            )
        with pytest.raises(Exception, match="permission denied"), engine.begin() as c:
            c.execute(
                text(
                    "INSERT INTO organisations (id, slug, name, created_at) VALUES (gen_random_uuid(), 'evil', 'e', now())"
                )
            )
    finally:
        engine.dispose()
    assert (
        count(
            platform.owner_url,
            f"SELECT count(*) FROM episodes WHERE org_id = '{platform.a.org_id}'",
        )
        >= 2
    )


def test_the_service_refuses_to_run_as_the_owner(platform):
    from agentgym_envs.errors import AgentGymError
    from agentgym_envs.platform.app import create_app

    with pytest.raises(AgentGymError, match="row-level security would not apply"):
        create_app(platform.owner_url)
