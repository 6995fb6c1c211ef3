"""Tenant isolation: organisation B cannot read, write or even detect organisation A's agents,
versions, executions (episodes), feedback, splits, training jobs, keys or users -- through the
API, the SDK, the dashboard or episode search -- and the database enforces it on its own
(row-level security), not only the handlers.

The matrix is generated: every route of the service (``create_app``'s routes and the
dashboard's, walked, in the schema or not) and every method of the SDK is either called with
A's ids and with ids that do not exist -- the two answers must be the same status and the same
body but for the id -- or is a route without ids whose answer to B must hold nothing of A. A
route or SDK method this module does not know fails the matrix until it is added."""

from __future__ import annotations

import re
import uuid

import pytest
from sqlalchemy import text

from agentgym_envs.platform import AgentGym, PlatformError
from tests.platform.helpers import as_key, count, login, service_routes

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
        # every recorded execution is indexed for search at once: A finds its own
        found = c.get(
            "/v1/search/episodes", params={"q": "where is my order lookup(order)", "k": 100}
        ).json()
        assert str(detail["id"]) in [h["episode_id"] for h in found["hits"]], found
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


#: Values for each path parameter: A's (from ``a_data``) or ones that exist nowhere.
MISSING = {
    "agent_id": MISSING_UUID,
    "execution_id": MISSING_UUID,
    "key_id": MISSING_UUID,
    "user_id": MISSING_UUID,
    "job_id": MISSING_UUID,
    "episode_id": str(MISSING_INT),
    "run_id": str(MISSING_INT),
    "test_id": str(MISSING_INT),
}
A_PARAM = {"test_id": "ab_test_id"}  # a_data's name where it differs


def _ids(d, missing: bool) -> dict[str, str]:
    if missing:
        return dict(MISSING)
    return {k: str(d[A_PARAM.get(k, k)]) for k in MISSING}


#: A body for each write that names an id (valid for the owner of the ids).
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

#: Routes that name no id in their path, and how B calls each: ``(params, body, a_ref)``.
#: ``a_ref``: a key of ``a_data`` the call refers to -- then it is made twice, with A's value
#: and with a missing one, and the answers must be alike; else B's answer must hold nothing of
#: A. ``None``: not tenant data (login, health, docs), not called here.
NO_ID = {
    ("GET", "/v1/agents"): ({}, None, None),
    ("POST", "/v1/agents"): ({}, {"name": "Secret Support", "version": "1.0.0"}, None),
    ("GET", "/v1/me"): ({}, None, None),
    ("GET", "/v1/keys"): ({}, None, None),
    ("POST", "/v1/keys"): ({}, {"name": "second", "scopes": ["read"]}, None),
    ("GET", "/v1/users"): ({}, None, None),
    ("POST", "/v1/users"): (
        {},
        {"email": "isolation-viewer@org-a.example", "role": "viewer", "password": "pw-12345"},
        None,  # the same email as A's viewer: a user of B's own, no "already a user"
    ),
    ("GET", "/v1/jobs"): ({"agent_id": "{agent_id}"}, None, "agent_id"),
    ("POST", "/v1/jobs"): ({}, {"agent_id": "{agent_id}", "version": "7.0.0"}, "agent_id"),
    ("GET", "/v1/search/episodes"): (
        {"q": "where is my order lookup(order)", "k": 100},
        None,
        None,
    ),
    ("POST", "/v1/search/episodes"): (
        {},
        {"episode_id": "{episode_id}", "text": "B's"},
        "episode_id",  # a number names a recorded episode: A's is as missing as none
    ),
    ("GET", "/jobs"): ({}, None, None),
    ("GET", "/search"): ({"q": "where is my order lookup(order)"}, None, None),
    ("GET", "/search?like"): ({"like": "{episode_id}"}, None, "episode_id"),  # like A's
    ("GET", "/metrics"): ({}, None, None),
    ("GET", "/"): ({}, None, None),
    ("GET", "/feedback"): ({"source": ""}, None, None),
    ("GET", "/versions"): ({}, None, None),
    ("POST", "/versions/promote"): ({}, "label", "label"),  # a form, below
    ("GET", "/api/feedback"): ({"episode_id": "{episode_id}"}, None, "episode_id"),
    ("POST", "/api/feedback"): ({}, {"episode_id": "{episode_id}", "label": "bad"}, "episode_id"),
    ("GET", "/api/feedback/export"): ({}, None, None),
    ("GET", "/api/versions"): ({}, None, None),
    ("GET", "/api/runs"): ({}, None, None),
    ("GET", "/healthz"): None,
    ("GET", "/login"): None,
    ("POST", "/login"): None,
    ("GET", "/logout"): None,
    ("POST", "/logout"): None,
    ("GET", "/v1/openapi.json"): None,
    ("GET", "/v1/docs"): None,
    ("GET", "/v1/docs/oauth2-redirect"): None,
    ("GET", "/openapi.json"): None,  # the dashboard's own schema and docs
    ("GET", "/api/docs"): None,
    ("GET", "/docs/oauth2-redirect"): None,
}


