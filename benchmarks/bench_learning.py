"""Does it learn? Behaviour cloning then RL, scored on held-out items, end to end.

Persona A (``persona-a``): ``agentgym train`` on SmolLM2-135M -- the base model scored on the
held-out test items, the expert's train-split episodes collected, behaviour cloning, scored
again, GRPO, scored again -- then success and score per family and stage with 95% intervals
(Wilson for success, bootstrap for score), the paired McNemar p-value of each change, and the
RL reward per step. The other parts run through their modules' ``run(out, **settings)``:
``harness`` (:mod:`agentgym_envs.train.harness_loop`, Persona B: the ``--harness-*``
options, the family by ``--harness-env``, its folder ``--harness-out``, default
``<out>/harness-loop/<family>`` (git-ignored), resumed; its entries are merged into the
``harness`` key's ``harnesses`` as ``<family>/<harness>``, so a run of one harness or family
keeps the others' and Persona A's figures) and ``experience``
(:mod:`agentgym_envs.train.experience_loop`); a part whose module is missing is skipped
with a message.

Writes ``<out>/results.json`` (keys ``families`` -> env id -> ``before`` / ``after_bc`` /
``after_rl``, ``rl_reward_per_step``, ``times``, ``load_average``, ``harness``,
``experience``; parts not run keep what an earlier run wrote) and the plots
``success_per_stage.png``, ``rl_reward_per_step.png`` and ``harness_loop.png``. The training run folder
(``<out>/run`` by default) resumes: run the script again after an interruption. On a machine
with a CUDA GPU the same command takes a larger model (``--model auto``) and, with ``vllm``
installed, vLLM for the held-out evaluation (``--vllm auto|on|off``; docs/guides/training.md).

    python benchmarks/bench_learning.py                          # every part, defaults
    python benchmarks/bench_learning.py --parts persona-a        # Persona A only
    python benchmarks/bench_learning.py --eval-items 90 --train-items 100 --rl-steps 20
    python benchmarks/bench_learning.py --parts harness   # Persona B only: Pi on TextCraft
    python benchmarks/bench_learning.py --parts harness --harnesses cline --harness-env Wordle-v0 \
        --harness-teacher-tool family --harness-train 16 --harness-heldout 20 \
        --harness-max-length 512 --harness-sft-layers 0 --harness-reply-tokens 48 \
        --harness-timeout 150 --harness-max-calls 0   # the Wordle runs' settings
    # which harness's prompt a CPU can serve: each one's first request, measured
    python benchmarks/bench_learning.py --harness-prompt-sizes --harnesses pi,codex,opencode
    # the two arms side by side (one process each), then the comparison:
    python benchmarks/bench_learning.py --parts harness --harness-arms sft &
    python benchmarks/bench_learning.py --parts harness --harness-arms base; wait
    python benchmarks/bench_learning.py --parts harness
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import statistics
import threading
import time
from dataclasses import fields
from pathlib import Path
from typing import Any

from agentgym_envs.train import device
from agentgym_envs.train.settings import TrainError, TrainSettings
from agentgym_envs.train.stats import mcnemar

PARTS = ("persona-a", "harness", "experience")
#: results.jsonl labels -> results.json stage keys.
STAGE_KEYS = {"eval:base": "before", "eval:sft": "after_bc", "eval:rl": "after_rl"}
DEFAULT_OUT = Path(__file__).parent / "results" / "learning"
#: The harness part's defaults (the run the docs report): SmolLM2-135M in Pi on TextCraft.
HARNESS = {
    "train": 80,
    "heldout": 40,
    "epochs": 1,
    "lr": 2e-4,
    "max_length": 384,
    "reply_tokens": 64,
    "timeout": 240.0,
    "teacher_tool": "act",
    "max_calls": 8,
    "sft_layers": 8,
}


class LoadSampler:
    """The 1-minute load average every ``every`` seconds, in a daemon thread."""

    def __init__(self, every: float = 30.0) -> None:
        self.every, self.samples = every, [os.getloadavg()[0]]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.samples.append(os.getloadavg()[0])

    def __enter__(self) -> LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self.samples.append(os.getloadavg()[0])

    def summary(self) -> dict[str, float]:
        s = self.samples
        return {
            "min": round(min(s), 2),
            "median": round(statistics.median(s), 2),
            "max": round(max(s), 2),
            "samples": len(s),
        }


class StageClock(logging.Handler):
    """Each stage's wall seconds, CPU seconds (this process, user + system) and 1-minute load
    average min/median/max, from the pipeline's ``<label>: starting`` / ``finished`` log lines.

    The CPU seconds are the basis of the idle estimate: on 2 idle cores a stage takes about
    its CPU seconds over the threads torch runs (2), less when it waits on nothing else.
    """

    def __init__(self, load: LoadSampler) -> None:
        super().__init__(logging.INFO)
        self.load, self.stages, self._open = load, {}, {}

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        label, _, rest = text.partition(": ")
        now, cpu = time.perf_counter(), _cpu_seconds()
        if rest == "starting":
            self._open[label] = (now, cpu, len(self.load.samples), os.getloadavg()[0])
        elif rest.startswith("finished") and label in self._open:
            t0, c0, first, at_start = self._open.pop(label)
            samples = [at_start, *self.load.samples[first:], os.getloadavg()[0]]
            self.stages[label] = {
                "wall_seconds": round(now - t0, 1),
                "cpu_seconds": round(cpu - c0, 1),
                "load_average": {
                    "min": round(min(samples), 2),
                    "median": round(statistics.median(samples), 2),
                    "max": round(max(samples), 2),
                },
            }


def _cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def persona_a(out: Path, run_dir: Path, settings: TrainSettings, concurrency: int) -> dict:
    """Run (or resume) the training run and gather its figures, with each stage's wall and CPU
    seconds and load average."""
    from agentgym_envs.train.pipeline import logger as pipeline_logger
    from agentgym_envs.train.pipeline import run_stages

    started, cpu = time.perf_counter(), _cpu_seconds()
    with LoadSampler() as load:
        clock = StageClock(load)
        pipeline_logger.addHandler(clock)
        try:
            lines = run_stages(run_dir, settings, "all", concurrency=concurrency, progress=True)
        finally:
            pipeline_logger.removeHandler(clock)
    wall = time.perf_counter() - started
    result = gather(lines, run_dir, settings, wall, load.summary())
    result["stages_this_call"] = clock.stages
    result["cpu_seconds_this_call"] = round(_cpu_seconds() - cpu, 1)
    result["notes"] = []  # an earlier run's notes do not describe this one
    return result


def report_only(run_dir: Path) -> dict:
    """The figures of the stages a run folder has finished so far (nothing is run)."""
    from agentgym_envs.train.folder import RESULTS_FILE, RUN_FILE

    kept = json.loads((run_dir / RUN_FILE).read_text())["settings"]
    settings = TrainSettings.from_dict(kept)
    lines = [json.loads(x) for x in (run_dir / RESULTS_FILE).read_text().splitlines() if x]
    return gather(lines, run_dir, settings, None, None)


def gather(lines, run_dir, settings, wall, load) -> dict:
    """results.json's Persona A part from the run's ``results.jsonl`` lines."""
    by_label = {line["label"]: line for line in lines}
    families: dict[str, Any] = {}
    for env_id in settings.envs:
        fam: dict[str, Any] = {}
        for label, key in STAGE_KEYS.items():
            if label in by_label:
                e = dict(by_label[label]["envs"][env_id])
                fam[key] = {k: e[k] for k in ("n", "success", "success_ci", "score", "score_ci")}
                fam[key]["success_ci"] = [round(x, 4) for x in e["success_ci"]]
                fam[key]["score_ci"] = [round(x, 4) for x in e["score_ci"]]
                fam[key]["outcomes"] = e.get("outcomes")
                fam[f"_{key}"] = e["successes"]
        for a, b in (("before", "after_bc"), ("after_bc", "after_rl"), ("before", "after_rl")):
            if f"_{a}" in fam and f"_{b}" in fam:
                fam[f"p_{a}_vs_{b}"] = round(mcnemar(fam[f"_{a}"], fam[f"_{b}"]), 5)
        for key in STAGE_KEYS.values():
            fam.pop(f"_{key}", None)
        fam["shared_with_training"] = shared_tasks(Path(run_dir), env_id)
        families[env_id] = fam
    rl = by_label.get("rl", {})
    return {
        "families": families,
        "rl_reward_per_step": rl.get("reward_per_step", []),
        "rl_success_per_step": rl.get("success_per_step", []),
        "rl_max_turns_per_step": rl.get("max_turns_per_step", []),
        "rl_rewards_per_step": rl.get("rewards_per_step", []),
        "rl_reward_trained_per_step": rl.get("reward_trained_per_step", []),
        "rl_episodes_per_step": rl.get("episodes_per_step", []),
        "rl_groups_set_aside_per_step": rl.get("groups_set_aside_per_step", []),
        "rl_groups_with_spread_per_step": rl.get("groups_with_spread_per_step", []),
        "collect": {k: by_label.get("collect", {}).get(k) for k in ("played", "kept")},
        "sft": {
            k: by_label.get("sft", {}).get(k)
            for k in ("episodes", "tokens", "steps", "loss_first", "loss_last", "trainable_params")
        },
        "times": {label: line.get("seconds") for label, line in by_label.items()},
        "wall_seconds_this_call": None if wall is None else round(wall, 1),
        "load_average": load,
        "settings": settings.as_dict(),
        "run_dir": str(run_dir),
    }


def shared_tasks(run_dir: Path, env_id: str) -> dict[str, int] | None:
    """Held-out items whose id or first observation a training episode also had (0 and 0:
    the evaluation saw no task the expert played for cloning)."""

    def episodes(path: Path) -> list[dict]:
        if not path.is_file():
            return []
        rows = (json.loads(x) for x in path.read_text().splitlines() if x.strip())
        return [r for r in rows if r.get("env_id") == env_id and r.get("conversations")]

    trained = episodes(run_dir / "collect" / "bench" / "results.jsonl")
    scored = episodes(run_dir / "eval" / "base" / "results.jsonl")
    if not trained or not scored:
        return None
    first = {r["conversations"][2]["value"] for r in trained}
    ids = {r["item_id"] for r in trained}
    return {
        "eval_items": len(scored),
        "train_episodes": len(trained),
        "same_item_id": sum(r["item_id"] in ids for r in scored),
        "same_first_observation": sum(r["conversations"][2]["value"] in first for r in scored),
    }


def other_part(name: str, out: Path, settings: dict[str, Any]) -> dict | None:
    """``agentgym_envs.train.<name>.run(out, **settings)``, or ``None`` when it is missing."""
    module_name = f"agentgym_envs.train.{name}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        print(f"skipping {name}: {module_name} is not installed on this branch")
        return None
    started = time.perf_counter()
    with LoadSampler() as load:
        result = module.run(out / name.replace("_", "-"), **settings)
    result = dict(result)
    result.setdefault("seconds", round(time.perf_counter() - started, 1))
    result.setdefault("load_average", load.summary())
    return result


def plots(results: dict, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    families = results.get("families") or {}
    if families:
        fig, ax = plt.subplots(figsize=(6, 3.4), dpi=100)
        stages = list(STAGE_KEYS.values())
        width = 0.8 / max(len(families), 1)
        for i, (env_id, fam) in enumerate(families.items()):
            xs, ys, lo, hi = [], [], [], []
            for j, key in enumerate(stages):
                if key in fam:
                    s = fam[key]
                    xs.append(j + (i - (len(families) - 1) / 2) * width)
                    ys.append(s["success"])
                    lo.append(max(0.0, s["success"] - s["success_ci"][0]))
                    hi.append(max(0.0, s["success_ci"][1] - s["success"]))
            ax.bar(xs, ys, width, yerr=[lo, hi], capsize=3, label=env_id.split("/")[-1])
        ax.set_xticks(range(len(stages)), ["before", "after BC", "after RL"])
        ax.set_ylabel("held-out success (95% CI)")
        ax.set_ylim(0, 1)
        ax.legend(fontsize=8)
        n = next(iter(families.values())).get("before", {}).get("n", "?")
        ax.set_title(f"SmolLM2-135M, {n} held-out test items per family", fontsize=9)
        fig.tight_layout()
        written.append(out / "success_per_stage.png")
        fig.savefig(written[-1])
        plt.close(fig)
    rewards = results.get("rl_reward_per_step") or []
    if rewards:
        fig, ax = plt.subplots(figsize=(6, 3), dpi=100)
        steps = range(1, len(rewards) + 1)
        ax.plot(
            steps,
            [r if r is not None else float("nan") for r in rewards],
            marker="o",
            label="mean score, every episode played",
        )
        trained = results.get("rl_reward_trained_per_step") or []
        if trained and any(r is not None for r in trained):
            ax.plot(
                steps,
                [r if r is not None else float("nan") for r in trained],
                marker="^",
                linestyle=":",
                label="mean score, groups trained on",
            )
        succ = results.get("rl_success_per_step") or []
        if succ:
            ax.plot(steps, succ, marker="s", linestyle="--", label="success, every episode")
        ax.set_xlabel("GRPO step")
        ax.set_ylabel("train-task reward")
        ax.set_ylim(-0.05, 1.05)
        ax.legend(fontsize=8)
        ax.set_title("RL from the behaviour-cloned model (train tasks)", fontsize=9)
        fig.tight_layout()
        written.append(out / "rl_reward_per_step.png")
        fig.savefig(written[-1])
        plt.close(fig)
    harnesses = {
        name: h["paired"]
        for name, h in harness_entries(results.get("harness")).items()
        if h.get("paired")
    }
    if harnesses:
        written.append(harness_plot(harnesses, out / "harness_loop.png", plt))
    return written


def harness_plot(harnesses: dict[str, dict], path: Path, plt: Any) -> Path:
    """Held-out success and the episodes with a valid tool call, base vs trained, per harness,
    with Wilson 95% intervals and the McNemar p-value of each change."""
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.4), dpi=100, sharey=True)
    names = list(harnesses)
    for ax, (key, ci, p, title) in zip(
        axes,
        (
            ("success", "success_ci", "success_p", "held-out success"),
            ("valid_call_rate", "valid_call_ci", "valid_call_p", "episodes with a valid tool call"),
        ),
        strict=True,
    ):
        for j, arm in enumerate(("before", "after")):
            xs = [i + (j - 0.5) * 0.38 for i in range(len(names))]
            ys = [harnesses[n][arm][key] or 0.0 for n in names]
            lo = [max(0.0, y - harnesses[n][arm][ci][0]) for y, n in zip(ys, names, strict=True)]
            hi = [max(0.0, harnesses[n][arm][ci][1] - y) for y, n in zip(ys, names, strict=True)]
            label = "base" if arm == "before" else "trained (harness SFT)"
            ax.bar(xs, ys, 0.38, yerr=[lo, hi], capsize=3, label=label)
        ticks = [
            "{1}\n{0}\nn={2} p={3:.2g}".format(*n.rpartition("/")[::2], h["items"], h[p])
            for n, h in ((n, harnesses[n]) for n in names)
        ]
        ax.set_xticks(range(len(names)), ticks, fontsize=7)
        ax.set_title(title, fontsize=9)
        ax.set_ylim(0, 1)
    axes[0].set_ylabel("rate over n held-out tasks (95% CI)")
    axes[0].legend(fontsize=7)
    fig.suptitle("Persona B: SmolLM2-135M served to the real harness", fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def task_ids(
    parser: argparse.ArgumentParser, text: str, option: str = "--harness-tasks"
) -> list[int]:
    """``0-7,10,12-13`` as task ids, ``0-443:6`` every 6th of a range (a parser error names
    the bad part)."""
    ids: list[int] = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        span, _, step = part.partition(":")
        first, _, last = span.partition("-")
        if not first.isdigit() or (last and not last.isdigit()) or (step and not step.isdigit()):
            parser.error(f"{option} {part!r}: use ids and ranges, e.g. 0-7,10-17 or 0-443:6")
        ids += range(int(first), int(last or first) + 1, int(step or 1) or 1)
    return ids


def prompt_sizes_part(results: dict, folder: Path, names: list[str], args: Any) -> dict:
    """The ``harness`` section with each of ``names``' first-request size
    (:func:`agentgym_envs.train.harness_loop.prompt_sizes`) merged into its ``prompt_sizes``;
    a table of them printed."""
    from agentgym_envs.train.harness_loop import prompt_sizes

    sizes = prompt_sizes(names, folder, env=args.harness_env, timeout=args.harness_timeout)
    section = dict(results.get("harness") or {})
    section["prompt_sizes"] = {**(section.get("prompt_sizes") or {}), **sizes}
    print(f"{'harness':14s} {'tokens':>7s} {'chars':>7s} {'tools':>5s} {'tool chars':>10s}")
    for name, size in sorted(sizes.items(), key=lambda kv: kv[1].get("tokens", 1 << 30)):
        if "error" in size:
            print(f"{name:14s} {size['error']}")
            continue
        print(
            f"{name:14s} {size['tokens']:7d} {size['chars']:7d} {size['tools']:5d} "
            f"{size['tool_chars']:10d}"
        )
    return section


def harness_part(results: dict, folder: Path, settings: dict[str, Any]) -> dict:
    """The harness loop (:func:`agentgym_envs.train.harness_loop.run`) into ``folder`` (it
    resumes what is there), its per-harness entries merged into the ``harness`` section already
    in ``results`` (a run of one harness keeps the others'), with the load sampled while it
    ran."""
    from agentgym_envs.train import harness_loop

    started = time.perf_counter()
    with LoadSampler() as load:
        result = harness_loop.run(folder, **settings)
    result["seconds_this_call"] = round(time.perf_counter() - started, 1)
    result["load_average_this_call"] = load.summary()
    return merge_harness(results.get("harness"), result)


#: A harness run's figures that belong to its entry (the section's top level holds the last
#: call's).
_RUN_KEYS = ("settings", "seconds", "load_average", "seconds_this_call", "load_average_this_call")


def harness_entries(section: dict | None) -> dict[str, dict]:
    """The ``harnesses`` of a ``harness`` section keyed ``<family>/<harness>``, each with its
    ``env`` and its run's figures (``settings``, times, load); an entry written before the
    family was part of the key (``"pi"``) gets the section's env and figures."""
    section = section or {}
    env = str(section.get("env") or "")
    out = {}
    for name, entry in (section.get("harnesses") or {}).items():
        if "/" in name:
            out[name] = entry
            continue
        entry = {"env": env, **{k: section[k] for k in _RUN_KEYS if k in section}, **entry}
        out[f"{str(entry['env']).split('/')[-1]}/{name}"] = entry
    return out


def merge_harness(old: dict | None, new: dict) -> dict:
    """``new``'s harness loop result over ``old``'s: its settings and times at the top, and
    its harnesses' entries (keyed ``<family>/<harness>``, :func:`harness_entries`) added to
    (or replacing) the ones ``old`` holds."""
    merged = dict(old or {})
    entries = harness_entries(old)
    merged.update({k: v for k, v in new.items() if k != "harnesses"})
    merged["harnesses"] = {**entries, **harness_entries(new)}
    return merged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated: {PARTS}")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--run-dir", type=Path, default=None, help="default: <out>/run")
    parser.add_argument("--concurrency", type=int, default=8, help="eval episodes in flight")
    parser.add_argument("--env", action="append", default=None, help="env id (repeat)")
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="write results.json from the run folder's finished stages, running nothing",
    )
    harness = parser.add_argument_group("harness part (Persona B)")
    harness.add_argument(
        "--harness-out", type=Path, default=None, help="its folder (resumed; <out>/harness-loop)"
    )
    harness.add_argument("--harnesses", default="pi", help="comma-separated harness names")
    harness.add_argument(
        "--harness-env",
        default="TextCraft-v0",
        help="the family (train split teaches, test held out)",
    )
    harness.add_argument(
        "--harness-train", type=int, default=HARNESS["train"], help="teacher episodes"
    )
    harness.add_argument(
        "--harness-heldout", type=int, default=HARNESS["heldout"], help="held-out tasks per arm"
    )
    harness.add_argument("--harness-epochs", type=int, default=HARNESS["epochs"])
    harness.add_argument("--harness-lr", type=float, default=HARNESS["lr"])
    harness.add_argument(
        "--harness-max-length", type=int, default=HARNESS["max_length"], help="SFT tokens"
    )
    harness.add_argument("--harness-reply-tokens", type=int, default=HARNESS["reply_tokens"])
    harness.add_argument(
        "--harness-timeout", type=float, default=HARNESS["timeout"], help="s per episode"
    )
    harness.add_argument(
        "--harness-teacher-tool",
        default=HARNESS["teacher_tool"],
        choices=("family", "act"),
        help="the teacher calls the family's own tools, or act with the action as text",
    )
    harness.add_argument(
        "--harness-max-calls",
        type=int,
        default=HARNESS["max_calls"],
        help="most model calls of a held-out episode (0: no cap)",
    )
    harness.add_argument(
        "--harness-sft-layers",
        type=int,
        default=HARNESS["sft_layers"],
        help="train the last N decoder layers only (0: all)",
    )
    harness.add_argument(
        "--harness-tasks", default=None, help="held-out task ids instead, e.g. 0-7,10-17"
    )
    harness.add_argument(
        "--harness-train-tasks",
        default=None,
        help="teacher (train split) task ids instead of 0..train-1, e.g. 0-443:6",
    )
    harness.add_argument(
        "--harness-prompt-sizes",
        action="store_true",
        help="only measure each --harnesses' first request (one expert train episode each)",
    )
    harness.add_argument(
        "--harness-arms",
        default="base,sft",
        help="base, sft or both: one arm per process on the same --harness-out, then both",
    )
    defaults = TrainSettings()
    for f in fields(TrainSettings):
        if f.name in ("envs",):
            continue
        value = getattr(defaults, f.name)
        parser.add_argument(f"--{f.name.replace('_', '-')}", type=type(value), default=value)
    gpu = parser.add_argument_group("on a GPU (agentgym_envs.train.device)")
    gpu.add_argument("--vllm", default="auto", help="auto (CUDA GPU + vllm installed), on, off")
    parser.set_defaults(model="auto")  # smollm2 on CPU, a larger model on a CUDA GPU
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    for noisy in ("httpx", "mcp", "uvicorn.access"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        parser.error(f"unknown part {unknown[0]!r}: use {', '.join(PARTS)}")
    values = {f.name: getattr(args, f.name) for f in fields(TrainSettings) if f.name != "envs"}
    try:
        runtime = device.resolve(args.vllm)
    except TrainError as exc:
        parser.error(str(exc))
    device.use(runtime)  # every stage of persona-a computes there
    values["model"] = device.resolve_model(args.model, runtime)
    settings = TrainSettings(envs=tuple(args.env or defaults.envs), **values)

    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    file = out / "results.json"
    results: dict[str, Any] = json.loads(file.read_text()) if file.is_file() else {}
    results["machine"] = {"cpus": os.cpu_count()}
    run_dir = args.run_dir or out / "run"
    if args.harness_prompt_sizes:
        folder = (args.harness_out or out / "harness-loop") / "prompt-sizes"
        names = [h.strip() for h in args.harnesses.split(",") if h.strip()]
        results["harness"] = prompt_sizes_part(results, folder, names, args)
        file.write_text(json.dumps(results, indent=2) + "\n")
        print("wrote", file)
        return
    if args.report_only:  # keep the load and wall time the run itself measured
        results.update({k: v for k, v in report_only(run_dir).items() if v is not None})
    elif "persona-a" in parts:
        results.update(persona_a(out, run_dir, settings, args.concurrency))
        file.write_text(json.dumps(results, indent=2) + "\n")
    if "harness" in parts and not args.report_only:
        harness_settings = {
            "harnesses": [h.strip() for h in args.harnesses.split(",") if h.strip()],
            "env": args.harness_env,
            "train": args.harness_train,
            "heldout": args.harness_heldout,
            "epochs": args.harness_epochs,
            "lr": args.harness_lr,
            "max_length": args.harness_max_length,
            "reply_tokens": args.harness_reply_tokens,
            "timeout": args.harness_timeout,
            "teacher_tool": args.harness_teacher_tool,
            "max_calls": args.harness_max_calls or None,
            "sft_layers": args.harness_sft_layers or None,
            "arms": tuple(a.strip() for a in args.harness_arms.split(",") if a.strip()),
        }
        if args.harness_tasks:
            harness_settings["heldout_tasks"] = task_ids(parser, args.harness_tasks)
        if args.harness_train_tasks:
            harness_settings["train_tasks"] = task_ids(
                parser, args.harness_train_tasks, "--harness-train-tasks"
            )
        folder = args.harness_out or out / "harness-loop" / args.harness_env.split("/")[-1]
        results["harness"] = harness_part(results, folder, harness_settings)
        file.write_text(json.dumps(results, indent=2) + "\n")
    other = {"seed": settings.seed}
    for part, key in (("experience", "experience_loop"),):
        if part in parts and not args.report_only:
            got = other_part(key, out, other)
            if got is not None:
                results[part] = got
                file.write_text(json.dumps(results, indent=2) + "\n")
    file.write_text(json.dumps(results, indent=2) + "\n")
    for path in plots(results, out):
        print("wrote", path)
    print("wrote", file)
    for env_id, fam in (results.get("families") or {}).items():
        row = [env_id.split("/")[-1]]
        for key in STAGE_KEYS.values():
            if key in fam:
                s = fam[key]
                row.append(
                    f"{key} {s['success']:.2f} [{s['success_ci'][0]:.2f}, {s['success_ci'][1]:.2f}]"
                )
        print("  ".join(row))
    print("load average (1 min):", results.get("load_average"))


if __name__ == "__main__":
    main()
