"""A/B tests: two or more agent versions on one task set, with significance and stopping rules.

**Assignment.** In ``paired`` mode (the default) every arm plays every task: the comparison is
paired by task, which removes the task-to-task variance that dominates agent benchmarks. In
``split`` mode the task set is split between the arms by percentage, each task going to one
arm by a hash of the test's salt and the task's item id -- deterministic, so re-running or
resuming a test sends every task to the same arm -- and the comparison is unpaired.

**Statistics** (each arm against the first, the control; B minus A):

* paired, score: the benchmark's paired bootstrap (:func:`~agentgym_envs.benchmarks.report.
  compare_runs`, the same code as ``agentgym bench compare``): percentile intervals, no
  distributional assumption -- scores are bounded, tied and far from normal;
* paired, success: an **exact** two-sided sign test on the tasks where the arms disagree
  (McNemar's exact test when each task has one sample). Only the discordant tasks carry
  information and there are often few of them; the exact binomial is valid at any count,
  where a bootstrap interval is too narrow;
* split: Fisher's exact test for success (a 2x2 table), and an unpaired bootstrap of the
  difference of mean scores.

**Stopping rules.** The tasks are played in ``looks`` batches (in a fixed hashed order). After
each look every comparison is tested at ``alpha / (looks * comparisons)`` (Bonferroni over the
planned looks and arms: conservative, and valid however early the test stops). The test stops
early once the primary ``metric`` differs significantly for every challenger and at least
``min_tasks`` tasks were played; otherwise it runs to the end and reports no significant
difference where there is none.
"""

from __future__ import annotations

import hashlib
import logging
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agentgym_envs.errors import AgentGymError, require

logger = logging.getLogger(__name__)

MODES = ("paired", "split")
METRICS = ("success", "score")


def assign_arm(
    item_id: str, arms: Sequence[str], weights: Sequence[float], *, salt: str = ""
) -> str:
    """The arm that task ``item_id`` goes to: a hash of ``salt`` and the item id mapped onto the
    cumulative ``weights`` (any positive numbers; percentages work)."""
    if len(arms) != len(weights) or not arms:
        raise AgentGymError("give one weight per arm")
    if any(w < 0 for w in weights) or sum(weights) <= 0:
        raise AgentGymError(
            f"arm weights {list(weights)}: use non-negative numbers with a positive sum"
        )
    h = int.from_bytes(hashlib.sha256(f"{salt}\x00{item_id}".encode()).digest()[:8], "big")
    u = h / 2**64 * sum(weights)
    acc = 0.0
    for arm, w in zip(arms, weights, strict=True):
        acc += w
        if u < acc:
            return arm
    return arms[-1]


def _order_key(salt: str, item) -> str:
    return hashlib.sha256(f"{salt}\x01{item.env_id}\x00{item.item_id}".encode()).hexdigest()


# -- statistics ------------------------------------------------------------------------------
def format_p(p: float | None) -> str:
    """A p-value as people read it: two significant digits, ``< 0.001`` below that (a
    resampled or exact p of 0 means "smaller than we can tell", never zero)."""
    if p is None:
        return "–"
    return "< 0.001" if p < 0.001 else f"{p:.2g}"


def sign_test(a: Sequence[float], b: Sequence[float]) -> dict[str, Any]:
    """Exact two-sided sign test of paired values: how many pairs favour B, how many A, p."""
    stats = require("scipy.stats", "experience")
    better = int(sum(1 for x, y in zip(a, b, strict=True) if y > x))
    worse = int(sum(1 for x, y in zip(a, b, strict=True) if y < x))
    n = better + worse
    p = 1.0 if n == 0 else float(stats.binomtest(better, n, 0.5, alternative="two-sided").pvalue)
    return {
        "b_better": better,
        "a_better": worse,
        "p_value": p,
        "test": "exact sign test (McNemar)",
    }


def fisher_test(a: Sequence[bool], b: Sequence[bool]) -> dict[str, Any]:
    """Fisher's exact test of two independent success rates."""
    stats = require("scipy.stats", "experience")
    table = [[int(sum(b)), len(b) - int(sum(b))], [int(sum(a)), len(a) - int(sum(a))]]
    if not a or not b:
        return {"p_value": 1.0, "test": "Fisher's exact test", "table": table}
    res = stats.fisher_exact(table)
    return {"p_value": float(res.pvalue), "test": "Fisher's exact test", "table": table}


