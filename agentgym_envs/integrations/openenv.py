"""OpenEnv: any agentgym-envs id as an OpenEnv environment server, and its typed client.

OpenEnv (PyPI ``openenv-core``) serves an ``Environment`` -- ``reset(seed, episode_id, **kw)``
and ``step(action)`` returning a typed pydantic ``Observation`` that carries ``done`` and
``reward`` -- over HTTP (``/reset``, ``/step``, ``/state``, ``/schema``, ``/health``,
``/metadata``) and WebSocket (``/ws``, one environment per connection). Here:

* :class:`AgentGymAction` is one text action (``action``), sent to ``env.step`` as is;
* :class:`AgentGymObservation` is the env's observation (``text``), the family's
  ``instructions`` on reset, the step's ``reward``, ``done``, the ``task_id`` and, at the end,
  ``score``, ``success``, ``outcome`` and ``reward_valid`` (``reward`` is ``None`` when
  ``reward_valid`` is false: the environment, not the agent, failed);
* ``reset`` takes ``task_id``, ``split`` (default ``"test"``) and ``seed`` (default 0);
* :class:`AgentGymState` adds the id, task and outcome to OpenEnv's ``episode_id`` and
  ``step_count``.

:func:`create_openenv_app` builds the FastAPI app for an id (concurrent WebSocket sessions,
each with its own env on a thread of its own); :class:`AgentGymEnvClient` is the
``EnvClient`` for it (``AgentGymEnvClient(base_url=...).sync()``).
``python -m agentgym_envs.integrations.openenv AgentGym/Maze-v0 --port 8000`` serves one.
"""

from __future__ import annotations

import argparse
import logging
import uuid
from typing import Any

from agentgym_envs.errors import require
from agentgym_envs.integrations import hubs
from agentgym_envs.integrations.session import EnvSession

require("openenv.core", "openenv")

from openenv.core import EnvClient
from openenv.core.client_types import StepResult
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import (
    Action,
    EnvironmentMetadata,
    Observation,
    State,
)
from pydantic import Field

logger = logging.getLogger(__name__)

#: Concurrent WebSocket sessions a server takes by default.
MAX_SESSIONS = 64
#: Largest HTTP request body a server reads by default (bytes).
MAX_BODY_BYTES = 1 << 20


def _ws_error(message: str) -> dict[str, Any]:
    """OpenEnv's ``WSErrorResponse`` for a frame that is not a message."""
    return {"type": "error", "data": {"message": message, "code": "VALIDATION_ERROR"}}


class AgentGymAction(Action):
    """One text action, exactly as ``env.step`` receives it."""

    action: str = Field(..., description="The action, written as the instructions say.")


class AgentGymObservation(Observation):
    """The env's observation text; ``instructions`` on reset only; the end fields at the end."""

    text: str = Field(default="", description="The environment's observation.")
    instructions: str = Field(default="", description="The family's instructions (reset).")
    task_id: int | None = Field(default=None, description="The task played.")
    turns: int = Field(default=0, description="Actions played so far.")
    outcome: str | None = Field(default=None, description="Why the episode ended.")
    score: float | None = Field(default=None, description="The graded final score.")
    success: bool | None = Field(default=None, description="Whether the task was solved.")
    reward_valid: bool = Field(default=True, description="False when the env failed.")
    error: str | None = Field(default=None, description="The env's failure, if any.")


class AgentGymState(State):
    """OpenEnv's episode state plus which task is played and how it ended."""

    env_id: str = ""
    task_id: int | None = None
    split: str = "test"
    outcome: str | None = None


