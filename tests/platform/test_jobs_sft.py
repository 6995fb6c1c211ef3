"""A queued ``sft`` job: a real ``agentgym platform worker`` fine-tunes a tiny Llama (the train
tests' model, built offline) with the train pipeline's SFT stage on an agent's judged
executions recorded through the SDK, and the trained checkpoint becomes the agent's new
version. A base model the worker does not offer fails the job with the mend."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("procrastinate")
pytest.importorskip("trl")

from agentgym_envs.platform import AgentGym
from agentgym_envs.platform.jobs import JobError, check_request
from tests.platform.jobs_helpers import judged_agent, start_worker, stop_worker
from tests.train.conftest import build_tiny_checkpoint

SFT = {"epochs": 1.0, "lr": 3e-3, "batch": 3, "layers": 0}
AGENT = "7d9c7a1e-2f55-4d55-9a55-3e0f1c2b3a4d"


def test_an_sft_job_fine_tunes_a_model_and_registers_its_checkpoint(platform, tmp_path):
    tiny = build_tiny_checkpoint(tmp_path / "tiny")
    gym = AgentGym(api_key=platform.a.key, base_url=platform.url)
    agent_id = judged_agent(gym, "SFT Support")
    job = gym.queue_training(agent_id, "sft1", trainer="sft", base_model="tiny", sft=SFT)
    unknown = gym.queue_training(agent_id, "sft2", trainer="sft", base_model="nope")
    worker = start_worker(platform.app_url, tmp_path / "artifacts", "--model", f"tiny={tiny}")
    stages: list = []
    try:
        done = gym.wait_for_job(job["id"], timeout=900, every=0.2, on_progress=stages.append)
        refused = gym.wait_for_job(unknown["id"], timeout=900, every=0.2)
    finally:
        _, log = stop_worker(worker)
    assert done["status"] == "succeeded", (done["error"], log[-2000:])
    result = done["result"]
    assert result["label"] == "SFT Support@sft1" and result["steps"] > 0
    assert result["episodes"] >= 1 and result["loss_first"] is not None
    assert [j["progress"] for j in stages] == sorted(j["progress"] for j in stages)
    (version,) = [v for v in gym.list_versions(agent_id) if v["version"] == "sft1"]
    assert version["model"] == "sft of tiny" and version["config"]["job_id"] == job["id"]
    assert version["config"]["sft"] == SFT
    checkpoint = Path(version["config"]["checkpoint"])
    assert tmp_path / "artifacts" / platform.a.org_id / job["id"] in checkpoint.parents
    assert (checkpoint / "config.json").is_file()
    assert refused["status"] == "failed" and "not on this worker" in refused["error"]
    assert "tiny" in refused["error"]
    gym.close()


def test_sft_settings_are_checked_when_queued():
    job = {"agent_id": AGENT, "version": "1", "trainer": "sft"}
    with pytest.raises(JobError, match="sft settings"):
        check_request({**job, "sft": {"epochs": 1, "x": 2}})
    with pytest.raises(JobError, match="sft_batch"):
        check_request({**job, "sft": {"batch": 0}})
    with pytest.raises(JobError, match="go with trainer 'sft'"):
        check_request({"agent_id": AGENT, "version": "1", "base_model": "tiny"})
    ok = check_request(job)
    assert ok["base_model"] == "smollm2" and ok["sft"] == {}
