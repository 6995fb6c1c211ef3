"""The benchmark runner: policy x envs x tasks x samples, concurrently, resumable.

:func:`run_benchmark` plays every (env, task, sample) episode with a thread pool (envs are
cheap; the policy -- an LLM endpoint -- is the slow part), shows a progress bar per env with its
running success, and appends one JSON line per finished episode to ``<out>/results.jsonl``
(flushed as it goes): the conversation in AgentTraj format, reward (the final graded score),
success, turns, wall time, tokens where known, and each turn's latency (``latency``: the
policy's and the env step's wall seconds per turn, see :class:`EpisodeResult`). Run it again with the same ``out`` and it skips
the episodes already there (an interrupted run resumes without redoing or losing any); the
settings are kept in ``<out>/run.json`` and a resume with different settings is refused. It
ends by writing ``summary.json``, ``summary.md`` and ``summary.png`` (see
:mod:`agentgym_envs.benchmarks.report`).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from agentgym_envs.benchmarks.agenteval import BenchItem, agenteval_items
from agentgym_envs.benchmarks.policies import PolicySpec
from agentgym_envs.benchmarks.report import (
    CONFIG_FILE,
    RESULTS_FILE,
    Summary,
    episode_key,
    read_results,
    summarize,
    write_reports,
)
from agentgym_envs.bounds import json_dumps_utf8
from agentgym_envs.datasets.items import ItemResolver, default_resolver
from agentgym_envs.errors import AgentGymError, BadDataError
from agentgym_envs.interrupts import CtrlC
from agentgym_envs.locks import LockHeld, hold_lock
from agentgym_envs.spec import ENV_INFO, env_info, resolve_id
from agentgym_envs.wrappers.record import repair_torn_tail

logger = logging.getLogger(__name__)

#: The lock file a live run holds in its ``--out`` folder.
LOCK_FILE = ".lock"
#: Settings that must match for a run folder to be resumed.
_RESUME_KEYS = ("policy", "format", "split", "max_rounds", "seed", "prompts", "parser")


@dataclass
class EpisodeResult:
    """One finished episode (one line of ``results.jsonl``).

    ``outcome`` says why it ended (:data:`~agentgym_envs.core.OUTCOMES`) and ``reward_valid``
    whether ``reward`` can be trusted: false for an episode that raised (``env_error``; its
    reward 0 is no judgement of the agent), so a trainer reading the records masks it.

    ``latency`` holds per-turn wall seconds, rounded to the millisecond: ``policy_s[i]`` is
    the policy's time to choose action ``i`` (for a model, its call), ``env_s[i]`` the env's
    time to step it, ``reset_s`` the reset. ``policy_s`` has one entry more than ``env_s``
    when the episode stopped on a policy call (``context_length``). ``None`` for an episode
    that raised.
    """

    env_id: str
    item_id: str
    split: str
    task_id: int
    sample: int
    seed: int
    reward: float
    success: bool
    turns: int
    terminated: bool
    truncated: bool
    truncation_reason: str | None
    wall_time: float
    env_time: float
    policy_time: float
    tokens: dict[str, int] | None
    conversations: list[dict[str, Any]]
    error: str | None = None
    prompt_set: str | None = None
    reply_parser: str | None = None
    outcome: str | None = None
    reward_valid: bool = True
    latency: dict[str, Any] | None = None
    #: The session whose records a policy played elsewhere wrote (a harness's gateway).
    session: str | None = None

    def to_record(self) -> dict[str, Any]:
        record = dict(self.__dict__)
        if record["session"] is None:
            del record["session"]
        return record


@dataclass
class RunResult:
    """What :func:`run_benchmark` did: the summary, and how many episodes ran vs. were resumed."""

    summary: Summary
    out: Path | None
    ran: int
    skipped: int
    wall_time: float
    records: list[dict[str, Any]] = field(default_factory=list)
    reports: dict[str, Path] = field(default_factory=dict)
    #: Seconds spent making the envs (included in ``wall_time``).
    env_make_time: float = 0.0
    #: On Ray: what the actor pool did (:class:`~agentgym_envs.rollout.ray.pool.PoolStats`).
    ray_stats: Any = None


def resolve_envs(envs: str | Sequence[str]) -> list[str]:
    """``"all"`` (every registered id whose extra is installed), ``"agenteval"`` (one id per
    AgentEval family), or ids / comma-separated ids (short names like ``Wordle-v0`` work)."""
    from agentgym_envs.benchmarks.agenteval import agenteval_env_ids

    names = [e.strip() for e in (envs.split(",") if isinstance(envs, str) else envs) if e.strip()]
    out: list[str] = []
    for name in names:
        if name == "all":
            out += [i for i, info in ENV_INFO.items() if info.installed]
        elif name == "agenteval":
            out += agenteval_env_ids()
        else:
            out.append(resolve_id(name))
    return list(dict.fromkeys(out))


def _episode_seed(base: int, task_id: int, sample: int) -> int:
    return int(np.random.SeedSequence([base, task_id, sample]).generate_state(1)[0] & 0x7FFFFFFF)


@dataclass(frozen=True)
class LoopOptions:
    """How the policy meets the env: AgentGym's reply parser or ours, whose prompts, and how
    many past exchanges the prompt keeps (``window``)."""

    parser: str = "agentgym"
    prompts: str = "ours"
    prompts_source: str | None = None
    window: int | None = None


class _EnvPool:
    """One env per (thread, env id), reused across that thread's episodes."""

    def __init__(
        self,
        fmt: str,
        env_kwargs: dict[str, dict[str, Any]],
        rounds: dict[str, int],
        loop: LoopOptions,
    ) -> None:
        self.fmt = fmt
        self.env_kwargs = env_kwargs
        self.rounds = rounds
        self.loop = loop
        self._local = threading.local()
        self._all: list[gym.Env] = []
        self._lock = threading.Lock()
        #: Seconds spent making envs (the envs' own cost, not the runner's).
        self.make_time = 0.0

    def get(self, env_id: str) -> gym.Env:
        envs = getattr(self._local, "envs", None)
        if envs is None:
            envs = self._local.envs = {}
        if env_id not in envs:
            t0 = time.perf_counter()
            envs[env_id] = make_policy_env(
                env_id,
                self.fmt,
                max_rounds=self.rounds[env_id],
                loop=self.loop,
                **self.env_kwargs.get(env_id, {}),
            )
            with self._lock:
                self._all.append(envs[env_id])
                self.make_time += time.perf_counter() - t0
        return envs[env_id]

    def discard(self, env_id: str) -> None:
        """Forget this thread's env for ``env_id`` (after an episode left it in a bad state)."""
        getattr(self._local, "envs", {}).pop(env_id, None)

    def close(self) -> None:
        for env in self._all:
            try:
                env.close()
            except Exception:
                logger.debug("closing %s failed", env, exc_info=True)


