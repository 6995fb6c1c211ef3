"""Two-player text games: the rules, nothing about agents or APIs.

A :class:`Game` holds one match: whose turn it is, what each player may see, which moves are
legal, how a text move reads, and what each player scores at the end. The PettingZoo AEC env
(:mod:`.aec`), the single-agent view (:mod:`.single`) and the opponents all drive games through
this interface only.

Games: tic-tac-toe and connect four (perfect information), bargaining (Deal-or-No-Deal style
split of an item pool under private values) and mastermind (the code maker's code is hidden from
the code breaker).
"""

from __future__ import annotations

import abc
import itertools
import random
import re
import string
from typing import ClassVar

PLAYERS = ("player_0", "player_1")
# Moves are read in ASCII only (``re.ASCII``, ASCII case and whitespace): a Unicode digit,
# letter or space never reads as its ASCII look-alike (fullwidth 5 is not 5, Kelvin K not k).
_ACTION_PREFIX = re.compile(r"^\s*(?:action\s*:)?\s*", re.IGNORECASE | re.ASCII)
_SPACE = " \t\n\r\x0b\x0c"
_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_UPPER = str.maketrans(string.ascii_lowercase, string.ascii_uppercase)


def _clean(text: str) -> str:
    text = _ACTION_PREFIX.sub("", text.strip(_SPACE))
    return text.strip(_SPACE).strip(".!`'\"").strip(_SPACE)


class Game(abc.ABC):
    """One match of a two-player turn-based text game."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    #: Upper bound on moves in a match (PettingZoo's ``max_cycles`` need not be larger).
    max_moves: ClassVar[int] = 100

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.current = PLAYERS[0]
        self.over = False
        self.moves = 0
        #: What happened last, per player (``Your opponent played 5.``).
        self.events: dict[str, str] = {p: "" for p in PLAYERS}

    @staticmethod
    def other(player: str) -> str:
        return PLAYERS[1 - PLAYERS.index(player)]

    @abc.abstractmethod
    def rules(self, player: str) -> str:
        """The game's rules and move grammar, from ``player``'s seat."""

    @abc.abstractmethod
    def view(self, player: str) -> str:
        """What ``player`` sees now (no hidden information of the other player)."""

    def legal_moves(self, player: str) -> list[str] | None:
        """The legal moves of ``player`` now, or ``None`` where the set is open (a grammar)."""
        return None

    @abc.abstractmethod
    def parse(self, player: str, text: str) -> tuple[str | None, str | None]:
        """``(move, None)`` for a legal move in canonical form, ``(None, why)`` otherwise."""

    @abc.abstractmethod
    def _play(self, player: str, move: str) -> None:
        """Apply a legal canonical move."""

    @abc.abstractmethod
    def returns(self) -> dict[str, float]:
        """Each player's score once the match is over."""

    @abc.abstractmethod
    def won(self, player: str) -> bool:
        """Whether the finished match counts as a success for ``player``."""

    @abc.abstractmethod
    def random_move(self, rng: random.Random) -> str:
        """A uniformly random legal move of the player to move."""

    def scripted_move(self, rng: random.Random) -> str:
        """The built-in opponent's move (default: random)."""
        return self.random_move(rng)

    def play(self, move: str) -> None:
        player = self.current
        self._play(player, move)
        self.moves += 1
        if self.moves >= self.max_moves:
            self.over = True

    def observation(self, player: str) -> str:
        """``player``'s observation: the last event, the state, and whose turn it is."""
        parts = [self.events[player]] if self.events[player] else []
        parts.append(self.view(player))
        if self.over:
            parts.append(self.result_text(player))
        elif self.current == player:
            legal = self.legal_moves(player)
            parts.append(
                "It is your turn." + (f" Legal moves: {', '.join(legal)}." if legal else "")
            )
        else:
            parts.append("It is your opponent's turn.")
        return "\n".join(parts)

    def result_text(self, player: str) -> str:
        score = self.returns()[player]
        return f"The game is over. Your score: {score:g}."


