"""The experience dashboard: a local web app over the store (FastAPI, server-rendered HTML).

Pages: runs and versions with the score per env across versions (``/``), a run's episodes
(``/runs/{id}``), a trajectory viewer that replays an episode step by step with the env's
rendered view and feedback buttons on every step and on the outcome (``/episodes/{id}``),
versions and their comparison with paired intervals (``/versions``), A/B tests
(``/ab/{id}``) and all feedback (``/feedback``). The JSON API under ``/api`` takes feedback
(``POST /api/feedback``), lists and exports it, and serves episodes and their views. Charts are
SVG drawn on the server and the page script is inline: nothing is loaded from elsewhere.
Bind it to 127.0.0.1: it has no login.
"""

import json
import logging
import math
from collections import OrderedDict
from pathlib import Path
from typing import Any

from agentgym_envs.errors import AgentGymError, require

logger = logging.getLogger(__name__)

_HERE = Path(__file__).parent
PAGE_SIZE = 100


def _fmt(x: Any, spec: str = ".3f") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return format(x, spec)


def _scale(env_id: str) -> float:
    from agentgym_envs.benchmarks.report import score_scale

    return score_scale(env_id)


class _ViewCache:
    """The last few episodes' rendered views (a replay costs milliseconds to a second)."""

    def __init__(self, size: int = 32) -> None:
        self.size = size
        self._items: OrderedDict[int, dict[str, Any]] = OrderedDict()

    def get(self, key: int, make) -> dict[str, Any]:
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key]
        value = make()
        self._items[key] = value
        while len(self._items) > self.size:
            self._items.popitem(last=False)
        return value