def make_policy_env(
    env_id: str,
    fmt: str,
    *,
    max_rounds: int | None = None,
    window: int | None = None,
    loop: LoopOptions | None = None,
    **kwargs: Any,
) -> gym.Env:
    """The env a policy of format ``fmt`` acts on.

    ``plain`` (scripted policies): the env itself; the runner counts the rounds.
    ``react`` / ``tools``: :func:`agentgym_envs.make_llm_env`'s stack -- ReAct (with
    ``loop.parser`` and ``loop.prompts``) or FunctionCalling, the turn limit (``max_rounds``),
    the 300 s wall-clock limit, and the chat history in AgentGym's layout (instructions as the
    first user turn, then the acknowledgement), whose ``info["messages"]`` is the prompt
    (``window``: keep only the last N exchanges).
    """
    loop = loop or LoopOptions(window=window)
    if fmt == "plain":
        return gym.make(resolve_id(env_id), **kwargs)
    if fmt not in ("react", "tools"):
        raise AgentGymError(
            f"unknown format {fmt!r}: use 'react' or 'tools' (or 'plain' for scripted policies)"
        )
    from agentgym_envs.wrappers import make_llm_env

    react = {"parser": loop.parser, "prompts": loop.prompts, "prompts_source": loop.prompts_source}
    return make_llm_env(
        resolve_id(env_id),
        fmt,
        max_rounds=max_rounds,
        history=True,
        window=loop.window if window is None else window,
        instructions_role="user",
        env_kwargs=kwargs or None,
        **(react if fmt == "react" else {}),
    )


def _plain_opening(env: gym.Env, loop: LoopOptions | None):
    """How a scripted policy's episode is recorded: as if it had our ReAct prompt, or
    AgentGym's conversation start and first turn (``loop.prompts == "agentgym"``)."""
    from agentgym_envs.wrappers.prompts import first_turn
    from agentgym_envs.wrappers.react import REPLY_FORMAT, conversation_start, family_of

    start = None
    if loop is not None and loop.prompts == "agentgym":
        start = conversation_start(env, "agentgym", loop.prompts_source)

    def opening(observation: str, info: dict[str, Any]) -> dict[str, Any]:
        if start is None:
            instructions = f"{env.unwrapped.instructions().strip()}\n\n{REPLY_FORMAT}"
            return {"instructions": instructions, "ack": "Ok.", "prompt_set": "ours"}
        family = getattr(family_of(env), "name", "")
        first = first_turn(family, observation, info, start, env.unwrapped)
        return {
            "instructions": start.instruction,
            "ack": start.ack,
            "first_turn": first,
            "prompt_set": "agentgym",
        }

    return opening


