"""WebArena first observations: how long the tree an agent sees at reset is, per site, in the
viewport (WebArena's and AgentGym's setting) and of the full page, next to the figures
WebArena and AgentGym publish.

    python benchmarks/bench_webarena_observations.py              # the webarena set's test tasks
    python benchmarks/bench_webarena_observations.py --set agentgym

For every test task of the set, the task is reset twice in real Chromium, once with
``viewport_only=True`` (the default: WebArena's ``current_viewport_only``, which its run.py
switches on for every run, at 1280 x 720) and once with ``viewport_only=False`` (the whole
page); the first observation's tree (the lines between the tab line and ``URL:``) is counted
in lines, characters and tokens (``cl100k_base`` when ``bpe-openai`` is installed, else
characters / 4). Printed per site (``multi``: several sites): min / median / max of each, how
many start pages are distinct, and how many trees are over WebArena's ``max_obs_length``
(1,920 tokens: its run.py cuts the tree there). The load average is printed with them.

WebArena publishes no per-site lengths of its first observations; what it and AgentGym do
publish (:data:`PUBLISHED`) are few-shot excerpts of trees in their prompts (a few lines of a
page, not a whole first observation), and the settings above.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_webarena_expert import WEBARENA_MAX_OBS_TOKENS, _tokens, site_of, tree_text

from agentgym_envs.envs.webarena.env import WebArenaEnv

#: Tree excerpts WebArena and AgentGym publish: (where, site, lines, characters). Counted from
#: WebArena's agent/prompts/raw (p_cot_id_actree_2s, p_direct_id_actree_3s_llama), the
#: example in its minimal_example.py (also in AgentGym's agentenv_webarena/environment.py), and
#: AgentGym's Toolusage webbrowse prompt (agentenv-tool: WebShop-like One Stop Market pages).
PUBLISHED = (
    ("WebArena 2-shot CoT prompt, example 1", "shopping", 5, 188),
    ("WebArena 2-shot CoT prompt, example 2", "map", 5, 170),
    ("WebArena 3-shot prompt, example 3", "reddit", 7, 456),
    ("WebArena minimal_example.py (AgentGym environment.py)", "gitlab", 11, 507),
    ("AgentGym Toolusage webbrowse prompt (4 trees)", "shopping", 16, 636),
)
#: WebArena's run.py settings that bound what an agent sees.
SETTINGS = "viewport 1280 x 720, current_viewport_only=True, max_obs_length 1,920 tokens"


def spread(values: list[float]) -> str:
    return f"{min(values):>6,.0f} {statistics.median(values):>7,.0f} {max(values):>6,.0f}"


def measure(task_set: str, viewport_only: bool, encode) -> dict[str, dict[str, list[int]]]:
    """Per site: lines, chars, tokens of every test task's first tree, and its start URL."""
    env = WebArenaEnv(task_set=task_set, viewport_only=viewport_only)
    out: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    try:
        for task_id in range(env.tasks.size("test")):
            obs, _ = env.reset(options={"split": "test", "task_id": task_id})
            tree = tree_text(obs)
            site = out[site_of(env.task.config)]
            site["lines"].append(tree.count("\n") + 1)
            site["chars"].append(len(tree))
            site["tokens"].append(len(encode(tree)))
            site["urls"].append(env.current_url())
    finally:
        env.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=["agentgym", "webarena"], default="webarena")
    args = parser.parse_args()
    tokenizer, encode = _tokens()
    t0 = time.perf_counter()
    runs = {view: measure(args.set, view == "viewport", encode) for view in ("viewport", "full")}
    took = time.perf_counter() - t0
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"== first observations, task set {args.set}: {took:.0f} s, load average {load}")
    print(f"tokens: {tokenizer}; WebArena: {SETTINGS}")
    print(
        f"{'site':<16}{'view':<10}{'n':>4}{'pages':>6}   lines min median max"
        f"   chars min median max   tokens min median max   > {WEBARENA_MAX_OBS_TOKENS}"
    )
    for site in sorted(runs["viewport"]):
        for view, sites in runs.items():
            m = sites[site]
            over = sum(t > WEBARENA_MAX_OBS_TOKENS for t in m["tokens"])
            print(
                f"{site:<16}{view:<10}{len(m['lines']):>4}{len(set(m['urls'])):>6}   "
                f"{spread(m['lines'])}   {spread(m['chars'])}   {spread(m['tokens'])}   "
                f"{over}/{len(m['tokens'])}"
            )
    print("\npublished tree excerpts (few-shot examples: parts of pages, not first observations)")
    for where, site, lines, chars in PUBLISHED:
        print(f"{site:<16}{lines:>5} lines {chars:>6,} chars   {where}")


if __name__ == "__main__":
    main()
