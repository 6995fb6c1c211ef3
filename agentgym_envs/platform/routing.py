"""Live traffic splitting: a configured share of live requests to each version of an agent,
sticky per end user, recorded, and analysed like an offline A/B test.

``PUT /v1/agents/{id}/split`` sets the arms (version -> percentage). ``POST .../route`` with an
end user's id answers the version to serve: the arm is a hash of the split's salt and the user
(:func:`agentgym_envs.experience.ab.assign_arm`, the offline split mode's own assignment), so a
user stays on one version while the split is unchanged; every decision is recorded.
Executions sent with ``routed: true`` are recorded under the split's A/B test, one run per arm,
and ``GET .../split/analysis`` runs the offline split-mode statistics on them (Fisher's exact
test for success, an unpaired bootstrap for score: :func:`agentgym_envs.experience.ab.analyse`).
Promote (all traffic to one version, which becomes the control) and rollback (all traffic back
to the control before the last promotion, or to the control if none) change the
split in one transaction on the locked route row: a routing request sees the old split or the
new one, never a mix, and none fails.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from sqlalchemy import select

from agentgym_envs.errors import AgentGymError
from agentgym_envs.experience.ab import ab_records, analyse, assign_arm
from agentgym_envs.experience.models import ABTest, Promotion, utcnow
from agentgym_envs.platform.api import JsonBody, get_agent, idempotent, jsonable, version_of
from agentgym_envs.platform.db import SessionStore
from agentgym_envs.platform.deps import TenantDB, needs
from agentgym_envs.platform.models import Agent, Route, RouteDecision

router = APIRouter(prefix="/v1/agents/{agent_id}", tags=["routing"])


def route_of(s, agent: Agent, *, lock: bool = False) -> Route | None:
    q = select(Route).where(Route.agent_id == agent.id)
    if lock:
        q = q.with_for_update()
    return s.scalars(q).first()


def route_dict(route: Route) -> dict[str, Any]:
    return jsonable(
        {
            "route_id": str(route.id),
            "agent_id": str(route.agent_id),
            "arms": route.arms,
            "control": route.control,
            "previous_control": route.previous_control,
            "revision": route.revision,
            "ab_test_id": route.ab_test_id,
            "updated_at": route.updated_at,
        }
    )


def _arms(s, agent: Agent, raw: Any) -> dict[str, float]:
    if not isinstance(raw, dict) or not raw:
        raise HTTPException(400, 'give arms as {"<version>": <percentage>, ...}')
    arms = {}
    for version, weight in raw.items():
        version_of(s, agent, str(version))
        try:
            w = float(weight)
        except (TypeError, ValueError):
            raise HTTPException(400, f"arm {version}: give a percentage, not {weight!r}") from None
        if not 0 <= w <= 100:
            raise HTTPException(400, f"arm {version}: a percentage from 0 to 100")
        arms[str(version)] = w
    total = sum(arms.values())
    if abs(total - 100) > 1e-6:
        raise HTTPException(400, f"the arms' percentages add up to {total:g}: make them 100")
    return arms


def pick(route: Route, user: str) -> str:
    """The version ``user`` is served under ``route``'s split (sticky: a hash)."""
    names = list(route.arms)
    return assign_arm(user, names, [route.arms[n] for n in names], salt=route.salt)


@router.put("/split")
@needs("write")
def set_split(agent_id: str, s: TenantDB, body: JsonBody):
    agent = get_agent(s, agent_id)
    arms = _arms(s, agent, body.get("arms"))
    route = route_of(s, agent, lock=True)
    control = str(body.get("control") or (route.control if route else next(iter(arms))))
    if control not in arms:
        raise HTTPException(400, f"control {control!r} is not one of the arms")
    now = utcnow()
    if route is None or set(arms) != set(route.arms):
        test = ABTest(
            name=f"live {agent.name} {secrets.token_hex(4)}",
            config={
                "mode": "split",
                "live": True,
                "agent_id": str(agent.id),
                "envs": [f"platform/{agent.name}"],
                "looks": 1,
                "alpha": 0.05,
                "metric": "success",
            },
            status="running",
            created_at=now,
        )
        s.add(test)
        s.flush()
        if route is None:
            route = Route(
                agent_id=agent.id,
                salt=secrets.token_hex(16),
                revision=0,
                control=control,
                arms=arms,
                ab_test_id=test.id,
            )
            s.add(route)
        route.ab_test_id = test.id
    route.arms, route.control, route.previous_control = arms, control, None
    route.revision += 1
    route.updated_at = now
    _describe_test(s, route)
    s.flush()
    return route_dict(route)


