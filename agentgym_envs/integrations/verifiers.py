"""verifiers (Prime Intellect's Environments Hub): any id as a multi-turn verifiers environment.

:func:`load_environment` is the hub's entry point: it returns a :class:`AgentGymVerifiersEnv`,
a ``verifiers`` ``MultiTurnEnv`` (the ``verifiers.legacy`` API of ``verifiers==0.3.1``, the
one ``vf-eval``, prime-rl and the hub's ``load_environment`` contract use) whose

* dataset is the id's task list: one row per task of the split, ``prompt`` the family's
  instructions with the ReAct reply format and the first observation, ``info`` the
  ``{"env_id", "split", "task_id", "seed"}`` row;
* turns are the model's replies, read as AgentGym's client for the family reads them
  (:class:`~agentgym_envs.wrappers.ReAct`, ``parser="agentgym"``); each env observation comes
  back as the next user message, and the last one ends the rollout;
* rubric is the env's graded ``score`` (AgentGym's reward, weight 1), with ``success`` and
  ``turns`` as metrics. When the environment, not the model, failed (``reward_valid`` false)
  the rollout carries ``state["error"]`` (a ``verifiers`` ``InfraError``), which is how
  verifiers and prime-rl leave a rollout out.

``vf-eval agentgym_envs.integrations.verifiers --env-args '{"env": "AgentGym/Maze-v0"}'
-m <model> -b <base_url>`` evaluates a model on it (``vf-eval`` passes its own ``env_id``, the
module name, so the id goes in as ``env``).
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from agentgym_envs.errors import require
from agentgym_envs.integrations import hubs
from agentgym_envs.integrations.session import EnvSession

require("verifiers.legacy", "verifiers")

import verifiers.legacy as vf

logger = logging.getLogger(__name__)


def _dataset(env_id: str, rows: list[dict[str, Any]], env_kwargs: dict[str, Any]) -> Any:
    """The rows as a ``datasets.Dataset``: the first observation of each task is its prompt."""
    from datasets import Dataset

    env = hubs.react_env(env_id, None, env_kwargs)
    prompts = []
    try:
        for row in rows:
            options = {"task_id": row["task_id"], "split": row["split"]}
            obs, _ = env.reset(seed=row["seed"], options=options)
            prompts.append([{"role": "user", "content": obs}])
    finally:
        env.close()
    return Dataset.from_dict(
        {
            "prompt": prompts,
            "answer": [""] * len(rows),
            "info": rows,
        }
    )


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


def _text(message: Any) -> str:
    """A chat message's text: a dict or verifiers' message object, string or content parts."""
    if isinstance(message, str):
        return message
    content = (
        message.get("content") if isinstance(message, dict) else getattr(message, "content", "")
    )
    if isinstance(content, list):
        parts = [p if isinstance(p, dict) else getattr(p, "__dict__", {}) for p in content]
        return "".join(str(p.get("text") or "") for p in parts)
    return content if isinstance(content, str) else ""


class AgentGymVerifiersEnv(vf.MultiTurnEnv):
    """A verifiers ``MultiTurnEnv`` playing an agentgym-envs id (see the module docstring).

    Args:
        env_id: a registered id.
        split: the split whose tasks make the dataset (``"test"`` is AgentEval's).
        num_tasks: only the first ``num_tasks`` tasks (default: all).
        max_turns: turn limit (default: AgentGym's max rounds for the id).
        seed: the reset seed of every task.
        env_kwargs: keyword arguments for ``gymnasium.make``.
        **kwargs: passed to ``verifiers`` ``MultiTurnEnv``.
    """

    def __init__(
        self,
        env_id: str,
        split: str = "test",
        num_tasks: int | None = None,
        max_turns: int | None = None,
        seed: int = 0,
        env_kwargs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        from agentgym_envs.spec import env_info, resolve_id

        env_id = resolve_id(env_id)
        self.agentgym_id = env_id
        self.agentgym_kwargs = dict(env_kwargs or {})
        self.agentgym_max_turns = max_turns
        rows = hubs.task_rows(env_id, split, num_tasks, seed)
        rubric = vf.Rubric(funcs=[self.agentgym_score], weights=[1.0])
        rubric.add_metric(self.agentgym_success)
        rubric.add_metric(self.agentgym_turns)
        limit = max_turns or env_info(env_id).max_rounds
        dataset = _dataset(env_id, rows, self.agentgym_kwargs)
        super().__init__(
            dataset=dataset,
            eval_dataset=dataset,
            rubric=rubric,
            max_turns=limit + 1,  # the env ends the rollout; this is a backstop
            **kwargs,
        )
        self._episodes: dict[str, _Episode] = {}

    # -- rollout --------------------------------------------------------------------------------
    async def setup_state(self, state: vf.State) -> vf.State:
        row = dict(state["info"])
        episode = _Episode(self.agentgym_id, self.agentgym_max_turns, self.agentgym_kwargs)
        self._episodes[state["trajectory_id"]] = episode
        await episode.run(hubs.start, episode.session, row)
        state["agentgym"] = hubs.end_metadata(episode.session) | {"rewards": []}
        if episode.session.done:  # the env failed to start
            self._failed(state, episode)
        return state

    async def env_response(self, messages: vf.Messages, state: vf.State, **kwargs: Any):
        episode = self._episodes[state["trajectory_id"]]
        reply = _text(messages[-1]) if messages else ""
        obs, reward, done = await episode.run(episode.session.step, reply)
        record = state["agentgym"]
        record.update(hubs.end_metadata(episode.session))
        record["rewards"].append(reward)
        answer = [{"role": "user", "content": obs}]
        if done:
            state["final_env_response"] = answer
            if not episode.session.reward_valid:
                self._failed(state, episode)
        return answer

    def _failed(self, state: vf.State, episode: _Episode) -> None:
        error = episode.session.error or f"outcome {episode.session.outcome}"
        state["error"] = vf.InfraError(f"{self.agentgym_id}: the environment failed ({error})")

    @vf.cleanup
    async def close_agentgym_env(self, state: vf.State) -> None:
        episode = self._episodes.pop(state.get("trajectory_id"), None)
        if episode is not None:
            await episode.close()

    # -- rubric ---------------------------------------------------------------------------------
    async def agentgym_score(self, state: vf.State) -> float:
        """The env's graded final score (AgentGym's reward); 0 until the episode ends."""
        return float(state.get("agentgym", {}).get("score", 0.0))

    async def agentgym_success(self, state: vf.State) -> float:
        """1 when the task was solved."""
        return float(bool(state.get("agentgym", {}).get("success", False)))

    async def agentgym_turns(self, state: vf.State) -> float:
        """Actions the env received."""
        return float(state.get("agentgym", {}).get("turns", 0))


def load_environment(
    env_id: str | None = None, *, env: str | None = None, **kwargs: Any
) -> AgentGymVerifiersEnv:
    """The verifiers environment for an id (the hub's and ``vf-eval``'s entry point).

    Args:
        env_id: a registered id, e.g. ``"AgentGym/Maze-v0"``.
        env: the same, by the name ``vf-eval --env-args`` can pass (verifiers keeps
            ``env_id`` for the module name).
        **kwargs: :class:`AgentGymVerifiersEnv`'s arguments (``split``, ``num_tasks``,
            ``max_turns``, ``seed``, ``env_kwargs``).
    """
    chosen = env_id if env is None else env
    if not chosen or (env is not None and env_id not in (None, env)):
        raise ValueError('name one env: load_environment("AgentGym/Maze-v0") or env="..."')
    return AgentGymVerifiersEnv(chosen, **kwargs)
