"""Training jobs inside ``agentgym platform serve``, with a real PostgreSQL and real
``agentgym platform worker`` processes: executions and feedback recorded through the SDK are
exported from the platform's own tables, trained on, and registered as a new version of the
agent that the live split can serve; roles and organisations bound the jobs like everything
else; a SIGKILLed worker's job is resumed by another worker without redoing its finished stage.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest

pytest.importorskip("procrastinate")

from agentgym_envs.platform import AgentGym, AsyncAgentGym, PlatformError
from agentgym_envs.platform.jobs import JobError, check_request
from tests.platform.helpers import as_key, count, login
from tests.platform.jobs_helpers import judged_agent, start_worker, stop_worker

MISSING = "00000000-0000-4000-8000-000000000000"


def test_recorded_executions_train_a_version_that_the_live_split_serves(platform, tmp_path):
    gym = AgentGym(api_key=platform.a.key, base_url=platform.url)
    agent_id = judged_agent(gym, "Jobs Support")
    job = gym.queue_training(agent_id, "2.0.0")
    assert job["status"] == "queued" and job["progress"] == 0 and job["agent_id"] == agent_id
    assert job["params"]["parent"] == "1.0.0"  # the current version, by default
    again = gym.queue_training(agent_id, "2.0.0")
    assert again["id"] != job["id"]  # two jobs; the second fails when the first registered it
    worker = start_worker(platform.app_url, tmp_path / "artifacts", "--concurrency", "1")
    seen: list = []
    try:
        done = gym.wait_for_job(job["id"], timeout=600, every=0.2, on_progress=seen.append)
        second = gym.wait_for_job(again["id"], timeout=600, every=0.2)
    finally:
        code, log = stop_worker(worker)
    assert code == 0, log[-2000:]  # SIGTERM: a graceful stop
    assert done["status"] == "succeeded", (done["error"], log[-2000:])
    assert done["stage"] == "done" and done["progress"] == 1.0 and done["attempts"] == 1
    assert [j["progress"] for j in seen] == sorted(j["progress"] for j in seen)
    assert seen[-1]["status"] == "succeeded"
    result = done["result"]
    assert result["label"] == "Jobs Support@2.0.0" and result["parent"] == "1.0.0"
    assert result["records"] == 4 and result["states"] >= 3  # the 4 judged-good executions
    weights = Path(result["weights"])
    assert weights.is_file() and weights.is_relative_to(tmp_path / "artifacts" / platform.a.org_id)
    assert "lookup(order)" in weights.read_text()
    assert second["status"] == "failed" and "2.0.0" in second["error"]
    # a new version of the agent, with its parent and its job
    assert gym.get_agent(agent_id)["versions"] == ["1.0.0", "2.0.0"]
    (version,) = [v for v in gym.list_versions(agent_id) if v["version"] == "2.0.0"]
    assert version["config"]["job_id"] == job["id"] and version["config"]["records"] == 4
    parented = count(
        platform.owner_url,
        "SELECT count(*) FROM agent_versions v JOIN agent_versions p ON v.parent_id = p.id "
        "WHERE v.name = 'Jobs Support' AND v.version = '2.0.0' AND p.version = '1.0.0' "
        f"AND v.org_id = '{platform.a.org_id}'",
    )
    assert parented == 1
    # the live split serves it and its A/B analysis counts it
    gym.create_ab_test(agent_id, {"1.0.0": 50, "2.0.0": 50})
    served = {gym.route(agent_id, f"user-{i}").version for i in range(40)}
    assert served == {"1.0.0", "2.0.0"}
    for i in range(12):
        gym.execute_with_feedback(agent_id, "where is my order", [], user=f"user-{i}")
    report = gym.ab_test_results(agent_id)
    assert set(report["executions"]) == {"1.0.0", "2.0.0"} and report["control"] == "1.0.0"
    assert sum(report["executions"].values()) == 12 and "2.0.0" in report["comparisons"]
    assert [j["id"] for j in gym.list_jobs(agent_id=agent_id)] == [again["id"], job["id"]]
    gym.close()

    async def the_async_client():
        async with AsyncAgentGym(api_key=platform.a.key, base_url=platform.url) as agym:
            changes: list = []

            async def note(j):
                changes.append(j["status"])

            finished = await agym.wait_for_job(job["id"], timeout=60, on_progress=note)
            listed = await agym.list_jobs(status="succeeded")
            return finished, changes, listed

    finished, changes, listed = asyncio.run(the_async_client())
    assert finished["status"] == "succeeded" and changes == ["succeeded"]
    assert job["id"] in [j["id"] for j in listed]
    # the dashboard shows the jobs and their progress
    with login(platform.url, "org-a", platform.a.admin) as c:
        page = c.get("/jobs")
        board = c.get("/")
    assert page.status_code == 200
    assert "Jobs Support" in page.text and "succeeded" in page.text and "<progress" in page.text
    assert '<a href="/jobs">jobs</a>' in board.text  # the dashboard links to it


def test_jobs_answer_only_their_organisation(platform):
    a = AgentGym(api_key=platform.a.key, base_url=platform.url)
    b = AgentGym(api_key=platform.b.key, base_url=platform.url)
    agent_id = a.register_agent(name="Isolated Jobs", version="1.0.0")
    job = a.queue_training(agent_id, "9.0.0")
    calls = [
        lambda: b.get_job(job["id"]),
        lambda: b.cancel_job(job["id"]),
        lambda: b.queue_training(agent_id, "9.0.1"),  # A's agent does not exist for B
        lambda: b.get_job(MISSING),
        lambda: b.cancel_job(MISSING),
    ]
    for call in calls:
        with pytest.raises(PlatformError) as err:
            call()
        assert err.value.status == 404, err.value  # the same as a job that does not exist
    assert job["id"] not in [j["id"] for j in b.list_jobs()]
    assert b.list_jobs(agent_id=agent_id) == []
    with as_key(platform.url, platform.b.key) as c:
        theirs, missing = c.get(f"/v1/jobs/{job['id']}"), c.get(f"/v1/jobs/{MISSING}")
        assert theirs.status_code == missing.status_code == 404
        assert theirs.json()["detail"].replace(job["id"], MISSING) == missing.json()["detail"]
    with login(platform.url, "org-b", platform.b.admin) as c:
        assert job["id"][:8] not in c.get("/jobs").text
    # A's job is untouched, and A can cancel it (once)
    assert a.get_job(job["id"])["status"] == "queued"
    cancelled = a.cancel_job(job["id"])
    assert cancelled["status"] == "cancelled" and "cancelled by key:admin" in cancelled["error"]
    with pytest.raises(PlatformError) as err:
        a.cancel_job(job["id"])
    assert err.value.status == 409
    queued = count(
        platform.owner_url,
        f"SELECT count(*) FROM procrastinate_jobs WHERE status = 'todo' "
        f"AND args->>'job_id' = '{job['id']}'",
    )
    assert queued == 0  # it left the queue
    a.close(), b.close()


def test_roles_and_scopes_bound_the_jobs(platform):
    with as_key(platform.url, platform.a.key) as admin:
        agent_id = admin.post("/v1/agents", json={"name": "Role Jobs", "version": "1"}).json()["id"]
        reader = admin.post("/v1/keys", json={"name": "jobs-reader", "scopes": ["read"]}).json()
        made = admin.post(
            "/v1/users",
            json={
                "email": "jobs-viewer@org-a.example",
                "role": "viewer",
                "password": "viewer-pw-1",
            },
        )
        assert made.status_code == 201, made.text
        job = admin.post("/v1/jobs", json={"agent_id": agent_id, "version": "2"}).json()
        assert admin.post(f"/v1/jobs/{job['id']}/cancel").status_code == 200
        bad = admin.post("/v1/jobs", json={"agent_id": agent_id, "version": "a b"})
        assert bad.status_code == 400 and "version=" in bad.json()["detail"]
        taken = admin.post("/v1/jobs", json={"agent_id": agent_id, "version": "1"})
        assert taken.status_code == 409 and "already" in taken.json()["detail"]
    with as_key(platform.url, reader["key"]) as c:
        assert c.post("/v1/jobs", json={"agent_id": agent_id, "version": "3"}).status_code == 403
        assert c.post(f"/v1/jobs/{job['id']}/cancel").status_code == 403
        assert c.get(f"/v1/jobs/{job['id']}").json()["status"] == "cancelled"
    with login(platform.url, "org-a", "jobs-viewer@org-a.example", "viewer-pw-1") as viewer:
        refused = viewer.post("/v1/jobs", json={"agent_id": agent_id, "version": "3"})
        assert refused.status_code == 403 and "write" in refused.json()["detail"]
        assert viewer.get("/v1/jobs", params={"agent_id": agent_id}).status_code == 200
        assert "Role Jobs" in viewer.get("/jobs").text
    with as_key(platform.url, "agk_not_a_key") as c:
        assert c.get("/v1/jobs").status_code == 401
    with login(platform.url, "org-a", platform.a.admin) as c:
        c.cookies.clear()
        assert c.get("/jobs", follow_redirects=False).headers["location"].startswith("/login")


def test_a_killed_workers_job_is_resumed_without_redoing_its_finished_stage(platform, tmp_path):
    gym = AgentGym(api_key=platform.a.key, base_url=platform.url)
    agent_id = judged_agent(gym, "Crash Support")
    job = gym.queue_training(agent_id, "2.0.0")
    artifacts = tmp_path / "artifacts"
    hold = {"AGENTGYM_JOB_HOLD_AFTER": "export"}  # a crash drill: it stops after the export
    doomed = start_worker(platform.app_url, artifacts, "--stalled-after", "8", env=hold)
    try:
        deadline = time.monotonic() + 600
        while "export" not in gym.get_job(job["id"])["stages_done"]:
            assert doomed.poll() is None, doomed.communicate()[1][-2000:]
            assert time.monotonic() < deadline, "the first worker never finished the export"
            time.sleep(0.2)
        held = gym.get_job(job["id"])
        assert held["status"] == "running" and held["stage"] == "train"
        records = artifacts / platform.a.org_id / job["id"] / "records.jsonl"
        exported = records.stat().st_mtime_ns
        os.kill(doomed.pid, signal.SIGKILL)
        doomed.wait()
    finally:
        if doomed.poll() is None:
            doomed.kill()
            doomed.wait()
    rescuer = start_worker(platform.app_url, artifacts, "--stalled-after", "8")
    try:
        done = gym.wait_for_job(job["id"], timeout=600, every=0.5)
    finally:
        code, log = stop_worker(rescuer)
    assert done["status"] == "succeeded", (done["error"], log[-2000:])
    assert done["attempts"] == 2 and done["error"] is None
    assert done["result"]["skipped"] == ["export"]  # resumed: the export was not redone
    assert records.stat().st_mtime_ns == exported
    assert done["result"]["label"] == "Crash Support@2.0.0"
    assert gym.get_agent(agent_id)["versions"] == ["1.0.0", "2.0.0"]
    assert code == 0, log[-2000:]
    gym.close()


def test_bad_requests_are_refused_with_the_mend():
    agent = "7d9c7a1e-2f55-4d55-9a55-3e0f1c2b3a4d"
    for bad, match in (
        ({"version": "1"}, "agent_id"),
        ({"agent_id": "nope", "version": "1"}, "agent_id"),
        ({"agent_id": agent, "version": "a b"}, "version="),
        ({"agent_id": agent, "version": "1", "trainer": "gpt"}, "trainer"),
        ({"agent_id": agent, "version": "1", "parent": "x y"}, "parent="),
        ({"agent_id": agent, "version": "1", "store": "/etc/passwd"}, "unknown job fields store"),
        ({"agent_id": agent, "version": "1", "feedback": "great"}, "feedback="),
        ({"agent_id": agent, "version": "1", "base_model": "x"}, "go with trainer 'sft'"),
    ):
        with pytest.raises(JobError, match=match):
            check_request(bad)
    assert check_request({"agent_id": agent, "version": "2"})["trainer"] == "bc-table"


def test_a_job_whose_workers_keep_dying_fails_with_the_reason(platform, tmp_path):
    import psycopg

    gym = AgentGym(api_key=platform.a.key, base_url=platform.url)
    agent_id = judged_agent(gym, "Doomed Support")
    job = gym.queue_training(agent_id, "2.0.0")
    # what a job looks like when its worker was killed during its third run: its queue job
    # taken ('doing') by a worker that is gone, its row running its third attempt
    with psycopg.connect(platform.owner_url.replace("postgresql+psycopg://", "postgresql://")) as c:
        c.execute(
            "UPDATE training_jobs SET status = 'running', attempts = 3, stage = 'train', "
            "progress = 0.4 WHERE id = %s",
            (job["id"],),
        )
        c.execute(
            "UPDATE procrastinate_jobs SET status = 'doing', worker_id = NULL "
            "WHERE args->>'job_id' = %s",
            (job["id"],),
        )
    worker = start_worker(platform.app_url, tmp_path / "artifacts", "--stalled-after", "8")
    failed_in_queue = (
        "SELECT count(*) FROM procrastinate_jobs WHERE status = 'failed' "
        f"AND args->>'job_id' = '{job['id']}'"
    )
    try:
        done = gym.wait_for_job(job["id"], timeout=600, every=0.5)
        # the worker marks the row failed, then the queue's job: wait for the second step
        # before stopping it (a loaded machine may be slow to take it)
        deadline = time.monotonic() + 300
        while count(platform.owner_url, failed_in_queue) == 0 and time.monotonic() < deadline:
            time.sleep(0.5)
    finally:
        code, log = stop_worker(worker)
    assert done["status"] == "failed", (done["error"], log[-2000:])
    assert "stopped (killed, or out of memory) 3 times, last in stage train" in done["error"]
    assert done["finished_at"] and done["attempts"] == 3
    left = count(platform.owner_url, failed_in_queue)
    assert left == 1  # the queue's job is finished too: no worker takes it again
    assert gym.get_agent(agent_id)["versions"] == ["1.0.0"]
    assert code == 0, log[-2000:]
    gym.close()
