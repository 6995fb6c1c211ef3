"""Record an unmodified harness through the gateway: the ``openai`` client is the harness, the
env is reached over the gateway's HTTP env path, and the finished session becomes a scored
AgentTraj record (plus chat and SFT records) in ``--out``.

Upstream is ``--upstream`` (any OpenAI-compatible ``/v1`` root) or, by default, the family's
expert behind a local OpenAI-compatible server. Needs ``pip install openai``.

Run: ``python examples/agents_gateway.py [--env Maze-v0] [--task 3] [--out runs/gateway]``
"""

from __future__ import annotations

import argparse
import contextlib
import secrets
import threading
import time

import httpx
import openai
import uvicorn

from agentgym_envs.agents import ExpertChatServer
from agentgym_envs.benchmarks.local_llm import free_port
from agentgym_envs.integrations.gateway import Gateway, create_app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="AgentGym/Maze-v0")
    parser.add_argument("--task", type=int, default=3)
    parser.add_argument("--upstream", default=None)
    parser.add_argument("--out", default="runs/gateway")
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        upstream = args.upstream or stack.enter_context(ExpertChatServer([args.env])).base_url
        port = free_port()
        server = uvicorn.Server(
            uvicorn.Config(create_app(Gateway(args.env, upstream, args.out)), port=port)
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        base = f"http://127.0.0.1:{port}"
        # -- the harness: its own prompt and loop; only its base URL points at the gateway,
        # and every request carries the session's secret (the gateway binds "demo" to it)
        mine = {"X-Session-Token": secrets.token_urlsafe(24)}
        model = openai.OpenAI(base_url=f"{base}/s/demo/v1", api_key="none", default_headers=mine)
        env = httpx.Client(base_url=f"{base}/s/demo/env", headers=mine)
        first = env.post("/reset", json={"task_id": args.task}).json()
        messages = [{"role": "user", "content": first["observation"]}]
        for _ in range(50):
            text = model.chat.completions.create(model="any", messages=messages)
            reply = text.choices[0].message.content or ""
            step = env.post("/step", json={"action": reply.split("Action:")[-1].strip()}).json()
            messages += [
                {"role": "assistant", "content": reply},
                {"role": "user", "content": step["observation"]},
            ]
            if step["done"]:
                break
        record = httpx.post(f"{base}/s/demo/finish", headers=mine).json()
        print(
            f"{record['item_id']}: success={record['success']} model calls={record['model_calls']}"
        )
        print(f"written: {args.out}/agenttraj.jsonl, chat.jsonl, sft.jsonl, sessions/demo.jsonl")
        server.should_exit = True
        thread.join(timeout=10)


if __name__ == "__main__":
    main()
