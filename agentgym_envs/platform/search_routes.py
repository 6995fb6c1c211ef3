"""The episode-search router (:func:`agentgym_envs.platform.search.search_router` builds it)."""

# (no ``from __future__ import annotations``: FastAPI reads the route annotations)
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Depends, HTTPException, Query
from pydantic import BaseModel, Field

from agentgym_envs.errors import AgentGymError
from agentgym_envs.platform.embeddings import Embedder
from agentgym_envs.platform.search import (
    MAX_K,
    MAX_TEXT,
    index_episode,
    search_episodes,
    similar_episodes,
    with_executions,
)


class IndexRequest(BaseModel):
    episode_id: str = Field(min_length=1, max_length=200)
    steps: list[tuple[str, str]] = Field(default_factory=list, max_length=10_000)
    text: str = Field("", max_length=MAX_TEXT)
    env_id: str = Field("", max_length=200)


def _answered(status: int, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``call(*args, **kwargs)``; its one-line error becomes HTTP ``status``."""
    try:
        return call(*args, **kwargs)
    except AgentGymError as exc:
        raise HTTPException(status_code=status, detail=str(exc)) from None


def _recorded(session: Any, episode_id: int) -> bool:
    from agentgym_envs.experience.models import Episode

    return episode_id < 2**31 and session.get(Episode, episode_id) is not None


def router(tenant_session: Callable[..., Any], embedder: Embedder) -> APIRouter:
    """``/search`` routes whose sessions come from ``tenant_session``, ended (committed)
    before the reply is sent: a 201 means the episode is stored."""
    api = APIRouter(prefix="/search", tags=["search"])

    @api.post("/episodes", status_code=201)
    def index(
        body: IndexRequest, session: Any = Depends(tenant_session, scope="function")
    ) -> dict[str, Any]:
        if body.episode_id.isdigit() and not _recorded(session, int(body.episode_id)):
            # a number names a recorded episode: one of this organisation's, or none
            raise HTTPException(404, f"episode {body.episode_id} does not exist")
        return _answered(
            400,
            index_episode,
            session,
            body.episode_id,
            body.steps,
            text=body.text,
            env_id=body.env_id,
            embedder=embedder,
        )

    @api.get("/episodes/{episode_id:path}/similar")
    def similar(
        episode_id: str,
        k: int = Query(10, ge=1, le=MAX_K),
        session: Any = Depends(tenant_session, scope="function"),
    ) -> dict[str, Any]:
        hits = _answered(404, similar_episodes, session, episode_id, k, embedder=embedder)
        hits = with_executions(session, hits)
        return {"episode_id": episode_id, "model": embedder.name, "hits": hits}

    @api.get("/episodes")
    def search(
        q: str = Query(..., min_length=1, max_length=MAX_TEXT),
        k: int = Query(10, ge=1, le=MAX_K),
        session: Any = Depends(tenant_session, scope="function"),
    ) -> dict[str, Any]:
        hits = _answered(400, search_episodes, session, q, k, embedder=embedder)
        hits = with_executions(session, hits)
        return {"query": q, "model": embedder.name, "hits": hits}

    return api


__all__ = ["IndexRequest", "router"]
