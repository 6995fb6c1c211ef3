"""Multi-agent text games: AEC step/reset speed next to PettingZoo's own classic tic-tac-toe and
connect four (array observations, Discrete actions), and the single-agent views' speed.

    python benchmarks/bench_multiagent.py           # 300 random matches per game
    python benchmarks/bench_multiagent.py --quick   # 50

Both sides play uniformly random legal moves; times are per call, in microseconds.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

import numpy as np

from agentgym_envs.multiagent.aec import raw_env
from agentgym_envs.multiagent.single import TextGameEnv


def us(values: list[float]) -> str:
    return (
        f"mean {statistics.fmean(values) * 1e6:.1f} / p50 {statistics.median(values) * 1e6:.1f} us"
    )


def run_ours(game: str, matches: int) -> tuple[list[float], list[float]]:
    env = raw_env(game)
    resets, steps = [], []
    rng = random.Random(0)
    for seed in range(matches):
        t0 = time.perf_counter()
        env.reset(seed=seed)
        resets.append(time.perf_counter() - t0)
        for _agent in env.agent_iter():
            _obs, _, terminated, truncated, _ = env.last()
            move = None if terminated or truncated else env.game.random_move(rng)
            t0 = time.perf_counter()
            env.step(move)
            steps.append(time.perf_counter() - t0)
    return resets, steps


def run_pettingzoo(game: str, matches: int) -> tuple[list[float], list[float]]:
    from pettingzoo.classic import connect_four_v3, tictactoe_v3

    env = {"tictactoe": tictactoe_v3, "connect_four": connect_four_v3}[game].env()
    resets, steps = [], []
    rng = np.random.default_rng(0)
    for seed in range(matches):
        t0 = time.perf_counter()
        env.reset(seed=seed)
        resets.append(time.perf_counter() - t0)
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            move = (
                None
                if terminated or truncated
                else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            )
            t0 = time.perf_counter()
            env.step(move)
            steps.append(time.perf_counter() - t0)
    return resets, steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n = 50 if args.quick else 300
    out = sys.stdout.write
    for game in ("tictactoe", "connect_four", "bargaining", "mastermind"):
        r, s = run_ours(game, n)
        out(f"{game:13s} ours (AEC, text):  reset {us(r)}; step {us(s)}\n")
        if game in ("tictactoe", "connect_four"):
            r2, s2 = run_pettingzoo(game, n)
            out(f"{game:13s} pettingzoo classic: reset {us(r2)}; step {us(s2)}\n")
        env = TextGameEnv(game)
        rng = np.random.default_rng(0)
        resets, steps = [], []
        for task_id in range(n):
            t0 = time.perf_counter()
            env.reset(options={"split": "train", "task_id": task_id})
            resets.append(time.perf_counter() - t0)
            for _ in range(60):
                action = env.random_action(rng)
                t0 = time.perf_counter()
                *_, terminated, _, _ = env.step(action)
                steps.append(time.perf_counter() - t0)
                if terminated:
                    break
        out(
            f"{game:13s} single-agent view (scripted opponent): reset {us(resets)}; step {us(steps)}\n"
        )


if __name__ == "__main__":
    main()
