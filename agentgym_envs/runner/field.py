"""Field runs: a profile's envs x tasks x repeats, played concurrently, resumable, with events.

:func:`plan_field` turns a profile (and the names given on the command line) into per-env
plans; :class:`FieldRunner` plays them (or has an agent server play them, one ``POST /run``
per episode, for an ``agent_server`` endpoint). Each finished episode is one JSON line in
``<output>/results.jsonl`` (the benchmark's record, plus ``episode_id``, ``outcome``,
``model``, ``endpoint``, ``repeat``), written as it finishes; a second run with the same output
folder skips what is there (episodes that ended in an error are played again). After each
episode an ``agentgym.episode.completed.v1`` event goes to the sinks; after the last episode of
an env, ``agentgym.eval.batch.completed.v1``; at start and stop ``agentgym.field.status.v1``.
Ctrl-C stops scheduling, lets the episodes in flight finish (a second Ctrl-C abandons them)
and keeps everything finished.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import statistics
import threading
import uuid
from collections import defaultdict
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentgym_envs.benchmarks.report import count_outcomes, outcome_of
from agentgym_envs.errors import AgentGymError
from agentgym_envs.locks import LockHeld, hold_lock
from agentgym_envs.runner.catalog import Category, family_category
from agentgym_envs.runner.endpoints import EndpointsDownError, PolicyChain
from agentgym_envs.runner.events import (
    BATCH_COMPLETED,
    EPISODE_COMPLETED,
    FIELD_STATUS,
    make_event,
)
from agentgym_envs.runner.profile import EnvConfig, Profile
from agentgym_envs.runner.sinks import EventBus
from agentgym_envs.spec import ENV_INFO

logger = logging.getLogger(__name__)

#: Exit codes of ``agentgym run`` in field mode (and of :meth:`FieldRunner.run`).
EXIT_OK = 0
EXIT_EPISODE_ERRORS = 1  # the run finished, some episodes ended in an error
EXIT_USAGE = 2  # bad profile, option or env name
EXIT_PREFLIGHT = 3  # a pre-flight check failed (endpoint down, extra or program missing)
EXIT_ENDPOINT = 4  # every model endpoint went down mid-run (finished episodes kept)
EXIT_INTERRUPTED = 130  # Ctrl-C (finished episodes kept)

RESULTS_FILE = "results.jsonl"
RUN_FILE = "run.json"
SUMMARY_FILE = "summary.json"
#: Held (an OS lock) by the run writing to the folder.
LOCK_FILE = ".lock"
#: Settings that must match to resume an output folder.
_RESUME_KEYS = ("policy", "model", "format", "parser", "prompts", "split", "max_rounds", "seed")


@dataclass
class EnvPlan:
    """One env of a field run: its tasks and settings."""

    env_id: str
    category: Category
    split: str
    items: list[Any]
    max_rounds: int
    kwargs: dict[str, Any] = field(default_factory=dict)

    @property
    def short(self) -> str:
        return self.env_id.split("/", 1)[-1]


def _configs(profile: Profile) -> dict[str, EnvConfig]:
    from agentgym_envs.runner.catalog import expand

    configs: dict[str, EnvConfig] = {}
    for entry in profile.envs:
        if isinstance(entry, str):
            for env_id in expand([entry], profile.batteries):
                configs.setdefault(env_id, EnvConfig(id=env_id))
        else:
            env_id = expand([entry.id], profile.batteries)
            if len(env_id) != 1:
                raise AgentGymError(f"envs: {entry.id!r} names {len(env_id)} envs: give one id")
            configs[env_id[0]] = entry
    return configs


def plan_field(
    profile: Profile,
    names: list[str] | None = None,
    *,
    episodes: int | None = None,
    split: str | None = None,
) -> list[EnvPlan]:
    """The env plans for ``names`` (envs and batteries; default the profile's ``envs``).

    An env named here and configured in the profile takes the profile's settings for it.
    """
    from agentgym_envs.benchmarks import agenteval_items
    from agentgym_envs.runner.catalog import expand

    configs = _configs(profile)
    ids = expand(names, profile.batteries) if names else list(configs)
    if not ids:
        raise AgentGymError("no envs to run: name some with --run or in the profile's envs")
    plans: list[EnvPlan] = []
    for env_id in ids:
        cfg = configs.get(env_id) or EnvConfig(id=env_id)
        info = ENV_INFO[env_id]
        the_split = split or cfg.split or profile.split
        count = episodes or cfg.episodes or profile.episodes
        if profile.max_rounds == "family":
            rounds = cfg.max_rounds or info.max_rounds
        else:
            rounds = cfg.max_rounds or int(profile.max_rounds)
        items: list[Any] = []
        if info.installed:
            if cfg.task_ids is not None:
                every = agenteval_items(env_id, the_split)
                bad = [t for t in cfg.task_ids if t >= len(every)]
                if bad:
                    raise AgentGymError(
                        f"envs: {env_id} task_ids {bad} out of range (split {the_split} has {len(every)})"
                    )
                items = [every[t] for t in cfg.task_ids]
            else:
                items = agenteval_items(env_id, the_split, limit=count)
        plans.append(
            EnvPlan(
                env_id,
                cfg.category or family_category(info.family),
                the_split,
                items,
                rounds,
                dict(cfg.kwargs),
            )
        )
    return plans


def error_record(plan: Any, item: Any, repeat: int, error: str) -> dict[str, Any]:
    """The record of an episode that raised (``env_error``, its reward not valid)."""
    return {
        "env_id": plan.env_id,
        "item_id": item.item_id,
        "split": item.split,
        "task_id": item.task_id,
        "sample": repeat,
        "reward": 0.0,
        "success": False,
        "turns": 0,
        "truncation_reason": None,
        "wall_time": 0.0,
        "error": error,
        "reward_valid": False,
    }


# -- output folder -----------------------------------------------------------------------------
class FieldStore:
    """``results.jsonl`` and ``run.json`` of an output folder (see the module docstring)."""

    def __init__(self, out: Path, settings: dict[str, Any]) -> None:
        self.out = out
        self.settings = settings
        self.run_id = uuid.uuid4().hex[:12]
        self.done: dict[tuple[str, str, int], dict[str, Any]] = {}
        self.new: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._file: Any = None
        self._lock_file: Any = None

    def open(self) -> FieldStore:
        """Take the folder (see :meth:`_take`), read what is done, and open the results.

        Raises:
            AgentGymError: for a folder another run is writing to, or one with other settings.
        """
        self.out.mkdir(parents=True, exist_ok=True)
        self._take()
        try:
            return self._open()
        except BaseException:
            self.close()
            raise

    def _take(self) -> None:
        """Lock the folder for this run (an OS lock on ``.lock``: freed when the process
        ends, however it ends), so two runs never write one ``results.jsonl``."""
        try:
            self._lock_file = hold_lock(self.out / LOCK_FILE, f"pid {os.getpid()}")
        except LockHeld as held:
            raise AgentGymError(
                f"{self.out} is being written by another run ({held.holder}): wait for it to end "
                "or use another --out"
            ) from None

    def _open(self) -> FieldStore:
        run_file = self.out / RUN_FILE
        if run_file.is_file():
            try:
                old = json.loads(run_file.read_text(encoding="utf-8"))
            except ValueError:
                old = {}
            for key in _RESUME_KEYS:
                if key in old.get("settings", {}) and old["settings"][key] != self.settings[key]:
                    raise AgentGymError(
                        f"{self.out} holds a run with other settings ({key}: "
                        f"{old['settings'][key]!r} there, {self.settings[key]!r} now): "
                        "use another --out"
                    )
            self.run_id = old.get("run_id") or self.run_id
        path = self.out / RESULTS_FILE
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    record = json.loads(line)
                except ValueError:
                    continue  # a line torn by a run that died
                if isinstance(record, dict) and not record.get("error"):
                    self.done[_key(record)] = record
            if path.stat().st_size and not path.read_bytes().endswith(b"\n"):
                with path.open("a", encoding="utf-8") as f:
                    f.write("\n")
        run_file.write_text(
            json.dumps({"run_id": self.run_id, "settings": self.settings}, indent=2) + "\n",
            encoding="utf-8",
        )
        self._file = path.open("a", encoding="utf-8")
        return self

    def append(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False) + "\n"
        with self._lock:
            self._file.write(line)
            self._file.flush()
            os.fsync(self._file.fileno())
            self.new.append(record)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        if self._lock_file is not None:
            self._lock_file.close()  # frees the lock
            self._lock_file = None


def _key(record: dict[str, Any]) -> tuple[str, str, int]:
    return (str(record.get("env_id")), str(record.get("item_id")), int(record.get("repeat", 0)))


# -- the run -----------------------------------------------------------------------------------
@dataclass
class EnvSummary:
    env_id: str
    category: str
    episodes: int
    planned: int
    mean_reward: float
    success_rate: float
    mean_rounds: float
    errors: int
    outcomes: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class FieldResult:
    """What a field run did."""

    exit_code: int
    status: str
    ran: int
    skipped: int
    summaries: list[EnvSummary]
    out: Path
    run_id: str
    model: str | None
    endpoint: str | None
    undelivered: dict[str, int] = field(default_factory=dict)
    message: str | None = None


class _EnvPool:
    """One env per (worker thread, env id), reused across that thread's episodes."""

    def __init__(self, profile: Profile, fmt: str) -> None:
        self.profile = profile
        self.fmt = fmt
        self._local = threading.local()
        self._all: list[Any] = []
        self._lock = threading.Lock()

    def make(self, plan: EnvPlan) -> Any:
        import gymnasium as gym

        cfg = self.profile.model
        if self.fmt == "plain":
            from agentgym_envs.wrappers import WallClockLimit

            return WallClockLimit(gym.make(plan.env_id, **plan.kwargs), self.profile.max_seconds)
        from agentgym_envs.wrappers import make_llm_env

        react = {"parser": cfg.parser, "prompts": cfg.prompts, "prompts_source": cfg.prompts_source}
        return make_llm_env(
            plan.env_id,
            self.fmt,
            max_rounds=plan.max_rounds,
            max_seconds=self.profile.max_seconds,
            history=True,
            window=cfg.max_history_turns,
            instructions_role="user",
            env_kwargs=plan.kwargs or None,
            **(react if self.fmt == "react" else {}),
        )

    def get(self, plan: EnvPlan) -> Any:
        envs = self._local.__dict__.setdefault("envs", {})
        if plan.env_id not in envs:
            envs[plan.env_id] = self.make(plan)
            with self._lock:
                self._all.append(envs[plan.env_id])
        return envs[plan.env_id]

    def discard(self, env_id: str) -> None:
        self._local.__dict__.get("envs", {}).pop(env_id, None)

    def close(self) -> None:
        for env in self._all:
            try:
                env.close()
            except Exception:
                logger.debug("closing %s failed", env, exc_info=True)


class _CtrlC:
    """SIGINT as two events (first press, second press) for the ``with`` block's duration.

    Off the main thread (where Python cannot install handlers) the events never fire and a
    KeyboardInterrupt, if any, goes to the main thread as usual.
    """

    def __init__(self) -> None:
        self.pressed = threading.Event()
        self.again = threading.Event()
        self._previous: Any = None

    def _handle(self, signum: int, frame: Any) -> None:
        (self.again if self.pressed.is_set() else self.pressed).set()

    def __enter__(self) -> _CtrlC:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)


