"""The dashboard's HTML pages (server-rendered from ``templates/``) and the promote form.

The app built by :func:`~agentgym_envs.experience.dashboard.create_app` carries the store as
``app.state.store`` and the Jinja environment as ``app.state.templates``.
"""

import json
from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse

from agentgym_envs.errors import AgentGymError
from agentgym_envs.experience import charts
from agentgym_envs.experience import dashboard_queries as queries
from agentgym_envs.experience.feedback import count_feedback, list_feedback
from agentgym_envs.experience.versions import compare_versions, list_versions, promote

router = APIRouter()


def _page(request: Request, template: str, **ctx: Any) -> HTMLResponse:
    return HTMLResponse(request.app.state.templates.get_template(template).render(**ctx))


def _scale(env_id: str) -> float:
    from agentgym_envs.benchmarks.report import score_scale

    return score_scale(env_id)


@router.get("/", response_class=HTMLResponse)
def index(request: Request):
    data = queries.home(request.app.state.store)
    rows = [(label, e, x / _scale(e)) for label, e, x in data.pop("scores")]
    chart = charts.score_per_env(rows) if rows else ""
    return _page(request, "index.html", chart=chart, **data)


@router.get("/runs/{run_id}", response_class=HTMLResponse)
def run_page(
    request: Request,
    run_id: int,
    env_id: str | None = None,
    outcome: str | None = None,
    page_no: int = 0,
):
    detail = queries.run_detail(request.app.state.store, run_id, env_id, outcome, page_no)
    return _page(request, "run.html", **detail)


@router.get("/episodes/{episode_id}", response_class=HTMLResponse)
def episode_page(request: Request, episode_id: int):
    ep = queries.episode_detail(request.app.state.store, episode_id)
    # the episode goes into a <script> element: "</script", "<!--" would end or derail it, so
    # no "<", ">" or "&" is written there at all (JSON's \u escapes read back the same)
    data = (
        json.dumps(ep, default=str)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
    )
    return _page(request, "episode.html", ep=ep, data=data)


@router.get("/feedback", response_class=HTMLResponse)
def feedback_page(request: Request, source: str | None = "human"):
    store = request.app.state.store
    rows = list_feedback(store, source=source or None, limit=500, newest_first=True)
    total = count_feedback(store, source=source or None)
    return _page(request, "feedback.html", rows=rows, total=total, source=source or "")


@router.post("/versions/promote")
async def promote_form(request: Request):
    form = {k: v[-1] for k, v in parse_qs((await request.body()).decode()).items()}
    try:
        promote(
            request.app.state.store,
            form.get("label", ""),
            author=form.get("author", "") or "dashboard",
            reason=form.get("reason", "") or "promoted in the dashboard",
        )
    except AgentGymError as exc:
        return JSONResponse({"error": str(exc)}, status_code=400)
    return RedirectResponse("/versions", status_code=303)


@router.get("/versions", response_class=HTMLResponse)
def versions_page(request: Request, a: str | None = None, b: str | None = None):
    store = request.app.state.store
    rows = list_versions(store)
    cmp = chart = None
    error = None
    if a and b:
        try:
            c = compare_versions(store, a, b, n_boot=4000)
            cmp = c.as_dict()
            chart = _comparison_chart(c, a, b)
        except AgentGymError as exc:
            error = str(exc)
    return _page(
        request, "versions.html", rows=rows, a=a or "", b=b or "", cmp=cmp, chart=chart, error=error
    )


def _comparison_chart(c, a: str, b: str) -> str | None:
    """The intervals of a version comparison: success per env, overall success and score."""
    if c.overall_success is None or c.overall_score is None:
        return None
    iv = [
        (f"{e.env_id.split('/')[-1]} success", e.success.diff, e.success.low, e.success.high)
        for e in c.envs
    ]
    for name, m in (("overall success", c.overall_success), ("overall score", c.overall_score)):
        iv.append((name, m.diff, m.low, m.high))
    return charts.intervals(f"{b} minus {a} (95% paired bootstrap)", tuple(iv), "difference")


@router.get("/ab/{test_id}", response_class=HTMLResponse)
def ab_page(request: Request, test_id: int):
    detail = queries.ab_detail(request.app.state.store, test_id)
    return _page(request, "ab.html", chart=_ab_chart(detail["result"]), **detail)


def _ab_chart(result: dict[str, Any] | None) -> str | None:
    """The intervals of an A/B test's last result: each challenger minus the control."""
    if not (result and result.get("comparisons")):
        return None
    iv = []
    for label, c in result["comparisons"].items():
        for metric in ("success", "score"):
            m = c.get(metric)
            if m:
                iv.append((f"{label} {metric}", m["diff"], m["low"], m["high"]))
    if not iv:
        return None
    return charts.intervals(
        f"minus {result.get('control')} (adjusted level)", tuple(iv), "difference"
    )


__all__ = ["router"]
