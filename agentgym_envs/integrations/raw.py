"""The raw-Python path: decorate your agent with :func:`agent` and play, record and benchmark it.

Two shapes are accepted:

* a policy ``(observation, info) -> action`` -- the loop is ours::

      @agent
      def wall_follower(observation, info):
          return "move right"

* a function of the env -- the loop is yours; the env is pinned to the task, and every step
  you take is recorded::

      @agent
      def solve(env):
          obs, info = env.reset()
          while True:
              obs, reward, terminated, truncated, info = env.step(my_model(obs))
              if terminated or truncated:
                  return

Then ``solve.run("Maze-v0", task_id=3)`` returns the episode as an AgentTraj record,
``solve.collect("Maze-v0", range(10))`` several, and ``wall_follower.spec()`` is a
:class:`~agentgym_envs.benchmarks.PolicySpec` for :func:`~agentgym_envs.benchmarks.run_benchmark`.
``format="react"`` / ``"tools"`` give the function the LLM-ready env of
:func:`~agentgym_envs.wrappers.make_llm_env` (instructions in the first observation, replies
parsed as ReAct text or tool calls) instead of the plain env.
"""

from __future__ import annotations

import functools
import inspect
import os
import tempfile
from collections.abc import Callable, Iterable
from typing import Any

import gymnasium as gym

from agentgym_envs.errors import AgentGymError


class _PinnedTask(gym.Wrapper):
    """``reset()`` always plays the given task and seed, whatever options the agent passes."""

    def __init__(self, env: gym.Env, task_id: int | None, split: str, seed: int | None) -> None:
        super().__init__(env)
        self._options: dict[str, Any] = {"split": split}
        if task_id is not None:
            self._options["task_id"] = task_id
        self._seed = seed
        self.resets = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self.resets += 1
        return self.env.reset(seed=self._seed, options=dict(self._options))


class RawAgent:
    """A function made into an agent by :func:`agent` (see the module docstring)."""

    def __init__(self, fn: Callable[..., Any], kind: str, format: str | None, name: str) -> None:
        functools.update_wrapper(self, fn)
        self.fn, self.kind, self.format, self.name = fn, kind, format, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def _env(self, env: str | gym.Env, max_rounds: int | None) -> gym.Env:
        if not isinstance(env, str):
            return env
        from agentgym_envs.spec import env_info, resolve_id

        env_id = resolve_id(env)
        if self.format is None:
            return gym.make(env_id)
        from agentgym_envs.wrappers import make_llm_env

        return make_llm_env(
            env_id, self.format, max_rounds=max_rounds or env_info(env_id).max_rounds
        )

    def run(
        self,
        env: str | gym.Env,
        *,
        task_id: int | None = None,
        split: str = "test",
        seed: int | None = 0,
        max_rounds: int | None = None,
        record: str | os.PathLike[str] | None = None,
    ) -> dict[str, Any]:
        """Play one episode of ``env`` (an id or an env) and return its AgentTraj record
        (``reward``, ``success``, ``outcome``, ``turns``). ``record`` also appends it to a
        JSONL file. ``max_rounds`` caps the turns (default AgentGym's max rounds for an id)."""
        made = isinstance(env, str)
        if made and max_rounds is None:
            from agentgym_envs.spec import env_info

            max_rounds = env_info(env).max_rounds
        env = self._env(env, max_rounds)
        try:
            if self.kind == "policy":
                return self._run_policy(env, task_id, split, seed, max_rounds, record)
            return self._run_env(env, task_id, split, seed, record)
        finally:
            if made:
                env.close()

    def _run_policy(self, env, task_id, split, seed, max_rounds, record) -> dict[str, Any]:
        from agentgym_envs.rollout.episode import run_episode

        episode = run_episode(
            env, self.fn, task_id=task_id, split=split, seed=seed, max_turns=max_rounds
        )
        result = {
            "item_id": env.unwrapped.item_id,
            "conversations": episode.conversation.agenttraj(),
            "reward": episode.score,
            "success": episode.success,
            "outcome": episode.info.get("outcome", episode.truncation_reason),
            "turns": episode.turns,
            "agent": self.name,
        }
        if record is not None:
            _append(record, result)
        return result

    def _run_env(self, env, task_id, split, seed, record) -> dict[str, Any]:
        from agentgym_envs.wrappers import RecordTrajectory

        with tempfile.TemporaryDirectory() as tmp:
            recorder = RecordTrajectory(env, os.path.join(tmp, "episode.jsonl"))
            pinned = _PinnedTask(recorder, task_id, split, seed)
            self.fn(pinned)
            if pinned.resets == 0:
                raise AgentGymError(f"agent {self.name!r} never called env.reset(): nothing played")
            last = recorder.last_record
            turns = recorder.in_progress
            if last is None or turns is not None:  # it stopped mid-episode
                last = {
                    "item_id": env.unwrapped.item_id,
                    "conversations": turns or [],
                    "reward": float(getattr(env.unwrapped, "score", 0.0)),
                    "success": bool(getattr(env.unwrapped, "success", False)),
                    "outcome": "abandoned",
                }
            result = {
                **last,
                "turns": sum(t["from"] == "gpt" for t in last["conversations"][2:])
                if self.format
                else sum(t["from"] == "gpt" for t in last["conversations"]),
                "agent": self.name,
            }
        if record is not None:
            _append(record, result)
        return result

    def collect(
        self, env: str, task_ids: Iterable[int], *, split: str = "test", **kwargs: Any
    ) -> list[dict[str, Any]]:
        """One :meth:`run` per task id."""
        return [self.run(env, task_id=t, split=split, **kwargs) for t in task_ids]

    def spec(self, name: str | None = None) -> Any:
        """This policy as a :class:`~agentgym_envs.benchmarks.PolicySpec` (policy shape only)."""
        from agentgym_envs.benchmarks.policies import PolicySpec

        if self.kind != "policy":
            raise AgentGymError(
                f"agent {self.name!r} drives the env itself: benchmark it with .collect(), "
                "or write it as a policy (observation, info) -> action"
            )
        return PolicySpec(name or self.name, self.format or "plain", lambda env, seed: self.fn)


def _append(path: str | os.PathLike[str], record: dict[str, Any]) -> None:
    import json
    from pathlib import Path

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(record, ensure_ascii=False) + "\n")


def agent(
    fn: Callable[..., Any] | None = None, *, format: str | None = None, name: str | None = None
) -> Any:
    """Make ``fn`` an agent: ``@agent`` or ``@agent(format="react", name="mine")``.

    A function with two parameters is a policy ``(observation, info) -> action``; with one it
    is given the env and plays it itself. ``format``: ``None`` (the plain env), ``"react"``
    or ``"tools"`` (the LLM-ready env).
    """
    if format not in (None, "react", "tools"):
        raise ValueError(f"format={format!r}: use None, 'react' or 'tools'")

    def wrap(f: Callable[..., Any]) -> RawAgent:
        params = [
            p
            for p in inspect.signature(f).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        ]
        if len(params) == 2:
            kind = "policy"
        elif len(params) == 1:
            kind = "env"
        else:
            raise TypeError(
                f"@agent takes a function of (observation, info) or of (env); "
                f"{f.__name__} has {len(params)} required parameters"
            )
        return RawAgent(f, kind, format, name or f.__name__)

    return wrap(fn) if fn is not None else wrap


__all__ = ["RawAgent", "agent"]
