"""Training jobs on a queue: fine-tune a platform agent from its judged executions, watch the
progress, get a new version of the agent.

**Engine: procrastinate, on the platform's own PostgreSQL.** The platform already runs
PostgreSQL for its tenants, so the queue adds no service to deploy, secure and back up (Celery
would add Redis or RabbitMQ, and a second place where job state lives). A job is queued in the
*same transaction* as its ``training_jobs`` row (procrastinate defers on the caller's
connection), so a job is never queued for a row that was rolled back, nor a row left without
its job. Workers wake on ``LISTEN/NOTIFY``, take jobs with ``SKIP LOCKED`` and send heartbeats;
a job whose worker stopped sending them is retried (or failed with the reason), see
:mod:`~agentgym_envs.platform.jobs_worker`. procrastinate's tables come with migration
``ops_0002``; ``jobs_0001`` lets the service's tenant role use them.

**Tenancy.** ``training_jobs`` has row-level security like every tenant table: the API reads
and writes it through the request's tenant session, and the worker sets ``agentgym.org_id``
to the job's organisation before it touches the row or the organisation's executions, so a
worker bug cannot read one organisation's data or write its progress into another's job.

A job names a platform agent (``agent_id``) and the new ``version``; its ``parent`` is one of
the agent's versions (default: the current one). The worker's stages (``export`` → ``train``
→ ``register``) are in :mod:`~agentgym_envs.platform.jobs_worker`; the HTTP routes
(``/v1/jobs``) in :mod:`~agentgym_envs.platform.jobs_routes`.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

from agentgym_envs.errors import AgentGymError

logger = logging.getLogger(__name__)

#: The procrastinate queue the training jobs go to.
QUEUE = "training"
TASK = "agentgym.train"
TRAINERS = ("bc-table", "sft")
#: Behaviour-cloning settings a ``sft`` job may set (TrainSettings' names without ``sft_``).
SFT_KEYS = ("epochs", "lr", "batch", "layers")
STATUSES = ("queued", "running", "succeeded", "failed", "cancelled")
#: Statuses a job does not leave.
FINISHED = ("succeeded", "failed", "cancelled")
_LABEL_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


class JobError(AgentGymError):
    """A training job that cannot be queued or run as asked (the message says the mend)."""


class JobNotFound(JobError):
    """No such job (or agent) in the caller's organisation; another's looks the same."""


class JobConflict(JobError):
    """The request clashes with what exists (a version taken, a job already finished)."""


def make_app(db_url: str):
    """The procrastinate app on the platform's database (``postgresql://`` or SQLAlchemy's
    ``postgresql+psycopg://`` URL) with the training task registered."""
    from procrastinate import App, PsycopgConnector

    from agentgym_envs.platform.jobs_worker import task

    app = App(connector=PsycopgConnector(conninfo=_conninfo(db_url)))
    app.task(name=TASK, queue=QUEUE, pass_context=False)(task)
    return app


def _conninfo(url: str) -> str:
    return re.sub(r"^postgresql\+\w+://", "postgresql://", url)


def check_request(request: dict[str, Any]) -> dict[str, Any]:
    """``request`` checked: ``agent_id`` (a platform agent), ``version`` (the new version),
    optional ``parent`` (one of the agent's versions), ``trainer`` (``bc-table`` or ``sft``
    with ``base_model`` and ``sft`` settings) and ``feedback`` (``good``, ``human``,
    ``no-bad``: which judged executions to train on)."""
    if not isinstance(request, dict):
        raise JobError("a training job is a JSON object: {agent_id, version, ...}")
    known = {"agent_id", "version", "parent", "trainer", "feedback", "base_model", "sft"}
    unknown = sorted(set(request) - known)
    if unknown:
        raise JobError(f"unknown job fields {', '.join(unknown)}: use {', '.join(sorted(known))}")
    try:
        agent_id = str(uuid.UUID(str(request.get("agent_id"))))
    except ValueError:
        raise JobError("agent_id: the id register_agent gave (a UUID)") from None
    out: dict[str, Any] = {"agent_id": agent_id, "trainer": request.get("trainer", "bc-table")}
    for key in ("version", "parent"):
        value = request.get(key)
        if value is None and key == "parent":
            continue
        if not isinstance(value, str) or not _LABEL_PART.match(value):
            raise JobError(f"{key}={value!r}: letters, digits, '.', '_' or '-' (e.g. 2.0.0)")
        out[key] = value
    if out["trainer"] not in TRAINERS:
        raise JobError(f"trainer {out['trainer']!r}: use one of {', '.join(TRAINERS)}")
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


