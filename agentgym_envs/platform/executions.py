"""Executions recorded through the API, stored as experience episodes.

An execution of agent *A* at version *v* is an episode of the run ``live:<agent id>:<v>`` (or,
when a live traffic split routed it, of the split's A/B run for that arm), with env id
``platform/<A>``, the execution id as its key and item, its steps as steps, and the agent's
input, steps and output as its AgentTraj conversation -- so the dashboard, feedback, training
export and the A/B analysis read it like any other episode.
"""

from __future__ import annotations

import json
import math
import uuid
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert

from agentgym_envs.errors import AgentGymError
from agentgym_envs.experience.models import AgentVersion, Episode, Feedback, Run, Step, utcnow

OUTCOMES = (
    "success",
    "failure",
    "invalid_action",
    "turn_limit",
    "token_limit",
    "time_limit",
    "env_error",
)
#: The ``env`` label of the platform's recorded executions in ``agentgym_episodes_total``.
METRICS_ENV = "platform"
#: Largest text kept per field (a bigger one is cut, with a note).
MAX_TEXT = 200_000


def as_text(value: Any) -> str:
    """``value`` as stored text (JSON for anything but a string)."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    text = text.replace("\x00", "")
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + " [cut]"


def env_id_of(agent_name: str) -> str:
    return f"platform/{agent_name}"


def run_for(s, agent, version: AgentVersion, *, ab_test_id: int | None = None) -> int:
    """The id of the run executions of ``version`` are recorded in (made on first use)."""
    if ab_test_id is None:
        key, name, kind, arm = (
            f"live:{agent.id}:{version.version}",
            f"{agent.name} live",
            "live",
            None,
        )
    else:
        key = f"ab:{ab_test_id}:{version.version}"
        name, kind, arm = f"{agent.name} split {version.version}", "ab", version.version
    s.execute(
        insert(Run)
        .values(
            source_key=key,
            name=name,
            kind=kind,
            source="platform",
            version_id=version.id,
            ab_test_id=ab_test_id,
            arm=arm,
            split="live",
            config={},
            created_at=utcnow(),
        )
        .on_conflict_do_nothing(index_elements=["org_id", "source_key"])
    )
    return s.scalars(select(Run.id).where(Run.source_key == key)).one()


def _steps(body: dict[str, Any], input_text: str, output_text: str) -> list[dict[str, Any]]:
    raw = body.get("steps") or []
    if not isinstance(raw, list):
        raise AgentGymError("steps: give a list of {observation, action, result, reward}")
    steps = []
    for i, st in enumerate(raw):
        if not isinstance(st, dict) or "action" not in st:
            raise AgentGymError(f"step {i}: give an object with at least an action")
        steps.append(
            {
                "observation": as_text(st.get("observation", "")),
                "action": as_text(st["action"]),
                "result": None if st.get("result") is None else as_text(st["result"]),
                "reward": _number(st.get("reward"), f"step {i} reward"),
                "latency": _number(st.get("latency"), f"step {i} latency"),
            }
        )
    if not steps:  # the whole call is one action: the input answered by the output
        steps.append(
            {
                "observation": input_text,
                "action": output_text,
                "result": None,
                "reward": None,
                "latency": None,
            }
        )
    return steps


def _number(value: Any, what: str) -> float | None:
    if value is None:
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise AgentGymError(f"{what}: give a number, not {str(value)[:40]!r}") from None
    if math.isnan(x) or math.isinf(x):
        raise AgentGymError(f"{what}: give a finite number")
    return x


def record_execution(
    s, agent, version: AgentVersion, body: dict[str, Any], *, ab_test_id: int | None = None
) -> dict[str, Any]:
    """Store one execution (``body``: the API's execution fields); returns its summary."""
    execution_id = str(body.get("execution_id") or uuid.uuid4())
    try:
        execution_id = str(uuid.UUID(execution_id))
    except ValueError:
        raise AgentGymError(f"execution_id {execution_id[:60]!r}: give a UUID") from None
    input_text, output_text = as_text(body.get("input")), as_text(body.get("output"))
    context = body.get("context")
    steps = _steps(body, input_text, output_text)
    success = bool(body.get("success", body.get("error") is None))
    outcome = str(body.get("outcome") or ("success" if success else "failure"))
    if outcome not in OUTCOMES:
        raise AgentGymError(f"outcome {outcome!r}: use one of {', '.join(OUTCOMES)}")
    score = _number(body.get("score"), "score")
    score = (1.0 if success else 0.0) if score is None else score
    human = (
        input_text
        if context in (None, "", [], {})
        else f"{input_text}\n\nContext: {as_text(context)}"
    )
    conversation: list[dict[str, Any]] = [{"from": "human", "loss": None, "value": human}]
    turns = []
    for st in steps if body.get("steps") else []:
        turns.append(len(conversation))
        conversation.append({"from": "gpt", "loss": True, "value": st["action"]})
        if st["result"] is not None:
            conversation.append({"from": "human", "loss": None, "value": st["result"]})
    conversation.append({"from": "gpt", "loss": True, "value": output_text})
    if not body.get("steps"):
        turns = [len(conversation) - 1]
    run_id = run_for(s, agent, version, ab_test_id=ab_test_id)
    existing = s.scalars(select(Episode).where(Episode.key == execution_id)).first()
    if existing is not None:  # the same execution sent twice: it is recorded once
        return summary(existing, agent, version, replayed=True)
    ep = Episode(
        run_id=run_id,
        key=execution_id,
        env_id=env_id_of(agent.name),
        item_id=execution_id,
        split="live",
        sample=0,
        outcome=outcome,
        success=success,
        score=score,
        turns=len(steps),
        wall_time=_number(body.get("wall_time"), "wall_time"),
        error=None if body.get("error") is None else as_text(body["error"]),
        conversation=conversation,
        created_at=utcnow(),
    )
    s.add(ep)
    s.flush()
    for i, st in enumerate(steps):
        s.add(Step(episode_id=ep.id, index=i, turn=turns[i], **st))
    s.add(
        Feedback(
            episode_id=ep.id,
            step_id=None,
            target="outcome",
            label="good" if success else "bad",
            score=score,
            comment=f"outcome: {outcome}",
            author=f"agent:{agent.name}",
            source="auto",
            created_at=utcnow(),
        )
    )
    s.flush()
    return summary(ep, agent, version)


def summary(ep: Episode, agent, version: AgentVersion, *, replayed: bool = False) -> dict[str, Any]:
    return {
        "execution_id": ep.key,
        "episode_id": ep.id,
        "agent_id": str(agent.id),
        "version": version.version,
        "outcome": ep.outcome,
        "success": ep.success,
        "score": ep.score,
        "replayed": replayed,
    }


__all__ = [
    "METRICS_ENV",
    "OUTCOMES",
    "as_text",
    "env_id_of",
    "record_execution",
    "run_for",
    "summary",
]
