"""NeMo Gym: any agentgym-envs id as a NeMo Gym resources server.

NeMo Gym (PyPI ``nemo-gym``) splits an environment into a *dataset* (JSONL rows whose
``responses_create_params`` is the model's request), a *resources server* (``/seed_session``
for the rollout's state, one POST endpoint per tool, ``/verify`` for the reward) and an *agent*
that owns the loop -- its ``simple_agent`` calls the model, posts each function call to the
resources server's endpoint of that name, and stops when the model answers without one.
:class:`AgentGymResourcesServer` is that resources server for every registered id:

* a dataset row (:func:`dataset_rows`) is one task, ``{"env_id", "split", "task_id", "seed"}``
  beside ``responses_create_params``, whose input is the family's instructions, a note to act
  through the tools, and the first observation, and whose ``tools`` are the family's own
  (:meth:`~agentgym_envs.core.TextEnv.tool_schemas`, e.g. Maze's ``move``, Weather's
  ``get_user_current_location`` ...; ``act(action)`` for families without their own);
* ``/seed_session`` resets the rollout's env to the row's task (the rollout is NeMo Gym's
  session cookie); a row naming no task is refused with HTTP 422 and a one-line ``detail``;
* ``POST /<tool>`` turns the call into the family's action text
  (:meth:`~agentgym_envs.core.TextEnv.action_from_tool_call`) -- exactly the string
  ``env.step`` receives under ``gymnasium.make`` -- and answers with the next observation as
  plain text, which the simple agent hands to the model as the tool's output. Arguments that
  break the tool's schema get FastAPI's 422 ``{"detail": [...]}`` (NeMo Gym's validation error
  shape), an unknown tool a 404; neither steps the env, so the episode goes on;
* ``/verify`` returns the env's graded ``score`` (AgentGym's reward) as ``reward`` and the end
  of the episode under ``agentgym`` (``score``, ``success``, ``outcome``, ``reward_valid``,
  ``turns`` and the step ``rewards``); when the environment, not the model, failed
  (``reward_valid`` false) the result carries NeMo Gym's ``_ng_failure_class``
  (``"transient"``), so its rollout collection writes it to the failures file instead of the
  rollouts, and ``/aggregate_metrics`` leaves it out.

:class:`AgentGymGymnasiumServer` is the text path, a NeMo Gym ``GymnasiumServer`` for its
``gymnasium_agent``: the model replies in AgentGym's ReAct text (``Thought: ... Action: ...``)
instead of calling tools, ``/reset`` answers with the prompt and ``/step`` with the next
observation, and the agent's summed reward is the env's graded ``score``.

Each rollout's env is stepped on a thread of its own; at most ``max_sessions`` live at once
(the oldest is closed first). ``examples/nemo_gym`` holds both server folders and configs that
NeMo Gym's CLI (``gym env start``, ``gym eval run``) runs with its ``simple_agent`` and
``gymnasium_agent``; write a dataset with
``python -m agentgym_envs.integrations.nemo_gym data ID [ID ...] --out F.jsonl`` (add
``--gymnasium --agent agentgym_gymnasium_agent`` for the text path).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from agentgym_envs.errors import require
from agentgym_envs.integrations import hubs
from agentgym_envs.integrations.nemo_gym_data import (  # noqa: F401  (part of this API)
    TOOLS_NOTE,
    dataset_rows,
    responses_tools,
    write_dataset,
)
from agentgym_envs.integrations.session import EnvSession

EXTRA = "nemo-gym"

require("nemo_gym.base_resources_server", EXTRA)

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import PlainTextResponse
from nemo_gym.base_resources_server import (
    AggregateMetrics,
    AggregateMetricsRequest,
    BaseResourcesServerConfig,
    BaseSeedSessionRequest,
    BaseSeedSessionResponse,
    BaseVerifyRequest,
    BaseVerifyResponse,
    SimpleResourcesServer,
)
from nemo_gym.server_utils import SESSION_ID_KEY
from pydantic import (
    ConfigDict,
    Field,
    PrivateAttr,
    StrictInt,
    StrictStr,
    ValidationError,
)

logger = logging.getLogger(__name__)

#: The key of a rollout's failure class (NeMo Gym's rollout collection reads it), and the class
#: of a rollout whose environment failed (not the model).
FAILURE_CLASS_KEY, FAILURE_CLASS = "_ng_failure_class", "transient"


class AgentGymResourcesServerConfig(BaseResourcesServerConfig):
    """The resources server's config (the YAML block under ``resources_servers.agentgym``).

    Args:
        max_turns: turn limit per episode (default: AgentGym's max rounds for the id).
        max_sessions: live episodes kept at once; the oldest is closed past it.
        env_kwargs: keyword arguments for ``gymnasium.make``, per id.
    """

    max_turns: int | None = None
    max_sessions: int = 1024
    env_kwargs: dict[str, dict[str, Any]] = Field(default_factory=dict)


class AgentGymSeedSessionRequest(BaseSeedSessionRequest):
    """A dataset row: the task, beside the row's other fields (which are ignored)."""

    model_config = ConfigDict(extra="allow")

    env_id: StrictStr
    split: StrictStr = "test"
    task_id: StrictInt
    seed: StrictInt | None = 0


class AgentGymVerifyRequest(BaseVerifyRequest):
    model_config = ConfigDict(extra="allow")


class AgentGymVerifyResponse(BaseVerifyResponse):
    model_config = ConfigDict(extra="allow")

    agentgym: dict[str, Any]


class _Episode:
    """One rollout's env and the thread it is stepped on (some envs are bound to theirs)."""

    def __init__(self, session: EnvSession) -> None:
        self.session = session
        self.rewards: list[float] = []
        self.tools: dict[str, dict[str, Any]] = {}  # name -> the function's schema
        self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="nemo-gym-agentgym")

    async def run(self, fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.thread, fn, *args)

    def close(self) -> None:
        def _close() -> None:
            try:
                self.session.close()
            except Exception:
                logger.debug("closing %s failed", self.session.env_id, exc_info=True)

        self.thread.submit(_close)
        self.thread.shutdown(wait=False)


