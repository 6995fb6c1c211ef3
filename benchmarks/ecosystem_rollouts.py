"""Run inside an ecosystem's venv by ``bench_integrations.py --ecosystems``: play the given
expert episodes through that ecosystem's own client and print episodes/s per id as JSON.

* ``ors``: the ``openreward`` SDK's client against our ORS server (HTTP + SSE);
* ``openenv``: our typed ``EnvClient`` over one OpenEnv WebSocket session;
* ``verifiers``: verifiers 0.4's episode loop (``Env.run_slot``: its interception server and
  ``null`` chat harness, one harness process per turn) against the expert chat server, one
  rollout at a time;
* ``nemo-gym``: NeMo Gym's ``gym eval run`` (its rollout collection, one rollout at a time)
  through its ``simple_agent`` and ``vllm_model`` servers, the expert chat server as the model,
  against our resources server; one ``gym env start`` serves every id (its start-up, Ray and
  three servers, is not timed; each id's collection command is, start to end). A second
  ``nemo-gym (in-process)`` row times the same episodes through the code that command runs
  (``RolloutCollectionHelper.run_from_config``) called in this process after a one-row
  warm-up: the rate without the command's interpreter start and imports.
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
    import os

    import verifiers.v1 as vf
    from verifiers.v1.env import RunSlot

    from agentgym_envs.agents.expert_server import ExpertChatServer
    from agentgym_envs.integrations.verifiers import load_environment

    env = load_environment(env_id, num_tasks=len(episodes))
    tasks = list(env.taskset)
    os.environ.setdefault("AGENTGYM_EXPERT_KEY", "none")

    async def play_all(base_url: str) -> list[float]:
        client = vf.EvalClientConfig(base_url=base_url, api_key_var="AGENTGYM_EXPERT_KEY")
        ctx = vf.ModelContext(model="expert", client=client)
        async with env.serving():
            played = [await env.run_slot(RunSlot(task), ctx) for task in tasks]
        return [episode.traces[0].reward if episode.traces else 0.0 for episode in played]

    with ExpertChatServer([env_id]) as server:
        start = time.perf_counter()
        rewards = asyncio.run(play_all(server.base_url))
        seconds = time.perf_counter() - start
    return seconds, rewards


def nemo_gym(families: dict[str, list[dict]]) -> dict[str, tuple[float, list[float], float]]:
    import tempfile

    from nemo_gym_episode import AGENT, NgRun, _collect, _overrides, _project

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
            full = [rows[ep["task_id"]] for ep in episodes]
            data[env_id] = write_dataset(work / "data" / f"{env_id.split('/')[-1]}.jsonl", full)
        overrides = _overrides(work, expert.base_url, free_port())
        with NgRun(work, overrides):
            for env_id, path in data.items():
                run = _collect(work, path, overrides, parallel=1)
                if run["returncode"]:
                    raise RuntimeError(run["stderr"])
                rewards = [float(r["reward"]) for r in run["rollouts"]]
                out[env_id] = (run["seconds"], rewards)
            # the same collection code in this process: no interpreter start, no imports
            sys.argv[1:] = [o for o in overrides if o.startswith("+head_server")]
            inside = asyncio.run(_collect_inside(AGENT, data, work / "inside"))
    return {env_id: (*row, inside[env_id]) for env_id, row in out.items()}


async def _collect_inside(agent: str, data: dict[str, Path], folder: Path) -> dict[str, float]:
    """Seconds of NeMo Gym's ``RolloutCollectionHelper`` per dataset, after one warm-up row."""
    from nemo_gym.rollout_collection import RolloutCollectionConfig, RolloutCollectionHelper

    helper = RolloutCollectionHelper()

    async def collect(path: Path, limit: int | None = None) -> float:
        config = RolloutCollectionConfig(
            agent_name=agent,
            input_jsonl_fpath=str(path),
            output_jsonl_fpath=str(folder / f"{path.stem}.jsonl"),
            num_samples_in_parallel=1,
            limit=limit,
        )
        start = time.perf_counter()
        await helper.run_from_config(config)
        return time.perf_counter() - start

    folder.mkdir(parents=True, exist_ok=True)
    await collect(next(iter(data.values())), limit=1)  # the client and its config, once
    return {env_id: await collect(path) for env_id, path in data.items()}


if __name__ == "__main__":
    spec = json.loads(sys.argv[1])
    plays = {"ors": ors, "openenv": openenv, "verifiers": verifiers, "nemo-gym": nemo_gym}
    play = plays[spec["ecosystem"]]
    rows = {}
    for env_id, (seconds, rewards, *marginal) in play(spec["families"]).items():
        rows[env_id] = {"seconds": seconds, "episodes": len(rewards), "rewards": rewards}
        if marginal:  # the same episodes through the collection code, in-process
            rows[env_id]["inside_seconds"] = marginal[0]
    done(rows)
