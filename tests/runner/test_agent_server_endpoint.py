"""Field runs played by an agent server (an ``agent_server`` endpoint): ``agentgym agent-server``
as a real process on 127.0.0.1 with the families' expert behind the OpenAI interface as its
model; each field episode is one ``POST /run``, recorded as the server answered it."""

from __future__ import annotations

import contextlib
import json
import threading
import time

import httpx
import pytest
from typer.testing import CliRunner

from agentgym_envs.agents import ExpertChatServer
from agentgym_envs.cli import app
from agentgym_envs.runner import (
    EPISODE_COMPLETED,
    EXIT_ENDPOINT,
    EXIT_EPISODE_ERRORS,
    EXIT_OK,
    EXIT_PREFLIGHT,
    ProfileError,
    parse_profile,
    run_profile,
)
from agentgym_envs.runner.endpoints import EndpointsDownError
from tests.agents.conftest import AgentServerProcess, free_port

ENVS = ["AgentGym/Maze-v0", "AgentGym/Movie-v0"]
#: What the server's answer and the field record both carry, and must agree on.
SAME = ("reward", "success", "outcome", "reward_valid", "turns", "conversations", "tokens")


@contextlib.contextmanager
def agent_server(model_url: str, *options: str):
    """``agentgym agent-server multistep`` as a process, its model at ``model_url``."""
    proc = AgentServerProcess("multistep", "--model-url", model_url, *options)
    try:
        yield proc
    finally:
        proc.stop()


@pytest.fixture(scope="module")
def expert():
    with ExpertChatServer(ENVS) as chat:
        yield chat


@pytest.fixture(scope="module")
def server(expert):
    with agent_server(expert.base_url, "-j", "4") as proc:
        yield proc


def _lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _profile(tmp_path, endpoint, **more):
    data = {
        "model": {"policy": "openai", "endpoints": [endpoint]},
        "envs": ["Maze", "Movie"],
        "episodes": 2,
        "concurrency": 2,
        "output": str(tmp_path / "out"),
        "sinks": [{"type": "jsonl"}],
    }
    return parse_profile({**data, **more})


def test_a_field_run_records_what_the_agent_server_returned(tmp_path, server):
    before = httpx.get(server.url + "/health").json()["done"]
    endpoint = {"name": "agents", "agent_server": server.url, "model": "expert"}
    result, _ = run_profile(_profile(tmp_path, endpoint))
    assert result.exit_code == EXIT_OK and result.endpoint == "agents" and result.model == "expert"
    assert httpx.get(server.url + "/health").json()["done"] == before + 4  # played there
    records = _lines(tmp_path / "out" / "results.jsonl")
    assert sorted((r["env_id"], r["task_id"]) for r in records) == [
        (env, t) for env in ENVS for t in (0, 1)
    ]
    with httpx.Client(base_url=server.url, timeout=300) as client:
        for record in records:
            row = {k: record[k] for k in ("env_id", "task_id", "split", "seed")}
            row["options"] = {"max_rounds": 15}
            answer = client.post("/run", json=row).json()
            assert {k: record[k] for k in SAME} == {k: answer[k] for k in SAME}
            assert record["item_id"] == answer["item_id"] and record["error"] is None
    assert all(r["success"] and r["reward_valid"] and r["outcome"] == "success" for r in records)
    assert all(r["conversations"][0]["from"] == "human" for r in records)
    events = [
        e for e in _lines(tmp_path / "out" / "events.jsonl") if e["event"] == EPISODE_COMPLETED
    ]
    assert sorted((e["episode_id"], e["reward"], e["outcome"]) for e in events) == sorted(
        (r["episode_id"], r["reward"], r["outcome"]) for r in records
    )
    assert {e["endpoint"] for e in events} == {"agents"}


