"""TODOList's tasks: AgentGym-style questions and operations on the Todoist-like account.

Kinds follow AgentGym's todo data: questions (due date, priority, place, duration, which
project holds a task, is a task in a project, counts and lists by date or priority, total
duration) and operations (complete, delete, reschedule relative to today, mark a project as
favorite, reschedule then count). Operation tasks answer ``"done"``; every task also fixes the
expected final account state, computed here from the starting account and the task's changes
(independently of the SQLite backend the agent drives).
"""

from __future__ import annotations

import copy
import datetime as dt
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentgym_envs.envs.todo.accounts import generate_account
from agentgym_envs.envs.todo.world import (
    ACCOUNT,
    Account,
    SeedTask,
    initial_state,
    project_id,
    task_id,
)
from agentgym_envs.spec import family_record
from agentgym_envs.tools import PlanStep, Subgoal, ToolTask
from agentgym_envs.tools.tasks import GeneratedToolTasks

TEST_SIZE = 20  # AgentEval's TODO split
TRAIN_SIZE = 600
DATES = ("2015-06-01", "2015-06-01", "2015-06-10", "2015-06-05", "2015-05-31")
_PRIORITY_WORDS = {1: "1 (normal)", 2: "2", 3: "3", 4: "4 (urgent)"}


@dataclass(frozen=True)
class TodoTask(ToolTask):
    """A question or operation, with the user's date and the changes the task asks for."""

    current_date: str = "2015-06-01"
    current_location: str = "New York"
    #: ``(op, task content or project name, value)``: complete / delete / due / favorite.
    changes: tuple[tuple[str, str, Any], ...] = ()
    #: The starting account (AgentGym's for the test split, mostly generated for train).
    account: Account = ACCOUNT


def expected_state(
    changes: tuple[tuple[str, str, Any], ...], account: Account = ACCOUNT
) -> dict[str, list[dict[str, Any]]]:
    """The account after ``changes``, as :meth:`TodoBackend.state` reports it."""
    state = copy.deepcopy(initial_state(account))
    for op, target, value in changes:
        if op == "favorite":
            for p in state["projects"]:
                if p["name"] == target:
                    p["is_favorite"] = bool(value)
        elif op in ("complete", "delete"):
            state["tasks"] = [t for t in state["tasks"] if t["content"] != target]
        elif op == "due":
            for t in state["tasks"]:
                if t["content"] == target:
                    t["due_date"] = value
    return state


class _Builder:
    def __init__(self, today: str, account: Account) -> None:
        self.today = today
        self.acc = account
        self.steps: list[PlanStep] = []
        self.subgoals: list[Subgoal] = []
        self.changes: list[tuple[str, str, Any]] = []

    def call(self, tool: str, args: dict, thought: str, reached: object = None) -> None:
        self.steps.append(PlanStep(tool, args, thought))
        if reached is not None:
            self.subgoals.append(Subgoal(reached, tool, thought))

    def date(self) -> None:
        self.call("get_user_current_date", {}, "I need today's date.", self.today)

    def projects(self, name: str | None = None) -> None:
        self.call("get_projects", {}, "I need the project ids.", {"name": name} if name else None)

    def tasks(self, p: int) -> None:
        name = self.acc[p][0]
        self.call(
            "get_tasks",
            {"project_id": project_id(p)},
            f"I will list the tasks of {name}.",
            {"content": self.acc[p][1][0].content},
        )

    def finish(self, answer: object) -> tuple[tuple[PlanStep, ...], tuple[Subgoal, ...]]:
        self.steps.append(PlanStep("finish", {"answer": answer}, f"The answer is {answer}."))
        self.subgoals.append(Subgoal(answer, None, "the answer"))
        return tuple(self.steps), tuple(self.subgoals)


def _pick_task(rng: random.Random, acc: Account) -> tuple[int, int, SeedTask]:
    p = rng.randrange(len(acc))
    i = rng.randrange(len(acc[p][1]))
    return p, i, acc[p][1][i]


def _shift(date: str, days: int) -> str:
    return (dt.date.fromisoformat(date) + dt.timedelta(days=days)).isoformat()


Kind = Callable[[random.Random, _Builder], tuple[str, object]]


def k_due_date(rng, b):
    p, _, t = _pick_task(rng, b.acc)
    b.projects(b.acc[p][0])
    b.tasks(p)
    return (
        f"When is the due date of {t.content} in {b.acc[p][0]}? Please provide the answer in the YYYY-MM-DD format.",
        t.due_date,
    )


