"""The training-jobs routes of the platform (``create_app`` mounts them): ``/v1/jobs`` for keys
and logins (queue, list, read, cancel), and the dashboard's ``/jobs`` page.

Every handler runs in the caller's tenant session (:mod:`~agentgym_envs.platform.deps`): the
same keys, scopes and roles as the rest of ``/v1`` (reading needs ``read``; queueing and
cancelling need ``write``, which a viewer lacks), and another organisation's job answers 404
like one that does not exist. Queueing takes an ``Idempotency-Key`` (a retried request queues
once).
"""

# (no ``from __future__ import annotations``: FastAPI reads the route annotations)
import html
from typing import Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from agentgym_envs.platform.api import JsonBody, idempotent, jsonable
from agentgym_envs.platform.deps import TenantDB, credential, tenant_session
from agentgym_envs.platform.jobs import (
    FINISHED,
    JobConflict,
    JobError,
    JobNotFound,
    cancel_job,
    enqueue_training,
    get_job,
    list_jobs,
)


def _http(exc: JobError) -> HTTPException:
    status = 404 if isinstance(exc, JobNotFound) else 409 if isinstance(exc, JobConflict) else 400
    return HTTPException(status, str(exc))


def router(queue_app: Any) -> APIRouter:
    """The routes; ``queue_app``: :func:`~agentgym_envs.platform.jobs.make_app`'s (jobs are
    deferred on the request's own connection, in its transaction)."""
    api = APIRouter(tags=["jobs"])

    @api.post("/v1/jobs", status_code=202)
    def queue(request: Request, s: TenantDB, body: JsonBody):
        who = request.state.principal

        def make():
            try:
                return 202, enqueue_training(s, queue_app, body, created_by=who.name)
            except JobError as exc:
                raise _http(exc) from None

        return idempotent(s, request, body, make)

    @api.get("/v1/jobs")
    def jobs(
        s: TenantDB,
        agent_id: str | None = None,
        status: str | None = None,
        limit: int = Query(100, ge=1, le=1000),
    ) -> dict[str, Any]:
        try:
            return {"jobs": jsonable(list_jobs(s, limit, agent_id=agent_id, status=status))}
        except JobError as exc:
            raise _http(exc) from None

    @api.get("/v1/jobs/{job_id}")
    def job(job_id: str, s: TenantDB) -> dict[str, Any]:
        try:
            return jsonable(get_job(s, job_id))
        except JobError as exc:
            raise _http(exc) from None

    @api.post("/v1/jobs/{job_id}/cancel")
    def cancel(job_id: str, request: Request, s: TenantDB) -> dict[str, Any]:
        try:
            return jsonable(cancel_job(s, job_id, by=request.state.principal.name))
        except JobError as exc:
            raise _http(exc) from None

    @api.get("/jobs", include_in_schema=False)
    def page(request: Request):
        if credential(request)[0] is None:
            return RedirectResponse("/login?next=/jobs", status_code=303)
        session = tenant_session(request)
        try:
            found = list_jobs(next(session), 200)
        except HTTPException as exc:
            if exc.status_code == 401:
                return RedirectResponse("/login?next=/jobs", status_code=303)
            raise
        finally:
            session.close()
        return HTMLResponse(jobs_page(found))

    return api


_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">{refresh}
<title>agentgym platform · training jobs</title>
<style>body{{font:15px system-ui,sans-serif;margin:2rem}}table{{border-collapse:collapse}}
td,th{{padding:.3rem .6rem;border-bottom:1px solid #ddd;text-align:left}}
.failed,.cancelled{{color:#b00}}.succeeded{{color:#070}}</style></head><body>
<p><a href="/">Dashboard</a> · <a href="/logout">Log out</a></p><h1>Training jobs</h1>
{body}</body></html>"""


def jobs_page(jobs: list[dict[str, Any]]) -> str:
    """The dashboard's jobs page: each job's agent, version, trainer, status, stage and
    progress (it reloads every 5 s while a job is queued or running)."""
    if not jobs:
        body = "<p>No training jobs yet: queue one with the SDK's <code>queue_training</code>.</p>"
    else:
        rows = []
        for j in jobs:
            p = j["params"]
            outcome = (j["result"] or {}).get("label", "") if j["status"] == "succeeded" else ""
            rows.append(
                "<tr>"
                f"<td><code>{j['id'][:8]}</code></td>"
                f"<td>{html.escape(p.get('agent', ''))}</td>"
                f"<td>{html.escape(p.get('parent') or '')} → {html.escape(p.get('version', ''))}</td>"
                f"<td>{html.escape(p.get('trainer', ''))}</td>"
                f'<td class="{j["status"]}">{j["status"]}</td>'
                f"<td>{html.escape(j['stage'])}</td>"
                f'<td><progress max="1" value="{j["progress"]:.2f}"></progress> '
                f"{j['progress']:.0%}</td>"
                f"<td>{html.escape(j['error'] or outcome)}</td>"
                f"<td>{j['created_at'][:19].replace('T', ' ')}</td></tr>"
            )
        body = (
            "<table><tr><th>Job</th><th>Agent</th><th>Version</th><th>Trainer</th>"
            "<th>Status</th><th>Stage</th><th>Progress</th><th>Result</th><th>Queued</th></tr>"
            + "".join(rows)
            + "</table>"
        )
    active = any(j["status"] not in FINISHED for j in jobs)
    refresh = '<meta http-equiv="refresh" content="5">' if active else ""
    return _PAGE.format(refresh=refresh, body=body)


__all__ = ["jobs_page", "router"]
