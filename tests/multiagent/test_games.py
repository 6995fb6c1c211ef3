"""The games' rules, their PettingZoo AEC envs (``api_test``), the single-agent ids against the
built-in opponent (the env contract), opponents, and self-play collection."""

from __future__ import annotations

import random
import warnings

import gymnasium as gym
import pytest

from agentgym_envs.multiagent.games import (
    PLAYERS,
    Bargaining,
    ConnectFour,
    Mastermind,
    TicTacToe,
    score_guess,
)
from agentgym_envs.multiagent.policies import ChatModelPlayer, scripted_player
from agentgym_envs.multiagent.single import TextGameEnv, game_item_prefix
from agentgym_envs.spec import env_info
from agentgym_envs.testing import check_text_env

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test

from agentgym_envs.multiagent.aec import aec_env, raw_env
from agentgym_envs.multiagent.selfplay import collect_selfplay

GAMES = ("tictactoe", "connect_four", "bargaining", "mastermind")
IDS = ("TicTacToe-v0", "ConnectFour-v0", "Bargaining-v0", "Mastermind-v0")


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_api_test_passes(game):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo warns that observations are not arrays
        api_test(aec_env(game), num_cycles=300)


@pytest.mark.parametrize("env_id", IDS)
def test_single_agent_contract(env_id):
    report = check_text_env(f"AgentGym/{env_id}")
    assert len(report.expert_scores) == 50 and all(report.expert_successes)
    assert report.random_mean < report.expert_mean


@pytest.mark.parametrize("game, env_id", zip(GAMES, IDS))
def test_item_ids_use_the_prefix_the_registry_declares(game, env_id):
    env = gym.make(f"AgentGym/{env_id}").unwrapped
    env.reset(seed=0, options={"split": "test", "task_id": 3})
    prefix = env_info(env_id).item_prefix
    assert env.item_id == f"{prefix}_{env.tasks.agentgym_index('test', 3)}"
    assert game_item_prefix(game) == prefix
    with pytest.raises(ValueError, match="no registered id plays game 'chess'"):
        game_item_prefix("chess")


def test_illegal_move_is_feedback_and_the_turn_stays():
    env = raw_env("tictactoe")
    env.reset(seed=0)
    env.step("5")
    assert env.agent_selection == "player_1"
    for bad, why in (
        ("5", "cell 5 is taken"),
        ("0", "cell 0 does not exist"),
        ("x", "write one cell"),
    ):
        env.step(bad)
        assert env.agent_selection == "player_1"
        assert env.infos["player_1"]["error"].startswith(why)
        assert env.observe("player_1").startswith(f"Illegal move: {why}")
    env.step("Action: 1")
    assert env.agent_selection == "player_0" and "error" not in env.infos["player_1"]
    assert env.observe("player_0").startswith("Your opponent (O) played cell 1.")


def test_unicode_look_alikes_are_illegal_moves_not_ascii_ones():
    # a move reaches the game as sent: fullwidth or Arabic-Indic digits, the Kelvin sign and
    # Unicode spaces never read as the ASCII move they resemble
    env = raw_env("tictactoe")
    env.reset(seed=0)
    for bad in ("\uff15", "cell \u0665", "\u00b2", "\u30005", "5\u00a0"):
        env.step(bad)
        assert env.agent_selection == "player_0", bad
        assert env.infos["player_0"]["error"].startswith("write one cell"), bad
        assert env.observe("player_0").startswith("Illegal move: write one cell")
    assert env.game.moves == 0 and env.game.board == TicTacToe(random.Random(0)).board
    c4 = ConnectFour(random.Random(0))
    assert c4.parse(c4.current, "column \uff14")[0] is None
    g = Bargaining(random.Random(3))
    assert g.parse("player_0", "propose books=\uff11 hats=0 balls=0")[0] is None
    assert g.parse("player_0", "propose boo\u212as=1 hats=0 balls=0")[0] is None
    assert g.parse("player_0", "propose books=1 hats=0 balls=0")[0] is not None
    m = Mastermind(random.Random(0))
    assert m.parse("player_0", "code R G B \uff39")[0] is None
    assert m.parse("player_0", "code r g b y") == ("RGBY", None)


def _play(game, moves):
    for move in moves:
        parsed, error = game.parse(game.current, move)
        assert error is None, error
        game.play(parsed)
    return game


def test_tictactoe_rows_and_draws():
    g = _play(TicTacToe(random.Random(0)), ["1", "4", "2", "5", "3"])
    assert g.over and g.winner == "player_0" and g.returns() == {"player_0": 1.0, "player_1": 0.0}
    g = _play(TicTacToe(random.Random(0)), ["1", "2", "3", "5", "4", "6", "8", "7", "9"])
    assert g.over and g.winner is None and g.won("player_0") and g.won("player_1")


def test_connect_four_gravity_full_columns_and_diagonals():
    g = _play(ConnectFour(random.Random(0)), ["4"] * 6)
    assert g.board[0][3] == "O" and g.board[5][3] == "X"
    assert g.parse(g.current, "4") == (None, "column 4 is full")
    assert "4" not in g.legal_moves(g.current)
    g = _play(
        ConnectFour(random.Random(0)), ["1", "2", "2", "3", "3", "4", "3", "4", "4", "7", "4"]
    )
    assert g.over and g.winner == "player_0"  # the diagonal 1-2-3-4