class AgentGymEnvironment(Environment):
    """One agentgym-envs episode at a time, as an OpenEnv ``Environment``.

    Args:
        env_id: a registered id.
        max_turns: turn limit (default: AgentGym's max rounds for the id).
        **env_kwargs: keyword arguments for ``gymnasium.make``.
    """

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, env_id: str, max_turns: int | None = None, **env_kwargs: Any) -> None:
        super().__init__()
        from agentgym_envs.spec import resolve_id

        self.env_id = resolve_id(env_id)
        self.session = EnvSession(self.env_id, max_turns=max_turns, env_kwargs=env_kwargs)
        self._state = AgentGymState(env_id=self.env_id)

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task_id: int | None = None,
        split: str = "test",
        **kwargs: Any,
    ) -> AgentGymObservation:
        """Start task ``task_id`` of ``split`` (drawn with ``seed`` when not given).

        Raises:
            BadTaskError: no such split or task (OpenEnv answers with its error response and
                the session stays usable).
        """
        hubs.check_task(self.env_id, task_id, split)
        hubs.check_seed(seed)
        seed = 0 if seed is None else seed
        obs = self.session.reset(task_id, split, seed)
        self._state = AgentGymState(
            episode_id=episode_id or str(uuid.uuid4()),
            step_count=0,
            env_id=self.env_id,
            task_id=self.session.info.get("task_id", task_id),
            split=split,
        )
        self._state.outcome = self.session.outcome  # set only if the env failed to start
        observation = self._observation(obs, None)
        if not self.session.done:
            observation.instructions = self.session.instructions()
        return observation

    def step(
        self, action: AgentGymAction, timeout_s: float | None = None, **kwargs: Any
    ) -> AgentGymObservation:
        """Play ``action.action``; after the end, a note that the episode is over."""
        obs, reward, _ = self.session.step(action.action)
        self._state.step_count = self.session.turns
        self._state.outcome = self.session.outcome
        return self._observation(obs, reward)

    def _observation(self, text: str, reward: float | None) -> AgentGymObservation:
        end = hubs.end_metadata(self.session)
        valid = end.get("reward_valid", True)
        return AgentGymObservation(
            text=text,
            done=self.session.done,
            reward=reward if valid else None,
            task_id=end["task_id"],
            turns=end["turns"],
            outcome=end.get("outcome"),
            score=end.get("score"),
            success=end.get("success"),
            reward_valid=valid,
            error=end.get("error"),
        )

    @property
    def state(self) -> AgentGymState:
        return self._state

    def get_metadata(self) -> EnvironmentMetadata:
        from agentgym_envs import __version__
        from agentgym_envs.spec import env_info

        return EnvironmentMetadata(
            name=hubs.env_slug(self.env_id),
            description=env_info(self.env_id).description,
            version=__version__,
            author="agentgym-envs",
        )

    def close(self) -> None:
        if self.session.env is not None:
            self.session.env.close()


class AgentGymEnvClient(EnvClient):
    """The typed OpenEnv client for an :func:`create_openenv_app` server."""

    def _step_payload(self, action: AgentGymAction) -> dict[str, Any]:
        return {"action": action.action, "metadata": dict(action.metadata)}

    def _parse_result(self, payload: dict[str, Any]) -> StepResult:
        data = dict(payload.get("observation") or {})
        data.update(done=payload.get("done", False), reward=payload.get("reward"))
        observation = AgentGymObservation(**data)
        return StepResult(observation=observation, reward=observation.reward, done=observation.done)

    def _parse_state(self, payload: dict[str, Any]) -> AgentGymState:
        return AgentGymState(**payload)


def create_openenv_app(
    env_id: str,
    *,
    max_sessions: int = MAX_SESSIONS,
    max_turns: int | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
    **env_kwargs: Any,
) -> Any:
    """The OpenEnv FastAPI app serving ``env_id`` (up to ``max_sessions`` WebSocket sessions).

    Bad input is answered in OpenEnv's own shapes and never ends a session: a bad task id,
    split or seed on ``/reset`` is a 422 ``{"detail": ...}`` (an ``EXECUTION_ERROR`` frame on
    the WebSocket); an HTTP body over ``max_body_bytes`` is a 413 before it is read; a
    WebSocket frame that is not a JSON object (binary, a list, a number, a string, nested
    deeper than :data:`agentgym_envs.bodies.MAX_JSON_DEPTH`) gets a ``VALIDATION_ERROR`` frame
    and the session goes on (:class:`agentgym_envs.bodies.BodyGuard`)."""
    import functools

    from fastapi.responses import JSONResponse
    from openenv.core.env_server.http_server import create_app

    from agentgym_envs.bodies import BodyGuard
    from agentgym_envs.errors import BadTaskError
    from agentgym_envs.spec import resolve_id

    env_id = resolve_id(env_id)
    hubs.splits(env_id)  # an unknown id fails here, not in the first session
    factory = functools.partial(AgentGymEnvironment, env_id, max_turns=max_turns, **env_kwargs)
    app = create_app(
        factory,
        AgentGymAction,
        AgentGymObservation,
        env_name=hubs.env_slug(env_id),
        max_concurrent_envs=max_sessions,
    )

    async def bad_task(request: Any, exc: Exception) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=422)

    app.add_exception_handler(BadTaskError, bad_task)
    app.add_middleware(BodyGuard, limit=max_body_bytes, ws_error=_ws_error)
    return app


def main(argv: list[str] | None = None) -> None:
    """``python -m agentgym_envs.integrations.openenv ID [--host H] [--port P]``."""
    from agentgym_envs.serving import check_bindable, serve_app

    parser = argparse.ArgumentParser(description="Serve an agentgym-envs id over OpenEnv.")
    parser.add_argument("env_id")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--max-sessions", type=int, default=MAX_SESSIONS)
    parser.add_argument(
        "--max-body-mb", type=float, default=MAX_BODY_BYTES / (1 << 20), help="HTTP body cap."
    )
    args = parser.parse_args(argv)
    check_bindable(args.host, args.port)  # before the env is made
    app = create_openenv_app(
        args.env_id,
        max_sessions=args.max_sessions,
        max_body_bytes=int(args.max_body_mb * (1 << 20)),
    )
    serve_app(app, args.host, args.port, extra="openenv", log_level="warning")


if __name__ == "__main__":
    from agentgym_envs.serving import one_line_errors

    with one_line_errors():
        main()
