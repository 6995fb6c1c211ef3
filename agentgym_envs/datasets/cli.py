"""``agentgym data``: stats, validate, convert, replay, overlap and locate for AgentTraj sets.

The main CLI calls :func:`register_cli` with its ``typer.Typer`` app. ``<source>`` is a local
``.json`` / ``.jsonl`` / ``.parquet`` file or folder, or a Hugging Face Hub id.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from agentgym_envs.errors import AgentGymError

console = Console()

data_app = typer.Typer(
    help="AgentTraj trajectory sets: stats, validate, convert, replay, overlap.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

_SOURCE = typer.Argument(
    ..., help="A .json/.jsonl/.parquet file, a folder of them, or a hub id (AgentGym/AgentTraj-L)."
)


def _load(source: str, strict: bool, limit: int | None = None):
    from agentgym_envs.datasets.agenttraj import load_agenttraj

    trajs = load_agenttraj(source, errors="raise" if strict else "skip", limit=limit)
    if trajs.problems:
        console.print(
            f"[yellow]{len(trajs.problems)} malformed records skipped (first: {trajs.problems[0]})[/]"
        )
    return trajs


@data_app.command("stats")
def stats(
    source: str = _SOURCE,
    as_json: bool = typer.Option(False, "--json", help="Print the statistics as JSON."),
    strict: bool = typer.Option(
        False, "--strict", help="Fail on the first malformed record instead of skipping it."
    ),
) -> None:
    """Per-family statistics: records, items, turns, length, trained turns, reward, success."""
    from agentgym_envs.datasets.stats import dataset_stats

    trajs = _load(source, strict)
    result = dataset_stats(trajs)
    if as_json:
        typer.echo(json.dumps({k: v.as_dict() for k, v in result.items()}, indent=2))
        return
    table = Table(title=f"{source}: {len(trajs)} trajectories")
    for c in (
        "family",
        "records",
        "items",
        "turns",
        "max",
        "chars",
        "trained",
        "reward",
        "success",
    ):
        table.add_column(c, justify="left" if c == "family" else "right", no_wrap=True)
    for s in result.values():
        table.add_row(
            s.name,
            str(s.records),
            str(s.unique_items),
            f"{s.turns_mean:.1f}",
            str(s.turns_max),
            f"{s.chars_mean:,.0f}",
            str(s.trained_turns),
            "-" if s.reward_mean is None else f"{s.reward_mean:.3f}",
            "-" if s.success_rate is None else f"{s.success_rate:.0%}",
        )
    console.print(
        "[dim]turns: mean agent replies; chars: mean length; trained: turns with loss true[/]"
    )
    console.print(table)


@data_app.command("validate")
def validate(
    source: str = _SOURCE, show: int = typer.Option(20, "--show", help="Problems to list.")
) -> None:
    """Check every record; list malformed ones with their positions (exit code 1 if any)."""
    trajs = _load(source, strict=False)
    console.print(f"{len(trajs)} valid records, {len(trajs.problems)} malformed")
    for p in trajs.problems[:show]:
        console.print(f"  {p}", markup=False)
    if trajs.problems:
        raise typer.Exit(1)


_CONVERT_OUT = typer.Argument(
    ..., help="Output file (.jsonl; .json or .parquet for --to agenttraj)."
)
_CONVERT_FAMILY = typer.Option(None, "--family", help="Keep only these families (repeatable).")


@data_app.command("convert")
def convert(
    source: str = _SOURCE,
    out: Path = _CONVERT_OUT,
    to: str = typer.Option(
        "sft",
        "--to",
        help="chat, sft (messages + loss mask), sft-text (ChatML text + spans), dpo, or agenttraj.",
    ),
    family: list[str] | None = _CONVERT_FAMILY,
    min_reward: float | None = typer.Option(None, "--min-reward"),
    success: bool | None = typer.Option(
        None, "--success/--failure", help="Keep only successful / failed ones."
    ),
    max_turns: int | None = typer.Option(None, "--max-turns"),
    max_chars: int | None = typer.Option(None, "--max-chars"),
    strict: bool = typer.Option(False, "--strict"),
    keep_invalid: bool = typer.Option(
        False,
        "--keep-invalid",
        help="Also export trajectories whose reward is not valid (reward_valid: false, the "
        "environment failed); left out by default.",
    ),
) -> None:
    """Filter and convert a trajectory set to chat / SFT / DPO records (trajectories that ended
    on an environment failure are left out and counted unless --keep-invalid)."""
    from agentgym_envs.datasets import export
    from agentgym_envs.datasets.agenttraj import save_agenttraj

    trajs = export.filter_trajectories(
        _load(source, strict),
        families=family,
        min_reward=min_reward,
        success=success,
        max_turns=max_turns,
        max_chars=max_chars,
    )
    if to == "agenttraj":
        save_agenttraj(trajs, out)
        console.print(f"wrote {len(trajs)} records to {out}")
        return
    if to not in export.EXPORT_FORMATS:
        raise AgentGymError(f"--to {to!r}: use chat, sft, sft-text, dpo or agenttraj")
    result = export.export_trajectories(trajs, to, keep_invalid=keep_invalid)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as f:
        for row in result.rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    console.print(f"wrote {result.summary()} to {out}", markup=False)


_REPLAY_COMMAND_FAMILY = typer.Option(None, "--family", help="Only these families (repeatable).")


@data_app.command("replay")
def replay_command(
    source: str = _SOURCE,
    limit: int | None = typer.Option(
        None, "--limit", help="Replay only the first N (after filters)."
    ),
    family: list[str] | None = _REPLAY_COMMAND_FAMILY,
    turns: bool = typer.Option(
        False, "--turns", help="Show every turn of mismatching trajectories."
    ),
    on_invalid: str = typer.Option(
        "feedback",
        "--on-invalid",
        help="feedback (AgentGym) or step: what a reply without 'Action:' does.",
    ),
    allow_stand_in: bool = typer.Option(
        False,
        "--allow-stand-in",
        help="Replay AgentGym item ids on embedded stand-in tasks (same index, not AgentGym's task).",
    ),
    parser: str = typer.Option(
        "strict",
        "--parser",
        help="How replies of records without a reply_parser key are read: strict or agentgym.",
    ),
) -> None:
    """Re-run each trajectory's actions through the live env; report whether the env reaches
    the reward the trajectory claims (exit code 1 on any mismatch)."""
    from agentgym_envs.datasets.export import filter_trajectories
    from agentgym_envs.datasets.items import ItemResolver, default_resolver
    from agentgym_envs.datasets.replay import replay_all

    trajs = filter_trajectories(_load(source, strict=False), families=family)
    if limit is not None:
        trajs = trajs[:limit]
    resolver = ItemResolver(allow_stand_in=True) if allow_stand_in else default_resolver()
    summary = replay_all(
        trajs,
        resolver=resolver,
        on_invalid=on_invalid,
        parser=parser,  # type: ignore[arg-type]
    )
    table = Table(title=f"replay of {len(summary.reports)} trajectories")
    for c in ("env", "consistent", "of"):
        table.add_column(c, justify="left" if c == "env" else "right")
    for env_id, (ok, n) in summary.by_env().items():
        table.add_row(env_id, str(ok), str(n))
    console.print(table)
    for r in summary.mismatches()[:50]:
        div = r.first_divergence
        console.print(
            f"[red]{r.item_id}[/]: {r.verdict}"
            + (f"; observations diverge at turn {div}" if div is not None else ""),
            markup=True,
        )
        if turns:
            for t in r.turns:
                mark = "=" if t.matches else "?" if t.matches is None else "!"
                console.print(
                    f"    {mark} turn {t.turn}: {t.action!r} -> {t.observation[:100]!r}",
                    markup=False,
                )
    if summary.mismatches():
        raise typer.Exit(1)


_OVERLAP_COMMAND_AGENTEVAL = typer.Option(
    None,
    "--agenteval",
    help="AgentGym's AgentEval files (folder or file); default: our embedded test splits.",
)


@data_app.command("overlap")
def overlap_command(
    source: str = _SOURCE,
    agenteval: Path | None = _OVERLAP_COMMAND_AGENTEVAL,
    show: int = typer.Option(10, "--show", help="Shared ids to list per family."),
) -> None:
    """Item ids the trajectory set shares with the benchmark's test items (a leak); exit 1 if any."""
    from agentgym_envs.datasets.items import (
        UnlinkedItemError,
        default_resolver,
        read_item_file,
        registered_prefixes,
    )
    from agentgym_envs.datasets.stats import overlap

    trajs = _load(source, strict=False)
    if agenteval is not None:
        files = sorted(agenteval.glob("*.json")) if agenteval.is_dir() else [agenteval]
        bench_ids = [i for f in files for i in read_item_file(f)]
    else:
        prefixes = registered_prefixes()
        bench_ids = []
        for fam in trajs.families():
            if fam in prefixes:
                try:
                    bench_ids += default_resolver().split_item_ids(prefixes[fam])
                except (UnlinkedItemError, ImportError) as exc:
                    console.print(f"[yellow]{fam}: {exc}[/]")
    report = overlap(trajs, bench_ids)
    table = Table(title="overlap with the benchmark's test items")
    for c in ("family", "trajectory items", "benchmark items", "shared", "examples"):
        table.add_column(c, justify="left" if c in ("family", "examples") else "right")
    for fam, n in report.trajectory_items.items():
        shared = report.shared.get(fam, [])
        table.add_row(
            fam,
            str(n),
            str(report.benchmark_items.get(fam, 0)),
            str(len(shared)),
            ", ".join(shared[:show]),
        )
    console.print(table)
    if not report.clean:
        raise typer.Exit(1)


_LOCATE_ITEM_IDS = typer.Argument(..., help="AgentGym item ids, e.g. webshop_5238 lmrlgym_maze_3.")


@data_app.command("locate")
def locate(
    item_ids: list[str] = _LOCATE_ITEM_IDS,
    allow_stand_in: bool = typer.Option(
        False, "--allow-stand-in", help="Locate ids of stand-in families too."
    ),
) -> None:
    """The registered env id, split and task id of AgentGym item ids."""
    from agentgym_envs.datasets.items import resolve_item

    for item in item_ids:
        ref = resolve_item(item, allow_stand_in=allow_stand_in)
        console.print(f"{item}: {ref.env_id} split={ref.split} task_id={ref.task_id}", markup=False)


def register_cli(app: typer.Typer) -> None:
    """Add ``data`` to the main ``agentgym`` app."""
    app.add_typer(data_app, name="data")


__all__ = ["data_app", "register_cli"]
