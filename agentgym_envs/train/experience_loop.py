"""The experience loop in one call: episodes -> store -> feedback -> training data -> a new
version -> A/B against the current one -> promote, or roll back a worse one.

``run(out)`` plays it by default with a language model on TextCraft-v0 (AgentGym's Minecraft
crafting family: its train and test splits are different recipes), every step through the
experience store (SQLite under ``out``):

1. **Episodes.** The current version ``agent@0`` -- SmolLM2-135M as it comes (the
   ``learner="sft"`` default; see :mod:`~agentgym_envs.train.experience_learners`) -- plays
   the first ``base_items`` tasks of the family's *train* split, and a teacher (the family's
   scripted expert, stored as the agent ``teacher@expert``) the first ``train_items``. Both
   runs go into the store, where the env's verdict on every episode and action is stored as
   automatic feedback.
2. **Feedback.** A person's labels through the store's feedback API: the untrained agent's
   lucky successes (if any) judged ``bad`` (not to be imitated), one teacher success judged
   ``bad`` as a whole (it leaves the training data) and one teacher action judged ``bad`` (kept
   out of the loss).
3. **Training data**, exported *from the store*: the judged-successful episodes of those two
   runs as AgentTraj records (a person's outcome label overrides the env's verdict; a judged
   action keeps ``loss: false``).
4. **A new version.** ``agent@1``: the base model behaviour-cloned on that export by the
   training pipeline's ``sft`` stage (TRL's ``SFTTrainer``), registered with parent
   ``agent@0`` and its checkpoint.
5. **A/B** of ``agent@1`` against the current version on the first ``heldout_items`` items of
   the *test* split (never trained on), both arms through the benchmark runner with the same
   seeds, paired, exact McNemar (sign) test on success: promoted when significantly better.
6. **A worse version.** ``agent@2``: ``agent@1``'s weights trained further on the store's
   *judged-failed* episodes of the untrained agent (the export a person gets by picking the
   wrong outcome filter), registered with parent ``agent@1``, deployed straight away (as a
   hurried person would), its served episodes (the same held-out items) stored, and rolled
   back by the store's rule
   (:func:`~agentgym_envs.experience.versions.rollback_if_worse`) when it is significantly worse
   than the version it replaced on the items both played.

``learner="table"`` runs the same loop in seconds with a lookup table
(:mod:`~agentgym_envs.train.bc_table`) on Maze-v0 (whose train and test splits are the same 25
start cells: every ``holdout_every``-th one is held out, the others are trained on), the
untrained version being a random policy.

The result (JSON-able) has ``env``, ``learner``, ``model``, ``train_tasks``, ``base_tasks``,
``heldout_tasks``, ``episodes`` (stored per version), ``feedback`` (``auto`` and ``human``
counts, and the person's ``labels``), ``training`` (per trained version: the export, its
records and episode ids, the trainer's figures), ``versions`` (label, parent, model, whether
current), ``candidates`` (per new version: its parent, what it was trained on, the comparison
with the version it would replace -- per arm ``n``, successes, rate and Wilson 95% interval;
the difference with its interval, the exact McNemar p-value -- and ``decision``:
``promoted``, ``kept``, ``rolled_back``), ``current``, ``history`` (promotions and rollbacks),
``stage_seconds``, ``seconds``, ``cpu_seconds`` (this process's CPU time: what the run costs
on an idle machine) and ``load_before_after`` (the 1-minute load average). Re-running into the same
``out`` resumes: stored runs, labels, trained versions and finished A/B tests are reused.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from agentgym_envs.errors import AgentGymError, unknown_name

logger = logging.getLogger(__name__)

#: Who gives the person's labels in the scripted run.
PERSON = "reviewer"
AGENT = "agent"
TEACHER = "teacher@expert"
#: Per learner: the env, the turn limit (``None``: AgentGym's) and the held-out rule.
#: ``None`` items: every task of the split (after the held-out rule).
DEFAULTS: dict[str, dict[str, Any]] = {
    "sft": {
        "env": "TextCraft-v0",
        "max_rounds": 3,
        "holdout_every": None,
        "train_items": 40,
        "base_items": 20,
        "heldout_items": None,
    },
    "table": {
        "env": "Maze-v0",
        "max_rounds": None,
        "holdout_every": 2,
        "train_items": None,
        "base_items": None,
        "heldout_items": None,
    },
}


def _items(env_id: str, split: str, tasks: list[int]) -> dict[str, list[Any]]:
    from agentgym_envs.benchmarks.agenteval import agenteval_items

    chosen = [it for it in agenteval_items(env_id, split) if it.task_id in set(tasks)]
    return {env_id: chosen}


def _tasks(
    env_id: str, train_items: int | None, heldout_items: int | None, holdout_every: int | None
) -> tuple[list[int], list[int]]:
    """The train-split tasks trained on and the test-split tasks held out."""
    from agentgym_envs.benchmarks.agenteval import agenteval_items

    train = [it.task_id for it in agenteval_items(env_id, "train")]
    test = [it.task_id for it in agenteval_items(env_id, "test")]
    if holdout_every is not None:  # one set of tasks in both splits: hold out every k-th
        if holdout_every < 2:
            raise AgentGymError(f"holdout_every={holdout_every}: use 2 or more (1 holds out all)")
        train = [t for t in train if t % holdout_every]
        test = [t for t in test if t % holdout_every == 0]
    train_items = len(train) if train_items is None else train_items
    heldout_items = len(test) if heldout_items is None else heldout_items
    if len(train) < train_items or len(test) < heldout_items:
        raise AgentGymError(
            f"{env_id} has {len(train)} train and {len(test)} held-out tasks, fewer than the "
            f"{train_items} and {heldout_items} asked: lower train_items / heldout_items"
        )
    return train[:train_items], test[:heldout_items]


def _play(
    store,
    env_id: str,
    spec: Any,
    label: str,
    tasks: list[int],
    out: Path,
    max_rounds: int | None,
    concurrency: int,
    split: str = "train",
    seed: int = 0,
) -> int:
    """Play ``tasks`` of ``split`` with ``spec`` into ``out`` (resumed per episode) and import
    the run as version ``label``; the run's id in the store."""
    from sqlalchemy import select

    from agentgym_envs.benchmarks import run_benchmark
    from agentgym_envs.experience import import_path
    from agentgym_envs.experience.models import Run

    run_benchmark(
        env_id,
        spec,
        out=out,
        split=split,
        items=_items(env_id, split, tasks),
        max_rounds="default" if max_rounds is None else max_rounds,
        seed=seed,
        concurrency=concurrency,
        reports=False,
    )
    report = import_path(store, out, version=label)
    logger.info("%s: %d episodes stored (%d already there)", label, report.added, report.skipped)
    with store.session() as s:
        return int(s.scalar(select(Run.id).where(Run.source == str(out.resolve()))))


