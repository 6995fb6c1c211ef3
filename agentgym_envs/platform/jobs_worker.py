"""The training-queue worker (``agentgym platform worker``): runs queued jobs, and recovers the
jobs of workers that died.

**What a job does** (:func:`run_job`), each stage recorded in its ``training_jobs`` row
(``stage``, ``progress`` 0..1, then ``result`` or ``error``) and each finished stage's output
kept in the row's ``checkpoint``:

1. ``export``: the agent's judged executions, read from the platform's own tables as the
   organisation (row-level security), in the format ``GET /v1/agents/{id}/training-data``
   gives (:func:`~agentgym_envs.platform.training_data.agent_records`: SFT records of the
   judged-successful executions, a person's ``bad`` actions masked out), written to the job's
   folder;
2. ``train``: ``bc-table``, the behaviour-cloning table of :mod:`agentgym_envs.train.bc_table`
   (seconds on a CPU), or ``sft``, the train pipeline's ``sft`` stage (TRL's ``SFTTrainer``) on a
   base model the worker offers (``smollm2`` or one given with ``--model NAME=CHECKPOINT``);
3. ``register``: the weights become the agent's new version, with its parent, in the same
   transaction that marks the job ``succeeded`` (a job cancelled meanwhile registers nothing).
   Live splitting and A/B tests can use the version at once.

**Dead workers.** Workers send procrastinate heartbeats (every ``stalled_after / 4`` seconds).
Every worker looks, at start and then every ``stalled_after / 2`` seconds, for jobs whose
worker's heartbeat is older than ``stalled_after`` (procrastinate's
``JobManager.get_stalled_jobs``): such a job is queued again, up to :data:`MAX_ATTEMPTS` runs in
all, and then failed with the reason; it is never left ``running``. A resumed job skips the
stages its checkpoint holds (when their files are still there). Each run of a job has its
attempt number, and a run's writes only land while its attempt is the job's current one, so
a worker wrongly thought dead cannot overwrite its successor's progress.

**Stopping.** SIGTERM or Ctrl-C: the worker takes no new job and stops when its running jobs
end; a second signal stops it at once (its jobs are then recovered as above).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
import os
import signal
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentgym_envs.errors import AgentGymError
from agentgym_envs.platform.jobs import QUEUE, TASK, JobError

logger = logging.getLogger(__name__)

#: Runs a job gets when its workers die (the first included).
MAX_ATTEMPTS = 3
#: Seconds without a heartbeat after which a worker counts as dead.
STALLED_AFTER = 60.0
#: Crash drills: a worker with this set to a stage name holds each job after that stage.
HOLD_ENV = "AGENTGYM_JOB_HOLD_AFTER"
_STAGES = {"export": 0.05, "train": 0.4, "register": 0.8}

#: The worker process's settings (:func:`worker` fills it in).
_WORKER: dict[str, Any] = {}


class _Stopped(Exception):
    """The job was cancelled, or another attempt took it over: stop quietly."""


def task(job_id: str, org_id: str) -> None:
    """The procrastinate task: :func:`run_job` with the worker's settings."""
    run_job(_WORKER["db"], job_id, org_id, artifacts=_WORKER["artifacts"])


class _Job:
    """One attempt at one job: its tenant sessions and its row's updates."""

    def __init__(self, sessions, job_id: str, org_id: str, attempt: int) -> None:
        self.sessions, self.id, self.org, self.attempt = sessions, job_id, org_id, attempt

    def session(self):
        from agentgym_envs.platform.db import TenantStore

        return TenantStore(self.sessions, uuid.UUID(self.org)).session()

    def update(self, s, sets: str, **values: Any) -> None:
        """``UPDATE ... SET sets`` while this attempt is the job's running one, else stop."""
        from sqlalchemy import text

        done = s.execute(
            text(
                f"UPDATE training_jobs SET {sets}, updated_at = now() "
                "WHERE id = CAST(:job AS uuid) AND status = 'running' AND attempts = :attempt"
            ),
            {**values, "job": self.id, "attempt": self.attempt},
        ).rowcount
        if not done:
            raise _Stopped

    def finished_stage(self, name: str, output: dict[str, Any], following: str) -> None:
        with self.session() as s:
            self.update(
                s,
                "checkpoint = checkpoint || CAST(:out AS jsonb), stage = :stage, progress = :p",
                out=json.dumps({name: output}),
                stage=following,
                p=_STAGES[following],
            )
        if os.environ.get(HOLD_ENV) == name:
            logger.warning("%s=%s: holding job %s (a crash drill)", HOLD_ENV, name, self.id)
            while True:
                time.sleep(3600)


