"""TODOList's tools, with AgentBoard's names, arguments and reply texts (Todoist REST v2 style)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from agentgym_envs.envs.todo.world import TodoBackend
from agentgym_envs.tools import Tool, ToolError, Toolkit, param, schema
from agentgym_envs.tools.env import check_valid_actions_tool, finish_tool, user_context_tools
from agentgym_envs.tools.tool import DATE

_TASK_KEYS = ("id", "order", "content", "is_completed", "priority", "due_date")


def _task(b: TodoBackend, task_id: str) -> dict[str, Any]:
    t = b.task(str(task_id).strip())
    if t is None:
        raise ToolError(f"Task {task_id} is not exists.")
    return t


def _project(b: TodoBackend, project_id: str) -> dict[str, Any]:
    p = b.project(str(project_id).strip())
    if p is None:
        raise ToolError(f"Project {project_id} is not exists.")
    return p


def _view(t: dict[str, Any], keys: tuple[str, ...] = _TASK_KEYS) -> dict[str, Any]:
    return {k: t[k] for k in keys}


def get_projects(b: TodoBackend) -> list[dict[str, Any]]:
    return b.projects()


def update_project(b: TodoBackend, project_id: str, is_favorite: Any) -> dict[str, Any]:
    p = _project(b, project_id)
    text = str(is_favorite).strip().lower()
    if text not in ("true", "false"):
        raise ToolError(f"is_favorite should be 'True' or 'False', got {is_favorite!r}")
    b.set_favorite(p["id"], text == "true")
    return {"message": "Update the project successfully.", "project": _project(b, p["id"])}


def get_tasks(b: TodoBackend, project_id: str) -> list[dict[str, Any]]:
    p = _project(b, project_id)
    return [_view(t) for t in b.tasks(p["id"])]


def get_task_description(b: TodoBackend, task_id: str) -> dict[str, Any]:
    t = _task(b, task_id)
    return {"id": t["id"], "content": t["content"], "description": t["description"]}


def get_task_duration(b: TodoBackend, task_id: str) -> dict[str, Any]:
    t = _task(b, task_id)
    return {
        "id": t["id"],
        "content": t["content"],
        "duration": f"{t['duration']}({t['duration_unit']})",
    }


def complete_task(b: TodoBackend, task_id: str) -> dict[str, Any]:
    t = _task(b, task_id)
    b.complete(t["id"])
    return {
        "message": "Complete task successfully.",
        "task": _view(t, ("id", "order", "content", "priority", "due_date")),
    }


def update_task(b: TodoBackend, task_id: str, due_date: str) -> dict[str, Any]:
    t = _task(b, task_id)
    try:
        dt.date.fromisoformat(due_date)
    except ValueError:
        raise ToolError(
            f"due_date {due_date!r} is not a valid date, use the format YYYY-MM-DD"
        ) from None
    b.set_due(t["id"], due_date)
    return {"message": "Update the task successfully", "task": _view(_task(b, t["id"]))}


def delete_task(b: TodoBackend, task_id: str) -> dict[str, Any]:
    t = _task(b, task_id)
    b.delete(t["id"])
    return {"message": "Delete the task successfully.", "task": _view(t)}


_TID = schema(task_id=param("string", "the task id (from get_tasks)"))

TODO_TOOLS = Toolkit(
    [
        *user_context_tools(),
        Tool(
            "get_projects",
            "Get all projects in the Todoist account.",
            get_projects,
            schema(),
            "[{'id', 'name', 'color', 'order', 'is_favorite'}]",
        ),
        Tool(
            "update_project",
            "Mark a project as favorite or not.",
            update_project,
            schema(
                project_id=param("string", "the project id (from get_projects)"),
                is_favorite=param(
                    ["string", "boolean"], "'True' or 'False'", enum=["True", "False", True, False]
                ),
            ),
            "{'message', 'project'}",
        ),
        Tool(
            "get_tasks",
            "Get the active tasks of a project.",
            get_tasks,
            schema(project_id=param("string", "the project id (from get_projects)")),
            "[{'id', 'order', 'content', 'is_completed', 'priority', 'due_date'}]",
        ),
        Tool(
            "get_task_description",
            "Get the description of a task.",
            get_task_description,
            _TID,
            "{'id', 'content', 'description'}",
        ),
        Tool(
            "get_task_duration",
            "Get the duration of a task.",
            get_task_duration,
            _TID,
            "{'id', 'content', 'duration'} with duration as 'number(unit)'",
        ),
        Tool(
            "complete_task",
            "Mark a task as completed (it leaves the active task list).",
            complete_task,
            _TID,
            "{'message', 'task'}",
        ),
        Tool(
            "update_task",
            "Update the due date of a task.",
            update_task,
            schema(
                task_id=param("string", "the task id (from get_tasks)"),
                due_date=param("string", "the new due date, YYYY-MM-DD", pattern=DATE),
            ),
            "{'message', 'task'}",
        ),
        Tool("delete_task", "Delete a task.", delete_task, _TID, "{'message', 'task'}"),
        check_valid_actions_tool(),
        finish_tool(),
    ]
)
