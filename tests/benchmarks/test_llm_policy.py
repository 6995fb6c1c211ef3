"""The OpenAI-compatible policy against a real model: llama.cpp serving SmolLM2-135M on 127.0.0.1.

SmolLM2-135M plays badly; these tests check the path (prompt, real generation, parsing,
stepping, scoring, recording, errors), not the scores.
"""

from __future__ import annotations

import http.server
import json
import threading
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx", reason="the OpenAI-compatible policy needs the bench extra")

from agentgym_envs.benchmarks.llm import (
    ChatClient,
    ContextLengthError,
    EndpointError,
    EndpointUnreachableError,
)
from agentgym_envs.benchmarks.local_llm import LOCAL_MODEL_ALIAS, free_port
from agentgym_envs.benchmarks.policies import openai_spec
from agentgym_envs.benchmarks.report import read_results
from agentgym_envs.benchmarks.runner import run_benchmark

SHORT = {"max_tokens": 48}


def test_client_gets_real_completions(llm_server):
    client = ChatClient(llm_server.base_url)
    assert LOCAL_MODEL_ALIAS in client.models()
    assert client.check() == LOCAL_MODEL_ALIAS
    reply = client.chat([{"role": "user", "content": "Say hello."}])
    assert isinstance(reply.content, str) and reply.content.strip()
    assert reply.usage["prompt_tokens"] > 0 and reply.usage["completion_tokens"] > 0
    client.close()


def test_react_benchmark_with_real_model(llm_server, tmp_path):
    spec = openai_spec(base_url=llm_server.base_url, fmt="react", **SHORT)
    res = run_benchmark(
        "Maze-v0,Wordle-v0", spec, out=tmp_path, limit=1, max_rounds=2, concurrency=1
    )
    assert res.ran == 2 and res.summary.config["policy"]["model"] == LOCAL_MODEL_ALIAS
    for rec in read_results(tmp_path):
        conv = rec["conversations"]
        assert (
            conv[0]["from"] == "human" and "Action:" in conv[0]["value"]
        )  # instructions + reply format
        assert conv[1] == {"from": "gpt", "loss": False, "value": "Ok."}
        replies = [t for t in conv[2:] if t["from"] == "gpt"]
        assert len(replies) == rec["turns"] >= 1 and all(t["loss"] is True for t in replies)
        assert conv[-1]["from"] == "human"  # the env's answer to the last reply
        assert 0.0 <= rec["reward"] <= 1.0
        assert rec["tokens"]["prompt_tokens"] > 0 and rec["tokens"]["completion_tokens"] > 0
        if not rec["success"]:
            assert rec["turns"] == 2 and rec["truncation_reason"] in ("max_rounds", "turn_limit")
    assert (tmp_path / "summary.png").is_file()


def test_tools_format_with_real_model(llm_server):
    spec = openai_spec(base_url=llm_server.base_url, fmt="tools", **SHORT)
    res = run_benchmark("Maze-v0", spec, limit=1, max_rounds=2)
    rec = res.records[0]
    assert rec["turns"] == 2 or rec["success"]
    assert rec["error"] is None and rec["tokens"]["completion_tokens"] > 0
    replies = [t for t in rec["conversations"] if t["from"] == "gpt" and t["loss"]]
    assert len(replies) == rec["turns"]


def test_unreachable_endpoint_is_one_clear_line(tmp_path):
    client = ChatClient(f"http://127.0.0.1:{free_port()}/v1", model="m", max_retries=0)
    with pytest.raises(EndpointUnreachableError) as err:
        client.chat([{"role": "user", "content": "hi"}])
    msg = str(err.value)
    assert "cannot reach" in msg and "--base-url" in msg and "\n" not in msg
    spec = openai_spec(base_url=f"http://127.0.0.1:{free_port()}/v1", max_retries=0)
    with pytest.raises(EndpointUnreachableError):
        run_benchmark("Maze-v0", spec, out=tmp_path / "run", limit=1)
    assert not (tmp_path / "run" / "results.jsonl").exists()


def test_wrong_path_is_a_clear_error(llm_server):
    client = ChatClient(
        llm_server.base_url.replace("/v1", "/nope"), model=LOCAL_MODEL_ALIAS, max_retries=0
    )
    with pytest.raises(EndpointError, match="404"):
        client.chat([{"role": "user", "content": "hi"}])


class _Flaky(http.server.BaseHTTPRequestHandler):
    """Answers 503 to the first ``fail`` POSTs, then forwards to the real model server."""

    fail = 0
    target = ""

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if type(self).fail > 0:
            type(self).fail -= 1
            self.send_response(503)
            self.send_header("Retry-After", "0")
            self.end_headers()
            self.wfile.write(b"busy")
            return
        r = httpx.post(
            self.target + self.path,
            content=body,
            headers={"Content-Type": "application/json"},
            timeout=120,
        )
        self.send_response(r.status_code)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(r.content)

    def log_message(self, *args):  # keep test output clean
        pass


@pytest.fixture()
def flaky(llm_server):
    _Flaky.target = f"http://127.0.0.1:{llm_server.port}"
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Flaky)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_transient_errors_are_retried_with_backoff(flaky):
    _Flaky.fail = 2
    client = ChatClient(flaky, model=LOCAL_MODEL_ALIAS, max_retries=3, backoff=0.01)
    reply = client.chat([{"role": "user", "content": "Say yes."}], sampling=None)
    assert reply.content is not None and client.retries == 2
    _Flaky.fail = 5
    client = ChatClient(flaky, model=LOCAL_MODEL_ALIAS, max_retries=1, backoff=0.01)
    with pytest.raises(EndpointError, match="kept failing after 2 attempts"):
        client.chat([{"role": "user", "content": "Say yes."}])
    _Flaky.fail = 0


