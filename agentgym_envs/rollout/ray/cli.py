"""``agentgym ray up | down | status``: a local Ray cluster kept between commands.

``up`` starts a head and ``--workers`` worker nodes on this machine (see
:mod:`~agentgym_envs.rollout.ray.local_cluster`: it starts on a busy machine, where ``ray start
--head`` gives up) and prints ``export RAY_ADDRESS=...`` on stdout, so ``eval "$(agentgym ray
up)"`` points the following ``agentgym bench --ray`` / ``backend: ray`` runs at it. ``down``
ends the cluster in ``$RAY_ADDRESS`` (or ``--address``, or ``--all``) and every process it
started.
"""

from __future__ import annotations

import json
import os
import sys

import typer

from agentgym_envs.errors import AgentGymError, require

ray_app = typer.Typer(
    help="A local Ray cluster kept between commands (up / down / status).",
    no_args_is_help=True,
)


def _resources(text: str | None) -> dict[str, float] | None:
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, int | float) for k, v in value.items()
    ):
        raise AgentGymError(
            f"--resources {text!r}: give a JSON object of numbers, e.g. '{{\"java\": 2}}'"
        )
    return {k: float(v) for k, v in value.items()}


@ray_app.command("up")
def up_command(
    workers: int = typer.Option(
        0, "--workers", min=0, max=32, help="Worker nodes (0: the head runs the actors)."
    ),
    cpus: int = typer.Option(
        None, "--cpus", min=0, help="CPUs of each worker node (default: this machine's)."
    ),
    head_cpus: int = typer.Option(
        None,
        "--head-cpus",
        min=0,
        help="CPUs of the head (default: this machine's without workers, else 0).",
    ),
    resources: str = typer.Option(
        None,
        "--resources",
        help="Custom resources of the actor nodes as JSON, e.g. '{\"java\": 2}'.",
    ),
) -> None:
    """Start a local cluster and print `export RAY_ADDRESS=...` (use: eval "$(agentgym ray up)")."""
    require("ray", "ray")
    from agentgym_envs.rollout.ray.cluster import _local_resources
    from agentgym_envs.rollout.ray.local_cluster import NodeExited, up

    extra = _resources(resources)
    try:
        cluster = up(
            workers=workers,
            cpus=cpus,
            head_cpus=head_cpus,
            resources=extra if extra is not None else _local_resources(),
        )
    except (NodeExited, TimeoutError) as exc:
        raise AgentGymError(f"{exc} -- nothing was left running") from None
    nodes = len(cluster.nodes)
    sys.stderr.write(
        f"ray cluster up at {cluster.address}: {nodes} node(s), logs in {cluster.tmp}; "
        "end it with `agentgym ray down`\n"
    )
    sys.stdout.write(f"export RAY_ADDRESS={cluster.address}\n")


@ray_app.command("down")
def down_command(
    address: str = typer.Option(
        None, "--address", help="The cluster to end (default: $RAY_ADDRESS)."
    ),
    everything: bool = typer.Option(
        False, "--all", help="End every cluster `agentgym ray up` started."
    ),
) -> None:
    """End a cluster `agentgym ray up` started, and every process it started."""
    require("psutil", "ray")
    from agentgym_envs.rollout.ray.local_cluster import down

    target = None if everything else (address or os.environ.get("RAY_ADDRESS"))
    if target is None and not everything:
        raise AgentGymError("which cluster? set $RAY_ADDRESS, or give --address ADDRESS (or --all)")
    try:
        ended = down(target)
    except LookupError as exc:
        raise AgentGymError(str(exc)) from None
    for address_ended in ended:
        sys.stderr.write(f"ray cluster at {address_ended} ended\n")
    if not ended:
        sys.stderr.write("no cluster started by `agentgym ray up` is running\n")


@ray_app.command("status")
def status_command() -> None:
    """The clusters `agentgym ray up` started that still run."""
    require("psutil", "ray")
    from agentgym_envs.rollout.ray.local_cluster import recorded

    clusters = recorded()
    for state in clusters:
        names = ", ".join(n["name"] for n in state["nodes"])
        sys.stdout.write(f"{state['address']}  nodes: {names}  logs: {state['tmp']}\n")
    if not clusters:
        sys.stderr.write("no cluster started by `agentgym ray up` is running\n")


def register_cli(app: typer.Typer) -> None:
    """Add ``ray`` to the main ``agentgym`` app."""
    app.add_typer(ray_app, name="ray")


__all__ = ["ray_app", "register_cli"]
