"""``agentgym train``: run a training run's stages, or show where one stands.

The main CLI calls :func:`register_cli` with its ``typer.Typer`` app.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from agentgym_envs.train.device import GPU_MODEL
from agentgym_envs.train.settings import DEFAULT_ENVS, LOCAL_MODEL, TrainSettings

train_app = typer.Typer(
    help="Behaviour cloning, then RL, measured on held-out items: collect, sft, rl, eval.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
_DEFAULTS = TrainSettings()


@train_app.command("run")
def run(
    out: Path = typer.Argument(..., help="The run folder (settings, checkpoints, results)."),
    env: list[str] = typer.Option(list(DEFAULT_ENVS), "--env", help="Env id (repeat for more)."),
    stages: str = typer.Option("all", help="Comma-separated: collect, sft, rl, eval (or all)."),
    model: str = typer.Option(
        "auto",
        help=f"auto ({LOCAL_MODEL!r} on CPU, {GPU_MODEL} on a CUDA GPU), {LOCAL_MODEL!r}, "
        "a checkpoint folder or a Hugging Face id.",
    ),
    train_items: int = typer.Option(_DEFAULTS.train_items, help="Train tasks per env (collect)."),
    eval_items: int = typer.Option(_DEFAULTS.eval_items, help="Held-out test items per env."),
    max_rounds: int = typer.Option(_DEFAULTS.max_rounds, help="Turn limit of every episode."),
    max_tokens: int = typer.Option(_DEFAULTS.max_tokens, help="Most tokens per model reply."),
    sft_epochs: float = typer.Option(_DEFAULTS.sft_epochs),
    sft_lr: float = typer.Option(_DEFAULTS.sft_lr),
    sft_batch: int = typer.Option(_DEFAULTS.sft_batch),
    sft_layers: int = typer.Option(_DEFAULTS.sft_layers, help="Top layers trained (0: all)."),
    rl_steps: int = typer.Option(_DEFAULTS.rl_steps),
    rl_generations: int = typer.Option(_DEFAULTS.rl_generations, help="Episodes per group."),
    rl_tasks: int = typer.Option(_DEFAULTS.rl_tasks, help="Groups (train tasks) per GRPO step."),
    rl_redraws: int = typer.Option(
        _DEFAULTS.rl_redraws, help="Groups a step may set aside for want of reward spread."
    ),
    rl_lr: float = typer.Option(_DEFAULTS.rl_lr),
    rl_temperature: float = typer.Option(_DEFAULTS.rl_temperature, help="Sampling temperature."),
    curriculum: str = typer.Option(_DEFAULTS.curriculum, help="none or scaling-inter."),
    seed: int = typer.Option(_DEFAULTS.seed),
    concurrency: int = typer.Option(2, help="Episodes in flight during collect and eval."),
    progress: bool = typer.Option(True, help="Progress bars with ETA."),
    vllm: str = typer.Option(
        "auto", help="auto (with a CUDA GPU and vllm installed), on, off: vLLM serves eval."
    ),
) -> None:
    """Run the stages (finished ones are skipped; an interrupted one resumes).

    On a CUDA machine the trainers use the GPU, --model auto takes a larger model, and with
    vllm installed the evaluation is served by vLLM (docs: guides/training.md, "On a GPU").
    """
    import logging
    import sys

    from agentgym_envs.train import device
    from agentgym_envs.train.pipeline import run_stages

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    runtime = device.resolve(vllm)
    settings = TrainSettings(
        envs=tuple(env),
        model=device.resolve_model(model, runtime),
        train_items=train_items,
        eval_items=eval_items,
        max_rounds=max_rounds,
        max_tokens=max_tokens,
        sft_epochs=sft_epochs,
        sft_lr=sft_lr,
        sft_batch=sft_batch,
        sft_layers=sft_layers,
        rl_steps=rl_steps,
        rl_generations=rl_generations,
        rl_tasks=rl_tasks,
        rl_redraws=rl_redraws,
        rl_lr=rl_lr,
        rl_temperature=rl_temperature,
        curriculum=curriculum,
        seed=seed,
    )
    try:
        results = run_stages(
            out, settings, stages, concurrency=concurrency, progress=progress, runtime=runtime
        )
    except KeyboardInterrupt:
        sys.stderr.write(
            f"error: interrupted: finished stages, episodes and trainer checkpoints in {out} are "
            "kept; run the same command again to resume\n"
        )
        raise SystemExit(130) from None
    _print(results)


@train_app.command("status")
def status(out: Path = typer.Argument(..., help="The run folder.")) -> None:
    """The finished stages of a run folder and their held-out figures."""
    from agentgym_envs.train.folder import RESULTS_FILE, RUN_FILE
    from agentgym_envs.train.settings import TrainError

    if not (out / RUN_FILE).is_file():
        raise TrainError(f"{out} holds no training run (no {RUN_FILE}): agentgym train run {out}")
    lines = (
        [json.loads(x) for x in (out / RESULTS_FILE).read_text().splitlines() if x.strip()]
        if (out / RESULTS_FILE).is_file()
        else []
    )
    _print(lines)


def _print(results: list[dict]) -> None:
    for r in results:
        text = f"{r['label']:8s} {r.get('seconds', 0):7.0f} s"
        for env_id, e in (r.get("envs") or {}).items():
            lo, hi = e["success_ci"]
            text += f"  {env_id.split('/')[-1]} success {e['success']:.2f} [{lo:.2f}, {hi:.2f}]"
        if r.get("reward_per_step"):
            text += "  reward/step " + " ".join(
                f"{x:.2f}" for x in r["reward_per_step"] if x is not None
            )
        typer.echo(text)


def register_cli(app: typer.Typer) -> None:
    """Add ``train`` to the main ``agentgym`` app."""
    app.add_typer(train_app, name="train")


__all__ = ["register_cli", "train_app"]
