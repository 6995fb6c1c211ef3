"""``agentgym bench`` (run, compare, report) and ``agentgym llm serve``.

The main CLI calls :func:`register_cli` with its ``typer.Typer`` app.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from agentgym_envs.errors import AgentGymError

try:  # typer >= 0.26 carries its own click
    from typer._click.exceptions import UsageError
except ImportError:  # pragma: no cover
    from click.exceptions import UsageError

console = Console()

#: What a bare ``--ray`` (no address) stands for: ``$RAY_ADDRESS``, else a new local cluster.
RAY_DEFAULT = "default"


class _BenchGroup(typer.core.TyperGroup):
    """``agentgym bench``'s command group: ``--ray`` takes an optional address (a bare
    ``--ray`` is :data:`RAY_DEFAULT`)."""

    def parse_args(self, ctx, args):  # type: ignore[no-untyped-def]
        args = list(args)
        for i, arg in enumerate(args):
            if arg == "--ray" and (i + 1 == len(args) or args[i + 1].startswith("-")):
                args.insert(i + 1, RAY_DEFAULT)
                break
        return super().parse_args(ctx, args)


bench_app = typer.Typer(
    cls=_BenchGroup,
    help="Benchmark a policy on AgentEval's splits; compare two runs.",
    invoke_without_command=True,
    no_args_is_help=False,
    add_completion=False,
    pretty_exceptions_enable=False,
)
llm_app = typer.Typer(
    help="A real local model: SmolLM2-135M served by transformers or llama.cpp (extra local-llm).",
    no_args_is_help=True,
)


#: Where the model of an ``openai`` or ``agent:<name>`` policy comes from.
MODEL_SOURCES = ("openai", "local", "expert")


def _policy_spec(
    policy: str,
    fmt: str | None,
    *,
    base_url: str | None,
    model: str | None,
    api_key: str | None,
    temperature: float,
    top_p: float,
    max_tokens: int,
    sample_seed: int | None,
    timeout: float,
    max_retries: int,
    history: int | None,
    max_reasks: int,
):
    from agentgym_envs.benchmarks import policies

    if policy == "expert":
        return policies.expert_spec()
    if policy == "random":
        return policies.random_spec()
    endpoint = {
        "base_url": base_url,
        "model": model,
        "api_key": api_key,
        "temperature": temperature,
        "top_p": top_p,
        "max_tokens": max_tokens,
        "seed": sample_seed,
        "timeout": timeout,
        "max_retries": max_retries,
        "max_history_turns": history,
    }
    if policy in ("openai", "local"):
        fmt = fmt or "react"
        if fmt not in ("react", "tools"):
            raise AgentGymError(f"--format {fmt!r}: use 'react' or 'tools'")
        return policies.openai_spec(fmt=fmt, name=policy, **endpoint)  # type: ignore[arg-type]
    if policy.startswith("agent-server:"):  # a running agent server plays whole episodes
        from agentgym_envs.agents.client import SERVER_PREFIX, agent_server_spec

        return agent_server_spec(
            policy.removeprefix(SERVER_PREFIX),
            base_url=base_url,
            model=model,
            api_key=api_key,
            max_tokens=max_tokens,
            temperature=temperature,
        )
    if policy.startswith("agent:"):
        from agentgym_envs.agents.specs import AGENTS, POLICY_PREFIX, agent_spec, unknown_agent

        name = policy.removeprefix(POLICY_PREFIX)
        if name not in AGENTS:
            raise AgentGymError(unknown_agent(name))
        if fmt is not None and fmt != AGENTS[name]:
            speak = [f"{POLICY_PREFIX}{a}" for a, f in AGENTS.items() if f == fmt]
            raise AgentGymError(
                f"--format {fmt}: {policy} speaks {AGENTS[name]}"
                + (f"; for {fmt} use {' or '.join(speak)}" if speak else "")
            )
        return agent_spec(name, max_reasks=max_reasks, **endpoint)
    raise AgentGymError(
        f"unknown policy {policy!r}: use expert, random, openai, local, agent:<name> "
        "(a reference agent, e.g. agent:multiturn) or agent-server:<url>"
    )


def print_outcomes(rows: list[tuple[str, dict[str, int]]], out: Console | None = None) -> None:
    """Why the episodes ended, one line per env under a summary table (a run where every
    episode hit a limit must not read as a plain 0%)."""
    from agentgym_envs.benchmarks.report import outcome_text

    out = out or console
    width = max((len(name) for name, _ in rows), default=0)
    out.print("[bold]outcomes[/] (why episodes ended)")
    for name, outcomes in rows:
        out.print(f"  {name:<{width}}  {outcome_text(outcomes)}", markup=False)


def _print_summary(summary, title: str) -> None:
    from agentgym_envs.benchmarks.report import latency_cells

    k = summary.k
    invalid = summary.invalid > 0
    latency = summary.has_latency
    table = Table(title=title)
    cols = (
        ["env", "episodes", "score", "success"]
        + ([f"Avg@{k}", f"Pass@{k}"] if k > 1 else [])
        + ["turns"]
        + (["invalid"] if invalid else [])
        + (["policy ms mean/p95"] if latency else [])
    )
    for c in cols:
        table.add_column(c, justify="left" if c == "env" else "right")
    for e in summary.envs:
        means = [f"{e.score:.3f}", f"{e.success_rate:.1%}"]
        means += [f"{e.avg_at_k:.3f}", f"{e.pass_at_k:.1%}"] if k > 1 else []
        means += [f"{e.mean_turns:.1f}"]
        row = [e.env_id.split("/")[-1], str(e.episodes)]
        row += means if e.scored else ["-"] * len(means)
        row += [str(e.invalid)] if invalid else []
        row += ["/".join(latency_cells(e))] if latency else []
        table.add_row(*row)
    o = summary.as_dict()["overall"]
    row = ["overall", str(o["episodes"]), f"{o['score']:.3f}", f"{o['success_rate']:.1%}"]
    row += [f"{o['avg_at_k']:.3f}", f"{o['pass_at_k']:.1%}"] if k > 1 else []
    row += [""] + ([str(o["invalid"])] if invalid else [])
    row += [""] if latency else []
    table.add_row(*row, style="bold")
    console.print(table)
    print_outcomes([(e.env_id.split("/")[-1], e.outcomes) for e in summary.envs])
    if invalid:
        console.print(f"[yellow]{summary.invalid_note()}[/]")


def _print_sources(families: dict) -> None:
    """Per env: AgentEval's items or an embedded stand-in, data, prompt set, reply parser."""
    if not families:
        return
    table = Table(title="What each env played")
    for c in ("env", "items", "data", "prompts", "parser"):
        table.add_column(c)
    for env_id, f in families.items():
        style = "yellow" if f.get("stand_in") else ""
        table.add_row(
            env_id.split("/")[-1],
            f"[{style}]{f['items']}[/]" if style else f["items"],
            f["data"],
            f["prompt_set"],
            f["parser"],
        )
    console.print(table)
    for env_id, f in families.items():
        if f.get("stand_in"):
            console.print(f"[yellow]{env_id.split('/')[-1]}: {f['stand_in']}[/]", markup=True)


