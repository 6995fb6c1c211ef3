"""TextWorld: generated games played by textworld's engine; the contract on every id."""

from __future__ import annotations

import pickle

import pytest

pytest.importorskip("textworld")

import textworld

from agentgym_envs.envs.tw_games.env import TextWorldEnv, TextWorldExpert
from agentgym_envs.envs.tw_games.games import compile_game, game_path
from agentgym_envs.testing import check_text_env, contract

IDS = (
    "TextWorld-v0",
    "TextWorldCoinCollector-v0",
    "TextWorldTreasureHunter-v0",
    "TextWorldCooking-v0",
)


def test_contract(test_games):
    report = check_text_env("AgentGym/TextWorld-v0")
    assert len(report.expert_scores) == 30 and all(report.expert_successes)
    assert report.random_mean < report.expert_mean


@pytest.mark.parametrize("env_id", IDS[1:])
def test_single_challenge_ids_expert_and_random(env_id, test_games):
    # the API checks ran on the mix above; an unseeded reset compiles a fresh train game
    report = contract.check_expert_and_random(f"AgentGym/{env_id}")
    assert len(report.expert_scores) == 10 and all(report.expert_successes)


def test_mix_takes_the_three_challenges_in_turn(test_games):
    env = TextWorldEnv()
    seen = []
    for task_id in range(3):
        _, info = env.reset(options={"split": "test", "task_id": task_id})
        seen.append((info["challenge"], info["level"], info["seed"]))
    assert seen == [
        ("coin_collector", 5, 1_000_000),
        ("treasure_hunter", 10, 1_000_000),
        ("cooking", 3, 1_000_000),
    ]
    env.close()


def test_a_cleaned_command_never_becomes_a_valid_one():
    import gymnasium as gym

    env = gym.make("AgentGym/TextWorldCoinCollector-v0").unwrapped
    env.reset(seed=0, options={"split": "test", "task_id": 0})
    plan = env.walkthrough()
    obs, reward, terminated, _, info = env.step(plan[0] + "\U0001f642")
    assert obs.startswith("Invalid action:") and "dropped" in info["error"]
    assert (reward, terminated) == (0.0, False)
    assert env.walkthrough() == plan  # the game did not move: the command was not sent
    env.close()


def _textworld_play(path, commands):
    """The same game on textworld's own Environment, for comparison."""
    infos = textworld.EnvInfos(admissible_commands=True, score=True)
    tw = textworld.start(str(path), request_infos=infos)
    state = tw.reset()
    texts, scores = [state.feedback], []
    for command in commands:
        state, score, _ = tw.step(command)
        texts.append(state.feedback)
        scores.append(score)
    tw.close()
    return texts, scores


def test_texts_and_intermediate_rewards_are_textworlds(test_games):
    env = TextWorldEnv("cooking")
    expert = TextWorldExpert(env)
    obs, info = env.reset(options={"split": "test", "task_id": 0})
    assert "Let's cook a delicious meal" in obs and info["max_score"] > 1
    assert "inventory" in info["available_actions"]
    texts, rewards, commands = [obs], [], []
    terminated = False
    while not terminated:
        commands.append(expert(obs, info))
        obs, reward, terminated, _, info = env.step(commands[-1])
        texts.append(obs)
        rewards.append(reward)
    assert info["success"] and info["score"] == 1.0
    # intermediate rewards: several recipe steps score, and they add up to the max score
    assert sum(r > 0 for r in rewards) >= 3 and sum(rewards) == info["max_score"]
    path = game_path("cooking", 3, 1_000_000)
    theirs, scores = _textworld_play(path, commands)
    assert texts == theirs and scores[-1] == info["max_score"]
    env.close()


def test_commands_outside_the_admissible_set_reach_the_parser(test_games):
    env = TextWorldEnv("coin_collector")
    env.reset(options={"split": "test", "task_id": 1})
    obs, reward, terminated, _, info = env.step("xyzzy")
    assert "That's not a verb I recognise." in obs and "admissible" in info["error"]
    assert (reward, terminated) == (0.0, False)
    obs, *_, info = env.step("look\n\n  inventory")  # one command: whitespace collapses
    assert "error" in info and "not a verb" not in obs
    _, _, _, _, info = env.step(info["available_actions"][0])
    assert "error" not in info
    env.close()


def test_pickled_mid_episode_env_continues_identically(test_games):
    env = TextWorldEnv("treasure_hunter")
    expert = TextWorldExpert(env)
    obs, info = env.reset(options={"split": "test", "task_id": 2})
    for _ in range(2):
        obs, _, _, _, info = env.step(expert(obs, info))
    clone = pickle.loads(pickle.dumps(env))
    action = expert(obs, info)
    assert env.step(action)[:3] == clone.step(action)[:3]
    assert clone.walkthrough() == env.walkthrough()
    env.close()
    clone.close()


def test_games_are_cached_by_challenge_level_and_seed(test_games, tmp_path):
    first = compile_game("coin_collector", 1, 7, tmp_path)
    mtime = first.stat().st_mtime_ns
    assert (
        compile_game("coin_collector", 1, 7, tmp_path) == first
        and first.stat().st_mtime_ns == mtime
    )
    assert first.with_suffix(".json").exists()
    assert game_path("coin_collector", 1, 8, tmp_path) != first
    assert game_path("coin_collector", 2, 7, tmp_path) != first
    with pytest.raises(ValueError, match="use 1..4"):
        TextWorldEnv("cooking", level=9)
    with pytest.raises(ValueError, match="unknown challenge"):
        TextWorldEnv("zork")


def test_symbols_never_reach_the_z_machine():
    import random

    import gymnasium as gym

    env = gym.make("AgentGym/TextWorldCoinCollector-v0").unwrapped
    env.reset(seed=0, options={"split": "test", "task_id": 0})
    rng = random.Random(0)
    symbols = '\\\\`~!@#$%^&*()[]{}<>|;:?/+="_'
    for _ in range(200):
        action = "".join(rng.choice(symbols + "abc ") for _ in range(rng.randint(1, 40)))
        obs, _, terminated, _, info = env.step(action)
        assert "DUMB-FROTZ" not in obs and isinstance(obs, str)
        if any(c in symbols for c in action):
            assert "dropped" in info["error"] and obs.startswith("Invalid action:")
        if terminated:
            env.reset(seed=0, options={"split": "test", "task_id": 0})
    env.close()
