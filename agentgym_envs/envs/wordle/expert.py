"""Wordle's scripted experts.

LMRL game: a minimax decision tree over the words still consistent with the feedback; the
hidden word is re-drawn at every guess among exactly those words, so a guess that wins against
every possible word within the tries left wins against the draws too. Classic game: keep the
words consistent with all feedback and split them best.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Any, ClassVar

from agentgym_envs.envs.wordle.env import WordleEnv
from agentgym_envs.envs.wordle.rules import feedback, lmrl_feedback

_POOL = 300  # extra probe words considered besides the candidates (classic game)


class LmrlPlanner:
    """Optimal worst-case guesses for LMRL-Gym's Wordle over a small vocabulary.

    :meth:`worst` is the number of guesses that solve every word of a candidate set in the
    worst case; :meth:`best` the guess that achieves it (ties: a candidate, then the smaller
    expected remainder, then vocabulary order).
    """

    def __init__(self, words: tuple[str, ...]) -> None:
        self.words = tuple(dict.fromkeys(words))
        self.worst = lru_cache(maxsize=None)(self._worst)

    def _parts(self, guess: str, candidates: frozenset[str]) -> list[frozenset[str]]:
        groups: dict[str, set[str]] = {}
        for word in candidates:
            if word != guess:
                groups.setdefault(lmrl_feedback(guess, word), set()).add(word)
        return [frozenset(g) for g in groups.values()]

    def _score(self, guess: str, candidates: frozenset[str]) -> tuple[int, bool, float] | None:
        parts = self._parts(guess, candidates)
        if guess not in candidates and len(parts) == 1:
            return None  # learns nothing
        worst = 1 + max((self.worst(p) for p in parts), default=0)
        expected = sum(len(p) ** 2 for p in parts) / len(candidates)
        return worst, guess not in candidates, expected

    def _worst(self, candidates: frozenset[str]) -> int:
        if len(candidates) == 1:
            return 1
        scores = (self._score(g, candidates) for g in self.words)
        return min(s[0] for s in scores if s is not None)

    def best(self, candidates: list[str]) -> str:
        pool = frozenset(candidates)
        if len(pool) == 1:
            return candidates[0]
        ranked = []
        for i, guess in enumerate(self.words):
            score = self._score(guess, pool)
            if score is not None:
                ranked.append((*score, i, guess))
        return min(ranked)[-1]


@lru_cache(maxsize=8)
def lmrl_planner(words: tuple[str, ...]) -> LmrlPlanner:
    """One planner per vocabulary, shared by every expert in the process."""
    return LmrlPlanner(words)


class WordleExpert:
    """LMRL game: :class:`LmrlPlanner`. Classic game: the guess that leaves the fewest
    expected candidates (candidates preferred)."""

    #: Best first guess per vocabulary, shared by every expert in the process.
    _openers: ClassVar[dict[tuple[str, ...], str]] = {}

    def __init__(self, env: WordleEnv) -> None:
        self.env = env

    def _candidates(self) -> list[str]:
        words = list(self.env.tasks.answers)
        for guess, marks in self.env.history:
            if marks != "invalid word":
                words = [w for w in words if feedback(guess, w) == marks]
        return words

    @staticmethod
    def _cost(guess: str, candidates: list[str]) -> float:
        sizes = Counter(feedback(guess, c) for c in candidates)
        return sum(n * n for n in sizes.values()) / len(candidates)

    def _probes(self, candidates: list[str]) -> list[str]:
        letters = Counter(ch for w in candidates for ch in set(w))
        pool = sorted(self.env.tasks.answers, key=lambda w: -sum(letters[c] for c in set(w)))
        return pool[:_POOL]

    def _best(self, candidates: list[str]) -> str:
        if len(candidates) <= 2:
            return candidates[0]
        sample = candidates if len(candidates) <= 400 else candidates[:: len(candidates) // 400 + 1]
        options = list(dict.fromkeys(candidates[:400] + self._probes(candidates)))
        return min(options, key=lambda g: (self._cost(g, sample), g not in candidates, g))

    def __call__(self, observation: str, info: dict[str, Any]) -> str:
        if self.env.game == "lmrl":
            candidates = self.env.filtered_vocab
            return " ".join(lmrl_planner(tuple(self.env.vocabulary)).best(candidates))
        candidates = self._candidates()
        if not candidates:  # the answer is outside our list (user vocab): fall back to guesses
            return " ".join(min(self.env.vocabulary))
        if not self.env.history:
            key = tuple(self.env.tasks.answers)
            if key not in self._openers:
                self._openers[key] = self._best(candidates)
            return " ".join(self._openers[key])
        return " ".join(self._best(candidates))
