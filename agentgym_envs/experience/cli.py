"""``agentgym experience`` (import, runs, feedback, versions, ab, export, scenarios, augment)
and ``agentgym dashboard``.

The main CLI calls :func:`register_cli` with its ``typer.Typer`` app. Every command takes
``--db`` (a SQLAlchemy URL or a file path; default ``$AGENTGYM_EXPERIENCE_URL``, else SQLite
under ``$AGENTGYM_HOME`` or the user's data folder).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from agentgym_envs.errors import AgentGymError

console = Console()

experience_app = typer.Typer(
    help="The experience store: import runs, give feedback, manage agent versions, A/B tests, export training data.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
feedback_app = typer.Typer(help="Feedback on actions and outcomes.", no_args_is_help=True)
versions_app = typer.Typer(
    help="Agent versions: register, compare, promote, roll back.", no_args_is_help=True
)
ab_app = typer.Typer(help="A/B tests between agent versions.", no_args_is_help=True)
experience_app.add_typer(feedback_app, name="feedback")
experience_app.add_typer(versions_app, name="versions")
experience_app.add_typer(ab_app, name="ab")

_DB_HELP = "Store: a SQLAlchemy URL (postgresql://...) or a SQLite file path (default: $AGENTGYM_EXPERIENCE_URL, else the user's data folder)."
DbOption = typer.Option("--db", help=_DB_HELP)


def _store(db: str | None):
    from agentgym_envs.experience.store import open_store

    return open_store(db)


def _fmt(x, spec: str = ".3f") -> str:
    return "–" if x is None else format(x, spec)


@experience_app.command("import")
def import_command(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Run folders (agentgym bench --out), results.jsonl or AgentTraj .jsonl recordings, or folders of them."
        ),
    ],
    version: Annotated[
        str | None,
        typer.Option(
            "--version",
            help="Attribute the episodes to this name@version (default: from the run's policy).",
        ),
    ] = None,
    name: Annotated[
        str | None, typer.Option("--name", help="Run name (default: the folder or file name).")
    ] = None,
    no_auto_feedback: Annotated[
        bool, typer.Option("--no-auto-feedback", help="Do not store the env's verdict as feedback.")
    ] = False,
    db: Annotated[str | None, DbOption] = None,
) -> None:
    """Import benchmark runs and recordings (idempotent: importing twice adds nothing)."""
    from rich.markup import escape

    from agentgym_envs.experience.ingest import ImportReport, import_path

    store = _store(db)
    total = ImportReport()
    for p in paths:
        r = import_path(store, p, version=version, name=name, auto_feedback=not no_auto_feedback)
        total.added += r.added
        total.skipped += r.skipped
        total.seconds += r.seconds
        total.runs += [i for i in r.runs if i not in total.runs]
        total.problems += r.problems
    for problem in total.problems:
        console.print(f"[yellow]{escape(problem)}[/]", markup=True)
    console.print(
        f"{total.added} episodes added, {total.skipped} already stored, {len(total.runs)} runs "
        f"({total.seconds:.2f} s, {total.rate:.0f} episodes/s) into "
        f"{store.engine.url.render_as_string(hide_password=True)}"
    )


@experience_app.command("runs")
def runs_command(
    db: Annotated[str | None, DbOption] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """The stored runs with their episode counts and success."""
    from sqlalchemy import func, select

    from agentgym_envs.experience.models import Episode, Run, success_rate

    store = _store(db)
    with store.session() as s:
        rows = s.execute(
            select(
                Run,
                func.count(Episode.id),
                success_rate(),
                func.avg(Episode.score),
            )
            .outerjoin(Episode, Episode.run_id == Run.id)
            .group_by(Run.id)
            .order_by(Run.id)
        ).all()
        data = [
            {
                "id": r.id,
                "name": r.name,
                "kind": r.kind,
                "version": r.version.label if r.version else None,
                "episodes": n,
                "success_rate": succ,
                "score": score,
                "source": r.source,
            }
            for r, n, succ, score in rows
        ]
    if as_json:
        typer.echo(json.dumps(data, indent=2))
        return
    table = Table(title=f"runs in {store}")
    for c in ("id", "run", "kind", "version", "episodes", "success", "score"):
        table.add_column(
            c, justify="right" if c in ("id", "episodes", "success", "score") else "left"
        )
    for d in data:
        table.add_row(
            str(d["id"]),
            d["name"],
            d["kind"],
            d["version"] or "–",
            str(d["episodes"]),
            "–" if d["success_rate"] is None else f"{d['success_rate']:.1%}",
            _fmt(d["score"]),
        )
    console.print(table)


# -- feedback ---------------------------------------------------------------------------------
@feedback_app.command("add")
def feedback_add(
    episode: Annotated[
        int, typer.Argument(help="Episode id (see the dashboard or agentgym experience runs).")
    ],
    author: Annotated[str, typer.Option("--author", help="Who gives the feedback.")],
    step: Annotated[
        int | None,
        typer.Option(
            "--step", help="Step index (0-based) to judge an action; omit for the outcome."
        ),
    ] = None,
    label: Annotated[str | None, typer.Option("--label", help="good or bad.")] = None,
    score: Annotated[float | None, typer.Option("--score", help="A score.")] = None,
    comment: Annotated[str, typer.Option("--comment")] = "",
    db: Annotated[str | None, DbOption] = None,
) -> None:
    """Judge an action (--step) or an outcome."""
    from agentgym_envs.experience.feedback import add_feedback

    entry = add_feedback(
        _store(db),
        episode,
        step_index=step,
        label=label,
        score=score,
        comment=comment,
        author=author,
    )
    console.print(f"feedback {entry['id']} stored on episode {episode} ({entry['target']})")


@feedback_app.command("export")
def feedback_export(
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="File to write (default: print).")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="jsonl or csv.")] = "jsonl",
    source: Annotated[
        str | None, typer.Option("--source", help="human or auto (default: both).")
    ] = None,
    db: Annotated[str | None, DbOption] = None,
) -> None:
    """Export feedback with its context (run, version, env, item, action, author, time)."""
    from agentgym_envs.experience.feedback import export_feedback

    text = export_feedback(_store(db), out, fmt=fmt, source=source)
    if out is None:
        typer.echo(text, nl=False)
    else:
        console.print(f"{len(text.splitlines())} lines written to {out}")


# -- versions ---------------------------------------------------------------------------------
@versions_app.command("list")
def versions_list(db: Annotated[str | None, DbOption] = None) -> None:
    """Every version: model, parent, episodes, success, score, and which is current."""
    from agentgym_envs.experience.versions import list_versions

    table = Table(title="agent versions")
    for c in ("version", "model", "parent", "episodes", "success", "score", "current"):
        table.add_column(c)
    for v in list_versions(_store(db)):
        table.add_row(
            v["label"],
            v["model"] or "–",
            v["parent"] or "–",
            str(v["episodes"]),
            "–" if v["success_rate"] is None else f"{v['success_rate']:.1%}",
            _fmt(v["score"]),
            "yes" if v["current"] else "",
        )
    console.print(table)


@versions_app.command("register")
def versions_register(
    label: Annotated[str, typer.Argument(help="name@version")],
    model: Annotated[str | None, typer.Option("--model")] = None,
    prompt_set: Annotated[str | None, typer.Option("--prompt-set")] = None,
    config: Annotated[str | None, typer.Option("--config", help="JSON object of settings.")] = None,
    parent: Annotated[
        str | None, typer.Option("--parent", help="name@version it derives from.")
    ] = None,
    notes: Annotated[str, typer.Option("--notes")] = "",
    db: Annotated[str | None, DbOption] = None,
) -> None:
    """Register an agent version."""
    from agentgym_envs.experience.versions import parse_label, register_version

    name, version = parse_label(label)
    try:
        cfg = json.loads(config) if config else {}
    except ValueError as exc:
        raise AgentGymError(f"--config is not JSON ({exc})") from None
    v = register_version(
        _store(db),
        name,
        version,
        model=model,
        prompt_set=prompt_set,
        config=cfg,
        parent=parent,
        notes=notes,
    )
    console.print(f"registered {v.label} (id {v.id})")


@versions_app.command("compare")
def versions_compare(
    a: Annotated[str, typer.Argument(help="Baseline name@version.")],
    b: Annotated[str, typer.Argument(help="Candidate name@version.")],
    confidence: Annotated[float, typer.Option("--confidence")] = 0.95,
    as_json: Annotated[bool, typer.Option("--json")] = False,
    db: Annotated[str | None, DbOption] = None,
) -> None:
    """B minus A on the tasks both ran (paired bootstrap, as agentgym bench compare)."""
    from agentgym_envs.experience.versions import compare_versions

    cmp = compare_versions(_store(db), a, b, confidence=confidence)
    if as_json:
        typer.echo(json.dumps(cmp.as_dict(), indent=2))
        return
    if not cmp.envs:
        raise AgentGymError(f"{a} and {b} share no tasks: run both on the same envs and split")
    typer.echo(cmp.to_markdown())


@versions_app.command("promote")
def versions_promote(
    label: Annotated[str, typer.Argument(help="name@version to make current.")],
    author: Annotated[str, typer.Option("--author")] = "",
    reason: Annotated[str, typer.Option("--reason")] = "",
    db: Annotated[str | None, DbOption] = None,
) -> None:
    """Make a version the current one of its agent."""
    from agentgym_envs.experience.versions import promote

    v = promote(_store(db), label, author=author, reason=reason)
    console.print(f"{v.label} is now the current version of {v.name}")


@versions_app.command("rollback")
def versions_rollback(
    name: Annotated[str, typer.Argument(help="Agent name.")],
    confidence: Annotated[float, typer.Option("--confidence")] = 0.95,
    min_items: Annotated[
        int, typer.Option("--min-items", help="Shared tasks needed to decide.")
    ] = 5,
    db: Annotated[str | None, DbOption] = None,
) -> None:
    """Roll back to the previous version if the current one is significantly worse on the same tasks."""
    from agentgym_envs.experience.versions import rollback_if_worse

    d = rollback_if_worse(_store(db), name, confidence=confidence, min_items=min_items)
    console.print(
        ("[red]rolled back[/]: " if d.rolled_back else "kept: ") + f"{d.current} ({d.reason})"
    )


# -- A/B tests ----------------------------------------------------------------------------------
def _arm_policy(text: str, base_url: str | None, model: str | None):
    from agentgym_envs.benchmarks import policies

    if text == "expert":
        return policies.expert_spec()
    if text == "random":
        return policies.random_spec()
    if text == "openai":
        return policies.openai_spec(base_url=base_url, model=model)
    raise AgentGymError(f"arm policy {text!r}: use expert, random or openai")


def _parse_arms(arms: list[str], base_url: str | None, model: str | None):
    """``--arm LABEL=POLICY[:WEIGHT]`` options as (label -> policy spec, label -> weight)."""
    specs, weights = {}, {}
    for arm in arms:
        label, sep, rest = arm.partition("=")
        if not sep:
            raise AgentGymError(f"--arm {arm!r}: write LABEL=POLICY[:WEIGHT]")
        policy, _, weight = rest.partition(":")
        specs[label] = _arm_policy(policy, base_url, model)
        weights[label] = float(weight) if weight else 1.0
    return specs, weights


@ab_app.command("run")
def ab_run(
    name: Annotated[str, typer.Argument(help="Test name (rerun the same name to resume).")],
    arms: Annotated[
        list[str],
        typer.Option(
            "--arm", help="LABEL=POLICY[:WEIGHT], e.g. agent@2=openai:50 (first arm = control)."
        ),
    ],
    envs: Annotated[
        str, typer.Option("--envs", help="Env ids (comma-separated), 'agenteval' or 'all'.")
    ] = "agenteval",
    mode: Annotated[
        str,
        typer.Option(
            "--mode", help="paired (every arm plays every task) or split (tasks split by weight)."
        ),
    ] = "paired",
    split: Annotated[str, typer.Option("--split")] = "test",
    limit: Annotated[int | None, typer.Option("--limit", help="First N tasks per env.")] = None,
    looks: Annotated[
        int, typer.Option("--looks", help="Interim analyses (stop early when significant).")
    ] = 1,
    alpha: Annotated[float, typer.Option("--alpha")] = 0.05,
    metric: Annotated[
        str, typer.Option("--metric", help="Primary metric: success or score.")
    ] = "success",
    min_tasks: Annotated[
        int, typer.Option("--min-tasks", help="Tasks before an early stop is allowed.")
    ] = 10,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="Endpoint for openai arms.")
    ] = None,
    model: Annotated[str | None, typer.Option("--model", help="Model for openai arms.")] = None,
    concurrency: Annotated[int, typer.Option("--concurrency", "-j")] = 1,
    db: Annotated[str | None, DbOption] = None,
) -> None:
    """Run an A/B test between versions and report differences with significance."""
    from agentgym_envs.experience.ab import run_ab_test

    specs, weights = _parse_arms(arms, base_url, model)
    r = run_ab_test(
        _store(db),
        name,
        specs,
        envs=envs,
        weights=weights,
        mode=mode,
        split=split,
        limit=limit,
        looks=looks,
        alpha=alpha,
        metric=metric,
        min_tasks=min_tasks,
        seed=seed,
        concurrency=concurrency,
    )
    _print_ab(r.as_dict())


def _print_ab(result: dict) -> None:
    from agentgym_envs.experience.ab import format_p

    table = Table(title=f"A/B {result['name']} ({result['mode']}): {result['decision']}")
    for c in (
        "arm",
        "metric",
        "control",
        "arm value",
        "diff [interval]",
        "p",
        "test",
        "significant",
    ):
        table.add_column(c)
    for label, c in result["comparisons"].items():
        for m in ("success", "score"):
            x = c.get(m)
            if not x:
                continue
            table.add_row(
                label,
                m,
                _fmt(x["a"]),
                _fmt(x["b"]),
                f"{x['diff']:+.3f} [{x['low']:+.3f}, {x['high']:+.3f}]",
                format_p(x["p_value"]),
                x["test"],
                "yes" if x["significant"] else "no",
            )
    console.print(table)
    console.print(
        f"look {result['looks_done']} of {result['looks']}"
        + (" (stopped early)" if result["stopped_early"] else "")
    )


@ab_app.command("list")
def ab_list(db: Annotated[str | None, DbOption] = None) -> None:
    """The A/B tests and their decisions."""
    from agentgym_envs.experience.ab import list_ab_tests

    table = Table(title="A/B tests")
    for c in ("id", "name", "status", "decision"):
        table.add_column(c)
    for t in list_ab_tests(_store(db)):
        table.add_row(
            str(t["id"]), t["name"], t["status"], (t["result"] or {}).get("decision", "–")
        )
    console.print(table)


# -- training data, scenarios -----------------------------------------------------------------
@experience_app.command("export")
def export_command(
    fmt: Annotated[str, typer.Argument(help="sft, dpo, kto or rm (reward-model data).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="JSONL file to write.")],
    version: Annotated[
        list[str] | None, typer.Option("--version", help="name@version (repeatable).")
    ] = None,
    env: Annotated[list[str] | None, typer.Option("--env", help="Env id (repeatable).")] = None,
    outcome: Annotated[
        str | None,
        typer.Option("--outcome", help="success or failure (as judged; sft defaults to success)."),
    ] = None,
    feedback: Annotated[
        str | None, typer.Option("--feedback", help="good, bad, human or no-bad.")
    ] = None,
    include_failed: Annotated[
        bool,
        typer.Option("--include-failed", help="sft: export failed episodes too (default: not)."),
    ] = False,
    keep_bad_actions: Annotated[
        bool, typer.Option("--keep-bad-actions", help="Train on actions people judged bad too.")
    ] = False,
    data_format: Annotated[
        str,
        typer.Option(
            "--format",
            help="sft: agenttraj (text turns) or harness (a harness's own system prompt, tool "
            "schemas, tool calls and token ids, from the gateway's chat records).",
        ),
    ] = "agenttraj",
    db: Annotated[str | None, DbOption] = None,
) -> None:
    """Export filtered experience as training data (via the datasets converters)."""
    from agentgym_envs.experience.harness_data import check_format, export_harness_sft
    from agentgym_envs.experience.training import export_training

    check_format(data_format, fmt)
    if data_format == "harness":
        rows = export_harness_sft(
            _store(db),
            out,
            versions=version,
            envs=env,
            outcome=outcome,
            feedback=feedback,
            include_failed=include_failed,
        )
        console.print(f"{len(rows)} harness-format sft records written to {out}")
        return
    records = export_training(
        _store(db),
        fmt,
        out,
        versions=version,
        envs=env,
        outcome=outcome,
        feedback=feedback,
        mask_bad_actions=not keep_bad_actions,
        include_failed=include_failed,
    )
    note = " (successful episodes; --include-failed for all)" if fmt == "sft" else ""
    if fmt == "sft" and (outcome or include_failed):
        note = ""
    console.print(f"{len(records)} {fmt} records written to {out}{note}")


def _param(text: str):
    key, sep, value = text.partition("=")
    if not sep:
        raise AgentGymError(f"--param {text!r}: write name=LOW:HIGH or name=a,b,c")
    if ":" in value:
        lo, hi = value.split(":", 1)
        conv = int if lo.lstrip("-").isdigit() and hi.lstrip("-").isdigit() else float
        return key, (conv(lo), conv(hi))
    choices = [
        json.loads(v) if v.replace(".", "", 1).lstrip("-").isdigit() else v
        for v in value.split(",")
    ]
    return key, choices


@experience_app.command("scenarios")
def scenarios_command(
    env_id: Annotated[str, typer.Argument(help="Env id.")],
    n: Annotated[int, typer.Argument(help="How many.")] = 10,
    param: Annotated[
        list[str] | None,
        typer.Option("--param", help="Constructor argument range: rows=3:7 or layout=a,b."),
    ] = None,
    rare_by: Annotated[
        str | None,
        typer.Option("--rare-by", help="Task attribute to favour rare values of (level, depth)."),
    ] = None,
    perturb: Annotated[
        list[str] | None,
        typer.Option("--perturb", help="typos, case, whitespace or distractor (repeatable)."),
    ] = None,
    rate: Annotated[float, typer.Option("--rate", help="Share of words perturbed.")] = 0.1,
    split: Annotated[str, typer.Option("--split")] = "train",
    seed: Annotated[int, typer.Option("--seed")] = 0,
    verify: Annotated[
        bool, typer.Option("--verify", help="Keep only scenarios the expert solves.")
    ] = False,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="JSONL file (default: print).")
    ] = None,
) -> None:
    """Generate seeded synthetic scenarios from a family's generator."""
    from agentgym_envs.experience.synthetic import generate_scenarios

    params = dict(_param(p) for p in param or [])
    scs = generate_scenarios(
        env_id,
        n,
        seed=seed,
        split=split,
        params=params,
        rare_by=rare_by,
        perturb=perturb,
        perturb_rate=rate,
        verify=verify,
    )
    text = "".join(json.dumps(s.to_dict()) + "\n" for s in scs)
    if out is None:
        typer.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
        console.print(f"{len(scs)} scenarios written to {out}")