@pytest.fixture(scope="module")
def routes(platform) -> list[tuple[str, str, bool]]:
    return service_routes(platform.app_url)


def _path(path: str) -> str:
    return re.sub(r"\{(\w+)(:\w+)?\}", r"{\1}", path)


def _norm(text: str, values) -> str:
    """``text`` with each of ``values`` (whole tokens) written ``ID``."""
    for v in sorted({str(v) for v in values}, key=len, reverse=True):
        text = re.sub(rf"(?<![\w-]){re.escape(v)}(?![\w-])", "ID", text)
    return text


def _alike(real, fake, real_values, fake_values) -> None:
    """The answer for A's ids and the answer for missing ones: same status, same body once the
    ids are written the same way (no message, field or count that tells them apart)."""
    assert real.status_code == fake.status_code, (real.status_code, fake.status_code, real.text)
    assert _norm(real.text, real_values) == _norm(fake.text, fake_values), (
        real.text[:300],
        fake.text[:300],
    )


def _secrets(a_data) -> list[str]:
    return [
        "Secret Support@1.1.0",
        "where is my order",
        "order 7 shipped",
        "too curt",
        "right tool",
        "isolation-viewer@org-a.example",
        "admin@org-a.example",
        a_data["agent_id"],
        a_data["execution_id"],
        a_data["routed_execution_id"],
        a_data["key_id"],
        a_data["user_id"],
        a_data["job_id"],
        a_data["job_id"][:8],
    ]


def test_every_route_is_in_the_matrix(routes):
    known = {(m, p.split("?")[0]) for m, p in NO_ID}
    unknown = [(m, p) for m, p, _ in routes if "{" not in p and (m, p) not in known]
    assert not unknown, (
        f"add these routes to the isolation matrix (NO_ID or an id route): {unknown}"
    )


def test_b_gets_for_every_route_with_an_id_what_a_missing_id_gets(platform, a_data, routes):
    with_ids = [(m, _path(p), dash) for m, p, dash in routes if "{" in p]
    assert len(with_ids) >= 25, with_ids  # the API's and the dashboard's pages
    with (
        as_key(platform.url, platform.b.key) as key,
        login(platform.url, "org-b", platform.b.admin) as cookie,
    ):
        for method, path, dashboard in with_ids:
            names = re.findall(r"\{(\w+)\}", path)
            for b in (key, cookie):  # an API key and a dashboard login
                real = b.request(
                    method,
                    path.format(**_ids(a_data, False)),
                    json=BODIES.get(path, {}) if method != "GET" else None,
                )
                fake = b.request(
                    method,
                    path.format(**_ids(a_data, True)),
                    json=BODIES.get(path, {}) if method != "GET" else None,
                )
                if not dashboard and path.startswith("/v1/"):
                    assert real.status_code == 404, (method, path, real.status_code, real.text)
                mine, theirs = _ids(a_data, False), _ids(a_data, True)
                _alike(real, fake, [mine[n] for n in names], [theirs[n] for n in names])
    _a_is_untouched(platform, a_data)


def test_a_execution_under_b_own_agent_is_as_missing_as_none(platform, a_data, routes):
    """Every route naming an agent and an execution, with B's own agent and A's execution:
    the same answer as with B's agent and an execution that does not exist."""
    with as_key(platform.url, platform.b.key) as b:
        b_agent = b.post("/v1/agents", json={"name": "B's own", "version": "1.0.0"}).json()["id"]
        paths = [(m, _path(p)) for m, p, _ in routes if "{agent_id}" in p and "{execution_id}" in p]
        assert len(paths) >= 3, paths
        for method, path in paths:
            answers = []
            for execution in (a_data["execution_id"], MISSING_UUID):
                url = path.format(agent_id=b_agent, execution_id=execution)
                body = BODIES.get(path, {}) if method != "GET" else None
                answers.append(b.request(method, url, json=body))
            assert answers[0].status_code == 404, (method, path, answers[0].text)
            _alike(*answers, [a_data["execution_id"]], [MISSING_UUID])
    _a_is_untouched(platform, a_data)


def _fill(value, ids: dict[str, str]):
    if isinstance(value, str):
        return value.format(**ids) if "{" in value else value
    if isinstance(value, dict):
        return {k: _fill(v, ids) for k, v in value.items()}
    return value


