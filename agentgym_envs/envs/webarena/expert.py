"""The scripted WebArena expert: follows a generated task's plan through the browser, finding
each element by role and name in the current observation (scrolling when it is off-screen)."""

from __future__ import annotations

import re
from typing import Any

from agentgym_envs.envs.webarena.env import WebArenaEnv
from agentgym_envs.envs.webarena.tasks import resolve

_LINE = re.compile(r"^\s*\[(\d+)\] (\S+) (.*)$")
MAX_SCROLLS = 6


def _name_of(rest: str) -> str:
    for quote in ("'", '"'):
        if rest.startswith(quote):
            end = rest.find(quote + " ", 1)
            return rest[1:end] if end > 0 else rest[1:].rstrip(quote)
    return rest


def find(observation: str, role: str, name: str, nth: int = 1) -> str | None:
    """The id of the ``nth`` (first by default) ``[id] role 'name'`` line in ``observation``."""
    seen = 0
    for line in observation.splitlines():
        match = _LINE.match(line)
        if match and match.group(2) == role and _name_of(match.group(3)) == name:
            seen += 1
            if seen == nth:
                return match.group(1)
    return None


class WebArenaExpert:
    """A policy ``(observation, info) -> reply`` for generated tasks (they carry a plan).

    Plan steps: ``["click", role, name]`` (``["click", role, name, n]`` for the n-th such
    element on the page, e.g. a project's sidebar "Issues" after the top bar's),
    ``["type", role, name, text, enter]``, ``["press", key]``, ``["go_back"]``,
    ``["goto", url]`` (a site's address, as a user types it) and ``["stop", answer]``.
    """

    def __init__(self, env: WebArenaEnv) -> None:
        self.env = env
        self._episode = -1
        self._step = 0
        self._scrolls = 0

    def __call__(self, observation: str, info: dict[str, Any]) -> str:
        env = self.env.unwrapped
        if env.episode != self._episode:
            self._episode, self._step, self._scrolls = env.episode, 0, 0
        plan = env.task.config.get("agentgym_solution") or [["stop", "N/A"]]
        step = plan[min(self._step, len(plan) - 1)]
        kind = step[0]
        if kind in ("click", "type"):
            nth = int(step[3]) if kind == "click" and len(step) > 3 else 1
            element = find(observation, step[1], step[2], nth)
            if element is None:
                if self._scrolls >= MAX_SCROLLS:
                    return self._say("stop [N/A]")
                self._scrolls += 1
                return self._say("scroll [down]")
            self._scrolls = 0
            self._step += 1
            if kind == "click":
                return self._say(f"click [{element}]")
            return self._say(f"type [{element}] [{step[3]}] [{int(step[4])}]")
        self._step += 1
        if kind == "press":
            return self._say(f"press [{step[1]}]")
        if kind == "go_back":
            return self._say("go_back")
        if kind == "goto":
            return self._say(f"goto [{env._to_shown(resolve(step[1], env._urls()))}]")
        return self._say(f"stop [{step[1] or 'Done'}]")

    @staticmethod
    def _say(action: str) -> str:
        return f"Let's think step-by-step. In summary, the next action I will perform is ```{action}```"
