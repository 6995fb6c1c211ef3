"""Wordle's feedback rules, shared by the env and its expert.

Two rules: real Wordle's (:func:`feedback`) and LMRL-Gym's (:func:`lmrl_feedback`), which
AgentGym serves.
"""

from __future__ import annotations

from collections.abc import Iterable

GREEN, YELLOW, ABSENT = "g", "y", "b"
WORD_LENGTH = 5


def feedback(guess: str, answer: str) -> str:
    """Real Wordle's per-letter feedback, written as AgentGym writes marks: ``"b g b y b"``.

    Greens are placed first; a letter is yellow only while the answer still has unmatched
    copies of it, so a repeated letter gets at most as many marks as the answer holds.
    """
    marks = [ABSENT] * WORD_LENGTH
    unmatched: dict[str, int] = {}
    for i, (g, a) in enumerate(zip(guess, answer)):
        if g == a:
            marks[i] = GREEN
        else:
            unmatched[a] = unmatched.get(a, 0) + 1
    for i, g in enumerate(guess):
        if marks[i] is ABSENT and unmatched.get(g, 0) > 0:
            marks[i] = YELLOW
            unmatched[g] -= 1
    return " ".join(marks)


def lmrl_feedback(guess: str, word: str) -> str:
    """LMRL-Gym's marks: ``g`` where the letters agree, else ``y`` if the letter is anywhere in
    ``word``, else ``b``. Every occurrence of a repeated letter is marked on its own
    (``speed`` against ``abide`` is ``b b y y y``), unlike real Wordle."""
    return " ".join(
        GREEN if g == w else YELLOW if g in word else ABSENT for g, w in zip(guess, word)
    )


def consistent(words: Iterable[str], guess: str, marks: str) -> list[str]:
    """The ``words`` (order kept) that would have given ``marks`` to ``guess`` under LMRL's rule.

    This is the set LMRL-Gym's letter-knowledge state admits after the guess: a green fixes a
    letter's position, a yellow puts the letter elsewhere, a black excludes it.
    """
    return [w for w in words if lmrl_feedback(guess, w) == marks]
