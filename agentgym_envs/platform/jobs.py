"""Training jobs on a queue: fine-tune from judged data, watch the progress, get a new version.

**Engine: procrastinate, on the platform's own PostgreSQL.** The platform already runs
PostgreSQL for its tenants, so the queue adds no service to deploy, secure and back up (Celery
would add Redis or RabbitMQ, and a second place where job state lives). A job is queued in the
*same transaction* as its ``training_jobs`` row (procrastinate defers on the caller's
connection), so a job is never queued for a row that was rolled back, nor a row left without
its job. Workers wake on ``LISTEN/NOTIFY``, take jobs with ``SKIP LOCKED``, and a crashed
worker's job can be retried; procrastinate's tables are created by migration ``ops_0002``.

**Tenancy.** ``training_jobs`` has row-level security like every tenant table: the API reads
and writes it through the request's tenant session, and the worker sets ``agentgym.org_id``
to the job's organisation before it touches the row, so a worker bug cannot write one
organisation's progress into another's job.

**What a job does** (:func:`run_job`), each stage recorded in the row (``stage``,
``progress`` 0..1, then ``result`` or ``error``):

1. ``export``: the judged training data, from the organisation's experience store
   (:func:`~agentgym_envs.experience.training.export_training`, SFT records: judged-successful
   episodes, a person's ``bad`` actions masked out), filtered by ``versions`` / ``envs`` /
   ``feedback``.
2. ``train``: the trainer. ``bc-table`` is the behaviour-cloning table of
   :mod:`agentgym_envs.train.bc_table` (the experience loop's learner: seconds on a CPU);
   ``sft`` is the train pipeline's ``sft`` stage (:mod:`agentgym_envs.train.sft`, TRL's
   ``SFTTrainer``) on a base model the worker offers (``smollm2``, the local model, or one
   given with ``--model NAME=CHECKPOINT``), over the judged episodes with the bad actions'
   loss masked; the version's config names the trained checkpoint.
3. ``register``: the trained weights are registered as the new version ``name@version``
   (parent: ``parent``) in the same experience store
   (:func:`~agentgym_envs.experience.versions.register_version`); the version's config names
   the job and its weights file.

Where an organisation's experience store is and where weights go is the platform's choice
(``store_for`` and the worker's ``artifacts`` folder), never the request's: a tenant cannot
point a worker at a path or database.

Run a worker with ``python -m agentgym_envs.platform.jobs worker --db URL --artifacts DIR``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import re
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agentgym_envs.errors import AgentGymError

logger = logging.getLogger(__name__)

#: The procrastinate queue the training jobs go to.
QUEUE = "training"
TASK = "agentgym.train"
TRAINERS = ("bc-table", "sft")
#: Behaviour-cloning settings a ``sft`` job may set (TrainSettings' names without ``sft_``).
SFT_KEYS = ("epochs", "lr", "batch", "layers")
STATUSES = ("queued", "running", "succeeded", "failed")
_LABEL_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


class JobError(AgentGymError):
    """A training job that cannot be queued or run as asked (the message says the mend)."""


def make_app(db_url: str):
    """The procrastinate app on the platform's database (``postgresql://`` or SQLAlchemy's
    ``postgresql+psycopg://`` URL) with the training task registered."""
    from procrastinate import App, PsycopgConnector

    app = App(connector=PsycopgConnector(conninfo=_conninfo(db_url)))
    app.task(name=TASK, queue=QUEUE, pass_context=False)(_task)
    return app


def _conninfo(url: str) -> str:
    return re.sub(r"^postgresql\+\w+://", "postgresql://", url)


def _task(job_id: str, org_id: str) -> None:  # runs in the worker: see run_job
    run_job(_WORKER["db"], job_id, org_id, artifacts=_WORKER["artifacts"])


#: The worker process's settings (:func:`worker` fills it in).
_WORKER: dict[str, Any] = {}


