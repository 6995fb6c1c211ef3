"""The recording gateway attacked (#31.1-3, #32.3): a real uvicorn gateway on 127.0.0.1 in
front of a real HTTP upstream that answers oddly on purpose, the ``openai`` and MCP clients as
harnesses, raw sockets for the bodies a client library would not send."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

pytest.importorskip("mcp")
openai = pytest.importorskip("openai")

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

from agentgym_envs.agents import ExpertChatServer
from agentgym_envs.benchmarks.local_llm import free_port
from agentgym_envs.integrations.gateway import Gateway, create_app
from agentgym_envs.integrations.ownership import TOKEN_HEADER
from tests.integrations.slow_env import slow_maze
from tests.integrations.test_gateway import _read, _Running
from tests.raw_http import endless_chunks, send_raw

MESSAGE = {"role": "assistant", "content": "Action: move up"}
COMPLETION = {
    "id": "c1",
    "object": "chat.completion",
    "created": 1,
    "model": "odd",
    "choices": [{"index": 0, "message": MESSAGE, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 3, "completion_tokens": 3, "total_tokens": 6},
}


def _chunk(delta) -> str:
    return "data: " + json.dumps({"choices": [{"index": 0, "delta": delta}]}) + "\n\n"


#: What the odd upstream answers, by the request's ``model``.
ANSWERS = {
    "choices-ints": (200, "application/json", json.dumps({"choices": [1, 2]})),
    "choices-text": (200, "application/json", json.dumps({"choices": "none"})),
    "no-choices": (200, "application/json", json.dumps({"id": "x"})),
    "plain": (200, "application/json", json.dumps(COMPLETION)),
    "junk-sse": (
        200,
        "text/event-stream",
        _chunk({"role": "assistant", "content": "Action: "})
        + "data: 12345\n\n"
        + "data: {not json\n\n"
        + 'data: {"choices": "x"}\n\n'
        + 'data: {"choices": [7, {"delta": {"content": 5, "tool_calls": "x"}}]}\n\n'
        + _chunk({"content": "move up"})
        + "data: [DONE]\n\n",
    ),
}


def _completion_with(message_json: str) -> str:
    return (
        '{"id": "c2", "object": "chat.completion", "choices": [{"index": 0, '
        f'"finish_reason": "stop", "message": {message_json}}}]}}'
    )


#: Chat completions whose message is malformed in one way each (``msg-<how>`` models).
ODD_MESSAGES = {
    "msg-surrogate": '{"role": "assistant", "content": "Action: \\ud800 move\\u0000 up\\u001b"}',
    "msg-parts": '{"role": "assistant", "content": [1, {"text": 5}, {"text": null}, {"text": "x"}]}',
    "msg-tools": '{"role": 7, "content": null, "tool_calls": [5, {"function": 3}]}',
    "msg-content-object": '{"role": "assistant", "content": {"x": 1}}',
    "msg-deep": '{"role": "assistant", "content": "x", "extra": '
    + "[" * 100_000
    + "]" * 100_000
    + "}",
}
ANSWERS.update({k: (200, "application/json", _completion_with(m)) for k, m in ODD_MESSAGES.items()})


class OddUpstream:
    """A real HTTP chat upstream that answers per :data:`ANSWERS`."""

    def __enter__(self) -> str:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                status, kind, text = ANSWERS[body["model"]]
                data = text.encode()
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()


def _key(name: str) -> dict[str, str]:
    return {TOKEN_HEADER: f"key-of-{name}-0123456789abcdef"}


def _chat(base: str, name: str, model: str, **extra) -> httpx.Response:
    body = {"model": model, "messages": [{"role": "user", "content": "hi"}], **extra}
    return httpx.post(f"{base}/s/{name}/v1/chat/completions", json=body, headers=_key(name))


# -- 1. ownership -------------------------------------------------------------------------------
async def _mcp_call(url: str, headers: dict, tool: str, args: dict):
    async with (
        streamablehttp_client(url, headers=headers) as (read, write, _),
        ClientSession(read, write) as mcp,
    ):
        await mcp.initialize()
        return await mcp.call_tool(tool, args)


def test_a_session_belongs_to_the_token_that_started_it(tmp_path):
    with ExpertChatServer(["AgentGym/Maze-v0"]) as expert:
        gateway = Gateway(
            "AgentGym/Maze-v0", expert.base_url, tmp_path, max_sessions=4, max_sessions_per_client=2
        )
        with _Running(create_app(gateway)) as base:
            env = httpx.Client(base_url=f"{base}/s/mine/env", timeout=60)
            assert env.post("/reset", json={"task_id": 0}, headers=_key("mine")).status_code == 200
            thief = {TOKEN_HEADER: "guess-0123456789abcdef"}
            for attempt in (
                env.post("/step", json={"action": "move up"}, headers=thief),
                env.post("/step", json={"action": "move up"}),
                env.post("/reset", json={"task_id": 1}, headers=thief),
                httpx.post(f"{base}/s/mine/finish", headers=thief),
                httpx.post(
                    f"{base}/s/mine/v1/chat/completions",
                    json={"model": "x", "messages": []},
                    headers=thief,
                ),
            ):
                assert attempt.status_code == 403, attempt.text
                assert TOKEN_HEADER in attempt.json()["error"]["message"]
            url = f"{base}/mcp?session=mine"
            joined = asyncio.run(_mcp_call(url, thief, "act", {"action": "move up"}))
            assert joined.isError and TOKEN_HEADER in joined.content[0].text
            bare = asyncio.run(_mcp_call(url, {}, "act", {"action": "move up"}))
            assert bare.isError and TOKEN_HEADER in bare.content[0].text
            # the owner's episode did not move
            step = env.post("/step", json={"action": "move up"}, headers=_key("mine")).json()
            assert step["steps"] == 1
            own = asyncio.run(_mcp_call(url, _key("mine"), "act", {"action": "move down"}))
            assert not own.isError and own.structuredContent["steps"] == 2
            # no token at first: the gateway makes one and says it
            first = httpx.post(f"{base}/s/fresh/env/reset", json={"task_id": 0})
            token = first.headers[TOKEN_HEADER]
            later = httpx.post(
                f"{base}/s/fresh/env/step",
                json={"action": "move up"},
                headers={TOKEN_HEADER: token},
            )
            assert later.status_code == 200
            # one address holds at most 2 of the 4 episodes
            third = httpx.post(f"{base}/s/third/env/reset", json={}, headers=_key("third"))
            assert third.status_code == 429 and "client holds" in third.json()["error"]["message"]


# -- 2. a slow env holds up no one else ----------------------------------------------------------
def test_a_slow_env_call_does_not_block_other_sessions_and_has_a_deadline(tmp_path):
    with slow_maze() as env_id, ExpertChatServer(["AgentGym/Maze-v0"]) as expert:
        gateway = Gateway(env_id, expert.base_url, tmp_path, call_timeout=6.0)
        with _Running(create_app(gateway)) as base:
            for name in ("slow", "fast"):
                httpx.post(f"{base}/s/{name}/env/reset", json={"task_id": 0}, headers=_key(name))
            finished: list[str] = []

            def slow() -> None:
                reply = httpx.post(
                    f"{base}/s/slow/env/step",
                    json={"action": "wait 4"},
                    headers=_key("slow"),
                    timeout=120,
                )
                finished.append(f"slow {reply.status_code}")

            thread = threading.Thread(target=slow)
            thread.start()
            time.sleep(0.5)  # the slow step is under way
            for move in ("move up", "move down", "move up"):
                fast = httpx.post(
                    f"{base}/s/fast/env/step", json={"action": move}, headers=_key("fast")
                )
                assert fast.status_code == 200
            finished.append("fast")
            thread.join()
            assert finished == ["fast", "slow 200"]  # the fast session never waited for it
            # past the per-call deadline: 504 at once, and the episode is refused until reset
            late = httpx.post(
                f"{base}/s/slow/env/step",
                json={"action": "wait 12"},
                headers=_key("slow"),
                timeout=120,
            )
            assert late.status_code == 504 and "limit" in late.json()["error"]["message"]
            after = httpx.post(
                f"{base}/s/slow/env/step", json={"action": "move up"}, headers=_key("slow")
            )
            assert after.status_code == 409 and "reset" in after.json()["error"]["message"]
            again = httpx.post(
                f"{base}/s/slow/env/reset", json={"task_id": 0}, headers=_key("slow"), timeout=120
            )
            assert again.status_code == 200 and again.json()["steps"] == 0


def test_a_slow_mcp_tool_call_does_not_block_other_connections():
    import uvicorn

    from agentgym_envs.integrations.mcp import EpisodeStore, http_app

    with slow_maze() as env_id:
        port = free_port()
        store = EpisodeStore(env_id)
        server = uvicorn.Server(
            uvicorn.Config(http_app(env_id, store=store), port=port, log_level="warning")
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        url = f"http://127.0.0.1:{port}/mcp"
        order: list[str] = []

        async def play(name: str, action: str) -> None:
            async with (
                streamablehttp_client(f"{url}?session={name}", headers=_key(name)) as (r, w, _),
                ClientSession(r, w) as mcp,
            ):
                await mcp.initialize()
                await mcp.call_tool("reset", {"task_id": 0})
                if action.startswith("wait"):
                    result = await mcp.call_tool("act", {"action": action})
                else:
                    await asyncio.sleep(1.0)
                    for _ in range(3):
                        result = await mcp.call_tool("act", {"action": action})
                assert not result.isError
                order.append(name)

        async def both() -> None:
            await asyncio.gather(play("slow", "wait 5"), play("fast", "move up"))

        try:
            asyncio.run(both())
        finally:
            server.should_exit = True
            thread.join(timeout=15)
        assert order == ["fast", "slow"]


# -- 3. recordings ------------------------------------------------------------------------------
def test_odd_upstreams_are_answered_and_recorded_once(tmp_path):
    with OddUpstream() as upstream:
        gateway = Gateway("AgentGym/Maze-v0", upstream, tmp_path)
        with _Running(create_app(gateway)) as base:
            for model in ("choices-ints", "choices-text", "no-choices"):
                reply = _chat(base, "odd", model)
                assert reply.status_code == 502, reply.text
                assert "not a chat completion" in reply.json()["error"]["message"]
            client = openai.OpenAI(
                base_url=f"{base}/s/odd/v1", api_key="none", default_headers=_key("odd")
            )
            chunks = list(
                client.chat.completions.create(
                    model="junk-sse", messages=[{"role": "user", "content": "hi"}], stream=True
                )
            )
            junk_text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
            # a plain JSON answer to a streamed request becomes a valid event stream (#32.3)
            plain = list(
                client.chat.completions.create(
                    model="plain", messages=[{"role": "user", "content": "hi"}], stream=True
                )
            )
            plain_text = "".join(c.choices[0].delta.content or "" for c in plain if c.choices)
            assert [c.choices[0].finish_reason for c in plain if c.choices][-1] == "stop"
            assert plain[-1].usage.total_tokens == 6
        assert junk_text == "Action: move up"
        assert plain_text == "Action: move up"
    log = _read(tmp_path / "sessions" / "odd.jsonl")
    assert len(log) == 5  # every exchange once
    assert [e["response"] for e in log[:3]] == [None] * 3
    assert all("not a chat completion" in e["error"] for e in log[:3])
    assert log[3]["response"]["content"] == "Action: move up" and log[3]["junk"] == 4
    assert log[4]["response"] == MESSAGE and log[4]["usage"]["total_tokens"] == 6


def test_the_expert_server_honours_stream():
    with ExpertChatServer(["AgentGym/Maze-v0"]) as expert:
        client = openai.OpenAI(base_url=expert.base_url, api_key="none")
        env = __import__("agentgym_envs").make("AgentGym/Maze-v0")
        obs, _ = env.reset(seed=0, options={"task_id": 0, "split": "test"})
        chunks = list(
            client.chat.completions.create(
                model="expert", messages=[{"role": "user", "content": obs}], stream=True
            )
        )
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        assert "Action: move" in text
        assert chunks[-1].choices[0].finish_reason == "stop"


def test_huge_endless_and_deep_bodies_are_refused(tmp_path):
    with ExpertChatServer(["AgentGym/Maze-v0"]) as expert:
        gateway = Gateway("AgentGym/Maze-v0", expert.base_url, tmp_path)
        app = create_app(gateway)
        with _Running(app) as base:
            port = int(base.rsplit(":", 1)[1])
            path = b"/s/big/v1/chat/completions"
            block = b"x" * 65536
            head = (
                b"POST " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nContent-Length: 100000000\r\n\r\n"
            )
            reply, sent = send_raw(port, head, (block for _ in range(100_000_000 // len(block))))
            assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
            assert sent < 50_000_000  # the gateway stopped reading long before the end
            chunked = (
                b"POST /s/big/env/step HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            )
            reply, sent = send_raw(port, chunked, endless_chunks())
            assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
            deep = httpx.post(
                f"{base}/s/big/v1/chat/completions",
                content=b"[" * 100_000 + b"]" * 100_000,
                headers=_key("big"),
            )
            assert deep.status_code == 400 and "deep" in deep.json()["error"]["message"]
            deep_env = httpx.post(
                f"{base}/s/big/env/step", content=b"{" * 100_000, headers=_key("big")
            )
            assert deep_env.status_code == 400
            assert httpx.get(f"{base}/v1/models").status_code == 200  # still serving
    assert not (tmp_path / "sessions" / "big.jsonl").exists()  # nothing forwarded or logged


def test_env_only_sessions_finish_eviction_and_steps_after_finish(tmp_path):
    with ExpertChatServer(["AgentGym/Maze-v0"]) as expert:
        gateway = Gateway(
            "AgentGym/Maze-v0", expert.base_url, tmp_path, max_sessions=3, max_sessions_per_client=4
        )
        with _Running(create_app(gateway)) as base:

            def post(name: str, path: str, body=None):
                return httpx.post(f"{base}/s/{name}/{path}", json=body or {}, headers=_key(name))

            for name in ("e1", "e2", "e3"):
                assert post(name, "env/reset", {"task_id": 0}).status_code == 200
                assert post(name, "env/step", {"action": "move up"}).status_code == 200
            # all three episodes are in use: a fourth is refused, none is evicted
            full = post("e4", "env/reset", {"task_id": 0})
            assert full.status_code == 429 and "in use" in full.json()["error"]["message"]
            assert post("e1", "env/step", {"action": "move down"}).json()["steps"] == 2
            done = post("e2", "finish")
            assert done.status_code == 200 and done.json()["env_steps"] == 1
            late = post("e2", "env/step", {"action": "move up"})
            assert late.status_code == 409 and "finished" in late.json()["error"]["message"]
            assert post("e2", "env/reset", {}).status_code == 409
            # the finished episode makes room
            assert post("e4", "env/reset", {"task_id": 0}).status_code == 200
            assert post("e1", "env/step", {"action": "move up"}).json()["steps"] == 3
    # shutdown wrote the env-only sessions still open
    records = {r["session"]: r for r in _read(tmp_path / "agenttraj.jsonl")}
    assert set(records) == {"e1", "e2", "e3"}
    assert records["e1"]["env_steps"] == 3 and records["e3"]["env_steps"] == 1


def test_sigint_writes_every_session_even_with_a_bad_one(tmp_path):
    with ExpertChatServer(["AgentGym/Maze-v0"]) as expert:
        port = free_port()
        cmd = [sys.executable, "-c", "from agentgym_envs.cli import main; main()"]
        proc = subprocess.Popen(
            [
                *cmd,
                "gateway",
                "--env",
                "Maze-v0",
                "--upstream",
                expert.base_url,
                "--out",
                str(tmp_path),
                "--port",
                str(port),
            ],
            env={**os.environ, "PYTHONPATH": os.getcwd()},
        )
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(600):
                try:
                    httpx.get(f"{base}/v1/models")
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
            # a session whose messages are not chat messages at all
            bad = httpx.post(
                f"{base}/s/bad/v1/chat/completions",
                json={"model": "expert", "messages": [1, "two", None]},
                headers=_key("bad"),
            )
            assert bad.status_code == 200
            good = httpx.post(
                f"{base}/s/good/v1/chat/completions",
                json={"model": "expert", "messages": [{"role": "user", "content": "hi"}]},
                headers=_key("good"),
            )
            assert good.status_code == 200
            httpx.post(f"{base}/s/envonly/env/reset", json={"task_id": 0}, headers=_key("envonly"))
            httpx.post(
                f"{base}/s/envonly/env/step", json={"action": "move up"}, headers=_key("envonly")
            )
        finally:
            proc.send_signal(signal.SIGINT)
            assert proc.wait(timeout=120) == 0
    records = {r["session"]: r for r in _read(tmp_path / "agenttraj.jsonl")}
    assert set(records) == {"bad", "good", "envonly"}
    assert records["envonly"]["env_steps"] == 1 and records["good"]["model_calls"] == 1


def test_sigint_writes_every_session_once_when_upstream_messages_are_malformed(tmp_path):
    """Each session's model answered with a malformed message (a lone surrogate, content parts
    that are not text, tool calls that are not objects, a 100k-deep reply...): at SIGINT every
    session, the well-formed one too, is written exactly once."""
    with OddUpstream() as upstream:
        port = free_port()
        proc = subprocess.Popen(
            [sys.executable, "-c", "from agentgym_envs.cli import main; main()", "gateway"]
            + ["--env", "Maze-v0", "--upstream", upstream, "--out", str(tmp_path)]
            + ["--port", str(port)],
            env={**os.environ, "PYTHONPATH": os.getcwd()},
        )
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(600):
                try:
                    httpx.get(f"{base}/v1/models")
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
            names = {"plain": "plain", **{m.removeprefix("msg-"): m for m in ODD_MESSAGES}}
            for name, model in names.items():
                assert _chat(base, name, model).status_code == 200, name
                step = {"action": "move up"}
                httpx.post(f"{base}/s/{name}/env/reset", json={"task_id": 0}, headers=_key(name))
                assert (
                    httpx.post(
                        f"{base}/s/{name}/env/step", json=step, headers=_key(name)
                    ).status_code
                    == 200
                )
        finally:
            proc.send_signal(signal.SIGINT)
            assert proc.wait(timeout=120) == 0
    written = [r["session"] for r in _read(tmp_path / "agenttraj.jsonl")]
    assert sorted(written) == sorted(names)  # each once
    chat = [r["session"] for r in _read(tmp_path / "chat.jsonl")]
    assert len(chat) == len(set(chat))
    lines = (tmp_path / "sessions" / "surrogate.jsonl").read_text(encoding="utf-8")
    assert json.loads(lines)["response"]["content"] == "Action: \ud800 move\x00 up\x1b"
