"""Cost of the LLM wrapper stack: bare env vs make_llm_env's stack, and the parsers alone.

    python benchmarks/bench_wrappers.py            # Maze, 25 test tasks x 4 rounds
    python benchmarks/bench_wrappers.py --quick

Measures, in one run and on the same expert episodes:
* steps per second of the bare env, of ReAct + limits + chat history (make_llm_env, react),
  and of FunctionCalling + limits + chat history (make_llm_env, tools), with the ratios;
* microseconds per call of parse_react and parse_tool_call on typical replies.
The wrappers' cost should stay far below any model's latency (tens of ms per reply at best).
"""

from __future__ import annotations

import argparse
import statistics
import time

import gymnasium as gym

from agentgym_envs import expert_policy, make_llm_env
from agentgym_envs.wrappers import parse_react, parse_tool_call

ENV_ID = "AgentGym/Maze-v0"


def play(env: gym.Env, reply, rounds: int, tasks: int) -> tuple[int, float]:
    """Expert episodes over ``tasks`` test tasks, ``rounds`` times; returns (steps, seconds)."""
    steps, spent = 0, 0.0
    expert = expert_policy(env)
    for _ in range(rounds):
        for task_id in range(tasks):
            obs, info = env.reset(options={"split": "test", "task_id": task_id})
            while True:
                action = reply(expert(obs, info))
                t0 = time.perf_counter()
                obs, _, terminated, truncated, info = env.step(action)
                spent += time.perf_counter() - t0
                steps += 1
                if terminated or truncated:
                    break
    return steps, spent


def per_call_us(fn, arg, n: int) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        fn(arg)
    return (time.perf_counter() - t0) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    rounds = 1 if args.quick else 4
    tasks = 25

    def tool(a: str) -> dict:
        return {"name": "move", "arguments": {"direction": a.split()[-1]}}

    setups = {
        "bare": (gym.make(ENV_ID), lambda a: a),
        "react stack": (make_llm_env(ENV_ID, "react"), lambda a: f"Thought: go.\nAction: {a}"),
        "tools stack": (make_llm_env(ENV_ID, "tools"), tool),
    }
    rates = {}
    for name, (env, reply) in setups.items():
        play(env, reply, 1, 3)  # warm-up
        steps, spent = play(env, reply, rounds, tasks)
        rates[name] = steps / spent
        print(
            f"{name:12s} {steps:5d} steps  {rates[name]:10.0f} steps/s  {spent / steps * 1e6:8.1f} us/step"
        )
    for name in ("react stack", "tools stack"):
        print(f"{name} / bare: {rates['bare'] / rates[name]:.1f}x slower per step")

    n = 2000 if args.quick else 10000
    replies = {
        "parse_react (2-line reply)": (
            parse_react,
            "Thought: the goal is below.\nAction: move down",
        ),
        "parse_react (long thought, EOS)": (
            parse_react,
            "Thought: " + "I consider the walls around me. " * 30 + "\nAction: move down</s>",
        ),
        "parse_tool_call (OpenAI message)": (
            parse_tool_call,
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "c",
                        "type": "function",
                        "function": {"name": "move", "arguments": '{"direction": "up"}'},
                    }
                ],
            },
        ),
        "parse_tool_call (JSON text)": (
            parse_tool_call,
            '{"name": "move", "arguments": {"direction": "up"}}',
        ),
    }
    for name, (fn, arg) in replies.items():
        times = [per_call_us(fn, arg, n // 5) for _ in range(5)]
        print(f"{name:34s} {statistics.median(times):7.1f} us/call")


if __name__ == "__main__":
    main()
