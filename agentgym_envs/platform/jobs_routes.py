"""The training-jobs router (:func:`agentgym_envs.platform.jobs.jobs_router` builds it)."""

# (no ``from __future__ import annotations``: FastAPI reads the route annotations)
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Body, Depends, HTTPException, Query

from agentgym_envs.platform.jobs import JobError, enqueue_training, get_job, list_jobs


def router(tenant_session: Callable[..., Any], app: Any, store_for: Callable[[Any], str]):
    """``/jobs/training`` routes whose sessions come from ``tenant_session``, ended
    (committed) before the reply is sent: a 202 means the job is queued."""
    api = APIRouter(prefix="/jobs/training", tags=["jobs"])

    @api.post("", status_code=202)
    def queue(
        request: dict[str, Any] = Body(...),
        session: Any = Depends(tenant_session, scope="function"),
    ) -> dict[str, Any]:
        try:
            return enqueue_training(session, app, request, store=store_for(session))
        except JobError as exc:
            raise HTTPException(status_code=400, detail=str(exc)) from None

    @api.get("")
    def jobs(
        limit: int = Query(100, ge=1, le=1000),
        session: Any = Depends(tenant_session, scope="function"),
    ) -> dict[str, Any]:
        return {"jobs": list_jobs(session, limit)}

    @api.get("/{job_id}")
    def job(
        job_id: str, session: Any = Depends(tenant_session, scope="function")
    ) -> dict[str, Any]:
        try:
            return get_job(session, job_id)
        except JobError as exc:
            raise HTTPException(status_code=404, detail=str(exc)) from None

    return api


__all__ = ["router"]
