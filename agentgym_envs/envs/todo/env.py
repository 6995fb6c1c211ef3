"""The TODOList environment."""

from __future__ import annotations

from typing import Any

import numpy as np

from agentgym_envs.envs.todo.tasks import TodoTask, TodoTasks, expected_state
from agentgym_envs.envs.todo.tools import TODO_TOOLS
from agentgym_envs.envs.todo.world import TodoBackend, project_id, task_id
from agentgym_envs.tools import Tool, ToolEnv
from agentgym_envs.tools.answers import answer_matcher

HINT = (
    'If you want to get the project_id or task_id, please call "get_projects" or "get_tasks". '
    'Do not generate it by yourself which maybe wrong. If you are finished, you will call "finish" action.'
)
EXAMPLE = """Goal: Is Prepare for history quiz a task of School project? Please answer yes or no.

Thought: I need the id of the School project first.

Action: get_projects with Action Input: {}
Observation: [{'id': '12345', 'name': 'School', 'color': 'charcoal', 'order': 1, 'is_favorite': False}]

Thought: Now I will list the tasks of the School project.

Action: get_tasks with Action Input: {"project_id": "12345"}
Observation: [{'id': '123451', 'order': 1, 'content': 'Prepare for history quiz', 'is_completed': False, 'priority': 1, 'due_date': '2030-10-10'}, {'id': '123452', 'order': 2, 'content': 'Prepare for math quiz', 'is_completed': False, 'priority': 1, 'due_date': '2030-11-10'}]

Thought: Prepare for history quiz is in the School project.

Action: finish with Action Input: {"answer": "yes"}
Observation: yes
"""


class TodoEnv(ToolEnv):
    """Answer questions about, and make changes to, a Todoist-like task manager kept in SQLite.

    ## Description
    AgentGym's TODO (from AgentBoard's tool-operation tasks). AgentGym drives a live Todoist
    account; here every episode gets its own in-memory SQLite database holding AgentGym's
    starting account (5 projects, 15 tasks with due dates, priorities, durations and
    descriptions; most train tasks get a generated account of 4-6 projects instead, see
    :mod:`~agentgym_envs.envs.todo.accounts`), so episodes are independent and reproducible. Questions ask about tasks;
    operations complete, delete or reschedule tasks and mark projects as favorite.
    Identical to AgentGym in everything the tool envs share
    (:class:`~agentgym_envs.tools.env.ToolEnv`).
    Stand-ins: the Todoist account (AgentGym's starting account in SQLite; generated accounts in
    train) and the tasks (generated; AgentGym's item ids do not name these tasks).

    ## Action Space
    ``Action: <tool> with Action Input: {...}``. Tools (AgentBoard's todo
    set): ``get_user_current_date``, ``get_user_current_location``, ``get_projects``,
    ``update_project(project_id, is_favorite)``, ``get_tasks(project_id)``,
    ``get_task_description(task_id)``, ``get_task_duration(task_id)``,
    ``complete_task(task_id)``, ``update_task(task_id, due_date)``, ``delete_task(task_id)``,
    ``check_valid_actions``, ``finish(answer)`` (operations answer ``"done"``).
    Replies are read as AgentGym's servers read them (``parser``, see
    :class:`~agentgym_envs.tools.env.ToolEnv`).

    ## Observation Space
    ``Observation: <result>\\nGive me one action.``; an unknown id gives
    ``Task <id> is not exists.``.

    ## Starting State
    The task's starting account (AgentGym's for every test task) and current date (2015).

    ## Rewards
    As AgentGym's TODO server: before ``finish``, 1.0 once the answer is reached (its progress
    over the one answer subgoal); on ``finish``, 1.0 only if the answer is reached *and* the
    final account (projects and active tasks, without ids) equals the expected one, else 0.
    The step reward is the change of that score.
    The answer is compared, and ``info["agentgym_reward"]`` reported, as in every tool env
    (:class:`~agentgym_envs.tools.env.ToolEnv`).

    ## Episode End
    ``finish`` terminates. AgentGym's max rounds is 15.

    ## Information
    ``progress`` (AgentBoard's rate over the lookup, change and answer subgoals), ``goal``,
    ``tool``, ``error``; at the end ``answer`` and ``state_ok`` (final account as expected).
    ``success`` when the ``finish`` answer matches (``answer_match``) and the final account is
    right. ``agentgym_reward``: AgentGym's wire reward.

    ## Arguments
    ``train_size``: generated train tasks (default 600; test has AgentEval's 20).
    ``answer_match``, ``parser``: as in every tool env (:class:`~agentgym_envs.tools.env.ToolEnv`).

    ## Version History
    v0: initial release, with AgentGym's answer comparison, reply reading and wire reward by
    default (:class:`~agentgym_envs.tools.env.ToolEnv`).
    """

    family = "todo"
    toolkit = TODO_TOOLS
    hint = HINT
    example = EXAMPLE

    def __init__(
        self,
        train_size: int = 600,
        answer_match: str = "agentgym",
        parser: str = "agentgym",
        render_mode: str | None = None,
    ) -> None:
        super().__init__(TodoTasks(train_size), answer_match, parser, render_mode=render_mode)

    def _make_backend(self, task: TodoTask) -> TodoBackend:
        if isinstance(self.backend, TodoBackend):
            self.backend.close()
        return TodoBackend(task.current_date, task.current_location, task.account)

    def state_ok(self) -> bool:
        """Whether the account now is the state the task expects."""
        task: TodoTask = self.task  # type: ignore[assignment]
        return self.backend.state() == expected_state(task.changes, task.account)

    def _score(self, finished: bool) -> float:
        answered = bool(self.tracker.met and self.tracker.met[-1])
        if not finished:
            return 1.0 if answered else 0.0
        return 1.0 if answered and self.state_ok() else 0.0

    def _solved(self, answer: Any) -> bool:
        task: TodoTask = self.task  # type: ignore[assignment]
        return answer_matcher(self.answer_match)(answer, task.answer) and self.state_ok()

    def _result(self, text, before, *, error=None, tool=None, terminated=False):
        result = super()._result(text, before, error=error, tool=tool, terminated=terminated)
        if terminated:
            result.info["state_ok"] = self.state_ok()
        return result

    def close(self) -> None:
        if isinstance(self.backend, TodoBackend):
            self.backend.close()
        super().close()

    def _random_arguments(self, tool: Tool, rng: np.random.Generator) -> dict[str, Any]:
        account = self.task.account  # type: ignore[union-attr]
        p = int(rng.integers(len(account)))
        i = int(rng.integers(len(account[p][1])))
        t = account[p][1][i]
        if tool.name == "finish":
            choices: list[Any] = [
                "done",
                "yes",
                "no",
                t.due_date,
                t.content,
                account[p][0],
                int(rng.integers(0, 5)),
                f"{t.duration}(minute)",
            ]
            return {"answer": choices[int(rng.integers(len(choices)))]}
        values = {
            "project_id": project_id(p),
            "task_id": task_id(p, i),
            "is_favorite": "True" if rng.random() < 0.5 else "False",
            "due_date": f"2015-06-{int(rng.integers(1, 29)):02d}",
        }
        return {name: values[name] for name in tool.argument_names}