def run_job(
    db_url: str,
    job_id: str,
    org_id: str,
    *,
    artifacts: str | os.PathLike[str],
    on_stage: Callable[[str, float], None] | None = None,
) -> dict[str, Any] | None:
    """Run (or resume) training job ``job_id`` of ``org_id``; its result, or ``None`` when the
    job is not queued (cancelled, finished, or not this organisation's) or stopped."""
    from sqlalchemy import text

    from agentgym_envs.platform.db import TenantStore, make_engine, sessionmaker_for

    engine = make_engine(db_url, pool_size=2, max_overflow=2)
    sessions = sessionmaker_for(engine)
    try:
        with TenantStore(sessions, uuid.UUID(org_id)).session() as s:
            row = s.execute(
                text(
                    "UPDATE training_jobs SET status = 'running', attempts = attempts + 1, "
                    "error = NULL, stage = CASE WHEN stage IN ('', 'done') THEN 'export' "
                    "ELSE stage END, started_at = coalesce(started_at, now()), "
                    "updated_at = now() WHERE id = CAST(:id AS uuid) AND status = 'queued' "
                    "RETURNING params, checkpoint, attempts"
                ),
                {"id": job_id},
            ).one_or_none()
        if row is None:
            logger.warning("training job %s of %s is not queued: skipped", job_id, org_id)
            return None
        job = _Job(sessions, job_id, org_id, row.attempts)
        if row.attempts > 1:
            logger.info("training job %s resumed (attempt %d)", job_id, row.attempts)
        folder = Path(artifacts) / org_id / job_id
        try:
            result = _stages(job, dict(row.params), dict(row.checkpoint or {}), folder, on_stage)
        except _Stopped:
            logger.info("training job %s was cancelled or taken over: stopped", job_id)
            return None
        except Exception as exc:
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            if not isinstance(exc, AgentGymError):
                logger.exception("training job %s failed", job_id)
                message = f"{type(exc).__name__}: {message}"
            try:
                with job.session() as s:
                    job.update(
                        s, "status = 'failed', error = :e, finished_at = now()", e=message[:1000]
                    )
            except _Stopped:
                pass
            return None
        return result
    finally:
        engine.dispose()


def _stages(
    job: _Job,
    params: dict[str, Any],
    checkpoint: dict[str, Any],
    folder: Path,
    on_stage: Callable[[str, float], None] | None,
) -> dict[str, Any]:
    """Export, train, register (the module docstring's stages), skipping those the checkpoint
    holds; the job's result."""
    started = time.perf_counter()
    skipped: list[str] = []

    def reached(name: str) -> None:
        if on_stage is not None:
            on_stage(name, _STAGES[name])

    export = checkpoint.get("export")
    if export is not None and Path(export["records"]).is_file():
        skipped.append("export")
    else:
        reached("export")
        export = _export(job, params, folder)
        job.finished_stage("export", export, "train")
    records = [json.loads(line) for line in Path(export["records"]).read_text().splitlines()]
    trained = checkpoint.get("train") if skipped else None
    if trained is not None and Path(trained["figures"]["weights"]).exists():
        skipped.append("train")
    else:
        reached("train")
        trained = _fit(job, params, records, folder)
        job.finished_stage("train", trained, "register")
    reached("register")
    label = f"{params['agent']}@{params['version']}"
    result = {
        "version": params["version"],
        "label": label,
        "parent": params.get("parent"),
        "records": len(records),
        **trained["figures"],
        "skipped": skipped,
        "attempt": job.attempt,
        "seconds": round(time.perf_counter() - started, 2),
    }
    _register(job, params, trained, len(records), result)
    return result


