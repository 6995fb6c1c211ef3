"""Wordle's rules: LMRL-Gym's game (AgentGym's default) and the classic variant."""

from __future__ import annotations

import random

import gymnasium as gym
import numpy as np
import pytest

from agentgym_envs.envs.wordle.env import WordleEnv, lmrl_word, parse_guess
from agentgym_envs.envs.wordle.expert import WordleExpert, lmrl_planner
from agentgym_envs.envs.wordle.rules import feedback, lmrl_feedback
from agentgym_envs.envs.wordle.tasks import LMRL_WORDS
from agentgym_envs.errors import BadDataError


def _reset(env, task_id=0, split="test"):
    return env.reset(options={"split": split, "task_id": task_id})


# -- LMRL-Gym's game (the default) --------------------------------------------------------


@pytest.mark.parametrize(
    ("guess", "word", "marks"),
    [
        ("panic", "panic", "g g g g g"),
        ("shard", "shire", "g g b g b"),
        # every copy of a repeated letter is marked, unlike real Wordle
        ("speed", "abide", "b b y y y"),
        ("robot", "mount", "b g b y g"),
        ("lolly", "belly", "y b g g g"),
    ],
)
def test_lmrl_marks(guess, word, marks):
    assert lmrl_feedback(guess, word) == marks


def test_lmrl_marks_differ_from_real_wordle_on_repeats():
    assert feedback("speed", "abide") == "b b y b y"
    assert lmrl_feedback("speed", "abide") == "b b y y y"


@pytest.mark.parametrize(
    ("text", "word"),
    [("p a n i c", "panic"), (" panic\n", "panic"), ("PANIC", "PANIC"), ("panic.", "panic.")],
)
def test_lmrl_reads_guesses_like_agentgym(text, word):
    assert lmrl_word(text) == word


def test_vocabulary_is_lmrl_tweet_words_in_file_order():
    env = WordleEnv()
    assert len(env.vocabulary) == 40 and env.vocabulary[:3] == ("panic", "solar", "shire")
    assert env.filtered_vocab == list(LMRL_WORDS)  # before any reset, like AgentGym's create


def test_reset_and_step_texts():
    env = WordleEnv()
    obs, info = _reset(env)
    assert obs == "Let's start Wordle!" and info["words_left"] == 40
    obs, reward, terminated, _, info = env.step("p a n i c")
    assert reward in (0.0, 1.0) and terminated == (reward == 1.0)
    assert obs.endswith("\n") and len(obs) == 10 and set(obs[:-1:2]) <= set("bgy")
    assert "error" not in info and info["guesses_left"] == 5


@pytest.mark.parametrize("seed_item", [0, 17, 3500])
def test_word_is_drawn_with_the_seed_at_each_guess(seed_item):
    env = WordleEnv()
    split, task_id = env.tasks.locate(seed_item)
    _reset(env, task_id, split)
    rng = random.Random(seed_item)
    possible = list(LMRL_WORDS)
    for guess in ("solar", "point", "crimp"):
        drawn = rng.choice(possible)
        obs = env.step(" ".join(guess))[0]
        assert obs == lmrl_feedback(guess, drawn) + "\n"
        possible = [w for w in possible if lmrl_feedback(guess, w) == obs[:-1]]
        assert env.filtered_vocab == possible
        if drawn == guess:
            break


def test_invalid_words_use_a_try_and_do_not_draw():
    env = WordleEnv()
    _reset(env, 3)
    for bad in ("crane", "PANIC", "panic.", "pani", ""):
        obs, reward, terminated, _, info = env.step(bad)
        assert obs == "invalid word" and reward == 0.0 and "error" in info
    assert info["guesses_left"] == 1 and not terminated
    assert env.filtered_vocab == list(LMRL_WORDS)
    obs, reward, terminated, _, info = env.step("zzzzz")
    assert terminated and reward == 0.0 and info["success"] is False


def test_solving_gives_reward_one_and_ends():
    env = WordleEnv()
    _reset(env, 0)
    expert = WordleExpert(env)
    obs, info, rewards, terminated = "", {}, [], False
    while not terminated:
        obs, reward, terminated, _, info = env.step(expert(obs, info))
        rewards.append(reward)
    assert obs == "g g g g g\n" and rewards[-1] == 1.0 and sum(rewards) == 1.0
    assert info["success"] and info["answer"] == info["history"][-1][0]


def test_every_game_is_won_within_three_guesses():
    # The draws always come from the words consistent with the feedback, so the worst case
    # over the draws is the worst case over fixed hidden words: the planner's bound.
    assert lmrl_planner(LMRL_WORDS).worst(frozenset(LMRL_WORDS)) == 3


def test_seed_is_the_agentgym_item_index():
    env = gym.make("AgentGym/Wordle-v0").unwrapped
    _reset(env, 2)
    assert env.task.seed == 3501 and env.item_id == "wordle_3501"
    assert env.tasks.locate(3501) == ("test", 2) and env.tasks.locate(7) == ("train", 7)


def test_lmrl_game_on_a_vocab_file(tmp_path):
    path = tmp_path / "words.txt"
    path.write_text("panic\nsolar\nshire\n")
    env = WordleEnv(data_path=path)
    _reset(env, 0)
    assert env.vocabulary == ("panic", "solar", "shire")
    assert env.step("trove")[0] == "invalid word"


def test_old_vocab_path_keyword_still_works_with_a_warning(tmp_path):
    path = tmp_path / "words.txt"
    path.write_text("panic\nsolar\nshire\n")
    with pytest.warns(DeprecationWarning, match="vocab_path= is deprecated.*data_path="):
        env = WordleEnv(vocab_path=path)
    assert env.vocabulary == WordleEnv(data_path=path).vocabulary


