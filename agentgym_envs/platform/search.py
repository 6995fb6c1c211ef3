"""Episode search: "episodes like this one" and free-text search over an organisation's
episodes, in PostgreSQL with pgvector.

An episode is indexed as one text -- its observations and actions in order, as
:func:`episode_text` writes them -- embedded by an :class:`~agentgym_envs.platform.embeddings.
Embedder` (the offline hashing default or an OpenAI-compatible endpoint) and stored in
``episode_embeddings`` (migration ``ops_0001``) with its model's name. Search ranks by cosine
distance (pgvector's ``<=>``) among vectors of the same model.

Tenancy is the database's: every function takes a SQLAlchemy session on which the caller set
``agentgym.org_id`` (``SET LOCAL``; the platform's ``tenant_session`` dependency does), and the
table's row-level security policy shows and accepts only that organisation's rows. Nothing
here filters by organisation, so nothing here can forget to.

Three layers use the same functions: plain calls (:func:`index_episode`,
:func:`similar_episodes`, :func:`search_episodes`), the HTTP router
(:func:`search_router`), and client helpers over HTTP for the SDK (:func:`http_index_episode`,
:func:`http_similar_episodes`, :func:`http_search_episodes`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from agentgym_envs.errors import AgentGymError
from agentgym_envs.platform.embeddings import Embedder, embedder_from_env
from agentgym_envs.platform.replies import reply_json

logger = logging.getLogger(__name__)

#: Most characters of an episode's text that are embedded and kept as its summary.
MAX_TEXT = 20_000
#: Characters of the summary returned with a hit.
SNIPPET = 240
#: Most hits one search returns.
MAX_K = 100


class EpisodeNotIndexed(AgentGymError):
    """The episode has no stored embedding visible to this organisation."""


def episode_text(steps: Iterable[tuple[str, str]] | None = None, *, text: str = "") -> str:
    """One text for an episode: ``text`` (e.g. the task), then each step's observation and
    action, as ``Observation: ...`` / ``Action: ...`` lines."""
    parts = [text.strip()] if text.strip() else []
    for observation, action in steps or ():
        if str(observation).strip():
            parts.append(f"Observation: {str(observation).strip()}")
        if str(action).strip():
            parts.append(f"Action: {str(action).strip()}")
    return "\n".join(parts)[:MAX_TEXT]


def _table():
    from pgvector.sqlalchemy import Vector
    from sqlalchemy import BigInteger, Column, MetaData, Table, Text

    meta = MetaData()
    return Table(
        "episode_embeddings",
        meta,
        Column("id", BigInteger, primary_key=True),
        Column("episode_id", Text, nullable=False),
        Column("env_id", Text, nullable=False),
        Column("model", Text, nullable=False),
        Column("summary", Text, nullable=False),
        Column("embedding", Vector(), nullable=False),
    )


_TABLE = None


def table():
    """The ``episode_embeddings`` table (SQLAlchemy Core; ``org_id`` is the database's)."""
    global _TABLE
    if _TABLE is None:
        _TABLE = _table()
    return _TABLE


def index_episode(
    session,
    episode_id: str,
    steps: Iterable[tuple[str, str]] | None = None,
    *,
    text: str = "",
    env_id: str = "",
    embedder: Embedder | None = None,
) -> dict[str, Any]:
    """Embed episode ``episode_id`` (its ``steps`` as ``(observation, action)`` pairs and/or
    ``text``) and store it for the session's organisation, replacing an earlier embedding of
    it by the same model. Returns ``{"episode_id", "model", "dimension"}``."""
    from sqlalchemy.dialects.postgresql import insert

    body = episode_text(steps, text=text)
    if not body:
        raise AgentGymError(f"episode {episode_id!r} has no text to index: send steps or text")
    if not str(episode_id).strip():
        raise AgentGymError("index an episode by its id: episode_id is empty")
    embedder = embedder or embedder_from_env()
    (vector,) = embedder.embed([body])
    t = table()
    stmt = insert(t).values(
        episode_id=str(episode_id),
        env_id=env_id,
        model=embedder.name,
        summary=body,
        embedding=vector,
    )
    # the unique key is (org_id, episode_id, model); org_id is filled in by the database
    stmt = stmt.on_conflict_do_update(
        index_elements=["org_id", "episode_id", "model"],
        set_={"env_id": env_id, "summary": body, "embedding": vector},
    )
    session.execute(stmt)
    return {"episode_id": str(episode_id), "model": embedder.name, "dimension": len(vector)}


def _hits(session, vector: Sequence[float], model: str, k: int, exclude: str | None):
    from sqlalchemy import select

    t = table()
    distance = t.c.embedding.cosine_distance(list(vector)).label("distance")
    q = select(t.c.episode_id, t.c.env_id, t.c.summary, distance).where(t.c.model == model)
    if exclude is not None:
        q = q.where(t.c.episode_id != exclude)
    q = q.order_by(distance, t.c.episode_id).limit(_k(k))
    return [
        {
            "episode_id": row.episode_id,
            "env_id": row.env_id,
            "distance": float(row.distance),
            "similarity": 1.0 - float(row.distance),
            "snippet": row.summary[:SNIPPET],
        }
        for row in session.execute(q)
    ]


def _k(k: int) -> int:
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= MAX_K:
        raise AgentGymError(f"k={k!r}: ask for 1 to {MAX_K} hits")
    return k


def similar_episodes(
    session,
    episode_id: str,
    k: int = 10,
    *,
    include_self: bool = False,
    embedder: Embedder | None = None,
) -> list[dict[str, Any]]:
    """The ``k`` episodes nearest to ``episode_id`` (by the model ``embedder`` names), nearest
    first; each hit has ``episode_id``, ``env_id``, ``distance`` (cosine, 0 = same direction),
    ``similarity`` (1 - distance) and a ``snippet`` of its text.

    Raises:
        EpisodeNotIndexed: ``episode_id`` has no embedding this organisation can see (another
            organisation's episode looks exactly like one that does not exist).
    """
    from sqlalchemy import select

    embedder = embedder or embedder_from_env()
    t = table()
    found = session.execute(
        select(t.c.embedding).where(t.c.episode_id == str(episode_id), t.c.model == embedder.name)
    ).scalar_one_or_none()
    if found is None:
        raise EpisodeNotIndexed(
            f"episode {episode_id!r} is not indexed for search ({embedder.name}): index it first"
        )
    vector = [float(x) for x in found]
    return _hits(session, vector, embedder.name, k, None if include_self else str(episode_id))


def search_episodes(
    session, query: str, k: int = 10, *, embedder: Embedder | None = None
) -> list[dict[str, Any]]:
    """The ``k`` episodes nearest to the free text ``query``, nearest first (hits as in
    :func:`similar_episodes`)."""
    if not str(query).strip():
        raise AgentGymError("search needs a query: q is empty")
    embedder = embedder or embedder_from_env()
    (vector,) = embedder.embed([str(query)[:MAX_TEXT]])
    return _hits(session, vector, embedder.name, k, None)


def index_recorded(session, episode_id: int, embedder: Embedder | None = None) -> bool:
    """Index a recorded execution's episode (its input, then its steps' observations and
    actions) under its id, as the platform does for every execution it records. An embedder
    that fails (an endpoint that is down) is logged and the episode left unindexed -- the
    execution stays recorded (index it later with :func:`index_episode`); returns whether it
    was indexed."""
    from sqlalchemy import select

    from agentgym_envs.experience.models import Episode, Step

    ep = session.get(Episode, episode_id)
    if ep is None:
        return False
    steps = session.execute(
        select(Step.observation, Step.action).where(Step.episode_id == ep.id).order_by(Step.index)
    ).all()
    first = (ep.conversation or [{}])[0].get("value", "") if ep.conversation else ""
    try:
        with session.begin_nested():
            index_episode(
                session,
                str(ep.id),
                [(o or "", a or "") for o, a in steps],
                text=str(first),
                env_id=ep.env_id,
                embedder=embedder,
            )
    except AgentGymError as exc:
        logger.warning("episode %s recorded but not indexed for search: %s", ep.id, exc)
        return False
    return True


def with_executions(session, hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``hits`` with each recorded execution's ``execution_id`` (``None`` for an episode
    indexed under an id of its own)."""
    from sqlalchemy import select

    from agentgym_envs.experience.models import Episode

    numeric = [int(h["episode_id"]) for h in hits if str(h["episode_id"]).isdigit()]
    keys = dict(
        session.execute(select(Episode.id, Episode.key).where(Episode.id.in_(numeric))).all()
        if numeric
        else []
    )
    for h in hits:
        eid = str(h["episode_id"])
        h["execution_id"] = keys.get(int(eid)) if eid.isdigit() else None
    return hits


# -- HTTP ---------------------------------------------------------------------------------
def search_router(tenant_session: Callable[..., Any], *, embedder: Embedder | None = None):
    """A FastAPI router over the functions above; ``tenant_session`` is the dependency that
    yields the request's tenant-scoped SQLAlchemy session (``agentgym.org_id`` set).

    - ``POST /search/episodes`` ``{"episode_id", "steps": [[obs, action], ...], "text",
      "env_id"}``: index (or re-index) an episode.
    - ``GET /search/episodes/{episode_id}/similar?k=10``: episodes like this one (404 when it
      is not indexed for this organisation).
    - ``GET /search/episodes?q=...&k=10``: free-text search.
    """
    from agentgym_envs.platform.search_routes import router

    return router(tenant_session, embedder or embedder_from_env())


def http_index_episode(
    client,
    episode_id: str,
    steps: Iterable[tuple[str, str]] = (),
    *,
    text: str = "",
    env_id: str = "",
) -> dict[str, Any]:
    """Index an episode through the platform (``client``: an ``httpx.Client`` with the base
    URL and the API key's headers, as the SDK's ``Client`` holds)."""
    body = {"episode_id": episode_id, "steps": [list(s) for s in steps], "text": text}
    return reply_json(client.post("/search/episodes", json={**body, "env_id": env_id}))


def http_similar_episodes(client, episode_id: str, k: int = 10) -> list[dict[str, Any]]:
    """Episodes like ``episode_id`` through the platform, nearest first."""
    from urllib.parse import quote

    path = f"/search/episodes/{quote(str(episode_id), safe='')}/similar"
    return reply_json(client.get(path, params={"k": k}), EpisodeNotIndexed)["hits"]


def http_search_episodes(client, query: str, k: int = 10) -> list[dict[str, Any]]:
    """Free-text episode search through the platform, nearest first."""
    return reply_json(client.get("/search/episodes", params={"q": query, "k": k}))["hits"]


__all__ = [
    "EpisodeNotIndexed",
    "episode_text",
    "http_index_episode",
    "http_search_episodes",
    "http_similar_episodes",
    "index_episode",
    "index_recorded",
    "search_episodes",
    "search_router",
    "similar_episodes",
    "table",
    "with_executions",
]
