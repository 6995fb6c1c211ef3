"""TextWorld speed: compile time per game, and reset/step through this package's env next to
the same games on textworld's own ``Environment`` (``textworld.start``), expert commands.

    python benchmarks/bench_textworld.py           # the 30 test games
    python benchmarks/bench_textworld.py --quick   # 6

The first run compiles the games into the cache (its time is printed); later runs reuse them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings

import textworld

from agentgym_envs.envs.tw_games.env import TextWorldEnv, TextWorldExpert, requested_infos
from agentgym_envs.envs.tw_games.games import compile_game, game_path


def ms(values: list[float]) -> str:
    return (
        f"mean {statistics.fmean(values) * 1e3:.2f} / p50 {statistics.median(values) * 1e3:.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    out = sys.stdout.write
    warnings.filterwarnings("ignore", message=".*is not fully supported")
    env = TextWorldEnv()
    n = 6 if args.quick else env.tasks.size("test")
    tasks = [env.tasks.get("test", i) for i in range(n)]

    fresh = [t for t in tasks if not game_path(t.challenge, t.level, t.seed).exists()]
    t0 = time.perf_counter()
    for t in fresh:
        compile_game(t.challenge, t.level, t.seed)
    if fresh:
        out(
            f"compiled {len(fresh)} games: {(time.perf_counter() - t0) / len(fresh):.2f} s per game\n"
        )

    expert = TextWorldExpert(env)
    ours_reset, ours_step, scripts = [], [], []
    for t in tasks:
        t0 = time.perf_counter()
        obs, info = env.reset(options={"split": "test", "task_id": t.task_id})
        ours_reset.append(time.perf_counter() - t0)
        commands, terminated = [], False
        while not terminated:
            commands.append(expert(obs, info))
            t0 = time.perf_counter()
            obs, _, terminated, _, info = env.step(commands[-1])
            ours_step.append(time.perf_counter() - t0)
        scripts.append((game_path(t.challenge, t.level, t.seed), commands))
    env.close()

    infos = requested_infos()
    tw_reset, tw_step = [], []
    for path, commands in scripts:
        tw = textworld.start(str(path), request_infos=infos)
        t0 = time.perf_counter()
        tw.reset()
        tw_reset.append(time.perf_counter() - t0)
        for command in commands:
            t0 = time.perf_counter()
            tw.step(command)
            tw_step.append(time.perf_counter() - t0)
        tw.close()
    out(f"{n} games, {len(ours_step)} expert steps\n")
    out(f"ours:      reset {ms(ours_reset)}; step {ms(ours_step)}\n")
    out(f"textworld: reset {ms(tw_reset)} (game already loaded); step {ms(tw_step)}\n")


if __name__ == "__main__":
    main()
