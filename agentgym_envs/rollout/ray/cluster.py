"""Joining a Ray cluster, and the pre-flight check of its nodes before any episode runs.

:func:`connect` joins the cluster at an address (``host:port`` of the head's GCS, or a
``ray://host:10001`` client address), the one in ``$RAY_ADDRESS``, or starts a local one that
declares the programs this machine has (see :mod:`~agentgym_envs.rollout.ray.placement`). An
address nobody answers at, or a cluster running another Ray or Python version, is one
:class:`ClusterError` line.

:func:`preflight` asks every alive node that could host an env's actors what it has (Ray,
Python and agentgym-envs versions, the family's extra, its programs) and refuses, in one line
naming the node and the mend, a node that cannot play the env.
"""

from __future__ import annotations

import logging
import os
import platform
import socket
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from agentgym_envs.errors import AgentGymError, require
from agentgym_envs.rollout.ray.placement import PROGRAM_RESOURCES, Needs, declared_resources

logger = logging.getLogger(__name__)

#: Seconds a node has to answer the pre-flight probe (a loaded node imports slowly).
PROBE_TIMEOUT = 180.0
#: Seconds to wait for a TCP answer at the cluster's address.
CONNECT_TIMEOUT = 10.0


class ClusterError(AgentGymError, RuntimeError):
    """The cluster cannot run what was asked (unreachable, other versions, a node lacking an
    extra or a program); the message is one line that says the mend."""


def _check_reachable(address: str) -> None:
    """One line if nothing answers TCP at ``address`` (``host:port`` or ``ray://host:port``)."""
    url = urlsplit(address if "://" in address else f"tcp://{address}")
    host, port = url.hostname, url.port or (10001 if url.scheme == "ray" else 6379)
    if not host:
        raise ClusterError(f"Ray address {address!r}: use host:port or ray://host:port")
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT):
            return
    except OSError as exc:
        raise ClusterError(
            f"no Ray cluster answers at {address} ({exc.strerror or exc}): start one with "
            f"`agentgym ray up` (on this machine) or `ray start --head --port {port}` there, "
            "or check the address"
        ) from None


def _local_resources() -> dict[str, float]:
    """The program resources of this machine, for a local cluster (one unit per CPU)."""
    from agentgym_envs.rollout.ray.probe import find_program

    cpus = float(os.cpu_count() or 1)
    return {p: cpus for p in PROGRAM_RESOURCES if find_program(p)}


def connect(address: str | None = None, **init_kwargs: Any) -> Any:
    """Join the Ray cluster at ``address`` (returns the ``ray`` module).

    ``None``: the cluster in ``$RAY_ADDRESS``, else a new local one that ends with this process
    (:func:`~agentgym_envs.rollout.ray.local_cluster.for_this_process`, declaring ``java`` /
    ``chromium`` when this machine has them). ``"auto"``: the cluster running on this machine.
    Already connected: nothing changes. ``init_kwargs`` go to ``ray.init`` (a local cluster's
    ``num_cpus``, for one).
    """
    ray = require("ray", "ray")
    if ray.is_initialized():
        return ray
    address = address or os.environ.get("RAY_ADDRESS") or None
    kwargs: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": False,
        "logging_level": logging.WARNING,
        **init_kwargs,
    }
    if address is None:
        # ray.init's own local cluster gives up on a busy machine (see .local_cluster)
        from agentgym_envs.rollout.ray.local_cluster import for_this_process

        try:
            cluster = for_this_process(
                head_cpus=kwargs.pop("num_cpus", None),
                resources=kwargs.pop("resources", None) or _local_resources(),
            )
        except (RuntimeError, TimeoutError) as exc:
            raise ClusterError(
                f"Ray could not start a local cluster here ({exc}): start one with "
                "`agentgym ray up` and pass its address (--ray ADDRESS or $RAY_ADDRESS)"
            ) from None
        kwargs["address"] = cluster.address
    else:
        if address != "auto":
            _check_reachable(address)
        kwargs["address"] = address
        kwargs.pop("include_dashboard", None) if address.startswith("ray://") else None
    try:
        ray.init(**kwargs)
    except Exception as exc:
        raise ClusterError(_init_error(address, exc)) from None
    return ray


def _init_error(address: str | None, exc: Exception) -> str:
    """Ray's (often many-line) refusal to connect, as one line with the mend."""
    text = " ".join(str(exc).split())
    where = address or "a local cluster"
    if "version mismatch" in text.lower():
        return (
            f"the Ray cluster at {where} runs another Ray or Python version than this driver "
            f"(ray {_ray_version()}, Python {platform.python_version()}): {text[:300]} -- install "
            "the cluster's versions here (or restart the cluster with this driver's)"
        )
    return f"cannot join the Ray cluster at {where}: {type(exc).__name__}: {text[:300]}"


def _ray_version() -> str:
    import ray

    return str(ray.__version__)


