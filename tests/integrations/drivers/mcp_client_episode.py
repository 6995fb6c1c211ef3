"""Play one expert episode through the installed ``mcp`` SDK's own client (1.x or 2.x).

Usage: ``python mcp_client_episode.py '<job json>'``; the job names ``env_id``, ``task_id`` and
``server``: ``"stdio"`` (this interpreter runs ``python -m agentgym_envs.integrations.mcp``)
or an ``http://.../mcp`` URL; over HTTP a 2.x client may send ``headers`` and pin the protocol
version with ``mode``. The last stdout line is JSON: the SDK's version, the tools
listed, what the early and bad calls said, each step's observation and the final structured
content.
"""

from __future__ import annotations

import asyncio
import json
import sys
from importlib.metadata import version
from typing import Any

import gymnasium as gym

import agentgym_envs


def _text(result: Any) -> str:
    return result.content[0].text if result.content else ""


def _error(result: Any) -> bool:
    return bool(getattr(result, "is_error", getattr(result, "isError", False)))


def _data(result: Any) -> Any:
    return getattr(result, "structured_content", getattr(result, "structuredContent", None))


async def _episode(call: Any, list_tools: Any, job: dict[str, Any]) -> dict[str, Any]:
    env = gym.make(job["env_id"])
    obs, info = env.reset(seed=0, options={"task_id": job["task_id"], "split": "test"})
    expert = agentgym_envs.expert_policy(env)
    out: dict[str, Any] = {"tools": sorted(t.name for t in (await list_tools()).tools)}
    early = await call("act", {"action": "look"})
    out["early"] = [_error(early), _text(early)]
    typed = await call("reset", {"task_id": "three"})
    out["typed"] = [_error(typed), _text(typed)]
    first = await call("reset", {"task_id": job["task_id"], "split": "test"})
    out["first"] = [_error(first), obs in _text(first), _data(first)]
    out["steps"], episodes = [], {_data(first)["episode"]}
    terminated = truncated = False
    while not (terminated or truncated):
        action = expert(obs, info)
        result = await call("act", {"action": action})
        obs, _, terminated, truncated, info = env.step(action)
        data = _data(result)
        episodes.add(data["episode"])
        out["steps"].append([_error(result), _text(result) == obs])
    out["final"] = data
    out["episodes"] = len(episodes)
    after = await call("act", {"action": "look"})
    out["after"] = [_error(after), _text(after)]
    return out


async def _play(job: dict[str, Any]) -> dict[str, Any]:
    from mcp import StdioServerParameters

    server: Any = job["server"]
    if server == "stdio":
        server = StdioServerParameters(
            command=sys.executable, args=["-m", "agentgym_envs.integrations.mcp", job["env_id"]]
        )
    sdk = version("mcp")
    if sdk.startswith("1."):
        from mcp import ClientSession

        if job["server"] == "stdio":
            from mcp.client.stdio import stdio_client

            transport = stdio_client(server)
        else:
            from mcp.client.streamable_http import streamablehttp_client

            transport = streamablehttp_client(server)
        async with transport as streams, ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            out = await _episode(session.call_tool, session.list_tools, job)
    else:
        from mcp import Client

        if job["server"] == "stdio":  # 2.0's Client takes a transport, 2.3's the parameters too
            from mcp.client.stdio import stdio_client

            server = stdio_client(server)
        elif job.get("headers"):
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            http = httpx2.AsyncClient(headers=job["headers"], follow_redirects=True)
            server = streamable_http_client(server, http_client=http)
        # mode "auto" probes server/discover first; a version pins the session-less protocol
        async with Client(server, mode=job.get("mode", "auto")) as client:
            out = await _episode(client.call_tool, client.list_tools, job)
            out["protocol"] = str(getattr(client.session, "protocol_version", "") or "")
    return {"sdk": sdk, **out}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(_play(json.loads(sys.argv[1])))))