def check_request(request: dict[str, Any]) -> dict[str, Any]:
    """``request`` checked: ``name`` and ``version`` (the new version's label parts),
    optional ``parent`` (``name@version``), ``trainer`` (``bc-table``), and the export filters
    ``versions``, ``envs`` (lists of strings) and ``feedback``."""
    if not isinstance(request, dict):
        raise JobError("a training job is a JSON object: {name, version, ...}")
    known = {"name", "version", "parent", "trainer", "versions", "envs", "feedback"}
    known |= {"base_model", "sft"}
    unknown = sorted(set(request) - known)
    if unknown:
        raise JobError(f"unknown job fields {', '.join(unknown)}: use {', '.join(sorted(known))}")
    out: dict[str, Any] = {"trainer": request.get("trainer", "bc-table")}
    for key in ("name", "version"):
        value = request.get(key)
        if not isinstance(value, str) or not _LABEL_PART.match(value):
            raise JobError(f"{key}={value!r}: letters, digits, '.', '_' or '-' (e.g. agent, 2)")
        out[key] = value
    if out["trainer"] not in TRAINERS:
        raise JobError(f"trainer {out['trainer']!r}: use one of {', '.join(TRAINERS)}")
    parent = request.get("parent")
    if parent is not None:
        if not isinstance(parent, str) or parent.count("@") != 1:
            raise JobError(f"parent={parent!r}: write it as name@version")
        out["parent"] = parent
    for key in ("versions", "envs"):
        value = request.get(key)
        if value is not None:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise JobError(f"{key} must be a list of strings")
            out[key] = value
    feedback = request.get("feedback")
    if feedback not in (None, "good", "human", "no-bad"):
        raise JobError(f"feedback={feedback!r}: use good, human or no-bad")
    if feedback is not None:
        out["feedback"] = feedback
    if out["trainer"] == "sft":
        base = request.get("base_model", "smollm2")
        if not isinstance(base, str) or not _LABEL_PART.match(base):
            raise JobError(f"base_model={base!r}: name a model the workers have (e.g. smollm2)")
        out["base_model"] = base
        out["sft"] = _sft_settings(request.get("sft") or {})
    elif "base_model" in request or "sft" in request:
        raise JobError("base_model and sft go with trainer 'sft'")
    return out


def _sft_settings(given: Any) -> dict[str, Any]:
    """The ``sft`` settings checked by :class:`~agentgym_envs.train.settings.TrainSettings`."""
    from agentgym_envs.train.settings import TrainSettings

    if not isinstance(given, dict) or set(given) - set(SFT_KEYS):
        raise JobError(f"sft settings: an object with {', '.join(SFT_KEYS)}")
    try:
        TrainSettings(**{f"sft_{k}": v for k, v in given.items()})
    except (TypeError, ValueError, AgentGymError) as exc:
        raise JobError(f"sft settings: {exc}") from None
    return dict(given)


def enqueue_training(session, app, request: dict[str, Any], *, store: str) -> dict[str, Any]:
    """Queue a fine-tuning job for the session's organisation (``session``: a tenant session,
    ``agentgym.org_id`` set; ``app``: :func:`make_app`'s) on the judged data of ``store`` (the
    organisation's experience store, chosen by the platform). The row and the queued job are
    written in the session's transaction: both or neither. Returns the job (:func:`get_job`)."""
    from sqlalchemy import text

    params = {**check_request(request), "store": store}
    row = session.execute(
        text(
            "INSERT INTO training_jobs (params) VALUES (CAST(:params AS jsonb)) "
            "RETURNING id, org_id"
        ),
        {"params": json.dumps(params)},
    ).one()
    raw = session.connection().connection.driver_connection
    app.tasks[TASK].configure(connection=raw).defer(job_id=str(row.id), org_id=str(row.org_id))
    return get_job(session, str(row.id))


_COLUMNS = (
    "id, kind, status, stage, progress, params, result, error, created_at, updated_at, "
    "started_at, finished_at"
)


def _job(row) -> dict[str, Any]:
    data = dict(row._mapping)
    data["id"] = str(data["id"])
    data["params"] = {k: v for k, v in (data["params"] or {}).items() if k != "store"}
    for key in ("created_at", "updated_at", "started_at", "finished_at"):
        if data[key] is not None:
            data[key] = data[key].isoformat()
    return data


def get_job(session, job_id: str) -> dict[str, Any]:
    """The job ``job_id`` of the session's organisation (status, stage, progress, result).

    Raises:
        JobError: no such job for this organisation (another's looks the same).
    """
    from sqlalchemy import text

    try:
        uuid.UUID(str(job_id))
    except ValueError:
        raise JobError(f"no training job {job_id!r}") from None
    row = session.execute(
        text(f"SELECT {_COLUMNS} FROM training_jobs WHERE id = CAST(:id AS uuid)"),
        {"id": str(job_id)},
    ).one_or_none()
    if row is None:
        raise JobError(f"no training job {job_id!r}")
    return _job(row)


def list_jobs(session, limit: int = 100) -> list[dict[str, Any]]:
    """The organisation's jobs, newest first."""
    from sqlalchemy import text

    rows = session.execute(
        text(f"SELECT {_COLUMNS} FROM training_jobs ORDER BY created_at DESC LIMIT :n"),
        {"n": max(1, min(int(limit), 1000))},
    )
    return [_job(r) for r in rows]


# -- the worker side ------------------------------------------------------------------------
@contextlib.contextmanager
def _as_org(engine, org_id: str) -> Iterator[Any]:
    from sqlalchemy import text
    from sqlalchemy.orm import Session

    with Session(engine) as s, s.begin():
        s.execute(text("SELECT set_config('agentgym.org_id', :org, true)"), {"org": org_id})
        yield s