def play_episode(
    env: gym.Env,
    spec: PolicySpec,
    item: BenchItem,
    *,
    sample: int = 0,
    seed: int = 0,
    max_rounds: int,
    record: bool = True,
    loop: LoopOptions | None = None,
) -> EpisodeResult:
    """Play one episode of ``item`` with a fresh policy from ``spec`` on ``env``.

    The episode ends when the env terminates, after ``max_rounds`` replies (AgentGym's max
    rounds; truncated), or when the conversation no longer fits the model's context
    (truncated, reason ``context_length``, as AgentGym stops at ``max_length``).
    """
    from agentgym_envs.benchmarks.llm import ContextLengthError
    from agentgym_envs.rollout.episode import run_episode
    from agentgym_envs.wrappers.react import format_react

    ep_seed = _episode_seed(seed, item.task_id, sample)
    remote = getattr(spec, "episode", None)
    if remote is not None:  # a policy that plays whole episodes elsewhere (an agent server)
        answer = remote(item.env_id, item.task_id, item.split, ep_seed, max_rounds)
        return _remote_result(answer, item, sample, ep_seed, record)
    plain = spec.format == "plain"
    policy = _LazyPolicy(spec, env, ep_seed)
    timed = _StepTimes(env)
    episode = run_episode(
        timed,
        policy,
        task_id=item.task_id,
        split=item.split,
        seed=ep_seed,
        max_turns=max_rounds,
        stop_on={ContextLengthError: "context_length"},
        opening=_plain_opening(env, loop) if plain else None,
        as_reply=(lambda action: format_react("", str(action))) if plain else None,
    )
    usage = getattr(policy.policy, "usage", None)
    return EpisodeResult(
        env_id=item.env_id,
        item_id=item.item_id,
        split=item.split,
        task_id=item.task_id,
        sample=sample,
        seed=ep_seed,
        reward=episode.score,
        success=episode.success,
        turns=episode.turns,
        terminated=episode.terminated,
        truncated=episode.truncated,
        truncation_reason=episode.truncation_reason,
        wall_time=episode.wall_time,
        env_time=episode.env_time,
        policy_time=episode.policy_time,
        tokens={k: v for k, v in usage.items() if k != "calls"} if usage else None,
        conversations=episode.conversation.agenttraj() if record else [],
        prompt_set=_prompt_set(plain, loop, episode.reset_info),
        reply_parser=episode.reset_info.get("reply_parser", "plain" if plain else None),
        outcome=episode.outcome,
        reward_valid=episode.reward_valid,
        latency={
            "policy_s": [round(t, 3) for t in policy.times],
            "env_s": [round(t, 3) for t in timed.step_s],
            "reset_s": round(timed.reset_s, 3),
        },
    )


def _remote_result(
    answer: dict[str, Any], item: BenchItem, sample: int, seed: int, record: bool
) -> EpisodeResult:
    """An agent server's ``/run`` answer as the runner's record."""
    outcome = answer.get("outcome")
    terminated = outcome in ("success", "failure", "invalid_action")
    wall = float(answer.get("wall_time") or 0.0)
    return EpisodeResult(
        env_id=item.env_id,
        item_id=item.item_id,
        split=item.split,
        task_id=item.task_id,
        sample=sample,
        seed=seed,
        reward=float(answer.get("reward", 0.0)),
        success=bool(answer.get("success")),
        turns=int(answer.get("turns") or 0),
        terminated=terminated,
        truncated=not terminated and outcome != "env_error",
        truncation_reason=None if terminated else outcome,
        wall_time=wall,
        env_time=0.0,
        policy_time=wall,
        tokens=answer.get("tokens"),
        conversations=list(answer.get("conversations") or []) if record else [],
        error=answer.get("error"),
        outcome=outcome,
        reward_valid=bool(answer.get("reward_valid", True)),
        session=answer.get("session"),
    )