def enqueue_training(session, app, request: dict[str, Any], *, created_by: str = "") -> dict:
    """Queue a fine-tuning job for the session's organisation (``session``: a tenant session;
    ``app``: :func:`make_app`'s) on its agent's judged executions. The row and the queued job
    are written in the session's transaction: both or neither. Returns the job
    (:func:`get_job`).

    Raises:
        JobNotFound: no such agent (or parent version) in this organisation.
        JobConflict: the agent has that version already.
    """
    from sqlalchemy import text

    from agentgym_envs.platform.models import Agent
    from agentgym_envs.platform.training_data import agent_versions

    params = check_request(request)
    agent = session.get(Agent, uuid.UUID(params["agent_id"]))
    if agent is None:
        raise JobNotFound(f"no agent {params['agent_id']}")
    versions = agent_versions(session, agent.name)
    if params["version"] in versions:
        raise JobConflict(
            f"agent {agent.name!r} has version {params['version']!r} already: name a new one"
        )
    if "parent" not in params:
        from agentgym_envs.platform.api import current_of

        current = current_of(session, agent)
        if current is not None:
            params["parent"] = current.version
    elif params["parent"] not in versions:
        raise JobNotFound(f"agent {agent.name!r} has no version {params['parent']!r}")
    params["agent"] = agent.name
    row = session.execute(
        text(
            "INSERT INTO training_jobs (params, agent_id, created_by) "
            "VALUES (CAST(:params AS jsonb), :agent, :who) RETURNING id, org_id"
        ),
        {"params": json.dumps(params), "agent": agent.id, "who": created_by[:320]},
    ).one()
    raw = session.connection().connection.driver_connection
    queued = (
        app.tasks[TASK].configure(connection=raw).defer(job_id=str(row.id), org_id=str(row.org_id))
    )
    session.execute(
        text("UPDATE training_jobs SET queue_job_id = :q WHERE id = :id"),
        {"q": queued, "id": row.id},
    )
    return get_job(session, str(row.id))


_COLUMNS = (
    "id, agent_id, kind, status, stage, progress, params, result, error, attempts, checkpoint, "
    "created_by, created_at, updated_at, started_at, finished_at"
)


def _job(row) -> dict[str, Any]:
    data = dict(row._mapping)
    data["id"] = str(data["id"])
    data["agent_id"] = str(data["agent_id"]) if data["agent_id"] else None
    data["stages_done"] = list((data.pop("checkpoint") or {}).keys())
    for key in ("created_at", "updated_at", "started_at", "finished_at"):
        if data[key] is not None:
            data[key] = data[key].isoformat()
    return data


def get_job(session, job_id: str) -> dict[str, Any]:
    """The job ``job_id`` of the session's organisation (status, stage, progress, result).

    Raises:
        JobNotFound: no such job for this organisation (another's looks the same).
    """
    from sqlalchemy import text

    try:
        uuid.UUID(str(job_id))
    except ValueError:
        raise JobNotFound(f"no training job {str(job_id)[:60]!r}") from None
    row = session.execute(
        text(f"SELECT {_COLUMNS} FROM training_jobs WHERE id = CAST(:id AS uuid)"),
        {"id": str(job_id)},
    ).one_or_none()
    if row is None:
        raise JobNotFound(f"no training job {job_id!r}")
    return _job(row)


