"""The experience loop in one call: episodes -> store -> feedback -> training data -> a new
version -> A/B against the current one -> promote, or roll back a worse one.

``run(out)`` plays it on Maze-v0 (AgentGym's double-T maze), with held-out start cells: every
``holdout_every``-th task (0, 2, 4, ... by default) is held out for the A/Bs, the others are
trained on.

1. **Episodes.** The current version ``agent@0`` (a random policy: the untrained agent) and a
   teacher (the scripted expert) play the *train* split's other start cells; both
   runs go into the experience store (SQLite under ``out``), where the env's verdict on every
   episode and action is stored as automatic feedback.
2. **Feedback.** A person's labels, through the store's feedback API: a lucky success of the
   random agent judged ``bad`` (not to be imitated) and one teacher action judged ``bad`` (kept
   out of the loss).
3. **Training data.** The store's SFT export of the judged-successful episodes.
4. **A new version.** A behaviour-cloning policy (:mod:`~agentgym_envs.train.bc_table`) fitted
   on that export is registered as ``agent@1`` with parent ``agent@0`` (its table is the
   version's weights, a file under ``out``).
5. **A/B** of ``agent@1`` against the current version on the *test* split's start cells
   (the held-out ones, never trained on), paired, with an exact sign test on success: promoted
   when significantly better.
6. **A worse version.** ``agent@2`` (parent ``agent@1``) is fitted on the same data with its
   actions shuffled across observations, deployed straight away (as a hurried person would),
   checked by an A/B against the version it replaced, and rolled back by the store's rule when
   it is significantly worse (:func:`~agentgym_envs.experience.versions.rollback_if_worse`).

The result (JSON-able) has ``env``, ``train_tasks``, ``heldout_tasks``, ``episodes`` (stored
per version), ``feedback`` (``auto`` and ``human`` counts), ``training`` (records, states), ``versions`` (label, parent, model, whether current, success
rate over all its stored episodes),
``candidates`` (per new version: its parent, what it was trained on, the A/B's success rates,
difference, p-value and test, and ``decision``: ``promoted``, ``kept`` or ``rolled_back``),
``current`` (the current version at the end), ``history`` (promotions and rollbacks),
``seconds`` and ``load_average`` (before, after). Re-running into the same ``out`` reuses the
store: finished runs and A/B tests are not played again.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Any

from agentgym_envs.errors import AgentGymError

logger = logging.getLogger(__name__)

#: Who gives the person's labels in the scripted run.
PERSON = "reviewer"
AGENT = "agent"


def _items(env_id: str, split: str, tasks: list[int]) -> dict[str, list[Any]]:
    from agentgym_envs.benchmarks.agenteval import agenteval_items
    from agentgym_envs.spec import resolve_id

    env_id = resolve_id(env_id)
    chosen = [it for it in agenteval_items(env_id, split) if it.task_id in tasks]
    return {env_id: chosen}


def _collect(store, env_id: str, spec: Any, label: str, tasks: list[int], out: Path) -> int:
    """Play ``tasks`` of the train split with ``spec`` into ``out`` and import the run as
    version ``label``; the run's id in the store."""
    from sqlalchemy import select

    from agentgym_envs.benchmarks import run_benchmark
    from agentgym_envs.experience import import_path
    from agentgym_envs.experience.models import Run

    run_benchmark(
        env_id, spec, out=out, split="train", items=_items(env_id, "train", tasks), reports=False
    )
    report = import_path(store, out, version=label)
    logger.info("%s: %d episodes stored (%d already there)", label, report.added, report.skipped)
    with store.session() as s:
        return int(s.scalar(select(Run.id).where(Run.source == str(out.resolve()))))


def _label_once(store, episode: int, **feedback: Any) -> None:
    from agentgym_envs.experience import add_feedback, list_feedback

    mine = list_feedback(store, episode_id=episode, author=PERSON)
    if not any(f["step_index"] == feedback.get("step_index") for f in mine):
        add_feedback(store, episode, author=PERSON, **feedback)


def _person_feedback(store, runs: dict[str, int]) -> None:
    """A person's labels on the collected episodes: the base agent's first success judged a
    lucky one (``bad``: not to be imitated), and a teacher episode's first action judged
    ``bad`` (kept out of the loss)."""
    from agentgym_envs.experience import select_episodes

    base, teacher = runs.values()
    lucky = select_episodes(store, runs=[base], outcome="success")
    if lucky:
        _label_once(store, lucky[0], label="bad", comment="a lucky random walk: do not imitate")
    taught = select_episodes(store, runs=[teacher])
    if taught:
        _label_once(store, taught[0], step_index=0, label="bad", comment="a needless first move")