def k_priority(rng, b):
    p, _, t = _pick_task(rng, b.acc)
    b.projects(b.acc[p][0])
    b.tasks(p)
    return (
        f"What is the priority of the task {t.content} in {b.acc[p][0]}? Please answer with a number from 1 (normal) to 4 (urgent).",
        t.priority,
    )


def k_place(rng, b):
    p, i, t = _pick_task(rng, b.acc)
    b.projects(b.acc[p][0])
    b.tasks(p)
    b.call(
        "get_task_description",
        {"task_id": task_id(p, i)},
        "The description says where it takes place.",
        {"content": t.content},
    )
    return (
        f"Where should I go to {t.content[0].lower() + t.content[1:]}? Please answer with the place only.",
        t.place,
    )


def k_duration(rng, b):
    p, i, t = _pick_task(rng, b.acc)
    b.projects(b.acc[p][0])
    b.tasks(p)
    b.call(
        "get_task_duration",
        {"task_id": task_id(p, i)},
        "I will get its duration.",
        {"duration": f"{t.duration}(minute)"},
    )
    return (
        f"How long will it take to {t.content[0].lower() + t.content[1:]}? Please answer in the format of 'number(unit)'.",
        f"{t.duration}(minute)",
    )


def k_which_project(rng, b):
    p, _, t = _pick_task(rng, b.acc)
    b.projects()
    for q in range(p + 1):
        b.tasks(q)
    return (
        f"Which project does the task {t.content} belong to? Please answer with the project name.",
        b.acc[p][0],
    )


def k_in_project(rng, b):
    p = rng.randrange(len(b.acc))
    yes = rng.random() < 0.5
    if yes:
        t = rng.choice(b.acc[p][1])
    else:
        t = rng.choice([x for q, (_, ts) in enumerate(b.acc) if q != p for x in ts])
    b.projects(b.acc[p][0])
    b.tasks(p)
    return (
        f"Is {t.content} a task of the {b.acc[p][0]} project? Please answer yes or no.",
        "yes" if yes else "no",
    )


def k_count_before(rng, b):
    p = rng.choice([q for q in range(len(b.acc)) if len(b.acc[q][1]) >= 3])
    date = rng.choice(sorted({t.due_date for t in b.acc[p][1]}))
    n = sum(1 for t in b.acc[p][1] if t.due_date < date)
    b.projects(b.acc[p][0])
    b.tasks(p)
    return (
        f"How many tasks in {b.acc[p][0]} are due before {date}? Please answer with a number.",
        n,
    )


def k_list_priority(rng, b):
    while True:
        p = rng.randrange(len(b.acc))
        k = rng.randint(1, 4)
        names = sorted(t.content for t in b.acc[p][1] if t.priority == k)
        if names:
            break
    b.projects(b.acc[p][0])
    b.tasks(p)
    return (
        f"Which tasks in {b.acc[p][0]} have priority {_PRIORITY_WORDS[k]}? Please answer with a list of task names like ['task1', 'task2'].",
        names,
    )


def k_total_duration(rng, b):
    counts = {k: sum(t.priority == k for _, ts in b.acc for t in ts) for k in range(1, 5)}
    # the plan (projects, every project's tasks, each duration, finish) must fit 15 rounds
    k = rng.choice([k for k, n in counts.items() if 1 <= n <= 13 - len(b.acc)])
    b.projects()
    total = 0
    for p in range(len(b.acc)):
        b.tasks(p)
    for p, (_, tasks) in enumerate(b.acc):
        for i, t in enumerate(tasks):
            if t.priority == k:
                b.call(
                    "get_task_duration",
                    {"task_id": task_id(p, i)},
                    f"I need the duration of {t.content}.",
                    {"duration": f"{t.duration}(minute)"},
                )
                total += t.duration
    return (
        f"What is the total duration needed to complete all tasks with priority {k} in the Todoist account? Please answer in the format of 'number(unit)'.",
        f"{total}(minute)",
    )


def k_overdue(rng, b):
    while True:
        p = rng.randrange(len(b.acc))
        names = sorted(t.content for t in b.acc[p][1] if t.due_date < b.today)
        if names:
            break
    b.date()
    b.projects(b.acc[p][0])
    b.tasks(p)
    return (
        f"Which tasks in {b.acc[p][0]} are overdue (due before today)? Please answer with a list of task names like ['task1', 'task2'].",
        names,
    )


def k_complete(rng, b):
    p, i, t = _pick_task(rng, b.acc)
    b.projects(b.acc[p][0])
    b.tasks(p)
    b.call(
        "complete_task",
        {"task_id": task_id(p, i)},
        f"I will mark {t.content} as completed.",
        {"message": "Complete task successfully."},
    )
    b.changes.append(("complete", t.content, None))
    return f"Finally, I have completed the task {t.content}, please mark it as completed.", "done"


