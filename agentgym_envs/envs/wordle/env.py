"""The Wordle environment: AgentGym's (LMRL-Gym's) game by default, real Wordle as a variant."""

from __future__ import annotations

import random
import re
import string
from pathlib import Path
from typing import Any

import numpy as np

from agentgym_envs.core import StepResult, TextEnv
from agentgym_envs.deprecation import renamed_argument
from agentgym_envs.envs.wordle.rules import GREEN, WORD_LENGTH, consistent, feedback, lmrl_feedback
from agentgym_envs.envs.wordle.tasks import (
    LmrlWordleTask,
    LmrlWordleTasks,
    VocabFileWordleTasks,
    WordleTask,
    embedded_tasks,
    read_vocab_file,
)
from agentgym_envs.tools.tool import Tool, param, schema

MAX_GUESSES = 6
GAMES = ("lmrl", "classic")
INVALID = "invalid word"
LMRL_START = "Let's start Wordle!"
_SOLVED = " ".join([GREEN] * WORD_LENGTH)
_LETTERS = frozenset(string.ascii_lowercase)
_SPACED = re.compile(r"^([a-z])(?: ([a-z])){4}$")
_ACTION_PREFIX = re.compile(r"^(?:guess|action)\s*[:\s]\s*", re.IGNORECASE)


def parse_guess(action: str) -> str:
    """Classic game: ``crane``, ``c r a n e``, ``CRANE`` and ``guess: crane`` all mean ``crane``."""
    text = _ACTION_PREFIX.sub("", action.strip()).strip().strip(".`'\"").lower()
    if _SPACED.match(text):
        return text.replace(" ", "")
    return text


def lmrl_word(action: str) -> str:
    """AgentGym's reading of a guess: outer whitespace and every space removed, nothing else
    (``c r a n e`` is ``crane``; ``CRANE`` and ``crane.`` stay as they are, and are invalid)."""
    return action.strip().replace(" ", "")