def _ab(store, name: str, control: tuple[str, Any], challenger: tuple[str, Any], **kw: Any):
    from agentgym_envs.experience import run_ab_test

    result = run_ab_test(store, name, dict([control, challenger]), **kw)
    row = result.comparisons[challenger[0]]["success"]
    summary = {
        "name": name,
        "control": control[0],
        "challenger": challenger[0],
        "tasks": result.comparisons[challenger[0]]["tasks"],
        "success_control": row["a"],
        "success_challenger": row["b"],
        "diff": row["diff"],
        "low": row["low"],
        "high": row["high"],
        "p_value": row["p_value"],
        "test": row["test"],
        "significant": bool(row["significant"]),
        "decision": result.decision,
    }
    logger.info(
        "A/B %s: %s %.2f vs %s %.2f, p=%.3g (%s)",
        name,
        control[0],
        row["a"],
        challenger[0],
        row["b"],
        row["p_value"],
        result.decision,
    )
    return summary


def run(
    out: Path,
    *,
    env: str = "Maze-v0",
    holdout_every: int = 2,
    alpha: float = 0.05,
    n_boot: int = 2000,
    seed: int = 0,
) -> dict[str, Any]:
    """Run the experience loop into folder ``out`` (see the module docstring).

    Args:
        out: the folder for the store (``experience.db``), the runs and the versions' tables.
        env: the env; task ``t`` of its test split is held out when ``t % holdout_every == 0``
            and task ``t`` of its train split is trained on otherwise (Maze-v0's splits hold
            the same 25 start cells, so no start cell of the A/Bs was trained on).
        holdout_every: every how many tasks one is held out (2 or more).
        alpha: the A/B's significance level.
        n_boot: bootstrap resamples of the score intervals.
        seed: the episodes' seed.
    """
    from agentgym_envs.benchmarks import expert_spec, random_spec
    from agentgym_envs.benchmarks.agenteval import agenteval_items
    from agentgym_envs.experience import (
        current_version,
        export_training,
        open_store,
        promote,
        register_version,
        rollback_if_worse,
    )
    from agentgym_envs.experience.feedback import count_feedback
    from agentgym_envs.experience.versions import list_versions, promotion_history
    from agentgym_envs.spec import resolve_id

    started, load_before = time.perf_counter(), os.getloadavg()
    env_id = resolve_id(env)
    if holdout_every < 2:
        raise AgentGymError(f"holdout_every={holdout_every}: use 2 or more (1 holds out all)")
    n_train = len(agenteval_items(env_id, "train"))
    n_test = len(agenteval_items(env_id, "test"))
    out = Path(out)
    store = open_store(out / "experience.db")
    base, teacher = f"{AGENT}@0", "teacher@expert"
    train_tasks = [t for t in range(n_train) if t % holdout_every]
    heldout = [t for t in range(n_test) if t % holdout_every == 0]

    # 1. episodes of the current version and of a teacher, into the store
    register_version(store, AGENT, "0", model="random policy (untrained)")
    register_version(store, "teacher", "expert", model="scripted expert")
    if current_version(store, AGENT) is None:
        promote(store, base, author=PERSON, reason="first version")
    runs = {
        base: _collect(store, env_id, random_spec(), base, train_tasks, out / "runs" / "agent-0"),
        teacher: _collect(
            store, env_id, expert_spec(), teacher, train_tasks, out / "runs" / "teacher"
        ),
    }

    # 2. feedback: the env's (stored on import) and a person's
    _person_feedback(store, runs)

    # 3. training data: the judged-successful episodes, bad actions masked
    records = export_training(store, "sft", out / "sft.jsonl", runs=list(runs.values()))
    logger.info("training data: %d SFT records", len(records))

    ab_settings = {"envs": env_id, "split": "test", "tasks": heldout, "alpha": alpha}
    ab_settings |= {"n_boot": n_boot, "seed": seed, "min_tasks": len(heldout)}
    candidates = []

    # 4-5. a trained version, A/B-tested against the version current when it was trained
    good = f"{AGENT}@1"
    spec_good = _new_version(store, out, good, base, records, "judged-successful episodes")
    ab = _ab(store, f"{base}-vs-{good}", (base, random_spec()), (good, spec_good), **ab_settings)
    better = ab["significant"] and ab["diff"] > 0
    if better and current_version(store, AGENT).label == base:
        promote(store, good, author="experience-loop", reason=_why(ab))
    candidates.append(
        {
            "version": good,
            "parent": base,
            "trained_on": "judged-successful episodes",
            "ab": ab,
            "decision": "promoted" if better else "kept",
        }
    )

    # 6. a deliberately worse version: deployed, checked, rolled back
    bad = f"{AGENT}@2"
    spec_bad = _new_version(
        store, out, bad, good, records, "the same episodes, actions shuffled", shuffle_seed=seed
    )
    history = promotion_history(store, AGENT)
    deployed = [i for i, h in enumerate(history) if h["version"] == bad]
    if deployed:  # an earlier run into this store deployed it: the version it replaced
        previous = history[deployed[0] - 1]["version"]
    else:
        previous = current_version(store, AGENT).label
        promote(store, bad, author=PERSON, reason="deployed without an A/B test")
    ab_bad = _ab(
        store,
        f"{previous}-vs-{bad}",
        (previous, _spec_of(previous, spec_good)),
        (bad, spec_bad),
        **ab_settings,
    )
    if current_version(store, AGENT).label == bad:
        decision = rollback_if_worse(store, AGENT, n_boot=n_boot, seed=seed, min_items=len(heldout))
        rolled_back, reason = decision.rolled_back, decision.reason
    else:  # rolled back (or replaced) by an earlier run: say what that run decided
        after = history[deployed[-1] + 1] if deployed[-1] + 1 < len(history) else {}
        rolled_back, reason = after.get("action") == "rollback", after.get("reason", "")
    candidates.append(
        {
            "version": bad,
            "parent": good,
            "trained_on": "the same episodes, actions shuffled",
            "ab": ab_bad,
            "decision": "rolled_back" if rolled_back else "kept",
            "rollback_reason": reason,
        }
    )
    logger.info("rollback check: %s", reason)

    versions = list_versions(store)
    per_version = {v["label"]: v["episodes"] for v in versions}
    return {
        "env": env_id,
        "train_tasks": train_tasks,
        "heldout_tasks": heldout,
        "versions": [
            {k: v[k] for k in ("label", "parent", "model", "current", "success_rate")}
            for v in versions
        ],
        "episodes": per_version,
        "feedback": {
            "auto": count_feedback(store, source="auto"),
            "human": count_feedback(store, source="human"),
        },
        "training": {"records": len(records), "states": spec_good.config["states"]},
        "candidates": candidates,
        "current": current_version(store, AGENT).label,
        "history": [
            {k: (str(v) if k == "at" else v) for k, v in h.items()}
            for h in promotion_history(store, AGENT)
        ],
        "seconds": round(time.perf_counter() - started, 1),
        "load_average": {"before": list(load_before), "after": list(os.getloadavg())},
    }


