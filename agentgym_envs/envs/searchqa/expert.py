"""SearchQA's scripted expert: it answers by searching.

For a generated question it follows the question's plan: one search per hop, the fact read from
the returned passages with the hop's sentence pattern, the next hop's query built from that
fact; if a search does not show the fact, it searches again with the question itself. For a
loaded question (no plan) it searches the question once and then gives the first gold answer
(an oracle: real QA data has no plan to follow).
"""

from __future__ import annotations

import re
from typing import Any

from agentgym_envs.envs.searchqa.env import SearchQAEnv
from agentgym_envs.envs.searchqa.tasks import SearchQATask


class SearchQAExpert:
    def __init__(self, env: SearchQAEnv) -> None:
        self.env = env
        self._episode = -1
        self._facts: list[str] = []
        self._pending: int | None = None  # hop whose search result the next observation holds
        self._retried = False

    def _start(self) -> None:
        self._episode = self.env.episode
        self._facts, self._pending, self._retried = [], None, False

    def __call__(self, observation: str, info: dict[str, Any]) -> str:
        if self._episode != self.env.episode:
            self._start()
        task: SearchQATask = self.env.task  # type: ignore[assignment]
        plan = task.plan
        if plan is None:
            if self._pending is None:
                self._pending = 0
                return f"<think>I should look this up.</think>\n<search> {task.question} </search>"
            return f"<answer> {task.answers[0]} </answer>"
        if self._pending is not None:
            hop = plan.hops[self._pending]
            pattern = hop.pattern
            if plan.kind == "chain" and self._facts:
                pattern = pattern.replace("{0}", re.escape(self._facts[-1]))
            m = re.search(pattern, observation)
            if m:
                self._facts.append(m.group(1))
                self._retried = False
            elif not self._retried:
                self._retried = True
                return f"<search> {plan.question} </search>"
            else:
                return "<answer> unknown </answer>"
        step = len(self._facts)
        if step < len(plan.hops):
            self._pending = step
            query = plan.hops[step].query
            if plan.kind == "chain" and self._facts:
                query = query.replace("{0}", self._facts[-1])
            return f"<think>I need to search.</think>\n<search> {query} </search>"
        if plan.kind == "compare":
            years = [int(f) for f in self._facts]
            answer = plan.options[0] if years[0] < years[1] else plan.options[1]
        else:
            answer = self._facts[-1]
        return f"<think>I have the answer.</think>\n<answer> {answer} </answer>"
