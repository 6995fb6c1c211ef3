"""The SDK against ``agentgym platform serve``: the seed's example as the docs write it,
executions with steps and outcomes, feedback per action and per outcome, training data, the
async client, and retries that record once (a proxy that loses the first answer)."""

from __future__ import annotations

import asyncio
import re
import socket
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agentgym_envs.platform import AgentGym, AsyncClient, Client
from tests.platform.helpers import as_key, count

DOCS = Path(__file__).resolve().parents[2] / "docs" / "guides" / "platform.md"


def _seed_block() -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text("utf-8"), re.S)
    [block] = [
        b
        for b in blocks
        if "execute_with_feedback(agent_id=agent_id, input_data=query, context=history)" in b
        and "register_agent" in b
    ]
    return block


#: The seed's example, as issue #38 writes it (its key aside).
SEED = (
    'agent_id = gym.register_agent(name="Customer Support Agent", description="...", version="1.0.0")',
    "result = gym.execute_with_feedback(agent_id=agent_id, input_data=query, context=history)",
    "feedback = gym.get_feedback(agent_id, result.execution_id)",
)


def test_the_docs_block_is_the_seeds_example():
    lines = _seed_block().splitlines()
    for line in SEED:
        assert line in lines, line
    assert "gym = AgentGym(api_key=api_key)" in lines  # no base_url: the default or the env's


def test_the_seed_example_runs_as_a_script_of_its_own(platform, tmp_path):
    """A new user's script: the docs block saved as a file and run by Python, against the
    ``agentgym platform serve`` process, its key and URL in the environment."""
    import os
    import subprocess
    import sys

    script = tmp_path / "seed.py"
    script.write_text(_seed_block(), "utf-8")
    env = {**os.environ, "AGENTGYM_API_KEY": platform.a.key, "AGENTGYM_BASE_URL": platform.url}
    env["PYTHONPATH"] = str(DOCS.parents[2])
    before = count(platform.owner_url, "SELECT count(*) FROM episodes")
    done = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "Your order has shipped and arrives tomorrow. success ['good']"
    assert count(platform.owner_url, "SELECT count(*) FROM episodes") == before + 1


def test_the_seed_example_in_the_docs_runs_as_written(platform, monkeypatch, capsys):
    monkeypatch.setenv("AGENTGYM_API_KEY", platform.a.key)
    monkeypatch.setenv("AGENTGYM_BASE_URL", platform.url)
    scope: dict = {}
    exec(compile(_seed_block(), str(DOCS), "exec"), scope)
    result, feedback = scope["result"], scope["feedback"]
    uuid.UUID(result.execution_id)
    assert result.outcome == "success" and "shipped" in result.output
    assert feedback.execution_id == result.execution_id
    assert [e["label"] for e in feedback.entries] == ["good"]
    assert "shipped" in capsys.readouterr().out
    with as_key(platform.url, platform.a.key) as c:
        ex = c.get(f"/v1/agents/{scope['agent_id']}/executions/{result.execution_id}").json()
    assert [s["action"] for s in ex["steps"]] == ["search_orders(customer=42)"]
    assert ex["steps"][0]["result"] == "order 42: shipped"