# -- tic-tac-toe and connect four ---------------------------------------------------------
class _Grid(Game):
    rows: ClassVar[int] = 3
    cols: ClassVar[int] = 3
    connect: ClassVar[int] = 3
    marks: ClassVar[dict[str, str]] = {PLAYERS[0]: "X", PLAYERS[1]: "O"}

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.board = [["." for _ in range(self.cols)] for _ in range(self.rows)]
        self.winner: str | None = None

    def line_at(self, r: int, c: int) -> bool:
        mark = self.board[r][c]
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            n = 1
            for sign in (1, -1):
                rr, cc = r + sign * dr, c + sign * dc
                while 0 <= rr < self.rows and 0 <= cc < self.cols and self.board[rr][cc] == mark:
                    n += 1
                    rr, cc = rr + sign * dr, cc + sign * dc
            if n >= self.connect:
                return True
        return False

    def _finish_move(self, player: str, r: int, c: int, label: str) -> None:
        self.events[player] = f"You played {label}."
        self.events[self.other(player)] = f"Your opponent ({self.marks[player]}) played {label}."
        if self.line_at(r, c):
            self.over, self.winner = True, player
        elif all(v != "." for row in self.board for v in row):
            self.over = True
        else:
            self.current = self.other(player)

    def returns(self) -> dict[str, float]:
        if self.winner is None:
            return {p: 0.5 for p in PLAYERS}
        return {p: 1.0 if p == self.winner else 0.0 for p in PLAYERS}

    def result_text(self, player: str) -> str:
        if self.winner is None:
            return "The game is over: a draw."
        return f"The game is over: you {'win' if self.winner == player else 'lose'}."

    def random_move(self, rng: random.Random) -> str:
        return rng.choice(self.legal_moves(self.current) or [""])

    def _single_int(self, text: str, lo: int, hi: int, what: str) -> tuple[int | None, str | None]:
        text = _clean(text).translate(_LOWER)
        text = re.sub(
            r"^(?:move|play|place|put|drop|column|col|cell)\b\s*:?\s*", "", text, flags=re.ASCII
        )
        text = re.sub(r"^(?:in|at|on)\s+(?:column|col|cell)?\s*", "", text, flags=re.ASCII)
        if not re.fullmatch(r"[0-9]+", text):
            return None, f"write one {what} number from {lo} to {hi}"
        n = int(text)
        if not lo <= n <= hi:
            return None, f"{what} {n} does not exist: use {lo} to {hi}"
        return n, None

    def scripted_move(self, rng: random.Random) -> str:
        """Win if possible, else block the opponent's immediate win, else random."""
        me = self.current
        moves = self.legal_moves(me) or []
        for player in (me, self.other(me)):
            for move in moves:
                if self._would_win(player, move):
                    return move
        return rng.choice(moves)

    def _would_win(self, player: str, move: str) -> bool:
        r, c = self._cell(move)
        self.board[r][c] = self.marks[player]
        try:
            return self.line_at(r, c)
        finally:
            self.board[r][c] = "."

    @abc.abstractmethod
    def _cell(self, move: str) -> tuple[int, int]:
        """The board cell a legal move fills."""


class TicTacToe(_Grid):
    """Three in a row on a 3x3 board; X (``player_0``) moves first."""

    name = "tictactoe"
    title = "Tic-tac-toe"
    max_moves = 9

    def rules(self, player: str) -> str:
        return (
            f"You are playing tic-tac-toe as {self.marks[player]}. X moves first. Players take "
            "turns writing their mark in an empty cell of the 3x3 board; the first to get three "
            "marks in a row (across, down or diagonally) wins; a full board without a row is a "
            "draw. Cells are numbered 1 to 9, left to right and top to bottom. To move, write the "
            "number of an empty cell, for example: 5"
        )

    def view(self, player: str) -> str:
        rows = []
        for r in range(3):
            cells = [v if v != "." else str(3 * r + c + 1) for c, v in enumerate(self.board[r])]
            rows.append(" " + " | ".join(cells))
        return f"You are {self.marks[player]}. Board:\n" + "\n---+---+---\n".join(rows)

    def legal_moves(self, player: str) -> list[str] | None:
        if self.over or player != self.current:
            return []
        return [str(3 * r + c + 1) for r in range(3) for c in range(3) if self.board[r][c] == "."]

    def _cell(self, move: str) -> tuple[int, int]:
        return divmod(int(move) - 1, 3)

    def parse(self, player: str, text: str) -> tuple[str | None, str | None]:
        n, error = self._single_int(text, 1, 9, "cell")
        if error:
            return None, error
        r, c = self._cell(str(n))
        if self.board[r][c] != ".":
            return None, f"cell {n} is taken"
        return str(n), None

    def _play(self, player: str, move: str) -> None:
        r, c = self._cell(move)
        self.board[r][c] = self.marks[player]
        self._finish_move(player, r, c, f"cell {move}")

    def won(self, player: str) -> bool:
        """Not losing: a draw against a player who takes every win offered is a success."""
        return self.winner in (None, player)


