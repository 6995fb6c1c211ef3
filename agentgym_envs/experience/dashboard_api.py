"""The dashboard's JSON API under ``/api``: episodes and their rendered views, feedback (add,
list, export), versions and runs.

The app built by :func:`~agentgym_envs.experience.dashboard.create_app` carries the store as
``app.state.store`` and the cache of rendered views as ``app.state.views``.
"""

import json
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from agentgym_envs.errors import AgentGymError
from agentgym_envs.experience import dashboard_queries as queries
from agentgym_envs.experience.feedback import add_feedback, export_feedback, list_feedback
from agentgym_envs.experience.versions import list_versions
from agentgym_envs.experience.views import episode_views

router = APIRouter(prefix="/api")


def _json(data: Any, status_code: int = 200) -> JSONResponse:
    """``data`` as JSON, with what JSON has no type for (dates) written as text."""
    return JSONResponse(json.loads(json.dumps(data, default=str)), status_code=status_code)


@router.get("/episodes/{episode_id}")
def api_episode(request: Request, episode_id: int):
    return _json(queries.episode_detail(request.app.state.store, episode_id))


@router.get("/episodes/{episode_id}/views")
def api_views(request: Request, episode_id: int):
    ep = queries.episode_detail(request.app.state.store, episode_id, feedback=False)
    return JSONResponse(request.app.state.views.get(episode_id, lambda: episode_views(ep)))


def _index(value: Any) -> int | None:
    """A step index from a request (``None``: the outcome)."""
    if value is None:
        return None
    index = int(value)
    if not 0 <= index < 2**31:
        raise ValueError(f"step_index {index} is out of range")
    return index


class FeedbackBody(BaseModel):
    """What ``POST /api/feedback`` takes: a judgement of one action (``step_index``) or of the
    episode's outcome (no ``step_index``); a label, a score or a comment at least."""

    episode_id: int = Field(description="The episode judged.")
    step_index: int | None = Field(None, description="0-based step; omit to judge the outcome.")
    label: Literal["good", "bad"] | None = None
    score: float | None = None
    comment: str = ""
    author: str = Field(description="Who gives the feedback.")


_FEEDBACK_BODY = {
    "required": True,
    "content": {"application/json": {"schema": FeedbackBody.model_json_schema()}},
}


# The body is read by hand (a bad one is a one-line 400, not FastAPI's 422 list), so its schema
# is declared for the OpenAPI document here.
@router.post("/feedback", status_code=201, openapi_extra={"requestBody": _FEEDBACK_BODY})
async def api_add_feedback(request: Request):
    try:
        body = await request.json()
    except ValueError:
        return JSONResponse({"error": "send a JSON object"}, status_code=400)
    if not isinstance(body, dict) or "episode_id" not in body:
        return JSONResponse(
            {"error": "give episode_id (and step_index for an action)"}, status_code=400
        )
    try:
        episode_id = int(body["episode_id"])
        if episode_id not in queries.ID_RANGE:
            raise queries.NotFound(f"episode {episode_id}")
        entry = add_feedback(
            request.app.state.store,
            episode_id,
            step_index=_index(body.get("step_index")),
            label=body.get("label") or None,
            score=None if body.get("score") in (None, "") else float(body["score"]),
            comment=str(body.get("comment") or ""),
            author=str(body.get("author") or ""),
            source="human",
        )
    except (AgentGymError, TypeError, ValueError) as exc:
        return JSONResponse({"error": str(exc)}, status_code=400)
    return _json(entry, status_code=201)


@router.get("/feedback")
def api_feedback(
    request: Request,
    episode_id: int | None = None,
    source: str | None = None,
    limit: int | None = None,
):
    store = request.app.state.store
    if episode_id is not None and episode_id not in queries.ID_RANGE:
        raise queries.NotFound(f"episode {episode_id}")
    limit = None if limit is None else max(0, min(limit, 100_000))
    return _json(list_feedback(store, episode_id=episode_id, source=source, limit=limit))


@router.get("/feedback/export")
def api_export(request: Request, fmt: str = "jsonl", source: str | None = None):
    try:
        text = export_feedback(request.app.state.store, fmt=fmt, source=source)
    except AgentGymError as exc:
        return JSONResponse({"error": str(exc)}, status_code=400)
    media = "text/csv" if fmt == "csv" else "application/x-ndjson"
    return Response(
        text,
        media_type=media,
        headers={"Content-Disposition": f'attachment; filename="feedback.{fmt}"'},
    )


@router.get("/versions")
def api_versions(request: Request):
    return _json(list_versions(request.app.state.store))


@router.get("/runs")
def api_runs(request: Request):
    return JSONResponse(queries.runs_summary(request.app.state.store))


__all__ = ["router"]