# Options of ``agentgym bench`` (module constants: typer reads them from the signature).
_ENVS = typer.Option(
    None,
    "--envs",
    help="What to run: env ids (comma-separated), 'all' (every installed id) or 'agenteval' "
    "(one id per AgentEval family); with --items, the files' envs by default.",
)
_POLICY = typer.Option(
    "expert",
    "--policy",
    help="expert, random, openai (any OpenAI-compatible endpoint), local (SmolLM2 started here: "
    "transformers, or llama.cpp where that extra is installed), "
    "agent:<name> (a reference agent over the endpoint, e.g. agent:multiturn) or "
    "agent-server:<url> (episodes played by a running agentgym agent-server).",
)
_MODEL_SOURCE = typer.Option(
    "openai",
    "--model-source",
    help="The model of openai and agent:<name>: openai (--base-url), local (SmolLM2 started here: "
    "transformers, or llama.cpp where that extra is installed) "
    "or expert (the family's expert behind an OpenAI-compatible "
    "server started here: checks the plumbing).",
)
_MAX_REASKS = typer.Option(
    2, "--max-reasks", min=0, help="agent:multiturn: re-asks per env step on malformed output."
)
_SPLIT = typer.Option("test", "--split", help="test (AgentEval's split) or train.")
_N_SAMPLES = typer.Option(
    1, "--n-samples", "-k", min=1, help="Episodes per task (Avg@k / Pass@k when > 1)."
)
_CONCURRENCY = typer.Option(1, "--concurrency", "-j", min=1, help="Episodes in flight.")
_MAX_ROUNDS = typer.Option(
    "default", "--max-rounds", help="'default' (AgentGym's per family) or a number."
)
_FMT = typer.Option(
    None,
    "--format",
    help="LLM action format: react (Thought/Action text, the default) or tools (native tool "
    "calls). An agent:<name> speaks its own.",
    show_default=False,
)
_OUT = typer.Option(
    None,
    "--out",
    "-o",
    help="Run folder (results.jsonl, summary.*). Rerun with the same folder to resume.",
)
_LIMIT = typer.Option(None, "--limit", min=1, help="Only the first N tasks of each env.")
_ITEMS = typer.Option(
    None,
    "--items",
    help="AgentGym's AgentEval files (a *_test.json or their folder): run those item ids.",
)
_BASE_URL = typer.Option(
    None, "--base-url", help="OpenAI-compatible /v1 root (default $OPENAI_BASE_URL)."
)
_MODEL = typer.Option(
    None, "--model", help="Model name (default $OPENAI_MODEL, else the endpoint's first)."
)
_API_KEY = typer.Option(None, "--api-key", help="API key (default $OPENAI_API_KEY).")
_TEMPERATURE = typer.Option(
    0.0, "--temperature", help="Sampling temperature (0 = greedy, AgentGym's eval)."
)
_TOP_P = typer.Option(1.0, "--top-p")
#: Reply tokens of ``--policy local`` unless --max-tokens says otherwise: SmolLM2-135M's replies
#: (an action, or a thought and an action) are short, and one that rambles costs the whole
#: budget on a CPU (seconds per turn), so it is cut sooner.
LOCAL_MAX_TOKENS = 128
_MAX_TOKENS = typer.Option(
    None,
    "--max-tokens",
    help=f"Tokens per reply (default 512; {LOCAL_MAX_TOKENS} for --policy local).",
    show_default=False,
)
_SAMPLE_SEED = typer.Option(None, "--sample-seed", help="Fixed sampling seed sent to the endpoint.")
_TIMEOUT = typer.Option(120.0, "--timeout", help="Seconds per model request.")
_MAX_RETRIES = typer.Option(4, "--max-retries", help="Retries on transient endpoint errors.")
_HISTORY = typer.Option(None, "--history", help="Keep only the last N exchanges in the prompt.")
_SEED = typer.Option(0, "--seed", help="Base seed for resets and random policies.")
_N_CTX = typer.Option(4096, "--n-ctx", help="Context window of the local model (--policy local).")
_PROGRESS = typer.Option(True, "--progress/--no-progress", help="Show the progress bars.")
_PARSER = typer.Option(
    "agentgym",
    "--parser",
    help="How ReAct replies are read: agentgym (each family's AgentGym client) or strict (ours).",
)
_PROMPTS = typer.Option(
    "ours",
    "--prompts",
    help="Whose prompts a ReAct policy gets: ours, or agentgym (read from --prompts-source).",
)
_PROMPTS_SOURCE = typer.Option(
    None,
    "--prompts-source",
    help="Your AgentTraj file or AgentGym checkout, for --prompts agentgym (default $AGENTGYM_PROMPTS).",
)
_RAY = typer.Option(
    None,
    "--ray",
    metavar="[ADDRESS]",
    help="Play the episodes on env actors of a Ray cluster (extra ray): --ray alone uses "
    "$RAY_ADDRESS or starts a local cluster; --ray HOST:PORT (or ray://HOST:10001) joins that "
    "one. --concurrency is then the number of env actors.",
    show_default=False,
)
_ALLOW_STAND_IN = typer.Option(
    False,
    "--allow-stand-in",
    help="Let --items play AgentGym item ids on embedded stand-in tasks (same index, not AgentGym's task).",
)


