"""Bounded work per step: declared limits, a per-step work budget, and safe user regexes.

One mechanism for every family. :meth:`agentgym_envs.core.TextEnv.step` opens a
:func:`step_budget` around each action; code that loops over something whose size the agent
controls calls :func:`checkpoint` in the loop, and code that checks a size against a declared
limit calls :func:`check_limit`. Both raise :class:`LimitExceeded`, whose message names the
limit; ``step`` turns it (and a ``MemoryError``, ``RecursionError`` or ``OverflowError`` from
an agent-controlled size) into feedback with ``info["error"]``, never an exception.

User regular expressions go through :func:`compile_user_regex` / :func:`regex_search`, which
run them under a time limit (the ``regex`` package's ``timeout``), so catastrophic
backtracking such as ``(a+)+$`` costs at most that long.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

logger = logging.getLogger(__name__)

#: Seconds of work one step may take by default (pure-Python work that checks the budget).
DEFAULT_STEP_BUDGET = 10.0
#: Seconds one user regular expression may run on one text.
REGEX_TIMEOUT = 1.0
#: Longest user regular expression accepted.
MAX_REGEX_CHARS = 1_000

_deadline: ContextVar[tuple[float, float] | None] = ContextVar(
    "agentgym_step_deadline", default=None
)


class LimitExceeded(Exception):
    """An action asked for more than a declared limit allows; the message names the limit."""


class StepBudgetExceeded(LimitExceeded):
    """The step's work ran past its time budget."""


@contextmanager
def step_budget(seconds: float | None) -> Iterator[None]:
    """Give the work inside a budget of ``seconds`` (``None``: no budget) for :func:`checkpoint`."""
    if seconds is None:
        yield
        return
    token = _deadline.set((time.monotonic() + float(seconds), float(seconds)))
    try:
        yield
    finally:
        _deadline.reset(token)


def checkpoint() -> None:
    """Raise :class:`StepBudgetExceeded` when the current step is past its budget."""
    budget = _deadline.get()
    if budget is not None and time.monotonic() > budget[0]:
        raise StepBudgetExceeded(
            f"the action needs more work than the {budget[1]:g} s budget one step may use"
        )


def remaining() -> float | None:
    """Seconds left in the current step's budget (``None`` outside a budget)."""
    budget = _deadline.get()
    return None if budget is None else max(0.0, budget[0] - time.monotonic())


def check_limit(what: str, value: int, limit: int) -> None:
    """Raise :class:`LimitExceeded` naming ``what`` when ``value`` is above ``limit``."""
    if value > limit:
        raise LimitExceeded(f"{what} is {value}, above the limit of {limit}")


def compile_user_regex(pattern: str) -> Any:
    """Compile a user's regular expression (Python ``re`` syntax) for :func:`regex_search`.

    Raises ``ValueError`` with the reason for a pattern that does not compile and
    :class:`LimitExceeded` for one longer than :data:`MAX_REGEX_CHARS`.
    """
    check_limit("the regular expression's length", len(pattern), MAX_REGEX_CHARS)
    try:
        import regex
    except ImportError:  # pragma: no cover - regex is a dependency; re has no time limit
        import re

        logger.warning("the 'regex' package is missing: user regexes run without a time limit")
        try:
            return re.compile(pattern)
        except re.error as exc:
            raise ValueError(str(exc)) from None
    try:
        return regex.compile(pattern, flags=regex.VERSION0)
    except (regex.error, OverflowError, RecursionError) as exc:
        raise ValueError(str(exc)) from None


def regex_search(compiled: Any, text: str, timeout: float = REGEX_TIMEOUT) -> bool:
    """Whether ``compiled`` matches somewhere in ``text``, within ``timeout`` seconds.

    The timeout is also cut to what is left of the step's budget. Raises
    :class:`LimitExceeded` when the match runs out of time.
    """
    left = remaining()
    limit = timeout if left is None else max(0.001, min(timeout, left))
    try:
        return compiled.search(text, timeout=limit) is not None
    except TypeError:  # a plain ``re`` pattern (fallback): no timeout argument
        return compiled.search(text) is not None
    except TimeoutError:
        raise LimitExceeded(
            f"the regular expression ran past its {limit:g} s time limit on one cell "
            "(catastrophic backtracking?): simplify it"
        ) from None


def json_dumps_utf8(obj: Any, **kwargs: Any) -> str:
    """``json.dumps`` with non-ASCII text kept as it is, whose result always encodes as UTF-8:
    a text holding a lone surrogate (``"\\ud800"`` in a JSON body decodes to one) is written
    with ASCII escapes instead -- valid JSON that decodes back to the same string -- where
    UTF-8 encoding would fail."""
    import json

    text = json.dumps(obj, ensure_ascii=False, **kwargs)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(obj, ensure_ascii=True, **kwargs)
    return text


__all__ = [
    "DEFAULT_STEP_BUDGET",
    "MAX_REGEX_CHARS",
    "REGEX_TIMEOUT",
    "LimitExceeded",
    "StepBudgetExceeded",
    "check_limit",
    "checkpoint",
    "compile_user_regex",
    "json_dumps_utf8",
    "regex_search",
    "remaining",
    "step_budget",
]
