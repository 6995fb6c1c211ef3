"""Agent servers: ``agentgym agent-server`` as a real process on 127.0.0.1, the family's
expert behind the OpenAI interface as the model (so the score must be the expert's)."""

from __future__ import annotations

import time

import httpx
import pytest
from conftest import AgentServerProcess, FailingModel, free_port

from agentgym_envs.agents import AgentServerClient, AgentServerPolicy, ExpertChatServer
from agentgym_envs.agents.client import agent_server_spec
from agentgym_envs.benchmarks import run_benchmark, sweep
from agentgym_envs.benchmarks.llm import EndpointError
from agentgym_envs.errors import AgentGymError

ENVS = ["AgentGym/Maze-v0", "AgentGym/Movie-v0", "AgentGym/BIRD-v0", "AgentGym/TicTacToe-v0"]


@pytest.fixture(scope="module")
def expert():
    with ExpertChatServer(ENVS) as server:
        yield server


@pytest.fixture(scope="module")
def failing(expert):
    model = FailingModel(expert.base_url, good=3)
    yield model
    model.close()


@pytest.fixture(scope="module")
def server(expert, failing):
    proc = AgentServerProcess(
        "multistep",
        "--model-url",
        expert.base_url,
        "-j",
        "8",
        "--allow-model-url",
        "http://127.0.0.1:9/v1",
        "--allow-model-url",
        f"failing={failing.base_url}",
    )
    yield proc
    proc.stop()


def test_run_returns_the_row_with_response_reward_and_tokens(server):
    with AgentServerClient(server.url) as client:
        answer = client.run({"env_id": "Maze-v0", "task_id": 3, "ground_truth": "kept"})
        tools = client.run({"env_id": "Movie-v0", "task_id": 2, "agent": "multiturn"})
    assert answer["ground_truth"] == "kept"  # rows pass through, as NeMo Gym's do
    assert answer["reward"] == 1.0 and answer["success"] and answer["outcome"] == "success"
    assert answer["reward_valid"] and answer["agent"] == "multistep"
    assert answer["item_id"].startswith("maze_") and answer["conversations"][0]["from"] == "human"
    usage = answer["response"]["usage"]
    assert usage["input_tokens"] == answer["tokens"]["prompt_tokens"] > 0
    assert [m["role"] for m in answer["response"]["output"][:3]] == ["user", "assistant", "user"]
    assert tools["reward"] == 1.0 and tools["agent"] == "multiturn"
    assert any(m.get("tool_calls") for m in tools["response"]["output"])


def test_concurrent_episodes_lose_none(server):
    rows = [{"env_id": ENVS[i % 3], "task_id": i % 5, "row": i} for i in range(36)]
    before = httpx.get(server.url + "/health").json()["done"]
    with AgentServerClient(server.url) as client:
        answers = client.run_many(rows, concurrency=18)
    assert [a["row"] for a in answers] == list(range(36))
    assert [(a["env_id"], a["task_id"]) for a in answers] == [
        (r["env_id"], r["task_id"]) for r in rows
    ]
    assert all(a["success"] and a["reward_valid"] for a in answers)
    assert httpx.get(server.url + "/health").json()["done"] == before + 36
    metrics = httpx.post(server.url + "/aggregate_metrics", json=answers).json()
    assert metrics["episodes"] == 36 and metrics["success_rate"] == 1.0


@pytest.mark.parametrize(
    ("row", "status", "says"),
    [
        ({"env_id": "Mazee-v0", "task_id": 1}, 400, "did you mean 'AgentGym/Maze-v0'"),
        ({"env_id": "Maze-v0", "task_id": 999}, 400, "has 25 tasks"),
        ({"env_id": "Maze-v0", "agent": "nope"}, 400, "unknown agent 'nope'"),
        ({"task_id": 1}, 400, "give env_id"),
        ({"env_id": "Maze-v0", "options": {"bogus": 1}}, 400, "unknown MultiStepAgent options"),
        ({"env_id": "Maze-v0", "options": {"max_steps": "x"}}, 400, "max_steps must be"),
        (
            {"env_id": "Maze-v0", "agent": "multiturn-user", "options": {"max_turns": 0}},
            400,
            ">= 1",
        ),
        ([1, 2], 400, "JSON object"),
        (
            {"env_id": "Maze-v0", "model": {"base_url": "http://127.0.0.1:9/v1"}},
            424,
            "cannot reach the model endpoint",
        ),
        (
            {"env_id": "Maze-v0", "agent": "multiturn-user", "user_model": "http://127.0.0.1:9/v1"},
            424,
            "cannot reach the model endpoint",
        ),
    ],
)
def test_bad_rows_are_4xx_with_the_mend(server, row, status, says):
    response = httpx.post(server.url + "/run", json=row, timeout=60)
    assert response.status_code == status and says in response.json()["detail"]