@bench_app.callback()
def bench(
    ctx: typer.Context,
    envs: str | None = _ENVS,
    policy: str = _POLICY,
    split: str = _SPLIT,
    n_samples: int = _N_SAMPLES,
    concurrency: int = _CONCURRENCY,
    max_rounds: str = _MAX_ROUNDS,
    fmt: str | None = _FMT,
    out: Path | None = _OUT,
    limit: int | None = _LIMIT,
    items: Path | None = _ITEMS,
    base_url: str | None = _BASE_URL,
    model: str | None = _MODEL,
    api_key: str | None = _API_KEY,
    temperature: float = _TEMPERATURE,
    top_p: float = _TOP_P,
    max_tokens: int | None = _MAX_TOKENS,
    sample_seed: int | None = _SAMPLE_SEED,
    timeout: float = _TIMEOUT,
    max_retries: int = _MAX_RETRIES,
    history: int | None = _HISTORY,
    seed: int = _SEED,
    n_ctx: int = _N_CTX,
    progress: bool = _PROGRESS,
    parser: str = _PARSER,
    prompts: str = _PROMPTS,
    prompts_source: Path | None = _PROMPTS_SOURCE,
    allow_stand_in: bool = _ALLOW_STAND_IN,
    model_source: str = _MODEL_SOURCE,
    max_reasks: int = _MAX_REASKS,
    ray: str | None = _RAY,
) -> None:
    """Run a policy on AgentEval's test splits: per env score and success, saved as JSONL,
    JSON, Markdown and a PNG chart. Subcommands: compare, report."""
    if ctx.invoked_subcommand is not None:
        return
    from agentgym_envs.benchmarks.runner import run_benchmark

    target = _target(ctx, policy, envs, items, allow_stand_in, model_source, max_rounds, out)
    endpoint = {"base_url": base_url, "model": model, "api_key": api_key, "timeout": timeout}
    if max_tokens is None:
        max_tokens = LOCAL_MAX_TOKENS if policy == "local" else 512
    sampling = {"temperature": temperature, "top_p": top_p, "max_tokens": max_tokens}
    agent = {"max_retries": max_retries, "history": history, "max_reasks": max_reasks}
    model_options = {**endpoint, **sampling, **agent, "sample_seed": sample_seed}
    loop = {"parser": parser, "prompts": prompts, "prompts_source": prompts_source}
    runs = {"n_samples": n_samples, "concurrency": concurrency, "limit": limit, "seed": seed}
    with _policy(policy, fmt, target, split=split, n_ctx=n_ctx, **model_options) as spec:
        result = run_benchmark(
            target.envs,
            spec,
            out=target.out,
            split=split,
            max_rounds=target.rounds,
            items=target.items,
            progress=progress,
            ray=False if ray is None else (True if ray == RAY_DEFAULT else ray),
            **runs,
            **loop,
        )
    _print_run(result, split, target.out)


