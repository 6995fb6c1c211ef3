"""Training jobs on procrastinate with a real PostgreSQL and a real worker process: a job queued
over HTTP from judged experience is run by the worker, its progress is visible, and its output
is registered as a new version of the organisation's experience store. Another organisation
cannot see, read or detect the job (row-level security, non-superuser role)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

pytest.importorskip("procrastinate")
pytest.importorskip("psycopg")
pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")

from fastapi import FastAPI

from agentgym_envs.platform.jobs import (
    JobError,
    check_request,
    http_queue_training,
    http_training_job,
    http_wait_for_job,
    jobs_router,
    make_app,
)
from tests.experience.conftest import postgres  # noqa: F401  (the session's PostgreSQL)
from tests.platform.ops_db import (
    ORG_HEADER,
    app_database,
    empty_store,
    judged_store,
    start_worker,
    tenant_dependency,
)
from tests.served import Served

ORG_A, ORG_B = str(uuid.uuid4()), str(uuid.uuid4())


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """Each organisation's experience store: A's holds a judged expert run of Maze (version
    agent@0, one action judged bad by a person); B's is empty."""
    root = tmp_path_factory.mktemp("stores")
    return {ORG_A: judged_store(root / "a.db", root / "run"), ORG_B: empty_store(root / "b.db")}


def test_a_queued_fine_tuning_job_runs_on_a_worker_and_registers_a_version(
    postgres,  # noqa: F811
    stores,
    tmp_path,
):
    from sqlalchemy import create_engine, text

    from agentgym_envs.experience import open_store
    from agentgym_envs.experience.versions import get_version

    _, app_url = app_database(postgres)
    engine = create_engine(app_url)

    def store_for(session) -> str:  # the platform's mapping: organisation -> its store
        org = session.execute(text("SELECT current_setting('agentgym.org_id')")).scalar()
        return str(stores[org])

    api = FastAPI()
    api.include_router(jobs_router(tenant_dependency(engine), make_app(app_url), store_for))
    worker = None
    try:
        with Served(api) as url:
            a = httpx.Client(base_url=url, headers={ORG_HEADER: ORG_A}, timeout=60)
            b = httpx.Client(base_url=url, headers={ORG_HEADER: ORG_B}, timeout=60)
            request = {"name": "agent", "version": "1", "parent": "agent@0", "envs": ["Maze-v0"]}
            job = http_queue_training(a, **request)
            assert job["status"] == "queued" and job["progress"] == 0
            assert "store" not in job["params"]  # where the data lives is the platform's
            failing = b.post("/jobs/training", json={"name": "agent", "version": "1"}).json()
            # B cannot see, read or detect A's job
            assert b.get(f"/jobs/training/{job['id']}").status_code == 404
            assert b.get(f"/jobs/training/{uuid.uuid4()}").status_code == 404
            assert [j["id"] for j in b.get("/jobs/training").json()["jobs"]] == [failing["id"]]
            assert [j["id"] for j in a.get("/jobs/training").json()["jobs"]] == [job["id"]]

            worker = start_worker(app_url, tmp_path / "artifacts")
            seen: list = []
            done = http_wait_for_job(a, job["id"], timeout=300, every=0.1, on_progress=seen.append)
            b_done = http_wait_for_job(b, failing["id"], timeout=300, every=0.1)
            with pytest.raises(JobError, match="no training job"):
                http_training_job(b, job["id"])
            assert http_training_job(a, job["id"])["status"] == "succeeded"
    finally:
        if worker is not None:
            worker.terminate()
            _, err = worker.communicate(timeout=60)
    assert done["status"] == "succeeded", (done, err[-2000:])
    assert done["stage"] == "done" and done["progress"] == 1.0
    progress = [j["progress"] for j in seen]
    assert progress == sorted(progress) and progress[-1] == 1.0  # only moves forward
    result = done["result"]
    assert result["version"] == "agent@1" and result["parent"] == "agent@0"
    assert result["records"] >= 1 and result["states"] >= 1
    assert done["started_at"] and done["finished_at"]
    # the output is a new version of A's store, with its weights and its job
    store = open_store(stores[ORG_A])
    try:
        version = get_version(store, "agent@1")
        assert version.parent_id == get_version(store, "agent@0").id
        assert version.config["job_id"] == job["id"]
        weights = Path(version.config["table"])
        assert weights.is_file() and weights.is_relative_to(tmp_path / "artifacts" / ORG_A)
    finally:
        store.close()
    # B's job failed on B's own (empty) data, with the mend, and registered nothing
    assert b_done["status"] == "failed" and "no judged-successful episodes" in b_done["error"]
    store = open_store(stores[ORG_B])
    try:
        with pytest.raises(Exception, match="agent@1"):
            get_version(store, "agent@1")
    finally:
        store.close()
    engine.dispose()


def test_bad_requests_are_refused_with_the_mend():
    for bad, match in (
        ({"version": "1"}, "name="),
        ({"name": "a b", "version": "1"}, "name="),
        ({"name": "a", "version": "1", "trainer": "gpt"}, "trainer"),
        ({"name": "a", "version": "1", "parent": "nope"}, "name@version"),
        ({"name": "a", "version": "1", "store": "/etc/passwd"}, "unknown job fields store"),
        ({"name": "a", "version": "1", "envs": "Maze"}, "list of strings"),
    ):
        with pytest.raises(JobError, match=match):
            check_request(bad)
    assert check_request({"name": "a", "version": "2"})["trainer"] == "bc-table"