def _export(job: _Job, params: dict[str, Any], folder: Path) -> dict[str, Any]:
    from agentgym_envs.platform.training_data import agent_records, agent_versions

    with job.session() as s:
        if params["version"] in agent_versions(s, params["agent"]):
            raise JobError(
                f"agent {params['agent']!r} got version {params['version']!r} after the job "
                "was queued: queue it again with another version"
            )
        records = agent_records(s, params["agent"], "sft", feedback=params.get("feedback"))
    if not records:
        raise JobError(
            f"agent {params['agent']!r} has no judged-successful executions to train on: record "
            "executions with their outcomes (and feedback) first, or drop the feedback filter"
        )
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return {"records": str(path), "count": len(records)}


def _fit(
    job: _Job, params: dict[str, Any], records: list[dict[str, Any]], folder: Path
) -> dict[str, Any]:
    """The trainer's output: the version's ``model`` and ``config``, the job's ``figures``."""
    from agentgym_envs.train import bc_table

    if params["trainer"] == "sft":
        from agentgym_envs.platform.db import TenantStore
        from agentgym_envs.platform.training_data import agent_labels

        with job.session() as s:
            labels = agent_labels(s, params["agent"])
        filters = {"versions": labels}
        if params.get("feedback"):
            filters["feedback"] = params["feedback"]
        store = TenantStore(job.sessions, uuid.UUID(job.org))
        model, config, figures = _fit_sft(store, filters, params, folder)
    else:
        table = bc_table.fit(records)
        if not table:
            raise JobError(
                "the judged executions have no (observation, action) steps to learn from: "
                "record each execution's steps (trace.step or steps=[...])"
            )
        path = bc_table.save(table, folder / f"{params['agent']}-{params['version']}.json")
        model, config = "behaviour-cloning table", {"table": str(path)}
        figures = {"states": len(table), "weights": str(path)}
    return {"model": model, "config": config, "figures": figures}


def _register(
    job: _Job, params: dict[str, Any], trained: dict[str, Any], records: int, result: dict
) -> None:
    """The new version and the job's success in one transaction (the job row locked first:
    a cancel either comes before, and nothing is registered, or after, and finds it done)."""
    from sqlalchemy import text

    from agentgym_envs.experience.versions import get_or_register, get_version
    from agentgym_envs.platform.db import SessionStore

    with job.session() as s:
        s.execute(
            text("SELECT 1 FROM training_jobs WHERE id = CAST(:id AS uuid) FOR UPDATE"),
            {"id": job.id},
        )
        parent = params.get("parent")
        parent_id = (
            get_version(SessionStore(s), f"{params['agent']}@{parent}", session=s).id
            if parent
            else None
        )
        config = {
            **trained["config"],
            "trainer": params["trainer"],
            "job_id": job.id,
            "records": records,
            "trained_on": {"agent": params["agent"], "feedback": params.get("feedback")},
        }
        version = get_or_register(
            s,
            params["agent"],
            params["version"],
            model=trained["model"],
            config=config,
            parent_id=parent_id,
            notes=f"trained by job {job.id}",
        )
        if (version.config or {}).get("job_id") != job.id:
            raise JobError(
                f"agent {params['agent']!r} got a version {params['version']!r} from elsewhere "
                "while the job ran: queue the job again with another version"
            )
        job.update(
            s,
            "status = 'succeeded', stage = 'done', progress = 1, result = CAST(:r AS jsonb), "
            "finished_at = now()",
            r=json.dumps(result),
        )