@dataclass(frozen=True)
class _Target:
    """What ``agentgym bench`` runs: the envs (and ``--items``' items), their turn budget,
    where the model comes from, and the run folder."""

    envs: str
    items: dict[str, list[Any]] | None
    env_ids: list[str]
    rounds: int | str
    source: str
    out: Path


def _target(
    ctx: typer.Context,
    policy: str,
    envs: str | None,
    items: Path | None,
    allow_stand_in: bool,
    model_source: str,
    max_rounds: str,
    out: Path | None,
) -> _Target:
    """The bench command's envs, items, max rounds, model source and run folder, checked."""
    from agentgym_envs.benchmarks.runner import resolve_envs

    source = _model_source(policy, model_source)
    names = _envs_to_run(ctx, envs, items)
    rounds = "default" if max_rounds == "default" else _int_option("--max-rounds", max_rounds)
    run_items = _items(items, names, allow_stand_in)
    out = out or Path("bench-runs") / _run_name(policy, source)
    env_ids = list(run_items) if run_items is not None else resolve_envs(names)
    return _Target(names, run_items, env_ids, rounds, source, out)


def _envs_to_run(ctx: typer.Context, envs: str | None, items: Path | None) -> str:
    """``--envs``; required unless ``--items`` names the envs (a bare ``agentgym bench`` would
    otherwise start a run of every family)."""
    if envs is not None:
        return envs
    if items is not None:
        return "agenteval"
    raise UsageError(
        "say what to run: --envs Wordle-v0 (env ids, comma-separated), --envs agenteval "
        "(one id per AgentEval family) or --envs all (every installed id)",
        ctx=ctx,
    )


