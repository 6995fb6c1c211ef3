"""The ``agentgym`` command: list, play, run, doctor -- and the commands other areas add.

Areas with commands of their own (benchmarks, datasets, the web shop) expose
``register_cli(app)``; :data:`_PLUGINS` lists them.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence

try:
    import typer
    from rich.console import Console
    from rich.table import Table
except ImportError:  # pragma: no cover - exercised only without the cli extra
    sys.stderr.write(
        'error: the agentgym command needs its extra: pip install "agentgym-envs[cli]"\n'
    )
    raise SystemExit(2) from None

import agentgym_envs
from agentgym_envs.errors import AgentGymError
from agentgym_envs.spec import env_info, resolve_id

app = typer.Typer(
    name="agentgym",
    help="AgentGym's task families as Gymnasium text environments.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
console = Console()

#: Modules that add commands with ``register_cli(app)``; a module not built yet is skipped.
_PLUGINS = (
    "agentgym_envs.agents.cli",
    "agentgym_envs.benchmarks.cli",
    "agentgym_envs.datasets.cli",
    "agentgym_envs.docs",
    "agentgym_envs.envs.webshop.cli",
    "agentgym_envs.experience.cli",
    "agentgym_envs.integrations.export",
    "agentgym_envs.integrations.harnesses.cli",
    "agentgym_envs.platform.cli",
    "agentgym_envs.rollout.ray.cli",
    "agentgym_envs.server.cli",
    "agentgym_envs.train.cli",
)


@app.command("list")
def list_command(
    as_json: bool = typer.Option(False, "--json", help="Print the records as JSON."),
) -> None:
    """Every registered environment id: family, extra, installed?, test size, max rounds."""
    records = agentgym_envs.list_envs()
    if as_json:
        typer.echo(json.dumps(records, indent=2))
        return
    table = Table(title="agentgym-envs environments")
    wide = console.width >= 150
    columns = ["id", "family", "extra", "installed", "train", "test", "max rounds", "reward"]
    if not wide:
        columns = ["id", "installed", "test", "max rounds", "reward"]
    for column in columns + (["description"] if wide else []):
        table.add_column(column, no_wrap=column == "id", overflow="fold")
    for r in records:
        cells = {
            "id": r["id"],
            "family": r["family"],
            "extra": r["extra"],
            "installed": "yes"
            if r["installed"]
            else f'no: pip install "agentgym-envs[{r["extra"]}]"',
            "train": str(r["splits"]["train"]),
            "test": str(r["splits"]["test"]),
            "max rounds": str(r["max_rounds"]),
            "reward": r["reward"],
            "description": r["description"],
        }
        table.add_row(*(cells[c] for c in columns), *([r["description"]] if wide else []))
    console.print(table)


def _make(env_id: str, **kwargs):
    import gymnasium

    return gymnasium.make(resolve_id(env_id), **kwargs)


@app.command()
def play(
    env_id: str = typer.Argument(..., help="Env id, e.g. AgentGym/Wordle-v0 or Wordle-v0."),
    task_id: int | None = typer.Option(
        None, "--task-id", help="Task to play (default: drawn by the seed)."
    ),
    split: str = typer.Option("test", help="train or test."),
    seed: int | None = typer.Option(None, min=0, help="Seed for reset."),
) -> None:
    """Play an environment in the terminal. Type an action; 'quit' ends."""
    env = _make(env_id)
    options = {"split": split} | ({"task_id": task_id} if task_id is not None else {})
    obs, info = env.reset(seed=seed, options=options)
    console.print(f"[bold]{resolve_id(env_id)}[/] task {info['task_id']} ({info['split']})")
    _print_allowed_words(info.get("allowed_words"))
    total = 0.0
    while True:
        console.print(obs, markup=False)
        if info.get("available_actions"):
            shown = info["available_actions"][:30]
            more = len(info["available_actions"]) - len(shown)
            console.print(
                "[dim]actions: "
                + " | ".join(shown)
                + (f" ... (+{more})" if more > 0 else "")
                + "[/]"
            )
        try:
            action = console.input("[bold cyan]> [/]")
        except (EOFError, KeyboardInterrupt):
            break
        if action.strip().lower() in {"quit", "exit"}:
            break
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        if info.get("error"):
            console.print(f"[yellow]{info['error']}[/]", markup=True)
        if terminated or truncated:
            console.print(obs, markup=False)
            console.print(
                f"[bold]episode over[/]: success={info['success']} score={info['score']:.3f} reward={total:.3f}"
            )
            break
    env.close()


def _print_allowed_words(words: Sequence[str] | None, shown: int = 60) -> None:
    """The guesses a word game accepts (Wordle: LMRL's 40 words), so ``crane`` is no surprise."""
    if not words:
        return
    head = ", ".join(words[:shown])
    more = (
        f" ... (+{len(words) - shown}; info['allowed_words'] has all)" if len(words) > shown else ""
    )
    console.print(f"[dim]allowed words ({len(words)}): {head}{more}[/]")


@app.command()
def run(
    env_id: str | None = typer.Argument(
        None, help="Env id (Maze-v0); field runner: envs, batteries (BabyAI,TextCraft)."
    ),
    policy: str | None = typer.Option(
        None,
        help="expert or random (field runner: also openai, local, agent-server:<url>).",
        show_default="expert",
    ),
    episodes: int | None = typer.Option(
        None, min=1, help="Number of episodes (tasks 0..N-1 of the split).", show_default="10"
    ),
    split: str | None = typer.Option(None, help="train or test.", show_default="test"),
    max_rounds: int | None = typer.Option(
        None, min=1, help="Turn cap (default: AgentGym's max rounds)."
    ),
    seed: int | None = typer.Option(
        None, min=0, help="Seed for resets, random policy.", show_default="0"
    ),
    config: str | None = typer.Option(None, "--config", help="Field runner: a profile."),
    run_envs: str | None = typer.Option(None, "--run", help="Field runner: envs and batteries."),
    repeat: int | None = typer.Option(None, min=1, help="Field runner: play each task N times."),
    concurrency: int | None = typer.Option(None, min=1, help="Field runner: in flight."),
    out: str | None = typer.Option(None, help="Field runner: output folder (resumed if there)."),
    max_seconds: float | None = typer.Option(None, help="Field runner: seconds per episode."),
    base_url: str | None = typer.Option(None, help="Field runner: endpoint (first)."),
    model: str | None = typer.Option(None, help="Field runner: model name."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Field runner: pre-flight checks only."),
    list_envs: bool = typer.Option(False, "--list-envs", help="Field runner: env health."),
) -> None:
    """Run a policy over a split and print score, success rate and turns. With a profile, several
    envs, --repeat, --dry-run or --list-envs it is the field runner (agentgym_envs.runner)."""
    options = dict(locals())
    from agentgym_envs.benchmarks.policies import expert_policy, random_policy
    from agentgym_envs.rollout import run_episode
    from agentgym_envs.runner.cli import field_run, wants_field_runner

    if wants_field_runner(options):
        raise typer.Exit(field_run(options))
    if env_id is None:
        raise AgentGymError("name an env id (agentgym run Maze-v0) or a profile (--config p.yaml)")
    policy, episodes, split, seed = policy or "expert", episodes or 10, split or "test", seed or 0
    if policy not in ("expert", "random"):
        raise AgentGymError(f"unknown policy {policy!r}: use 'expert' or 'random'")
    info = env_info(env_id)
    env = _make(env_id)
    n_tasks = env.unwrapped.tasks.size(split) if split in ("train", "test") else 0
    if n_tasks == 0:
        raise AgentGymError(f"split {split!r} has no tasks: use 'train' or 'test'")
    act = expert_policy(env) if policy == "expert" else random_policy(env, seed=seed)
    cap = max_rounds or info.max_rounds
    scores, successes, turns = [], [], []
    start = time.perf_counter()
    for task_id in range(min(episodes, n_tasks)):
        ep = run_episode(env, act, task_id=task_id, split=split, seed=seed + task_id, max_turns=cap)
        scores.append(ep.score)
        successes.append(ep.success)
        turns.append(ep.turns)
    elapsed = time.perf_counter() - start
    table = Table(title=f"{info.id} -- {policy} policy, {split} split")
    for column in ("episodes", "score", "success rate", "mean turns", "wall time"):
        table.add_column(column, justify="right")
    table.add_row(
        str(len(scores)),
        f"{statistics.fmean(scores):.3f}",
        f"{statistics.fmean(successes):.1%}",
        f"{statistics.fmean(turns):.1f}",
        f"{elapsed:.2f} s",
    )
    console.print(table)
    env.close()


@app.command()
def doctor() -> None:
    """Check this machine: Python, each family's extra, Java, Chromium, the local model,
    nats-server, PostgreSQL and bubblewrap (the harness sandbox)."""
    from rich.markup import escape

    from agentgym_envs.doctor import run_checks

    checks = run_checks()
    table = Table(title="agentgym doctor")
    table.add_column("check")
    table.add_column("status", overflow="fold")
    for check in checks:
        table.add_row(escape(check.name), escape(check.status))
    console.print(table)
    mends = list(dict.fromkeys(c.detail for c in checks if not c.ok and c.command))
    if mends:
        console.print("To install what is missing, run:")
        for line in mends:  # one line each, as typed: no markup, never wrapped
            console.print(line, markup=False, highlight=False, soft_wrap=True)


def _load_plugins() -> None:
    for name in _PLUGINS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            missing = exc.name or ""
            if name.startswith(missing) or not missing.startswith("agentgym_envs"):
                continue  # that area, or the extra it needs, is not installed
            raise
        module.register_cli(app)


_load_plugins()


#: Set to see the traceback of an unexpected error instead of its one-line summary.
DEBUG_ENV = "AGENTGYM_DEBUG"


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
    text = " ".join(message.split())
    return text or type(exc).__name__


def _port_checked(command) -> None:
    """Make every ``--port`` option of ``command`` and its subcommands refuse anything but a TCP
    port (1 to 65535) with a message that says so, before the command runs -- whichever area
    added the command."""
    for param in getattr(command, "params", ()):
        if param.name == "port" and not getattr(param, "_port_checked", False):
            param.process_value = functools.partial(_port_value, param, param.process_value)
            param._port_checked = True
    for sub in getattr(command, "commands", {}).values():
        _port_checked(sub)


def _port_value(param, process, ctx, value):
    """``param.process_value`` after checking the raw ``value`` is a TCP port."""
    if value is not None:
        try:
            port = int(str(value).strip())
        except ValueError:
            port = None
        if port is None or not 1 <= port <= 65535:
            raise typer.BadParameter(
                f"{value!r} is not a TCP port: give a number from 1 to 65535", ctx=ctx, param=param
            )
    return process(ctx, value)


def main() -> None:
    """Console entry point: every error is one line on stderr and a non-zero exit.

    Bad input (library errors, bad paths, bad values) exits 2; anything unexpected exits 1
    with its type named (``AGENTGYM_DEBUG=1`` shows the traceback); Ctrl-C exits 130.
    """
    import gymnasium

    try:  # typer >= 0.26 carries its own click
        from typer._click import exceptions as click_errors
    except ImportError:  # pragma: no cover
        from click import exceptions as click_errors

    try:
        command = typer.main.get_command(app)
        _port_checked(command)
        code = command(standalone_mode=False)
        if isinstance(code, int) and code:
            raise SystemExit(code)
    except click_errors.UsageError as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # the help was shown: that is the answer
            raise SystemExit(2) from None
        path, ctx = [], exc.ctx
        while ctx is not None and ctx.parent is not None:  # the root's name may be "python -m .."
            path.insert(0, ctx.info_name)
            ctx = ctx.parent
        where = " ".join(["agentgym", *path])
        sys.stderr.write(f"error: {_one_line(exc)} (see {where} --help)\n")
        raise SystemExit(2) from None
    except click_errors.ClickException as exc:
        sys.stderr.write(f"error: {_one_line(exc)}\n")
        raise SystemExit(exc.exit_code or 1) from None
    except (KeyboardInterrupt, typer.Abort):
        sys.stderr.write("error: interrupted\n")
        raise SystemExit(130) from None
    except (AgentGymError, OSError, ValueError, gymnasium.error.Error) as exc:
        if os.environ.get(DEBUG_ENV):
            raise
        sys.stderr.write(f"error: {_one_line(exc)}\n")
        raise SystemExit(2) from None
    except Exception as exc:  # a one-line report beats a traceback for users
        if os.environ.get(DEBUG_ENV):
            raise
        sys.stderr.write(
            f"error: {type(exc).__name__}: {_one_line(exc)} (set {DEBUG_ENV}=1 for the traceback)\n"
        )
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
