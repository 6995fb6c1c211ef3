"""Run inside an ecosystem's venv by ``bench_integrations.py --ecosystems``: play the given
expert episodes through that ecosystem's own client and print episodes/s per id as JSON.

* ``ors``: the ``openreward`` SDK's client against our ORS server (HTTP + SSE);
* ``openenv``: our typed ``EnvClient`` over one OpenEnv WebSocket session;
* ``verifiers``: the env's ``evaluate`` (verifiers' rollout loop) against the expert chat
  server, one rollout at a time;
* ``nemo-gym``: NeMo Gym's ``gym eval run`` (its rollout collection, one rollout at a time)
  through its ``simple_agent`` and ``vllm_model`` servers, the expert chat server as the model,
  against our resources server; one ``gym env start`` serves every id (its start-up, Ray and
  three servers, is not timed; each id's collection command is, start to end). A second
  ``nemo-gym (marginal)`` row times the same command on one episode too and reports the
  episodes beyond it, (n - 1) / (t_n - t_1): the rate once the command has started.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "integrations" / "drivers"))

from common import Served, done, free_port


def ors(families: dict[str, list[dict]]) -> dict[str, tuple[float, list[float]]]:
    from openreward.api.environments.client import AsyncEnvironmentsAPI

    from agentgym_envs.integrations.hubs import env_slug
    from agentgym_envs.integrations.openreward import ors_server

    async def play_all(url: str, env_id: str, episodes: list[dict]) -> tuple[float, list]:
        api = AsyncEnvironmentsAPI(base_url=url, api_key="")
        env = api.get(env_slug(env_id), variant=env_slug(env_id))
        tasks = await env.list_tasks("test")
        start, rewards = time.perf_counter(), []
        for ep in episodes:
            async with env.session(task=tasks[ep["task_id"]]) as session:
                await session.get_prompt()
                for action in ep["actions"]:
                    result = await session.call_tool("act", {"action": action})
                    if result.finished:
                        break
                rewards.append(result.metadata["score"])
        seconds = time.perf_counter() - start
        await api.aclose()
        return seconds, rewards

    # one server (one event loop) for every id: sse-starlette 2.3.6, which openreward pins,
    # binds its exit event to the first loop that serves it
    with Served(ors_server(list(families)).app) as served:
        return {e: asyncio.run(play_all(served.url, e, eps)) for e, eps in families.items()}


def openenv(families: dict[str, list[dict]]) -> dict[str, tuple[float, list[float]]]:
    return {env_id: _openenv(env_id, eps) for env_id, eps in families.items()}


def _openenv(env_id: str, episodes: list[dict]) -> tuple[float, list[float]]:
    from agentgym_envs.integrations.openenv import (
        AgentGymAction,
        AgentGymEnvClient,
        create_openenv_app,
    )

    async def play_all(url: str) -> list[float]:
        rewards = []
        async with AgentGymEnvClient(base_url=url) as client:
            for ep in episodes:
                await client.reset(task_id=ep["task_id"], split="test", seed=0)
                for action in ep["actions"]:
                    result = await client.step(AgentGymAction(action=action))
                    if result.done:
                        break
                rewards.append(result.observation.score)
        return rewards

    with Served(create_openenv_app(env_id)) as served:
        start = time.perf_counter()
        rewards = asyncio.run(play_all(served.url))
        return time.perf_counter() - start, rewards


def verifiers(families: dict[str, list[dict]]) -> dict[str, tuple[float, list[float]]]:
    return {env_id: _verifiers(env_id, eps) for env_id, eps in families.items()}


def _verifiers(env_id: str, episodes: list[dict]) -> tuple[float, list[float]]:
    from openai import AsyncOpenAI
    from verifiers.legacy.clients import OpenAIChatCompletionsClient

    from agentgym_envs.agents.expert_server import ExpertChatServer
    from agentgym_envs.integrations.verifiers import load_environment

    env = load_environment(env_id, num_tasks=len(episodes))
    with ExpertChatServer([env_id]) as server:
        client = OpenAIChatCompletionsClient(AsyncOpenAI(base_url=server.base_url, api_key="x"))
        start = time.perf_counter()
        results = env.evaluate_sync(
            client, "expert", num_examples=len(episodes), rollouts_per_example=1, max_concurrent=1
        )
        seconds = time.perf_counter() - start
    outputs = results["outputs"] if isinstance(results, dict) else results.outputs
    return seconds, [float(o["reward"]) for o in outputs]


def nemo_gym(families: dict[str, list[dict]]) -> dict[str, tuple[float, list[float], float]]:
    import tempfile

    from nemo_gym_episode import NgRun, _collect, _overrides, _project

    from agentgym_envs.agents.expert_server import ExpertChatServer
    from agentgym_envs.integrations.hubs import splits
    from agentgym_envs.integrations.nemo_gym import dataset_rows, write_dataset

    sys.argv[1:] = []  # NeMo Gym reads its config from the command line (Hydra)
    out = {}
    # NeMo Gym's config loader (Hydra) writes outputs/<date>/ under the working folder
    with (
        tempfile.TemporaryDirectory() as tmp,
        contextlib.chdir(tmp),
        ExpertChatServer(list(families)) as expert,
    ):
        work = Path(tmp) / "project"
        _project(work, [], None)
        data = {}
        for env_id, episodes in families.items():
            count = min(len(episodes), splits(env_id)["test"])
            rows = dataset_rows(env_id, "test", count)
            name = env_id.split("/")[-1]
            full = [rows[ep["task_id"]] for ep in episodes]
            data[env_id] = (
                write_dataset(work / "data" / f"{name}-1.jsonl", full[:1]),
                write_dataset(work / "data" / f"{name}.jsonl", full),
            )
        overrides = _overrides(work, expert.base_url, free_port())
        with NgRun(work, overrides):
            for env_id, (one, full) in data.items():
                first = _collect(work, one, overrides, parallel=1)
                run = _collect(work, full, overrides, parallel=1)
                if first["returncode"] or run["returncode"]:
                    raise RuntimeError(first["stderr"] + run["stderr"])
                rewards = [float(r["reward"]) for r in run["rollouts"]]
                out[env_id] = (run["seconds"], rewards, run["seconds"] - first["seconds"])
    return out


if __name__ == "__main__":
    spec = json.loads(sys.argv[1])
    plays = {"ors": ors, "openenv": openenv, "verifiers": verifiers, "nemo-gym": nemo_gym}
    play = plays[spec["ecosystem"]]
    rows = {}
    for env_id, (seconds, rewards, *marginal) in play(spec["families"]).items():
        rows[env_id] = {"seconds": seconds, "episodes": len(rewards), "rewards": rewards}
        if marginal:  # the time of the episodes beyond the first
            rows[env_id]["marginal_seconds"] = marginal[0]
    done(rows)