def test_context_overflow_ends_the_episode_truncated(llm_server):
    client = ChatClient(llm_server.base_url, max_retries=0)
    with pytest.raises(ContextLengthError):
        client.chat([{"role": "user", "content": "word " * 6000}])
    spec = openai_spec(base_url=llm_server.base_url, system="word " * 6000, **SHORT)
    rec = run_benchmark("Wordle-v0", spec, limit=1).records[0]
    assert rec["truncated"] and rec["truncation_reason"] == "context_length" and rec["turns"] == 0
    assert rec["error"] is None
    # the refused call is the policy's time too; no env step followed it
    assert len(rec["latency"]["policy_s"]) == 1 and rec["latency"]["env_s"] == []


def test_cli_local_policy_starts_and_stops_its_server(tmp_path):
    typer = pytest.importorskip("typer")
    from typer.testing import CliRunner

    from agentgym_envs.benchmarks.cli import register_cli
    from agentgym_envs.benchmarks.local_llm import local_llm_available

    if local_llm_available():
        pytest.skip(local_llm_available())
    app = typer.Typer()
    app.command("noop")(lambda: None)
    register_cli(app)
    out = tmp_path / "local"
    r = CliRunner().invoke(
        app,
        [
            "bench",
            "--envs",
            "Maze-v0",
            "--policy",
            "local",
            "--limit",
            "1",
            "--max-rounds",
            "1",
            "--max-tokens",
            "32",
            "--out",
            str(out),
            "--no-progress",
        ],
        catch_exceptions=False,
    )
    assert r.exit_code == 0, r.output
    config = json.loads((out / "run.json").read_text())
    assert config["policy"]["name"] == "local" and config["policy"]["model"] == LOCAL_MODEL_ALIAS
    assert len(read_results(out)) == 1
    assert Path(out / "summary.md").is_file()


_SERVE_CODE = (
    "import typer\nfrom agentgym_envs.benchmarks.cli import register_cli\n"
    "app = typer.Typer()\napp.command('noop')(lambda: None)\nregister_cli(app)\napp()\n"
)


def _start_llm_serve(port: int, log_path):
    import subprocess
    import sys

    from agentgym_envs.benchmarks.local_llm import local_llm_available

    if local_llm_available():
        pytest.skip(local_llm_available())
    # a file, not an unread pipe: a full pipe would block the server (the child keeps the fd)
    with open(log_path, "wb") as log:
        return subprocess.Popen(
            [sys.executable, "-c", _SERVE_CODE, "llm", "serve", "--port", str(port)],
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def _children(pid: int) -> list:
    from tests.processes import descendants

    return descendants(pid)  # read while other processes come and go


def test_llm_serve_runs_until_interrupted(tmp_path):
    import signal
    import time

    import psutil

    port = free_port()
    proc = _start_llm_serve(port, tmp_path / "serve.log")
    try:
        url = f"http://127.0.0.1:{port}/v1/models"
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            try:
                if httpx.get(url, timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        assert httpx.get(url, timeout=5).json()["data"][0]["id"] == LOCAL_MODEL_ALIAS
        children = _children(proc.pid)
        assert children, "the model server runs as a child of llm serve"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=180) == 0, (tmp_path / "serve.log").read_text()
        _gone, alive = psutil.wait_procs(children, timeout=30)
        assert not alive  # the model server went with it
        with pytest.raises(httpx.HTTPError):
            httpx.get(url, timeout=2)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_llm_serve_stops_when_interrupted_while_the_model_loads(tmp_path):
    import signal
    import time

    import psutil

    proc = _start_llm_serve(free_port(), tmp_path / "serve.log")
    try:
        deadline = time.monotonic() + 120
        while not _children(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        children = _children(proc.pid)
        assert children, "llm serve started no model server"
        proc.send_signal(signal.SIGINT)  # most likely still loading the model
        proc.send_signal(signal.SIGINT)  # an impatient second Ctrl-C changes nothing
        assert proc.wait(timeout=180) == 0, (tmp_path / "serve.log").read_text()
        _gone, alive = psutil.wait_procs(children, timeout=30)
        assert not alive
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_chat_agent_keeps_its_own_windowed_conversation_without_chat_history(llm_server):
    import gymnasium as gym

    from agentgym_envs.benchmarks.llm import Sampling
    from agentgym_envs.benchmarks.policies import ChatAgent
    from agentgym_envs.wrappers import ReAct

    client = ChatClient(llm_server.base_url, sampling=Sampling(max_tokens=16))
    agent = ChatAgent(client, max_history_turns=1)
    env = ReAct(gym.make("AgentGym/Maze-v0"))  # no ChatHistory: the agent keeps the episode
    obs, info = env.reset(options={"split": "test", "task_id": 0})
    start = dict(info)
    for _ in range(3):
        obs, _, terminated, truncated, info = env.step(agent(obs, info))
        if terminated or truncated:
            break
    turns = agent.conversation()
    assert turns[0] == {"from": "human", "loss": None, "value": start["instructions"]}
    assert turns[1] == {"from": "gpt", "loss": False, "value": "Ok."}
    assert turns[2]["value"] == start["first_turn"]
    assert [t["from"] for t in turns[3:]] == ["gpt", "human"] * (len(agent.history) - 1) + ["gpt"]
    window = agent.history.messages(1)
    assert window[:3] == agent.history.messages()[:3] and len(window) == 4  # opening + last reply
    assert agent.usage["calls"] == len(agent.history)
    client.close()
