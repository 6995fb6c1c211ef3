"""The experience loop: benchmark, store, judge, compare, A/B test, roll back, export, look.

    pip install "agentgym-envs[experience]"
    python examples/experience_loop.py            # add --serve to open the dashboard afterwards

1. Runs the expert and the random policy on ten tasks each of Maze and Wordle and imports both
   run folders into a store (a SQLite file in ./experience-demo; importing twice adds nothing).
2. Leaves feedback as a person would: one action judged bad, one outcome judged good.
3. Registers both as versions of one agent, promotes the expert, then the random one, and lets
   the rollback rule put the expert back (the newer version is significantly worse).
4. Runs an A/B test between them (paired, two looks: it stops after the first) and one between
   two identical versions (no significant difference).
5. Exports SFT records (the judged-bad action is masked out) and DPO pairs.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from agentgym_envs.benchmarks import expert_spec, random_spec, run_benchmark
from agentgym_envs.experience import (
    add_feedback,
    export_training,
    import_path,
    open_store,
    promote,
    register_version,
    rollback_if_worse,
    run_ab_test,
    select_episodes,
)

log = logging.getLogger("experience_loop")


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    root = Path("experience-demo")
    store = open_store(root / "experience.db")

    register_version(store, "agent", "1", model="scripted expert")
    register_version(store, "agent", "2", model="random moves", parent="agent@1")
    for version, spec in (("1", expert_spec()), ("2", random_spec())):
        out = root / "runs" / f"agent-{version}"
        run_benchmark("Maze-v0,Wordle-v0", spec, out=out, limit=10, resume=True)
        report = import_path(store, out, version=f"agent@{version}")
        log.info(
            "agent@%s: %d episodes imported, %d already stored",
            version,
            report.added,
            report.skipped,
        )

    ep = select_episodes(store, versions=["agent@1"], envs=["Maze-v0"])[0]
    add_feedback(store, ep, step_index=0, label="bad", comment="a detour", author="demo")
    add_feedback(store, ep, label="good", comment="reached the goal", author="demo")

    promote(store, "agent@1", author="demo")
    promote(store, "agent@2", author="demo", reason="try the new version")
    decision = rollback_if_worse(store, "agent", n_boot=2000)
    log.info("rollback: %s -- %s", decision.rolled_back, decision.reason)

    ab = run_ab_test(
        store,
        "expert-vs-random",
        {"agent@1": expert_spec(), "agent@2": random_spec()},
        envs="Maze-v0,Wordle-v0",
        limit=10,
        looks=2,
        n_boot=2000,
    )
    log.info("A/B: %s (look %d of %d)", ab.decision, ab.looks_done, ab.looks)
    same = run_ab_test(
        store,
        "twins",
        {"random@a": random_spec(), "random@b": random_spec()},
        envs="Maze-v0,Wordle-v0",
        limit=10,
        n_boot=2000,
    )
    log.info("A/B twins: %s", same.decision)

    sft = export_training(store, "sft", root / "sft.jsonl", versions=["agent@1"])
    dpo = export_training(store, "dpo", root / "dpo.jsonl")
    log.info("exported %d SFT records and %d DPO pairs to %s", len(sft), len(dpo), root)

    if "--serve" in sys.argv:
        from agentgym_envs.experience.dashboard import serve

        log.info("dashboard at http://127.0.0.1:8765/ (Ctrl-C stops)")
        serve(store, port=8765)


if __name__ == "__main__":
    main()