class WordleEnv(TextEnv):
    """Guess a hidden five-letter word in six tries.

    ## Description
    ``game="lmrl"`` (default): AgentGym's Wordle, which is LMRL-Gym's game. Its vocabulary is
    LMRL-Gym's 40-word ``tweet_words`` list. There is no fixed hidden word: at every valid guess
    the word is drawn afresh, with ``random.Random(seed)``, among the words still consistent
    with all feedback so far, and the guess is marked against it. Task ``wordle_N`` is AgentGym's
    reset ``seed`` N; the same seed and guesses give AgentGym's transcript byte for byte
    (checked against its server, ``tests/fixtures/agentgym/wordle.json``).

    ``game="classic"``: real Wordle with a fixed hidden word from a large common-word
    vocabulary, for training diversity; not an AgentGym game (item ids ``wordle_classic_N``).

    ## Action Space
    A five-letter word of the vocabulary. LMRL game: spaces are removed (``c r a n e``), nothing
    else is forgiven (``CRANE`` or ``crane.`` is invalid), as AgentGym reads it. Classic game:
    also ``CRANE``, ``guess: crane``. A guess that is not a vocabulary word is answered
    ``invalid word`` (``info["error"]`` says why) and, as in AgentGym, uses up one of the tries.

    ## Observation Space
    LMRL game, as AgentGym's server sends it: reset ``Let's start Wordle!``; a step one mark per
    letter and a newline, ``b g b b y\\n`` (``g`` right place, ``y`` in the word elsewhere --
    every occurrence of a repeated letter is marked on its own -- ``b`` not in the word), or
    ``invalid word``. Classic game: reset ``Let's start Wordle! You have 6 guesses.``, marks
    without the newline, a repeated letter marked only as often as the hidden word holds it.

    ## Starting State
    LMRL game: every vocabulary word is possible; the draws are seeded by the task's seed.
    Classic game: the task's hidden word.

    ## Rewards
    1 on the guess that solves the word, 0 otherwise: AgentGym's server reward (LMRL's reward
    in [-1, 0] shifted to [0, 1]).

    ## Episode End
    Terminated when solved or after six tries (invalid words included). AgentGym's max rounds
    is 8.

    ## Information
    ``success``, ``score`` (1.0 solved), ``guesses_left``, ``history`` (guess, marks) pairs;
    LMRL game: ``words_left`` (words still consistent with the feedback); ``answer`` once
    solved (classic game: once ended); at reset, ``allowed_words``: every word the game
    accepts as a guess (LMRL's game knows only its 40 words: ``crane`` is not one). The
    :attr:`filtered_vocab` property lists the words still consistent with the feedback (what
    AgentGym's ``/filtered_vocab`` returns).

    ## Arguments
    ``game``: ``"lmrl"`` (default) or ``"classic"``. ``data_path``: a vocabulary file (one
    word per line, LMRL-Gym's format) instead of the embedded one. LMRL game: train seeds
    0..3498, test seeds 3499..3523. Classic game: embedded vocabulary of 3,524 common answers
    (test split 25 words, the rest train), guesses from 11,179 words; with ``data_path``, task
    N's word is ``random.Random(N).choice`` of the file's words. ``vocab_path``:
    ``data_path``'s old name (deprecated, removed in the next release).

    ## Version History
    v0: AgentGym parity: LMRL-Gym's game (40 words, re-drawn hidden word, LMRL marking, texts
    with trailing newlines, invalid words use a try); real Wordle moved to ``game="classic"``.
    """

    family = "wordle"

    def __init__(
        self,
        game: str = "lmrl",
        data_path: str | Path | None = None,
        render_mode: str | None = None,
        *,
        vocab_path: str | Path | None = None,
    ) -> None:
        data_path = renamed_argument("data_path", data_path, "vocab_path", vocab_path)
        if game not in GAMES:
            raise ValueError(f"unknown wordle game {game!r}: use 'lmrl' or 'classic'")
        if game == "lmrl":
            tasks = LmrlWordleTasks(read_vocab_file(data_path)) if data_path else LmrlWordleTasks()
            self.vocabulary: tuple[str, ...] = tasks.answers
        else:
            tasks = VocabFileWordleTasks(data_path) if data_path else embedded_tasks()
            self.vocabulary = tuple(sorted(tasks.guesses))
        super().__init__(tasks, render_mode=render_mode)
        self.game = game
        self._valid = tasks.guesses
        self._allowed = tuple(sorted(tasks.guesses))
        self.history: list[tuple[str, str]] = []
        self._candidates: list[str] = list(tasks.answers)
        self._rng = random.Random()

    @property
    def allowed_words(self) -> tuple[str, ...]:
        """Every word the game accepts as a guess, sorted (LMRL's game: its 40 words)."""
        return self._allowed

    @property
    def filtered_vocab(self) -> list[str]:
        """The vocabulary words still consistent with the feedback so far, in vocabulary order
        (all of them before the first guess): what AgentGym's ``/filtered_vocab`` returns."""
        if self.game == "lmrl":
            return list(self._candidates)
        words = list(self.vocabulary)
        for guess, marks in self.history:
            if marks != INVALID:
                words = [w for w in words if feedback(guess, w) == marks]
        return words

    def _begin(self, task: WordleTask | LmrlWordleTask) -> tuple[str, dict[str, Any]]:
        self.history = []
        if isinstance(task, LmrlWordleTask):
            self._rng = random.Random(task.seed)
            self._candidates = list(self.tasks.answers)
            info = {"guesses_left": MAX_GUESSES, "words_left": len(self._candidates)}
            return LMRL_START, info | {"allowed_words": self._allowed}
        start = f"Let's start Wordle! You have {MAX_GUESSES} guesses."
        return start, {"guesses_left": MAX_GUESSES, "allowed_words": self._allowed}

    def _act(self, action: str) -> StepResult:
        if self.game == "lmrl":
            return self._act_lmrl(action)
        return self._act_classic(action)

    def _act_lmrl(self, action: str) -> StepResult:
        word = lmrl_word(action)
        error = None
        if len(word) != WORD_LENGTH or not set(word) <= _LETTERS:
            error = f"{action.strip()[:60]!r} is not five lowercase letters"
        elif word not in self._valid:
            error = f"{word!r} is not in the vocabulary (info['allowed_words'] at reset)"
        if error is not None:
            self.history.append((word, INVALID))
            text, solved = INVALID, False
        else:
            # LMRL-Gym's WordleGame.next(): draw the word among those still possible (in
            # vocabulary order, with the same stdlib call on the same seeded random.Random), mark
            # the guess against it, keep the words that would have given the same marks.
            drawn = self._rng.choice(self._candidates)
            marks = lmrl_feedback(word, drawn)
            self._candidates = consistent(self._candidates, word, marks)
            self.history.append((word, marks))
            text, solved = marks + "\n", marks == _SOLVED
        done = solved or len(self.history) >= MAX_GUESSES
        if solved:
            self.success, self.score = True, 1.0
        info: dict[str, Any] = {
            "guesses_left": MAX_GUESSES - len(self.history),
            "history": list(self.history),
            "words_left": len(self._candidates),
        }
        if solved:
            info["answer"] = word
        return StepResult(
            text, reward=1.0 if solved else 0.0, terminated=done, error=error, info=info
        )

    def _act_classic(self, action: str) -> StepResult:
        task: WordleTask = self.task  # type: ignore[assignment]
        guess = parse_guess(action)
        error = None
        if len(guess) != WORD_LENGTH or not guess.isalpha():
            text, error = INVALID, f"{action.strip()!r} is not a five-letter word"
        elif guess not in self._valid:
            text, error = INVALID, f"{guess!r} is not in the vocabulary (info['allowed_words'])"
        else:
            text = feedback(guess, task.answer)
        self.history.append((guess, text))
        solved = guess == task.answer
        done = solved or len(self.history) >= MAX_GUESSES
        if solved:
            self.success, self.score = True, 1.0
        info: dict[str, Any] = {
            "guesses_left": MAX_GUESSES - len(self.history),
            "history": list(self.history),
        }
        if done:
            info["answer"] = task.answer
        return StepResult(
            text, reward=1.0 if solved else 0.0, terminated=done, error=error, info=info
        )

    def random_action(self, rng: np.random.Generator) -> str:
        words = self.tasks.answers
        word = words[int(rng.integers(len(words)))]
        return " ".join(word) if self.game == "lmrl" else word

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.task is None:
            return None
        lines = [f"{' '.join(guess)}  {marks}" for guess, marks in self.history]
        return "\n".join([*lines, self._last_observation])

    def instructions(self) -> str:
        if self.game == "classic":
            return (
                "You are playing Wordle. Guess the hidden five-letter English word in at most "
                f"{MAX_GUESSES} tries. Each guess must be a valid five-letter word, written as five "
                "letters separated by spaces, for example: c r a n e\n"
                "After each guess you get one mark per letter, in order: 'g' (green) the letter is "
                "in the word at this position; 'y' (yellow) it is in the word at another position; "
                "'b' (black) it is not in the word. A letter repeated in your guess is marked only "
                "as many times as it occurs in the hidden word. A guess that is not a valid word "
                "gets 'invalid word' and still uses a try.\n"
                "Example: hidden word 'shire', guess 'r a i s e' gets 'y b g y g'."
            )
        return (
            "You are playing Wordle. Find the hidden five-letter word in at most "
            f"{MAX_GUESSES} tries. Write a guess as five lowercase letters separated by spaces, for "
            "example: p a n i c\n"
            "After each guess you get one mark per letter, in order: 'g' the letter is in the word "
            "at this position; 'y' it is in the word at another position (each copy of a repeated "
            "letter is marked this way); 'b' it is not in the word. Only the words listed below "
            "are accepted; any other guess gets 'invalid word' and still uses a try.\n"
            f"Words: {', '.join(self.vocabulary)}\n"
            "Example: hidden word 'shire', guess 's h a r d' gets 'g g b g b'."
        )

    def tool_schemas(self) -> list[dict[str, Any]]:
        word = param("string", "five letters a-z", pattern="^[A-Za-z]{5}$")
        guess = Tool("guess", "Guess a five-letter word.", parameters=schema(word=word))
        return [guess.openai_schema()]

    def action_from_tool_call(self, name: str, arguments: dict[str, Any]) -> str:
        if name != "guess":
            raise ValueError(f"unknown tool {name!r}: use 'guess'")
        return " ".join(str(arguments["word"]).lower())