class ConnectFour(_Grid):
    """Four in a row on a 6x7 board, pieces dropped into columns; X moves first."""

    name = "connect_four"
    title = "Connect four"
    rows, cols, connect = 6, 7, 4
    max_moves = 42

    def rules(self, player: str) -> str:
        return (
            f"You are playing connect four as {self.marks[player]}. X moves first. The board has "
            "6 rows and 7 columns, numbered 1 to 7 from the left. Players take turns dropping a "
            "piece into a column that is not full; it falls to the lowest empty row. The first to "
            "get four pieces in a row (across, down or diagonally) wins; a full board is a draw. "
            "To move, write a column number, for example: 4"
        )

    def view(self, player: str) -> str:
        lines = [" ".join(str(c + 1) for c in range(7))]
        lines += [" ".join(row) for row in self.board]
        return f"You are {self.marks[player]}. Board (top row first):\n" + "\n".join(lines)

    def legal_moves(self, player: str) -> list[str] | None:
        if self.over or player != self.current:
            return []
        return [str(c + 1) for c in range(7) if self.board[0][c] == "."]

    def _cell(self, move: str) -> tuple[int, int]:
        c = int(move) - 1
        r = max(r for r in range(6) if self.board[r][c] == ".")
        return r, c

    def parse(self, player: str, text: str) -> tuple[str | None, str | None]:
        n, error = self._single_int(text, 1, 7, "column")
        if error:
            return None, error
        if self.board[0][n - 1] != ".":
            return None, f"column {n} is full"
        return str(n), None

    def _play(self, player: str, move: str) -> None:
        r, c = self._cell(move)
        self.board[r][c] = self.marks[player]
        self._finish_move(player, r, c, f"column {move}")

    def won(self, player: str) -> bool:
        return self.winner == player


# -- bargaining ---------------------------------------------------------------------------
ITEMS = ("books", "hats", "balls")
TOTAL_VALUE = 10
_PROPOSAL = re.compile(
    r"([0-9]+)\s*(book|hat|ball)s?|(book|hat|ball)s?\s*[=:]\s*([0-9]+)", re.ASCII
)