def test_bargaining_proposals_acceptance_and_hidden_values():
    g = Bargaining(random.Random(3))
    assert 5 <= sum(g.counts) <= 7
    for p in PLAYERS:
        assert sum(v * n for v, n in zip(g.values[p], g.counts)) == 10
    own = ", ".join(f"{n} {v}" for n, v in zip(("book", "hat", "ball"), g.values["player_0"]))
    view = g.view("player_0")  # its own values, and nothing about the opponent's
    assert f"Your values per item: {own} " in view and view.count("value") == 1
    assert g.parse("player_0", "accept")[1] == "there is no proposal from your opponent to accept"
    assert "missing: balls" in g.parse("player_0", "propose books=1 hats=0")[1]
    keep = tuple(g.counts)
    _play(g, ["propose " + " ".join(f"{k}={v}" for k, v in zip(("books", "hats", "balls"), keep))])
    assert "Standing proposal from your opponent: you get 0 books, 0 hats, 0 balls" in g.view(
        "player_1"
    )
    _play(g, ["accept"])
    assert g.over and g.returns() == {"player_0": 1.0, "player_1": 0.0}
    g = Bargaining(random.Random(4))
    for _ in range(5):
        _play(g, ["propose books=0 hats=0 balls=0"])
        _play(g, ["propose books=0 hats=0 balls=0"])
    assert g.over and g.deal is None and g.returns() == {"player_0": 0.0, "player_1": 0.0}


def test_mastermind_pegs_and_hidden_code():
    assert score_guess("RGBY", "RGBY") == (4, 0)
    assert score_guess("RGBY", "YBGR") == (0, 4)
    assert score_guess("RRGG", "RGRB") == (1, 2)
    g = _play(Mastermind(random.Random(0)), ["code R G B Y"])
    assert "R G B Y" not in g.observation("player_1") and "R G B Y" in g.observation("player_0")
    _play(g, ["guess RRRR"])
    assert "Guess R R R R: 1 black, 0 white." in g.view("player_1")
    _play(g, ["guess r g b y"])
    assert g.over and g.returns() == {"player_0": 0.0, "player_1": 1.0}


def test_scripted_opponent_takes_wins_then_blocks():
    g = _play(TicTacToe(random.Random(0)), ["1", "4", "2"])  # O to move, X threatens 3
    assert scripted_player(g, "player_1", random.Random(0)) == "3"
    g = _play(TicTacToe(random.Random(0)), ["1", "4", "2", "5", "9"])  # O can win at 6
    assert scripted_player(g, "player_1", random.Random(0)) == "6"


def test_single_agent_view_alternates_seats_and_opponent_moves_first():
    env = TextGameEnv("tictactoe")
    obs, info = env.reset(options={"split": "test", "task_id": 1})
    assert info["seat"] == "player_1" and obs.startswith("Your opponent (X) played cell ")
    assert len(info["available_actions"]) == 8
    obs, info = env.reset(options={"split": "test", "task_id": 0})
    assert info["seat"] == "player_0" and len(info["available_actions"]) == 9
    obs, _reward, terminated, _, info = env.step("10")
    assert (
        obs.startswith("Illegal move: cell 10 does not exist") and info["error"] and not terminated
    )


def test_selfplay_writes_both_players_as_agenttraj(tmp_path):
    from agentgym_envs.datasets.agenttraj import load_agenttraj

    path = tmp_path / "selfplay.jsonl"
    records = collect_selfplay("connect_four", range(3), players=("expert", "random"), path=path)
    loaded = load_agenttraj(path)
    assert len(loaded) == len(records) == 6
    for first, second in zip(loaded[0::2], loaded[1::2]):
        assert first.item_id == second.item_id and first.item_id.startswith("connectfour_")
        assert {first.extra["player"], second.extra["player"]} == set(PLAYERS)
        assert first.conversations[1].value == "Ok." and first.conversations[1].loss is False
        assert first.reward + second.reward == 1.0  # someone won, or a draw at 0.5 each
    # replaying player_0's moves against player_1's reproduces the match and its result
    env = raw_env("connect_four")
    env.reset(seed=0)
    moves = {t.extra["player"]: list(t.actions) for t in loaded[:2]}
    for agent in env.agent_iter():
        _, _reward, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else moves[agent].pop(0))
    assert env.game.won("player_0") == loaded[0].success


def test_chat_model_opponent(llm_server):
    player = ChatModelPlayer(llm_server.base_url, llm_server.alias, retries=1, max_tokens=8)
    env = TextGameEnv("tictactoe", opponent=player)
    _, info = env.reset(options={"split": "test", "task_id": 1})  # the model moves first
    assert info["opponent_move"] in {str(i) for i in range(1, 10)}
    while True:
        _obs, reward, terminated, _, info = env.step(info["available_actions"][0])
        if terminated:
            break
    assert reward in (0.0, 0.5, 1.0)