def unpaired_bootstrap(
    a: Sequence[float],
    b: Sequence[float],
    *,
    confidence: float,
    n_boot: int = 10_000,
    seed: int = 0,
) -> dict[str, float]:
    """Mean of B minus mean of A with a percentile bootstrap interval (each arm resampled on
    its own) and the two-sided bootstrap p-value (as ``compare_runs`` computes it)."""
    va, vb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if not len(va) or not len(vb):
        return {
            "a": float("nan"),
            "b": float("nan"),
            "diff": 0.0,
            "low": 0.0,
            "high": 0.0,
            "p_value": 1.0,
        }
    rng = np.random.default_rng(seed)
    ma = va[rng.integers(0, len(va), size=(n_boot, len(va)))].mean(axis=1)
    mb = vb[rng.integers(0, len(vb), size=(n_boot, len(vb)))].mean(axis=1)
    d = mb - ma
    alpha = 1 - confidence
    low, high = np.quantile(d, [alpha / 2, 1 - alpha / 2])
    p = min(1.0, 2 * min(float(np.mean(d <= 0)), float(np.mean(d >= 0))))
    return {
        "a": float(va.mean()),
        "b": float(vb.mean()),
        "diff": float(vb.mean() - va.mean()),
        "low": float(low),
        "high": float(high),
        "p_value": p,
    }


def _per_item(records: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], tuple[float, float]]:
    acc: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    for r in records:
        acc[(r["env_id"], r["item_id"])].append((float(bool(r["success"])), float(r["reward"])))
    return {
        k: (float(np.mean([s for s, _ in v])), float(np.mean([x for _, x in v])))
        for k, v in acc.items()
    }


def analyse(
    control: Sequence[Mapping[str, Any]],
    challenger: Sequence[Mapping[str, Any]],
    *,
    mode: str = "paired",
    alpha: float = 0.05,
    n_boot: int = 10_000,
    seed: int = 0,
) -> dict[str, Any]:
    """One comparison, challenger minus control, at level ``alpha`` (see the module docstring).

    Records are benchmark result records (``env_id``, ``item_id``, ``success``, ``reward``).
    Returns success and score rows (``a``, ``b``, ``diff``, ``low``, ``high``, ``p_value``,
    ``test``, ``significant``) and, for paired mode, the per-env bootstrap rows.
    """
    if mode == "paired":
        return _analyse_paired(control, challenger, alpha=alpha, n_boot=n_boot, seed=seed)
    if mode != "split":
        raise AgentGymError(f"A/B mode {mode!r}: use 'paired' or 'split'")
    return _analyse_split(control, challenger, alpha=alpha, n_boot=n_boot, seed=seed)


def _analyse_paired(
    control: Sequence[Mapping[str, Any]],
    challenger: Sequence[Mapping[str, Any]],
    *,
    alpha: float,
    n_boot: int,
    seed: int,
) -> dict[str, Any]:
    """Every arm played every task: the sign test for success, the paired bootstrap for score."""
    from agentgym_envs.benchmarks.report import compare_runs

    cmp = compare_runs(
        list(control), list(challenger), n_boot=n_boot, confidence=1 - alpha, seed=seed
    )
    pa, pb = _per_item(control), _per_item(challenger)
    shared = sorted(set(pa) & set(pb))
    sign = sign_test([pa[k][0] for k in shared], [pb[k][0] for k in shared])
    out: dict[str, Any] = {"mode": "paired", "alpha": alpha, "tasks": len(shared)}
    if cmp.overall_success is None or cmp.overall_score is None:
        out["success"] = out["score"] = None
        out["envs"] = []
        return out
    s, x = cmp.overall_success, cmp.overall_score
    out["success"] = {"a": s.a, "b": s.b, "diff": s.diff, "low": s.low, "high": s.high, **sign}
    out["score"] = {
        "a": x.a,
        "b": x.b,
        "diff": x.diff,
        "low": x.low,
        "high": x.high,
        "p_value": x.p_value,
        "test": "paired bootstrap (bench compare)",
    }
    out["success"]["significant"] = sign["p_value"] < alpha
    out["score"]["significant"] = x.low > 0 or x.high < 0
    out["envs"] = cmp.as_dict()["envs"]
    return out


