"""Play episodes on an OpenEnv server for the job's id with our typed ``EnvClient``.

The job's ``episodes`` (each ``{"task_id", "split", "actions"}``) are played at once, each
over its own WebSocket session. On the first session two malformed messages (a step with no
action, an unknown message type) go first; the episode must go on after them. ``openenv
validate --url`` checks the running server against OpenEnv's runtime contract.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

from common import Served, done, job


async def play(url: str, episode: dict, bad: list | None) -> dict:
    from agentgym_envs.integrations.openenv import AgentGymAction, AgentGymEnvClient

    async with AgentGymEnvClient(base_url=url) as client:
        first = await client.reset(task_id=episode["task_id"], split=episode["split"], seed=0)
        if bad is not None:
            bad_reset = {"type": "reset", "data": {"task_id": 10**6, "split": "test"}}
            for message in ({"type": "step", "data": {"nope": 1}}, {"type": "dance"}, bad_reset):
                try:
                    await client._send_and_receive(message)
                    bad.append(None)
                except RuntimeError as exc:  # the client's form of a WSErrorResponse
                    bad.append(str(exc))
        steps = []
        for action in episode["actions"]:
            result = await client.step(AgentGymAction(action=action))
            steps.append(
                {
                    "obs": result.observation.text,
                    "reward": result.reward,
                    "done": result.done,
                    "end": result.observation.model_dump(
                        include={"outcome", "score", "success", "reward_valid", "turns"}
                    ),
                }
            )
            if result.done:
                break
        state = await client.state()
        return {
            "first": first.observation.text,
            "instructions": first.observation.instructions,
            "steps": steps,
            "state": state.model_dump(),
        }


async def play_all(url: str, episodes: list[dict], bad: list) -> list[dict]:
    return await asyncio.gather(
        *(play(url, ep, bad if i == 0 else None) for i, ep in enumerate(episodes))
    )


def main() -> None:
    spec = job()
    from agentgym_envs.integrations.openenv import create_openenv_app

    app = create_openenv_app(spec["env_id"])
    with Served(app) as served:
        bad: list = []
        start = time.perf_counter()
        results = asyncio.run(play_all(served.url, spec["episodes"], bad))
        seconds = time.perf_counter() - start
        validate = None
        if spec.get("validate"):
            cli = Path(sys.executable).parent / "openenv"
            run = subprocess.run(
                [str(cli), "validate", "--url", served.url, "--timeout", "60"],
                capture_output=True,
                text=True,
                timeout=300,
            )
            report = json.loads(run.stdout) if run.stdout.strip().startswith("{") else None
            validate = {"returncode": run.returncode, "report": report, "stderr": run.stderr}
    done({"episodes": results, "bad_input": bad, "validate": validate, "seconds": seconds})


if __name__ == "__main__":
    main()
