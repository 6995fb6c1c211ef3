"""The platform's JSON API under ``/v1``: agents, versions, executions, feedback, training
data, and (for admins) users and API keys.

Every handler runs in the caller's tenant session (:mod:`~agentgym_envs.platform.deps`):
another organisation's agent, execution or key is not found (404), exactly like an id that
does not exist. Writes take an ``Idempotency-Key`` header: a retried request with the same key
gets the first answer and records nothing again, for the retention of keys (24 h by default,
``$AGENTGYM_PLATFORM_IDEMPOTENCY_HOURS``; :func:`idempotent`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import uuid
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import JSONResponse
from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError

from agentgym_envs.errors import AgentGymError
from agentgym_envs.experience import dashboard_queries as queries
from agentgym_envs.experience.feedback import add_feedback, list_feedback
from agentgym_envs.experience.models import AgentVersion, Episode, Promotion, Run, utcnow
from agentgym_envs.experience.training import FORMATS
from agentgym_envs.platform import auth
from agentgym_envs.platform.db import SessionStore
from agentgym_envs.platform.deps import TenantDB, needs
from agentgym_envs.platform.executions import METRICS_ENV, record_execution
from agentgym_envs.platform.models import Agent, ApiKey, IdempotencyKey, User
from agentgym_envs.platform.search import index_recorded
from agentgym_envs.platform.training_data import agent_records

router = APIRouter(prefix="/v1", tags=["platform"])


def jsonable(data: Any) -> Any:
    return json.loads(json.dumps(data, default=str))


async def body_of(request: Request) -> dict[str, Any]:
    """The request's JSON object, or a one-line 400 (a dependency: the handlers that take it
    are plain functions, run in the thread pool, so the database never blocks the loop)."""
    try:
        body = await request.json()
    except ValueError:
        raise HTTPException(400, "send a JSON object") from None
    if not isinstance(body, dict):
        raise HTTPException(400, "send a JSON object")
    return body


JsonBody = Annotated[dict, Depends(body_of)]


#: How long an ``Idempotency-Key`` is remembered by default (hours): a retry within it gets the
#: first answer; after it the key is forgotten (and its row pruned).
IDEMPOTENCY_HOURS = 24.0
#: Environment variable that sets the retention of ``agentgym platform serve`` (hours).
IDEMPOTENCY_ENV = "AGENTGYM_PLATFORM_IDEMPOTENCY_HOURS"
#: Expired keys deleted at most per write (bounded work; each write prunes again).
PRUNE_BATCH = 100


def idempotency_retention(hours: float | str | None = None) -> dt.timedelta:
    """The retention of idempotency keys: ``hours``, else ``$AGENTGYM_PLATFORM_IDEMPOTENCY_HOURS``,
    else :data:`IDEMPOTENCY_HOURS`; a one-line error for anything but a positive number."""
    import os

    raw = hours if hours is not None else os.environ.get(IDEMPOTENCY_ENV) or IDEMPOTENCY_HOURS
    try:
        value = float(raw)
    except (TypeError, ValueError):
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise AgentGymError(
            f"idempotency retention {raw!r}: give a positive number of hours "
            f"(${IDEMPOTENCY_ENV}, default {IDEMPOTENCY_HOURS:g})"
        )
    return dt.timedelta(hours=value)


def prune_idempotency_keys(s, cutoff: dt.datetime, limit: int = PRUNE_BATCH) -> int:
    """Delete at most ``limit`` of the tenant's keys made before ``cutoff`` (oldest first;
    rows another transaction holds are skipped, so concurrent writes never wait on each other
    here); returns how many."""
    from sqlalchemy import delete, tuple_

    old = (
        select(IdempotencyKey.org_id, IdempotencyKey.key)
        .where(IdempotencyKey.created_at < cutoff)
        .order_by(IdempotencyKey.created_at)
        .limit(limit)
        .with_for_update(skip_locked=True)
    )
    gone = s.execute(
        delete(IdempotencyKey).where(tuple_(IdempotencyKey.org_id, IdempotencyKey.key).in_(old))
    )
    return gone.rowcount or 0


def idempotent(
    s, request: Request, body: dict[str, Any], make: Callable[[], tuple[int, Any]]
) -> JSONResponse:
    """Run ``make`` (the write) once per ``Idempotency-Key`` within the service's retention
    (:func:`idempotency_retention`): the key is claimed in the write's own transaction, so a
    concurrent retry waits for the first and then gets its answer, and a failed first attempt
    leaves no claim behind. The same key with another method, path or body is a 422. A key
    older than the retention is claimed again as new; each new claim prunes a bounded batch of
    the tenant's expired keys."""
    key = request.headers.get("idempotency-key", "").strip()
    if not key:
        status, data = make()
        return JSONResponse(jsonable(data), status_code=status)
    if len(key) > 200:
        raise HTTPException(400, "Idempotency-Key: at most 200 characters")
    digest = hashlib.sha256(
        f"{request.method} {request.url.path}\n{json.dumps(body, sort_keys=True, default=str)}".encode()
    ).hexdigest()
    retention = getattr(request.app.state, "idempotency_retention", None)
    retention = retention or idempotency_retention(IDEMPOTENCY_HOURS)
    now = utcnow()
    cutoff = now - retention
    fresh = {"request_hash": digest, "created_at": now, "status_code": None, "response": None}
    claimed = s.execute(
        insert(IdempotencyKey)
        .values(key=key, request_hash=digest, created_at=now)
        .on_conflict_do_update(
            index_elements=["org_id", "key"],
            set_=fresh,
            where=IdempotencyKey.created_at < cutoff,  # an expired key is claimed anew
        )
        .returning(IdempotencyKey.key)
    ).scalar()
    if claimed is None:
        row = s.scalars(select(IdempotencyKey).where(IdempotencyKey.key == key)).one()
        if row.request_hash != digest:
            hours = retention.total_seconds() / 3600
            raise HTTPException(
                422,
                f"Idempotency-Key {key[:60]!r} was used in the last {hours:g} h for another "
                "request (method, path or body): send a new key for a new request",
            )
        return JSONResponse(
            row.response,
            status_code=row.status_code or 200,
            headers={"Idempotent-Replayed": "true"},
        )
    prune_idempotency_keys(s, cutoff)
    status, data = make()
    data = jsonable(data)
    row = s.scalars(select(IdempotencyKey).where(IdempotencyKey.key == key)).one()
    row.status_code, row.response = status, data
    return JSONResponse(data, status_code=status)


