"""verifiers (Prime Intellect's Environments Hub): any id as a verifiers 0.4 taskset and env.

verifiers 0.4 (``verifiers.v1``) loads an environment as an installed *taskset package*: a
top-level module whose ``__all__`` exports one :class:`verifiers.v1.Taskset` subclass and, when
the rollout is not a single reply, one :class:`verifiers.v1.Env` subclass; ``vf-eval <id>`` and
prime-rl import it by name (``agentgym-maze-v0`` -> ``agentgym_maze_v0``). The legacy
``load_environment`` contract of 0.3 is gone from 0.4 (no ``verifiers.legacy``), so this module
targets ``verifiers.v1`` only. Its parts:

* :class:`AgentGymTaskset` (config :class:`AgentGymTasksetConfig`): one
  :class:`AgentGymTask` per task of the id's split; the task's ``prompt`` is the family's
  instructions with the ReAct reply format and the first observation, its data the
  ``{env_id, split, task_id, seed}`` row. Tasks are made lazily (``vf-eval -n 5`` resets five).
* :class:`AgentGymEnv` (config :class:`AgentGymEnvConfig`): the env plays the user. Its one
  seat, ``player``, is the model under evaluation on verifiers' ``null`` harness (a plain chat
  loop) in the ``subprocess`` runtime; each reply is read as AgentGym's client reads it
  (:class:`~agentgym_envs.wrappers.ReAct`, ``parser="agentgym"``) and the next observation is
  the next user turn, until the env ends the episode (success, failure or AgentGym's turn
  limit). A reply with no action is answered with feedback and the episode goes on.
* :class:`AgentGymTask` scores the trace: the reward is the env's graded ``score`` (AgentGym's
  reward, weight 1), ``agentgym_success`` and ``agentgym_turns`` are metrics, and
  ``trace.info["agentgym"]`` holds the episode's end (outcome, ``reward_valid``, step rewards,
  the final observation). When the environment, not the model, failed (``reward_valid`` false,
  or a task that cannot reset), the episode fails with the env's error, which is how verifiers
  and prime-rl leave a rollout out (``episode.ok`` false; ``vf-eval --resume`` redoes it).

:func:`taskset_module_source` writes the per-id module (what ``agentgym export --to prime``
ships); :func:`load_environment` builds the env for an id in Python. From the shell, after
``agentgym export AgentGym/Maze-v0 --to prime DIR`` and installing the folder::

    vf-eval agentgym-maze-v0 -m <model> --client.base-url <base_url> \\
        --client.api-key-var <KEY_VAR> -n 5 --no-push
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import sys
import types
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from agentgym_envs.errors import require
from agentgym_envs.integrations import hubs
from agentgym_envs.integrations.session import EnvSession
from agentgym_envs.integrations.verifiers_package import module_name, taskset_module_source

require("verifiers.v1", "verifiers")

import verifiers.v1 as vf

__all__ = [
    "AgentGymData",
    "AgentGymEnv",
    "AgentGymEnvConfig",
    "AgentGymTask",
    "AgentGymTaskset",
    "AgentGymTasksetConfig",
    "load_environment",
    "taskset_module_source",
]


class AgentGymTasksetConfig(vf.TasksetConfig):
    """Which tasks of which id (``--env.taskset.<field>`` on ``vf-eval``)."""

    env_id: str = ""
    """A registered id, e.g. ``AgentGym/Maze-v0`` (an exported package sets its own)."""
    split: str = "test"
    """The split whose tasks the taskset yields (``test`` is AgentEval's)."""
    num_tasks: int | None = None
    """Only the first ``num_tasks`` tasks (default: all; ``vf-eval -n`` also picks)."""
    max_turns: int | None = None
    """The turn limit (default: AgentGym's max rounds for the id)."""
    seed: int = 0
    """The reset seed of every task."""
    env_kwargs: dict[str, Any] = {}
    """Keyword arguments for ``gymnasium.make``."""


class AgentGymData(vf.TaskData):
    """One task's row: the id, split, task id and reset seed that replay it."""

    env_id: str
    split: str
    task_id: int
    seed: int = 0

    def row(self) -> dict[str, Any]:
        return {
            "env_id": self.env_id,
            "split": self.split,
            "task_id": self.task_id,
            "seed": self.seed,
        }


def _record(trace: Any) -> dict[str, Any]:
    return trace.info.get("agentgym") or {}


class AgentGymTask(vf.Task[AgentGymData, vf.State, vf.TaskConfig]):
    """A task of an id; its reward is the episode's graded score, read off the trace."""

    @vf.reward
    async def agentgym_score(self, trace) -> float:
        """The env's graded final score (AgentGym's reward); 0 until the episode ends."""
        return float(_record(trace).get("score", 0.0))

    @vf.metric
    async def agentgym_success(self, trace) -> float:
        """1 when the task was solved."""
        return float(bool(_record(trace).get("success", False)))

    @vf.metric
    async def agentgym_turns(self, trace) -> float:
        """Actions the env received."""
        return float(_record(trace).get("turns", 0))


class AgentGymTaskset(vf.Taskset[AgentGymTask, AgentGymTasksetConfig]):
    """The id's tasks: each prompt is the first observation of a reset to the task."""

    def load(self) -> Iterator[AgentGymTask]:
        from agentgym_envs.spec import resolve_id

        config = self.config
        if not config.env_id:
            raise ValueError(
                "name the id: --env.taskset.env-id AgentGym/Maze-v0 "
                "(or export a package per id: agentgym export ID --to prime DIR)"
            )
        env_id = resolve_id(config.env_id)
        rows = hubs.task_rows(env_id, config.split, config.num_tasks, config.seed)
        env = hubs.react_env(env_id, None, dict(config.env_kwargs))
        try:
            for row in rows:
                options = {"task_id": row["task_id"], "split": row["split"]}
                first, _ = env.reset(seed=row["seed"], options=options)
                data = AgentGymData(
                    id=f"{env_id}:{row['split']}:{row['task_id']}", prompt=first, **row
                )
                yield AgentGymTask(data, config.task)
        finally:
            env.close()


class AgentGymEnvConfig(vf.EnvConfig):
    """The env's one seat: the model under evaluation, on a plain chat loop run locally."""

    player: vf.AgentConfig = vf.AgentConfig(harness={"id": "null"}, runtime={"type": "subprocess"})
    """``--env.player.*``: the harness (``null``: chat, no tools), runtime and limits."""


class _Episode:
    """One rollout's env, stepped on a thread of its own (some envs are bound to theirs)."""

    def __init__(self, env_id: str, max_turns: int | None, env_kwargs: dict[str, Any]) -> None:
        self.session = EnvSession(lambda: hubs.react_env(env_id, max_turns, env_kwargs))
        self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vf-agentgym")

    async def run(self, fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.thread, fn, *args)

    async def close(self) -> None:
        if self.session.env is not None:
            await self.run(self.session.env.close)
        self.thread.shutdown(wait=False)


class AgentGymEnvError(RuntimeError):
    """The environment, not the model, failed: the episode's reward is not valid."""


class AgentGymEnv(vf.Env[AgentGymEnvConfig]):
    """The env as the run's user: each model reply is an action, each observation the next
    user turn (see the module docstring)."""

    async def run(self, task: AgentGymTask, agents: vf.Agents) -> None:
        config = self.taskset.config
        data = task.data
        episode = _Episode(data.env_id, config.max_turns, dict(config.env_kwargs))
        try:
            await episode.run(hubs.start, episode.session, data.row())
            if episode.session.done:  # the task does not reset: no model turn is owed
                raise _failure(data, episode)
            async with agents.player.interaction(task) as interaction:
                record = hubs.end_metadata(episode.session) | {"rewards": []}
                interaction.trace.info["agentgym"] = record
                segment = await interaction.turn()  # the prompt speaks first
                while not segment.terminated:
                    step = await episode.run(episode.session.step, segment.last_reply)
                    obs, reward, done = step
                    record.update(hubs.end_metadata(episode.session))
                    record["rewards"].append(float(reward))
                    if done:
                        record["final_observation"] = obs
                        if not episode.session.reward_valid:
                            raise _failure(data, episode)
                        break
                    segment = await interaction.turn(obs)
        finally:
            await episode.close()


def _failure(data: AgentGymData, episode: _Episode) -> AgentGymEnvError:
    session = episode.session
    error = session.error or f"outcome {session.outcome}"
    return AgentGymEnvError(
        f"{data.env_id}: the environment failed on {data.split} task {data.task_id} ({error})"
    )


def taskset_id(env_id: str) -> str:
    """The taskset id of ``env_id``'s package, importable from here on: the installed export
    when there is one, else the module made from :func:`taskset_module_source` in memory."""
    name = module_name(env_id)
    if name not in sys.modules and importlib.util.find_spec(name) is None:
        module = types.ModuleType(name)
        module.__file__ = f"<agentgym-envs {name}>"
        exec(compile(taskset_module_source(env_id), module.__file__, "exec"), module.__dict__)
        sys.modules[name] = module
    return name


def load_environment(env_id: str, **taskset: Any) -> AgentGymEnv:
    """The verifiers env playing ``env_id`` (Python; ``vf-eval`` needs the exported package).

    Args:
        env_id: a registered id, e.g. ``"AgentGym/Maze-v0"``.
        **taskset: :class:`AgentGymTasksetConfig` fields (``split``, ``num_tasks``,
            ``max_turns``, ``seed``, ``env_kwargs``).
    """
    from agentgym_envs.spec import resolve_id

    env_id = resolve_id(env_id)
    config = {"taskset": {"id": taskset_id(env_id), "env_id": env_id, **taskset}}
    return vf.load_environment(vf.resolve_env_config(config))
