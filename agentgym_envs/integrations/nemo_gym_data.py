"""NeMo Gym dataset rows for agentgym-envs ids, without NeMo Gym installed.

A row is one task (``env_id``, ``split``, ``task_id``, ``seed``) beside the
``responses_create_params`` NeMo Gym's agents send the model;
:mod:`agentgym_envs.integrations.nemo_gym` serves them and ``agentgym export --to nemo-gym``
writes its example data with them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentgym_envs.integrations import hubs
from agentgym_envs.integrations.session import EnvSession

#: What follows the family's instructions in a row's prompt.
TOOLS_NOTE = "Act by calling exactly one of the provided tools per turn."


def responses_tools(env_id: str) -> list[dict[str, Any]]:
    """The id's tools in the Responses API's flat form (``{"type", "name", "parameters"}``)."""
    from agentgym_envs import make

    env = make(env_id)
    try:
        schemas = env.unwrapped.tool_schemas()
    finally:
        env.close()
    out = []
    for tool in schemas:
        fn = tool.get("function", tool)
        out.append(
            {
                "type": "function",
                "name": fn["name"],
                "description": fn.get("description", ""),
                "parameters": fn.get("parameters") or {"type": "object", "properties": {}},
                "strict": False,
            }
        )
    return out


def dataset_rows(
    env_id: str,
    split: str = "test",
    num_tasks: int | None = None,
    seed: int = 0,
    agent_ref: str | None = None,
    gymnasium: bool = False,
) -> list[dict[str, Any]]:
    """NeMo Gym dataset rows for the first ``num_tasks`` tasks of ``split`` (default: all).

    Each row is a task (``env_id``, ``split``, ``task_id``, ``seed``) and its
    ``responses_create_params``: for the resources server, the prompt (instructions,
    :data:`TOOLS_NOTE`, first observation) as the user message and the family's tools; for
    the ``gymnasium`` server an empty input (its ``/reset`` answers with the prompt).
    ``agent_ref`` names the agent (config key) that plays the row.
    """
    from agentgym_envs.spec import resolve_id

    env_id = resolve_id(env_id)
    ref = {"agent_ref": {"type": "responses_api_agents", "name": agent_ref}} if agent_ref else {}
    if gymnasium:
        tasks = hubs.task_rows(env_id, split, num_tasks, seed)
        return [{"responses_create_params": {"input": []}, **task, **ref} for task in tasks]
    tools = responses_tools(env_id)
    rows = []
    session = EnvSession(env_id)
    try:
        for task in hubs.task_rows(env_id, split, num_tasks, seed):
            first = hubs.start(session, task)
            if session.done:
                raise RuntimeError(f"{env_id} task {task['task_id']}: {session.error}")
            instructions = session.instructions().strip()
            prompt = "\n\n".join(p for p in (instructions, TOOLS_NOTE, first) if p)
            params = {"input": [{"role": "user", "content": prompt}], "tools": tools}
            rows.append({"responses_create_params": params, **task, **ref})
    finally:
        session.close()
    return rows


def write_dataset(path: str | Path, rows: list[dict[str, Any]]) -> Path:
    """Write ``rows`` as NeMo Gym's JSONL (one row a line); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path
