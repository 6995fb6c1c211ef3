"""An env as CrewAI tools (``pip install "agentgym-envs[crewai]"``).

:func:`crewai_tools` gives one CrewAI ``BaseTool`` per env tool -- the family's own tools and
``act`` (one action in the family's text grammar) -- over an
:class:`~agentgym_envs.integrations.mcp.EpisodeTools` episode; hand them to a CrewAI
``Agent(tools=...)``. Each tool's argument model is built from the env's JSON schema; a call
the env rejects, or one after the episode ended, returns text saying so::

    episode = EpisodeTools("Maze-v0")
    tools = crewai_tools(episode)
    task_text = episode.reset(task_id=3)          # the Task's description
    ...                                           # crew.kickoff()
    record = episode.record()                     # AgentTraj, scored by the env
"""

from __future__ import annotations

from typing import Any

from agentgym_envs.errors import require
from agentgym_envs.integrations.mcp import EpisodeTools

_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "array": list,
    "object": dict,
}


def _args_model(name: str, schema: dict[str, Any]) -> Any:
    """A pydantic model for a JSON-schema object (top-level properties, required or not)."""
    from pydantic import Field, create_model

    required = set(schema.get("required") or [])
    fields: dict[str, Any] = {}
    for prop, spec in (schema.get("properties") or {}).items():
        kind = spec.get("type", "string")
        py = _TYPES.get(kind if isinstance(kind, str) else "string", Any)
        description = spec.get("description", "")
        if "enum" in spec:
            description = f"{description} (one of: {', '.join(map(str, spec['enum']))})".strip()
        if prop in required:
            fields[prop] = (py, Field(..., description=description))
        else:
            fields[prop] = (py | None, Field(None, description=description))
    return create_model(f"{name.title().replace('_', '')}Args", **fields)


def crewai_tools(episode: EpisodeTools | str) -> list[Any]:
    """CrewAI tools over ``episode`` (an :class:`EpisodeTools`, or an env id to make one)."""
    require("crewai", "crewai")
    from crewai.tools import BaseTool

    if isinstance(episode, str):
        episode = EpisodeTools(episode)
    from pydantic import PrivateAttr

    class EnvTool(BaseTool):
        """One env tool: the call goes to the episode, the observation comes back."""

        _episode: Any = PrivateAttr()

        def _run(self, **kwargs: Any) -> str:
            arguments = {k: v for k, v in kwargs.items() if v is not None}
            return self._episode.call(self.name, arguments)

    tools = []
    for spec in episode.specs:
        tool = EnvTool(
            name=spec["name"],
            description=spec["description"] or spec["name"],
            args_schema=_args_model(spec["name"], spec["inputSchema"]),
        )
        tool._episode = episode
        tools.append(tool)
    return tools


__all__ = ["EpisodeTools", "crewai_tools"]
