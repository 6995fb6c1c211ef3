"""Drive an env served over MCP (``agentgym mcp``) with the official MCP client, to success.

The client launches ``agentgym mcp Maze-v0`` over stdio, lists the tools (``reset``, ``act``,
the family's ``move``) and plays the expert's moves, which it works out on a local copy of the
task -- any MCP host (Claude Desktop, an IDE agent, your harness) drives it the same way.

Run: ``python examples/agents_mcp_client.py [--env Maze-v0] [--task 3]``
"""

from __future__ import annotations

import argparse
import asyncio

import gymnasium as gym
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from agentgym_envs import expert_policy


async def play(env_id: str, task_id: int) -> None:
    mirror = gym.make(env_id)
    obs, info = mirror.reset(seed=0, options={"task_id": task_id, "split": "test"})
    expert = expert_policy(mirror)
    params = StdioServerParameters(command="agentgym", args=["mcp", env_id])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        print("tools:", [t.name for t in (await session.list_tools()).tools])
        await session.call_tool("reset", {"task_id": task_id})
        while True:
            action = expert(obs, info)
            result = await session.call_tool("act", {"action": action})
            obs, _, terminated, _, info = mirror.step(action)
            print(f"> {action}\n{result.content[0].text}")
            if result.structuredContent["terminated"] or terminated:
                print("success:", result.structuredContent["success"])
                return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="AgentGym/Maze-v0")
    parser.add_argument("--task", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(play(args.env, args.task))


if __name__ == "__main__":
    main()
