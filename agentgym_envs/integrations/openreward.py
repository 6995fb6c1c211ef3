"""OpenReward / ORS: any agentgym-envs id as an Open Reward Standard environment server.

ORS (PyPI ``openreward``) serves environment *classes*: ``list_splits()``, ``list_tasks(split)``,
``get_prompt()`` for the session's task, and ``@tool`` methods that return
``ToolOutput(blocks, reward, finished, metadata)``. :func:`ors_environment` builds that class for
one id:

* splits are the id's splits (``train``/``test``); a task is ``{"env_id", "split", "task_id",
  "seed"}``;
* the prompt is the family's instructions and the task's first observation;
* one tool, ``act(action: str)``, plays one text action -- exactly the string
  ``env.step`` receives under ``gymnasium.make`` -- and returns the next observation with the
  step's reward; ``finished`` is set when the episode ends, and then ``metadata`` carries
  ``score``, ``success``, ``outcome`` and ``reward_valid`` (the reward is ``None`` when
  ``reward_valid`` is false: the environment, not the agent, failed).

:func:`ors_server` puts several ids behind one ``openreward`` ``Server``; :func:`serve` runs it
(``python -m agentgym_envs.integrations.openreward AgentGym/Maze-v0 --port 8080``). Each session owns its env, stepped on one thread of its own.

Bad input is answered in the SDK's own shape (``{"detail": ...}``) with a 4xx, at session
creation: a task whose ``task_id`` is missing, null, not an int or outside its split, or whose
split is unknown, is a 400; a task index below 0 is refused (AgentGym's ids start at 0: ``-1``
names no task, it does not wrap to the last one). At most ``max_sessions`` sessions are open
at once; one more is refused with 503 (busy, ``Retry-After``) before it costs a thread. Bodies
are capped and nested JSON is refused (:class:`agentgym_envs.bodies.BodyGuard`).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from agentgym_envs.errors import require
from agentgym_envs.integrations import hubs
from agentgym_envs.integrations.session import EnvSession

logger = logging.getLogger(__name__)

EXTRA = "openreward"
#: Sessions one server keeps open at once by default.
MAX_SESSIONS = 64
#: Largest request body a server reads by default (bytes).
MAX_BODY_BYTES = 1 << 20


def _sdk() -> Any:
    os.environ.setdefault("OPENREWARD_DISABLE_UPDATE_CHECK", "1")  # no PyPI call at start-up
    os.environ.setdefault("OPENREWARD_LOG_LEVEL", "WARNING")  # not a log line per request
    return require("openreward.environments", EXTRA)


class _Sessions:
    """A count of open sessions under a cap (shared by every id of one server)."""

    def __init__(self, cap: int) -> None:
        self.cap, self.open = cap, 0
        self._lock = threading.Lock()

    def take(self) -> None:
        from fastapi import HTTPException

        with self._lock:
            if self.open >= self.cap:
                raise HTTPException(
                    503,
                    f"busy: all {self.cap} sessions of this server are open: delete one, or "
                    "retry later",
                    headers={"Retry-After": "5"},
                )
            self.open += 1

    def give(self) -> None:
        with self._lock:
            self.open = max(0, self.open - 1)


def _check_row(env_id: str, row: dict[str, Any]) -> None:
    """Raise the SDK's 400 unless ``row`` names a task of its split (and an int seed)."""
    from fastapi import HTTPException

    from agentgym_envs.errors import BadTaskError

    try:
        if row.get("task_id") is None:
            raise BadTaskError(
                f"the task names no task_id: give an integer 0..n-1 of its split "
                f"({hubs.splits(env_id)})"
            )
        hubs.check_task(env_id, row.get("task_id"), row.get("split", "test"))
        hubs.check_seed(row.get("seed", 0))
    except BadTaskError as exc:
        raise HTTPException(400, str(exc)) from None


