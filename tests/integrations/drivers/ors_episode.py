"""Play given actions on an ORS server for the job's id with the ``openreward`` SDK's client.

Before the first action it sends a malformed call (no ``action`` argument) and an unknown
tool, recording the SDK's errors; the episode must go on after them.
"""

from __future__ import annotations

import asyncio
import os
import time

from common import Served, done, job

os.environ.setdefault("OPENREWARD_DISABLE_UPDATE_CHECK", "1")
os.environ.setdefault("OPENREWARD_LOG_LEVEL", "WARNING")


async def play(url: str, spec: dict) -> dict:
    from openreward.api.environments.client import AsyncEnvironmentsAPI

    from agentgym_envs.integrations.hubs import env_slug

    api = AsyncEnvironmentsAPI(base_url=url, api_key="")
    env = api.get(env_slug(spec["env_id"]), variant=env_slug(spec["env_id"]))
    try:
        out: dict = {"splits": await env.list_splits()}
        tasks = await env.list_tasks(spec["split"])
        out["num_tasks"] = len(tasks)
        task = tasks[spec["task_id"]]
        out["task"] = task.task_spec
        out["tools"] = [t.name for t in await env.list_tools()]
        if spec.get("bad", True):  # a task naming no task of the split
            from dataclasses import replace

            missing = replace(task, task_spec=dict(task.task_spec, task_id=10**6))
            try:
                async with env.session(task=missing) as session:
                    await session.get_prompt()
                out["bad_task"] = None
            except Exception as exc:
                out["bad_task"] = {"type": type(exc).__name__, "message": str(exc)}
        async with env.session(task=task) as session:
            out["prompt"] = "".join(b.text for b in await session.get_prompt())
            out["bad_input"] = []
            bad = (("act", {}), ("no_such_tool", {"action": "x"})) if spec.get("bad", True) else ()
            for name, args in bad:
                try:
                    await session.call_tool(name, args)
                    out["bad_input"].append(None)
                except Exception as exc:  # the SDK's own error type and reason
                    out["bad_input"].append(
                        {"type": type(exc).__name__, "reason": getattr(exc, "reason", None)}
                    )
            steps = []
            start = time.perf_counter()
            for action in spec["actions"]:
                result = await session.call_tool("act", {"action": action})
                steps.append(
                    {
                        "obs": "".join(b.text for b in result.blocks),
                        "reward": result.reward,
                        "done": result.finished,
                        "metadata": result.metadata,
                    }
                )
                if result.finished:
                    break
            out["seconds"] = time.perf_counter() - start
            out["steps"] = steps
        return out
    finally:
        await api.aclose()


def main() -> None:
    spec = job()
    from agentgym_envs.integrations.openreward import ors_server

    server = ors_server([spec["env_id"]])
    with Served(server.app) as served:
        done(asyncio.run(play(served.url, spec)))


if __name__ == "__main__":
    main()