class _StepTimes(gym.Wrapper):
    """Times each step (and the reset) of the env it wraps: the env's share of a turn."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.reset_s = 0.0
        self.step_s: list[float] = []

    def reset(self, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return self.env.reset(**kwargs)
        finally:
            self.reset_s = time.perf_counter() - t0

    def step(self, action: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return self.env.step(action)
        finally:
            self.step_s.append(time.perf_counter() - t0)


def _prompt_set(plain: bool, loop: LoopOptions | None, reset_info: dict[str, Any]) -> Any:
    if plain:
        return loop.prompts if loop is not None else "ours"
    return reset_info.get("prompt_set")


class _LazyPolicy:
    """The episode's policy, made from the spec at its first call: after the env's reset, as
    the expert reads the env's task."""

    def __init__(self, spec: PolicySpec, env: gym.Env, seed: int) -> None:
        self.spec, self.env, self.seed = spec, env, seed
        self.policy: Any = None
        #: Wall seconds of each call (a call that raised included).
        self.times: list[float] = []

    def __call__(self, observation: str, info: dict[str, Any]) -> Any:
        t0 = time.perf_counter()
        try:
            if self.policy is None:
                self.policy = self.spec.factory(self.env, self.seed)
            return self.policy(observation, info)
        finally:
            self.times.append(time.perf_counter() - t0)


class _Progress:
    """A rich progress bar per env with its running success; a no-op when disabled."""

    def __init__(self, enabled: bool, totals: dict[str, int], done: dict[str, list[bool]]) -> None:
        self._bar = None
        self._tasks: dict[str, Any] = {}
        self._ok = {e: sum(v) for e, v in done.items()}
        self._n = {e: len(v) for e, v in done.items()}
        self._lock = threading.Lock()
        if not enabled:
            return
        try:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
        except ImportError:
            logger.info('rich is not installed: no progress bar (pip install "agentgym-envs[cli]")')
            return
        self._bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("success {task.fields[rate]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
        )
        for env_id, total in totals.items():
            self._tasks[env_id] = self._bar.add_task(
                env_id.split("/")[-1],
                total=total,
                completed=self._n.get(env_id, 0),
                rate=self._rate(env_id),
            )

    def _rate(self, env_id: str) -> str:
        n = self._n.get(env_id, 0)
        return f"{self._ok.get(env_id, 0) / n:6.1%}" if n else "     -"

    def __enter__(self) -> _Progress:
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()

    def update(self, env_id: str, success: bool) -> None:
        with self._lock:
            self._n[env_id] = self._n.get(env_id, 0) + 1
            self._ok[env_id] = self._ok.get(env_id, 0) + int(success)
            if self._bar is not None:
                self._bar.update(self._tasks[env_id], advance=1, rate=self._rate(env_id))


def _check_resume(out: Path, config: dict[str, Any], resume: bool) -> None:
    cfg_path = out / CONFIG_FILE
    if not cfg_path.is_file():
        return
    if not resume:
        raise BadDataError(
            f"{out} already holds a run: resume it (resume=True) or use a new out folder"
        )
    try:
        old = json.loads(cfg_path.read_text(encoding="utf-8"))
    except ValueError:
        return

    def comparable(key: str, value: Any) -> Any:
        # the endpoint's address may change between sessions (a local server's port): not a setting
        return (
            {k: v for k, v in value.items() if k != "base_url"}
            if key == "policy" and isinstance(value, dict)
            else value
        )

    diffs = [
        k for k in _RESUME_KEYS if k in old and comparable(k, old[k]) != comparable(k, config[k])
    ]
    if diffs:
        k = diffs[0]
        raise BadDataError(
            f"{out} holds a run with different settings ({k}: {old[k]!r} there, {config[k]!r} now): "
            "use a new --out folder to run other settings"
        )


# -- plan --------------------------------------------------------------------------------------
@dataclass
class RunPlan:
    """What a run will play: the env ids, their turn budgets, the (item, sample) episodes in
    order, and the settings recorded in ``run.json``."""

    env_ids: list[str]
    rounds: dict[str, int]
    episodes: list[tuple[BenchItem, int]]
    config: dict[str, Any]

    @property
    def keys(self) -> list[tuple[str, str, int]]:
        return [(it.env_id, it.item_id, s) for it, s in self.episodes]


def _rounds(env_ids: list[str], max_rounds: int | str | None) -> dict[str, int]:
    rounds: dict[str, int] = {}
    for env_id in env_ids:
        if max_rounds in (None, "default"):
            rounds[env_id] = env_info(env_id).max_rounds
            continue
        rounds[env_id] = int(max_rounds)  # type: ignore[arg-type]
        if rounds[env_id] < 1:
            raise ValueError(f"max_rounds={max_rounds}: use 'default' or a positive number")
    return rounds