def _model_source(policy: str, source: str) -> str:
    """``--model-source``, checked against ``--policy`` (``local`` is ``openai`` on the local
    model)."""
    if source not in MODEL_SOURCES:
        raise typer.BadParameter("use openai, local or expert", param_hint="--model-source")
    if policy == "local":
        if source == "expert":
            raise AgentGymError(
                "--policy local plays the local model: for the expert model use "
                "--policy openai --model-source expert"
            )
        return "local"
    if source != "openai" and policy in ("expert", "random"):
        raise AgentGymError(
            f"--model-source {source} gives a model to openai and agent:<name> policies, "
            f"not to --policy {policy}"
        )
    return source


def _run_name(policy: str, source: str) -> str:
    """The default run folder's name: policy (and model source), then the time."""
    name = policy.replace(":", "-")
    if source != "openai" and policy != "local":
        name += f"-{source}"
    return f"{name}-{time.strftime('%Y%m%d-%H%M%S')}"


@contextlib.contextmanager
def _policy(
    policy: str,
    fmt: str | None,
    target: _Target,
    *,
    split: str,
    n_ctx: int,
    base_url: str | None,
    model: str | None,
    **kw,
):
    """The policy spec of ``--policy``, with the model server of ``--model-source`` (the
    local model, or the experts behind the OpenAI interface) running until the block ends."""
    server, source = None, target.source
    try:
        if source == "local":
            server = _start_local(n_ctx)
            base_url, model = server.base_url, model or server.alias
        elif source == "expert":
            from agentgym_envs.agents.expert_server import ExpertChatServer

            server = ExpertChatServer(target.env_ids, split=split).start()
            base_url = server.base_url
        spec = _policy_spec(policy, fmt, base_url=base_url, model=model, **kw)
        if source == "expert" and "tag_requests" in spec.config:
            spec.config["tag_requests"] = True  # the expert model learns the episode
        yield spec
    finally:
        if server is not None:
            server.stop()


def _start_local(n_ctx: int):
    from agentgym_envs.benchmarks.local_llm import LocalLLMServer, default_runtime

    runtime = default_runtime()
    console.print(f"[dim]starting the local model server (SmolLM2-135M on {runtime})...[/]")
    return LocalLLMServer(n_ctx=n_ctx, runtime=runtime).start()


def _items(items: Path | None, envs: str, allow_stand_in: bool):
    """The item ids of ``--items`` files, by env id (``None`` without ``--items``)."""
    if items is None:
        return None
    from agentgym_envs.benchmarks.agenteval import load_agenteval
    from agentgym_envs.datasets.items import ItemResolver

    return load_agenteval(
        items,
        envs=None if envs in ("agenteval", "all") else envs.split(","),
        resolver=ItemResolver(allow_stand_in=allow_stand_in),
    )


def _print_run(result, split: str, out: Path) -> None:
    pol = result.summary.config.get("policy", {})
    title = (
        f"agentgym bench -- {pol.get('name')}"
        + (f" ({pol['model']})" if pol.get("model") else "")
        + f", {split} split"
    )
    _print_summary(result.summary, title)
    _print_sources(result.summary.config.get("families", {}))
    if result.ray_stats is not None:
        console.print(f"ray: {result.ray_stats.line()}")
    console.print(
        f"{result.ran} episodes run, {result.skipped} resumed from {out}, {result.wall_time:.1f} s. "
        f"Reports: {', '.join(str(p) for p in result.reports.values())}"
    )