def _start(episode: _Episode, row: dict[str, Any]) -> str:
    """Reset the episode's env to the row's task and read its tools; the first observation."""
    first = hubs.start(episode.session, row)
    env = episode.session.env
    for tool in env.unwrapped.tool_schemas() if env is not None else []:
        fn = tool.get("function", tool)
        episode.tools[fn["name"]] = fn
    return first


def _call(episode: _Episode, tool: str, arguments: Any) -> tuple[str, list[str]]:
    """Check a call against the tool's schema and the family's rules; step it if it is good.

    Returns the observation and the problems (none when the env was stepped).
    """
    from agentgym_envs.tools.tool import validate_arguments

    schema = episode.tools[tool].get("parameters") or {}
    _, problems = validate_arguments(schema, arguments, coerce=False)
    if problems:
        return "", problems
    env = episode.session.env
    if env is None or episode.session.done:  # ended (or broken): the session says so
        return episode.session.step("")[0], []
    try:
        action = env.unwrapped.action_from_tool_call(tool, dict(arguments))
    except (ValueError, KeyError, TypeError) as exc:
        return "", [f"bad call to {tool!r}: {exc}"]
    obs, reward, _ = episode.session.step(action)
    episode.rewards.append(reward)
    return obs, []


class AgentGymResourcesServer(SimpleResourcesServer):
    """NeMo Gym resources server playing agentgym-envs ids (see the module docstring)."""

    config: AgentGymResourcesServerConfig
    _episodes: OrderedDict[str, _Episode] = PrivateAttr(default_factory=OrderedDict)

    def setup_webserver(self) -> FastAPI:
        app = super().setup_webserver()
        # registered last: /seed_session, /verify and /aggregate_metrics match first
        app.post("/{tool}", response_class=PlainTextResponse)(self.call_tool)
        return app

    # -- episodes ---------------------------------------------------------------------------
    def _episode(self, request: Request) -> _Episode:
        episode = self._episodes.get(request.session.get(SESSION_ID_KEY, ""))
        if episode is None:
            raise HTTPException(
                status_code=409,
                detail="no episode in this session: POST the dataset row to /seed_session first",
            )
        return episode

    def _drop(self, key: str) -> None:
        episode = self._episodes.pop(key, None)
        if episode is not None:
            episode.close()

    async def seed_session(
        self, request: Request, body: AgentGymSeedSessionRequest
    ) -> BaseSeedSessionResponse:
        from agentgym_envs.errors import BadTaskError
        from agentgym_envs.spec import resolve_id

        try:
            env_id = resolve_id(body.env_id)
            hubs.check_task(env_id, body.task_id, body.split)
        except (BadTaskError, ValueError, KeyError) as exc:
            detail = exc.args[0] if exc.args else str(exc)
            raise HTTPException(status_code=422, detail=str(detail)) from exc
        key = request.session[SESSION_ID_KEY]
        self._drop(key)
        session = EnvSession(
            env_id,
            max_turns=self.config.max_turns,
            env_kwargs=self.config.env_kwargs.get(env_id, {}),
        )
        episode = _Episode(session)
        row = {"task_id": body.task_id, "split": body.split, "seed": body.seed}
        await episode.run(_start, episode, row)
        self._episodes[key] = episode
        while len(self._episodes) > self.config.max_sessions:
            self._drop(next(iter(self._episodes)))
        return BaseSeedSessionResponse()

    async def call_tool(self, request: Request, tool: str) -> str:
        """One tool call: the family's action for it, stepped; the next observation."""
        from agentgym_envs.errors import unknown_name

        episode = self._episode(request)
        if tool not in episode.tools:
            raise HTTPException(status_code=404, detail=unknown_name("tool", tool, episode.tools))
        try:
            arguments = await request.json()
        except ValueError:
            arguments = None
        obs, problems = await episode.run(_call, episode, tool, arguments)
        if problems:
            errors = [
                {"type": "value_error", "loc": ("body",), "msg": p, "input": arguments}
                for p in problems
            ]
            raise RequestValidationError(errors, body=arguments)
        return obs

    async def verify(self, request: Request, body: AgentGymVerifyRequest) -> AgentGymVerifyResponse:
        key = request.session.get(SESSION_ID_KEY, "")
        episode = self._episodes.get(key)
        if episode is None:
            end = {"done": False, "reward_valid": False, "error": "no episode in this session"}
        else:
            end = hubs.end_metadata(episode.session)
            if not end["done"]:  # the agent stopped before the env ended it: a failure
                result = episode.session.finish()
                end.update(score=result.score, success=result.success, outcome=result.outcome)
                end["reward_valid"] = result.reward_valid
            end["rewards"] = episode.rewards
            self._drop(key)
        row = body.model_dump()
        for name in ("task_id", "split"):
            if end.get(name) is None and name in row:
                end[name] = row[name]
        extra: dict[str, Any] = {}
        if not end.get("reward_valid", True):
            extra[FAILURE_CLASS_KEY] = FAILURE_CLASS
        reward = float(end.get("score", 0.0)) if end.get("reward_valid") else 0.0
        return AgentGymVerifyResponse(**row, reward=reward, agentgym=end, **extra)

    async def aggregate_metrics(self, body: AggregateMetricsRequest) -> AggregateMetrics:
        """NeMo Gym's aggregate metrics over the rollouts whose reward is valid (its rollout
        collection sends the failed ones too)."""
        kept = [r for r in body.verify_responses if FAILURE_CLASS_KEY not in r]
        return await super().aggregate_metrics(AggregateMetricsRequest(verify_responses=kept))


