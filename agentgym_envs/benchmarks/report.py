"""Benchmark results: per-env metrics, JSON / Markdown / bar-chart reports, and A/B comparison.

Metrics follow AgentGym: an episode's **score** is its final graded reward (``info["score"]``:
binary for most families, BabyAI's discounted reward, SciWorld's score), an env's score is the
mean over its episodes and its **success rate** the share of episodes that succeeded. With
``k`` samples per task, **Avg@k** is the mean score over all samples and **Pass@k** the share
of tasks solved by at least one sample (AgentGym-RL's any-success rule). The overall row is the
macro mean over envs (every env counts once, whatever its size); for it, scores on another scale
(SciWorld's 0..100) are divided by their maximum so every env weighs the same.

An episode whose record says ``reward_valid: false`` ended because the environment failed
(``env_error``), not the agent: it is counted apart (``invalid``) and left out of the score,
success rate, Avg@k, Pass@k and mean turns unless ``include_invalid``; the reports say so.
Records without the field (older runs) count as valid.

Latency: each record's ``latency`` lists the policy's and the env's wall seconds per turn; an
env's summary has the mean and 95th percentile over all its turns (``policy_latency_mean``,
``policy_latency_p95``, ``env_latency_mean``, ``env_latency_p95``; ``None`` when its records
carry no latency, as in older runs).
"""

from __future__ import annotations

import json
import logging
import os
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agentgym_envs.errors import BadDataError

logger = logging.getLogger(__name__)

RESULTS_FILE = "results.jsonl"
CONFIG_FILE = "run.json"


def score_scale(env_id: str) -> float:
    """What a perfect score is for ``env_id`` (1 for most, 100 for SciWorld)."""
    from agentgym_envs.spec import ENV_INFO

    info = ENV_INFO.get(env_id)
    return info.record.score_scale if info is not None else 1.0


def episode_key(record: dict[str, Any]) -> tuple[str, str, int]:
    """What identifies an episode of a run: env id, item id, sample number."""
    return (record["env_id"], record["item_id"], int(record.get("sample", 0)))


def reward_is_valid(record: dict[str, Any]) -> bool:
    """Whether an episode record's reward judges the agent (``reward_valid``; true when the
    record does not say)."""
    return record.get("reward_valid", True) is not False


