"""Self-play: play matches of a text game between two policies on the PettingZoo AEC env and
keep both players' sides as AgentTraj records.

Each record is one player's conversation in AgentGym's shape: the rules (``human``), ``Ok.``
(``gpt``, ``loss: false``), then the player's observations (``human``) and moves (``gpt``,
``loss: true``). ``item_id`` is ``<game prefix>_<seed>``, ``reward`` the player's final score,
``success`` whether the match counts as won for it; extra keys ``player`` and ``opponent``
say which seat and against what.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterable
from pathlib import Path

from agentgym_envs.datasets.agenttraj import Trajectory, Turn, save_agenttraj
from agentgym_envs.multiagent.aec import raw_env
from agentgym_envs.multiagent.games import PLAYERS
from agentgym_envs.multiagent.policies import Policy, resolve_policy
from agentgym_envs.multiagent.single import game_item_prefix

ACK = "Ok."


def _name(policy: str | Policy) -> str:
    return policy if isinstance(policy, str) else getattr(policy, "__name__", type(policy).__name__)


def collect_selfplay(
    game: str,
    seeds: Iterable[int],
    players: tuple[str | Policy, str | Policy] = ("expert", "scripted"),
    path: str | os.PathLike[str] | None = None,
    max_moves: int = 200,
) -> list[Trajectory]:
    """Play one match per seed, ``players[0]`` as ``player_0``; two records per match.

    ``players`` are ``"random"``, ``"scripted"``, ``"expert"`` or policies
    ``(game, player, rng) -> move``. With ``path`` the records are also written there
    (JSON or JSONL by suffix).
    """
    policies = {p: resolve_policy(pl) for p, pl in zip(PLAYERS, players)}
    names = {p: _name(pl) for p, pl in zip(PLAYERS, players)}
    out: list[Trajectory] = []
    env = raw_env(game)
    for seed in seeds:
        env.reset(seed=seed)
        rngs = {p: random.Random(seed * 31 + i) for i, p in enumerate(PLAYERS)}
        conv = {p: [Turn("human", env.rules(p)), Turn("gpt", ACK, False)] for p in PLAYERS}
        final = {p: 0.0 for p in PLAYERS}
        for n, agent in enumerate(env.agent_iter()):
            obs, reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                final[agent] = float(reward)
                env.step(None)
                continue
            if n >= max_moves:
                break
            move = policies[agent](env.game, agent, rngs[agent])
            conv[agent] += [Turn("human", str(obs)), Turn("gpt", move, True)]
            env.step(move)
        assert env.game is not None
        for p in PLAYERS:
            out.append(
                Trajectory(
                    item_id=f"{game_item_prefix(game)}_{seed}",
                    conversations=conv[p],
                    reward=final[p],
                    success=bool(env.game.over and env.game.won(p)),
                    extra={
                        "player": p,
                        "policy": names[p],
                        "opponent": names[PLAYERS[1 - PLAYERS.index(p)]],
                    },
                )
            )
    if path is not None:
        save_agenttraj(out, Path(path))
    return out
