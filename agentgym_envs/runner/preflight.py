"""Pre-flight: everything a field run needs, checked without playing an episode.

:func:`preflight` reaches each model endpoint (``GET /models``; an agent server's
``GET /health``), checks each env's extra,
system programs (Java, Chromium) and data paths, makes one env of each id and resets it, and
tries each event sink. A failed endpoint (when none answers), env or output check is fatal
(exit code 3); a sink that is down is only a warning -- the run buffers its events.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentgym_envs.runner.catalog import env_health
from agentgym_envs.runner.field import EnvPlan
from agentgym_envs.runner.profile import Endpoint, Profile

logger = logging.getLogger(__name__)


@dataclass
class Check:
    """One pre-flight result; ``fatal`` checks that fail stop the run."""

    area: str
    name: str
    ok: bool
    detail: str
    fatal: bool = True


def _endpoint_checks(profile: Profile, endpoints: list[Endpoint]) -> list[Check]:
    from agentgym_envs.runner.endpoints import endpoint_health

    policy = profile.model.policy
    if policy in ("expert", "random"):
        return [Check("model", policy, True, "scripted policy: no endpoint needed")]
    if policy == "local":
        endpoints = [Endpoint(name="local", local=True)]
    checks = []
    for endpoint in endpoints:
        health = endpoint_health(endpoint)
        checks.append(Check("endpoint", endpoint.label, health.ok, health.detail, fatal=False))
    if not any(c.ok for c in checks):
        why = "; ".join(f"{c.name}: {c.detail}" for c in checks)
        checks.append(Check("endpoint", "fallback", False, f"no endpoint answers ({why})"))
    return checks


def _make_env(plan: EnvPlan, profile: Profile) -> Check:
    import gymnasium as gym

    try:
        env = gym.make(plan.env_id, **plan.kwargs)
        try:
            options: dict[str, Any] = {"split": plan.split}
            if plan.items:
                options["task_id"] = plan.items[0].task_id
            env.reset(seed=profile.seed, options=options)
        finally:
            env.close()
    except Exception as exc:
        return Check("env", plan.env_id, False, f"cannot make it: {type(exc).__name__}: {exc}")
    return Check("env", plan.env_id, True, f"made and reset ({len(plan.items)} tasks)")


def _sink_check(cfg: Any, output: Path) -> Check:
    name = cfg.name or cfg.type
    try:
        if cfg.type == "jsonl":
            path = Path(cfg.path).expanduser()
            path = path if path.is_absolute() else output / path
            folder = path.parent
            while not folder.exists():
                folder = folder.parent
            if not os.access(folder, os.W_OK):
                raise PermissionError(f"{folder} is not writable")
            return Check("sink", name, True, f"writes {path}", fatal=False)
        if cfg.type == "nats":
            from agentgym_envs.runner.sinks import NatsSink

            sink = NatsSink(
                cfg.servers,
                jetstream=cfg.jetstream,
                stream=cfg.stream,
                subject_prefix=cfg.subject_prefix,
                connect_timeout=cfg.connect_timeout,
            )
            try:
                sink.check()
            finally:
                sink.close()
            js = f", JetStream stream {cfg.stream}" if cfg.jetstream else ""
            return Check(
                "sink", name, True, f"connected to {', '.join(cfg.servers)}{js}", fatal=False
            )
        import httpx

        httpx.request("OPTIONS", cfg.url, timeout=cfg.timeout)
        return Check("sink", name, True, f"{cfg.url} answers", fatal=False)
    except Exception as exc:
        detail = f"down ({type(exc).__name__}: {exc}): events will be buffered and retried"
        return Check("sink", name, False, detail, fatal=False)


def output_problem(output: Path) -> str | None:
    """Why ``output`` cannot be the run's folder (``None``: it can): tried for real -- a file
    made in it, or in the nearest folder above it that exists -- not guessed from permission
    bits, which say yes to root on a read-only file system."""
    import tempfile

    folder = output
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        return f"{folder} is a file, not a folder: choose another output"
    try:
        with tempfile.TemporaryFile(dir=folder, prefix=".agentgym-probe-"):
            pass
    except OSError as exc:
        return f"{folder} is not writable ({exc.strerror or exc})"
    return None


def preflight(
    profile: Profile,
    plans: list[EnvPlan],
    output: Path,
    *,
    endpoints: list[Endpoint] | None = None,
    make_envs: bool = True,
    sinks: bool = True,
) -> list[Check]:
    """Every check, in order: model endpoints, envs (health, then one made), output, sinks."""
    checks = _endpoint_checks(profile, profile.model.endpoints if endpoints is None else endpoints)
    for plan in plans:
        health = env_health(plan.env_id, plan.kwargs, plan.category)
        checks.append(Check("env", plan.env_id, health.ok, f"{plan.category}: {health.line()}"))
        if health.ok and make_envs:
            checks.append(_make_env(plan, profile))
    problem = output_problem(output)
    checks.append(Check("output", str(output), problem is None, problem or "writable"))
    if sinks:
        checks += [_sink_check(cfg, output) for cfg in profile.sinks]
    return checks


def failed(checks: list[Check]) -> list[Check]:
    """The fatal checks that failed."""
    return [c for c in checks if c.fatal and not c.ok]


__all__ = ["Check", "failed", "preflight"]
