"""``agentgym run`` in field mode: a profile, several envs or batteries, repeats, pre-flight.

``agentgym run`` keeps its one-env form (``agentgym run Maze-v0 --policy expert``); any field
option (``--config``, ``--run``, ``--repeat``, ``--concurrency``, ``--out``, ``--max-seconds``,
``--base-url``, ``--model``, ``--dry-run``, ``--list-envs``), several envs
(``BabyAI,TextCraft``), a battery (``lightweight``) or a model policy (``openai``,
``local``, ``agent-server:<url>``) hands the command to :func:`field_run`. Options given on
the command line override the profile's values. Exit codes: see
:data:`agentgym_envs.runner.field.EXIT_OK` and the others.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Any

from agentgym_envs.errors import AgentGymError, UnknownEnvError
from agentgym_envs.runner.catalog import BUILTIN_BATTERIES, env_health, resolve_name
from agentgym_envs.runner.field import (
    EXIT_OK,
    EXIT_PREFLIGHT,
    EXIT_USAGE,
    EnvPlan,
    FieldResult,
    FieldRunner,
    plan_field,
)
from agentgym_envs.runner.profile import Profile, load_profile, parse_profile

logger = logging.getLogger(__name__)

#: ``run`` options that only the field runner has.
FIELD_OPTIONS = (
    "config",
    "run_envs",
    "repeat",
    "concurrency",
    "out",
    "max_seconds",
    "base_url",
    "model",
    "dry_run",
    "list_envs",
)


def wants_field_runner(options: dict[str, Any]) -> bool:
    """Whether ``agentgym run`` with these options is a field run (else the one-env run)."""
    if any(options.get(k) not in (None, False) for k in FIELD_OPTIONS):
        return True
    policy = str(options.get("policy") or "")
    if policy in ("openai", "local") or policy.startswith("agent-server:"):
        return True
    env_id = options.get("env_id") or ""
    if "," in env_id or env_id in BUILTIN_BATTERIES:
        return True
    if env_id:
        from agentgym_envs.spec import resolve_id

        try:
            resolve_id(env_id)
        except UnknownEnvError:
            try:
                resolve_name(env_id)  # a family name (BabyAI): the field runner knows it
            except UnknownEnvError:
                return False  # the one-env run reports the unknown id
            return True
    return False


def _profile(options: dict[str, Any]) -> Profile:
    base = load_profile(options["config"]) if options.get("config") else Profile()
    data = base.model_dump(mode="json", exclude_unset=False)
    overrides = {
        "episodes": options.get("episodes"),
        "split": options.get("split"),
        "max_rounds": options.get("max_rounds"),
        "seed": options.get("seed"),
        "repeat": options.get("repeat"),
        "concurrency": options.get("concurrency"),
        "max_seconds": options.get("max_seconds"),
        "output": options.get("out"),
    }
    data.update({k: v for k, v in overrides.items() if v is not None})
    model = data["model"]
    endpoint = _first_endpoint(options)
    if endpoint is not None:
        model["endpoints"] = [endpoint, *model.get("endpoints", [])]
    policy = options.get("policy")
    if "agent_server" in (endpoint or {}) or (
        endpoint and not policy and model["policy"] in ("expert", "random", "local")
    ):
        model["policy"] = "openai"
    elif policy:
        model["policy"] = policy
    if options.get("model"):
        model["name"] = options["model"]
    return parse_profile(
        data, "options" if not options.get("config") else Path(options["config"]).name
    )


def _first_endpoint(options: dict[str, Any]) -> dict[str, Any] | None:
    """The endpoint the command line puts first: ``--policy agent-server:<url>`` (as
    ``agentgym bench`` takes it; ``--base-url`` is then its model) or ``--base-url``."""
    from agentgym_envs.agents.client import SERVER_PREFIX

    policy, base_url = str(options.get("policy") or ""), options.get("base_url")
    if policy.startswith(SERVER_PREFIX):
        server = policy.removeprefix(SERVER_PREFIX)
        return {"name": "command line", "agent_server": server, "base_url": base_url}
    if base_url:
        return {"name": "command line", "base_url": base_url, "local": False}
    return None


def _names(options: dict[str, Any]) -> list[str]:
    names = [options.get("run_envs") or "", options.get("env_id") or ""]
    return [n for n in ",".join(names).split(",") if n.strip()]


def _console() -> Any:
    from rich.console import Console

    return Console()


def _print_envs(plans: list[EnvPlan]) -> int:
    from rich.table import Table

    table = Table(title="field runner: envs")
    for column in ("env", "category", "tasks", "max rounds", "health"):
        table.add_column(column, overflow="fold", no_wrap=column == "env")
    ok = True
    for plan in plans:
        health = env_health(plan.env_id, plan.kwargs, plan.category)
        ok &= health.ok
        table.add_row(
            plan.short,
            plan.category,
            str(len(plan.items)),
            str(plan.max_rounds),
            health.line(),
        )
    _console().print(table)
    return EXIT_OK if ok else EXIT_PREFLIGHT


def _print_checks(checks: list[Any]) -> None:
    from rich.table import Table

    table = Table(title="pre-flight")
    for column in ("check", "name", "result"):
        table.add_column(column, overflow="fold")
    for c in checks:
        mark = "ok" if c.ok else ("FAIL" if c.fatal else "warn")
        table.add_row(c.area, c.name, f"{mark}: {c.detail}")
    _console().print(table)


def _print_result(result: FieldResult, undelivered: dict[str, int]) -> None:
    from rich.table import Table

    title = f"field run {result.run_id} -- {result.model}" + (
        f" via {result.endpoint}" if result.endpoint else ""
    )
    table = Table(title=title)
    from agentgym_envs.benchmarks.cli import print_outcomes

    for column in ("env", "category", "done", "reward", "success", "rounds", "errors"):
        table.add_column(
            column, justify="left" if column in ("env", "category") else "right", no_wrap=True
        )
    for s in result.summaries:
        table.add_row(
            s.env_id.split("/", 1)[-1],
            s.category,
            f"{s.episodes}/{s.planned}",
            f"{s.mean_reward:.3f}",
            f"{s.success_rate:.1%}",
            f"{s.mean_rounds:.1f}",
            str(s.errors),
        )
    console = _console()
    console.print(table)
    print_outcomes([(s.env_id.split("/", 1)[-1], s.outcomes) for s in result.summaries], console)
    console.print(
        f"{result.status}: {result.ran} episode(s) played, {result.skipped} resumed; "
        f"results in {result.out}",
        markup=False,
    )
    for sink, left in undelivered.items():
        if left:
            console.print(
                f"sink {sink}: {left} event(s) still buffered on disk; the next run delivers them",
                markup=False,
            )
    if result.message:
        console.print(result.message, markup=False)


def field_run(options: dict[str, Any]) -> int:
    """Run ``agentgym run``'s field mode with the command's options; return the exit code."""
    from agentgym_envs.runner.endpoints import EndpointsDownError, PolicyChain
    from agentgym_envs.runner.preflight import failed, preflight
    from agentgym_envs.runner.sinks import build_bus

    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        profile = _profile(options)
        plans = plan_field(profile, _names(options) or None)
    except AgentGymError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    out = Path(profile.output).expanduser()
    if options.get("list_envs"):
        return _print_envs(plans)
    dry = bool(options.get("dry_run"))
    checks = preflight(profile, plans, out, make_envs=dry, sinks=dry)
    if dry:
        _print_checks(checks)
        return EXIT_PREFLIGHT if failed(checks) else EXIT_OK
    if failed(checks):
        for c in failed(checks):
            sys.stderr.write(f"pre-flight: {c.area} {c.name}: {c.detail}\n")
        return EXIT_PREFLIGHT
    chain = PolicyChain(profile.model)
    try:
        chain.start()
    except EndpointsDownError as exc:
        sys.stderr.write(f"pre-flight: {exc}\n")
        chain.close()
        return EXIT_PREFLIGHT
    bus = build_bus(profile.sinks, out)
    config_name = str(options.get("config") or "command line")
    try:
        runner = FieldRunner(profile, plans, out, bus, chain, config_name=config_name)
        result = runner.run()
    except AgentGymError as exc:  # an output folder holding other settings
        sys.stderr.write(f"error: {exc}\n")
        bus.close(profile.flush_seconds)
        chain.close()
        return EXIT_USAGE
    undelivered = bus.close(profile.flush_seconds)
    chain.close()
    _print_result(result, undelivered)
    if runner.abandoned:  # worker threads still play their episodes: do not wait for them
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(result.exit_code)
    return result.exit_code


__all__ = ["FIELD_OPTIONS", "field_run", "wants_field_runner"]
