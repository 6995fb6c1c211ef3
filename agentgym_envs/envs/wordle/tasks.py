"""Wordle's task sources.

AgentGym's game (LMRL-Gym's): a task is a seed for the hidden-word draws, over LMRL-Gym's
40-word ``tweet_words`` list or a user's vocabulary file. The classic game: a fixed hidden
word from the embedded common-word vocabulary, or drawn from a user's vocabulary file.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path

from agentgym_envs.core import Task, TaskSource
from agentgym_envs.errors import BadDataError
from agentgym_envs.spec import env_info, family_record

TEST_SIZE = 25  # AgentEval's Wordle split
#: Train seeds of the LMRL game: AgentGym items ``wordle_0 .. wordle_3498``; the test seeds
#: follow (``wordle_3499 .. wordle_3523``), the same item ids as the classic game's splits.
LMRL_TRAIN_SIZE = 3499

#: The vocabulary AgentGym's Wordle server loads (LMRL-Gym's ``tweet_words.txt``), in file
#: order: the hidden word is drawn from it and only these words are valid guesses.
LMRL_WORDS: tuple[str, ...] = (
    "panic", "solar", "shire", "proxy", "point", "robot", "prick", "wince", "crimp", "knoll",
    "sugar", "whack", "mount", "perky", "could", "wrung", "light", "those", "moist", "shard",
    "pleat", "aloft", "skill", "elder", "frame", "humor", "pause", "ulcer", "ultra", "robin",
    "cynic", "aroma", "caulk", "shake", "dodge", "swill", "tacit", "other", "thorn", "trove",
)  # fmt: skip
_WORD = re.compile(r"[a-z]{5}")
_SPLIT_SEED = 20240601


@dataclass(frozen=True)
class WordleTask(Task):
    """Classic game: a hidden word; the vocabulary is shared by the task source."""

    answer: str


@dataclass(frozen=True)
class LmrlWordleTask(Task):
    """LMRL game: the seed of ``random.Random`` that draws the hidden word at every guess
    (AgentGym's reset ``seed``, equal to the item index)."""

    seed: int


@cache
def _embedded(name: str) -> tuple[str, ...]:
    text = resources.files("agentgym_envs.envs.wordle").joinpath("data", name).read_text()
    return tuple(text.split())


def read_vocab_file(path: str | Path) -> tuple[str, ...]:
    """Words of a vocabulary file (one per line, LMRL-Gym's format), in file order."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise BadDataError(
            f"vocabulary file {str(p)!r} not found: pass data_path= a text file with one word per line"
        )
    words = [w.strip().lower() for w in p.read_text().splitlines() if w.strip()]
    bad = [w for w in words if not _WORD.fullmatch(w)]
    if bad or not words:
        raise BadDataError(
            f"vocabulary file {str(p)!r} has {len(bad)} entries that are not five letters a-z "
            f"(first: {bad[0]!r})"
            if bad
            else f"vocabulary file {str(p)!r} is empty: add one five-letter word per line"
        )
    return tuple(words)


@lru_cache(maxsize=1)
def embedded_tasks() -> EmbeddedWordleTasks:
    """The embedded task source, built once per process and shared (it is immutable)."""
    return EmbeddedWordleTasks()


class EmbeddedWordleTasks(TaskSource):
    """Common English five-letter words (built from wordfreq, shipped with the package).

    The answers are shuffled once with a fixed seed; the first 25 are the test split and
    the rest the train split, so the splits never share a word. Item ids are
    ``wordle_classic_N`` (train first, then test): they are not AgentGym's games.
    """

    item_prefix = env_info("WordleClassic-v0").item_prefix

    def __init__(self) -> None:
        answers = list(_embedded("answers.txt"))
        random.Random(_SPLIT_SEED).shuffle(answers)
        self._split = {"test": tuple(answers[:TEST_SIZE]), "train": tuple(answers[TEST_SIZE:])}
        self.guesses = frozenset(_embedded("guesses.txt"))
        self.answers = _embedded("answers.txt")

    def size(self, split: str) -> int:
        return len(self._split.get(split, ()))

    def _load(self, split: str, task_id: int) -> WordleTask:
        return WordleTask(task_id, split, self._split[split][task_id])


class LmrlWordleTasks(TaskSource):
    """AgentGym's Wordle tasks: item ``wordle_N`` is the game AgentGym's reset ``seed`` N plays.

    ``words`` is the vocabulary in file order (default LMRL-Gym's 40 ``tweet_words``). Train
    holds seeds ``0 .. train_size - 1``, test the 25 seeds after them (``3499 .. 3523`` by
    default): AgentGym's item index is the seed, train first, then test. LMRL seeds a game
    from any int, so the train split is open: train task ``t`` past ``train_size`` is seed
    ``t + 25`` (the seeds after the test split), and a negative item index plays the game of
    its absolute value (``random.Random(-n)`` is ``random.Random(n)``).
    """

    item_prefix = family_record("wordle").item_prefix
    open_splits = frozenset({"train"})

    def __init__(
        self, words: tuple[str, ...] = LMRL_WORDS, train_size: int = LMRL_TRAIN_SIZE
    ) -> None:
        self.answers = tuple(words)
        self.guesses = frozenset(self.answers)
        self._sizes = {"train": train_size, "test": TEST_SIZE}

    def size(self, split: str) -> int:
        return self._sizes.get(split, 0)

    def _load(self, split: str, task_id: int) -> LmrlWordleTask:
        return LmrlWordleTask(task_id, split, seed=self.agentgym_index(split, task_id))

    def agentgym_index(self, split: str, task_id: int) -> int:
        n_train = self._sizes["train"]
        if split == "train":
            return task_id if task_id < n_train else task_id + TEST_SIZE
        return n_train + task_id

    def locate(self, index: int) -> tuple[str, int]:
        index = abs(index)
        n_train = self._sizes["train"]
        if index < n_train:
            return "train", index
        if index < n_train + TEST_SIZE:
            return "test", index - n_train
        return "train", index - TEST_SIZE


class VocabFileWordleTasks(TaskSource):
    """Classic game over a user's vocabulary file: task id N draws the (fixed) hidden word
    with ``random.Random(N).choice`` over the words in file order.

    Both splits index the same seeds: test holds seeds ``0..24``, train ``0..train_size-1``.
    Item ids are ``wordle_classic_N``.
    """

    item_prefix = env_info("WordleClassic-v0").item_prefix

    def __init__(self, path: str | Path, train_size: int = 10_000) -> None:
        self.answers = read_vocab_file(path)
        self.guesses = frozenset(self.answers)
        self._sizes = {"train": train_size, "test": TEST_SIZE}

    def size(self, split: str) -> int:
        return self._sizes.get(split, 0)

    def _load(self, split: str, task_id: int) -> WordleTask:
        return WordleTask(task_id, split, random.Random(task_id).choice(self.answers))

    def agentgym_index(self, split: str, task_id: int) -> int:
        return task_id

    def locate(self, index: int) -> tuple[str, int]:
        return ("test", index) if index < TEST_SIZE else ("train", index)
