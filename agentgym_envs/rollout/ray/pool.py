"""A pool of env actors that plays jobs as they come and streams outcomes as they finish.

:meth:`ActorPool.stream` takes jobs lazily (at most one per actor in flight: memory stays flat
however many jobs there are) and yields one :class:`Outcome` per job, in the order they finish:

- an actor hosts one player (:mod:`~agentgym_envs.rollout.ray.actor`) of one *group* (an env id
  and its settings) and plays that group's jobs one after another; it is replaced after
  ``recycle_after`` episodes, after an episode that raised, or when its player reports itself
  unhealthy;
- an actor that dies mid-episode (its process or its node lost, or killed past
  ``episode_timeout``) has its job played again on another actor, up to ``max_retries`` times;
  then the job's outcome is ``lost`` (callers record it as ``outcome=env_error``,
  ``reward_valid=false``);
- every job yields exactly one outcome: a job is never dropped, and an outcome for a job that
  already has one is never yielded.
"""

from __future__ import annotations

import logging
import time
from collections import Counter, deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from agentgym_envs.rollout.ray.actor import EnvActor

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Job:
    """One episode to play: ``key`` names it (unique in a stream), ``group`` the kind of actor
    that plays it, ``payload`` what the actor's player gets."""

    key: Hashable
    group: Hashable
    payload: Any


@dataclass
class Outcome:
    """What became of a job: ``value`` (the player's result), or ``error`` (the player raised:
    a failed episode), or ``lost`` (every actor that tried it died; why the last one did)."""

    job: Job
    value: Any = None
    error: BaseException | None = None
    lost: str | None = None
    attempts: int = 1
    node: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.lost is None


@dataclass
class Group:
    """How to make one group's actors: the player factory (picklable), the actor options
    (:meth:`~agentgym_envs.rollout.ray.placement.Needs.options`), and the nodes to spread them
    over (``None``: wherever Ray's ``SPREAD`` strategy puts them)."""

    factory: Callable[[], Any]
    options: dict[str, Any] = field(default_factory=dict)
    nodes: list[str] | None = None


@dataclass
class PoolStats:
    """What a pool did: episodes played, retried after a lost actor, lost for good; actors
    started, lost and recycled; episodes per node id, and each node's IP (``ips``)."""

    episodes: int = 0
    retried: int = 0
    lost: int = 0
    actors_started: int = 0
    actors_lost: int = 0
    actors_recycled: int = 0
    per_node: Counter = field(default_factory=Counter)
    ips: dict[str, str] = field(default_factory=dict)

    def line(self) -> str:
        """One line, e.g. ``6 episodes on 2 nodes, 3 actors (1 recycled, 0 lost); 0 episodes
        retried, 0 lost; per node: 127.0.0.2 4, 127.0.0.3 2``."""
        named = sorted((self.ips.get(node, node[:8]), n) for node, n in self.per_node.items())
        where = ", ".join(f"{name} {n}" for name, n in named)
        return (
            f"{self.episodes} episodes on {len(self.per_node)} nodes, {self.actors_started} actors "
            f"({self.actors_recycled} recycled, {self.actors_lost} lost); {self.retried} episodes "
            f"retried, {self.lost} lost" + (f"; per node: {where}" if where else "")
        )


class _Actor:
    def __init__(self, handle: Any, group: Hashable, target: str | None) -> None:
        self.handle, self.group, self.target = handle, group, target
        self.node: str | None = None
        self.played = 0
        self.since = time.monotonic()
        self.job: Job | None = None


class PoolError(RuntimeError):
    """The pool cannot go on (no actor of a group could start); one line."""


