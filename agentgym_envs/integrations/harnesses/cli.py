"""``agentgym harness <name> --env <id> --task N --model <url>``: one harness episode, recorded;
``--tasks 0-99 -j 4``: many, four at a time, in a resumable run folder
(:mod:`~agentgym_envs.integrations.harnesses.parallel`).

``--model`` is the model endpoint's ``/v1`` root, or ``expert`` (the family's expert behind the
OpenAI interface, answering in the harness's tool-call format: checks the plumbing) or
``local`` (SmolLM2-135M on llama.cpp, started here). ``agentgym harness list`` shows every
harness, whether it is installed and the command that installs it; ``agentgym harness install
<name>... | --all`` installs them (:mod:`~agentgym_envs.integrations.harnesses.install`).
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import typer

#: The context window the local model is served with for a harness (their prompts are long).
LOCAL_CONTEXT = 32768
#: Most tokens of one reply of the local model to a harness (harnesses ask for up to their
#: whole context; SmolLM2-135M sampling at temperature 1 can ramble on for thousands).
LOCAL_MAX_TOKENS = 1024


@contextlib.contextmanager
def model_endpoint(model: str, env_id: str, split: str = "test") -> Iterator[str]:
    """The ``/v1`` root for ``--model``: a URL as given, or a server started for the run."""
    if model == "expert":
        from agentgym_envs.agents.harness_expert import HarnessExpertServer

        with HarnessExpertServer([env_id], split=split) as server:
            yield server.base_url
    elif model == "local":
        from agentgym_envs.benchmarks.local_llm import LocalLLMServer

        with LocalLLMServer(n_ctx=LOCAL_CONTEXT, max_tokens=LOCAL_MAX_TOKENS) as server:
            yield server.base_url
    elif model.startswith(("http://", "https://")):
        yield model
    else:
        raise typer.BadParameter(
            f"{model!r} is not a model endpoint: give its /v1 URL, 'expert' or 'local'",
            param_hint="--model",
        )


def install_harnesses(names: list[str], everything: bool, concurrency: int = 1) -> None:
    """``agentgym harness install <name>... | --all [-j N]``: install each pinned harness, N at
    once (each has a place and a lock of its own; the downloads are most of the time), exit 1
    with the failing command's output when one cannot be installed."""
    from concurrent.futures import ThreadPoolExecutor

    from agentgym_envs.integrations.harnesses import get_harness, harness_dir
    from agentgym_envs.integrations.harnesses import names as known
    from agentgym_envs.integrations.harnesses.install import HarnessInstallError, install

    if everything == bool(names):
        raise typer.BadParameter("give the harnesses to install, or --all")
    harnesses = [get_harness(n) for n in (known() if everything else names)]

    def one(harness) -> str | None:
        """Install ``harness``; its name when it failed."""
        typer.echo(f"{harness.name}: {harness.package} into {harness.prefix()}")
        started = time.monotonic()
        try:
            done = install(
                harness, progress=lambda line, h=harness: typer.echo(f"{h.name}: {line}")
            )
        except HarnessInstallError as exc:
            sys.stderr.write(f"error: {harness.title} could not be installed: {exc}\n")
            return harness.name
        took = f" in {time.monotonic() - started:.0f} s" if done else ""
        typer.echo(f"{harness.name}: {'installed' + took if done else 'already installed'}")
        return None

    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="install") as pool:
        failed = [name for name in pool.map(one, harnesses) if name]
    if failed:
        sys.stderr.write(f"error: not installed into {harness_dir()}: {', '.join(failed)}\n")
        raise typer.Exit(1)


