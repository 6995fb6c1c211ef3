"""The tic-tac-toe expert read off a position's text, for :class:`ExpertChatServer`.

When the opponent is not the env's built-in player (another model, the multi-turn agent's
user), replaying a conversation in a copy of the env does not reproduce the game; the
position in the last observation does. A board game's observation is the whole state.
"""

from __future__ import annotations

import random
import re
from typing import Any

_BOARD = re.compile(r"You are ([XO])\. Board:\n((?:.*\|.*\n?(?:---\+---\+---\n?)?){3})")


def board_of(text: str) -> tuple[str, str] | None:
    """``(mark, cells)`` of the last tic-tac-toe position in ``text`` where it is the
    reader's turn (``cells``: 9 characters of ``X``, ``O`` or ``.``), else ``None``."""
    found = list(_BOARD.finditer(text))
    if not found or "It is your turn" not in text[found[-1].end() :]:
        return None
    mark, rows = found[-1].group(1), found[-1].group(2)
    cells = "".join(
        "." if c.isdigit() else c
        for line in rows.splitlines()
        if "|" in line
        for c in (part.strip() for part in line.split("|"))
    )
    return (mark, cells) if len(cells) == 9 else None


def tictactoe_move(messages: list[dict[str, Any]]) -> str | None:
    """The expert's move for the last position in ``messages`` (a cell 1-9), or ``None``."""
    from agentgym_envs.multiagent.games import PLAYERS, TicTacToe
    from agentgym_envs.multiagent.policies import tictactoe_expert

    for message in reversed(messages):
        if message.get("role") not in ("user", "tool") or not isinstance(
            message.get("content"), str
        ):
            continue
        read = board_of(message["content"])
        if read is None:
            continue
        mark, cells = read
        game = TicTacToe(random.Random(0))
        game.board = [list(cells[i : i + 3]) for i in (0, 3, 6)]
        player = PLAYERS[0] if mark == "X" else PLAYERS[1]
        game.current = player
        return tictactoe_expert(game, player, random.Random(0))
    return None


__all__ = ["board_of", "tictactoe_move"]