class ActorPool:
    """Env actors over a Ray cluster (``ray`` initialised; see :func:`~.cluster.connect`).

    Args:
        groups: per group key, how to make its actors (:class:`Group`).
        num_actors: actors alive at once (all groups together); with ``per_node``, the most
            any group's nodes can take.
        per_node: actors per node of a group's ``nodes`` (each actor pinned, softly, to the
            node with the fewest; a lost node's share moves to the others).
        max_retries: replays of a job whose actor died, before its outcome is ``lost``.
        recycle_after: episodes an actor plays before it is replaced (``None``: never).
        episode_timeout: seconds an episode may take before its actor is killed (the job is
            then retried); ``None``: no limit.
        start_timeout: seconds an actor may take to start (be placed and make its env).
    """

    def __init__(
        self,
        groups: Mapping[Hashable, Group],
        *,
        num_actors: int = 2,
        per_node: int | None = None,
        max_retries: int = 2,
        recycle_after: int | None = None,
        episode_timeout: float | None = None,
        start_timeout: float = 300.0,
    ) -> None:
        import ray

        if num_actors < 1 and per_node is None:
            raise ValueError(f"num_actors={num_actors}: use 1 or more")
        self._ray = ray
        self.groups = dict(groups)
        self.per_node = per_node
        if per_node is not None:
            num_actors = per_node * max(len(g.nodes or [None]) for g in self.groups.values())
        self.num_actors = num_actors
        self.max_retries = max_retries
        self.recycle_after = recycle_after
        self.episode_timeout = episode_timeout
        self.start_timeout = start_timeout
        self.stats = PoolStats()
        self._remote = ray.remote(EnvActor)
        self._actors: list[_Actor] = []
        self._idle: list[_Actor] = []
        self._flight: dict[Any, tuple[_Actor, str]] = {}
        self._queue: deque[Job] = deque()
        self._attempts: dict[Hashable, int] = {}
        self._done: set[Hashable] = set()
        self._start_failures: Counter = Counter()
        self._stopping = False

    # -- actors -------------------------------------------------------------------------------
    def _target(self, group: Group) -> tuple[str | None, dict[str, Any]]:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        if self.per_node is None or not group.nodes:
            return None, {"scheduling_strategy": "SPREAD"}
        load = Counter({n: 0 for n in group.nodes})
        load.update(a.target for a in self._actors if a.target in load)
        node = min(group.nodes, key=lambda n: load[n])
        return node, {"scheduling_strategy": NodeAffinitySchedulingStrategy(node, soft=True)}

    def _start(self, key: Hashable) -> None:
        group = self.groups[key]
        target, placement = self._target(group)
        options = {"max_restarts": 0, "max_task_retries": 0, **group.options, **placement}
        handle = self._remote.options(**options).remote(group.factory)
        actor = _Actor(handle, key, target)
        self._actors.append(actor)
        self._flight[handle.ready.remote()] = (actor, "ready")
        self.stats.actors_started += 1

    def _drop(self, actor: _Actor, *, graceful: bool = False) -> None:
        if actor in self._actors:
            self._actors.remove(actor)
        if actor in self._idle:
            self._idle.remove(actor)
        for ref, (a, _) in list(self._flight.items()):
            if a is actor:
                del self._flight[ref]
        try:
            if graceful:  # close its env, then end once that is done (no waiting here)
                actor.handle.close.remote()
                actor.handle.__ray_terminate__.remote()
            else:
                self._ray.kill(actor.handle, no_restart=True)
        except Exception:
            logger.debug("ending an actor failed", exc_info=True)

    # -- jobs ---------------------------------------------------------------------------------
    def _peek(self, jobs: Iterator[Job]) -> Job | None:
        if not self._queue and not self._stopping:
            job = next(jobs, None)
            if job is not None:
                self._queue.append(job)
        return self._queue[0] if self._queue else None

    def _fill(self, jobs: Iterator[Job]) -> None:
        """Hand queued jobs to idle actors; start actors while there is room and work."""
        while (job := self._peek(jobs)) is not None:
            actor = next((a for a in self._idle if a.group == job.group), None)
            if actor is not None:
                self._idle.remove(actor)
                self._queue.popleft()
                actor.job, actor.since = job, time.monotonic()
                self._flight[actor.handle.play.remote(job.payload)] = (actor, "play")
                continue
            if sum(a.group == job.group for a in self._actors) >= self._group_cap(job.group):
                return
            if len(self._actors) >= self.num_actors:
                other = next((a for a in self._idle if a.group != job.group), None)
                if other is None:
                    return
                self._drop(other, graceful=True)
            self._start(job.group)

    def _group_cap(self, key: Hashable) -> int:
        nodes = self.groups[key].nodes
        return (
            self.per_node * len(nodes) if self.per_node is not None and nodes else self.num_actors
        )

    def stop(self) -> None:
        """Start no new job; the stream ends when the episodes in flight have."""
        self._stopping = True

    def submit_again(self, job: Job) -> None:
        """Play ``job`` once more (its outcome was yielded; e.g. a model endpoint failed and the
        caller switched to the next): it goes first in the queue."""
        self._done.discard(job.key)
        self._queue.appendleft(job)

    def stream(self, jobs: Iterable[Job]) -> Iterator[Outcome]:
        """Play ``jobs``; yield each one's :class:`Outcome` as it finishes."""
        it = iter(jobs)
        try:
            while True:
                self._fill(it)
                playing = any(kind == "play" for _, kind in self._flight.values())
                if not playing and self._peek(it) is None:
                    return  # actors still starting are not needed any more
                if not self._flight:
                    raise PoolError("no env actor can be started: see the log")
                ready, _ = self._ray.wait(list(self._flight), num_returns=1, timeout=1.0)
                for ref in ready:
                    if ref in self._flight:
                        yield from self._settle(ref)
                yield from self._check_timeouts()
        finally:
            self.close()

    def _settle(self, ref: Any) -> Iterator[Outcome]:
        ray = self._ray
        actor, kind = self._flight.pop(ref)
        if kind == "ready":
            try:
                where = ray.get(ref)
            except Exception as exc:
                self._start_failed(actor, exc)
                return
            actor.node, actor.since = where["node_id"], time.monotonic()
            if where.get("ip"):
                self.stats.ips[actor.node] = where["ip"]
            self._start_failures[actor.group] = 0
            self._idle.append(actor)
            return
        job = actor.job
        assert job is not None
        actor.job = None
        try:
            value, healthy = ray.get(ref)
        except _lost_errors() as exc:
            yield from self._actor_lost(actor, job, _reason(exc))
            return
        except Exception as exc:
            self._drop(actor)  # its env may be in a bad state
            self.stats.actors_recycled += 1
            yield from self._emit(Outcome(job, error=_cause(exc), node=actor.node))
            return
        actor.played += 1
        if not healthy or (self.recycle_after is not None and actor.played >= self.recycle_after):
            self._drop(actor, graceful=True)
            self.stats.actors_recycled += 1
        else:
            self._idle.append(actor)
        yield from self._emit(Outcome(job, value=value, node=actor.node))

    def _emit(self, outcome: Outcome) -> Iterator[Outcome]:
        key = outcome.job.key
        if key in self._done:
            logger.warning("a second outcome for %r was dropped", key)
            return
        self._done.add(key)
        outcome.attempts = self._attempts.pop(key, 0) + 1
        self.stats.episodes += 1
        if outcome.node is not None:
            self.stats.per_node[outcome.node] += 1
        if outcome.lost is not None:
            self.stats.lost += 1
        yield outcome

    def _actor_lost(self, actor: _Actor, job: Job, reason: str) -> Iterator[Outcome]:
        logger.warning("env actor on node %s lost (%s): replaying %r", actor.node, reason, job.key)
        self._drop(actor)
        self.stats.actors_lost += 1
        tries = self._attempts.get(job.key, 0) + 1
        if tries > self.max_retries:
            self._attempts[job.key] = tries - 1
            yield from self._emit(Outcome(job, lost=reason, node=actor.node))
            return
        self._attempts[job.key] = tries
        self.stats.retried += 1
        self._queue.appendleft(job)

    def _start_failed(self, actor: _Actor, exc: BaseException) -> None:
        self._drop(actor)
        self._start_failures[actor.group] += 1
        alive = any(a.group == actor.group for a in self._actors)
        logger.warning("an env actor of %r failed to start: %s", actor.group, _reason(exc))
        if self._start_failures[actor.group] >= 3 and not alive:
            raise PoolError(f"env actors of {actor.group} fail to start: {_reason(exc)}")

    def _check_timeouts(self) -> Iterator[Outcome]:
        now = time.monotonic()
        for ref, (actor, kind) in list(self._flight.items()):
            if ref not in self._flight:
                continue
            if kind == "ready" and now - actor.since > self.start_timeout:
                self._drop(actor)
                alive = any(a.group == actor.group for a in self._actors)
                if not alive:
                    raise PoolError(
                        f"no env actor of {actor.group} started within {self.start_timeout:.0f} s: "
                        "the cluster has no room for it (see `ray status`)"
                    )
            elif kind == "play" and _overdue(now - actor.since, self.episode_timeout):
                job = actor.job
                actor.job = None
                assert job is not None
                reason = f"episode over {self.episode_timeout:.0f} s"
                yield from self._actor_lost(actor, job, reason)

    def close(self, wait: float = 30.0) -> None:
        """End every actor of the pool: idle ones close their envs first (a JVM, a browser:
        waited for up to ``wait`` seconds), busy ones are killed."""
        closing = []
        for actor in list(self._idle):
            try:
                closing.append(actor.handle.close.remote())
            except Exception:
                logger.debug("closing an actor failed", exc_info=True)
        if closing:
            self._ray.wait(closing, num_returns=len(closing), timeout=wait)
        for actor in list(self._actors):
            self._drop(actor)
        self._flight.clear()


def _overdue(seconds: float, limit: float | None) -> bool:
    return limit is not None and seconds > limit


def _lost_errors() -> tuple[type[BaseException], ...]:
    """Ray's errors that mean the actor (its process, its node) is gone, not that it raised."""
    from ray import exceptions as rex

    names = (
        "RayActorError",
        "ActorDiedError",
        "ActorUnavailableError",
        "WorkerCrashedError",
        "NodeDiedError",
        "ObjectLostError",
        "OwnerDiedError",
        "LocalRayletDiedError",
    )
    return tuple(getattr(rex, n) for n in names if hasattr(rex, n))


def _cause(exc: BaseException) -> BaseException:
    """The player's own exception inside Ray's wrapper."""
    cause = getattr(exc, "cause", None)
    return cause if isinstance(cause, BaseException) else exc


def _reason(exc: BaseException) -> str:
    text = " ".join(str(_cause(exc)).split())
    return f"{type(exc).__name__}: {text[:200]}"


__all__ = ["ActorPool", "Group", "Job", "Outcome", "PoolError", "PoolStats"]
