"""The one body helper (:mod:`agentgym_envs.bodies`) in front of a real app under uvicorn on
127.0.0.1: big and endless bodies are 413 before they are read, deep JSON is a 400 before
``json.loads``, and a WebSocket frame that is not a message gets an error frame while the
session goes on. The hubs' servers (tests/integrations/test_hub_attacks.py) put the same
guard in front of apps they do not own."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import httpx
import pytest

from agentgym_envs.benchmarks.local_llm import free_port
from agentgym_envs.bodies import (
    BodyGuard,
    BodyRefused,
    NotJSON,
    json_depth,
    parse_json,
)
from tests.raw_http import endless_chunks, send_raw

pytest.importorskip("uvicorn")
websockets = pytest.importorskip("websockets")


def _app():
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route, WebSocketRoute

    async def echo(request):
        body = await request.body()
        return JSONResponse({"bytes": len(body), "data": json.loads(body or b"null")})

    async def ws(websocket):
        await websocket.accept()
        while True:
            message = json.loads(await websocket.receive_text())  # a list would crash here
            await websocket.send_text(json.dumps({"type": "ok", "got": message.get("type")}))

    app = Starlette(routes=[Route("/echo", echo, methods=["POST"]), WebSocketRoute("/ws", ws)])
    app.add_middleware(
        BodyGuard,
        limit=1 << 20,
        http_error=lambda m: {"error": m},
        ws_error=lambda m: {"type": "error", "data": {"message": m}},
    )
    return app


@pytest.fixture(scope="module")
def port():
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(_app(), port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    yield port
    server.should_exit = True
    thread.join(30)


def test_big_and_endless_bodies_are_413_before_they_are_read(port):
    size = 64 << 20
    head = f"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: {size}\r\n\r\n".encode()
    reply, sent = send_raw(port, head, iter([b" " * 65536] * (size // 65536)))
    assert reply.startswith(b"HTTP/1.1 413") and sent < size // 2
    head = b"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    reply, sent = send_raw(port, head, endless_chunks())
    assert reply.startswith(b"HTTP/1.1 413") and b"connection: close" in reply.lower()


def test_deep_json_is_a_400_and_normal_bodies_pass(port):
    url = f"http://127.0.0.1:{port}/echo"
    reply = httpx.post(url, content=b"[" * 100_000 + b"]" * 100_000, timeout=60)
    assert reply.status_code == 400 and "nested deeper" in reply.json()["error"]
    reply = httpx.post(url, json={"a": [[1]], "s": "[[[[" * 100}, timeout=60)
    assert reply.status_code == 200 and reply.json()["data"]["a"] == [[1]]


def test_websocket_frames_that_are_not_messages_get_an_error_and_the_session_goes_on(port):
    async def play() -> list:
        out = []
        async with websockets.connect(f"ws://127.0.0.1:{port}/ws", max_size=None) as ws:
            for frame in ("[1]", "7", '"x"', b"\x00\x01", "[" * 100_000, "{x", "null"):
                await ws.send(frame)
                answer = json.loads(await ws.recv())
                await ws.send('{"type": "reset"}')
                out.append((answer["type"], json.loads(await ws.recv())["got"]))
        return out

    answers = asyncio.run(play())
    assert answers == [("error", "reset")] * 7


def test_parse_json_and_depth():
    assert json_depth(b'{"a": "[[[[", "b": [[1]]}') == 3
    assert parse_json(b"  ", empty={}) == {}
    with pytest.raises(NotJSON):
        parse_json(b"{x")
    with pytest.raises(BodyRefused, match="nested deeper than 4"):
        parse_json(b"[[[[[1]]]]]", max_depth=4)