class Bargaining(Game):
    """Split a pool of books, hats and balls; each player values the items privately.

    As in Lewis et al.'s Deal or No Deal: the pool has 5 to 7 items, each player's values are
    whole numbers that sum to 10 over the pool, and a deal exists that gives both players at
    least 5. Players alternate: ``propose books=1 hats=2 balls=0`` (what the proposer keeps; the
    other player gets the rest) or ``accept`` (the standing proposal). A player's score is the
    value it receives divided by 10; with no deal after 10 moves both score 0.
    """

    name = "bargaining"
    title = "Bargaining"
    max_moves = 10
    #: The built-in opponent accepts a proposal worth at least this share to it.
    ACCEPT_SHARE = 0.5

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        while True:
            counts = [rng.randint(1, 4) for _ in ITEMS]
            if not 5 <= sum(counts) <= 7:
                continue
            values = {p: self._values(counts, rng) for p in PLAYERS}
            if values[PLAYERS[0]] == values[PLAYERS[1]]:
                continue
            if any(
                min(
                    self._worth(values[p], keep if p == PLAYERS[0] else self._rest(counts, keep))
                    for p in PLAYERS
                )
                >= TOTAL_VALUE / 2
                for keep in self.splits(counts)
            ):
                break
        self.counts = counts
        self.values = values
        self.offer: tuple[str, tuple[int, ...]] | None = None  # (proposer, what it keeps)
        self.deal: dict[str, tuple[int, ...]] | None = None

    @staticmethod
    def _values(counts: list[int], rng: random.Random) -> tuple[int, ...]:
        while True:
            vals = [rng.randint(0, TOTAL_VALUE) for _ in counts]
            if sum(v * n for v, n in zip(vals, counts)) == TOTAL_VALUE and sum(vals) > 0:
                return tuple(vals)

    @staticmethod
    def splits(counts: list[int]) -> list[tuple[int, ...]]:
        """Every way to keep part of a pool of ``counts`` items: ``(books, hats, balls)`` kept."""
        return list(itertools.product(*(range(n + 1) for n in counts)))

    @staticmethod
    def _rest(counts: list[int], keep: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(n - k for n, k in zip(counts, keep))

    @staticmethod
    def _worth(values: tuple[int, ...], items: tuple[int, ...]) -> int:
        return sum(v * n for v, n in zip(values, items))

    @staticmethod
    def _items(items: tuple[int, ...]) -> str:
        return ", ".join(f"{n} {name if n != 1 else name[:-1]}" for n, name in zip(items, ITEMS))

    def rules(self, player: str) -> str:
        return (
            "You are bargaining with another player over a pool of books, hats and balls. Each "
            "of you values the items differently and only knows their own values. Take turns: "
            "propose a split by saying how many of each item you keep (the other player gets the "
            "rest), for example: propose books=1 hats=2 balls=0 -- or accept the other player's "
            "standing proposal with: accept. Your score is the total value of the items you get "
            f"divided by {TOTAL_VALUE}. If there is no deal after {self.max_moves} moves in "
            "total, both players score 0."
        )

    def view(self, player: str) -> str:
        vals = ", ".join(f"{name[:-1]} {v}" for name, v in zip(ITEMS, self.values[player]))
        lines = [
            f"Pool: {self._items(tuple(self.counts))}.",
            f"Your values per item: {vals} (the whole pool is worth {TOTAL_VALUE} to you).",
            f"Moves left: {self.max_moves - self.moves}.",
        ]
        if self.offer is not None and not self.over:
            proposer, keep = self.offer
            if proposer == player:
                lines.append(f"Your standing proposal: you keep {self._items(keep)}.")
            else:
                give = self._rest(self.counts, keep)
                lines.append(
                    f"Standing proposal from your opponent: you get {self._items(give)} "
                    f"(worth {self._worth(self.values[player], give)} to you)."
                )
        return "\n".join(lines)

    def parse(self, player: str, text: str) -> tuple[str | None, str | None]:
        text = _clean(text).translate(_LOWER)
        if text in ("accept", "accept the deal", "deal", "i accept"):
            if self.offer is None or self.offer[0] == player:
                return None, "there is no proposal from your opponent to accept"
            return "accept", None
        if not text.startswith("propose"):
            return None, "write 'propose books=<n> hats=<n> balls=<n>' or 'accept'"
        keep = dict.fromkeys(ITEMS, -1)
        for m in _PROPOSAL.finditer(text):
            n, item = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
            keep[item + "s"] = int(n)
        if any(v < 0 for v in keep.values()):
            missing = [k for k, v in keep.items() if v < 0]
            return None, f"say how many you keep of every item (missing: {', '.join(missing)})"
        for (item, n), have in zip(keep.items(), self.counts):
            if n > have:
                return None, f"the pool has only {have} {item}"
        return "propose " + " ".join(f"{k}={v}" for k, v in keep.items()), None

    def _play(self, player: str, move: str) -> None:
        other = self.other(player)
        if move == "accept":
            assert self.offer is not None
            proposer, keep = self.offer
            self.deal = {proposer: keep, player: self._rest(self.counts, keep)}
            self.over = True
            self.events[player] = "You accepted the proposal."
            self.events[other] = "Your opponent accepted your proposal."
        else:
            keep = tuple(int(part.split("=")[1]) for part in move.split()[1:])
            self.offer = (player, keep)
            self.events[player] = f"You proposed to keep {self._items(keep)}."
            self.events[other] = f"Your opponent proposed to keep {self._items(keep)}."
        self.current = other

    def returns(self) -> dict[str, float]:
        if self.deal is None:
            return {p: 0.0 for p in PLAYERS}
        return {p: self._worth(self.values[p], self.deal[p]) / TOTAL_VALUE for p in PLAYERS}

    def result_text(self, player: str) -> str:
        if self.deal is None:
            return "The game is over: no deal. Your score: 0."
        return (
            f"The game is over: deal. You get {self._items(self.deal[player])}. "
            f"Your score: {self.returns()[player]:g}."
        )

    def won(self, player: str) -> bool:
        return self.deal is not None and self.returns()[player] >= 0.5

    def random_move(self, rng: random.Random) -> str:
        if self.offer is not None and self.offer[0] != self.current and rng.random() < 0.3:
            return "accept"
        keep = tuple(rng.randint(0, n) for n in self.counts)
        return "propose " + " ".join(f"{k}={v}" for k, v in zip(ITEMS, keep))

    def value_of(self, player: str, keep: tuple[int, ...], proposer: str) -> int:
        """What ``player`` gets, in value, if ``proposer`` keeps ``keep``."""
        items = keep if player == proposer else self._rest(self.counts, keep)
        return self._worth(self.values[player], items)

    def scripted_move(self, rng: random.Random) -> str:
        """Accept a proposal worth half the pool to it; else propose its own greedy split
        (keep every item it values, give away the rest)."""
        me = self.current
        offer = self.offer
        if offer is not None and offer[0] != me:
            worth = self.value_of(me, offer[1], offer[0])
            if worth >= TOTAL_VALUE * self.ACCEPT_SHARE:
                return "accept"
        keep = tuple(n if v > 0 else 0 for n, v in zip(self.counts, self.values[me]))
        return "propose " + " ".join(f"{k}={v}" for k, v in zip(ITEMS, keep))


# -- mastermind ---------------------------------------------------------------------------
COLORS = "RGBYOP"
COLOR_NAMES = dict(zip(COLORS, ("red", "green", "blue", "yellow", "orange", "purple")))
PEGS = 4


def score_guess(code: str, guess: str) -> tuple[int, int]:
    """(black, white): right colour in the right place; right colour elsewhere."""
    black = sum(a == b for a, b in zip(code, guess))
    common = sum(min(code.count(c), guess.count(c)) for c in set(guess))
    return black, common - black


class Mastermind(Game):
    """The code maker (``player_0``) picks a hidden code of 4 pegs in 6 colours; the code
    breaker (``player_1``) has 8 guesses, each answered with black and white pegs."""

    name = "mastermind"
    title = "Mastermind"
    max_guesses = 8
    max_moves = 1 + max_guesses

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.code: str | None = None
        self.history: list[tuple[str, tuple[int, int]]] = []

    def rules(self, player: str) -> str:
        colours = ", ".join(f"{c} ({n})" for c, n in COLOR_NAMES.items())
        common = (
            f"A code is {PEGS} pegs, each one of the colours {colours}; colours may repeat. "
            f"Each guess is answered with black pegs (right colour in the right place) and "
            "white pegs (right colour in the wrong place)."
        )
        if player == PLAYERS[0]:
            return (
                "You are the code maker in mastermind. Choose a secret code; the code breaker has "
                f"{self.max_guesses} guesses to find it. {common} Write your code as, for "
                "example: code R G B Y. You win if the code is not found."
            )
        return (
            "You are the code breaker in mastermind. The code maker has chosen a secret code; "
            f"find it in at most {self.max_guesses} guesses. {common} Write a guess as, for "
            "example: guess R G B Y"
        )

    def view(self, player: str) -> str:
        if player == PLAYERS[0]:
            head = f"Your code: {' '.join(self.code)}." if self.code else "Choose your code."
        else:
            head = (
                f"Guesses left: {self.max_guesses - len(self.history)}."
                if self.code
                else "The code maker is choosing a code."
            )
        lines = [head]
        for guess, (b, w) in self.history:
            lines.append(f"Guess {' '.join(guess)}: {b} black, {w} white.")
        return "\n".join(lines)

    def parse(self, player: str, text: str) -> tuple[str | None, str | None]:
        text = _clean(text).translate(_UPPER)
        verb = "CODE" if player == PLAYERS[0] else "GUESS"
        text = re.sub(rf"^{verb}\b\s*:?\s*", "", text, flags=re.ASCII)
        pegs = re.sub(r"[\s,;\-]+", "", text, flags=re.ASCII)
        if len(pegs) != PEGS or any(c not in COLORS for c in pegs):
            return None, (
                f"write {verb.lower()} and {PEGS} colour letters from {COLORS}, "
                f"e.g. {verb.lower()} R G B Y"
            )
        return pegs, None

    def _play(self, player: str, move: str) -> None:
        if player == PLAYERS[0]:
            self.code = move
            self.events[player] = f"You chose the code {' '.join(move)}."
            self.events[self.other(player)] = "The code maker has chosen a code."
            self.current = PLAYERS[1]
            return
        assert self.code is not None
        b, w = score_guess(self.code, move)
        self.history.append((move, (b, w)))
        self.events[player] = f"Your guess {' '.join(move)}: {b} black, {w} white."
        self.events[self.other(player)] = f"The code breaker guessed {' '.join(move)}."
        if b == PEGS or len(self.history) >= self.max_guesses:
            self.over = True

    @property
    def cracked(self) -> bool:
        return bool(self.history) and self.history[-1][1][0] == PEGS

    def returns(self) -> dict[str, float]:
        return {PLAYERS[0]: float(not self.cracked), PLAYERS[1]: float(self.cracked)}

    def result_text(self, player: str) -> str:
        found = "found" if self.cracked else "not found"
        return f"The game is over: the code {' '.join(self.code or '')} was {found}."

    def won(self, player: str) -> bool:
        return self.returns()[player] == 1.0

    def random_move(self, rng: random.Random) -> str:
        pegs = "".join(rng.choice(COLORS) for _ in range(PEGS))
        return ("code " if self.current == PLAYERS[0] else "guess ") + " ".join(pegs)


GAMES: dict[str, type[Game]] = {g.name: g for g in (TicTacToe, ConnectFour, Bargaining, Mastermind)}
