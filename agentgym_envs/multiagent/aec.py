"""PettingZoo AEC environments over the text games of :mod:`.games`.

    from agentgym_envs.multiagent import aec_env
    env = aec_env("tictactoe")
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        env.step(None if terminated or truncated else info["legal_moves"][0])

Observations and actions are text (``gymnasium.spaces.Text`` over the package's charset). A move
the game cannot read or allow is feedback: the same agent keeps the turn, its observation starts
with ``Illegal move: <why>`` and ``infos[agent]["error"]`` says why. ``infos[agent]`` also carries
``legal_moves`` where the set is finite. Moves are read as sent, never normalised: only ASCII
digits, letters and spaces make a move (a fullwidth ``\uff15`` is an illegal move, not ``5``).
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np

from agentgym_envs.core import MAX_ACTION_CHARS, MAX_OBSERVATION_CHARS, TEXT_CHARSET
from agentgym_envs.errors import require
from agentgym_envs.multiagent.games import GAMES, PLAYERS, Game

require("pettingzoo", "multiagent")
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers


class TextObservation(str):
    """A ``str`` that also has the ``dtype`` of its ``Text`` space, as PettingZoo's checkers
    expect every observation to carry one (they compare ``space.dtype == obs.dtype``)."""

    __slots__ = ()
    dtype = np.dtype(str)


class MoveText(spaces.Text):
    """A Text action space whose :meth:`sample` is a random legal move of the game (now and
    then a random string), so random play -- PettingZoo's ``api_test`` included -- finishes
    games and also meets illegal moves."""

    def __init__(self, env: TextGameAEC, agent: str, seed: int | None = None) -> None:
        super().__init__(MAX_ACTION_CHARS, min_length=0, charset=TEXT_CHARSET, seed=seed)
        self._env = env
        self._agent = agent

    def sample(self, mask: Any = None, probability: Any = None) -> str:  # type: ignore[override]
        game = self._env.game
        if mask is None and game is not None and not game.over and self.np_random.random() < 0.9:
            rng = random.Random(int(self.np_random.integers(2**31)))
            return game.random_move(rng)
        length = int(self.np_random.integers(1, 12))
        chars = self.np_random.choice(list("abcdefgh 12345"), size=length)
        return "".join(chars)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MoveText) and other._agent == self._agent


class TextGameAEC(AECEnv):
    """A two-player text game as a PettingZoo AEC env (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"],
        "name": "text_game_v0",
        "is_parallelizable": False,
    }

    def __init__(self, game: str, render_mode: str | None = None) -> None:
        super().__init__()
        if game not in GAMES:
            raise ValueError(f"unknown game {game!r}: use one of {', '.join(GAMES)}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r} is not supported: use 'ansi' or None")
        self.game_cls = GAMES[game]
        self.metadata = {**self.metadata, "name": f"{game}_v0"}
        self.render_mode = render_mode
        self.possible_agents = list(PLAYERS)
        self.observation_spaces = {
            a: spaces.Text(MAX_OBSERVATION_CHARS, min_length=0, charset=TEXT_CHARSET)
            for a in PLAYERS
        }
        self.action_spaces = {a: MoveText(self, a) for a in PLAYERS}
        self.game: Game | None = None
        self._feedback: dict[str, str] = {}
        self._rng = np.random.default_rng()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def rules(self, agent: str) -> str:
        """The rules and move grammar for ``agent`` (a prompt's system part)."""
        assert self.game is not None, "call reset() first"
        return self.game.rules(agent)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            for i, a in enumerate(PLAYERS):
                self.action_spaces[a].seed(seed + i)
        self.game = self.game_cls(random.Random(int(self._rng.integers(2**63))))
        self.agents = list(PLAYERS)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._feedback = {a: "" for a in self.agents}
        self.infos = {a: self._info(a) for a in self.agents}
        self.agent_selection = self.game.current

    def _info(self, agent: str) -> dict[str, Any]:
        assert self.game is not None
        info: dict[str, Any] = {}
        legal = self.game.legal_moves(agent)
        if legal is not None:
            info["legal_moves"] = legal
        if self.game.over:
            info["won"] = self.game.won(agent)
        return info

    def observe(self, agent: str) -> str:
        assert self.game is not None
        text = self.game.observation(agent)
        if self._feedback.get(agent):
            text = f"{self._feedback[agent]}\n{text}"
        return TextObservation(text)

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self.game is not None
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        if not isinstance(action, str):
            move, error = None, f"a move is text, got {type(action).__name__}"
        else:
            move, error = self.game.parse(agent, action)
        if error is not None:
            self._feedback[agent] = f"Illegal move: {error}."
            self.infos[agent] = {**self._info(agent), "error": error}
            self._accumulate_rewards()
            return
        assert move is not None
        self.game.play(move)
        self._feedback = {a: "" for a in self.agents}
        if self.game.over:
            self.rewards = self.game.returns()
            self.terminations = {a: True for a in self.agents}
        self.infos = {a: self._info(a) for a in self.agents}
        self._accumulate_rewards()
        if self.game.over:
            # every agent is stepped once more with None and leaves, mover first
            self.agent_selection = self.game.other(agent)
        else:
            self.agent_selection = self.game.current

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.game is None:
            return None
        return self.game.view(PLAYERS[0])

    def close(self) -> None:
        pass


def raw_env(game: str, render_mode: str | None = None) -> TextGameAEC:
    return TextGameAEC(game, render_mode=render_mode)


def aec_env(game: str, render_mode: str | None = None) -> AECEnv:
    """The game as PettingZoo ships its classic games: wrapped to enforce call order."""
    return wrappers.OrderEnforcingWrapper(raw_env(game, render_mode=render_mode))