def _rollback(
    store, bad: str, deployed: list[int], *, n_boot: int, seed: int, min_items: int, alpha: float
) -> tuple[bool, str]:
    """Whether the deployed ``bad`` version is rolled back, and why: the store's rule when it is
    still current, else what an earlier run decided (``deployed``: its promotion entries)."""
    from agentgym_envs.experience import current_version, rollback_if_worse
    from agentgym_envs.experience.versions import promotion_history

    if current_version(store, AGENT).label == bad:
        decision = rollback_if_worse(
            store, AGENT, n_boot=n_boot, seed=seed, min_items=min_items, confidence=1 - alpha
        )
        return decision.rolled_back, decision.reason
    history = promotion_history(store, AGENT)  # rolled back (or replaced) by an earlier run
    after = history[deployed[-1] + 1] if deployed[-1] + 1 < len(history) else {}
    return after.get("action") == "rollback", after.get("reason", "")


def _label_once(store, episode: int, **feedback: Any) -> dict[str, Any]:
    from agentgym_envs.experience import add_feedback, list_feedback

    mine = list_feedback(store, episode_id=episode, author=PERSON)
    if not any(f["step_index"] == feedback.get("step_index") for f in mine):
        add_feedback(store, episode, author=PERSON, **feedback)
    return {"episode_id": episode, **feedback}


def _person_feedback(store, base_run: int, teacher_run: int) -> list[dict[str, Any]]:
    """A person's labels on the collected episodes (see the module docstring, step 2)."""
    from agentgym_envs.experience import select_episodes

    labels = []
    for lucky in select_episodes(store, runs=[base_run], outcome="success"):
        labels.append(
            _label_once(store, lucky, label="bad", comment="a lucky success: do not imitate")
        )
    # the env's verdict, not a person's: a relabelled episode keeps its place in this order
    taught = [e for e in select_episodes(store, runs=[teacher_run]) if _env_success(store, e)]
    if len(taught) >= 2:
        labels.append(
            _label_once(
                store, taught[-1], label="bad", comment="reviewed: not an example to imitate"
            )
        )
        labels.append(
            _label_once(
                store, taught[0], step_index=0, label="bad", comment="a needless first move"
            )
        )
    return labels


