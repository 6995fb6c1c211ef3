"""Attack the OpenEnv or ORS server for the job's id (``job["hub"]``) with raw HTTP, raw
sockets and raw WebSocket frames, inside the hub's own venv; print what came back.

OpenEnv: ``/reset`` with bad task ids, splits and seeds; a 64 MB body; WebSocket frames that
are not messages, each followed by a real reset and step on the same connection.
ORS: ``/create`` with bad task specs, index -1, more sessions than the cap (and the process's
thread count meanwhile); a 64 MB body; the SDK client on a bad task.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import uuid

from common import Served, done, job

os.environ.setdefault("OPENREWARD_DISABLE_UPDATE_CHECK", "1")
os.environ.setdefault("OPENREWARD_LOG_LEVEL", "WARNING")

BIG = 64 << 20


def big_body(port: int, path: str, extra: str = "") -> dict:
    from tests.raw_http import endless_chunks, send_raw

    out = {}
    head = (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{extra}"
        f"Content-Length: {BIG}\r\n\r\n"
    ).encode()
    reply, sent = send_raw(port, head, iter([b" " * 65536] * (BIG // 65536)))
    out["declared"] = {"head": reply[:300].decode("latin-1"), "sent": sent}
    head = (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{extra}"
        "Transfer-Encoding: chunked\r\n\r\n"
    ).encode()
    reply, sent = send_raw(port, head, endless_chunks())
    out["chunked"] = {"head": reply[:300].decode("latin-1"), "sent": sent}
    return out


class Http:
    """POST and GET with the standard library (the hubs' venvs need not have httpx)."""

    def __init__(self, base: str) -> None:
        self.base = base

    def __enter__(self) -> Http:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def request(self, method: str, path: str, body=None, headers=None, content=None) -> dict:
        import urllib.error
        import urllib.request

        data = content if content is not None else None
        if body is not None:
            data = json.dumps(body).encode()
        head = {"Content-Type": "application/json", **(headers or {})}
        req = urllib.request.Request(self.base + path, data=data, headers=head, method=method)
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                status, raw = r.status, r.read()
        except urllib.error.HTTPError as exc:
            status, raw = exc.code, exc.read()
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = raw[:300].decode("utf-8", "replace")
        return {"status": status, "body": parsed}

    def post(self, path: str, json=None, headers=None, content=None) -> dict:
        return self.request("POST", path, json, headers, content)

    def get(self, path: str, headers=None) -> dict:
        return self.request("GET", path, None, headers)


async def ws_frames(url: str) -> list:
    import websockets

    frames = [
        ("list", "[1, 2]"),
        ("number", "7"),
        ("string", '"reset"'),
        ("binary", b"\x00\x01reset"),
        ("deep", "[" * 100_000 + "]" * 100_000),
        ("deep-object", '{"type": "reset", "data": ' + "[" * 100_000 + "]" * 100_000 + "}"),
        ("not-json", "{reset"),
    ]
    out = []
    ws_url = url.replace("http://", "ws://") + "/ws"
    async with websockets.connect(ws_url, max_size=None) as ws:
        for name, frame in frames:
            await ws.send(frame)
            answer = json.loads(await asyncio.wait_for(ws.recv(), 60))
            await ws.send(json.dumps({"type": "reset", "data": {"task_id": 1, "seed": 0}}))
            after = json.loads(await asyncio.wait_for(ws.recv(), 60))
            out.append({"frame": name, "answer": answer, "then": after.get("type")})
        await ws.send(json.dumps({"type": "step", "data": {"action": "move up"}}))
        out.append({"frame": "final-step", "then": json.loads(await ws.recv()).get("type")})
    return out


def openenv(spec: dict) -> dict:
    from agentgym_envs.integrations.openenv import create_openenv_app

    out: dict = {}
    with Served(create_openenv_app(spec["env_id"])) as served:
        with Http(served.url) as http:
            bad = {
                "task_big": {"task_id": 10**6},
                "task_neg": {"task_id": -1},
                "task_str": {"task_id": "3"},
                "task_float": {"task_id": 1.5},
                "split_bad": {"task_id": 1, "split": "nope"},
                "split_list": {"task_id": 1, "split": ["test"]},
                "split_null": {"task_id": 1, "split": None},
                "seed_str": {"task_id": 1, "seed": "x"},
            }
            out["reset"] = {k: http.post("/reset", json=v) for k, v in bad.items()}
            out["deep"] = http.post("/reset", content=b"[" * 100_000 + b"]" * 100_000)
            out["good"] = http.post("/reset", json={"task_id": 1})
        out["big"] = big_body(served.port, "/reset")
        out["ws"] = asyncio.run(ws_frames(served.url))
    return out


def ors(spec: dict) -> dict:
    from agentgym_envs.integrations.hubs import env_slug
    from agentgym_envs.integrations.openreward import ors_server

    cap = spec["cap"]
    name = env_slug(spec["env_id"])
    out: dict = {}
    server = ors_server([spec["env_id"]], max_sessions=cap)
    with Served(server.app) as served:
        with Http(served.url) as http:

            def create(body: dict) -> dict:
                sid = str(uuid.uuid4())
                return {
                    **http.post("/create", json=body, headers={"X-Session-ID": sid}),
                    "sid": sid,
                }

            def task(task_spec: dict) -> dict:
                return {"env_name": name, "task_spec": task_spec}

            row = {"env_id": spec["env_id"], "split": "test", "seed": 0}
            bad = {
                "task_missing": task(dict(row)),
                "task_null": task({**row, "task_id": None}),
                "task_str": task({**row, "task_id": "x"}),
                "task_big": task({**row, "task_id": 10**6}),
                "task_neg": task({**row, "task_id": -1}),
                "split_bad": task({**row, "task_id": 1, "split": "nope"}),
                "split_null": task({**row, "task_id": 1, "split": None}),
                "index_neg": {"env_name": name, "split": "test", "index": -1},
                "index_big": {"env_name": name, "split": "test", "index": 10**6},
            }
            out["create"] = {k: create(v) for k, v in bad.items()}
            out["index_0"] = create({"env_name": name, "split": "test", "index": 0})
            http.post("/delete", headers={"X-Session-ID": out["index_0"]["sid"]})
            # the cap: `cap` sessions open, then many more asked for
            held = [create(task({**row, "task_id": i % 5})) for i in range(cap)]
            for h in held:  # setup done: each session's thread exists
                http.get(f"/{name}/prompt", headers={"X-Session-ID": h["sid"]})
            threads_before = threading.active_count()
            extra = [create(task({**row, "task_id": 1})) for _ in range(4 * cap)]
            out["held"] = [h["status"] for h in held]
            out["extra"] = [{"status": e["status"], "body": e["body"]} for e in extra]
            out["threads_added"] = threading.active_count() - threads_before
            http.post("/delete", headers={"X-Session-ID": held[0]["sid"]})
            out["after_delete"] = create(task({**row, "task_id": 2}))["status"]
            # a tool call on a session whose task was refused: no session, a 404
            sid = out["create"]["task_big"]["sid"]
            out["act_on_refused"] = http.post(
                f"/{name}/call",
                json={"name": "act", "input": {"action": "x"}},
                headers={"X-Session-ID": sid},
            )
            out["deep"] = http.post(
                "/create", content=b"[" * 100_000 + b"]" * 100_000, headers={"X-Session-ID": "d"}
            )
        out["big"] = big_body(served.port, "/create", "X-Session-ID: big\r\n")
        out["sdk"] = asyncio.run(sdk_bad_task(served.url, spec["env_id"]))
    return out


async def sdk_bad_task(url: str, env_id: str) -> dict:
    from dataclasses import replace

    from openreward.api.environments.client import AsyncEnvironmentsAPI

    from agentgym_envs.integrations.hubs import env_slug

    api = AsyncEnvironmentsAPI(base_url=url, api_key="")
    env = api.get(env_slug(env_id), variant=env_slug(env_id))
    task = (await env.list_tasks("test"))[0]
    out = {}
    for key, spec in (("null", None), ("str", "x"), ("neg", -1)):
        bad = replace(task, task_spec=dict(task.task_spec, task_id=spec))
        try:
            async with env.session(task=bad) as session:
                await session.call_tool("act", {"action": "move up"})
            out[key] = None
        except Exception as exc:
            out[key] = {"type": type(exc).__name__, "message": str(exc)[:300]}
    return out


def main() -> None:
    spec = job()
    done(openenv(spec) if spec["hub"] == "openenv" else ors(spec))


if __name__ == "__main__":
    main()