class FieldRunner:
    """Plays the plans of one profile into one output folder, sending events to ``bus``.

    Args:
        profile: the validated profile (CLI overrides already applied).
        plans: from :func:`plan_field`.
        out: the output folder (resumed when it holds the same settings).
        bus: the event sinks (:func:`~agentgym_envs.runner.sinks.build_bus`).
        chain: the policy (:class:`~agentgym_envs.runner.endpoints.PolicyChain`), started.
        config_name: what ``field.status`` events name as the profile (its path).
    """

    def __init__(
        self,
        profile: Profile,
        plans: list[EnvPlan],
        out: Path,
        bus: EventBus,
        chain: PolicyChain,
        *,
        config_name: str = "profile",
    ) -> None:
        self.profile, self.plans, self.out, self.bus, self.chain = profile, plans, out, bus, chain
        self.config_name = config_name
        self.stop = threading.Event()
        self.fatal: BaseException | None = None
        #: A second Ctrl-C: the episodes in flight were left running (end the process).
        self.abandoned = False
        self._lock = threading.Lock()
        self._left: dict[str, int] = {}
        self._ran: dict[str, int] = defaultdict(int)
        self.store = FieldStore(out, self.settings())

    def settings(self) -> dict[str, Any]:
        cfg = self.profile.model
        return {
            "profile": self.profile.name,
            "policy": cfg.policy,
            "model": cfg.name,
            "format": "plain" if self.chain.scripted else cfg.format,
            "parser": cfg.parser,
            "prompts": cfg.prompts,
            "split": self.profile.split,
            "max_rounds": self.profile.max_rounds,
            "max_seconds": self.profile.max_seconds,
            "seed": self.profile.seed,
            "repeat": self.profile.repeat,
        }

    # -- events -----------------------------------------------------------------------------
    def _emit(self, kind: str, **fields: Any) -> None:
        self.bus.emit(make_event(kind, node=self.profile.node, run_id=self.store.run_id, **fields))

    def _status(
        self, status: str, exit_code: int | None = None, episodes: int | None = None
    ) -> None:
        config = {
            "profile": self.config_name,
            "digest": self.profile.digest(),
            "envs": [p.env_id for p in self.plans],
            "repeat": self.profile.repeat,
            "policy": self.profile.model.policy,
            "model": self.chain.model_name if self.chain.spec is not None else None,
        }
        self._emit(
            FIELD_STATUS, status=status, config=config, exit_code=exit_code, episodes=episodes
        )

    # -- episodes ---------------------------------------------------------------------------
    def _play(self, pool: _EnvPool, plan: EnvPlan, item: Any, repeat: int) -> None:
        from agentgym_envs.benchmarks import EndpointError, play_episode

        if self.stop.is_set():
            return
        while True:
            spec = self.chain.spec
            try:
                # an agent server plays the whole episode: no env here
                env = None if getattr(spec, "episode", None) else pool.get(plan)
                result = play_episode(
                    env,
                    spec,
                    item,
                    sample=repeat,
                    seed=self.profile.seed,
                    max_rounds=plan.max_rounds,
                    record=self.profile.record,
                )
                record = result.to_record()
                break
            except EndpointError as exc:
                try:
                    self.chain.fail_over(spec, exc)
                except EndpointsDownError as down:
                    self.fatal = down
                    self.stop.set()
                    return
            except Exception as exc:
                if isinstance(exc, AgentGymError):  # one line says it (an agent server's 4xx)
                    logger.error("%s %s repeat %d: %s", plan.env_id, item.item_id, repeat, exc)
                else:
                    logger.exception("%s %s repeat %d failed", plan.env_id, item.item_id, repeat)
                pool.discard(plan.env_id)
                record = error_record(plan, item, repeat, f"{type(exc).__name__}: {exc}")
                break
        self._finish(plan, record, repeat)

    def _finish(self, plan: EnvPlan, record: dict[str, Any], repeat: int) -> None:
        record.update(
            run_id=self.store.run_id,
            repeat=repeat,
            category=plan.category,
            episode_id=f"{self.store.run_id}:{plan.short}:{record['item_id']}:{repeat}",
            batch_id=f"{self.store.run_id}:{plan.short}",
            outcome=outcome_of(record),
            model=self.chain.model_name,
            endpoint=self.chain.endpoint_label,
        )
        self.store.append(record)
        self._emit(
            EPISODE_COMPLETED,
            episode_id=record["episode_id"],
            batch_id=record["batch_id"],
            env=plan.env_id,
            category=plan.category,
            item_id=record["item_id"],
            task_id=record["task_id"],
            split=record["split"],
            repeat=repeat,
            reward=float(record["reward"]),
            success=bool(record["success"]),
            rounds=int(record["turns"]),
            duration_s=round(float(record.get("wall_time") or 0.0), 4),
            outcome=record["outcome"],
            truncation_reason=record.get("truncation_reason"),
            error=record.get("error"),
            model=record["model"],
            endpoint=record["endpoint"],
        )
        with self._lock:
            self._ran[plan.env_id] += 1
            self._left[plan.env_id] -= 1
            last = self._left[plan.env_id] == 0
        if last:
            summary = self._summary(plan)
            self._emit(
                BATCH_COMPLETED,
                batch_id=record["batch_id"],
                env=plan.env_id,
                category=plan.category,
                n_episodes=summary.episodes,
                mean_reward=summary.mean_reward,
                success_rate=summary.success_rate,
                n_errors=summary.errors,
                repeat=self.profile.repeat,
                model=record["model"],
            )

    def _records(self, plan: EnvPlan) -> list[dict[str, Any]]:
        keys = {
            (plan.env_id, it.item_id, r) for it in plan.items for r in range(self.profile.repeat)
        }
        latest = {**{k: v for k, v in self.store.done.items() if k in keys}}
        with self._lock:
            for record in self.store.new:
                if _key(record) in keys:
                    latest[_key(record)] = record
        return list(latest.values())

    def _summary(self, plan: EnvPlan) -> EnvSummary:
        records = self._records(plan)
        rewards = [float(r.get("reward", 0.0)) for r in records]
        return EnvSummary(
            plan.env_id,
            plan.category,
            len(records),
            len(plan.items) * self.profile.repeat,
            statistics.fmean(rewards) if rewards else 0.0,
            statistics.fmean(bool(r.get("success")) for r in records) if records else 0.0,
            statistics.fmean(int(r.get("turns", 0)) for r in records) if records else 0.0,
            sum(1 for r in records if r.get("error")),
            count_outcomes(records),
        )

    # -- the run ----------------------------------------------------------------------------
    def run(self) -> FieldResult:
        """Play every planned episode not already in the output folder; never raises for an
        episode, a sink or Ctrl-C (see :data:`EXIT_OK` and the other exit codes)."""
        self.store.open()
        todo = self._todo()
        planned = sum(len(p.items) for p in self.plans) * self.profile.repeat
        skipped = planned - len(todo)
        if skipped:
            logger.info("resuming %s: %d of %d episodes already done", self.out, skipped, planned)
        for plan in self.plans:
            self._left[plan.env_id] = sum(1 for p, _, _ in todo if p is plan)
        self._status("started")
        pool = _EnvPool(self.profile, "plain" if self.chain.scripted else self.profile.model.format)
        try:
            if self.profile.backend == "ray":
                from agentgym_envs.runner.ray_field import play_on_ray

                interrupted = play_on_ray(self, todo)
            else:
                interrupted = self._play_all(pool, todo)
        finally:
            self.store.close()
        status, code = ("interrupted", EXIT_INTERRUPTED) if interrupted else ("completed", EXIT_OK)
        if status == "completed" and self.fatal is not None:
            status, code = "failed", EXIT_ENDPOINT
        summaries = [self._summary(p) for p in self.plans]
        if status == "completed" and any(s.errors for s in summaries):
            code = EXIT_EPISODE_ERRORS
        ran = len(self.store.new)
        self._status(status, exit_code=code, episodes=ran)
        pool.close()
        self._write_summary(status, code, summaries)
        return FieldResult(
            code,
            status,
            ran,
            skipped,
            summaries,
            self.out,
            self.store.run_id,
            self.chain.model_name,
            self.chain.endpoint_label,
            message=str(self.fatal) if self.fatal is not None else None,
        )

    def _todo(self) -> list[tuple[EnvPlan, Any, int]]:
        # env by env, each task's repeats back to back: a batch completes as early as it can,
        # and a model server's prompt cache serves the repeats of a prompt
        return [
            (plan, item, r)
            for plan in self.plans
            for item in plan.items
            for r in range(self.profile.repeat)
            if (plan.env_id, item.item_id, r) not in self.store.done
        ]

    def _play_all(self, pool: _EnvPool, todo: list[tuple[EnvPlan, Any, int]]) -> bool:
        """Play ``todo`` on the worker threads; True when Ctrl-C stopped it."""
        executor = ThreadPoolExecutor(self.profile.concurrency, thread_name_prefix="agentgym-field")
        # Ctrl-C only sets flags here: a KeyboardInterrupt raised at an arbitrary point of the
        # main thread can leave a future's lock held and the workers waiting on it for good.
        with _CtrlC() as ctrl_c:
            try:
                pending = {executor.submit(self._play, pool, *job) for job in todo}
                while pending and not ctrl_c.pressed.is_set() and self.fatal is None:
                    done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                    for f in done:
                        if f.exception() is not None:
                            raise f.exception()  # type: ignore[misc]
                if ctrl_c.pressed.is_set():
                    self._finish_in_flight(pending, ctrl_c)
                return ctrl_c.pressed.is_set()
            finally:
                self.stop.set()
                executor.shutdown(wait=False, cancel_futures=True)

    def _finish_in_flight(self, pending: set[Future[None]], ctrl_c: _CtrlC) -> None:
        """After a first Ctrl-C: start nothing new, let running episodes end unless a second
        Ctrl-C abandons them."""
        self.stop.set()
        for f in pending:
            f.cancel()
        in_flight = [f for f in pending if not f.cancelled()]
        logger.warning(
            "interrupted: finishing %d episode(s) in flight (Ctrl-C again to abandon them)",
            len(in_flight),
        )
        while in_flight and not ctrl_c.again.is_set():
            _, not_done = wait(in_flight, timeout=0.5)
            in_flight = list(not_done)
        if in_flight:
            logger.warning("abandoning the episodes in flight")
            self.abandoned = True

    def _write_summary(self, status: str, code: int, summaries: list[EnvSummary]) -> None:
        summary = {
            "run_id": self.store.run_id,
            "status": status,
            "exit_code": code,
            "model": self.chain.model_name,
            "endpoint": self.chain.endpoint_label,
            "settings": self.settings(),
            "envs": [s.as_dict() for s in summaries],
        }
        (self.out / SUMMARY_FILE).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")


__all__ = [
    "EXIT_ENDPOINT",
    "EXIT_EPISODE_ERRORS",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_PREFLIGHT",
    "EXIT_USAGE",
    "EnvPlan",
    "EnvSummary",
    "FieldResult",
    "FieldRunner",
    "FieldStore",
    "outcome_of",
    "plan_field",
]