def k_delete(rng, b):
    p, i, t = _pick_task(rng, b.acc)
    b.projects(b.acc[p][0])
    b.tasks(p)
    b.call(
        "delete_task",
        {"task_id": task_id(p, i)},
        f"I will delete {t.content}.",
        {"message": "Delete the task successfully."},
    )
    b.changes.append(("delete", t.content, None))
    return (
        f"I no longer need to {t.content[0].lower() + t.content[1:]}. Please delete this task.",
        "done",
    )


def k_reschedule(rng, b):
    p, i, t = _pick_task(rng, b.acc)
    days = rng.choice([1, 2, 3, 7])
    new = _shift(b.today, days)
    when = {
        1: "tomorrow",
        2: "the day after tomorrow",
        3: "three days from today",
        7: "one week from today",
    }[days]
    b.date()
    b.projects(b.acc[p][0])
    b.tasks(p)
    b.call(
        "update_task",
        {"task_id": task_id(p, i), "due_date": new},
        f"The new due date is {new}.",
        {"due_date": new},
    )
    b.changes.append(("due", t.content, new))
    return f"I can't finish {t.content} in time. Please change its due date to {when}.", "done"


def k_favorite(rng, b):
    p, _, t = _pick_task(rng, b.acc)
    b.projects()
    for q in range(p + 1):
        b.tasks(q)
    b.call(
        "update_project",
        {"project_id": project_id(p), "is_favorite": "True"},
        f"{b.acc[p][0]} holds the task; I will mark it as favorite.",
        {"message": "Update the project successfully."},
    )
    b.changes.append(("favorite", b.acc[p][0], True))
    return f"Please mark the project that includes the task {t.content} as a favorite.", "done"


def k_reschedule_then_count(rng, b):
    p = rng.choice([q for q in range(len(b.acc)) if len(b.acc[q][1]) >= 3])
    i = rng.randrange(len(b.acc[p][1]))
    t = b.acc[p][1][i]
    new = _shift(t.due_date, -1)
    limit = rng.choice(sorted({x.due_date for x in b.acc[p][1]}))
    dues = [x.due_date if x is not t else new for x in b.acc[p][1]]
    n = sum(1 for d in dues if d <= limit)
    b.projects(b.acc[p][0])
    b.tasks(p)
    b.call(
        "update_task",
        {"task_id": task_id(p, i), "due_date": new},
        f"The new due date is {new}.",
        {"due_date": new},
    )
    b.changes.append(("due", t.content, new))
    goal = (
        f"Please update the due date of {t.content} to be one day earlier. After that, how many tasks in "
        f"{b.acc[p][0]} are due on or before {limit}? Please answer with a number."
    )
    return goal, n


KINDS: dict[str, Kind] = {
    "due_date": k_due_date,
    "priority": k_priority,
    "place": k_place,
    "duration": k_duration,
    "which_project": k_which_project,
    "in_project": k_in_project,
    "count_before": k_count_before,
    "list_priority": k_list_priority,
    "total_duration": k_total_duration,
    "overdue": k_overdue,
    "complete": k_complete,
    "delete": k_delete,
    "reschedule": k_reschedule,
    "favorite": k_favorite,
    "reschedule_then_count": k_reschedule_then_count,
}
OPERATIONS = ("complete", "delete", "reschedule", "favorite", "reschedule_then_count")


def make_task(split: str, task_id_: int) -> TodoTask:
    rng = random.Random(f"agentgym-envs/todo/{split}/{task_id_}")
    names = list(KINDS)
    kind = names[task_id_ % len(names)] if split == "test" else rng.choice(names)
    today = rng.choice(DATES)
    if kind == "overdue":
        today = "2015-06-10"
    account = ACCOUNT if split == "test" or rng.random() < 0.25 else generate_account(rng)
    builder = _Builder(today, account)
    goal, answer = KINDS[kind](rng, builder)
    plan, subgoals = builder.finish(answer)
    difficulty = (
        "hard" if kind in OPERATIONS or kind in ("total_duration", "which_project") else "easy"
    )
    subgoals = tuple(s for s in subgoals if s.value is not None)
    return TodoTask(
        task_id_,
        split,
        goal,
        answer,
        subgoals,
        plan,
        difficulty,
        kind,
        current_date=today,
        changes=tuple(builder.changes),
        account=account,
    )


class TodoTasks(GeneratedToolTasks):
    """Generated questions and operations: test 20 (AgentEval's size), train 600."""

    item_prefix = family_record("todo").item_prefix
    train_size = TRAIN_SIZE
    test_size = TEST_SIZE
    make_task = staticmethod(make_task)