@dataclass(frozen=True)
class NodeReport:
    """What one node answered to the pre-flight probe."""

    node_id: str
    address: str
    versions: dict[str, str]
    problems: dict[str, list[str]]

    def label(self) -> str:
        return f"node {self.address} ({self.node_id[:8]})"


def _still_alive(ray: Any, node_id: str) -> bool:
    return any(n["NodeID"] == node_id for n in alive_nodes(ray))


def alive_nodes(ray: Any) -> list[dict[str, Any]]:
    return [n for n in ray.nodes() if n.get("Alive")]


def probe_nodes(ray: Any, nodes: list[dict[str, Any]], env_ids: list[str]) -> list[NodeReport]:
    """Run the probe on each of ``nodes`` (pinned to it, no CPU asked), all at once."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    from agentgym_envs.rollout.ray.probe import node_report

    remote = ray.remote(num_cpus=0, max_retries=0)(node_report)
    refs = {
        remote.options(
            scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False)
        ).remote(env_ids): n
        for n in nodes
    }
    ready, late = ray.wait(list(refs), num_returns=len(refs), timeout=PROBE_TIMEOUT)
    if late:
        node = refs[late[0]]
        raise ClusterError(
            f"node {node['NodeManagerAddress']} did not answer the pre-flight probe within "
            f"{PROBE_TIMEOUT:.0f} s: check it with `ray status`"
        )
    reports = []
    for ref in ready:
        node = refs[ref]
        try:
            answer = ray.get(ref)
        except Exception as exc:
            if not _still_alive(ray, node["NodeID"]):
                logger.warning(
                    "node %s died during the pre-flight check", node["NodeManagerAddress"]
                )
                continue
            first = " ".join(str(exc).split())[:300]
            raise ClusterError(
                f"node {node['NodeManagerAddress']} cannot run agentgym-envs: {first} -- "
                'pip install "agentgym-envs[ray]" (same version as here) on every node'
            ) from None
        reports.append(
            NodeReport(
                node["NodeID"], node["NodeManagerAddress"], answer["versions"], answer["problems"]
            )
        )
    return reports


def preflight(ray: Any, all_needs: Iterable[Needs]) -> set[str]:
    """Check, before any episode, that the cluster can host every env's actors.

    Every alive node that fits an env's actor (see :meth:`Needs.fits`) must run this driver's
    agentgym-envs, have the env's extra and programs; at least one node must fit. Returns the
    program resources the cluster declares (what :meth:`Needs.options` takes). Raises
    :class:`ClusterError` otherwise.
    """
    from agentgym_envs import __version__

    all_needs = list(all_needs)
    nodes = alive_nodes(ray)
    declared = declared_resources(nodes)
    hosts: dict[str, list[dict[str, Any]]] = {}
    for need in all_needs:
        hosts[need.env_id] = [n for n in nodes if need.fits(n, declared)]
        if not hosts[need.env_id]:
            raise ClusterError(_no_room(need, declared, nodes))
    probed = {n["NodeID"]: n for ns in hosts.values() for n in ns}
    t0 = time.perf_counter()
    reports = {r.node_id: r for r in probe_nodes(ray, list(probed.values()), list(hosts))}
    logger.info("pre-flight: %d nodes probed in %.1f s", len(reports), time.perf_counter() - t0)
    for report in reports.values():
        theirs = report.versions.get("agentgym_envs")
        if theirs != __version__:
            raise ClusterError(
                f"{report.label()} runs agentgym-envs {theirs}, this driver {__version__}: "
                "install the same version on every node"
            )
    for env_id, nodes_for in hosts.items():
        nodes_for[:] = [n for n in nodes_for if n["NodeID"] in reports]  # lost while probed
        if not nodes_for:
            raise ClusterError(
                _no_room(
                    next(n for n in all_needs if n.env_id == env_id), declared, alive_nodes(ray)
                )
            )
        for node in nodes_for:
            problems = reports[node["NodeID"]].problems.get(env_id) or []
            if problems:
                raise ClusterError(
                    f"{env_id} cannot run on {reports[node['NodeID']].label()}: {problems[0]} "
                    "(install it on every node that can host it, or declare a custom resource "
                    "on the nodes that have it: see docs/guides/scale-out.md)"
                )
    return declared


def _no_room(need: Needs, declared: set[str], nodes: list[dict[str, Any]]) -> str:
    have = "; ".join(
        f"{n['NodeManagerAddress']}: "
        + ", ".join(
            f"{k} {v:g}" for k, v in sorted(n.get("Resources", {}).items()) if "node:" not in k
        )
        for n in nodes
    )
    return (
        f"no alive node can host an actor of {need.env_id} (one asks for "
        f"{need.describe(declared)}; nodes have {have or 'nothing'}): add a node with room, or ask "
        "for less (num_cpus)"
    )


__all__ = ["ClusterError", "NodeReport", "alive_nodes", "connect", "preflight", "probe_nodes"]