def test_b_gets_nothing_of_a_from_every_route_without_an_id(platform, a_data, routes):
    calls = [(m, p) for (m, p), how in NO_ID.items() if how is not None]
    with (
        as_key(platform.url, platform.b.key) as key,
        login(platform.url, "org-b", platform.b.admin) as cookie,
    ):
        for method, path in calls:
            params, body, a_ref = NO_ID[(method, path)]
            for b in (key, cookie):
                answers, sent = [], ""
                for missing in (False, True) if a_ref else (False,):
                    ids = _ids(a_data, missing)
                    label = a_data["label"] if not missing else "Secret Support@1.2.0"
                    kwargs = {"params": _fill(params, ids)}
                    if body == "label":
                        kwargs["data"] = {"label": label}
                    elif body is not None:
                        kwargs["json"] = _fill(body, ids)
                    r = b.request(method, path.split("?")[0], **kwargs)
                    assert r.status_code < 500, (method, path, r.status_code, r.text)
                    answers.append(r)
                    sent = sent or repr(kwargs)
                if a_ref:
                    values = [a_data[a_ref], _ids(a_data, True).get(a_ref, "Secret Support@1.2.0")]
                    _alike(*answers, [values[0]], [values[1]])
                for secret in _secrets(a_data):
                    if secret not in sent:  # (what B sent itself may come back: B's own)
                        assert secret not in answers[0].text, (method, path, secret)
    _a_is_untouched(platform, a_data)


def _a_is_untouched(platform, a_data) -> None:
    """A's data is as it was: nothing B sent was written."""
    with as_key(platform.url, platform.a.key) as a:
        agent = a.get(f"/v1/agents/{a_data['agent_id']}").json()
        assert agent["versions"] == ["1.0.0", "1.1.0"]
        split = a.get(f"/v1/agents/{a_data['agent_id']}/split").json()
        assert split["arms"] == {"1.0.0": 50.0, "1.1.0": 50.0} and split["revision"] == 1
        fb = a.get(
            f"/v1/agents/{a_data['agent_id']}/executions/{a_data['execution_id']}/feedback"
        ).json()
        assert not any("B was here" in e["comment"] for e in fb["entries"])
        assert [e["source"] for e in fb["entries"]].count("human") == 2
        assert len(a.get(f"/v1/agents/{a_data['agent_id']}/executions").json()) == 2
        assert a.get("/v1/me").status_code == 200
        assert a.get(f"/v1/jobs/{a_data['job_id']}").json()["status"] == "queued"  # not cancelled
        assert len(a.get("/v1/jobs", params={"agent_id": a_data["agent_id"]}).json()["jobs"]) == 1
        users = {u["email"]: u["role"] for u in a.get("/v1/users").json()}
        assert users["isolation-viewer@org-a.example"] == "viewer"
    with as_key(platform.url, a_data["key"]) as second:  # B could not revoke or rotate it
        assert second.get("/v1/agents").status_code == 200


def test_b_lists_none_of_a(platform, a_data):
    with as_key(platform.url, platform.b.key) as b:
        assert all(x["id"] != a_data["agent_id"] for x in b.get("/v1/agents").json())
        assert all(k["id"] != a_data["key_id"] for k in b.get("/v1/keys").json())
        users = b.get("/v1/users").json()
        assert all(
            u["id"] != a_data["user_id"] and u["email"] != "admin@org-a.example" for u in users
        )
        assert all(j["id"] != a_data["job_id"] for j in b.get("/v1/jobs").json()["jobs"])
        assert b.get("/v1/jobs", params={"agent_id": a_data["agent_id"]}).json() == {"jobs": []}
        hits = b.get("/v1/search/episodes", params={"q": "where is my order", "k": 100}).json()
        assert str(a_data["episode_id"]) not in [h["episode_id"] for h in hits["hits"]]