def plan_run(
    envs: str | Sequence[str],
    policy: PolicySpec,
    *,
    split: str = "test",
    n_samples: int = 1,
    max_rounds: int | str | None = "default",
    limit: int | None = None,
    items: dict[str, list[BenchItem]] | None = None,
    seed: int = 0,
    loop: LoopOptions | None = None,
    resolver: ItemResolver | None = None,
) -> RunPlan:
    """The episodes of a run and its settings (see :func:`run_benchmark` for the arguments)."""
    if n_samples < 1:
        raise ValueError(f"n_samples={n_samples}: use 1 or more")
    env_ids = resolve_envs(envs) if items is None else [resolve_id(e) for e in items]
    if not env_ids:
        raise AgentGymError(f"no environments to run for {envs!r}: see agentgym list")
    for env_id in env_ids:
        info = env_info(env_id)
        if not info.installed:
            raise AgentGymError(
                f'{env_id} needs its extra: pip install "agentgym-envs[{info.extra}]"'
            )
    episodes: list[tuple[BenchItem, int]] = []
    for env_id in env_ids:
        if items is not None:
            env_items = items[env_id][:limit] if limit is not None else items[env_id]
        else:
            env_items = agenteval_items(env_id, split, limit=limit, resolver=resolver)
        episodes += [(it, s) for it in env_items for s in range(n_samples)]
    loop = loop or LoopOptions()
    _check_loop(loop, policy.format, env_ids)
    config = {
        "policy": policy.describe(),
        "format": policy.format,
        "split": split,
        "max_rounds": "default" if max_rounds in (None, "default") else int(max_rounds),  # type: ignore[arg-type]
        "seed": seed,
        "n_samples": n_samples,
        "envs": env_ids,
        "limit": limit,
        "prompts": "ours" if policy.format == "tools" else loop.prompts,
        "parser": {"react": loop.parser, "tools": "tools"}.get(policy.format, "plain"),
        # a harness or an agent server plays whole episodes with its own prompts and parsing
        "own_loop": policy.name if getattr(policy, "episode", None) else None,
    }
    return RunPlan(env_ids, _rounds(env_ids, max_rounds), episodes, config)


def _check_loop(loop: LoopOptions, fmt: str, env_ids: list[str]) -> None:
    """Refuse, before any episode, a parser or prompt set that cannot apply."""
    from agentgym_envs.wrappers.prompts import PROMPT_SETS, agentgym_start
    from agentgym_envs.wrappers.react import PARSER_NAMES, PROMPTS_SOURCE_ENV

    if loop.parser not in PARSER_NAMES:
        raise AgentGymError(f"parser {loop.parser!r}: use {' or '.join(PARSER_NAMES)}")
    if loop.prompts not in PROMPT_SETS:
        raise AgentGymError(f"prompts {loop.prompts!r}: use {' or '.join(PROMPT_SETS)}")
    if loop.prompts == "ours":
        return
    if fmt == "tools":
        raise AgentGymError("AgentGym's prompts are ReAct prompts: use --format react with them")
    source = loop.prompts_source or os.environ.get(PROMPTS_SOURCE_ENV)
    if not source:
        raise AgentGymError(
            "--prompts agentgym reads AgentGym's prompts from your own copy: pass "
            f"--prompts-source <AgentTraj file or AgentGym checkout> (or set ${PROMPTS_SOURCE_ENV})"
        )
    for env_id in env_ids:
        agentgym_start(env_info(env_id).record, source)  # a missing family: one line


def family_sources(
    plan: RunPlan, resolver: ItemResolver, *, agenteval: bool
) -> dict[str, dict[str, Any]]:
    """Per env id: which family, whether it plays AgentEval's items or an embedded stand-in,
    the data source, prompt set and reply parser -- for the console and ``summary.json``."""
    out: dict[str, dict[str, Any]] = {}
    for env_id in plan.env_ids:
        record = env_info(env_id).record
        source = resolver.task_source(env_id)
        stand_in = resolver.plays_stand_in(env_id)
        out[env_id] = {
            "family": record.display_name,
            "items": "embedded stand-in"
            if stand_in
            else ("AgentEval's items" if agenteval else "our split"),
            "stand_in": record.stand_in if stand_in else None,
            "data": "user data" if source.user_data else "embedded",
            "prompt_set": plan.config["prompts"],
            "parser": _parser_name(plan.config["parser"], record.reply_parser),
        }
        if own := plan.config.get("own_loop"):
            out[env_id].update(prompt_set=f"{own}'s own", parser=f"{own}'s own")
    return out


def _parser_name(parser: str, style: str) -> str:
    return f"agentgym:{style}" if parser == "agentgym" else parser