def _analyse_split(
    control: Sequence[Mapping[str, Any]],
    challenger: Sequence[Mapping[str, Any]],
    *,
    alpha: float,
    n_boot: int,
    seed: int,
) -> dict[str, Any]:
    """Each task went to one arm: Fisher's exact test for success, the unpaired bootstrap for
    score (each task's mean score, scaled to [0, 1])."""
    from agentgym_envs.benchmarks.report import score_scale

    confidence = 1 - alpha
    pa, pb = _per_item(control), _per_item(challenger)
    succ_a, succ_b = [bool(r["success"]) for r in control], [bool(r["success"]) for r in challenger]
    fisher = fisher_test(succ_a, succ_b)
    sa = unpaired_bootstrap(
        [float(v) for v in succ_a],
        [float(v) for v in succ_b],
        confidence=confidence,
        n_boot=n_boot,
        seed=seed,
    )
    xa = [x / score_scale(k[0]) for k, (_, x) in pa.items()]
    xb = [x / score_scale(k[0]) for k, (_, x) in pb.items()]
    sx = unpaired_bootstrap(xa, xb, confidence=confidence, n_boot=n_boot, seed=seed + 1)
    return {
        "mode": "split",
        "alpha": alpha,
        "tasks": len(pa) + len(pb),
        "success": {
            **sa,
            "p_value": fisher["p_value"],
            "test": fisher["test"],
            "significant": fisher["p_value"] < alpha,
        },
        "score": {
            **sx,
            "test": "unpaired bootstrap",
            "significant": sx["low"] > 0 or sx["high"] < 0,
        },
        "envs": [],
    }


# -- running ---------------------------------------------------------------------------------
@dataclass
class ABResult:
    """What :func:`run_ab_test` found: per challenger, the comparison with the control."""

    name: str
    test_id: int
    mode: str
    control: str
    looks_done: int
    looks: int
    stopped_early: bool
    decision: str
    comparisons: dict[str, dict[str, Any]] = field(default_factory=dict)
    episodes: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def ab_records(store, test_id: int) -> dict[str, list[dict[str, Any]]]:
    """The stored episodes of an A/B test as result records, per arm."""
    from sqlalchemy import select

    from agentgym_envs.experience.models import Episode, Run

    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    with store.session() as s:
        rows = s.execute(
            select(
                Run.arm,
                Episode.env_id,
                Episode.item_id,
                Episode.sample,
                Episode.success,
                Episode.score,
            )
            .join(Run, Episode.run_id == Run.id)
            .where(Run.ab_test_id == test_id)
            .order_by(Episode.id)
        )
        for arm, env_id, item_id, sample, ok, score in rows:
            out[arm].append(
                {
                    "env_id": env_id,
                    "item_id": item_id,
                    "sample": sample,
                    "success": bool(ok),
                    "reward": float(score),
                }
            )
    return dict(out)


