"""Two-player text games as PettingZoo AEC environments, single-agent Gymnasium views of them
against a built-in opponent, and self-play collection in AgentTraj format.

    from agentgym_envs.multiagent import aec_env, collect_selfplay
    env = aec_env("connect_four")          # PettingZoo AEC (extra "multiagent")
    records = collect_selfplay("tictactoe", range(100), players=("expert", "random"))

Games: ``tictactoe``, ``connect_four``, ``bargaining``, ``mastermind``. The single-agent ids
(``AgentGym/TicTacToe-v0`` ...) need no PettingZoo.
"""

from __future__ import annotations

from typing import Any

from agentgym_envs.multiagent.games import GAMES
from agentgym_envs.multiagent.policies import ChatModelPlayer
from agentgym_envs.multiagent.single import TextGameEnv


def aec_env(game: str, render_mode: str | None = None) -> Any:
    """The game as a PettingZoo AEC env (order-enforcing wrapper, as PettingZoo's own)."""
    from agentgym_envs.multiagent.aec import aec_env as make

    return make(game, render_mode=render_mode)


def raw_env(game: str, render_mode: str | None = None) -> Any:
    """The unwrapped AEC env."""
    from agentgym_envs.multiagent.aec import raw_env as make

    return make(game, render_mode=render_mode)


def collect_selfplay(*args: Any, **kwargs: Any) -> Any:
    """See :func:`agentgym_envs.multiagent.selfplay.collect_selfplay`."""
    from agentgym_envs.multiagent.selfplay import collect_selfplay as collect

    return collect(*args, **kwargs)


__all__ = ["GAMES", "ChatModelPlayer", "TextGameEnv", "aec_env", "collect_selfplay", "raw_env"]