def _update(engine, org_id: str, job_id: str, *, finished: bool = False, **fields: Any) -> None:
    """Set ``fields`` of the job's row (and ``finished_at``, when ``finished``) at once."""
    from sqlalchemy import text

    sets = ", ".join(
        f"{k} = CAST(:{k} AS jsonb)" if k == "result" else f"{k} = :{k}" for k in fields
    )
    if finished:
        sets += ", finished_at = now()"
    values = {k: (json.dumps(v) if k == "result" else v) for k, v in fields.items()}
    with _as_org(engine, org_id) as s:
        s.execute(
            text(
                f"UPDATE training_jobs SET {sets}, updated_at = now() WHERE id = CAST(:job AS uuid)"
            ),
            {**values, "job": job_id},
        )


def run_job(
    db_url: str,
    job_id: str,
    org_id: str,
    *,
    artifacts: str | os.PathLike[str],
    on_stage: Callable[[str, float], None] | None = None,
) -> dict[str, Any] | None:
    """Run training job ``job_id`` of ``org_id`` (what the worker's task does); its result,
    or ``None`` when the job is not queued (already run, or not this organisation's)."""
    from sqlalchemy import create_engine, text

    engine = create_engine(db_url)
    try:
        with _as_org(engine, org_id) as s:
            row = s.execute(
                text(
                    "UPDATE training_jobs SET status = 'running', stage = 'export', "
                    "progress = 0.05, started_at = now(), updated_at = now() "
                    "WHERE id = CAST(:id AS uuid) AND status = 'queued' RETURNING params"
                ),
                {"id": job_id},
            ).one_or_none()
        if row is None:
            logger.warning("training job %s of %s is not queued: skipped", job_id, org_id)
            return None
        params = dict(row.params)

        def stage(name: str, progress: float) -> None:
            _update(engine, org_id, job_id, stage=name, progress=progress)
            if on_stage is not None:
                on_stage(name, progress)

        try:
            result = _train(params, job_id, Path(artifacts) / org_id / job_id, stage)
        except Exception as exc:
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            if not isinstance(exc, AgentGymError):
                logger.exception("training job %s failed", job_id)
                message = f"{type(exc).__name__}: {message}"
            _update(engine, org_id, job_id, finished=True, status="failed", error=message[:1000])
            return None
        _update(
            engine,
            org_id,
            job_id,
            finished=True,
            status="succeeded",
            stage="done",
            progress=1.0,
            result=result,
        )
        return result
    finally:
        engine.dispose()


def _train(
    params: dict[str, Any], job_id: str, folder: Path, stage: Callable[[str, float], None]
) -> dict[str, Any]:
    """Export, train, register (the module docstring's stages); the job's result."""
    from agentgym_envs.experience import open_store, register_version
    from agentgym_envs.experience.training import export_training
    from agentgym_envs.train import bc_table

    started = time.perf_counter()
    store = open_store(params["store"])
    try:
        filters = {k: params[k] for k in ("versions", "envs", "feedback") if k in params}
        records = export_training(store, "sft", **filters)
        if not records:
            raise JobError(
                "no judged-successful episodes match the job's filters: record and judge "
                "episodes first, or widen versions/envs/feedback"
            )
        stage("train", 0.4)
        if params["trainer"] == "sft":
            model, config, figures = _fit_sft(store, filters, params, folder)
        else:
            table = bc_table.fit(records)
            path = bc_table.save(table, folder / f"{params['name']}-{params['version']}.json")
            model, config = "behaviour-cloning table", {"table": str(path)}
            figures = {"states": len(table), "weights": str(path)}
        stage("register", 0.8)
        label = f"{params['name']}@{params['version']}"
        register_version(
            store,
            params["name"],
            params["version"],
            model=model,
            parent=params.get("parent"),
            config={
                **config,
                "trainer": params["trainer"],
                "job_id": job_id,
                "records": len(records),
                "trained_on": filters,
            },
            notes=f"trained by job {job_id}",
        )
    finally:
        store.close()
    return {
        "version": label,
        "parent": params.get("parent"),
        "records": len(records),
        **figures,
        "seconds": round(time.perf_counter() - started, 2),
    }