def _new_version(
    store,
    out: Path,
    label: str,
    parent: str,
    records: list[dict[str, Any]],
    trained_on: str,
    shuffle_seed: int | None = None,
):
    """Fit a behaviour-cloning table on ``records`` (actions shuffled with
    ``shuffle_seed``), keep it under ``out/versions`` and register it as ``label`` with its
    parent; the policy that plays it."""
    from agentgym_envs.experience import register_version
    from agentgym_envs.experience.versions import parse_label
    from agentgym_envs.train import bc_table

    name, version = parse_label(label)
    table = bc_table.fit(records, shuffle_seed=shuffle_seed)
    path = bc_table.save(table, out / "versions" / f"{name}-{version}.json")
    model = "behaviour-cloning table" + (" (actions shuffled)" if shuffle_seed is not None else "")
    register_version(
        store,
        name,
        version,
        model=model,
        parent=parent,
        config={"table": str(path), "trained_on": trained_on, "states": len(table)},
    )
    return bc_table.table_spec(table, model, path)


def _spec_of(label: str, trained: Any):
    """The policy that plays version ``label`` (the untrained one is the random policy)."""
    from agentgym_envs.benchmarks import random_spec

    return random_spec() if label == f"{AGENT}@0" else trained


def _why(ab: dict[str, Any]) -> str:
    return (
        f"A/B {ab['name']}: success {ab['success_challenger']:.2f} vs "
        f"{ab['success_control']:.2f} on {ab['tasks']} held-out tasks, p={ab['p_value']:.3g}"
    )


__all__ = ["run"]