# -- result store ------------------------------------------------------------------------------
class ResultStore:
    """A run folder's ``results.jsonl`` and ``run.json`` (or nothing, for ``out=None``).

    :meth:`open` takes the folder's lock (``.lock``, an ``fcntl.flock`` held until
    :meth:`close`: a second live run on the same folder is refused in one line), refuses a folder
    holding a run with other settings, reads the episodes already done, cuts a torn last line
    off (a run that died mid-write; that episode is re-run), and writes the settings;
    :meth:`append` writes one episode as one flushed line.
    """

    def __init__(
        self, out: str | os.PathLike[str] | None, config: dict[str, Any], resume: bool
    ) -> None:
        self.out = Path(out).expanduser() if out is not None else None
        self.config = config
        self.resume = resume
        self.done: dict[tuple[str, str, int], dict[str, Any]] = {}
        self.new: list[dict[str, Any]] = []
        self._sink: Any = None
        self._lock = threading.Lock()
        self._folder_lock: Any = None

    def open(self) -> ResultStore:
        if self.out is None:
            return self
        if self.out.exists() and not self.out.is_dir():
            raise BadDataError(f"--out {self.out} is a file: give a folder for the run")
        self.out.mkdir(parents=True, exist_ok=True)
        self._take_folder_lock()
        try:
            return self._open()
        except BaseException:
            self.close()
            raise

    def _take_folder_lock(self) -> None:
        assert self.out is not None
        try:
            self._folder_lock = hold_lock(self.out / LOCK_FILE, str(os.getpid()))
        except LockHeld as held:
            raise BadDataError(
                f"{self.out} is in use by another running agentgym bench (pid {held.holder}): "
                "wait for it to finish or use another --out folder"
            ) from None

    def _open(self) -> ResultStore:
        assert self.out is not None
        _check_resume(self.out, self.config, self.resume)
        path = self.out / RESULTS_FILE
        if path.is_file():
            self.done = {episode_key(r): r for r in read_results(self.out) if not r.get("error")}
        (self.out / CONFIG_FILE).write_text(
            json.dumps(self.config, indent=2) + "\n", encoding="utf-8"
        )
        repair_torn_tail(path)  # the last run died mid-line: ours starts on a fresh line
        self._sink = path.open("a", encoding="utf-8")
        return self

    def append(self, record: dict[str, Any]) -> None:
        line = json_dumps_utf8(record) + "\n"  # a lone surrogate a model sent stays writable
        with self._lock:
            if self._sink is not None:
                self._sink.write(line)
                self._sink.flush()
            self.new.append(record)

    def close(self) -> None:
        if self._sink is not None:
            self._sink.close()
            self._sink = None
        if self._folder_lock is not None:
            self._folder_lock.close()  # closing the file releases the flock
            self._folder_lock = None

    def records(self, plan: RunPlan) -> list[dict[str, Any]]:
        """The plan's episodes, resumed and new, in plan order."""
        keys = set(plan.keys)
        records = [r for k, r in self.done.items() if k in keys] + self.new
        order = {k: i for i, k in enumerate(plan.keys)}
        return sorted(records, key=lambda r: order.get(episode_key(r), len(order)))


# -- executor ----------------------------------------------------------------------------------
class _Executor:
    """Plays episodes on a thread pool, one env per thread and env id; stops everything when
    the model endpoint fails (finished episodes stay saved)."""

    def __init__(
        self,
        policy: PolicySpec,
        plan: RunPlan,
        store: ResultStore,
        pool: _EnvPool,
        *,
        seed: int,
        record: bool,
    ) -> None:
        self.policy, self.plan, self.store, self.pool = policy, plan, store, pool
        self.seed, self.record = seed, record
        self.stop = threading.Event()

    def one(self, item: BenchItem, sample: int, bar: _Progress) -> None:
        from agentgym_envs.benchmarks.llm import EndpointError

        if self.stop.is_set():
            return
        # a policy that plays whole episodes elsewhere needs no env here
        env = None if getattr(self.policy, "episode", None) else self.pool.get(item.env_id)
        try:
            res = play_episode(
                env,
                self.policy,
                item,
                sample=sample,
                seed=self.seed,
                max_rounds=self.plan.rounds[item.env_id],
                record=self.record,
                loop=self.pool.loop,
            )
        except EndpointError:
            self.stop.set()
            raise
        except Exception as exc:
            logger.exception("episode %s sample %d failed", item.item_id, sample)
            res = _failed(item, sample, _episode_seed(self.seed, item.task_id, sample), exc)
            self.pool.discard(item.env_id)  # the env may be in a bad state
        self.store.append(res.to_record())
        bar.update(item.env_id, res.success)

    def run(self, todo: list[tuple[BenchItem, int]], concurrency: int, bar: _Progress) -> None:
        """Play ``todo``. Ctrl-C (SIGINT, even one the process inherited as ignored): no new
        episode starts, the ones in flight finish and are saved (a second Ctrl-C abandons
        them), then :class:`BenchInterrupted` is raised."""
        with CtrlC(raise_again=True) as ctrl_c:
            if concurrency == 1:
                for it, s in todo:
                    if ctrl_c.pressed.is_set():
                        break
                    self.one(it, s, bar)
            else:
                self._threads(todo, concurrency, bar, ctrl_c)
        if ctrl_c.pressed.is_set():
            self.stop.set()
            raise BenchInterrupted(len(self.store.new), self.store.out)

    def _threads(
        self, todo: list[tuple[BenchItem, int]], concurrency: int, bar: _Progress, ctrl_c: CtrlC
    ) -> None:
        ex = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="agentgym-bench")
        try:
            pending = {ex.submit(self.one, it, s, bar) for it, s in todo}
            while pending and not ctrl_c.pressed.is_set():
                done, pending = wait(pending, timeout=0.5, return_when=FIRST_EXCEPTION)
                for f in done:
                    if f.exception() is not None:
                        self.stop.set()
                        raise f.exception()  # type: ignore[misc]
            if ctrl_c.pressed.is_set():
                self.stop.set()  # episodes not started return at once
                for f in pending:
                    f.cancel()
                in_flight = [f for f in pending if not f.cancelled()]
                logger.warning(
                    "interrupted: finishing %d episode(s) in flight (Ctrl-C again to abandon them)",
                    len(in_flight),
                )
                wait(in_flight)  # a second Ctrl-C raises KeyboardInterrupt here
        finally:
            self.stop.set()
            ex.shutdown(wait=False, cancel_futures=True)


class BenchInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run; the episodes that finished are saved (a rerun resumes)."""

    def __init__(self, saved: int, out: Path | None) -> None:
        where = f" in {out}; run the same command again to resume" if out is not None else ""
        super().__init__(f"interrupted: {saved} new episode(s) saved{where}")


def _failed(item: BenchItem, sample: int, seed: int, exc: Exception) -> EpisodeResult:
    return EpisodeResult(
        item.env_id,
        item.item_id,
        item.split,
        item.task_id,
        sample,
        seed,
        0.0,
        False,
        0,
        False,
        False,
        None,
        0.0,
        0.0,
        0.0,
        None,
        [],
        error=f"{type(exc).__name__}: {exc}",
        outcome="env_error",
        reward_valid=False,
    )


# -- the run -----------------------------------------------------------------------------------
def run_benchmark(
    envs: str | Sequence[str],
    policy: PolicySpec,
    *,
    out: str | os.PathLike[str] | None = None,
    split: str = "test",
    n_samples: int = 1,
    concurrency: int = 1,
    max_rounds: int | str | None = "default",
    limit: int | None = None,
    items: dict[str, list[BenchItem]] | None = None,
    seed: int = 0,
    progress: bool = False,
    resume: bool = True,
    record: bool = True,
    env_kwargs: dict[str, dict[str, Any]] | None = None,
    reports: bool = True,
    parser: str = "agentgym",
    prompts: str = "ours",
    prompts_source: str | os.PathLike[str] | None = None,
    ray: bool | str = False,
) -> RunResult:
    """Run ``policy`` on ``envs`` and return the summary (see the module docstring).

    ``envs``: ids, ``"all"`` or ``"agenteval"``. ``items``: explicit tasks per env id (e.g.
    from :func:`~agentgym_envs.benchmarks.agenteval.load_agenteval`); default every task of
    ``split`` (``limit``: the first N). ``max_rounds``: ``"default"``/``None`` for AgentGym's
    max rounds per family, or one number for all. ``out=None`` keeps results in memory only.
    ``concurrency``: episodes in flight (threads). ``parser`` / ``prompts`` /
    ``prompts_source``: see :func:`~agentgym_envs.wrappers.make_llm_env`. Episodes that raise
    count as failures (score 0) and are re-run on resume; a failing model endpoint stops the
    run. ``summary.config["families"]`` says per env id whether it played AgentEval's items or
    an embedded stand-in, and with which data, prompt set and parser. ``ray``: play the
    episodes on ``concurrency`` env actors of a Ray cluster (``True``: ``$RAY_ADDRESS`` or a new
    local one; a string: its address) -- see :mod:`~agentgym_envs.benchmarks.ray_run`.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency={concurrency}: use 1 or more")
    source = None if prompts_source is None else str(prompts_source)
    loop = LoopOptions(parser, prompts, source, policy.config.get("max_history_turns"))
    options = {"split": split, "n_samples": n_samples, "max_rounds": max_rounds, "limit": limit}
    plan = _checked_plan(envs, policy, loop, env_kwargs, items=items, seed=seed, **options)
    on_ray = None
    if ray is not False:
        on_ray = _ray_executor(ray, concurrency, plan, policy, loop, seed, record, env_kwargs)
    store = ResultStore(out, plan.config, resume).open()
    todo = _todo(plan, store)
    pool = _EnvPool(policy.format, env_kwargs or {}, plan.rounds, loop)
    started = time.perf_counter()
    try:
        if policy.prepare is not None:
            policy.prepare(store.out, dict(store.done))
        with _Progress(progress, _totals(plan), _already(plan, store)) as bar:
            if on_ray is not None:
                on_ray.run(todo, lambda res: store.append(res.to_record()), bar)
            else:
                executor = _Executor(policy, plan, store, pool, seed=seed, record=record)
                executor.run(todo, concurrency, bar)
    finally:
        try:
            if policy.finish is not None:
                policy.finish()
        finally:
            store.close()
            pool.close()
    wall = time.perf_counter() - started
    ray_stats = on_ray.stats if on_ray is not None else None
    skipped = len(plan.episodes) - len(todo)
    return _result(plan, store, skipped, wall, pool.make_time, ray_stats, reports=reports)


