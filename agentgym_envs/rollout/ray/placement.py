"""Where an env actor may run: a family's needs as Ray actor options.

A family's record says which programs its envs need (``system_needs``: a JVM for SciWorld,
Chromium for WebArena) and what one env holds in memory (``memory_mb``). On a cluster those
become the env actor's options:

- each required program is a Ray custom resource of the same name (``java``, ``chromium``),
  one unit per actor, *when some node of the cluster declares it* (``ray start --resources
  '{"java": 4}'``): the actors then land only on those nodes, at most as many per node as it
  declares. On a cluster where no node declares it, every node is taken to have the program,
  and the pre-flight check (:mod:`~agentgym_envs.rollout.ray.cluster`) proves it;
- ``memory_mb`` is reserved with Ray's ``memory`` option, so a node takes no more heavy envs
  than fit;
- ``num_cpus`` (default 1 per actor: an episode's env and scripted policy keep a core busy)
  counts actors against the node's CPUs. Policies that mostly wait on a model endpoint can
  share a core: pass ``num_cpus=0.25``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agentgym_envs.spec import env_info

#: Programs that become Ray custom resources when a family needs them.
PROGRAM_RESOURCES = ("java", "chromium")


@dataclass(frozen=True)
class Needs:
    """What one env actor of ``env_id`` needs from the node it runs on."""

    env_id: str
    programs: tuple[str, ...] = ()
    memory_mb: int = 0
    num_cpus: float = 1.0
    extra_resources: dict[str, float] = field(default_factory=dict)

    def resources(self, declared: Iterable[str]) -> dict[str, float]:
        """The custom resources an actor asks for, given the resource names some node declares."""
        names = set(declared)
        out = {p: 1.0 for p in self.programs if p in names}
        out.update(self.extra_resources)
        return out

    def options(self, declared: Iterable[str]) -> dict[str, Any]:
        """``ray.remote(...).options(**...)`` for one env actor."""
        opts: dict[str, Any] = {"num_cpus": self.num_cpus, "max_restarts": 0}
        resources = self.resources(declared)
        if resources:
            opts["resources"] = resources
        if self.memory_mb:
            opts["memory"] = self.memory_mb * 2**20
        return opts

    def fits(self, node: Mapping[str, Any], declared: Iterable[str]) -> bool:
        """Whether a node (``ray.nodes()`` entry) offers what one actor asks for."""
        total = node.get("Resources", {})
        asked = {"CPU": self.num_cpus, **self.resources(declared)}
        if self.memory_mb:
            asked["memory"] = self.memory_mb * 2**20
        return all(total.get(k, 0.0) >= v for k, v in asked.items() if v > 0)

    def describe(self, declared: Iterable[str]) -> str:
        parts = [f"{self.num_cpus:g} CPU"]
        parts += [f"{k}: {v:g}" for k, v in self.resources(declared).items()]
        if self.memory_mb:
            parts.append(f"{self.memory_mb} MB memory")
        return ", ".join(parts)


def needs(
    env_id: str,
    *,
    num_cpus: float = 1.0,
    resources: Mapping[str, float] | None = None,
) -> Needs:
    """The :class:`Needs` of one env actor of ``env_id`` (its family's record), plus the
    caller's ``resources`` (e.g. ``{"gpu_node": 1}`` to pin actors to labelled nodes)."""
    record = env_info(env_id).record
    programs = tuple(p for p, required in record.system_needs if required)
    return Needs(env_id, programs, record.memory_mb, num_cpus, dict(resources or {}))


def declared_resources(nodes: Iterable[Mapping[str, Any]]) -> set[str]:
    """The custom resource names (of :data:`PROGRAM_RESOURCES`) some alive node declares."""
    names: set[str] = set()
    for node in nodes:
        names |= {k for k in node.get("Resources", {}) if k in PROGRAM_RESOURCES}
    return names


__all__ = ["PROGRAM_RESOURCES", "Needs", "declared_resources", "needs"]