def harness_command(
    name: str = typer.Argument(
        ..., help="The harness (cline, kilocode, ...), 'list', or 'install' and harness names."
    ),
    more: list[str] = typer.Argument(None, help="With 'install': more harness names."),
    env_id: str = typer.Option(None, "--env", help="The env to play, e.g. Maze-v0."),
    task: int = typer.Option(None, "--task", min=0, help="The task of the split (default 0)."),
    tasks: str = typer.Option(
        None,
        "--tasks",
        help="Many tasks (0-99, or 0,4,10-12) as a resumable run: results.jsonl and a summary "
        "in --out (default harness-runs/<name>-<env>).",
    ),
    concurrency: int = typer.Option(
        1,
        "--concurrency",
        "-j",
        min=1,
        help="With --tasks: episodes at once; with install: installs.",
    ),
    model: str = typer.Option(
        None, "--model", help="The model's /v1 URL, 'expert' or 'local' (SmolLM2, started here)."
    ),
    out: Path = typer.Option(
        None, "--out", help="Recordings folder (default harness-runs; with --tasks, a run folder)."
    ),
    split: str = typer.Option("test", "--split", help="train or test."),
    model_name: str | None = typer.Option(
        None, "--model-name", help="Model name (default: the endpoint's first)."
    ),
    api_key: str | None = typer.Option(None, "--api-key", help="Key the gateway sends upstream."),
    timeout: float = typer.Option(600.0, "--timeout", min=1, help="The episode's deadline (s)."),
    max_calls: int | None = typer.Option(
        None, "--max-calls", min=1, help="Most model calls of an episode (then turn_limit)."
    ),
    token_ids: bool = typer.Option(
        False, "--token-ids", help="Ask the upstream (vLLM) for token ids and logprobs."
    ),
    keep_home: bool = typer.Option(
        False, "--keep-home", help="Keep the harness's temporary home (its config and logs)."
    ),
    everything: bool = typer.Option(False, "--all", help="With 'install': every harness."),
    no_sandbox: bool = typer.Option(
        False,
        "--no-sandbox",
        help="Run the harness as you, outside the sandbox (unsafe: the model's commands can "
        "read and change anything you can).",
    ),
) -> None:
    """Play one task (or many: --tasks, -j) with a pre-built harness (its own prompts and tools;
    our env over MCP); write the scored trajectories to AgentTraj / chat / SFT under --out.
    'harness list' shows the harnesses; 'harness install <name>... | --all' installs them (pinned, each in its own place)."""
    from agentgym_envs.integrations.harnesses import get_harness, names
    from agentgym_envs.integrations.harnesses.runner import run_harness

    if name == "install":
        install_harnesses(more or [], everything, concurrency)
        return
    if more or everything:
        raise typer.BadParameter("more names and --all go with 'install' only")
    if name == "list":
        for harness in map(get_harness, names()):
            found = harness.locate()
            state = found or f"not installed: {harness.install_command()}"
            typer.echo(f"{harness.name:13} {harness.package:26} {state}")
        return
    harness = get_harness(name)
    if env_id is None or model is None:
        raise typer.BadParameter("give --env <id> and --model <url|expert|local>")
    harness.require()
    if not no_sandbox:
        from agentgym_envs.integrations.sandbox import bwrap

        bwrap()  # a machine that cannot sandbox: one line with the mend, before anything runs
    if tasks is not None:
        if task is not None:
            raise typer.BadParameter("give --task N (one episode) or --tasks (many), not both")
        options = {"model": model_name, "api_key": api_key, "timeout": timeout}
        options |= {"token_ids": token_ids, "keep_home": keep_home, "sandbox": not no_sandbox}
        options["max_calls"] = max_calls
        run_tasks(harness, env_id, tasks, model, out, concurrency, split, options)
        return
    if concurrency != 1:
        raise typer.BadParameter("-j goes with --tasks (many episodes)")
    with model_endpoint(model, env_id, split) as url:
        result = run_harness(
            harness,
            env_id,
            task or 0,
            url,
            out=out or Path("harness-runs"),
            model=model_name,
            api_key=api_key,
            split=split,
            timeout=timeout,
            token_ids=token_ids,
            keep_home=keep_home,
            sandbox=not no_sandbox,
            max_calls=max_calls,
        )
    typer.echo(json.dumps(result.summary()))
    if not result.reward_valid:
        sys.stderr.write(f"error: the episode ended with {result.outcome}: {result.error}\n")
        raise typer.Exit(1)


def run_tasks(
    harness,
    env_id: str,
    tasks: str,
    model: str,
    out: Path | None,
    concurrency: int,
    split: str,
    options: dict,
) -> None:
    """``--tasks``: the episodes as a resumable run; one JSON line with the run's figures
    (exit 1 when no episode's reward is valid)."""
    from agentgym_envs.integrations.harnesses.parallel import parse_tasks, run_harness_tasks
    from agentgym_envs.spec import resolve_id

    try:
        ids = parse_tasks(tasks)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--tasks") from None
    env_id = resolve_id(env_id)
    out = out or Path("harness-runs") / f"{harness.name}-{env_id.split('/')[-1]}-{split}"
    with model_endpoint(model, env_id, split) as url:
        result = run_harness_tasks(
            harness,
            env_id,
            ids,
            url,
            out=out,
            concurrency=concurrency,
            split=split,
            progress=sys.stderr.isatty(),
            **options,
        )
    overall = result.summary.as_dict()["overall"]
    outcomes: dict[str, int] = {}
    for record in result.records:
        outcomes[record.get("outcome") or "?"] = outcomes.get(record.get("outcome") or "?", 0) + 1
    line = {
        "harness": harness.name,
        "env_id": env_id,
        "episodes": len(result.records),
        "ran": result.ran,
        "resumed": result.skipped,
        "score": overall["score"],
        "success_rate": overall["success_rate"],
        "outcomes": outcomes,
        "wall_time": round(result.wall_time, 3),
        "out": str(out),
    }
    typer.echo(json.dumps(line))
    valid = sum(1 for r in result.records if r.get("reward_valid", True) is not False)
    if result.records and not valid:
        sys.stderr.write(f"error: no episode's reward is valid ({outcomes}): see {out}/harness\n")
        raise typer.Exit(1)


def register_cli(app: typer.Typer) -> None:
    """Add ``harness`` to the main ``agentgym`` app."""
    app.command("harness")(harness_command)


__all__ = [
    "harness_command",
    "install_harnesses",
    "model_endpoint",
    "register_cli",
    "run_tasks",
]