def _describe_test(s, route: Route) -> None:
    """Keep the A/B test's settings (what the dashboard's A/B page shows) as the split is."""
    test = s.get(ABTest, route.ab_test_id)
    if test is not None:
        split = ", ".join(f"{v} {w:g}%" for v, w in route.arms.items())
        test.config = {
            **test.config,
            "weights": dict(route.arms),
            "split": split,
            "control": route.control,
        }


@router.get("/split")
def read_split(agent_id: str, s: TenantDB):
    route = route_of(s, get_agent(s, agent_id))
    if route is None:
        raise HTTPException(404, f"agent {agent_id} has no live split")
    return route_dict(route)


@router.post("/route")
@needs("write")
def route_request(agent_id: str, request: Request, s: TenantDB, body: JsonBody):
    agent = get_agent(s, agent_id)
    user = str(body.get("user") or "").strip()
    if not user:
        raise HTTPException(400, "give the end user's id (user): the split is sticky per user")

    def make():
        route = route_of(s, agent)
        if route is None:
            raise HTTPException(404, f"agent {agent_id} has no live split")
        version = pick(route, user)
        s.add(
            RouteDecision(
                route_id=route.id,
                user_hash=hashlib.sha256(f"{route.salt}\x00{user}".encode()).hexdigest(),
                version=version,
                revision=route.revision,
                created_at=utcnow(),
            )
        )
        return 200, {"version": version, "revision": route.revision, "route_id": str(route.id)}

    return idempotent(s, request, body, make)


def _all_to(s, agent: Agent, version: str, *, action: str, who: str, reason: str) -> Route:
    route = route_of(s, agent, lock=True)  # one transaction: readers see the old or the new split
    if route is None:
        raise HTTPException(404, f"agent {agent.id} has no live split")
    ver = version_of(s, agent, version)
    route.arms = {version: 100.0, **{k: 0.0 for k in route.arms if k != version}}
    if action == "promote":
        if version != route.control:
            route.previous_control = route.control
        route.control = version
    else:
        route.control, route.previous_control = version, None
    route.revision += 1
    route.updated_at = dt.datetime.now(dt.timezone.utc)
    _describe_test(s, route)
    s.add(
        Promotion(
            agent_name=agent.name,
            version_id=ver.id,
            action=action,
            reason=reason,
            author=who,
            created_at=utcnow(),
        )
    )
    s.flush()
    return route


@router.post("/split/promote")
@needs("admin")
def promote_split(agent_id: str, request: Request, s: TenantDB, body: JsonBody):
    agent = get_agent(s, agent_id)
    version = str(body.get("version") or "")
    route = _all_to(
        s,
        agent,
        version,
        action="promote",
        who=request.state.principal.name,
        reason=str(body.get("reason") or ""),
    )
    return route_dict(route)


@router.post("/split/rollback")
@needs("admin")
def rollback_split(agent_id: str, request: Request, s: TenantDB, body: JsonBody):
    agent = get_agent(s, agent_id)
    route = route_of(s, agent)
    if route is None:
        raise HTTPException(404, f"agent {agent_id} has no live split")
    target = route.previous_control or route.control
    route = _all_to(
        s,
        agent,
        target,
        action="rollback",
        who=request.state.principal.name,
        reason=str(body.get("reason") or ""),
    )
    return route_dict(route)


@router.get("/split/analysis")
def split_analysis(agent_id: str, s: TenantDB, alpha: float = 0.05):
    route = route_of(s, get_agent(s, agent_id))
    if route is None:
        raise HTTPException(404, f"agent {agent_id} has no live split")
    if not 0 < alpha < 1:
        raise HTTPException(400, "alpha: a level between 0 and 1 (e.g. 0.05)")
    records = ab_records(SessionStore(s), route.ab_test_id)
    control = records.get(route.control, [])
    comparisons = {}
    try:
        for arm in route.arms:
            if arm != route.control:
                comparisons[arm] = analyse(control, records.get(arm, []), mode="split", alpha=alpha)
    except AgentGymError as exc:
        raise HTTPException(400, str(exc)) from None
    result = {
        "ab_test_id": route.ab_test_id,
        "control": route.control,
        "executions": {arm: len(records.get(arm, [])) for arm in route.arms},
        "comparisons": comparisons,
    }
    test = s.get(ABTest, route.ab_test_id)
    if test is not None:
        test.result = jsonable({**result, "decision": "live split", "looks_done": 1, "looks": 1})
    return jsonable(result)


__all__ = ["pick", "route_of", "router"]
