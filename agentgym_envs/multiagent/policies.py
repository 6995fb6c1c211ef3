"""Players for the text games: random, the built-in scripted opponent, the solvers, and any
OpenAI-compatible chat model.

A policy is a callable ``(game, player, rng) -> move text`` called when ``player`` is to move.
"""

from __future__ import annotations

import json
import logging
import random
import urllib.request
from collections.abc import Callable
from functools import cache, lru_cache

import numpy as np

from agentgym_envs.multiagent.games import (
    COLORS,
    ITEMS,
    PEGS,
    PLAYERS,
    TOTAL_VALUE,
    Bargaining,
    ConnectFour,
    Game,
    Mastermind,
    TicTacToe,
)

logger = logging.getLogger(__name__)

Policy = Callable[[Game, str, random.Random], str]


def random_player(game: Game, player: str, rng: random.Random) -> str:
    return game.random_move(rng)


def scripted_player(game: Game, player: str, rng: random.Random) -> str:
    """The built-in opponent: see each game's ``scripted_move``."""
    return game.scripted_move(rng)


# -- tic-tac-toe: exact minimax ------------------------------------------------------------
_LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def _ttt_winner(cells: str) -> str | None:
    for a, b, c in _LINES:
        if cells[a] != "." and cells[a] == cells[b] == cells[c]:
            return cells[a]
    return None


def _ttt_move_score(cells: str, i: int, me: str) -> int:
    """Score for ``me`` of playing cell ``i`` then perfect play: a win scores more the sooner
    it comes (1 + empty cells left), a loss the reverse, a draw 0."""
    other = "O" if me == "X" else "X"
    nxt = cells[:i] + me + cells[i + 1 :]
    if _ttt_winner(nxt):
        return 1 + nxt.count(".")
    if "." not in nxt:
        return 0
    return -_ttt_best(nxt, other)


@cache
def _ttt_best(cells: str, to_move: str) -> int:
    return max(_ttt_move_score(cells, i, to_move) for i, v in enumerate(cells) if v == ".")


def tictactoe_expert(game: Game, player: str, rng: random.Random) -> str:
    """Perfect play; among equal moves the quickest win (or the longest resistance)."""
    assert isinstance(game, TicTacToe)
    me = game.marks[player]
    cells = "".join(v for row in game.board for v in row)
    moves = [i for i, v in enumerate(cells) if v == "."]
    best = max(moves, key=lambda i: (_ttt_move_score(cells, i, me), -i))
    return str(best + 1)


# -- connect four: alpha-beta on bitboards -------------------------------------------------
# Bit ``7 * col + row`` (row 0 at the bottom); the 7th bit of each column stays empty so that
# shifted lines never wrap into the next column.
def _bit(col: int, row: int) -> int:
    return 1 << (7 * col + row)


_C4_WINDOWS: list[int] = []
for _c in range(7):
    for _r in range(6):
        for _dc, _dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            _cells = [(_c + k * _dc, _r + k * _dr) for k in range(4)]
            if all(0 <= cc < 7 and 0 <= rr < 6 for cc, rr in _cells):
                _C4_WINDOWS.append(sum(_bit(cc, rr) for cc, rr in _cells))
_C4_CENTER = sum(_bit(3, r) for r in range(6))
_C4_ORDER = (3, 2, 4, 1, 5, 0, 6)
_WIN = 1_000_000
_MINE, _THEIRS = (0, 1, 8, 50, 0), (0, 1, 10, 80, 0)


def _c4_won(pieces: int) -> bool:
    for shift in (1, 7, 6, 8):
        m = pieces & (pieces >> shift)
        if m & (m >> (2 * shift)):
            return True
    return False


def _c4_eval(me: int, other: int) -> int:
    score = 3 * (me & _C4_CENTER).bit_count()
    for w in _C4_WINDOWS:
        if not w & other:
            score += _MINE[(w & me).bit_count()]
        elif not w & me:
            score -= _THEIRS[(w & other).bit_count()]
    return score


def _c4_search(me: int, other: int, heights: list[int], depth: int, alpha: int, beta: int) -> int:
    """Negamax value for the side owning ``me``, to move."""
    moves = [c for c in _C4_ORDER if heights[c] < 6]
    if not moves:
        return 0
    if depth == 0:
        return _c4_eval(me, other)
    best = -_WIN * 10
    for col in moves:
        placed = me | _bit(col, heights[col])
        if _c4_won(placed):
            return _WIN + depth
        heights[col] += 1
        value = -_c4_search(other, placed, heights, depth - 1, -beta, -alpha)
        heights[col] -= 1
        best = max(best, value)
        alpha = max(alpha, value)
        if alpha >= beta:
            break
    return best


def connect_four_expert(game: Game, player: str, rng: random.Random, depth: int = 4) -> str:
    """Alpha-beta search ``depth`` plies deep with an open-window heuristic."""
    assert isinstance(game, ConnectFour)
    mark = game.marks[player]
    me = other = 0
    heights = [0] * 7
    for r in range(6):
        for c in range(7):
            v = game.board[5 - r][c]
            if v != ".":
                heights[c] = r + 1
                if v == mark:
                    me |= _bit(c, r)
                else:
                    other |= _bit(c, r)
    best, choice = None, None
    for col in _C4_ORDER:
        if heights[col] >= 6:
            continue
        placed = me | _bit(col, heights[col])
        if _c4_won(placed):
            return str(col + 1)
        heights[col] += 1
        value = -_c4_search(other, placed, heights, depth - 1, -_WIN * 10, _WIN * 10)
        heights[col] -= 1
        if best is None or value > best:
            best, choice = value, col
    return str(int(choice) + 1)  # type: ignore[arg-type]


