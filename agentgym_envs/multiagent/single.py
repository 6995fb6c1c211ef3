"""Single-agent Gymnasium views of the text games: the agent plays one seat, a built-in
opponent the other, so every single-agent tool here (wrappers, bench, server) works on them."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import numpy as np

from agentgym_envs.core import StepResult, Task, TaskSource, TextEnv
from agentgym_envs.multiagent.games import GAMES, PLAYERS, Game, Mastermind
from agentgym_envs.multiagent.policies import Policy, expert_player, resolve_policy
from agentgym_envs.spec import ENV_INFO

TRAIN_SIZE, TEST_SIZE = 10_000, 50
_TEST_SEED_OFFSET = 1_000_000


def game_item_prefix(game: str) -> str:
    """The item-id prefix of ``game``'s matches (``connectfour`` in ``connectfour_12``), as the
    registry declares it for the id that plays ``game``."""
    for info in ENV_INFO.values():
        if info.family == TextGameEnv.family and info.kwargs.get("game") == game:
            return info.item_prefix
    raise ValueError(f"no registered id plays game {game!r}: use one of {', '.join(GAMES)}")


@dataclass(frozen=True)
class GameTask(Task):
    """A match: the seed of the game's and the opponent's randomness, and the agent's seat."""

    seed: int = 0
    seat: str = PLAYERS[0]


class GameTasks(TaskSource):
    """Seeded matches; the agent's seat alternates with the task id (mastermind: always the
    code breaker). Train: 10,000, test: 50, on disjoint seeds."""

    def __init__(self, game: str) -> None:
        self.game = game
        self.item_prefix = game_item_prefix(game)  # type: ignore[misc]

    def size(self, split: str) -> int:
        return TEST_SIZE if split == "test" else TRAIN_SIZE

    def _load(self, split: str, task_id: int) -> GameTask:
        seat = PLAYERS[1] if self.game == "mastermind" else PLAYERS[task_id % 2]
        seed = task_id + (_TEST_SEED_OFFSET if split == "test" else 0)
        return GameTask(task_id, split, seed=seed, seat=seat)


class TextGameEnv(TextEnv):
    """Play one seat of a two-player text game against a built-in opponent.

    ## Description
    ``game``: ``"tictactoe"``, ``"connect_four"``, ``"bargaining"`` (split books, hats and
    balls under private values, Deal-or-No-Deal style) or ``"mastermind"`` (break the
    opponent's hidden code). The same games are PettingZoo AEC envs in
    :mod:`agentgym_envs.multiagent.aec`; this is the view of one player, with the other played
    by ``opponent``.

    ## Action Space
    One move in the game's grammar (its rules are :meth:`instructions`): a cell 1-9, a column
    1-7, ``propose books=1 hats=2 balls=0`` / ``accept``, ``guess R G B Y``. A leading
    ``Action:`` is ignored. A move the game cannot read or allow is feedback (``Illegal move:
    <why>.`` then the unchanged position, ``info["error"]``) and the turn stays with the agent.

    ## Observation Space
    The opponent's last move, the position from the agent's seat (the board; the pool, the
    agent's own values and the standing proposal; the guesses so far with black and white
    pegs), and the legal moves where they are few.

    ## Starting State
    The task's seed fixes the game's randomness (bargaining's pool and values) and the
    opponent's; the agent's seat alternates with the task id (X on even ids), and an opponent
    that moves first has moved.

    ## Rewards
    At the end: tic-tac-toe and connect four 1 win, 0.5 draw, 0 loss; bargaining the value the
    agent receives over the pool's value to it (0 without a deal); mastermind 1 if the code is
    found. 0 on other steps.

    ## Episode End
    When the match ends. Matches are short (9, 42, 10 and 9 moves at most).

    ## Information
    ``seat``, ``opponent_move``; ``available_actions`` (the legal moves) for the board games;
    ``success`` at the end: tic-tac-toe not lost, connect four won, bargaining a deal worth at
    least half the pool to the agent, mastermind the code found.

    ## Arguments
    ``game``; ``opponent``: ``"scripted"`` (default: board games take a win, else block one,
    else play at random; bargaining accepts an offer worth half the pool to it, else proposes
    to keep what it values; mastermind picks a random code), ``"random"``, ``"expert"``, or a
    policy ``(game, player, rng) -> move``, e.g. a
    :class:`~agentgym_envs.multiagent.policies.ChatModelPlayer` on an OpenAI-compatible
    endpoint.

    ## Version History
    v0: initial version.
    """

    family = "multiagent"

    def __init__(
        self,
        game: str = "tictactoe",
        opponent: str | Policy = "scripted",
        render_mode: str | None = None,
    ) -> None:
        if game not in GAMES:
            raise ValueError(f"unknown game {game!r}: use one of {', '.join(GAMES)}")
        super().__init__(GameTasks(game), render_mode=render_mode)
        self.game_name = game
        self.opponent = resolve_policy(opponent)
        self.game: Game | None = None
        self.seat = PLAYERS[0]
        self._opp_rng = random.Random(0)

    def _opponent_moves(self) -> str:
        """Let the opponent move until it is the agent's turn; its last move's text."""
        game = self.game
        assert game is not None
        last = ""
        other = game.other(self.seat)
        for _ in range(20):
            if game.over or game.current != other:
                break
            text = self.opponent(game, other, self._opp_rng)
            move, error = game.parse(other, text)
            if error is not None:  # an opponent's illegal move: a random legal one instead
                move, _ = game.parse(other, game.random_move(self._opp_rng))
            assert move is not None
            game.play(move)
            last = move
        return last

    def _begin(self, task: GameTask) -> tuple[str, dict[str, Any]]:
        self.seat = task.seat
        self.game = GAMES[self.game_name](random.Random(task.seed))
        self._opp_rng = random.Random(task.seed * 7919 + 1)
        opp = self._opponent_moves()
        return self.game.observation(self.seat), {"seat": self.seat, "opponent_move": opp}

    def _act(self, action: str) -> StepResult:
        game = self.game
        assert game is not None
        move, error = game.parse(self.seat, action)
        if error is not None:
            return StepResult(
                f"Illegal move: {error}.\n{game.observation(self.seat)}",
                error=error,
                info={"seat": self.seat},
            )
        assert move is not None
        game.play(move)
        opp = self._opponent_moves()
        info: dict[str, Any] = {"seat": self.seat, "opponent_move": opp}
        reward = 0.0
        if game.over:
            reward = game.returns()[self.seat]
            self.success, self.score = game.won(self.seat), reward
        return StepResult(
            game.observation(self.seat), reward=reward, terminated=game.over, info=info
        )

    def available_actions(self) -> list[str] | None:
        if self.game is None or isinstance(self.game, Mastermind):
            return None
        legal = self.game.legal_moves(self.seat)
        return None if legal is None else list(legal)

    def random_action(self, rng: np.random.Generator) -> str:
        assert self.game is not None
        return self.game.random_move(random.Random(int(rng.integers(2**31))))

    def instructions(self) -> str:
        assert self.game is not None, "call reset() first"
        return self.game.rules(self.seat)

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.game is None:
            return None
        return self.game.view(self.seat)


class GameExpert:
    """The registry's expert for the single-agent ids: the game's solver from
    :data:`~agentgym_envs.multiagent.policies.EXPERTS`, playing the agent's seat."""

    def __init__(self, env: TextGameEnv) -> None:
        self.env = env
        self._rng = random.Random(0)

    def __call__(self, observation: str, info: dict[str, Any]) -> str:
        assert self.env.game is not None
        return expert_player(self.env.game, self.env.seat, self._rng)
