"""WebShop speed and memory: catalog build, BM25 search, reset and step, memory paid once.

    python benchmarks/bench_webshop.py            # 10,000 and 100,000 products
    python benchmarks/bench_webshop.py --quick    # 10,000 products only, fewer samples

Measures, in one run:
* catalog generation and BM25 indexing time, and the process RSS they add (10k and 100k);
* that more envs on the same catalog add (almost) no memory -- the catalog is paid once;
* ``reset`` (goal generated and checked) and ``step`` medians: search steps with the expert's
  queries and random instruction words, clicks on result/item pages;
* the same searches by a naive scan (term overlap over every product, no index) as a
  baseline measured in the same run, and the ratio.
Goals (issue 10): reset < 5 ms; search step < 10 ms median over 100,000 products.
AgentGym's WebShop server keeps a Lucene index in a JVM per env (not measurable here).
"""

from __future__ import annotations

import argparse
import gc
import random
import re
import statistics
import time

from agentgym_envs.envs.webshop import catalog as catalog_mod
from agentgym_envs.envs.webshop.env import WebShopEnv
from agentgym_envs.envs.webshop.expert import WebShopExpert, key_terms


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def med(values) -> float:
    return statistics.median(values) * 1e3


def p90(values) -> float:
    return sorted(values)[int(0.9 * len(values))] * 1e3


def build(n: int) -> WebShopEnv:
    gc.collect()
    before = rss_mb()
    t0 = time.perf_counter()
    cat = catalog_mod.generated_catalog(n)
    t_gen = time.perf_counter() - t0
    after_gen = rss_mb()
    t0 = time.perf_counter()
    _ = cat.index
    t_idx = time.perf_counter() - t0
    after_idx = rss_mb()
    env = WebShopEnv(num_products=n)
    print(
        f"catalog {n:>7,} products: generate {t_gen:6.2f} s (+{after_gen - before:6.1f} MB), "
        f"BM25 index {t_idx:6.2f} s (+{after_idx - after_gen:6.1f} MB)"
    )
    more = []
    base = rss_mb()
    for _ in range(20):
        e = WebShopEnv(num_products=n)
        e.reset(seed=0, options={"split": "test", "task_id": 0})
        more.append(e)
    print(
        f"  20 more envs on the same catalog: +{rss_mb() - base:.1f} MB in all "
        f"(catalog shared: {all(e.catalog is env.catalog for e in more)})"
    )
    return env


_WORD = re.compile(r"[a-z0-9]+")


def naive_search(products, docs_tokens, query: str, k: int = 50):
    q = set(_WORD.findall(query.lower()))
    scored = [(len(q & toks), i) for i, toks in enumerate(docs_tokens)]
    scored.sort(key=lambda x: (-x[0], x[1]))
    return [products[i] for s, i in scored[:k] if s > 0]


def bench(env: WebShopEnv, n_resets: int, n_queries: int, baseline_queries: int) -> None:
    test_n = env.tasks.size("test")
    resets = []
    for i in range(n_resets):
        split = "test" if i % 2 else "train"
        task_id = (i * 37) % env.tasks.size(split)
        t0 = time.perf_counter()
        env.reset(seed=i, options={"split": split, "task_id": task_id})
        resets.append(time.perf_counter() - t0)
    print(f"  reset: {med(resets):.3f} ms median (p90 {p90(resets):.3f})  [goal < 5 ms]")

    rng = random.Random(0)
    queries = []
    for i in range(n_queries):
        goal = env.tasks.get("test", i % test_n).goal
        if i % 2 == 0:
            opts = goal.goal_options if isinstance(goal.goal_options, dict) else None
            queries.append(key_terms(goal.instruction_text, opts))
        else:
            words = goal.instruction_text.replace(",", " ").split()
            queries.append(" ".join(rng.sample(words, min(4, len(words)))))
    env.reset(seed=0, options={"split": "test", "task_id": 0})
    searches, clicks = [], []
    for q in queries:
        t0 = time.perf_counter()
        env.step(f"search[{q}]")
        searches.append(time.perf_counter() - t0)
        clickables = env.shop.clickables()
        asins = [k for k, e in clickables.items() if e.kind == "link"]
        if asins:
            t0 = time.perf_counter()
            env.step(f"click[{asins[0]}]")
            clicks.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            env.step("click[< prev]")
            clicks.append(time.perf_counter() - t0)
    print(
        f"  search step: {med(searches):.3f} ms median (p90 {p90(searches):.3f}) over {len(queries)} queries  "
        f"[goal < 10 ms]"
    )
    print(f"  click step:  {med(clicks):.3f} ms median (p90 {p90(clicks):.3f})")

    products = env.catalog.products
    t0 = time.perf_counter()
    docs_tokens = [set(_WORD.findall(p.search_document())) for p in products]
    prep = time.perf_counter() - t0
    naive = []
    for q in queries[:baseline_queries]:
        t0 = time.perf_counter()
        naive_search(products, docs_tokens, q)
        naive.append(time.perf_counter() - t0)
    bm25 = []
    for q in queries[:baseline_queries]:
        t0 = time.perf_counter()
        env.catalog.search(q)
        bm25.append(time.perf_counter() - t0)
    print(
        f"  baseline naive scan (no index, prep {prep:.1f} s): {med(naive):.2f} ms median; "
        f"BM25 search alone {med(bm25):.3f} ms -> {statistics.median(naive) / statistics.median(bm25):.0f}x faster"
    )

    expert = WebShopExpert(env)
    t0 = time.perf_counter()
    turns = successes = 0
    n_eps = min(test_n, 100)
    for task_id in range(n_eps):
        obs, info = env.reset(seed=task_id, options={"split": "test", "task_id": task_id})
        for _ in range(10):
            obs, _reward, done, _, info = env.step(expert(obs, info))
            turns += 1
            if done:
                successes += info["success"]
                break
    dt = time.perf_counter() - t0
    print(
        f"  expert: {successes}/{n_eps} solved, {turns / n_eps:.1f} turns/episode, "
        f"{n_eps / dt:.0f} episodes/s, {turns / dt:.0f} steps/s"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="10,000 products only, fewer samples")
    args = ap.parse_args()
    sizes = [10_000] if args.quick else [10_000, 100_000]
    print(f"process RSS at start: {rss_mb():.0f} MB")
    for n in sizes:
        env = build(n)
        bench(
            env,
            n_resets=300 if args.quick else 1000,
            n_queries=100 if args.quick else 400,
            baseline_queries=10 if args.quick else 20,
        )
    print(f"process RSS at end: {rss_mb():.0f} MB")


if __name__ == "__main__":
    main()
