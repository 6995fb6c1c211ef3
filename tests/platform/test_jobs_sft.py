"""A queued ``sft`` job: a real worker process fine-tunes a tiny Llama (the train tests' model,
built offline) with the train pipeline's SFT stage on an organisation's judged episodes, and
the trained checkpoint becomes a new version of that organisation's experience store. A base
model the worker does not offer fails the job with the mend."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

pytest.importorskip("procrastinate")
pytest.importorskip("trl")
pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")

from fastapi import FastAPI

from agentgym_envs.platform.jobs import (
    JobError,
    check_request,
    http_queue_training,
    http_wait_for_job,
    jobs_router,
    make_app,
)
from tests.experience.conftest import postgres  # noqa: F401  (the session's PostgreSQL)
from tests.platform.ops_db import (
    ORG_HEADER,
    app_database,
    judged_store,
    start_worker,
    tenant_dependency,
)
from tests.served import Served
from tests.train.conftest import build_tiny_checkpoint

SFT = {"epochs": 1.0, "lr": 3e-3, "batch": 3, "layers": 0}


def test_an_sft_job_fine_tunes_a_model_and_registers_its_checkpoint(postgres, tmp_path):  # noqa: F811
    from sqlalchemy import create_engine

    from agentgym_envs.experience import open_store
    from agentgym_envs.experience.versions import get_version

    org = str(uuid.uuid4())
    store_path = judged_store(tmp_path / "store.db", tmp_path / "run")
    tiny = build_tiny_checkpoint(tmp_path / "tiny")
    _, app_url = app_database(postgres)
    engine = create_engine(app_url)
    api = FastAPI()
    api.include_router(
        jobs_router(tenant_dependency(engine), make_app(app_url), lambda s: str(store_path))
    )
    worker = start_worker(app_url, tmp_path / "artifacts", "--model", f"tiny={tiny}")
    try:
        with Served(api) as url:
            client = httpx.Client(base_url=url, headers={ORG_HEADER: org}, timeout=60)
            request = {"name": "agent", "version": "sft1", "parent": "agent@0"}
            job = http_queue_training(client, **request, trainer="sft", base_model="tiny", sft=SFT)
            unknown = http_queue_training(
                client, name="agent", version="sft2", trainer="sft", base_model="nope"
            )
            stages: list = []
            done = http_wait_for_job(
                client, job["id"], timeout=900, every=0.2, on_progress=stages.append
            )
            refused = http_wait_for_job(client, unknown["id"], timeout=900, every=0.2)
    finally:
        worker.terminate()
        _, err = worker.communicate(timeout=60)
        engine.dispose()
    assert done["status"] == "succeeded", (done, err[-2000:])
    result = done["result"]
    assert result["version"] == "agent@sft1" and result["steps"] > 0
    assert result["episodes"] >= 1 and result["loss_first"] is not None
    assert [j["progress"] for j in stages] == sorted(j["progress"] for j in stages)
    store = open_store(store_path)
    try:
        version = get_version(store, "agent@sft1")
        assert version.model == "sft of tiny" and version.config["job_id"] == job["id"]
        assert version.config["sft"] == SFT
        assert (tmp_path / "artifacts" / org / job["id"]) in [
            *Path(version.config["checkpoint"]).parents
        ]
        assert (Path(version.config["checkpoint"]) / "config.json").is_file()
    finally:
        store.close()
    assert refused["status"] == "failed" and "not on this worker" in refused["error"]
    assert "tiny" in refused["error"]


def test_sft_settings_are_checked_when_queued():
    with pytest.raises(JobError, match="sft settings"):
        check_request({"name": "a", "version": "1", "trainer": "sft", "sft": {"epochs": 1, "x": 2}})
    with pytest.raises(JobError, match="sft_batch"):
        check_request({"name": "a", "version": "1", "trainer": "sft", "sft": {"batch": 0}})
    with pytest.raises(JobError, match="go with trainer 'sft'"):
        check_request({"name": "a", "version": "1", "base_model": "tiny"})
    ok = check_request({"name": "a", "version": "1", "trainer": "sft"})
    assert ok["base_model"] == "smollm2" and ok["sft"] == {}