def _result(
    plan: RunPlan,
    store: ResultStore,
    skipped: int,
    wall: float,
    make_time: float,
    ray_stats: Any,
    *,
    reports: bool,
) -> RunResult:
    """The summary of the plan's episodes, resumed and new, with its reports written."""
    records = store.records(plan)
    summary = summarize(records, plan.config)
    written = write_reports(summary, store.out) if store.out is not None and reports else {}
    ran = len(store.new)
    return RunResult(summary, store.out, ran, skipped, wall, records, written, make_time, ray_stats)


def _checked_plan(
    envs: str | Sequence[str],
    policy: PolicySpec,
    loop: LoopOptions,
    env_kwargs: dict[str, dict[str, Any]] | None,
    *,
    items: dict[str, list[BenchItem]] | None,
    split: str,
    **options: Any,
) -> RunPlan:
    """The run's plan, its families' sources in its config, and the policy checked (its
    endpoint reached) before any episode."""
    resolver = ItemResolver(env_kwargs=env_kwargs) if env_kwargs else default_resolver()
    plan = plan_run(envs, policy, split=split, items=items, loop=loop, resolver=resolver, **options)
    agenteval = items is not None or split == "test"
    plan.config["families"] = family_sources(plan, resolver, agenteval=agenteval)
    if policy.check is not None:
        policy.check()
        plan.config["policy"] = policy.describe()
    return plan


def _ray_executor(
    ray: bool | str,
    actors: int,
    plan: RunPlan,
    policy: PolicySpec,
    loop: LoopOptions,
    seed: int,
    record: bool,
    env_kwargs: dict[str, dict[str, Any]] | None,
) -> Any:
    """The Ray cluster's env actors for ``plan`` (``True``: ``$RAY_ADDRESS`` or a new local
    cluster; a string: its address), checked before any episode."""
    from agentgym_envs.benchmarks.ray_run import RayExecutor

    on_ray = RayExecutor(None if ray is True else str(ray), actors=actors)
    on_ray.prepare(plan, policy, seed=seed, record=record, loop=loop, env_kwargs=env_kwargs or {})
    return on_ray


def _todo(plan: RunPlan, store: ResultStore) -> list[tuple[BenchItem, int]]:
    """The plan's episodes not already in ``store``."""
    todo = [(it, s) for (it, s), k in zip(plan.episodes, plan.keys) if k not in store.done]
    skipped = len(plan.episodes) - len(todo)
    if skipped:
        logger.info("resuming: %d of %d episodes already done", skipped, len(plan.episodes))
    return todo


def _totals(plan: RunPlan) -> dict[str, int]:
    totals: dict[str, int] = defaultdict(int)
    for it, _ in plan.episodes:
        totals[it.env_id] += 1
    return dict(totals)


def _already(plan: RunPlan, store: ResultStore) -> dict[str, list[bool]]:
    already: dict[str, list[bool]] = defaultdict(list)
    keys = set(plan.keys)
    for key, r in store.done.items():
        if key in keys:
            already[key[0]].append(bool(r.get("success")))
    return already


def sweep(
    envs: str | Iterable[str] = "all",
    *,
    policy: PolicySpec | None = None,
    split: str = "test",
    **kwargs: Any,
) -> RunResult:
    """A whole-split run without files (the expert by default): the quick health check."""
    from agentgym_envs.benchmarks.policies import expert_spec

    return run_benchmark(
        envs if isinstance(envs, str) else list(envs),
        policy or expert_spec(),
        split=split,
        out=None,
        **kwargs,
    )


__all__ = [
    "BenchInterrupted",
    "EpisodeResult",
    "LoopOptions",
    "ResultStore",
    "RunPlan",
    "RunResult",
    "family_sources",
    "make_policy_env",
    "plan_run",
    "play_episode",
    "resolve_envs",
    "run_benchmark",
    "sweep",
]
