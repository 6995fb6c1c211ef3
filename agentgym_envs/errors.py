"""Errors whose message says the mend.

Each error is one line: what went wrong and what to do about it.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Iterable
from types import ModuleType


class AgentGymError(Exception):
    """Base class of every error this package raises on purpose."""


class MissingExtraError(AgentGymError, ImportError):
    """A family's optional dependency is not installed."""


class BadTaskError(AgentGymError, ValueError):
    """A task id, split or reset option that does not exist."""


class BadDataError(AgentGymError, ValueError):
    """A data path or file that cannot be used."""


class UnknownEnvError(AgentGymError, KeyError):
    """An env id that is not registered."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


def require(module: str, extra: str) -> ModuleType:
    """Import ``module`` or raise a one-line :class:`MissingExtraError` naming the extra."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(
            f"{module} is not installed (needed by this environment): "
            f'pip install "agentgym-envs[{extra}]"'
        ) from exc


def unknown_name(
    kind: str,
    name: str,
    known: Iterable[str],
    *,
    compare: Callable[[str], str] | None = None,
    otherwise: str | None = None,
) -> str:
    """A message for an unknown ``name`` that suggests the closest known one.

    Names are matched as they are, then ignoring case, then as a part of a known name.
    ``compare`` gives the part of a name that is matched (``"AgentGym/Maze-v0"`` ->
    ``"Maze-v0"``; the suggestion is the whole known name). ``otherwise`` is said when no name
    is close (default: the known names).
    """
    part = compare or (lambda text: text)
    by_part = {part(k): k for k in known}
    close = _closest(part(name), list(by_part))
    if close is not None:
        return f"unknown {kind} {name!r}: did you mean {by_part[close]!r}?"
    return (
        f"unknown {kind} {name!r}: {otherwise or 'known: ' + ', '.join(sorted(by_part.values()))}"
    )


def _closest(name: str, known: list[str]) -> str | None:
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
    if not close:
        lowered = {k.lower(): k for k in known}
        close = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.4)
        close = [lowered[c] for c in close] or [v for k, v in lowered.items() if name.lower() in k]
    return close[0] if close else None
