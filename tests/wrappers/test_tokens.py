"""Token budgets: counting with a tokenizer, ending on the spent budget, observation cuts, and
adaptive horizons in turns or tokens."""

from __future__ import annotations

import pytest

import agentgym_envs
from agentgym_envs.core import episode_outcome
from agentgym_envs.wrappers.curriculum import HorizonSchedule
from agentgym_envs.wrappers.limits import TurnLimit
from agentgym_envs.wrappers.tokens import (
    TRUNCATION_MARK,
    AdaptiveHorizon,
    AdaptiveSchedule,
    TokenBudget,
    token_counter,
    truncate_text,
)
from tests.wrappers.fakes import CounterEnv


def chars(text: str) -> int:
    return len(text)


def test_counter_kinds() -> None:
    assert token_counter()("move  up now") == 3
    assert token_counter(chars)("abcd") == 4
    assert token_counter(lambda t: list(t.encode()))("é!") == 3

    class Encoder:  # the shape of a Hugging Face tokenizer's encode
        def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
            return [0] * (len(text) // 2 + (1 if add_special_tokens else 0))

    assert token_counter(Encoder())("abcdef") == 3
    with pytest.raises(TypeError, match="tokenizer must be"):
        token_counter(42)


@pytest.mark.parametrize("side", ["head", "tail", "middle", "left", "right"])
@pytest.mark.parametrize("limit", [20, 25, 40])
def test_truncate_text_fits_the_limit_and_keeps_the_chosen_part(side: str, limit: int) -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(100))
    cut = truncate_text(text, limit, chars, side)
    assert len(cut) == limit
    assert TRUNCATION_MARK in cut
    kept = cut.replace(TRUNCATION_MARK, "")
    if side in ("head", "left"):
        assert text.startswith(kept)
    elif side in ("tail", "right"):
        assert text.endswith(kept)
    else:
        head, tail = cut.split(TRUNCATION_MARK)
        assert text.startswith(head) and text.endswith(tail) and abs(len(head) - len(tail)) <= 1
    assert truncate_text(text[:limit], limit, chars, side) == text[:limit]


def test_truncate_text_rejects_an_unknown_side() -> None:
    with pytest.raises(ValueError, match="head"):
        truncate_text("abc", 1, chars, "both")


def test_budget_counts_actions_and_observations_and_ends_on_the_overrunning_observation() -> None:
    env = TokenBudget(CounterEnv(), max_tokens=60, tokenizer=chars)
    obs, info = env.reset(options={"split": "test", "task_id": 2})  # target 4
    assert info["tokens_used"] == 0 and info["token_budget"] == 60
    used = 0
    while True:
        obs, _, terminated, truncated, info = env.step("noop")
        used += len("noop") + len(obs)
        assert not terminated
        if truncated:
            break
        assert info["tokens_used"] == used
    assert info["tokens_used"] == 60
    assert info["truncation_reason"] == "token_limit"
    assert info["outcome"] == "token_limit" and info["reward_valid"] is True
    assert episode_outcome(terminated, truncated, info) == "token_limit"
    # the episode is over: nothing more reaches the env
    count = env.unwrapped.count
    _, _, _, truncated, _ = env.step("inc")
    assert truncated and env.unwrapped.count == count


def test_an_action_that_does_not_fit_is_not_played() -> None:
    env = TokenBudget(CounterEnv(), max_tokens=30, tokenizer=chars)
    env.reset(options={"split": "test", "task_id": 2})
    obs, reward, terminated, truncated, info = env.step("inc" + " " * 40)
    assert (obs, reward, terminated, truncated) == ("", 0.0, False, True)
    assert env.unwrapped.count == 0
    assert info["outcome"] == "token_limit"


def test_episode_that_ends_within_budget_keeps_the_env_outcome() -> None:
    env = TokenBudget(CounterEnv(), max_tokens=10_000, tokenizer=chars)
    env.reset(options={"split": "test", "task_id": 0})
    info = {}
    for _ in range(2):
        _, _, terminated, truncated, info = env.step("inc")
    assert terminated and not truncated
    assert info["outcome"] == "success" and info["reward_valid"] is True
    assert info["tokens_used"] < 10_000


def test_prompt_counts_only_when_asked() -> None:
    obs, info = TokenBudget(CounterEnv(), 500, chars, count_prompt=True).reset(
        options={"split": "test", "task_id": 1}
    )
    assert info["tokens_used"] == len(obs) > 0