def parse_id(value: str, what: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError:
        raise HTTPException(404, f"no {what} {value[:60]!r}") from None


def get_agent(s, agent_id: str) -> Agent:
    agent = s.get(Agent, parse_id(agent_id, "agent"))
    if agent is None:
        raise HTTPException(404, f"no agent {agent_id}")
    return agent


def versions_of(s, agent: Agent) -> list[AgentVersion]:
    return list(
        s.scalars(
            select(AgentVersion).where(AgentVersion.name == agent.name).order_by(AgentVersion.id)
        )
    )


def current_of(s, agent: Agent) -> AgentVersion | None:
    """The latest promoted version, else the latest registered."""
    p = s.scalars(
        select(Promotion)
        .where(Promotion.agent_name == agent.name)
        .order_by(Promotion.id.desc())
        .limit(1)
    ).first()
    if p is not None:
        return p.version
    found = versions_of(s, agent)
    return found[-1] if found else None


def version_of(s, agent: Agent, version: str) -> AgentVersion:
    found = s.scalars(
        select(AgentVersion).where(AgentVersion.name == agent.name, AgentVersion.version == version)
    ).first()
    if found is None:
        raise HTTPException(404, f"agent {agent.name!r} has no version {version!r}")
    return found


def version_dict(v: AgentVersion) -> dict[str, Any]:
    return {
        "version": v.version,
        "label": v.label,
        "model": v.model,
        "prompt_set": v.prompt_set,
        "config": v.config,
        "notes": v.notes,
        "created_at": v.created_at,
    }


def agent_dict(s, agent: Agent) -> dict[str, Any]:
    cur = current_of(s, agent)
    return {
        "id": str(agent.id),
        "name": agent.name,
        "description": agent.description,
        "created_at": agent.created_at,
        "versions": [v.version for v in versions_of(s, agent)],
        "current_version": cur.version if cur is not None else None,
    }


def register(s, agent: Agent, body: dict[str, Any]) -> AgentVersion:
    version = str(body.get("version") or "").strip()
    if not version or len(version) > 200:
        raise HTTPException(400, "give a version (e.g. 1.0.0)")
    s.execute(
        insert(AgentVersion)
        .values(
            name=agent.name,
            version=version,
            model=body.get("model"),
            prompt_set=body.get("prompt_set"),
            config=body.get("config") or {},
            notes=str(body.get("notes") or ""),
            created_at=utcnow(),
        )
        .on_conflict_do_nothing(index_elements=["org_id", "name", "version"])
    )
    return version_of(s, agent, version)


# -- agents and versions ----------------------------------------------------------------------
@router.post("/agents", status_code=201)
def create_agent(request: Request, s: TenantDB, body: JsonBody):

    def make():
        name = str(body.get("name") or "").strip()
        if not name or len(name) > 200:
            raise HTTPException(400, "give the agent a name (at most 200 characters)")
        s.execute(
            insert(Agent)
            .values(
                id=uuid.uuid4(),
                name=name,
                description=str(body.get("description") or ""),
                created_at=utcnow(),
            )
            .on_conflict_do_nothing(index_elements=["org_id", "name"])
        )
        agent = s.scalars(select(Agent).where(Agent.name == name)).one()
        if body.get("version"):
            register(s, agent, body)
        return 201, agent_dict(s, agent)

    return idempotent(s, request, body, make)


@router.get("/agents")
def list_agents(s: TenantDB):
    return jsonable([agent_dict(s, a) for a in s.scalars(select(Agent).order_by(Agent.created_at))])


@router.get("/agents/{agent_id}")
def read_agent(agent_id: str, s: TenantDB):
    return jsonable(agent_dict(s, get_agent(s, agent_id)))


@router.post("/agents/{agent_id}/versions", status_code=201)
def create_version(agent_id: str, request: Request, s: TenantDB, body: JsonBody):
    agent = get_agent(s, agent_id)
    return idempotent(s, request, body, lambda: (201, version_dict(register(s, agent, body))))


@router.get("/agents/{agent_id}/versions")
def list_agent_versions(agent_id: str, s: TenantDB):
    agent = get_agent(s, agent_id)
    return jsonable([version_dict(v) for v in versions_of(s, agent)])


# -- executions and feedback --------------------------------------------------------------------
@router.post("/agents/{agent_id}/executions", status_code=201)
def create_execution(agent_id: str, request: Request, s: TenantDB, body: JsonBody):
    from agentgym_envs.platform.routing import route_of

    agent = get_agent(s, agent_id)

    def make():
        ab_test_id = None
        if body.get("version"):
            version = version_of(s, agent, str(body["version"]))
        else:
            version = current_of(s, agent)
            if version is None:
                raise HTTPException(400, f"agent {agent.name!r} has no version yet: register one")
        if body.get("routed"):
            route = route_of(s, agent)
            if route is None or version.version not in route.arms:
                raise HTTPException(409, "routed: the agent's live split has no such arm")
            ab_test_id = route.ab_test_id
        try:
            recorded = record_execution(s, agent, version, body, ab_test_id=ab_test_id)
        except AgentGymError as exc:
            raise HTTPException(400, str(exc)) from None
        if not recorded["replayed"]:  # searchable at once ("episodes like this one")
            index_recorded(s, recorded["episode_id"], getattr(request.app.state, "embedder", None))
            metrics = getattr(request.app.state, "metrics", None)
            if metrics is not None:
                metrics.episode_ended(recorded["outcome"], env=METRICS_ENV)
        return 201, recorded

    return idempotent(s, request, body, make)


def get_execution(s, agent: Agent, execution_id: str) -> Episode:
    key = str(parse_id(execution_id, "execution"))
    ep = s.scalars(
        select(Episode)
        .join(Run, Episode.run_id == Run.id)
        .join(AgentVersion, Run.version_id == AgentVersion.id)
        .where(Episode.key == key, AgentVersion.name == agent.name)
    ).first()
    if ep is None:
        raise HTTPException(404, f"agent {agent.id} has no execution {execution_id}")
    return ep


@router.get("/agents/{agent_id}/executions")
def list_executions(agent_id: str, s: TenantDB, limit: int = 100, offset: int = 0):
    agent = get_agent(s, agent_id)
    limit, offset = max(0, min(limit, 1000)), max(0, offset)
    rows = s.execute(
        select(
            Episode.key,
            Episode.id,
            AgentVersion.version,
            Episode.outcome,
            Episode.success,
            Episode.score,
            Episode.created_at,
        )
        .join(Run, Episode.run_id == Run.id)
        .join(AgentVersion, Run.version_id == AgentVersion.id)
        .where(AgentVersion.name == agent.name)
        .order_by(Episode.id)
        .limit(limit)
        .offset(offset)
    )
    keys = ("execution_id", "episode_id", "version", "outcome", "success", "score", "created_at")
    return jsonable([dict(zip(keys, r)) for r in rows])


@router.get("/agents/{agent_id}/executions/{execution_id}")
def read_execution(agent_id: str, execution_id: str, s: TenantDB):
    ep = get_execution(s, get_agent(s, agent_id), execution_id)
    out = queries.episode_detail(SessionStore(s), ep.id)
    out["execution_id"] = ep.key
    return jsonable(out)


@router.post("/agents/{agent_id}/executions/{execution_id}/feedback", status_code=201)
@needs("feedback")
def create_feedback(
    agent_id: str, execution_id: str, request: Request, s: TenantDB, body: JsonBody
):
    ep = get_execution(s, get_agent(s, agent_id), execution_id)
    who = request.state.principal

    def make():
        try:
            score = body.get("score")
            entry = add_feedback(
                SessionStore(s),
                ep.id,
                step_index=None if body.get("step_index") is None else int(body["step_index"]),
                label=body.get("label") or None,
                score=None if score in (None, "") else float(score),
                comment=str(body.get("comment") or ""),
                author=str(body.get("author") or who.name),
                source="human",
            )
        except (AgentGymError, TypeError, ValueError) as exc:
            raise HTTPException(400, str(exc)) from None
        entry["execution_id"] = ep.key
        return 201, entry

    return idempotent(s, request, body, make)


@router.get("/agents/{agent_id}/executions/{execution_id}/feedback")
def read_feedback(agent_id: str, execution_id: str, s: TenantDB):
    ep = get_execution(s, get_agent(s, agent_id), execution_id)
    return jsonable(
        {
            "execution_id": ep.key,
            "outcome": ep.outcome,
            "success": ep.success,
            "score": ep.score,
            "entries": list_feedback(SessionStore(s), episode_id=ep.id),
        }
    )


@router.get("/agents/{agent_id}/training-data")
def training_data(
    agent_id: str,
    s: TenantDB,
    fmt: str = "sft",
    outcome: str | None = None,
    feedback: str | None = None,
    include_failed: bool = False,
):
    agent = get_agent(s, agent_id)
    if fmt not in FORMATS:
        raise HTTPException(400, f"fmt {fmt!r}: use one of {', '.join(FORMATS)}")
    try:
        records = agent_records(
            s, agent.name, fmt, outcome=outcome, feedback=feedback, include_failed=include_failed
        )
    except AgentGymError as exc:
        raise HTTPException(400, str(exc)) from None
    return jsonable(records)


# -- who am I, users, keys (admin) --------------------------------------------------------------
@router.get("/me")
def me(request: Request, s: TenantDB):
    p = request.state.principal
    return {
        "org_id": str(p.org_id),
        "kind": p.kind,
        "name": p.name,
        "role": p.role,
        "permissions": sorted(p.permissions),
    }


def key_dict(k: ApiKey) -> dict[str, Any]:
    return jsonable(
        {
            "id": str(k.id),
            "name": k.name,
            "scopes": k.scopes,
            "created_by": k.created_by,
            "created_at": k.created_at,
            "revoked_at": k.revoked_at,
            "rotated_from": str(k.rotated_from) if k.rotated_from else None,
        }
    )


def new_key(s, org_id: uuid.UUID, name: str, scopes, created_by: str, rotated_from=None) -> dict:
    """Create an API key; the returned dict has the key itself (shown this once)."""
    secret = auth.new_secret()
    key = ApiKey(
        id=uuid.uuid4(),
        name=name,
        secret_hash=auth.digest(secret),
        scopes=auth.check_scopes(scopes),
        created_by=created_by,
        created_at=utcnow(),
        rotated_from=rotated_from,
    )
    s.add(key)
    s.flush()
    return {**key_dict(key), "key": auth.format_key(org_id, key.id, secret)}


def get_key(s, key_id: str) -> ApiKey:
    key = s.get(ApiKey, parse_id(key_id, "key"))
    if key is None:
        raise HTTPException(404, f"no key {key_id}")
    return key


@router.get("/keys")
@needs("admin")
def list_keys(s: TenantDB):
    return [key_dict(k) for k in s.scalars(select(ApiKey).order_by(ApiKey.created_at))]


@router.post("/keys", status_code=201)
@needs("admin")
def create_key(request: Request, s: TenantDB, body: JsonBody):
    who = request.state.principal
    try:
        scopes = auth.check_scopes(body.get("scopes") or auth.DEFAULT_SCOPES)
    except AgentGymError as exc:
        raise HTTPException(400, str(exc)) from None
    name = str(body.get("name") or "key")[:200]
    return JSONResponse(new_key(s, who.org_id, name, scopes, who.name), status_code=201)


@router.post("/keys/{key_id}/revoke")
@needs("admin")
def revoke_key(key_id: str, s: TenantDB):
    key = get_key(s, key_id)
    if key.revoked_at is None:
        key.revoked_at = dt.datetime.now(dt.timezone.utc)
    return key_dict(key)


@router.post("/keys/{key_id}/rotate", status_code=201)
@needs("admin")
def rotate_key(key_id: str, request: Request, s: TenantDB):
    key = get_key(s, key_id)
    if key.revoked_at is not None:
        raise HTTPException(409, f"key {key_id} is revoked: create a new one")
    who = request.state.principal
    key.revoked_at = dt.datetime.now(dt.timezone.utc)
    return JSONResponse(
        new_key(s, who.org_id, key.name, key.scopes, who.name, rotated_from=key.id), status_code=201
    )


def user_dict(u: User) -> dict[str, Any]:
    return jsonable(
        {
            "id": str(u.id),
            "email": u.email,
            "name": u.name,
            "role": u.role,
            "active": u.active,
            "created_at": u.created_at,
        }
    )


@router.get("/users")
@needs("admin")
def list_users(s: TenantDB):
    return [user_dict(u) for u in s.scalars(select(User).order_by(User.created_at))]


@router.post("/users", status_code=201)
@needs("admin")
def create_user(request: Request, s: TenantDB, body: JsonBody):
    try:
        user = User(
            id=uuid.uuid4(),
            email=str(body.get("email") or "").strip().lower(),
            name=str(body.get("name") or ""),
            role=auth.check_role(str(body.get("role") or "viewer")),
            password_hash=auth.hash_password(str(body.get("password") or "")),
            active=True,
            created_at=utcnow(),
        )
    except AgentGymError as exc:
        raise HTTPException(400, str(exc)) from None
    if "@" not in user.email:
        raise HTTPException(400, "give the user's email")
    s.add(user)
    try:
        s.flush()
    except IntegrityError:
        raise HTTPException(409, f"{user.email} is already a user here") from None
    return JSONResponse(user_dict(user), status_code=201)


@router.patch("/users/{user_id}")
@needs("admin")
def update_user(user_id: str, request: Request, s: TenantDB, body: JsonBody):
    user = s.get(User, parse_id(user_id, "user"))
    if user is None:
        raise HTTPException(404, f"no user {user_id}")
    try:
        if "role" in body:
            user.role = auth.check_role(str(body["role"]))
        if "active" in body:
            user.active = bool(body["active"])
        if body.get("password"):
            user.password_hash = auth.hash_password(str(body["password"]))
    except AgentGymError as exc:
        raise HTTPException(400, str(exc)) from None
    return user_dict(user)


__all__ = [
    "IDEMPOTENCY_ENV",
    "IDEMPOTENCY_HOURS",
    "agent_dict",
    "current_of",
    "get_agent",
    "idempotency_retention",
    "idempotent",
    "new_key",
    "prune_idempotency_keys",
    "router",
    "version_of",
]