def _env_success(store, episode: int) -> bool:
    from agentgym_envs.experience.models import Episode

    with store.session() as s:
        return bool(s.get(Episode, episode).success)


def _comparison(
    name: str, control: str, a: list[dict], challenger: str, b: list[dict], **kw: Any
) -> dict[str, Any]:
    """Challenger against control on the items both played: per arm ``n``, successes, rate
    and Wilson interval; the paired difference, its interval and the exact McNemar p."""
    from agentgym_envs.experience.ab import analyse
    from agentgym_envs.train.stats import wilson

    shared = {(r["env_id"], r["item_id"]) for r in a} & {(r["env_id"], r["item_id"]) for r in b}
    a = [r for r in a if (r["env_id"], r["item_id"]) in shared]
    b = [r for r in b if (r["env_id"], r["item_id"]) in shared]
    row = analyse(a, b, mode="paired", **kw)["success"]
    wins_a, wins_b = sum(bool(r["success"]) for r in a), sum(bool(r["success"]) for r in b)
    summary = {
        "name": name,
        "control": control,
        "challenger": challenger,
        "tasks": len(shared),
        "successes_control": wins_a,
        "successes_challenger": wins_b,
        "success_control": row["a"],
        "success_challenger": row["b"],
        "ci_control": list(wilson(wins_a, len(a))),
        "ci_challenger": list(wilson(wins_b, len(b))),
        "diff": row["diff"],
        "low": row["low"],
        "high": row["high"],
        "p_value": row["p_value"],
        "test": row["test"],
        "significant": bool(row["significant"]),
    }
    logger.info(
        "%s: %s %d/%d vs %s %d/%d, p=%.3g",
        name,
        control,
        wins_a,
        len(a),
        challenger,
        wins_b,
        len(b),
        row["p_value"],
    )
    return summary


def _ab(store, name: str, arms: dict[str, Any], **settings: Any) -> dict[str, Any]:
    """Run (or reuse, when finished) the store's A/B test ``name``; its paired comparison."""
    from agentgym_envs.experience import run_ab_test
    from agentgym_envs.experience.ab import ab_records, list_ab_tests

    done = [t for t in list_ab_tests(store) if t["name"] == name and t["result"]]
    stats = {k: settings[k] for k in ("alpha", "n_boot", "seed")}
    if done:
        test_id, decision = done[0]["id"], done[0]["result"]["decision"]
    else:
        result = run_ab_test(store, name, arms, **settings)
        test_id, decision = result.test_id, result.decision
    recs = ab_records(store, test_id)
    control, challenger = list(arms)
    summary = _comparison(name, control, recs[control], challenger, recs[challenger], **stats)
    return {**summary, "decision": decision}


