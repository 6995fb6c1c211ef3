"""WebArena's scripted expert and first observations, per site and task set, in real Chromium.

    python benchmarks/bench_webarena_expert.py                 # test tasks of both sets
    python benchmarks/bench_webarena_expert.py --train 2       # + 2 train tasks per template
    python benchmarks/bench_webarena_expert.py --set webarena  # one set

Prints, per task set and site (``multi`` for tasks on several sites):
* the expert's steps to solve (min / median / max) and how many tasks it solved; the tasks it
  failed are listed. The expert walks from the task's start page through links, search boxes,
  filters, pagers and forms as a user does (issue 37 asks a median >= 5 on the test tasks);
* the first observation's size (the accessibility tree the agent sees at reset): lines,
  characters and tokens (``cl100k_base``, GPT-4's tokenizer: ``pip install bpe-openai``) min / median / max, and the share
  of first observations longer than WebArena's ``max_obs_length`` (1,920 tokens: its run.py
  cuts trees there, so a longer tree is one WebArena's agent would have seen cut).
The load average is printed with the figures (other agents share the machine).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections import defaultdict

from agentgym_envs.envs.webarena.env import WebArenaEnv
from agentgym_envs.envs.webarena.expert import WebArenaExpert

#: WebArena's run.py truncates the tree text to this many tokens (``max_obs_length``).
WEBARENA_MAX_OBS_TOKENS = 1920
MAX_STEPS = 40


def _tokens():
    """``(name, encode)``: GPT-4's ``cl100k_base`` (``bpe-openai`` ships it; tiktoken downloads
    it), else about 4 characters a token."""
    for module in ("bpe_openai", "tiktoken"):
        try:
            encode = __import__(module).get_encoding("cl100k_base").encode
            encode("probe")
            return f"cl100k_base via {module}", encode
        except Exception:  # not installed, or its data not reachable offline
            continue
    return "characters / 4 (no cl100k_base tokenizer)", lambda text: range(len(text) // 4)


def tree_text(observation: str) -> str:
    """The accessibility tree of an observation (between the tab line and ``URL:``)."""
    body = observation.split("\nURL: ", 1)[0]
    return body.split("\n", 2)[-1] if body.startswith("OBSERVATION:") else body


def site_of(config: dict) -> str:
    return config["sites"][0] if len(config["sites"]) == 1 else "multi"


def task_ids(env: WebArenaEnv, train_per_template: int) -> list[tuple[str, int]]:
    """Every test task, and the first ``train_per_template`` train tasks of each template."""
    out = [("test", i) for i in range(env.tasks.size("test"))]
    if train_per_template:
        seen: dict[object, int] = defaultdict(int)
        for i in range(env.tasks.size("train")):
            config = env.tasks.get("train", i).config
            key = config.get("intent_template_id", config.get("agentgym_template"))
            if seen[key] < train_per_template:
                seen[key] += 1
                out.append(("train", i))
    return out


def play(env: WebArenaEnv, expert: WebArenaExpert, split: str, task_id: int):
    """``(first observation, steps, reward)`` of the expert's episode."""
    obs, info = env.reset(options={"split": split, "task_id": task_id})
    first, reward = obs, 0.0
    for n in range(1, MAX_STEPS + 1):
        obs, reward, done, _, info = env.step(expert(obs, info))
        if done:
            return first, n, reward
    return first, MAX_STEPS, 0.0


def spread(values: list[float]) -> str:
    return f"{min(values):>6.0f} {statistics.median(values):>7.1f} {max(values):>6.0f}"


def run(task_set: str, train_per_template: int, detail: bool = False) -> None:
    env = WebArenaEnv(task_set=task_set)
    expert = WebArenaExpert(env)
    tokenizer, encode = _tokens()
    steps: dict[str, list[int]] = defaultdict(list)
    lines: dict[str, list[int]] = defaultdict(list)
    chars: dict[str, list[int]] = defaultdict(list)
    tokens: dict[str, list[int]] = defaultdict(list)
    solved: dict[str, int] = defaultdict(int)
    failed = []
    t0 = time.perf_counter()
    for split, task_id in task_ids(env, train_per_template):
        config = env.tasks.get(split, task_id).config
        site = site_of(config)
        first, n, reward = play(env, expert, split, task_id)
        key = f"{split}:{site}"
        steps[key].append(n)
        if detail:
            tid = config.get("intent_template_id", config.get("agentgym_template"))
            print(f"{split} {task_id:>4} {site:<15} template {tid!s:<22} {n:>3} steps {reward}")
        solved[key] += reward == 1.0
        if reward != 1.0:
            tid = config.get("intent_template_id", config.get("agentgym_template"))
            failed.append(f"{split} {task_id} (template {tid}, {n} steps): {config['intent']}")
        if split == "test":
            tree = tree_text(first)
            lines[site].append(tree.count("\n") + 1)
            chars[site].append(len(tree))
            tokens[site].append(len(encode(tree)))
    env.close()
    took = time.perf_counter() - t0
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\n== task set {task_set}: {took:.0f} s, load average {load}")
    print(f"{'split:site':<24}{'tasks':>6}{'solved':>7}   steps min median max")
    for split in ("test", "train"):
        keys = sorted(k for k in steps if k.startswith(split + ":"))
        everything = [n for k in keys for n in steps[k]]
        for key in keys:
            print(f"{key:<24}{len(steps[key]):>6}{solved[key]:>7}   {spread(steps[key])}")
        if everything:
            done = sum(solved[k] for k in keys)
            print(f"{split + ':all':<24}{len(everything):>6}{done:>7}   {spread(everything)}")
    for line in failed:
        print("FAILED", line)
    print(f"\nfirst observations (test tasks) of task set {task_set}; tokens: {tokenizer}")
    print(
        f"{'site':<16}{'n':>4}   lines min median max   chars min median max   tokens min median max   > {WEBARENA_MAX_OBS_TOKENS}"
    )
    for site in sorted(lines):
        over = sum(t > WEBARENA_MAX_OBS_TOKENS for t in tokens[site])
        print(
            f"{site:<16}{len(lines[site]):>4}   {spread(lines[site])}   {spread(chars[site])}   "
            f"{spread(tokens[site])}   {over}/{len(tokens[site])}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=["agentgym", "webarena", "both"], default="both")
    parser.add_argument("--train", type=int, default=0, help="train tasks per template")
    parser.add_argument("--detail", action="store_true", help="one line per task")
    args = parser.parse_args()
    for task_set in ("agentgym", "webarena") if args.set == "both" else (args.set,):
        run(task_set, args.train, args.detail)


if __name__ == "__main__":
    main()