def test_executions_feedback_and_training_data(platform):
    with Client(api_key=platform.a.key, base_url=platform.url) as gym:
        agent_id = gym.register_agent("Exporter", "d", "1.0.0")
        assert gym.register_agent("Exporter", "d", "1.0.0") == agent_id  # registering again: same

        def agent(q, ctx, trace):
            trace.step("think", observation=q, result="ok", reward=0.5)
            trace.step("answer", observation="ok")
            trace.outcome(q != "hard", 1.0 if q != "hard" else 0.2)
            return "done"

        good = gym.execute_with_feedback(agent_id, "easy", agent=agent)
        bad = gym.execute_with_feedback(agent_id, "hard", agent=agent)
        assert (good.success, bad.success, bad.score) == (True, False, 0.2)
        gym.feedback_action(agent_id, good.execution_id, 1, "bad", comment="wrong final step")
        gym.feedback_outcome(agent_id, bad.execution_id, "good", comment="actually fine")
        fb = gym.get_feedback(agent_id, good.execution_id)
        kinds = sorted((e["target"], e["source"], e["label"]) for e in fb.entries)
        assert kinds == [("action", "human", "bad"), ("outcome", "auto", "good")]
        sft = gym.export_training_data(agent_id, "sft")
        # both are judged successes now (a person's outcome label overrides the agent's)
        assert len(sft) == 2 and all("messages" in r for r in sft)
        rm = gym.export_training_data(agent_id, "rm")
        assert rm
        with pytest.raises(Exception, match="fmt"):
            gym.export_training_data(agent_id, "nonsense")

        def broken(q, ctx):
            raise RuntimeError("tool crashed")

        with pytest.raises(RuntimeError, match="tool crashed") as err:
            gym.execute_with_feedback(agent_id, "x", agent=broken)
        failed = gym.get_execution(agent_id, err.value.execution_id)
        assert failed["outcome"] == "failure" and "tool crashed" in failed["error"]


def test_the_async_client(platform):
    async def main():
        async with AsyncClient(api_key=platform.a.key, base_url=platform.url) as gym:
            agent_id = await gym.register_agent(name="Async", description="", version="2.0")

            @gym.agent("Async")
            async def agent(q, ctx):
                await asyncio.sleep(0.01)
                return q.upper()

            results = await asyncio.gather(
                *(gym.execute_with_feedback(agent_id, f"q{i}") for i in range(20))
            )
            assert sorted(r.output for r in results) == sorted(f"Q{i}" for i in range(20))
            listed = await gym.list_executions(agent_id)
            assert len(listed) == 20 and len({r["execution_id"] for r in listed}) == 20
            fb = await gym.get_feedback(agent_id, results[0].execution_id)
            assert fb.success

    asyncio.run(main())


def test_an_idempotency_key_records_once_even_when_sent_concurrently(platform):
    with as_key(platform.url, platform.a.key) as c:
        agent_id = c.post("/v1/agents", json={"name": "Idem", "version": "1"}).json()["id"]
        body = {"input": "q", "output": "a", "execution_id": str(uuid.uuid4())}
        key = {"Idempotency-Key": str(uuid.uuid4())}

        def send(_):
            return c.post(f"/v1/agents/{agent_id}/executions", json=body, headers=key)

        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(send, range(16)))
        assert {r.status_code for r in answers} == {201}
        assert len({r.json()["episode_id"] for r in answers}) == 1
        assert sum(r.headers.get("idempotent-replayed") == "true" for r in answers) == 15
        other = c.post(
            f"/v1/agents/{agent_id}/executions", json={**body, "output": "b"}, headers=key
        )
        assert other.status_code == 422
    n = count(
        platform.owner_url, f"SELECT count(*) FROM episodes WHERE key = '{body['execution_id']}'"
    )
    assert n == 1


class LossyProxy:
    """A TCP proxy (one request per connection) that forwards the first write it sees to the
    platform and then drops the answer: the server did the work, the client never heard."""

    def __init__(self, upstream: str, lose: bytes) -> None:
        host, port = upstream.rsplit("//", 1)[1].split(":")
        self.upstream = (host, int(port))
        self.lose = lose
        self.lost = 0
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    @staticmethod
    def _request(conn) -> bytes:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return data
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        m = re.search(rb"(?i)content-length: *(\d+)", head)
        need = int(m.group(1)) if m else 0
        while len(body) < need:
            body += conn.recv(65536)
        head = re.sub(rb"(?i)\r\nconnection: *[^\r]*", b"", head) + b"\r\nConnection: close"
        return head + b"\r\n\r\n" + body

    def _one(self, conn) -> None:
        with conn:
            request = self._request(conn)
            if not request:
                return
            with socket.create_connection(self.upstream) as up:
                up.sendall(request)
                answer = b""
                while chunk := up.recv(65536):
                    answer += chunk
            if self.lose in request and self.lost == 0:
                self.lost += 1
                return  # drop it: the client sees the connection close without an answer
            conn.sendall(answer)

    def close(self) -> None:
        self.sock.close()


