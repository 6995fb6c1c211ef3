"""TODOList's offline backend: a Todoist-like task manager kept in SQLite.

AgentGym's TODO env drives a real Todoist account (a token, network, and a shared account
that every reset wipes and re-uploads). Here each episode gets its own in-memory SQLite
database (the standard library's ``sqlite3``), filled with AgentGym's starting account -- five
projects, fifteen tasks with due dates, priorities, durations and descriptions -- so episodes
never see each other's changes.

Task operations follow Todoist's REST v2: a completed task disappears from the active list,
``order`` values are kept (not renumbered), priorities run 1 (normal) to 4 (urgent).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

COLOR = "charcoal"


@dataclass(frozen=True)
class SeedTask:
    content: str
    due_date: str
    duration: int
    priority: int
    place: str
    tips: str


# AgentGym's projects.json account (names, dates, durations, priorities); descriptions are ours.
ACCOUNT: tuple[tuple[str, tuple[SeedTask, ...]], ...] = (
    (
        "Homework and Assignments",
        (
            SeedTask(
                "Solve algebra equations",
                "2015-06-01",
                60,
                1,
                "Study room",
                "Check each solution by substituting it back.",
            ),
            SeedTask(
                "Conduct a chemistry experiment",
                "2015-06-12",
                90,
                2,
                "School laboratory",
                "Wear goggles and record every measurement.",
            ),
            SeedTask(
                "Read and summarize a history chapter",
                "2015-06-06",
                45,
                3,
                "Library",
                "Write one sentence per section first.",
            ),
        ),
    ),
    (
        "Extracurricular Activities",
        (
            SeedTask(
                "Attend soccer practice",
                "2015-06-12",
                90,
                4,
                "School field",
                "Bring water and shin guards.",
            ),
            SeedTask(
                "Rehearse with the school band",
                "2015-06-02",
                60,
                4,
                "Music room",
                "Tune the instrument before rehearsal.",
            ),
            SeedTask(
                "Attend debate club meeting",
                "2015-06-08",
                60,
                1,
                "Room 204",
                "Prepare two arguments for each side.",
            ),
        ),
    ),
    (
        "Science Fair Project",
        (
            SeedTask(
                "Design and conduct a biology experiment",
                "2015-06-20",
                120,
                2,
                "Greenhouse",
                "Keep a control group.",
            ),
            SeedTask(
                "Prepare presentation for science fair",
                "2015-06-21",
                90,
                3,
                "Home office",
                "Keep it under ten slides.",
            ),
            SeedTask(
                "Write a research paper on the experiment",
                "2015-06-23",
                120,
                1,
                "Library",
                "Cite every source you use.",
            ),
        ),
    ),
    (
        "Household Chores",
        (
            SeedTask(
                "Clean the kitchen",
                "2015-06-20",
                45,
                2,
                "Kitchen",
                "Start with the dishes, finish with the floor.",
            ),
            SeedTask(
                "Do the laundry", "2015-06-22", 90, 3, "Laundry room", "Sort whites and colours."
            ),
            SeedTask(
                "Tidy up the living room",
                "2015-06-24",
                30,
                1,
                "Living room",
                "Put things back where they belong.",
            ),
            SeedTask(
                "Water the plants", "2015-06-24", 20, 4, "Balcony", "Water early in the morning."
            ),
        ),
    ),
    (
        "Picnic Preparation",
        (
            SeedTask(
                "Purchase picnic supplies",
                "2015-06-23",
                45,
                2,
                "Grocery store",
                "Bring the shopping list.",
            ),
            SeedTask(
                "Select picnic location and plan activities",
                "2015-06-25",
                60,
                3,
                "Central Park",
                "Check the weather forecast first.",
            ),
        ),
    ),
)
PROJECT_IDS = ("2335486841", "2335486852", "2335486867", "2335486873", "2335486889")
#: An account: ``(project name, tasks)`` in project order.
Account = tuple[tuple[str, tuple[SeedTask, ...]], ...]


def project_id(project_index: int) -> str:
    """The id of the project at ``project_index`` (Todoist-like digits)."""
    if project_index < len(PROJECT_IDS):
        return PROJECT_IDS[project_index]
    return str(2335486900 + 17 * project_index)


def task_id(project_index: int, task_index: int) -> str:
    return str(7200000000 + 1000 * project_index + 37 * task_index + 11)


def description(t: SeedTask) -> str:
    return f"- Place: {t.place}\n- Tips: {t.tips}"


_SCHEMA = """
CREATE TABLE projects (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, color TEXT NOT NULL, ord INTEGER NOT NULL,
    is_favorite INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE tasks (
    id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES projects(id), ord INTEGER NOT NULL,
    content TEXT NOT NULL, description TEXT NOT NULL, priority INTEGER NOT NULL, due_date TEXT,
    duration INTEGER, duration_unit TEXT, is_completed INTEGER NOT NULL DEFAULT 0
);
"""


class TodoBackend:
    """One episode's account: the user's date and city, and the SQLite database."""

    def __init__(
        self, current_date: str, current_location: str = "New York", account: Account = ACCOUNT
    ) -> None:
        self.current_date = current_date
        self.current_location = current_location
        self.db = sqlite3.connect(":memory:")
        self.db.executescript(_SCHEMA)
        for p, (name, tasks) in enumerate(account):
            self.db.execute(
                "INSERT INTO projects VALUES (?, ?, ?, ?, 0)", (project_id(p), name, COLOR, p + 1)
            )
            for i, t in enumerate(tasks):
                self.db.execute(
                    "INSERT INTO tasks VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'minute', 0)",
                    (
                        task_id(p, i),
                        project_id(p),
                        i + 1,
                        t.content,
                        description(t),
                        t.priority,
                        t.due_date,
                        t.duration,
                    ),
                )
        self.db.commit()

    # pickling: an sqlite3 connection cannot be pickled, its rows can
    def __getstate__(self) -> dict[str, Any]:
        return {
            "current_date": self.current_date,
            "current_location": self.current_location,
            "projects": self.db.execute("SELECT * FROM projects").fetchall(),
            "tasks": self.db.execute("SELECT * FROM tasks").fetchall(),
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.current_date = state["current_date"]
        self.current_location = state["current_location"]
        self.db = sqlite3.connect(":memory:")
        self.db.executescript(_SCHEMA)
        self.db.executemany("INSERT INTO projects VALUES (?, ?, ?, ?, ?)", state["projects"])
        self.db.executemany(
            "INSERT INTO tasks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", state["tasks"]
        )
        self.db.commit()

    def close(self) -> None:
        self.db.close()

    # -- queries -------------------------------------------------------------------------
    def projects(self) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT id, name, color, ord, is_favorite FROM projects ORDER BY ord"
        ).fetchall()
        return [
            {"id": r[0], "name": r[1], "color": r[2], "order": r[3], "is_favorite": bool(r[4])}
            for r in rows
        ]

    def project(self, project_id: str) -> dict[str, Any] | None:
        return next((p for p in self.projects() if p["id"] == project_id), None)

    def tasks(self, project_id: str | None = None) -> list[dict[str, Any]]:
        sql = (
            "SELECT t.id, t.ord, t.content, t.is_completed, t.priority, t.due_date, t.project_id, t.description, "
            "t.duration, t.duration_unit FROM tasks t JOIN projects p ON p.id = t.project_id WHERE t.is_completed = 0"
        )
        args: tuple[Any, ...] = ()
        if project_id is not None:
            sql += " AND t.project_id = ?"
            args = (project_id,)
        rows = self.db.execute(sql + " ORDER BY p.ord, t.ord", args).fetchall()
        keys = (
            "id",
            "order",
            "content",
            "is_completed",
            "priority",
            "due_date",
            "project_id",
            "description",
            "duration",
            "duration_unit",
        )
        out = []
        for r in rows:
            d = dict(zip(keys, r))
            d["is_completed"] = bool(d["is_completed"])
            out.append(d)
        return out

    def task(self, task_id: str) -> dict[str, Any] | None:
        return next((t for t in self.tasks() if t["id"] == task_id), None)

    # -- updates -------------------------------------------------------------------------
    def set_favorite(self, project_id: str, favorite: bool) -> None:
        self.db.execute(
            "UPDATE projects SET is_favorite = ? WHERE id = ?", (int(favorite), project_id)
        )
        self.db.commit()

    def complete(self, task_id: str) -> None:
        self.db.execute("UPDATE tasks SET is_completed = 1 WHERE id = ?", (task_id,))
        self.db.commit()

    def delete(self, task_id: str) -> None:
        self.db.execute("DELETE FROM tasks WHERE id = ?", (task_id,))
        self.db.commit()

    def set_due(self, task_id: str, due_date: str) -> None:
        self.db.execute("UPDATE tasks SET due_date = ? WHERE id = ?", (due_date, task_id))
        self.db.commit()

    def state(self) -> dict[str, list[dict[str, Any]]]:
        """The account as AgentBoard grades it: no ids, active tasks only, in project order."""
        projects = self.projects()
        names = {p["id"]: p["name"] for p in projects}
        return {
            "projects": [
                {k: p[k] for k in ("name", "color", "order", "is_favorite")} for p in projects
            ],
            "tasks": [
                {
                    "project": names[t["project_id"]],
                    "order": t["order"],
                    "content": t["content"],
                    "priority": t["priority"],
                    "due_date": t["due_date"],
                    "duration": t["duration"],
                }
                for t in self.tasks()
            ],
        }


def initial_state(account: Account = ACCOUNT) -> dict[str, list[dict[str, Any]]]:
    """:meth:`TodoBackend.state` of a starting account, computed from the account data alone."""
    return {
        "projects": [
            {"name": name, "color": COLOR, "order": p + 1, "is_favorite": False}
            for p, (name, _) in enumerate(account)
        ],
        "tasks": [
            {
                "project": name,
                "order": i + 1,
                "content": t.content,
                "priority": t.priority,
                "due_date": t.due_date,
                "duration": t.duration,
            }
            for name, tasks in account
            for i, t in enumerate(tasks)
        ],
    }