def run_ab_test(
    store,
    name: str,
    arms: Mapping[str, Any],
    *,
    envs: str | Sequence[str],
    weights: Mapping[str, float] | None = None,
    mode: str = "paired",
    split: str = "test",
    limit: int | None = None,
    looks: int = 1,
    alpha: float = 0.05,
    metric: str = "success",
    min_tasks: int = 10,
    seed: int = 0,
    n_boot: int = 10_000,
    concurrency: int = 1,
    tasks: Sequence[int] | None = None,
    max_rounds: int | None = None,
) -> ABResult:
    """Run (or resume) the A/B test ``name``: ``arms`` maps ``name@version`` labels to the
    :class:`~agentgym_envs.benchmarks.policies.PolicySpec` that plays each; the first arm is
    the control. Episodes go into the store (one run per arm), so a test interrupted midway
    resumes where it stopped. ``tasks``: only these task ids of ``split`` (e.g. the ones a
    new version was not trained on; ``limit`` then caps their number). ``max_rounds``: the
    turn limit of every episode (default: AgentGym's per family). See the module docstring for
    assignment, statistics and stops.
    """
    from agentgym_envs.benchmarks.runner import resolve_envs

    labels = list(arms)
    _check_settings(labels, mode, metric, looks)
    w = [float((weights or {}).get(label, 1.0)) for label in labels]
    config = {
        "arms": [{"label": label, "policy": arms[label].describe()} for label in labels],
        "weights": dict(zip(labels, w, strict=True)),
        "mode": mode,
        "envs": resolve_envs(envs),
        "split": split,
        "limit": limit,
        "looks": looks,
        "alpha": alpha,
        "metric": metric,
        "min_tasks": min_tasks,
        "seed": seed,
        "salt": name,
    }
    if tasks is not None:  # only when given: tests stored before the option still resume
        config["tasks"] = sorted({int(t) for t in tasks})
    if max_rounds is not None:  # likewise
        config["max_rounds"] = int(max_rounds)
    test_id = _open_test(store, name, config)
    arms_run = _Arms(store, test_id, name, arms, w, mode, split, seed, concurrency, max_rounds)
    batches = _batches(name, config["envs"], split, limit, looks, config.get("tasks"))
    stats = {"mode": mode, "alpha": alpha / (looks * (len(labels) - 1)), "n_boot": n_boot}
    done = 0
    for look, batch in enumerate(batches, 1):
        done += len(batch)
        arms_run.play(batch)
        recs = ab_records(store, test_id)
        comps = _compare(recs, labels, seed=seed, **stats)
        significant = _all_significant(comps, metric)
        last = look == len(batches)
        if last or (significant and done >= min_tasks):
            break
        logger.info("A/B %s look %d/%d: continuing", name, look, looks)
    decision = _decision(metric, comps, labels[0], significant, done)
    result = ABResult(name, test_id, mode, labels[0], look, looks, not last, decision)
    result.comparisons = comps
    result.episodes = {k: len(v) for k, v in recs.items()}
    _save_result(store, result)
    return result


def _check_settings(labels: Sequence[str], mode: str, metric: str, looks: int) -> None:
    from agentgym_envs.experience.versions import parse_label

    if len(labels) < 2:
        raise AgentGymError("an A/B test needs two or more arms")
    for label in labels:
        parse_label(label)
    if mode not in MODES:
        raise AgentGymError(f"A/B mode {mode!r}: use 'paired' or 'split'")
    if metric not in METRICS:
        raise AgentGymError(f"A/B metric {metric!r}: use 'success' or 'score'")
    if looks < 1:
        raise AgentGymError(f"looks={looks}: use 1 or more")


def _open_test(store, name: str, config: dict[str, Any]) -> int:
    """The id of test ``name``, created with ``config`` or resumed if its settings match."""
    from sqlalchemy import select

    from agentgym_envs.experience.models import ABTest

    def settings(c: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in c.items() if k != "arms"}

    with store.session() as s:
        test = s.scalars(select(ABTest).where(ABTest.name == name)).one_or_none()
        if test is None:
            test = ABTest(name=name, config=config, status="running")
            s.add(test)
            s.flush()
        elif settings(test.config) != settings(config):
            raise AgentGymError(
                f"A/B test {name!r} exists with other settings: give the new test another name"
            )
        return test.id


def _batches(
    salt: str,
    env_ids: Sequence[str],
    split: str,
    limit: int | None,
    looks: int,
    tasks: Sequence[int] | None = None,
):
    """The test's tasks (of ``tasks`` only, if given) in a fixed hashed order, dealt into
    ``looks`` batches."""
    from agentgym_envs.benchmarks.agenteval import agenteval_items

    items = []
    for env_id in env_ids:
        if tasks is None:
            items.extend(agenteval_items(env_id, split, limit=limit))
            continue
        every = agenteval_items(env_id, split)
        found = [it for it in every if it.task_id in set(tasks)]
        if not found:
            raise AgentGymError(
                f"none of tasks {list(tasks)[:10]} is in {env_id}'s {split} split "
                f"(0..{len(every) - 1}): pick task ids of the split"
            )
        items.extend(found[:limit] if limit is not None else found)
    items.sort(key=lambda it: _order_key(salt, it))
    return [items[i::looks] for i in range(looks)] if looks > 1 else [items]