def test_a_row_the_server_refuses_is_an_env_error_record_played_again(tmp_path, server):
    bad = {"agent_server": server.url, "options": {"bogus": 1}}
    result, _ = run_profile(_profile(tmp_path, bad))
    assert result.exit_code == EXIT_EPISODE_ERRORS
    records = _lines(tmp_path / "out" / "results.jsonl")
    assert len(records) == 4 and {r["outcome"] for r in records} == {"env_error"}
    assert not any(r["reward_valid"] for r in records)
    assert all("unknown MultiStepAgent options" in r["error"] for r in records)
    assert all("\n" not in r["error"] for r in records)
    fixed, _ = run_profile(_profile(tmp_path, {"agent_server": server.url}))
    assert fixed.exit_code == EXIT_OK and fixed.ran == 4  # the refused episodes, played again


def test_an_unreachable_agent_server_is_one_line(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(EndpointsDownError, match="cannot reach the agent server") as caught:
        run_profile(_profile(tmp_path, {"agent_server": url}))
    assert "\n" not in str(caught.value) and "agentgym agent-server" in str(caught.value)
    assert not (tmp_path / "out" / "results.jsonl").exists()
    run = CliRunner().invoke(
        app, ["run", "--run", "Maze", "--policy", f"agent-server:{url}", "--out", str(tmp_path)]
    )
    assert run.exit_code == EXIT_PREFLIGHT
    assert "no endpoint answers" in run.output and "cannot reach the agent server" in run.output


def test_a_server_that_dies_mid_run_stops_it_and_the_rest_is_played_on_resume(tmp_path, expert):
    more = {"episodes": 4, "concurrency": 1}
    results = tmp_path / "out" / "results.jsonl"
    box: dict = {}
    with agent_server(expert.base_url, "-j", "1") as first:
        profile = _profile(tmp_path, {"agent_server": first.url}, **more)
        worker = threading.Thread(target=lambda: box.update(result=run_profile(profile)[0]))
        worker.start()
        deadline = time.monotonic() + 300
        while not (results.is_file() and results.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
    worker.join(300)
    result = box["result"]
    assert result.exit_code == EXIT_ENDPOINT and "cannot reach the agent server" in result.message
    kept = _lines(results)
    assert 1 <= len(kept) < 8 and not any(r["error"] for r in kept)
    with agent_server(expert.base_url) as second:
        resumed, _ = run_profile(_profile(tmp_path, {"agent_server": second.url}, **more))
    assert resumed.exit_code == EXIT_OK and resumed.ran == 8 - len(kept)
    done = {(r["env_id"], r["task_id"]) for r in _lines(results) if not r.get("error")}
    assert len(done) == 8


@pytest.mark.parametrize(
    ("endpoint", "more", "says"),
    [
        ({"agent_server": "127.0.0.1:8800"}, {}, "must start with http://"),
        ({"agent_server": "http://h", "agent": "nope"}, {}, "unknown agent 'nope'"),
        ({"agent_server": "http://h", "local": True}, {}, "drop local: true"),
        ({"base_url": "http://h/v1", "agent": "multiturn"}, {}, "add agent_server"),
        ({"agent_server": "http://h"}, {"backend": "ray"}, "backend: ray plays episodes"),
    ],
)
def test_a_bad_agent_server_endpoint_is_one_line_with_the_mend(tmp_path, endpoint, more, says):
    with pytest.raises(ProfileError, match=says) as caught:
        _profile(tmp_path, endpoint, **more)
    assert "\n" not in str(caught.value)


def test_the_command_line_names_the_agent_server_as_the_policy(tmp_path, server):
    out = tmp_path / "cli"
    policy = f"agent-server:{server.url}"
    run = CliRunner().invoke(
        app, ["run", "--run", "Maze", "--episodes", "1", "--policy", policy, "--out", str(out)]
    )
    assert run.exit_code == EXIT_OK, run.output
    (record,) = _lines(out / "results.jsonl")
    assert record["endpoint"] == "command line" and record["outcome"] == "success"
    assert record["conversations"] and record["reward_valid"]