@experience_app.command("augment")
def augment_command(
    out: Annotated[
        Path,
        typer.Option(
            "--out", "-o", help="AgentTraj .jsonl to write (import it back with experience import)."
        ),
    ],
    variants: Annotated[int, typer.Option("--variants")] = 1,
    version: Annotated[list[str] | None, typer.Option("--version")] = None,
    env: Annotated[list[str] | None, typer.Option("--env")] = None,
    outcome: Annotated[str | None, typer.Option("--outcome")] = "success",
    seed: Annotated[int, typer.Option("--seed")] = 0,
    db: Annotated[str | None, DbOption] = None,
) -> None:
    """Paraphrase the instructions of stored trajectories (each variant replay-checked)."""
    from agentgym_envs.datasets import save_agenttraj
    from agentgym_envs.experience.synthetic import augment_trajectories
    from agentgym_envs.experience.training import select_episodes, trajectories

    store = _store(db)
    trajs = trajectories(store, select_episodes(store, versions=version, envs=env, outcome=outcome))
    aug = augment_trajectories(trajs, variants=variants, seed=seed)
    save_agenttraj(aug, out)
    console.print(f"{len(aug)} paraphrased trajectories (of {len(trajs)}) written to {out}")


def dashboard_command(
    db: Annotated[str | None, DbOption] = None,
    host: Annotated[
        str, typer.Option("--host", help="Address to bind (keep it local: there is no login).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port")] = 8765,
    allowed_hosts: Annotated[
        str,
        typer.Option(
            "--allowed-hosts",
            help="Host names it answers to besides --host (and localhost/127.0.0.1 when --host "
            "is a loopback address), comma-separated; *.domain matches its subdomains. Any "
            "other Host header is refused (DNS rebinding).",
        ),
    ] = "",
) -> None:
    """Serve the experience dashboard (runs, versions, A/B tests, trajectory viewer, feedback)."""
    from agentgym_envs.experience.dashboard import serve
    from agentgym_envs.experience.dashboard_guard import default_hosts, parse_hosts

    try:
        extra = parse_hosts(allowed_hosts) if allowed_hosts.strip() else ()
    except ValueError as exc:
        raise AgentGymError(str(exc)) from None
    store = _store(db)
    hosts = ", ".join(dict.fromkeys([*default_hosts(host), *extra]))
    console.print(f"dashboard of {store} at http://{host}:{port}/ (Ctrl-C stops; hosts: {hosts})")
    serve(store, host=host, port=port, allowed_hosts=extra)


def register_cli(app: typer.Typer) -> None:
    """Add ``experience`` and ``dashboard`` to the main ``agentgym`` app."""
    app.add_typer(experience_app, name="experience")
    app.command("dashboard")(dashboard_command)


__all__ = ["experience_app", "register_cli"]