def _fit_sft(
    store, filters: dict[str, Any], params: dict[str, Any], folder: Path
) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The ``sft`` trainer: the train pipeline's ``sft`` stage (TRL's ``SFTTrainer`` on the
    base model) over the store's judged episodes, written as that stage's collected
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
    envs = tuple(sorted({t.extra["env_id"] for t in trajs}))
    settings = TrainSettings(
        envs=envs, model=str(checkpoint), **{f"sft_{k}": v for k, v in params["sft"].items()}
    )
    with RunFolder(folder / "run", settings) as run:
        save_agenttraj(trajs, run.stage_dir("collect") / TRAJECTORIES)
        figures = sft.run(run, checkpoint)
        trained = run.checkpoint("sft")
    config = {"checkpoint": str(trained), "base_model": base, "sft": params["sft"]}
    keep = ("episodes", "tokens", "steps", "loss_first", "loss_last")
    return f"sft of {base}", config, {"weights": str(trained), **{k: figures[k] for k in keep}}


def worker(
    db_url: str,
    artifacts: str | os.PathLike[str],
    *,
    models: dict[str, str] | None = None,
    wait: bool = True,
) -> None:
    """Run a worker on the training queue until interrupted (``wait=False``: until the queue
    is empty). ``models``: base models ``sft`` jobs may name (name -> checkpoint folder), next
    to ``smollm2``, the local model."""
    _WORKER.update(db=db_url, artifacts=str(artifacts), models=dict(models or {}))
    app = make_app(db_url)
    with app.open():
        app.run_worker(queues=[QUEUE], wait=wait, concurrency=1, install_signal_handlers=wait)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m agentgym_envs.platform.jobs")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("worker", help="run a training-queue worker")
    run.add_argument("--db", default=os.environ.get("AGENTGYM_PLATFORM_DB"), help="database URL")
    run.add_argument("--artifacts", required=True, help="folder for trained weights")
    run.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="NAME=CHECKPOINT",
        help="a base model sft jobs may name (a save_pretrained folder); repeatable",
    )
    run.add_argument("--once", action="store_true", help="stop when the queue is empty")
    args = parser.parse_args(argv)
    if not args.db:
        parser.error("give the platform database: --db URL (or AGENTGYM_PLATFORM_DB)")
    models = {}
    for item in args.model:
        name, sep, path = item.partition("=")
        if not sep or not _LABEL_PART.match(name) or not (Path(path) / "config.json").is_file():
            parser.error(f"--model {item!r}: write NAME=CHECKPOINT, a folder with config.json")
        models[name] = path
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    worker(args.db, args.artifacts, models=models, wait=not args.once)


# -- HTTP ---------------------------------------------------------------------------------
def jobs_router(tenant_session: Callable[..., Any], app, store_for: Callable[[Any], str]):
    """A FastAPI router: ``POST /jobs/training`` (queue; 202 with the job), ``GET
    /jobs/training`` (the organisation's jobs), ``GET /jobs/training/{id}`` (one job: status,
    stage, progress, result or error; 404 for another organisation's). ``store_for(session)``
    names the organisation's experience store (the platform's mapping)."""
    from agentgym_envs.platform.jobs_routes import router

    return router(tenant_session, app, store_for)


# -- client side (the SDK's Client calls these with its httpx.Client) --------------------
def http_queue_training(client, **request: Any) -> dict[str, Any]:
    """Queue a training job through the platform (``request``: ``name``, ``version``,
    ``parent``, ``envs``, ``versions``, ``feedback``, ``trainer``); the queued job."""
    from agentgym_envs.platform.replies import reply_json

    return reply_json(client.post("/jobs/training", json=request))


def http_training_job(client, job_id: str) -> dict[str, Any]:
    """One job of the caller's organisation: status, stage, progress, result or error."""
    from agentgym_envs.platform.replies import reply_json

    return reply_json(client.get(f"/jobs/training/{job_id}"), JobError)


def http_wait_for_job(
    client,
    job_id: str,
    *,
    timeout: float = 3600.0,
    every: float = 1.0,
    on_progress: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Poll job ``job_id`` until it has succeeded or failed (``on_progress`` sees each
    change of stage or progress); the finished job.

    Raises:
        JobError: the job is still not finished after ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    last = None
    while True:
        job = http_training_job(client, job_id)
        now = (job["status"], job["stage"], job["progress"])
        if now != last and on_progress is not None:
            on_progress(job)
        last = now
        if job["status"] in ("succeeded", "failed"):
            return job
        if time.monotonic() > deadline:
            raise JobError(
                f"training job {job_id} is still {job['status']} ({job['stage']}, "
                f"{job['progress']:.0%}) after {timeout:g} s: is a worker running? "
                "(python -m agentgym_envs.platform.jobs worker)"
            )
        time.sleep(every)


__all__ = [
    "QUEUE",
    "TRAINERS",
    "JobError",
    "check_request",
    "enqueue_training",
    "get_job",
    "http_queue_training",
    "http_training_job",
    "http_wait_for_job",
    "jobs_router",
    "list_jobs",
    "main",
    "make_app",
    "run_job",
    "worker",
]

if __name__ == "__main__":
    main()