def run(
    out: Path,
    *,
    learner: str = "sft",
    env: str | None = None,
    model: str = "smollm2",
    train_items: int | None = None,
    base_items: int | None = None,
    heldout_items: int | None = None,
    holdout_every: int | None = None,
    max_rounds: int | None = None,
    max_tokens: int = 24,
    sft_epochs: float = 1.0,
    sft_lr: float = 2e-4,
    sft_batch: int = 2,
    sft_layers: int = 8,
    alpha: float = 0.05,
    n_boot: int = 2000,
    seed: int = 0,
    concurrency: int = 8,
) -> dict[str, Any]:
    """Run the experience loop into folder ``out`` (see the module docstring).

    Args:
        out: the folder for the store (``experience.db``), the runs, the exports and the
            versions' weights.
        learner: ``"sft"`` (a language model, behaviour-cloned by the ``sft`` stage) or
            ``"table"`` (a lookup table; seconds).
        env: the family (default TextCraft-v0 for ``sft``, Maze-v0 for ``table``).
        model: the ``sft`` learner's base model: ``"smollm2"`` or a checkpoint folder.
        train_items: train-split tasks the teacher plays (the first ones; default 40 for
            ``sft``, every one for ``table``).
        base_items: of those, how many the untrained version plays (default 20 / every one).
        heldout_items: test-split items of the A/B and of the worse version's deployment
            (the first ones; default: every one, 100 for TextCraft).
        holdout_every: for a family whose splits hold the same tasks (Maze-v0): every k-th
            task is held out and the others trained on (default 2 for ``table``, else none).
        max_rounds: every episode's turn limit (default 3 for ``sft``, AgentGym's for
            ``table``).
        max_tokens / sft_epochs / sft_lr / sft_batch / sft_layers: the model's reply cap and
            the ``sft`` stage's settings (:class:`~agentgym_envs.train.settings.TrainSettings`).
        alpha: the significance level of the A/B and of the rollback's interval.
        n_boot: bootstrap resamples of the score intervals.
        seed: the episodes' and the trainer's seed.
        concurrency: episodes in flight (a model's replies to them are decoded as a batch).
    """
    from agentgym_envs.benchmarks import expert_spec
    from agentgym_envs.experience import (
        current_version,
        export_training,
        open_store,
        promote,
        register_version,
    )
    from agentgym_envs.experience.feedback import count_feedback
    from agentgym_envs.experience.versions import (
        get_version,
        list_versions,
        promotion_history,
        version_records,
    )
    from agentgym_envs.spec import resolve_id
    from agentgym_envs.train.experience_learners import make_learner
    from agentgym_envs.train.settings import TrainSettings

    started, load_before, cpu_before = time.perf_counter(), os.getloadavg(), _cpu_seconds()
    if learner not in DEFAULTS:
        raise AgentGymError(unknown_name("learner", learner, DEFAULTS))
    defaults = DEFAULTS[learner]
    env_id = resolve_id(env or defaults["env"])
    if max_rounds is None:
        max_rounds = defaults["max_rounds"]
    if holdout_every is None:
        holdout_every = defaults["holdout_every"]
    counts = {"train_items": train_items, "base_items": base_items}
    counts["heldout_items"] = heldout_items
    counts = {k: defaults[k] if v is None else v for k, v in counts.items()}
    if any(v is not None and v < 1 for v in counts.values()):
        raise AgentGymError(f"{counts}: use 1 or more of each")
    train_tasks, heldout = _tasks(
        env_id, counts["train_items"], counts["heldout_items"], holdout_every
    )
    base_tasks = train_tasks[: counts["base_items"]]
    settings = TrainSettings(
        envs=(env_id,),
        model=model,
        eval_items=len(heldout),
        max_rounds=max_rounds or 1,
        max_tokens=max_tokens,
        sft_epochs=sft_epochs,
        sft_lr=sft_lr,
        sft_batch=sft_batch,
        sft_layers=sft_layers,
        seed=seed,
    )
    out = Path(out)
    learn = make_learner(learner, out, settings)
    store = open_store(out / "experience.db")
    base, good, bad = f"{AGENT}@0", f"{AGENT}@1", f"{AGENT}@2"
    times: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        times[name] = round(now - clock, 1)
        clock = now

    # 1. episodes of the current version and of a teacher, into the store
    register_version(store, AGENT, "0", model=learn.base_model, config=learn.base_config())
    register_version(store, *TEACHER.split("@"), model="scripted expert")
    if current_version(store, AGENT) is None:
        promote(store, base, author=PERSON, reason="first version")
    specs = {base: learn.base_spec()}
    runs = out / "runs"
    played = {"max_rounds": max_rounds, "concurrency": concurrency}
    base_run = _play(store, env_id, specs[base], base, base_tasks, runs / "agent-0", **played)
    teacher_run = _play(
        store, env_id, expert_spec(), TEACHER, train_tasks, runs / "teacher", **played
    )
    lap("collect")

    # 2. feedback: the env's (stored on import) and a person's
    labels = _person_feedback(store, base_run, teacher_run)

    # 3-4. training data from the store, a version trained on it, registered with its parent
    training: dict[str, Any] = {}

    def new_version(label: str, parent: str, trained_on: str, **filters: Any) -> Any:
        data = out / "data" / f"{label.replace('@', '-')}.jsonl"
        parent_config = get_version(store, parent).config or {}
        name, version = label.split("@")
        try:
            known = get_version(store, label)
        except AgentGymError:
            known = None
        if known is not None and known.config:  # trained by an earlier run: on this file
            config = known.config
            records = [json.loads(x) for x in data.read_text("utf-8").splitlines() if x.strip()]
        else:
            records = export_training(store, "agenttraj", data, **filters)
            model_name, config = learn.train(label, data, parent_config)
            config = {**config, "trained_on": trained_on, "data": str(data)}
            register_version(store, name, version, model=model_name, parent=parent, config=config)
        training[label] = {
            "parent": parent,
            "trained_on": trained_on,
            "data": str(data.relative_to(out)),
            "records": len(records),
            "episode_ids": [r["episode_id"] for r in records],
            **{k: v for k, v in config.items() if k in ("sft", "states")},
        }
        specs[label] = learn.spec(label, config)
        return specs[label]

    new_version(good, base, "judged-successful episodes", runs=[base_run, teacher_run])
    lap("train " + good)

    # 5. A/B against the current version on held-out test items: promoted when better
    ab_settings = {
        "envs": env_id,
        "split": "test",
        "tasks": heldout,
        "alpha": alpha,
        "n_boot": n_boot,
        "seed": seed,
        "min_tasks": len(heldout),
        "max_rounds": max_rounds,
        "concurrency": concurrency,
    }
    ab = _ab(store, f"{base}-vs-{good}", {base: specs[base], good: specs[good]}, **ab_settings)
    better = ab["significant"] and ab["diff"] > 0
    if better and current_version(store, AGENT).label == base:
        promote(store, good, author="experience-loop", reason=_why(ab))
    candidates = [
        {
            "version": good,
            "parent": base,
            "trained_on": training[good]["trained_on"],
            "ab": ab,
            "decision": "promoted" if better else "kept",
        }
    ]
    lap("A/B " + good)

    # 6. a deliberately worse version: deployed, its episodes stored, rolled back
    history = promotion_history(store, AGENT)
    deployed = [i for i, h in enumerate(history) if h["version"] == bad]
    previous = (
        history[deployed[0] - 1]["version"] if deployed else current_version(store, AGENT).label
    )
    new_version(
        bad,
        good,
        f"{base}'s judged-failed episodes, from {good}'s weights",
        runs=[base_run],
        outcome="failure",
    )
    lap("train " + bad)
    if not deployed:
        promote(store, bad, author=PERSON, reason="deployed without an A/B test")
    served = runs / "agent-2-deployed"
    _play(store, env_id, specs[bad], bad, heldout, served, **played, split="test", seed=seed)
    held = {it.item_id for it in _items(env_id, "test", heldout)[env_id]}
    check = _comparison(
        f"{previous}-vs-{bad} (deployed)",
        previous,
        [r for r in version_records(store, previous) if r["item_id"] in held],
        bad,
        [r for r in version_records(store, bad) if r["item_id"] in held],
        alpha=alpha,
        n_boot=n_boot,
        seed=seed,
    )
    rolled_back, reason = _rollback(
        store, bad, deployed, n_boot=n_boot, seed=seed, min_items=len(heldout), alpha=alpha
    )
    candidates.append(
        {
            "version": bad,
            "parent": good,
            "trained_on": training[bad]["trained_on"],
            "ab": check,
            "decision": "rolled_back" if rolled_back else "kept",
            "rollback_reason": reason,
        }
    )
    logger.info("rollback check: %s", reason)
    lap("deploy and check " + bad)

    versions = list_versions(store)
    return {
        "env": env_id,
        "learner": learner,
        "model": model if learner == "sft" else None,
        "settings": {
            **counts,
            "max_rounds": max_rounds,
            "max_tokens": max_tokens,
            "sft_epochs": sft_epochs,
            "sft_lr": sft_lr,
            "sft_batch": sft_batch,
            "sft_layers": sft_layers,
            "alpha": alpha,
            "seed": seed,
        },
        "train_tasks": train_tasks,
        "base_tasks": base_tasks,
        "heldout_tasks": heldout,
        "versions": [
            {k: v[k] for k in ("label", "parent", "model", "current", "success_rate")}
            for v in versions
        ],
        "episodes": {v["label"]: v["episodes"] for v in versions},
        "feedback": {
            "auto": count_feedback(store, source="auto"),
            "human": count_feedback(store, source="human"),
            "labels": labels,
        },
        "training": training,
        "candidates": candidates,
        "current": current_version(store, AGENT).label,
        "history": [
            {k: (str(v) if k == "at" else v) for k, v in h.items()}
            for h in promotion_history(store, AGENT)
        ],
        "stage_seconds": times,
        "seconds": round(time.perf_counter() - started, 1),
        "cpu_seconds": round(_cpu_seconds() - cpu_before, 1),
        "load_before_after": [load_before[0], os.getloadavg()[0]],
    }


def _cpu_seconds() -> float:
    """This process's CPU time so far (user + system, every thread)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _why(ab: dict[str, Any]) -> str:
    return (
        f"A/B {ab['name']}: success {ab['success_challenger']:.2f} vs "
        f"{ab['success_control']:.2f} on {ab['tasks']} held-out tasks, p={ab['p_value']:.3g}"
    )


__all__ = ["DEFAULTS", "run"]
