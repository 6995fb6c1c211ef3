"""WebArena blind answers: the share of tasks a policy wins without looking at a page.

    python benchmarks/bench_webarena_blind.py                 # both task sets, no browser
    python benchmarks/bench_webarena_blind.py --browser       # + program_html start states
    python benchmarks/bench_webarena_blind.py --random 3      # + a random policy (Chromium)

A blind policy replies ``stop [answer]`` at step 0 with one of these answers, and wins a task
when any of them scores 1:

* number lists: ``0 1 2 ... 300``, ``1 2 ... 30``, ``0 0.5 1 ... 50``;
* ``N/A`` and the empty answer;
* the site's most frequent strings (the 30 most frequent short values in its tables: names,
  statuses, labels, titles ...; the map's: categories, streets, postcodes, opening hours),
  each alone and all 30 in one answer.

``string_match`` is graded by the task set's own evaluator (no judge: the deterministic
fuzzy fallback); ``url_match`` on the start page (where a step-0 stop is); ``program_html``
checks the untouched site: with ``--browser`` one task per template is played in Chromium
(its start state scored as it is; every instance of the template counted alike), without it
such tasks are counted as not won (the start state of a content change is the state before
the change). ``--random N`` plays a random policy (N steps of random clicks, typing and
scrolls, then a random blind answer) on every test task.
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agentgym_envs.envs.webarena.evaluators import string_match, url_match

SITE_TABLES = {
    "shopping": ("shop_products", "shop_reviews", "shop_orders", "shop_customers"),
    "shopping_admin": ("shop_products", "shop_reviews", "shop_orders", "shop_customers"),
    "reddit": ("forum_posts", "forum_comments", "forum_forums", "forum_users"),
    "gitlab": ("code_projects", "code_issues", "code_commits", "code_users", "code_members"),
    "wikipedia": (),
}


def number_lists() -> list[str]:
    return [
        " ".join(str(i) for i in range(301)),
        " ".join(str(i) for i in range(1, 31)),
        " ".join(f"{i / 2:g}" for i in range(101)),
    ]


def frequent_strings(db: sqlite3.Connection, site: str, k: int = 30) -> list[str]:
    """The ``k`` most frequent short text values in the site's tables."""
    counts: Counter[str] = Counter()
    for table in SITE_TABLES.get(site, ()):
        cols = [r[1] for r in db.execute(f"PRAGMA table_info({table})") if r[2] == "TEXT"]
        for col in cols:
            for value, n in db.execute(
                f"SELECT {col}, COUNT(*) FROM {table} WHERE length({col}) BETWEEN 1 AND 40 "
                f"GROUP BY {col} ORDER BY COUNT(*) DESC LIMIT {k}"
            ):
                counts[str(value)] += n
    return [s for s, _ in counts.most_common(k)]


def map_frequent_strings(k: int = 30) -> list[str]:
    """The map's ``k`` most frequent short values: categories, streets, postcodes, hours,
    the city's name (it has no tables: its data is :mod:`.sites.mapdata`'s city)."""
    from agentgym_envs.envs.webarena.sites.mapdata import city

    counts: Counter[str] = Counter()
    for p in city().places:
        street = p.address.split(",")[0].split(" ", 1)[1]
        values = (p.category, street, p.postcode, p.opening_hours, p.address.split(", ")[-1])
        counts.update(v for v in values if v)
    return [s for s, _ in counts.most_common(k)]


def blind_answers(db: sqlite3.Connection) -> dict[str, list[str]]:
    out = {}
    for site in (*SITE_TABLES, "map"):
        frequent = map_frequent_strings() if site == "map" else frequent_strings(db, site)
        out[site] = [*number_lists(), "N/A", "", *frequent, ", ".join(frequent)]
    return out


def task_sets() -> dict[str, list[dict]]:
    from agentgym_envs.envs.webarena.tasks import generated_configs

    sets = {"agentgym": [*generated_configs()[0], *generated_configs()[1]]}
    try:
        from agentgym_envs.envs.webarena.webarena_tasks import webarena_configs

        sets["webarena"] = [*webarena_configs()[0], *webarena_configs()[1]]
    except Exception as exc:  # libwebarena missing: say so, measure the other set
        print(f"webarena task set skipped: {exc}")
    return sets