def _gymnasium_base() -> Any:
    return require("resources_servers.gymnasium", EXTRA)


class AgentGymGymnasiumServer(_gymnasium_base().GymnasiumServer):
    """NeMo Gym ``GymnasiumServer`` playing agentgym-envs ids for its ``gymnasium_agent``.

    The text path: ``/reset`` takes a dataset row (:func:`dataset_rows` with
    ``gymnasium=True``) and answers with the family's instructions, the ReAct reply format and
    the first observation; ``/step`` takes the model's whole reply (its text), reads it as
    AgentGym's client does (``Thought: ... Action: ...``) and answers with the next
    observation. The step reward is 0 until the episode ends and then the env's graded
    ``score``, so the agent's sum is AgentGym's reward; ``info`` carries the env's own step
    reward (``env_reward``) and, at the end, ``score``, ``success``, ``outcome``,
    ``reward_valid`` and ``turns``. A row naming no task gets HTTP 422 with a one-line
    ``detail``; a reply without an action is feedback, as under ``gymnasium.make``.
    """

    config: AgentGymResourcesServerConfig
    _episodes: OrderedDict[str, _Episode] = PrivateAttr(default_factory=OrderedDict)

    def _drop(self, key: str | None) -> None:
        episode = self._episodes.pop(key or "", None)
        if episode is not None:
            episode.close()

    async def reset(self, metadata: dict, session_id: str | None = None) -> tuple[str, dict]:
        from agentgym_envs.errors import BadTaskError
        from agentgym_envs.spec import resolve_id

        try:
            row = AgentGymSeedSessionRequest.model_validate(metadata)
        except ValidationError as exc:  # FastAPI's shape, as for a body it validates
            raise RequestValidationError(exc.errors(include_url=False), body=metadata) from exc
        try:
            env_id = resolve_id(row.env_id)
            hubs.check_task(env_id, row.task_id, row.split)
        except (BadTaskError, ValueError, KeyError) as exc:
            detail = exc.args[0] if exc.args else str(exc)
            raise HTTPException(status_code=422, detail=str(detail)) from exc
        self._drop(session_id)
        kwargs = self.config.env_kwargs.get(env_id, {})
        max_turns = self.config.max_turns
        session = EnvSession(lambda: hubs.react_env(env_id, max_turns, kwargs))
        episode = _Episode(session)
        task = {"task_id": row.task_id, "split": row.split, "seed": row.seed}
        first = await episode.run(hubs.start, session, task)
        self._episodes[session_id or ""] = episode
        while len(self._episodes) > self.config.max_sessions:
            self._drop(next(iter(self._episodes)))
        return first, hubs.end_metadata(session)

    async def step(
        self, action: Any, metadata: dict, session_id: str | None = None
    ) -> tuple[str | None, float, bool, bool, dict]:
        episode = self._episodes.get(session_id or "")
        if episode is None:
            raise HTTPException(status_code=409, detail="no episode in this session: /reset first")
        reply = _gymnasium_base().extract_text(action)
        obs, reward, done = await episode.run(episode.session.step, reply)
        episode.rewards.append(reward)
        info = hubs.end_metadata(episode.session) | {"env_reward": reward}
        info["env_id"] = metadata.get("env_id")
        if not done:
            return obs, 0.0, False, False, info
        info["rewards"] = episode.rewards
        info["observation"] = obs  # the agent does not pass the last one on to the model
        valid = episode.session.reward_valid
        final = float(info.get("score", 0.0)) if valid else 0.0
        truncated = episode.session.outcome in ("turn_limit", "token_limit", "time_limit")
        return obs, final, not truncated, truncated, info

    async def close_session(self, session_id: str | None) -> None:
        self._drop(session_id)

    async def aggregate_metrics(self, body: AggregateMetricsRequest) -> AggregateMetrics:
        """NeMo Gym's aggregate metrics over the rollouts whose reward is valid."""
        kept = [r for r in body.verify_responses if (r.get("info") or {}).get("reward_valid", 1)]
        return await super().aggregate_metrics(AggregateMetricsRequest(verify_responses=kept))


def main(argv: list[str] | None = None) -> None:
    """``python -m agentgym_envs.integrations.nemo_gym data ID [ID ...] --out F.jsonl``."""
    parser = argparse.ArgumentParser(description="NeMo Gym datasets for agentgym-envs ids.")
    sub = parser.add_subparsers(dest="command", required=True)
    data = sub.add_parser("data", help="write NeMo Gym dataset rows (JSONL) for ids")
    data.add_argument("env_ids", nargs="+")
    data.add_argument("--out", required=True)
    data.add_argument("--split", default="test")
    data.add_argument("--num-tasks", type=int, default=None)
    data.add_argument("--seed", type=int, default=0)
    data.add_argument("--agent", default=None, help="the agent that plays the rows (agent_ref)")
    data.add_argument(
        "--gymnasium", action="store_true", help="rows for the gymnasium_agent (text replies)"
    )
    args = parser.parse_args(argv)
    rows = [
        row
        for env_id in args.env_ids
        for row in dataset_rows(
            env_id, args.split, args.num_tasks, args.seed, args.agent, args.gymnasium
        )
    ]
    logger.info("wrote %d rows to %s", len(rows), write_dataset(args.out, rows))


if __name__ == "__main__":
    main()