#: How the SDK of B calls each of its methods that names one of A's things (``a``: a_data;
#: ``x``: the value of a missing id). Methods that name nothing of A's are in SDK_NO_ID.
SDK_CALLS = {
    "get_agent": lambda g, a: g.get_agent(a["agent_id"]),
    "register_version": lambda g, a: g.register_version(a["agent_id"], "9.9.9"),
    "list_versions": lambda g, a: g.list_versions(a["agent_id"]),
    "get_feedback": lambda g, a: g.get_feedback(a["agent_id"], a["execution_id"]),
    "get_execution": lambda g, a: g.get_execution(a["agent_id"], a["execution_id"]),
    "list_executions": lambda g, a: g.list_executions(a["agent_id"]),
    "add_feedback": lambda g, a: g.add_feedback(a["agent_id"], a["execution_id"], label="bad"),
    "feedback_action": lambda g, a: g.feedback_action(a["agent_id"], a["execution_id"], 0, "bad"),
    "feedback_outcome": lambda g, a: g.feedback_outcome(a["agent_id"], a["execution_id"], "bad"),
    "record_execution": lambda g, a: g.record_execution(a["agent_id"], "x", "y", version="1.0.0"),
    "execute_with_feedback": lambda g, a: g.execute_with_feedback(
        a["agent_id"], "x", agent=lambda q, c: "y"
    ),
    "export_training_data": lambda g, a: g.export_training_data(a["agent_id"]),
    "create_ab_test": lambda g, a: g.create_ab_test(a["agent_id"], {"1.0.0": 100}),
    "get_split": lambda g, a: g.get_split(a["agent_id"]),
    "route": lambda g, a: g.route(a["agent_id"], "u1"),
    "promote": lambda g, a: g.promote(a["agent_id"], "1.1.0"),
    "rollback": lambda g, a: g.rollback(a["agent_id"]),
    "ab_test_results": lambda g, a: g.ab_test_results(a["agent_id"]),
    "similar_episodes": lambda g, a: g.similar_episodes(a["episode_id"]),
    "queue_training": lambda g, a: g.queue_training(a["agent_id"], "3.0.0"),
    "get_job": lambda g, a: g.get_job(a["job_id"]),
    "cancel_job": lambda g, a: g.cancel_job(a["job_id"]),
    "wait_for_job": lambda g, a: g.wait_for_job(a["job_id"], timeout=0),
}
SDK_NO_ID = {
    "register_agent": lambda g: g.register_agent(name="Secret Support", version="1.0.0"),
    "list_agents": lambda g: g.list_agents(),
    "list_jobs": lambda g: g.list_jobs(),
    "search_episodes": lambda g: g.search_episodes("where is my order lookup(order)", k=100),
}


def test_the_sdk_of_b_cannot_see_or_touch_a(platform, a_data):
    from agentgym_envs.platform.client import _METHODS

    methods = {name for name, _, _ in _METHODS}
    assert methods == set(SDK_CALLS) | set(SDK_NO_ID), (
        "add the SDK's new methods to the isolation matrix:",
        methods ^ (set(SDK_CALLS) | set(SDK_NO_ID)),
    )
    missing = {**_ids(a_data, True), "episode_id": str(MISSING_INT)}
    gym = AgentGym(api_key=platform.b.key, base_url=platform.url)
    for name, call in SDK_CALLS.items():
        errors = []
        for given in (a_data, missing):
            with pytest.raises(PlatformError) as err:
                call(gym, given)
            errors.append(err.value)
        real, fake = errors
        assert real.status == fake.status == 404, (name, real, fake)
        mine = [a_data[k] for k in ("agent_id", "execution_id", "episode_id", "job_id")]
        assert _norm(str(real), mine) == _norm(str(fake), [MISSING_UUID, MISSING_INT]), name
    # the calls that name nothing of A's answer nothing of A's
    for name, call in SDK_NO_ID.items():
        text = repr(call(gym))
        for secret in _secrets(a_data):
            assert secret not in text, (name, secret)
    gym.close()
    _a_is_untouched(platform, a_data)


def test_the_async_sdk_of_b_answers_a_ids_as_missing_ones(platform, a_data):
    import asyncio

    from agentgym_envs.platform import AsyncClient

    async def main():
        async with AsyncClient(api_key=platform.b.key, base_url=platform.url) as gym:
            for name in ("get_agent", "get_execution", "similar_episodes", "get_job", "route"):
                call = SDK_CALLS[name]
                with pytest.raises(PlatformError) as err:
                    await call(gym, a_data)
                assert err.value.status == 404, name
            hits = await gym.search_episodes("where is my order", k=100)
            assert str(a_data["episode_id"]) not in [h["episode_id"] for h in hits]

    asyncio.run(main())


def test_the_dashboard_shows_a_its_own(platform, a_data):
    with login(platform.url, "org-a", platform.a.admin) as a:
        assert a.get(f"/episodes/{a_data['episode_id']}").status_code == 200
        assert "Secret Support" in a.get("/api/versions").text
        assert "too curt" in a.get(f"/api/feedback?episode_id={a_data['episode_id']}").text
        assert "Secret Support" in a.get("/jobs").text
        page = a.get("/search", params={"q": "where is my order"})
        assert page.status_code == 200 and f'href="/episodes/{a_data["episode_id"]}"' in page.text
        like = a.get("/search", params={"like": a_data["episode_id"]})
        assert like.status_code == 200 and "Episodes like" in like.text


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