def program_html_start_states(configs: list[dict]) -> dict[tuple, float]:
    """Score of the untouched start state, one test task per template (real Chromium)."""
    from agentgym_envs.envs.webarena.env import WebArenaEnv

    out: dict[tuple, float] = {}
    for task_set in {c.get("agentgym_task_set", "agentgym") for c in configs}:
        env = WebArenaEnv(task_set=task_set, require_backticks=False)
        for split in ("test", "train"):
            for task_id in range(env.tasks.size(split)):
                config = env.tasks.get(split, task_id).config
                key = (task_set, _template(config))
                if "program_html" not in config["eval"]["eval_types"] or key in out:
                    continue
                env.reset(options={"split": split, "task_id": task_id})
                *_, info = env.step("stop [N/A]")
                out[key] = float(info["score"])
        env.close()
    return out


def _template(config: dict) -> object:
    return config.get("agentgym_template") or config.get("intent_template_id")


def blind_wins(configs: list[dict], answers: dict[str, list[str]], html_scores: dict) -> tuple:
    wins, by_kind = 0, Counter()
    for config in configs:
        ev = config["eval"]
        site = config["sites"][0]
        start = config["start_url"]
        won = False
        for answer in answers.get(site, answers["shopping"]):
            score = 1.0
            for kind in ev["eval_types"]:
                if kind == "string_match":
                    score *= string_match(config, answer, None)
                elif kind == "url_match":
                    score *= url_match(config, start)
                else:
                    key = (config.get("agentgym_task_set", "agentgym"), _template(config))
                    score *= html_scores.get(key, 0.0)
                if not score:
                    break
            if score == 1.0:
                won = True
                by_kind[_label(config, answer, answers)] += 1
                break
        wins += won
    return wins, by_kind


def _label(config: dict, answer: str, answers: dict[str, list[str]]) -> str:
    if answer in number_lists():
        return "number list"
    if answer in ("N/A", ""):
        return repr(answer)
    return "frequent strings"


def random_policy(task_set: str, steps: int, seed: int = 0) -> list[float]:
    import re

    from agentgym_envs.envs.webarena.env import WebArenaEnv

    rng = random.Random(seed)
    env = WebArenaEnv(task_set=task_set, require_backticks=False)
    scores = []
    for task_id in range(env.tasks.size("test")):
        obs, info = env.reset(options={"split": "test", "task_id": task_id})
        for _ in range(steps):
            ids = re.findall(r"^\s*\[(\d+)\]", obs, re.M) or ["0"]
            action = rng.choice(
                [
                    f"click [{rng.choice(ids)}]",
                    f"type [{rng.choice(ids)}] [hello] [1]",
                    "scroll [down]",
                ]
            )
            obs, _, terminated, _, info = env.step(action)
            if terminated:
                break
        else:
            *_, info = env.step(f"stop [{rng.choice(['N/A', '', '1', 'yes'])}]")
        scores.append(float(info.get("score", 0.0)))
    env.close()
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--browser", action="store_true", help="score program_html start states")
    parser.add_argument("--random", type=int, default=0, help="random-policy steps (0: skip)")
    args = parser.parse_args()
    from agentgym_envs.envs.webarena.sites.build import build

    t0 = time.perf_counter()
    db = sqlite3.connect(f"file:{build().seed_db}?mode=ro", uri=True)
    answers = blind_answers(db)
    sets = task_sets()
    html_scores = (
        program_html_start_states([c for cs in sets.values() for c in cs]) if args.browser else {}
    )
    for name, configs in sets.items():
        wins, by_kind = blind_wins(configs, answers, html_scores)
        print(
            f"{name:9s} blind answers win {wins}/{len(configs)} tasks "
            f"({100 * wins / len(configs):.1f}%): {dict(by_kind)}"
        )
        if args.random:
            scores = random_policy(name, args.random)
            print(
                f"{name:9s} random policy ({args.random} steps): mean score "
                f"{statistics.mean(scores):.3f} over {len(scores)} test tasks "
                f"(min {min(scores):.0f} median {statistics.median(scores):.0f} max "
                f"{max(scores):.0f})"
            )
    load = os.getloadavg()
    print(
        f"{time.perf_counter() - t0:.0f} s; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}"
    )


if __name__ == "__main__":
    main()