@dataclass
class _Arms:
    """Plays each arm's share of a batch of tasks and stores the episodes in the arm's run."""

    store: Any
    test_id: int
    name: str
    policies: Mapping[str, Any]
    weights: Sequence[float]
    mode: str
    split: str
    seed: int
    concurrency: int
    max_rounds: int | None = None

    def play(self, batch: Sequence[Any]) -> None:
        labels = list(self.policies)
        for label in labels:
            mine = batch
            if self.mode == "split":
                mine = [
                    it
                    for it in batch
                    if assign_arm(it.item_id, labels, self.weights, salt=self.name) == label
                ]
            if mine:
                self._play_arm(label, mine)

    def _play_arm(self, label: str, items: Sequence[Any]) -> None:
        from agentgym_envs.benchmarks.runner import run_benchmark
        from agentgym_envs.experience.ingest import import_records

        policy = self.policies[label]
        per_env: dict[str, list] = defaultdict(list)
        for it in items:
            per_env[it.env_id].append(it)
        run = run_benchmark(
            list(per_env),
            policy,
            items=dict(per_env),
            out=None,
            split=self.split,
            seed=self.seed,
            concurrency=self.concurrency,
            max_rounds="default" if self.max_rounds is None else self.max_rounds,
            reports=False,
        )
        records = [
            (f"{r['env_id']}|{r['item_id']}|{int(r.get('sample', 0))}", r) for r in run.records
        ]
        import_records(
            self.store,
            records,
            source_key=f"ab:{self.name}:{label}",
            kind="ab",
            name=f"{self.name} / {label}",
            source=f"A/B test {self.name}",
            config={"policy": policy.describe(), "split": self.split},
            version=label,
            ab_test_id=self.test_id,
            arm=label,
        )


def _compare(
    recs: Mapping[str, Sequence[Mapping[str, Any]]],
    labels: Sequence[str],
    **settings: Any,
) -> dict[str, dict[str, Any]]:
    """Each challenger against the control (the first label), by :func:`analyse`."""
    return {
        label: analyse(recs.get(labels[0], []), recs.get(label, []), **settings)
        for label in labels[1:]
    }


def _all_significant(comps: Mapping[str, Mapping[str, Any]], metric: str) -> bool:
    return all(c[metric] is not None and c[metric]["significant"] for c in comps.values())


def _decision(
    metric: str, comps: Mapping[str, Mapping[str, Any]], control: str, significant: bool, n: int
) -> str:
    """The verdict in words, after ``n`` tasks."""
    if not significant:
        return f"no significant difference in {metric} after {n} tasks"
    worse_better = ", ".join(
        f"{lbl} {'better' if c[metric]['diff'] > 0 else 'worse'} than {control}"
        for lbl, c in comps.items()
    )
    return f"significant difference in {metric}: {worse_better}"


def _save_result(store, result: ABResult) -> None:
    from agentgym_envs.experience.models import ABTest

    with store.session() as s:
        test = s.get(ABTest, result.test_id)
        test.status = "stopped early" if result.stopped_early else "completed"
        test.result = _jsonable(result.as_dict())


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.floating, float)):
        v = float(x)
        return None if math.isnan(v) else v
    if isinstance(x, (np.integer,)):
        return int(x)
    return x


def list_ab_tests(store) -> list[dict[str, Any]]:
    """Every A/B test with its settings, status and last result."""
    from sqlalchemy import select

    from agentgym_envs.experience.models import ABTest

    with store.session() as s:
        return [
            {
                "id": t.id,
                "name": t.name,
                "status": t.status,
                "config": t.config,
                "result": t.result,
                "created_at": t.created_at,
            }
            for t in s.scalars(select(ABTest).order_by(ABTest.id))
        ]


__all__ = [
    "METRICS",
    "MODES",
    "ABResult",
    "ab_records",
    "analyse",
    "assign_arm",
    "fisher_test",
    "format_p",
    "list_ab_tests",
    "run_ab_test",
    "sign_test",
    "unpaired_bootstrap",
]