def test_a_retried_call_records_once(platform):
    proxy = LossyProxy(platform.url, lose=b"/executions HTTP/1.1")
    try:
        with AgentGym(api_key=platform.a.key, base_url=proxy.url, backoff=0.05) as gym:
            agent_id = gym.register_agent("Retried", "", "1")
            result = gym.execute_with_feedback(agent_id, "once", agent=lambda q, c: "only once")
        assert proxy.lost == 1  # the first answer was lost, and the SDK retried
    finally:
        proxy.close()
    with as_key(platform.url, platform.a.key) as c:
        listed = c.get(f"/v1/agents/{agent_id}/executions").json()
    assert [e["execution_id"] for e in listed] == [result.execution_id]
    assert (
        count(
            platform.owner_url, f"SELECT count(*) FROM episodes WHERE key = '{result.execution_id}'"
        )
        == 1
    )


def test_bad_input_is_one_line(platform):
    with as_key(platform.url, platform.a.key) as c:
        r = c.post("/v1/agents", content=b"{not json", headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and r.json()["detail"] == "send a JSON object"
        agent_id = c.post("/v1/agents", json={"name": "Bad", "version": "1"}).json()["id"]
        r = c.post(f"/v1/agents/{agent_id}/executions", json={"input": "q", "steps": [{"x": 1}]})
        assert r.status_code == 400 and "action" in r.json()["detail"]
        r = c.post(f"/v1/agents/{agent_id}/executions", json={"input": "q", "score": "high"})
        assert r.status_code == 400 and "number" in r.json()["detail"]
    with pytest.raises(Exception, match="api_key"):
        AgentGym(api_key="", base_url=platform.url)


def test_clients_share_one_tls_context(platform):
    """Making a client does not load the CA bundle again (it cost ~40-65 ms of CPU each, and
    200 clients made in one event loop held every first call for seconds); each still works."""

    async def main():
        clients = [AsyncClient(api_key=platform.a.key, base_url=platform.url) for _ in range(3)]
        try:
            contexts = {id(c._http._transport._pool._ssl_context) for c in clients}
            agents = await asyncio.gather(*(c.list_agents() for c in clients))
        finally:
            await asyncio.gather(*(c.aclose() for c in clients))
        return contexts, agents

    contexts, agents = asyncio.run(main())
    assert len(contexts) == 1 and all(isinstance(a, list) for a in agents)
    with Client(api_key=platform.a.key, base_url=platform.url, verify=False) as gym:
        assert isinstance(gym.list_agents(), list)  # verify= is still the caller's to set


def test_recorded_executions_are_searchable_from_the_sdk(platform):
    """Every execution is indexed when it is recorded (pgvector, the organisation's rows only):
    free text finds it and "episodes like this one" ranks its kind first."""
    with Client(api_key=platform.a.key, base_url=platform.url) as gym:
        agent_id = gym.register_agent("Searcher", "d", "1.0.0")
        runs = {
            "maze": [("walls to the north, goal to the south", "move down")] * 2,
            "maze twin": [("walls to the north, goal to the south east", "move down")] * 2,
            "shop": [("red cotton t-shirt under 20 dollars", "click[buy now]")],
        }
        made = {}
        for name, steps in runs.items():
            made[name] = gym.record_execution(
                agent_id,
                f"task {name}",
                "done",
                steps=[{"observation": o, "action": a} for o, a in steps],
            )
        hits = gym.search_episodes("red cotton t-shirt buy", k=3)
        assert hits[0]["execution_id"] == made["shop"].execution_id, hits
        assert hits[0]["episode_id"] == str(made["shop"].episode_id)
        like = gym.similar_episodes(made["maze"].episode_id, k=2)
        assert like[0]["execution_id"] == made["maze twin"].execution_id, like
        assert str(made["maze"].episode_id) not in [h["episode_id"] for h in like]
        with pytest.raises(Exception, match="not indexed"):
            gym.similar_episodes(2_000_000_000)