def _fit_sft(
    store, filters: dict[str, Any], params: dict[str, Any], folder: Path
) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The ``sft`` trainer: the train pipeline's ``sft`` stage (TRL's ``SFTTrainer`` on the
    base model) over the agent's judged executions, written as that stage's collected
    trajectories. Returns the version's model name, config and the job's figures."""
    from agentgym_envs.datasets.agenttraj import save_agenttraj
    from agentgym_envs.datasets.export import split_invalid
    from agentgym_envs.experience.training import select_episodes, trajectories
    from agentgym_envs.train import sft
    from agentgym_envs.train.collect import TRAJECTORIES
    from agentgym_envs.train.folder import RunFolder
    from agentgym_envs.train.model import base_checkpoint
    from agentgym_envs.train.settings import TrainSettings

    base = params["base_model"]
    known = _WORKER.get("models", {})
    checkpoint = Path(known[base]) if base in known else None
    if checkpoint is None:
        if base != "smollm2":
            names = ", ".join(["smollm2", *sorted(known)])
            raise JobError(f"base_model {base!r} is not on this worker: use one of {names}")
        checkpoint = base_checkpoint(base)
    trajs, _ = split_invalid(
        trajectories(store, select_episodes(store, outcome="success", **filters))
    )
    for traj in trajs:  # an execution's id is a UUID; AgentTraj wants '<prefix>_<index>'
        if not _is_item_id(traj.item_id):
            traj.extra["execution_id"] = traj.item_id
            traj.item_id = f"platform_{traj.extra['episode_id']}"
    # the run folder's envs are what a pipeline would evaluate on: the gym envs among the
    # executions' (an SDK-recorded agent's are 'platform/<agent>', no env: the default stays)
    envs = tuple(sorted(e for e in {t.extra.get("env_id", "") for t in trajs} if _is_env(e)))
    settings = TrainSettings(
        **({"envs": envs} if envs else {}),
        model=str(checkpoint),
        **{f"sft_{k}": v for k, v in params["sft"].items()},
    )
    with RunFolder(folder / "run", settings) as run:
        save_agenttraj(trajs, run.stage_dir("collect") / TRAJECTORIES)
        figures = sft.run(run, checkpoint)
        trained = run.checkpoint("sft")
    config = {"checkpoint": str(trained), "base_model": base, "sft": params["sft"]}
    keep = ("episodes", "tokens", "steps", "loss_first", "loss_last")
    return f"sft of {base}", config, {"weights": str(trained), **{k: figures[k] for k in keep}}


def _is_item_id(item_id: str) -> bool:
    from agentgym_envs.datasets.items import parse_item_id

    try:
        parse_item_id(item_id)
    except AgentGymError:
        return False
    return True


def _is_env(env_id: str) -> bool:
    from agentgym_envs.spec import resolve_id

    try:
        resolve_id(env_id)
    except AgentGymError:
        return False
    return True


# -- recovering the jobs of dead workers ----------------------------------------------------
def _requeue(db_url: str, job_id: str, org_id: str) -> str:
    """The row of a job whose worker died, as its organisation: queued again (``"retry"``),
    failed after :data:`MAX_ATTEMPTS` runs or before (``"failed"``), or already finished
    otherwise (``"done"``)."""
    from sqlalchemy import text

    from agentgym_envs.platform.db import TenantStore, make_engine, sessionmaker_for

    engine = make_engine(db_url, pool_size=1, max_overflow=0)
    try:
        with TenantStore(sessionmaker_for(engine), uuid.UUID(org_id)).session() as s:
            row = s.execute(
                text(
                    "UPDATE training_jobs SET "
                    "status = CASE WHEN attempts >= :max THEN 'failed' ELSE 'queued' END, "
                    "error = CASE WHEN attempts >= :max THEN 'its worker stopped (killed, or "
                    "out of memory) ' || attempts || ' times, last in stage ' || stage || "
                    "': not retried again; see the workers'' logs and queue it again' ELSE "
                    "'its worker stopped in stage ' || stage || ': queued again (run ' || "
                    "(attempts + 1) || ' of ' || :max || ')' END, "
                    "finished_at = CASE WHEN attempts >= :max THEN now() END, "
                    "updated_at = now() WHERE id = CAST(:id AS uuid) AND status = 'running' "
                    "RETURNING status"
                ),
                {"id": job_id, "max": MAX_ATTEMPTS},
            ).one_or_none()
            if row is None:
                status = s.execute(
                    text("SELECT status FROM training_jobs WHERE id = CAST(:id AS uuid)"),
                    {"id": job_id},
                ).scalar()
                # a row a worker already finished (or one that failed before, when its worker
                # was stopped between marking the row and the queue's job): as it is
                return {"queued": "retry", "failed": "failed"}.get(status, "done")
    finally:
        engine.dispose()
    return "retry" if row.status == "queued" else "failed"


async def recover_stalled(app, db_url: str, stalled_after: float = STALLED_AFTER) -> list[str]:
    """Queue again (or fail) the training jobs whose worker sent no heartbeat for
    ``stalled_after`` seconds; the ids of the jobs handled."""
    from procrastinate.jobs import Status

    handled = []
    stalled = await app.job_manager.get_stalled_jobs(
        queue=QUEUE, task_name=TASK, seconds_since_heartbeat=stalled_after
    )
    for queued in stalled:
        job_id, org_id = queued.task_kwargs["job_id"], queued.task_kwargs["org_id"]
        what = await asyncio.to_thread(_requeue, db_url, job_id, org_id)
        if what == "retry":
            await app.job_manager.retry_job_by_id_async(
                queued.id, retry_at=dt.datetime.now(dt.timezone.utc)
            )
        else:
            status = Status.FAILED if what == "failed" else Status.SUCCEEDED
            await app.job_manager.finish_job_by_id_async(queued.id, status, delete_job=False)
        logger.warning("training job %s: its worker died; %s", job_id, what)
        handled.append(job_id)
    return handled


async def _recovering(app, db_url: str, stalled_after: float) -> None:
    while True:
        try:
            await recover_stalled(app, db_url, stalled_after)
        except Exception:  # a lost connection: try again on the next round
            logger.exception("looking for stalled training jobs failed")
        await asyncio.sleep(stalled_after / 2)


async def _work(
    app, db_url: str, *, concurrency: int, stalled_after: float, wait: bool, name: str | None
) -> None:
    async with app.open_async():
        # a SIGTERM or Ctrl-C while the dead workers' jobs are looked at (before procrastinate
        # installs its own handlers) stops the worker cleanly after that look, as later ones do
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        try:
            await recover_stalled(app, db_url, stalled_after)
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)
        if stop.is_set():
            logger.info("stopped before taking a job")
            return
        recovery = asyncio.create_task(_recovering(app, db_url, stalled_after))
        try:
            await app.run_worker_async(
                queues=[QUEUE],
                name=name,
                wait=wait,
                concurrency=concurrency,
                install_signal_handlers=True,
                update_heartbeat_interval=stalled_after / 4,
                stalled_worker_timeout=stalled_after,
            )
        finally:
            recovery.cancel()


def worker(
    db_url: str,
    artifacts: str | os.PathLike[str],
    *,
    models: dict[str, str] | None = None,
    concurrency: int = 1,
    stalled_after: float = STALLED_AFTER,
    wait: bool = True,
    name: str | None = None,
) -> None:
    """Run a worker on the training queue until SIGTERM or Ctrl-C (``wait=False``: until the
    queue is empty). ``db_url``: the service role's URL (row-level security binds the worker
    too); ``artifacts``: the folder for trained weights; ``models``: base models ``sft`` jobs
    may name (name -> checkpoint folder), next to ``smollm2``; ``concurrency``: jobs at once;
    ``stalled_after``: seconds without a heartbeat after which a worker counts as dead."""
    from agentgym_envs.platform.db import normalise_url
    from agentgym_envs.platform.jobs import make_app

    if concurrency < 1:
        raise AgentGymError(f"concurrency {concurrency}: at least 1")
    if stalled_after < 4:
        raise AgentGymError(f"stalled_after {stalled_after:g} s: at least 4 (heartbeats/4)")
    db_url = normalise_url(db_url)
    Path(artifacts).mkdir(parents=True, exist_ok=True)
    _WORKER.update(db=db_url, artifacts=str(artifacts), models=dict(models or {}))
    app = make_app(db_url)
    asyncio.run(
        _work(
            app,
            db_url,
            concurrency=concurrency,
            stalled_after=stalled_after,
            wait=wait,
            name=name,
        )
    )


def parse_models(items: list[str]) -> dict[str, str]:
    """``NAME=CHECKPOINT`` options as a dict (a checkpoint is a folder with ``config.json``)."""
    from agentgym_envs.platform.jobs import _LABEL_PART

    models = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep or not _LABEL_PART.match(name) or not (Path(path) / "config.json").is_file():
            raise AgentGymError(
                f"--model {item!r}: write NAME=CHECKPOINT, a folder with config.json"
            )
        models[name] = path
    return models


__all__ = ["MAX_ATTEMPTS", "STALLED_AFTER", "parse_models", "recover_stalled", "run_job", "worker"]
