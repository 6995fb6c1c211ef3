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
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from agentgym_envs.errors import require
from agentgym_envs.integrations import hubs
from agentgym_envs.integrations.session import EnvSession

logger = logging.getLogger(__name__)

EXTRA = "openreward"


def _sdk() -> Any:
    os.environ.setdefault("OPENREWARD_DISABLE_UPDATE_CHECK", "1")  # no PyPI call at start-up
    os.environ.setdefault("OPENREWARD_LOG_LEVEL", "WARNING")  # not a log line per request
    return require("openreward.environments", EXTRA)


def ors_environment(env_id: str, *, max_turns: int | None = None, **env_kwargs: Any) -> type:
    """The ORS ``Environment`` class serving ``env_id`` (see the module docstring).

    Args:
        env_id: a registered id (``"AgentGym/Maze-v0"``; ``"Maze-v0"`` resolves too).
        max_turns: turn limit per episode (default: AgentGym's max rounds for the id).
        **env_kwargs: keyword arguments for ``gymnasium.make``.
    """
    sdk = _sdk()
    from pydantic import BaseModel, Field

    from agentgym_envs.spec import resolve_id

    env_id = resolve_id(env_id)
    sizes = hubs.splits(env_id)
    name = hubs.env_slug(env_id)

    class ActionInput(BaseModel):
        action: str = Field(description="One action, written as the instructions say.")

    class AgentGymORSEnvironment(sdk.Environment):
        def __init__(self, task_spec: dict[str, Any] | None = None, secrets: Any = None) -> None:
            super().__init__(task_spec or {}, secrets or {})
            self.row = dict(task_spec or {})
            self.session = EnvSession(env_id, max_turns=max_turns, env_kwargs=env_kwargs)
            self.first = ""
            self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"ors-{name}")

        async def _run(self, fn: Any, *args: Any) -> Any:
            return await asyncio.get_running_loop().run_in_executor(self._thread, fn, *args)

        async def setup(self) -> None:
            row = self.row
            hubs.check_task(env_id, row.get("task_id"), str(row.get("split", "test")))
            self.first = await self._run(hubs.start, self.session, row)

        async def teardown(self) -> None:
            if self.session.env is not None:
                await self._run(self.session.env.close)
            self._thread.shutdown(wait=False)

        @classmethod
        def name(cls) -> str:
            return name

        @classmethod
        def list_splits(cls) -> list[Any]:
            return [sdk.Split(name=s, type="test" if s == "test" else "train") for s in sizes]

        @classmethod
        def list_tasks(cls, split: str) -> list[dict[str, Any]]:
            return hubs.task_rows(env_id, split)

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


def ors_server(env_ids: list[str], **options: Any) -> Any:
    """An ``openreward`` ``Server`` for ``env_ids`` (the first is served at ``/`` too)."""
    sdk = _sdk()
    return sdk.Server([ors_environment(e, **options) for e in env_ids])


def serve(env_ids: list[str], host: str = "127.0.0.1", port: int = 8080, **options: Any) -> None:
    """Run :func:`ors_server` with uvicorn until interrupted."""
    import uvicorn

    uvicorn.run(ors_server(env_ids, **options).app, host=host, port=port, log_level="warning")


def main(argv: list[str] | None = None) -> None:
    """``python -m agentgym_envs.integrations.openreward ID [ID ...] [--host H] [--port P]``."""
    parser = argparse.ArgumentParser(description="Serve agentgym-envs ids over ORS.")
    parser.add_argument("env_ids", nargs="+")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--max-turns", type=int, default=None)
    args = parser.parse_args(argv)
    serve(args.env_ids, args.host, args.port, max_turns=args.max_turns)


if __name__ == "__main__":
    main()