def test_client_errors_are_one_line(server):
    with AgentServerClient(server.url) as client:
        with pytest.raises(EndpointError, match="unreachable"):
            client.run({"env_id": "Maze-v0", "model": "http://127.0.0.1:9/v1"})
        with pytest.raises(AgentGymError, match="unknown env id"):
            client.run({"env_id": "Nope-v0"})
    with pytest.raises(EndpointError, match="start it with agentgym agent-server"):
        AgentServerClient(f"http://127.0.0.1:{free_port()}").run({"env_id": "Maze-v0"})


def test_a_model_failing_mid_episode_ends_it_as_env_error(server, failing):
    with AgentServerClient(server.url) as client:
        answer = client.run({"env_id": "Maze-v0", "task_id": 3, "model": "failing"})
    assert answer["outcome"] == "env_error" and answer["reward_valid"] is False
    assert "crashed" in answer["error"] and answer["turns"] == 3
    assert len([t for t in answer["conversations"] if t["loss"]]) == 3  # the model's turns


def test_resources_api_seed_one_post_per_tool_verify(server):
    import agentgym_envs

    env = agentgym_envs.make("AgentGym/BIRD-v0")
    obs, info = env.reset(seed=0, options={"task_id": 4, "split": "test"})
    action = agentgym_envs.expert_policy(env)(obs, info)
    env.close()
    with httpx.Client(base_url=server.url, timeout=60) as http:
        seeded = http.post("/seed_session", json={"env_id": "BIRD-v0", "task_id": 4}).json()
        assert seeded["observation"] == obs and seeded["tools"]
        assert http.post("/no_such_tool", json={}).status_code == 404
        done = http.post("/step", json={"action": action}).json()
        assert done["done"] and done["outcome"] == "success"
        verified = http.post("/verify", json={"responses_create_params": {"input": []}}).json()
        assert verified["reward"] == 1.0 and verified["reward_valid"]
        assert "responses_create_params" in verified
        assert http.post("/verify", json={}).status_code == 404  # the session is closed
        # one POST per tool: the tool's JSON arguments, the env's answer in the body
        tool = seeded["tools"][0]["function"]
        (arg,) = tool["parameters"]["properties"]
        http.post("/seed_session", json={"item_id": seeded["item_id"]})
        wrong = http.post(f"/{tool['name']}", json={arg: "SELECT 1"}).json()
        assert wrong["done"] and wrong["outcome"] == "failure"
        assert http.post("/verify", json={}).json()["reward"] == 0.0


def test_bench_and_rollout_collect_drive_the_agent_server(server, tmp_path):
    from agentgym_envs.rollout import collect

    envs = ENVS[:2]
    result = run_benchmark(
        envs, agent_server_spec(server.url), limit=3, concurrency=6, out=tmp_path
    )
    expert = sweep(envs, limit=3)
    assert [r["success"] for r in result.records] == [r["success"] for r in expert.records]
    assert all(r["tokens"]["prompt_tokens"] > 0 for r in result.records)
    episodes = collect("AgentGym/Maze-v0", AgentServerPolicy(server.url), range(6), num_envs=3)
    assert [e.task_id for e in episodes] == list(range(6))
    assert all(e.success and e.outcome == "success" and e.turns > 0 for e in episodes)


def test_bench_cli_with_an_agent_server_policy(server, tmp_path):
    from typer.testing import CliRunner

    from agentgym_envs.cli import app

    out = tmp_path / "run"
    argv = ["bench", "--no-progress", "--policy", f"agent-server:{server.url}"]
    argv += ["--envs", "Maze-v0", "--limit", "2", "-j", "2", "--out", str(out)]
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
    assert "| AgentGym/Maze-v0 | 2 | 1.000 | 100.0% |" in (out / "summary.md").read_text()


def test_the_episode_deadline_ends_it_as_time_limit(expert):
    from agentgym_envs.agents import AgentServer

    # a slow model: each call waits 0.5 s, so 11 moves cannot fit in 3 s (and the call in
    # flight at the deadline is cut there: no call outlives the episode)
    expert.complete({"messages": []})  # its first-observation index is built before the clock
    slow = _SlowModel(expert.base_url, 0.5)
    try:
        with AgentServer(model={"base_url": slow.base_url}, episode_timeout=3.0) as server:
            answer = httpx.post(
                server.url + "/run", json={"env_id": "Maze-v0", "task_id": 3}, timeout=120
            ).json()
    finally:
        slow.close()
    assert answer["outcome"] == "time_limit" and answer["reward_valid"] is False
    assert 0 < answer["turns"] < 11


class _SlowModel(FailingModel):
    """Every call answered by the upstream after ``delay`` seconds."""

    def __init__(self, upstream: str, delay: float) -> None:
        super().__init__(upstream, good=10**9)
        handler = self.httpd.RequestHandlerClass
        post = handler.do_POST

        def slow_post(self):
            time.sleep(delay)
            post(self)

        handler.do_POST = slow_post