def test_unknown_game_is_clear():
    with pytest.raises(ValueError, match="'lmrl' or 'classic'"):
        WordleEnv(game="hard")


# -- the classic game ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("guess", "answer", "marks"),
    [
        ("crane", "crane", "g g g g g"),
        ("raise", "shire", "y b g y g"),
        ("stare", "shire", "g b b g g"),
        # repeated letter in the guess, single in the answer: only one mark
        ("speed", "abide", "b b y b y"),
        ("eerie", "there", "y b y b g"),
        # green takes the only copy before any yellow is given
        ("lolly", "belly", "b b g g g"),
        ("allee", "eagle", "y y b y g"),
        ("zzzzz", "crane", "b b b b b"),
    ],
)
def test_classic_feedback_with_repeated_letters(guess, answer, marks):
    assert feedback(guess, answer) == marks


@pytest.mark.parametrize(
    "text", ["crane", "c r a n e", "CRANE", " c r a n e\n", "guess: crane", "Crane."]
)
def test_classic_guess_forms(text):
    assert parse_guess(text) == "crane"


def test_classic_solving_gives_reward_one_and_ends():
    env = WordleEnv(game="classic")
    _reset(env, 3)
    answer = env.task.answer
    obs, reward, terminated, truncated, info = env.step(" ".join(answer))
    assert (obs, reward, terminated, truncated) == ("g g g g g", 1.0, True, False)
    assert info["success"] is True and info["score"] == 1.0 and info["answer"] == answer


def test_classic_invalid_word_is_feedback_and_uses_a_try():
    env = WordleEnv(game="classic")
    _reset(env, 0)
    obs, reward, terminated, _, info = env.step("qzxvw")
    assert obs == "invalid word" and reward == 0.0 and not terminated
    assert "not in the vocabulary" in info["error"] and info["guesses_left"] == 5
    obs, *_, info = env.step("this is not a word at all")
    assert obs == "invalid word" and "five-letter" in info["error"]


def test_classic_six_wrong_guesses_end_with_zero_reward():
    env = WordleEnv(game="classic")
    _reset(env, 0)
    wrong = [w for w in env.tasks.answers if w != env.task.answer][:6]
    results = [env.step(g) for g in wrong]
    assert [r[2] for r in results] == [False] * 5 + [True]
    assert sum(r[1] for r in results) == 0.0
    assert results[-1][4]["success"] is False and results[-1][4]["answer"] == env.task.answer
    obs, reward, terminated, _, info = env.step("crane")
    assert "ended" in obs and info["error"] == "episode has ended" and terminated and reward == 0


def test_classic_item_ids_are_not_agentgyms():
    env = WordleEnv(game="classic")
    _reset(env, 0)
    assert env.item_id == "wordle_classic_3499"


def test_classic_splits_are_disjoint():
    env = WordleEnv(game="classic")
    words = {
        split: {env.tasks.get(split, i).answer for i in range(env.tasks.size(split))}
        for split in ("train", "test")
    }
    assert len(words["test"]) == 25 and not words["test"] & words["train"]


def test_classic_filtered_vocab_shrinks_with_feedback():
    env = WordleEnv(game="classic")
    _reset(env, 1)
    before = len(env.filtered_vocab)
    env.step("c r a n e")
    after = env.filtered_vocab
    assert 0 < len(after) < before and env.task.answer in after


def test_classic_vocab_file_draws_a_fixed_word(tmp_path):
    vocab = ["panic", "solar", "shire", "proxy", "point", "robot", "trove"]
    path = tmp_path / "tweet_words.txt"
    path.write_text("\n".join(vocab) + "\n")
    env = WordleEnv(game="classic", data_path=str(path))
    for task_id in (0, 7, 24):
        _reset(env, task_id)
        assert env.task.answer == random.Random(task_id).choice(vocab)
        assert env.item_id == f"wordle_classic_{task_id}"
    assert env.step("crane")[0] == "invalid word"


@pytest.mark.parametrize("game", ["lmrl", "classic"])
@pytest.mark.parametrize("content", ["", "toolong\n", "abc\n"])
def test_bad_vocab_file_is_one_line_error(tmp_path, content, game):
    path = tmp_path / "v.txt"
    path.write_text(content)
    with pytest.raises(BadDataError) as err:
        WordleEnv(game=game, data_path=path)
    assert "\n" not in str(err.value)


def test_missing_vocab_file_says_the_mend(tmp_path):
    with pytest.raises(BadDataError, match="data_path"):
        WordleEnv(data_path=tmp_path / "nope.txt")


def test_tool_call_maps_to_spaced_guess():
    env = WordleEnv()
    assert env.action_from_tool_call("guess", {"word": "CRANE"}) == "c r a n e"
    with pytest.raises(ValueError, match="guess"):
        env.action_from_tool_call("move", {})


def test_non_ascii_guesses_are_invalid_words_as_in_lmrl_gym():
    # LMRL-Gym compares the raw text with its vocabulary: an accent or an emoji never matches
    env = gym.make("AgentGym/Wordle-v0").unwrapped
    env.reset(seed=0, options={"task_id": 0})
    word = env.random_action(np.random.default_rng(0))
    for guess in ("\U0001f642" * 5, word[:2] + "\U0001f642" + word[2:], word[:-1] + "\u00e9"):
        obs, reward, _, _, info = env.step(guess)
        assert obs == "invalid word" and reward == 0.0 and "error" in info
        assert info["history"][-1] == (lmrl_word(guess), "invalid word")
    obs, _, _, _, info = env.step(word)
    assert "error" not in info and obs != "invalid word"