def _int_option(name: str, value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise AgentGymError(f"{name} {value!r}: use 'default' or a positive number") from None
    if n < 1:
        raise AgentGymError(f"{name} {value!r}: use 'default' or a positive number")
    return n


_COMPARE_RUN_A = typer.Argument(..., help="Run folder A (the baseline).")
_COMPARE_RUN_B = typer.Argument(..., help="Run folder B (the candidate).")


@bench_app.command("compare")
def compare(
    run_a: Path = _COMPARE_RUN_A,
    run_b: Path = _COMPARE_RUN_B,
    n_boot: int = typer.Option(10_000, "--n-boot", help="Bootstrap resamples."),
    confidence: float = typer.Option(
        0.95, "--confidence", help="Confidence level of the intervals."
    ),
    seed: int = typer.Option(0, "--seed"),
    as_json: bool = typer.Option(False, "--json", help="Print the comparison as JSON."),
) -> None:
    """B minus A per env (success, score) on shared items, with paired bootstrap CIs."""
    from agentgym_envs.benchmarks.report import compare_runs

    cmp = compare_runs(run_a, run_b, n_boot=n_boot, confidence=confidence, seed=seed)
    if as_json:
        typer.echo(json.dumps(cmp.as_dict(), indent=2))
        return
    if not cmp.envs:
        raise AgentGymError(
            f"{run_a} and {run_b} share no (env, item) pairs: run both on the same envs and split"
        )
    table = Table(
        title=f"B minus A, {confidence:.0%} paired bootstrap CIs\nA = {run_a}\nB = {run_b}"
    )
    for c in ("env", "items", "metric", "A", "B", "B - A [CI]", "verdict"):
        table.add_column(
            c, justify="left" if c in ("env", "metric", "verdict") else "right", no_wrap=c != "env"
        )

    def row(name: str, items: int, metric: str, d, **kw) -> None:
        style = "green" if d.verdict == "B better" else "red" if d.verdict == "A better" else "dim"
        table.add_row(
            name,
            str(items),
            metric,
            f"{d.a:.3f}",
            f"{d.b:.3f}",
            f"{d.diff:+.3f} [{d.low:+.3f}, {d.high:+.3f}]",
            f"[{style}]{d.verdict}[/]",
            **kw,
        )

    for e in cmp.envs:
        name = e.env_id.split("/")[-1]
        row(name, e.paired_items, "success", e.success)
        row("", e.paired_items, "score", e.score, end_section=True)
    if cmp.overall_success and cmp.overall_score:
        n = sum(e.paired_items for e in cmp.envs)
        row("overall", n, "success", cmp.overall_success, style="bold")
        row("", n, "score", cmp.overall_score, style="bold")
    console.print(table)
    if cmp.only_in_a or cmp.only_in_b:
        console.print(
            f"[yellow]not paired: {cmp.only_in_a} items only in A, {cmp.only_in_b} only in B[/]"
        )


_REPORT_RUN = typer.Argument(..., help="Run folder.")


@bench_app.command("report")
def report(run: Path = _REPORT_RUN) -> None:
    """Rebuild a run's summary (JSON, Markdown, PNG) from its results.jsonl and print it."""
    from agentgym_envs.benchmarks.report import CONFIG_FILE, read_results, summarize, write_reports

    cfg = run / CONFIG_FILE
    config = json.loads(cfg.read_text()) if cfg.is_file() else {}
    summary = summarize(read_results(run), config)
    paths = write_reports(summary, run)
    _print_summary(summary, f"agentgym bench report -- {run}")
    console.print("Reports: " + ", ".join(str(p) for p in paths.values()))


_SERVE_MODEL_PATH = typer.Option(
    None,
    "--model-path",
    help="A GGUF file (default SmolLM2-135M-Instruct), or a checkpoint folder (transformers runtime).",
)


@llm_app.command("serve")
def serve(
    port: int = typer.Option(8080, "--port", help="Port on 127.0.0.1."),
    n_ctx: int = typer.Option(4096, "--n-ctx", help="Context window."),
    model_path: Path | None = _SERVE_MODEL_PATH,
    runtime: str | None = typer.Option(
        None,
        "--runtime",
        help="transformers (wheels only) or llama.cpp (faster; extra llama-cpp). "
        "Default: llama.cpp when installed.",
    ),
) -> None:
    """Serve the local model at http://127.0.0.1:PORT/v1 until Ctrl-C."""
    from agentgym_envs.benchmarks.local_llm import LocalLLMServer, serve_until_signalled

    def ready(server: LocalLLMServer) -> None:
        console.print(
            f"serving [bold]{server.alias}[/] ({server.runtime or 'default runtime'}) at {server.base_url} -- use --policy openai --base-url {server.base_url}; Ctrl-C stops"
        )

    server = LocalLLMServer(model_path, port=port, n_ctx=n_ctx, runtime=runtime)
    serve_until_signalled(server, on_ready=ready)


def register_cli(app: typer.Typer) -> None:
    """Add ``bench`` and ``llm`` to the main ``agentgym`` app."""
    app.add_typer(bench_app, name="bench")
    app.add_typer(llm_app, name="llm")


__all__ = ["bench_app", "llm_app", "register_cli"]
