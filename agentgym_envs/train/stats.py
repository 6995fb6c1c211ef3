"""95% confidence intervals: Wilson's for a success rate, a percentile bootstrap for a mean."""

from __future__ import annotations

import math
from collections.abc import Sequence

Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for ``successes`` out of ``n`` (``(0, 1)`` when ``n`` is 0)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo, hi = max(0.0, centre - half), min(1.0, centre + half)
    return (round(min(lo, p), 6), round(max(hi, p), 6))


def bootstrap_mean(
    values: Sequence[float], *, rounds: int = 2000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` (seeded: same input, same CI)."""
    import numpy as np

    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return (0.0, 0.0)
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, data.size, size=(rounds, data.size))].mean(axis=1)
    tail = (1 - level) / 2 * 100
    return (float(np.percentile(means, tail)), float(np.percentile(means, 100 - tail)))


def mcnemar(before: Sequence[bool], after: Sequence[bool]) -> float:
    """Exact two-sided McNemar p-value for paired successes on the same items."""
    if len(before) != len(after):
        raise ValueError("paired results need the same items in the same order")
    gained = sum(1 for a, b in zip(before, after) if b and not a)
    lost = sum(1 for a, b in zip(before, after) if a and not b)
    n = gained + lost
    if n == 0:
        return 1.0
    k = min(gained, lost)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def summary(successes: Sequence[bool], scores: Sequence[float]) -> dict[str, object]:
    """``success``, ``success_ci``, ``score``, ``score_ci`` and ``n`` of one set of episodes."""
    n = len(successes)
    wins = int(sum(bool(s) for s in successes))
    return {
        "n": n,
        "success": wins / n if n else 0.0,
        "success_ci": list(wilson(wins, n)),
        "score": float(sum(scores) / len(scores)) if scores else 0.0,
        "score_ci": list(bootstrap_mean(scores)),
    }


__all__ = ["bootstrap_mean", "mcnemar", "summary", "wilson"]