# -- bargaining: knows both valuations -----------------------------------------------------
def bargaining_expert(game: Game, player: str, rng: random.Random) -> str:
    """A privileged solver: it reads the opponent's values and the built-in opponent's
    acceptance rule, and proposes the split best for itself that the opponent accepts (or
    accepts a standing offer at least as good)."""
    assert isinstance(game, Bargaining)
    other = game.other(player)
    floor = TOTAL_VALUE * Bargaining.ACCEPT_SHARE
    best = max(
        (keep for keep in game.splits(game.counts) if game.value_of(other, keep, player) >= floor),
        key=lambda keep: (game.value_of(player, keep, player), keep),
    )
    offer = game.offer
    standing = -1 if offer is None or offer[0] != other else game.value_of(player, offer[1], other)
    if standing >= game.value_of(player, best, player):
        return "accept"
    return "propose " + " ".join(f"{k}={v}" for k, v in zip(ITEMS, best))


# -- mastermind: Knuth's minimax -----------------------------------------------------------
@lru_cache(maxsize=1)
def _mm_table() -> tuple[list[str], np.ndarray]:
    codes = [
        "".join(p)
        for p in np.array(np.meshgrid(*[list(COLORS)] * PEGS, indexing="ij")).reshape(PEGS, -1).T
    ]
    arr = np.array([[COLORS.index(ch) for ch in code] for code in codes])
    black = (arr[:, None, :] == arr[None, :, :]).sum(-1)
    counts = np.stack([(arr == k).sum(1) for k in range(len(COLORS))], 1)
    common = np.minimum(counts[:, None, :], counts[None, :, :]).sum(-1)
    return codes, (black * 10 + (common - black)).astype(np.int16)


def mastermind_expert(game: Game, player: str, rng: random.Random) -> str:
    """Code breaker: Knuth's minimax (at most five guesses). Code maker: a random code."""
    assert isinstance(game, Mastermind)
    if player == PLAYERS[0]:
        return game.random_move(rng)
    codes, table = _mm_table()
    alive = np.ones(len(codes), dtype=bool)
    for guess, (b, w) in game.history:
        alive &= table[codes.index(guess)] == b * 10 + w
    candidates = np.flatnonzero(alive)
    if not game.history:
        return "guess " + " ".join("RRGG")
    if len(candidates) <= 2:
        return "guess " + " ".join(codes[candidates[0]])
    sub = table[:, candidates].astype(np.int64) + 45 * np.arange(len(codes))[:, None]
    worst = np.bincount(sub.ravel(), minlength=45 * len(codes)).reshape(len(codes), 45).max(1)
    best = worst.min()
    ties = np.flatnonzero(worst == best)
    in_set = [i for i in ties if alive[i]]
    return "guess " + " ".join(codes[in_set[0] if in_set else ties[0]])


EXPERTS: dict[str, Policy] = {
    "tictactoe": tictactoe_expert,
    "connect_four": connect_four_expert,
    "bargaining": bargaining_expert,
    "mastermind": mastermind_expert,
}


def expert_player(game: Game, player: str, rng: random.Random) -> str:
    return EXPERTS[game.name](game, player, rng)


class ChatModelPlayer:
    """A player backed by an OpenAI-compatible chat endpoint (vLLM, llama.cpp, Ollama ...).

    The system message is the game's rules for its seat, the user message its observation; the
    reply is read as a move. A reply the game cannot read is answered with the reason and asked
    again (``retries`` times); after that a random legal move is played and logged.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str = "",
        temperature: float = 0.0,
        max_tokens: int = 32,
        retries: int = 2,
        timeout: float = 60.0,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model, self.api_key = model, api_key
        self.temperature, self.max_tokens = temperature, max_tokens
        self.retries, self.timeout = retries, timeout

    def _chat(self, messages: list[dict[str, str]]) -> str:
        body = json.dumps(
            {
                "model": self.model,
                "messages": messages,
                "temperature": self.temperature,
                "max_tokens": self.max_tokens,
            }
        ).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.url, data=body, headers=headers)
        with urllib.request.urlopen(req, timeout=self.timeout) as resp:
            return str(json.load(resp)["choices"][0]["message"]["content"] or "")

    def __call__(self, game: Game, player: str, rng: random.Random) -> str:
        messages = [
            {"role": "system", "content": game.rules(player) + " Reply with your move only."},
            {"role": "user", "content": game.observation(player)},
        ]
        for _ in range(self.retries + 1):
            reply = self._chat(messages).strip()
            _move, error = game.parse(player, reply)
            if error is None:
                return reply
            messages += [
                {"role": "assistant", "content": reply},
                {"role": "user", "content": f"Illegal move: {error}. Try again."},
            ]
        logger.warning("%s gave no legal move; playing a random one", self.model)
        return game.random_move(rng)


def resolve_policy(policy: str | Policy) -> Policy:
    """``"random"``, ``"scripted"``, ``"expert"`` or a policy callable."""
    if callable(policy):
        return policy
    named = {"random": random_player, "scripted": scripted_player, "expert": expert_player}
    if policy not in named:
        raise ValueError(
            f"unknown player {policy!r}: use 'random', 'scripted', 'expert' or a callable"
        )
    return named[policy]