def read_results(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Episode records of a run folder (or its ``results.jsonl``), last record per episode.

    The package's one torn-line policy (:func:`~agentgym_envs.datasets.agenttraj.jsonl_lines`):
    a torn last line (the process died mid-write; resuming re-runs that episode) is skipped with
    a warning naming ``file:line``; a line that is not JSON anywhere else is a
    :class:`BadDataError` naming it; a JSON line that is not an episode record is a warning.
    """
    p = Path(path).expanduser()
    if p.is_dir():
        p = p / RESULTS_FILE
    if not p.is_file():
        raise BadDataError(
            f"{p}: no such results file: pass a run folder written by agentgym bench (--out)"
        )
    from agentgym_envs.datasets.agenttraj import BadJsonLine, jsonl_lines

    records: dict[tuple[str, str, int], dict[str, Any]] = {}
    for number, rec in jsonl_lines(p):
        if isinstance(rec, BadJsonLine):
            raise BadDataError(rec.message)
        if isinstance(rec, dict) and "env_id" in rec and "item_id" in rec:
            records[episode_key(rec)] = rec
        else:
            logger.warning("%s:%d: not an episode record (env_id, item_id): skipped", p, number)
    return list(records.values())


@dataclass
class EnvSummary:
    """One env's numbers in a run.

    ``invalid`` counts the episodes whose reward is not valid (the environment failed);
    ``scored`` the episodes the means are over (all but the invalid ones, unless the summary
    includes them; an env with none scored has means of 0 and is left out of the overall row).
    ``errors`` counts the episodes that raised; ``outcomes`` counts the episodes by why they
    ended (:func:`outcome_of`, in :data:`~agentgym_envs.core.OUTCOMES` order); ``wall_time``, the token counts and the
    latencies are over all episodes. Latencies are seconds per turn over every turn of the
    env's episodes (the policy's -- for a model, its call -- and the env step's): the mean
    and the 95th percentile, ``None`` when no record carries them.
    """

    env_id: str
    episodes: int
    tasks: int
    samples: int
    score: float
    success_rate: float
    avg_at_k: float
    pass_at_k: float
    mean_turns: float
    errors: int = 0
    wall_time: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    invalid: int = 0
    scored: int | None = None
    policy_latency_mean: float | None = None
    policy_latency_p95: float | None = None
    env_latency_mean: float | None = None
    env_latency_p95: float | None = None
    outcomes: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.scored is None:
            self.scored = self.episodes - self.invalid

    def outcome_text(self) -> str:
        """The outcome counts as one cell, e.g. ``success 3, time_limit 2``."""
        return outcome_text(self.outcomes)


@dataclass
class Summary:
    """A run's per-env numbers and the overall (macro) means.

    ``include_invalid`` says whether episodes whose reward is not valid count in the means
    (as their recorded reward, 0) or are left out of them (the default).
    """

    envs: list[EnvSummary] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)
    include_invalid: bool = False

    @property
    def k(self) -> int:
        return max((e.samples for e in self.envs), default=1)

    @property
    def invalid(self) -> int:
        """Episodes whose reward is not valid (the environment failed), over all envs."""
        return sum(e.invalid for e in self.envs)

    @property
    def outcomes(self) -> dict[str, int]:
        """Episodes per outcome over all envs (:data:`~agentgym_envs.core.OUTCOMES` order)."""
        from agentgym_envs.core import OUTCOMES

        total: Counter[str] = Counter()
        for e in self.envs:
            total.update(e.outcomes)
        return {name: total[name] for name in OUTCOMES if total[name]}

    def _macro(self, value: Callable[[EnvSummary], float]) -> float:
        """Mean of ``value`` over the envs with a scored episode."""
        values = [value(e) for e in self.envs if e.scored]
        return statistics.fmean(values) if values else 0.0

    @property
    def overall_score(self) -> float:
        """Macro mean of the envs' scores, each on a 0..1 scale."""
        return self._macro(lambda e: e.score / score_scale(e.env_id))

    @property
    def overall_success(self) -> float:
        return self._macro(lambda e: e.success_rate)

    def invalid_note(self) -> str:
        """What the summary did with episodes whose reward is not valid ("" when none)."""
        n = self.invalid
        if not n:
            return ""
        what = (
            f"{n} episode{'s' if n != 1 else ''} ended on an environment failure (reward not valid)"
        )
        if self.include_invalid:
            return f"{what}: counted in score and success with their recorded reward."
        return f"{what}: counted apart (invalid) and left out of score, success and turns."

    def as_dict(self) -> dict[str, Any]:
        return {
            "config": self.config,
            "k": self.k,
            "include_invalid": self.include_invalid,
            "overall": {
                "score": self.overall_score,
                "success_rate": self.overall_success,
                "avg_at_k": self._macro(lambda e: e.avg_at_k / score_scale(e.env_id)),
                "pass_at_k": self._macro(lambda e: e.pass_at_k),
                "episodes": sum(e.episodes for e in self.envs),
                "invalid": self.invalid,
                "outcomes": self.outcomes,
            },
            "envs": [asdict(e) for e in self.envs],
        }

    @property
    def has_latency(self) -> bool:
        """Whether any env's records carry per-turn latency."""
        return any(e.policy_latency_mean is not None for e in self.envs)

    def to_markdown(self) -> str:
        k = self.k
        invalid = self.invalid > 0
        latency = self.has_latency
        head = ["env", "episodes"] + (["invalid"] if invalid else []) + ["score", "success"]
        if k > 1:
            head += [f"Avg@{k}", f"Pass@{k}"]
        head += ["turns"]
        n_means = len(head) - (3 if invalid else 2)
        head += ["policy ms/turn", "p95 ms"] if latency else []
        head += ["outcomes"]
        lines = [
            "| " + " | ".join(head) + " |",
            "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|",
        ]
        for e in self.envs:
            row = [e.env_id, str(e.episodes)] + ([str(e.invalid)] if invalid else [])
            if e.scored:
                row += [f"{e.score:.3f}", f"{e.success_rate:.1%}"]
                row += [f"{e.avg_at_k:.3f}", f"{e.pass_at_k:.1%}"] if k > 1 else []
                row += [f"{e.mean_turns:.1f}"]
            else:
                row += ["-"] * n_means
            row += latency_cells(e) if latency else []
            row += [e.outcome_text()]
            lines.append("| " + " | ".join(row) + " |")
        d = self.as_dict()["overall"]
        row = ["**overall (mean over envs)**", str(d["episodes"])]
        row += [str(d["invalid"])] if invalid else []
        row += [f"{d['score']:.3f}", f"{d['success_rate']:.1%}"]
        if k > 1:
            row += [f"{d['avg_at_k']:.3f}", f"{d['pass_at_k']:.1%}"]
        row += [""] + (["", ""] if latency else [])
        row += [outcome_text(d["outcomes"])]
        lines.append("| " + " | ".join(row) + " |")
        if invalid:
            lines += ["", self.invalid_note()]
        title = ""
        if self.config:
            pol = self.config.get("policy", {})
            title = f"Policy `{pol.get('name', '?')}`" + (
                f" (`{pol['model']}`)" if pol.get("model") else ""
            )
            title += f", format `{self.config.get('format', '?')}`, split `{self.config.get('split', '?')}`\n\n"
        return title + "\n".join(lines) + "\n"


def outcome_of(record: dict[str, Any]) -> str:
    """Why an episode ended, in the env contract's words (:data:`agentgym_envs.core.OUTCOMES`):
    the record's own ``outcome`` where it has one, ``env_error`` for an episode that raised."""
    from agentgym_envs.core import OUTCOMES, episode_outcome

    if record.get("error"):
        return "env_error"
    if record.get("outcome") in OUTCOMES:
        return str(record["outcome"])
    terminated, truncated = bool(record.get("terminated")), bool(record.get("truncated"))
    if not (terminated or truncated):  # a record from before the contract: read its fields
        truncated = record.get("truncation_reason") is not None
        terminated = not truncated
    info = {"success": record.get("success"), "truncation_reason": record.get("truncation_reason")}
    return episode_outcome(terminated, truncated, info) or "failure"


def count_outcomes(records: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Episodes per outcome, in :data:`~agentgym_envs.core.OUTCOMES` order (absent ones left out)."""
    from agentgym_envs.core import OUTCOMES

    counts = Counter(outcome_of(r) for r in records)
    return {name: counts[name] for name in OUTCOMES if counts[name]}


def outcome_text(outcomes: dict[str, int]) -> str:
    """Outcome counts as one table cell: ``success 3, time_limit 2`` (``-`` when empty)."""
    return ", ".join(f"{name} {n}" for name, n in outcomes.items()) or "-"


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return statistics.fmean(values) if values else 0.0


def latency_cells(e: EnvSummary) -> list[str]:
    """An env's mean and p95 policy milliseconds per turn as table cells (``-`` if unknown)."""
    return [
        "-" if v is None else f"{v * 1000:.0f}"
        for v in (e.policy_latency_mean, e.policy_latency_p95)
    ]


def _turn_times(records: Iterable[dict[str, Any]], key: str) -> tuple[float | None, float | None]:
    """Mean and 95th percentile of the per-turn seconds ``latency[key]`` over ``records``."""
    times = [
        float(t)
        for r in records
        if isinstance(r.get("latency"), dict)
        for t in r["latency"].get(key) or ()
        if isinstance(t, (int, float))
    ]
    if not times:
        return None, None
    return round(statistics.fmean(times), 4), round(float(np.percentile(times, 95)), 4)


def summarize(
    records: Iterable[dict[str, Any]],
    config: dict[str, Any] | None = None,
    *,
    include_invalid: bool = False,
) -> Summary:
    """Per-env metrics of episode records (env order: first appearance).

    Episodes whose reward is not valid (``reward_valid: false``) are counted in
    :attr:`EnvSummary.invalid` and left out of the means unless ``include_invalid``.
    """
    by_env: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_env[r["env_id"]].append(r)
    out = Summary(config=dict(config or {}), include_invalid=include_invalid)
    for env_id, recs in by_env.items():
        per_task: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in recs:
            per_task[r["item_id"]].append(r)
        scored = [r for r in recs if include_invalid or reward_is_valid(r)]
        scored_tasks: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in scored:
            scored_tasks[r["item_id"]].append(r)
        tokens = [r.get("tokens") or {} for r in recs]
        policy_mean, policy_p95 = _turn_times(recs, "policy_s")
        env_mean, env_p95 = _turn_times(recs, "env_s")
        out.envs.append(
            EnvSummary(
                env_id=env_id,
                episodes=len(recs),
                tasks=len(per_task),
                samples=max(len(v) for v in per_task.values()),
                score=_mean(float(r.get("reward") or 0.0) for r in scored),
                success_rate=_mean(bool(r.get("success")) for r in scored),
                avg_at_k=_mean(
                    statistics.fmean(float(r.get("reward") or 0.0) for r in v)
                    for v in scored_tasks.values()
                ),
                pass_at_k=_mean(
                    any(bool(r.get("success")) for r in v) for v in scored_tasks.values()
                ),
                mean_turns=_mean(int(r.get("turns", 0)) for r in scored),
                errors=sum(1 for r in recs if r.get("error")),
                invalid=sum(1 for r in recs if not reward_is_valid(r)),
                scored=len(scored),
                outcomes=count_outcomes(recs),
                wall_time=sum(float(r.get("wall_time", 0.0)) for r in recs),
                prompt_tokens=sum(int(t.get("prompt_tokens", 0)) for t in tokens),
                completion_tokens=sum(int(t.get("completion_tokens", 0)) for t in tokens),
                policy_latency_mean=policy_mean,
                policy_latency_p95=policy_p95,
                env_latency_mean=env_mean,
                env_latency_p95=env_p95,
            )
        )
    return out


def bar_chart(summary: Summary, path: str | os.PathLike[str], title: str | None = None) -> Path:
    """A PNG bar chart of score and success rate per env (matplotlib, headless)."""
    from agentgym_envs.errors import require

    matplotlib = require("matplotlib", "bench")
    matplotlib.use("Agg", force=False)
    plt = require("matplotlib.pyplot", "bench")
    names = [e.env_id.split("/")[-1] for e in summary.envs] + ["overall"]
    success = [e.success_rate for e in summary.envs] + [summary.overall_success]
    score = [e.score / score_scale(e.env_id) for e in summary.envs] + [summary.overall_score]
    x = np.arange(len(names))
    fig, ax = plt.subplots(figsize=(max(5.0, 1.1 * len(names) + 2), 3.6), dpi=110)
    bars = [
        ax.bar(x - 0.2, score, 0.4, label="score", color="#4C72B0"),
        ax.bar(x + 0.2, success, 0.4, label="success rate", color="#55A868"),
    ]
    for b in bars:
        ax.bar_label(b, fmt="%.2f", fontsize=7, padding=1)
    ax.set_xticks(x, names, rotation=30, ha="right")
    ax.set_ylim(0, 1.12)
    ax.set_ylabel("mean over episodes (score / max)")
    pol = summary.config.get("policy", {}) if summary.config else {}
    ax.set_title(title or f"agentgym bench: {pol.get('model') or pol.get('name', '')}".strip())
    ax.legend(loc="upper right", fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out)
    plt.close(fig)
    return out


def write_reports(
    summary: Summary, folder: str | os.PathLike[str], *, chart: bool = True
) -> dict[str, Path]:
    """``summary.json``, ``summary.md`` and (with matplotlib) ``summary.png`` in ``folder``."""
    d = Path(folder)
    d.mkdir(parents=True, exist_ok=True)
    paths = {"json": d / "summary.json", "markdown": d / "summary.md"}
    paths["json"].write_text(json.dumps(summary.as_dict(), indent=2) + "\n", encoding="utf-8")
    paths["markdown"].write_text(summary.to_markdown(), encoding="utf-8")
    if chart and summary.envs:
        try:
            paths["png"] = bar_chart(summary, d / "summary.png")
        except ImportError:
            pass
    return paths


# -- A/B comparison ---------------------------------------------------------------------
@dataclass
class Difference:
    """B minus A for one metric, with a bootstrap confidence interval."""

    a: float
    b: float
    diff: float
    low: float
    high: float
    p_value: float

    @property
    def verdict(self) -> str:
        if self.low > 0:
            return "B better"
        if self.high < 0:
            return "A better"
        return "no significant difference"


@dataclass
class EnvComparison:
    env_id: str
    paired_items: int
    success: Difference
    score: Difference


@dataclass
class Comparison:
    """Per-env and overall differences between run A and run B on their shared items."""

    envs: list[EnvComparison]
    overall_success: Difference | None
    overall_score: Difference | None
    confidence: float
    n_boot: int
    only_in_a: int = 0
    only_in_b: int = 0

    def as_dict(self) -> dict[str, Any]:
        def d(x: Difference | None) -> dict[str, Any] | None:
            return None if x is None else {**asdict(x), "verdict": x.verdict}

        return {
            "confidence": self.confidence,
            "n_boot": self.n_boot,
            "only_in_a": self.only_in_a,
            "only_in_b": self.only_in_b,
            "overall": {"success": d(self.overall_success), "score": d(self.overall_score)},
            "envs": [
                {
                    "env_id": e.env_id,
                    "paired_items": e.paired_items,
                    "success": d(e.success),
                    "score": d(e.score),
                }
                for e in self.envs
            ],
        }

    def to_markdown(self) -> str:
        pct = f"{self.confidence:.0%}"
        lines = [
            f"| env | items | success A | success B | diff [{pct} CI] | verdict | score A | score B | diff [{pct} CI] | verdict |",
            "|---|---:|---:|---:|---|---|---:|---:|---|---|",
        ]

        def cells(x: Difference, fmt: str) -> list[str]:
            return [
                format(x.a, fmt),
                format(x.b, fmt),
                f"{x.diff:+{fmt}} [{x.low:+{fmt}}, {x.high:+{fmt}}]",
                x.verdict,
            ]

        for e in self.envs:
            lines.append(
                "| "
                + " | ".join(
                    [
                        e.env_id,
                        str(e.paired_items),
                        *cells(e.success, ".3f"),
                        *cells(e.score, ".3f"),
                    ]
                )
                + " |"
            )
        if self.overall_success and self.overall_score:
            lines.append(
                "| "
                + " | ".join(
                    [
                        "**overall**",
                        str(sum(e.paired_items for e in self.envs)),
                        *cells(self.overall_success, ".3f"),
                        *cells(self.overall_score, ".3f"),
                    ]
                )
                + " |"
            )
        return "\n".join(lines) + "\n"


def _per_item(
    records: Iterable[dict[str, Any]], include_invalid: bool = False
) -> dict[str, dict[str, tuple[float, float]]]:
    """env -> item -> (mean success, mean score) over the item's samples (those whose reward
    is valid, unless ``include_invalid``)."""
    acc: dict[str, dict[str, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    for r in records:
        if not (include_invalid or reward_is_valid(r)):
            continue
        acc[r["env_id"]][r["item_id"]].append(
            (float(bool(r.get("success"))), float(r.get("reward") or 0.0))
        )
    return {
        env: {
            item: (statistics.fmean(s for s, _ in v), statistics.fmean(x for _, x in v))
            for item, v in items.items()
        }
        for env, items in acc.items()
    }


def _difference(
    a: np.ndarray, b: np.ndarray, boot_means_a: np.ndarray, boot_means_b: np.ndarray, alpha: float
) -> Difference:
    diffs = boot_means_b - boot_means_a
    low, high = np.quantile(diffs, [alpha / 2, 1 - alpha / 2])
    p = 2 * min(float(np.mean(diffs <= 0)), float(np.mean(diffs >= 0)))
    return Difference(
        float(a.mean()),
        float(b.mean()),
        float(b.mean() - a.mean()),
        float(low),
        float(high),
        min(1.0, p),
    )


def compare_runs(
    run_a: str | os.PathLike[str] | Sequence[dict[str, Any]],
    run_b: str | os.PathLike[str] | Sequence[dict[str, Any]],
    *,
    n_boot: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
    include_invalid: bool = False,
) -> Comparison:
    """Paired bootstrap comparison of two runs (B minus A) on the items both ran.

    Per-env rows are in each env's own score scale; the overall score row puts every env on
    0..1 (see the module docstring).

    Items are paired by env and item id (samples of an item are averaged first). Each
    bootstrap round resamples the paired items with replacement -- per env for the per-env
    rows, within every env for the overall row (which is the macro mean over envs, as in the
    summary). A difference is significant when its confidence interval excludes 0. Samples
    whose reward is not valid (the environment failed) are left out unless
    ``include_invalid``; an item left with none is unpaired.
    """
    recs_a = read_results(run_a) if isinstance(run_a, (str, os.PathLike)) else list(run_a)
    recs_b = read_results(run_b) if isinstance(run_b, (str, os.PathLike)) else list(run_b)
    a, b = _per_item(recs_a, include_invalid), _per_item(recs_b, include_invalid)
    rng = np.random.default_rng(seed)
    alpha = 1 - confidence
    envs: list[EnvComparison] = []
    boot: dict[str, list[np.ndarray]] = {"sa": [], "sb": [], "xa": [], "xb": []}
    only_a = only_b = 0
    for env in [e for e in a if e in b]:
        shared = sorted(set(a[env]) & set(b[env]))
        only_a += len(set(a[env]) - set(b[env]))
        only_b += len(set(b[env]) - set(a[env]))
        if not shared:
            continue
        va = np.array([a[env][i] for i in shared])
        vb = np.array([b[env][i] for i in shared])
        idx = rng.integers(0, len(shared), size=(n_boot, len(shared)))
        means = {
            key: arr[idx, col].mean(axis=1)
            for key, arr, col in (("sa", va, 0), ("sb", vb, 0), ("xa", va, 1), ("xb", vb, 1))
        }
        scale = score_scale(env)
        for key, m in means.items():
            boot[key].append(m / scale if key[0] == "x" else m)
        envs.append(
            EnvComparison(
                env,
                len(shared),
                _difference(va[:, 0], vb[:, 0], means["sa"], means["sb"], alpha),
                _difference(va[:, 1], vb[:, 1], means["xa"], means["xb"], alpha),
            )
        )
    only_a += sum(len(v) for e, v in a.items() if e not in b)
    only_b += sum(len(v) for e, v in b.items() if e not in a)
    overall_s = overall_x = None
    if envs:
        macro = {k: np.mean(np.stack(v), axis=0) for k, v in boot.items()}
        sa = np.array([e.success.a for e in envs])
        sb = np.array([e.success.b for e in envs])
        scale = np.array([score_scale(e.env_id) for e in envs])
        xa = np.array([e.score.a for e in envs]) / scale
        xb = np.array([e.score.b for e in envs]) / scale
        overall_s = _difference(sa, sb, macro["sa"], macro["sb"], alpha)
        overall_x = _difference(xa, xb, macro["xa"], macro["xb"], alpha)
    return Comparison(envs, overall_s, overall_x, confidence, n_boot, only_a, only_b)


__all__ = [
    "CONFIG_FILE",
    "RESULTS_FILE",
    "Comparison",
    "Difference",
    "EnvComparison",
    "EnvSummary",
    "Summary",
    "bar_chart",
    "compare_runs",
    "episode_key",
    "latency_cells",
    "read_results",
    "reward_is_valid",
    "summarize",
    "write_reports",
]