def create_app(store):
    """The dashboard app over ``store`` (an :class:`~agentgym_envs.experience.ExperienceStore`)."""
    fastapi = require("fastapi", "experience")
    responses = require("fastapi.responses", "experience")
    jinja2 = require("jinja2", "experience")
    from sqlalchemy import case, func, select
    from sqlalchemy.orm import selectinload

    from agentgym_envs.experience import ab as ab_mod
    from agentgym_envs.experience import charts
    from agentgym_envs.experience.feedback import (
        add_feedback,
        count_feedback,
        export_feedback,
        list_feedback,
    )
    from agentgym_envs.experience.models import (
        ABTest,
        AgentVersion,
        Episode,
        Feedback,
        Run,
        success_rate,
    )
    from agentgym_envs.experience.versions import compare_versions, list_versions, promote
    from agentgym_envs.experience.views import episode_views

    HTMLResponse, JSONResponse, Response = (
        responses.HTMLResponse,
        responses.JSONResponse,
        responses.Response,
    )
    RedirectResponse = responses.RedirectResponse
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(_HERE / "templates")),
        autoescape=jinja2.select_autoescape(["html"]),
    )
    env.filters["fmt"] = _fmt
    env.filters["short"] = lambda e: str(e).split("/")[-1]
    env.filters["pct"] = lambda x: "–" if x is None else f"{100 * x:.1f}%"
    app = fastapi.FastAPI(title="agentgym experience", docs_url="/api/docs", redoc_url=None)
    app.state.store = store
    views = _ViewCache()

    def page(template: str, **ctx: Any):
        return HTMLResponse(env.get_template(template).render(**ctx))

    def not_found(what: str):
        return fastapi.HTTPException(404, f"{what} not found")

    success_f = success_rate()

    @app.get("/", response_class=HTMLResponse)
    def index():
        with store.session() as s:
            runs = s.execute(
                select(Run, func.count(Episode.id), success_f, func.avg(Episode.score))
                .outerjoin(Episode, Episode.run_id == Run.id)
                .group_by(Run.id)
                .order_by(Run.id.desc())
                .options(selectinload(Run.version))
            ).all()
            per_env = s.execute(
                select(
                    AgentVersion.name, AgentVersion.version, Episode.env_id, func.avg(Episode.score)
                )
                .join(Run, Run.version_id == AgentVersion.id)
                .join(Episode, Episode.run_id == Run.id)
                .group_by(AgentVersion.id, AgentVersion.name, AgentVersion.version, Episode.env_id)
            ).all()
            counts = {
                "episodes": s.scalar(select(func.count(Episode.id))),
                "versions": s.scalar(select(func.count(AgentVersion.id))),
                "feedback": s.scalar(
                    select(func.count(Feedback.id)).where(Feedback.source == "human")
                ),
            }
            tests = s.scalars(select(ABTest).order_by(ABTest.id.desc())).all()
        rows = [(f"{n}@{v}", e, float(x) / _scale(e)) for n, v, e, x in per_env]
        chart = charts.score_per_env(rows) if rows else ""
        return page("index.html", runs=runs, counts=counts, chart=chart, tests=tests)

    @app.get("/runs/{run_id}", response_class=HTMLResponse)
    def run_page(
        run_id: int, env_id: str | None = None, outcome: str | None = None, page_no: int = 0
    ):
        with store.session() as s:
            run = s.get(Run, run_id)
            if run is None:
                raise not_found(f"run {run_id}")
            summary = s.execute(
                select(
                    Episode.env_id,
                    func.count(Episode.id),
                    success_f,
                    func.avg(Episode.score),
                    func.avg(Episode.turns),
                )
                .where(Episode.run_id == run_id)
                .group_by(Episode.env_id)
                .order_by(Episode.env_id)
            ).all()
            human = (
                select(Feedback.episode_id, func.count(Feedback.id).label("n"))
                .where(Feedback.source == "human")
                .group_by(Feedback.episode_id)
                .subquery()
            )
            q = (
                select(
                    Episode.id,
                    Episode.env_id,
                    Episode.item_id,
                    Episode.sample,
                    Episode.outcome,
                    Episode.success,
                    Episode.score,
                    Episode.turns,
                    func.coalesce(human.c.n, 0),
                )
                .outerjoin(human, human.c.episode_id == Episode.id)
                .where(Episode.run_id == run_id)
            )
            if env_id:
                q = q.where(Episode.env_id == env_id)
            if outcome:
                q = q.where(Episode.outcome == outcome)
            total = s.scalar(select(func.count()).select_from(q.subquery()))
            episodes = s.execute(
                q.order_by(Episode.id).limit(PAGE_SIZE).offset(page_no * PAGE_SIZE)
            ).all()
            version = run.version.label if run.version else None
        return page(
            "run.html",
            run=run,
            version=version,
            summary=summary,
            episodes=episodes,
            total=total,
            page_no=page_no,
            pages=max(1, math.ceil(total / PAGE_SIZE)),
            env_id=env_id or "",
            outcome=outcome or "",
        )

    def episode_dict(s, episode_id: int) -> dict[str, Any]:
        ep = s.get(Episode, episode_id)
        if ep is None:
            raise not_found(f"episode {episode_id}")
        run = ep.run
        return {
            "id": ep.id,
            "run_id": run.id,
            "run": run.name,
            "version": run.version.label if run.version else None,
            "env_id": ep.env_id,
            "item_id": ep.item_id,
            "split": ep.split,
            "task_id": ep.task_id,
            "sample": ep.sample,
            "seed": ep.seed,
            "outcome": ep.outcome,
            "success": ep.success,
            "score": ep.score,
            "turns": ep.turns,
            "wall_time": ep.wall_time,
            "prompt_tokens": ep.prompt_tokens,
            "completion_tokens": ep.completion_tokens,
            "error": ep.error,
            "first_observation": _first_observation(ep.conversation),
            "steps": [
                {
                    "index": st.index,
                    "observation": st.observation,
                    "action": st.action,
                    "result": st.result,
                    "reward": st.reward,
                    "latency": st.latency,
                }
                for st in ep.steps
            ],
        }

    @app.get("/episodes/{episode_id}", response_class=HTMLResponse)
    def episode_page(episode_id: int):
        with store.session() as s:
            ep = episode_dict(s, episode_id)
        ep["feedback"] = list_feedback(store, episode_id=episode_id)
        return page("episode.html", ep=ep, data=json.dumps(ep, default=str).replace("</", "<\\/"))

    @app.get("/api/episodes/{episode_id}")
    def api_episode(episode_id: int):
        with store.session() as s:
            ep = episode_dict(s, episode_id)
        ep["feedback"] = list_feedback(store, episode_id=episode_id)
        return JSONResponse(json.loads(json.dumps(ep, default=str)))

    @app.get("/api/episodes/{episode_id}/views")
    def api_views(episode_id: int):
        with store.session() as s:
            ep = episode_dict(s, episode_id)
        return JSONResponse(views.get(episode_id, lambda: episode_views(ep)))

    @app.post("/api/feedback", status_code=201)
    async def api_add_feedback(request: fastapi.Request):
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": "send a JSON object"}, status_code=400)
        if not isinstance(body, dict) or "episode_id" not in body:
            return JSONResponse(
                {"error": "give episode_id (and step_index for an action)"}, status_code=400
            )
        try:
            entry = add_feedback(
                store,
                int(body["episode_id"]),
                step_index=None if body.get("step_index") is None else int(body["step_index"]),
                label=body.get("label") or None,
                score=None if body.get("score") in (None, "") else float(body["score"]),
                comment=str(body.get("comment") or ""),
                author=str(body.get("author") or ""),
                source="human",
            )
        except (AgentGymError, TypeError, ValueError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse(json.loads(json.dumps(entry, default=str)), status_code=201)

    @app.get("/api/feedback")
    def api_feedback(
        episode_id: int | None = None, source: str | None = None, limit: int | None = None
    ):
        return JSONResponse(
            json.loads(
                json.dumps(
                    list_feedback(store, episode_id=episode_id, source=source, limit=limit),
                    default=str,
                )
            )
        )

    @app.get("/api/feedback/export")
    def api_export(fmt: str = "jsonl", source: str | None = None):
        try:
            text = export_feedback(store, fmt=fmt, source=source)
        except AgentGymError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        media = "text/csv" if fmt == "csv" else "application/x-ndjson"
        return Response(
            text,
            media_type=media,
            headers={"Content-Disposition": f'attachment; filename="feedback.{fmt}"'},
        )

    @app.get("/feedback", response_class=HTMLResponse)
    def feedback_page(source: str | None = "human"):
        rows = list_feedback(store, source=source or None, limit=500, newest_first=True)
        total = count_feedback(store, source=source or None)
        return page("feedback.html", rows=rows, total=total, source=source or "")

    @app.get("/api/versions")
    def api_versions():
        return JSONResponse(json.loads(json.dumps(list_versions(store), default=str)))

    @app.post("/versions/promote")
    async def promote_form(request: fastapi.Request):
        from urllib.parse import parse_qs

        form = {k: v[-1] for k, v in parse_qs((await request.body()).decode()).items()}
        try:
            promote(
                store,
                form.get("label", ""),
                author=form.get("author", "") or "dashboard",
                reason=form.get("reason", "") or "promoted in the dashboard",
            )
        except AgentGymError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return RedirectResponse("/versions", status_code=303)

    @app.get("/versions", response_class=HTMLResponse)
    def versions_page(a: str | None = None, b: str | None = None):
        rows = list_versions(store)
        cmp = chart = None
        error = None
        if a and b:
            try:
                c = compare_versions(store, a, b, n_boot=4000)
                cmp = c.as_dict()
                if c.overall_success is not None and c.overall_score is not None:
                    iv = [
                        (
                            f"{e.env_id.split('/')[-1]} success",
                            e.success.diff,
                            e.success.low,
                            e.success.high,
                        )
                        for e in c.envs
                    ]
                    iv += [
                        (
                            "overall success",
                            c.overall_success.diff,
                            c.overall_success.low,
                            c.overall_success.high,
                        ),
                        (
                            "overall score",
                            c.overall_score.diff,
                            c.overall_score.low,
                            c.overall_score.high,
                        ),
                    ]
                    chart = charts.intervals(
                        f"{b} minus {a} (95% paired bootstrap)", tuple(iv), "difference"
                    )
            except AgentGymError as exc:
                error = str(exc)
        return page(
            "versions.html", rows=rows, a=a or "", b=b or "", cmp=cmp, chart=chart, error=error
        )

    @app.get("/ab/{test_id}", response_class=HTMLResponse)
    def ab_page(test_id: int):
        with store.session() as s:
            test = s.get(ABTest, test_id)
            if test is None:
                raise not_found(f"A/B test {test_id}")
            name, config, status, result = test.name, test.config, test.status, test.result
        recs = ab_mod.ab_records(store, test_id)
        arms = [
            {
                "label": label,
                "episodes": len(r),
                "success": sum(x["success"] for x in r) / len(r) if r else None,
                "score": sum(x["reward"] for x in r) / len(r) if r else None,
            }
            for label, r in recs.items()
        ]
        chart = None
        if result and result.get("comparisons"):
            iv = []
            for label, c in result["comparisons"].items():
                for metric in ("success", "score"):
                    m = c.get(metric)
                    if m:
                        iv.append((f"{label} {metric}", m["diff"], m["low"], m["high"]))
            if iv:
                chart = charts.intervals(
                    f"minus {result.get('control')} (adjusted level)", tuple(iv), "difference"
                )
        return page(
            "ab.html",
            name=name,
            config=config,
            status=status,
            result=result,
            arms=arms,
            chart=chart,
        )

    @app.get("/api/runs")
    def api_runs():
        with store.session() as s:
            rows = s.execute(
                select(
                    Run.id,
                    Run.name,
                    Run.kind,
                    Run.source,
                    func.count(Episode.id),
                    func.sum(case((Episode.success, 1), else_=0)),
                )
                .outerjoin(Episode, Episode.run_id == Run.id)
                .group_by(Run.id)
                .order_by(Run.id)
            ).all()
        return JSONResponse(
            [
                {
                    "id": i,
                    "name": n,
                    "kind": k,
                    "source": src,
                    "episodes": int(c),
                    "successes": int(ok or 0),
                }
                for i, n, k, src, c, ok in rows
            ]
        )

    return app


def _first_observation(conversation: list[dict[str, Any]]) -> str:
    from agentgym_envs.experience.ingest import conversation_start

    start = conversation_start(conversation)
    return str(conversation[start].get("value", "")) if len(conversation) > start else ""


def serve(store, host: str = "127.0.0.1", port: int = 8765, log_level: str = "warning") -> None:
    """Serve the dashboard until interrupted."""
    uvicorn = require("uvicorn", "experience")
    uvicorn.run(create_app(store), host=host, port=port, log_level=log_level)


__all__ = ["PAGE_SIZE", "create_app", "serve"]