def ors_environment(
    env_id: str,
    *,
    max_turns: int | None = None,
    max_sessions: int | _Sessions = MAX_SESSIONS,
    **env_kwargs: Any,
) -> type:
    """The ORS ``Environment`` class serving ``env_id`` (see the module docstring).

    Args:
        env_id: a registered id (``"AgentGym/Maze-v0"``; ``"Maze-v0"`` resolves too).
        max_turns: turn limit per episode (default: AgentGym's max rounds for the id).
        max_sessions: sessions open at once (or a count shared with other ids).
        **env_kwargs: keyword arguments for ``gymnasium.make``.
    """
    sdk = _sdk()
    from fastapi import HTTPException
    from pydantic import BaseModel, Field

    from agentgym_envs.spec import resolve_id

    env_id = resolve_id(env_id)
    sizes = hubs.splits(env_id)
    name = hubs.env_slug(env_id)

    class ActionInput(BaseModel):
        action: str = Field(description="One action, written as the instructions say.")

    sessions = max_sessions if isinstance(max_sessions, _Sessions) else _Sessions(max_sessions)

    class AgentGymORSEnvironment(sdk.Environment):
        def __init__(self, task_spec: dict[str, Any] | None = None, secrets: Any = None) -> None:
            if not isinstance(task_spec, dict):
                raise HTTPException(400, "the task must be a JSON object naming task_id and split")
            super().__init__(task_spec, secrets or {})
            self.row = dict(task_spec)
            _check_row(env_id, self.row)
            sessions.take()
            self._counted = True
            try:
                self.session = EnvSession(env_id, max_turns=max_turns, env_kwargs=env_kwargs)
            except Exception:
                self._counted = False
                sessions.give()
                raise
            self.first = ""
            self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"ors-{name}")

        async def _run(self, fn: Any, *args: Any) -> Any:
            return await asyncio.get_running_loop().run_in_executor(self._thread, fn, *args)

        async def setup(self) -> None:
            row = self.row
            hubs.check_task(env_id, row.get("task_id"), str(row.get("split", "test")))
            self.first = await self._run(hubs.start, self.session, row)

        async def teardown(self) -> None:
            try:
                if self.session.env is not None:
                    await self._run(self.session.env.close)
            finally:
                self._thread.shutdown(wait=False)
                if self._counted:
                    self._counted = False
                    sessions.give()

        @classmethod
        def name(cls) -> str:
            return name

        @classmethod
        def list_splits(cls) -> list[Any]:
            return [sdk.Split(name=s, type="test" if s == "test" else "train") for s in sizes]

        @classmethod
        def list_tasks(cls, split: str) -> list[dict[str, Any]]:
            return hubs.task_rows(env_id, split)

        @classmethod
        async def get_task(cls, split: str, index: int) -> dict[str, Any]:
            """Task ``index`` of ``split``; an index below 0 names no task (no wrap-around)."""
            if isinstance(index, bool) or not isinstance(index, int) or index < 0:
                raise HTTPException(
                    400, f"task index {index!r} is not a task: use 0..{sizes.get(split, 1) - 1}"
                )
            return await super().get_task(split, index)

        async def get_prompt(self) -> list[Any]:
            text = await self._run(hubs.prompt_text, self.session, self.first)
            return [sdk.TextBlock(text=text)]

        @sdk.tool
        async def act(self, params: ActionInput) -> sdk.ToolOutput:
            obs, reward, done = await self._run(self.session.step, params.action)
            meta = hubs.end_metadata(self.session)
            valid = not done or self.session.reward_valid
            return sdk.ToolOutput(
                blocks=[sdk.TextBlock(text=obs)],
                reward=float(reward) if valid else None,
                finished=done,
                metadata=meta,
            )

    act = AgentGymORSEnvironment.act
    act.__doc__ = hubs.action_tool_description(env_id)
    # the SDK reads the tool's input model from real annotations (the classes are local)
    act.__annotations__ = {"params": ActionInput, "return": sdk.ToolOutput}
    cls_name = "ORS_" + name.replace("-", "_")
    AgentGymORSEnvironment.__name__ = AgentGymORSEnvironment.__qualname__ = cls_name
    return AgentGymORSEnvironment


def ors_server(
    env_ids: list[str],
    *,
    max_sessions: int = MAX_SESSIONS,
    max_body_bytes: int = MAX_BODY_BYTES,
    **options: Any,
) -> Any:
    """An ``openreward`` ``Server`` for ``env_ids`` (the first is served at ``/`` too), at most
    ``max_sessions`` sessions open across them, bodies capped at ``max_body_bytes``."""
    from agentgym_envs.bodies import BodyGuard

    sdk = _sdk()
    sessions = _Sessions(max_sessions)
    server = sdk.Server([ors_environment(e, max_sessions=sessions, **options) for e in env_ids])
    server.app.add_middleware(BodyGuard, limit=max_body_bytes)
    return server


def serve(env_ids: list[str], host: str = "127.0.0.1", port: int = 8080, **options: Any) -> None:
    """Run :func:`ors_server` with uvicorn until interrupted (a busy port is a one-line
    :class:`~agentgym_envs.serving.AddressInUseError`, before the envs are made)."""
    from agentgym_envs.serving import check_bindable, serve_app

    check_bindable(host, port)
    serve_app(
        ors_server(env_ids, **options).app, host, port, extra="openreward", log_level="warning"
    )


def main(argv: list[str] | None = None) -> None:
    """``python -m agentgym_envs.integrations.openreward ID [ID ...] [--host H] [--port P]``."""
    parser = argparse.ArgumentParser(description="Serve agentgym-envs ids over ORS.")
    parser.add_argument("env_ids", nargs="+")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--max-turns", type=int, default=None)
    parser.add_argument("--max-sessions", type=int, default=MAX_SESSIONS)
    parser.add_argument(
        "--max-body-mb", type=float, default=MAX_BODY_BYTES / (1 << 20), help="Body cap."
    )
    args = parser.parse_args(argv)
    serve(
        args.env_ids,
        args.host,
        args.port,
        max_turns=args.max_turns,
        max_sessions=args.max_sessions,
        max_body_bytes=int(args.max_body_mb * (1 << 20)),
    )


if __name__ == "__main__":
    from agentgym_envs.serving import one_line_errors

    with one_line_errors():
        main()