def test_observations_are_cut_per_turn() -> None:
    env = TokenBudget(
        agentgym_envs.make("AgentGym/Maze-v0"),
        max_tokens=10_000,
        tokenizer=chars,
        max_observation_tokens=40,
        truncate_side="tail",
    )
    obs, _ = env.reset(options={"split": "test", "task_id": 0})
    assert len(obs) == 40 and obs.startswith(TRUNCATION_MARK)
    for _ in range(3):
        obs, *_ = env.step("move right")
        assert len(obs) <= 40


def test_real_tokenizer_counts_differ_from_words() -> None:
    transformers = pytest.importorskip("transformers")
    pytest.importorskip("gguf")
    from agentgym_envs.benchmarks.local_llm import smollm2_path

    path = smollm2_path()
    tok = transformers.AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    count = token_counter(tok)
    text = "The goal is at position 8, 6."
    assert count(text) == len(tok.encode(text, add_special_tokens=False)) > len(text.split())
    env = TokenBudget(agentgym_envs.make("AgentGym/Maze-v0"), max_tokens=120, tokenizer=tok)
    env.reset(options={"split": "test", "task_id": 0})
    steps, truncated, info = 0, False, {}
    while not truncated:
        _, _, terminated, truncated, info = env.step("move right")
        steps += 1
        assert not terminated
    assert info["tokens_used"] <= 120 and info["outcome"] == "token_limit"
    assert steps < 15


def test_token_schedule_is_read_at_reset() -> None:
    schedule = HorizonSchedule([30, 80], interval=2)
    env = TokenBudget(CounterEnv(), schedule, chars)
    assert env.reset()[1]["token_budget"] == 30
    schedule.step()
    assert env.reset()[1]["token_budget"] == 80


def test_adaptive_schedule_grows_only_past_the_threshold() -> None:
    schedule = AdaptiveSchedule([2, 4, 8], window=4, threshold=0.75)
    for success in (True, False, True, False):
        schedule.record(success)
    assert schedule.current == 2 and schedule.success_rate == 0.5
    schedule.record(True)  # the last four: F T F T
    assert schedule.current == 2
    schedule.record(True)  # T F T T: 0.75 reaches the threshold
    assert schedule.current == 4 and schedule.success_rate is None  # a fresh window
    for _ in range(8):
        schedule.record(True)
    assert schedule.current == 8 and schedule.stage == 2
    schedule.step(100)
    assert schedule.current == 8
    with pytest.raises(ValueError, match="threshold"):
        AdaptiveSchedule([1, 2], threshold=1.5)


def test_adaptive_horizon_in_turns_follows_success() -> None:
    schedule = AdaptiveSchedule([1, 3], window=2, threshold=1.0)
    env = AdaptiveHorizon(CounterEnv(), schedule)
    for _ in range(2):
        _, info = env.reset(options={"split": "test", "task_id": 0})  # needs 2 incs
        assert info["horizon"] == 1
        _, _, terminated, truncated, info = env.step("inc")
        assert truncated and episode_outcome(terminated, truncated, info) == "turn_limit"
    assert schedule.current == 1  # two failures: no growth
    schedule.record(True)
    schedule.record(True)
    _, info = env.reset(options={"split": "test", "task_id": 0})
    assert info["horizon"] == 3
    env.step("inc")
    _, _, terminated, _, info = env.step("inc")
    assert terminated and info["outcome"] == "success"


def test_adaptive_token_budget_records_episodes() -> None:
    schedule = AdaptiveSchedule([20, 500], window=1, threshold=1.0)
    env = TurnLimit(TokenBudget(CounterEnv(), schedule, chars), 10)
    env.reset(options={"split": "test", "task_id": 0})
    truncated, info = False, {}
    while not truncated:
        _, _, terminated, truncated, info = env.step("noop")
        assert not terminated
    assert info["outcome"] == "token_limit" and schedule.current == 20  # a failure: no growth
    schedule.record(True)  # one solved episode at this stage (window 1) grows the budget
    _, info = env.reset(options={"split": "test", "task_id": 0})
    assert info["token_budget"] == 500
    env.step("inc")
    _, _, terminated, _, info = env.step("inc")
    assert terminated and info["outcome"] == "success"
