"""Old names of renamed arguments, accepted for one release with a :class:`DeprecationWarning`."""

from __future__ import annotations

import warnings
from typing import TypeVar

T = TypeVar("T")


def renamed_argument(new: str, value: T | None, old: str, old_value: T | None) -> T | None:
    """The argument ``new``: ``value``, or ``old_value`` passed under its old name ``old``.

    Passing the old name warns with a :class:`DeprecationWarning` that names the new one;
    passing both is a :class:`TypeError`. Call it from the function that takes both keywords,
    so the warning points at that function's caller.
    """
    if old_value is None:
        return value
    if value is not None:
        raise TypeError(f"pass {new}= only: {old}= is its deprecated old name")
    warnings.warn(
        f"{old}= is deprecated and will be removed in the next release: pass {new}= instead",
        DeprecationWarning,
        stacklevel=3,
    )
    return old_value