def list_jobs(
    session, limit: int = 100, *, agent_id: str | None = None, status: str | None = None
) -> list[dict[str, Any]]:
    """The organisation's jobs, newest first (of one agent, in one status)."""
    from sqlalchemy import text

    where, values = [], {"n": max(1, min(int(limit), 1000))}
    if agent_id is not None:
        try:
            values["agent"] = uuid.UUID(str(agent_id))
        except ValueError:
            return []
        where.append("agent_id = :agent")
    if status is not None:
        if status not in STATUSES:
            raise JobError(f"status {status!r}: use one of {', '.join(STATUSES)}")
        values["status"] = status
        where.append("status = :status")
    clause = f"WHERE {' AND '.join(where)} " if where else ""
    rows = session.execute(
        text(f"SELECT {_COLUMNS} FROM training_jobs {clause}ORDER BY created_at DESC LIMIT :n"),
        values,
    )
    return [_job(r) for r in rows]


def cancel_job(session, job_id: str, *, by: str = "") -> dict[str, Any]:
    """Cancel a queued or running job of the session's organisation: a queued one never
    runs; a running one stops at its next stage and registers nothing.

    Raises:
        JobNotFound: no such job for this organisation.
        JobConflict: the job has finished already.
    """
    from sqlalchemy import text

    job = get_job(session, job_id)
    row = session.execute(
        text(
            "UPDATE training_jobs SET status = 'cancelled', error = :why, finished_at = now(), "
            "updated_at = now() WHERE id = CAST(:id AS uuid) AND status IN ('queued', 'running') "
            "RETURNING queue_job_id"
        ),
        {"id": job["id"], "why": f"cancelled by {by}" if by else "cancelled"},
    ).one_or_none()
    if row is None:
        raise JobConflict(f"training job {job['id']} has {get_job(session, job_id)['status']}")
    if row.queue_job_id is not None:  # a queued job leaves the queue; a running one is flagged
        session.execute(
            text("SELECT procrastinate_cancel_job_v1(:q, true, false)"), {"q": row.queue_job_id}
        )
    return get_job(session, job_id)


# -- client side (any httpx.Client with the platform's base URL and a key) -----------------
def http_queue_training(client, **request: Any) -> dict[str, Any]:
    """Queue a training job through the platform (``request``: ``agent_id``, ``version``,
    ``parent``, ``trainer``, ``feedback``, ...); the queued job."""
    from agentgym_envs.platform.replies import reply_json

    return reply_json(client.post("/v1/jobs", json=request))


def http_training_job(client, job_id: str) -> dict[str, Any]:
    """One job of the caller's organisation: status, stage, progress, result or error."""
    from agentgym_envs.platform.replies import reply_json

    return reply_json(client.get(f"/v1/jobs/{job_id}"), JobError)


def http_wait_for_job(
    client,
    job_id: str,
    *,
    timeout: float = 3600.0,
    every: float = 1.0,
    on_progress: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Poll job ``job_id`` until it has finished (``on_progress`` sees each change of status,
    stage or progress); the finished job.

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
        if job["status"] in FINISHED:
            return job
        if time.monotonic() > deadline:
            raise not_finished(job, timeout)
        time.sleep(every)


def not_finished(job: dict[str, Any], timeout: float) -> JobError:
    """The error of a wait that ran out."""
    return JobError(
        f"training job {job['id']} is still {job['status']} ({job['stage'] or 'not started'}, "
        f"{job['progress']:.0%}) after {timeout:g} s: is a worker running? "
        "(agentgym platform worker)"
    )


__all__ = [
    "FINISHED",
    "QUEUE",
    "STATUSES",
    "TRAINERS",
    "JobConflict",
    "JobError",
    "JobNotFound",
    "cancel_job",
    "check_request",
    "enqueue_training",
    "get_job",
    "http_queue_training",
    "http_training_job",
    "http_wait_for_job",
    "list_jobs",
    "make_app",
]
