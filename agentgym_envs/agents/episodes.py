"""One agent-server episode: a request row read and checked, the episode played, the row
returned with the response, reward and outcome.

A row names the env and task (``env_id`` + ``task_id`` + ``split``, or an AgentTraj
``item_id`` such as ``maze_3``, at the top level or under ``verifier_metadata``), the model
(``model: {base_url, model, api_key}``; the server's default otherwise), optionally the agent
(``agent`` or ``agent_ref.name``), its ``options``, a ``user_model`` for the multi-turn agent
and OpenAI sampling fields in ``responses_create_params`` (``temperature``, ``top_p``,
``max_output_tokens``). Every other key passes through to the answer, as NeMo Gym's rows do.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from agentgym_envs.agents.base import EpisodeDeadline
from agentgym_envs.errors import AgentGymError

logger = logging.getLogger(__name__)

#: Agents an agent server runs: the multi-step presets, and the multi-turn agent with a user.
MULTITURN_USER = "multiturn-user"


class BadRequest(AgentGymError):
    """A request the server cannot run; ``status`` is the HTTP status it answers with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def agent_names() -> list[str]:
    from agentgym_envs.agents.specs import AGENTS

    return list(AGENTS)


@dataclass
class EpisodeRequest:
    """A checked request: what to play, with which agent and model."""

    env_id: str
    task_id: int | None
    split: str
    seed: int | None
    agent: str
    model: dict[str, Any]
    user_model: dict[str, Any] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    sampling: dict[str, Any] = field(default_factory=dict)


def where(row: dict[str, Any]) -> tuple[str, int | None, str]:
    from agentgym_envs.spec import resolve_id

    meta = row.get("verifier_metadata") if isinstance(row.get("verifier_metadata"), dict) else {}
    pick = {
        **meta,
        **{k: v for k, v in row.items() if k in ("env_id", "task_id", "split", "item_id")},
    }
    if pick.get("env_id"):
        task = pick.get("task_id")
        if task is not None and (isinstance(task, bool) or not isinstance(task, int)):
            raise BadRequest(f"task_id must be an int, got {task!r}")
        return resolve_id(str(pick["env_id"])), task, str(pick.get("split", "test"))
    if pick.get("item_id"):
        from agentgym_envs.datasets.items import resolve_item

        ref = resolve_item(str(pick["item_id"]), allow_stand_in=True)
        return ref.env_id, ref.task_id, ref.split
    raise BadRequest("the row names no episode: give env_id (+ task_id, split) or an item_id")


def parse_row(row: Any, *, agent: str, models: Any) -> EpisodeRequest:
    """Check a request row against the server's default ``agent`` and its model allow-list
    (:class:`~agentgym_envs.agents.models.ModelAllowList`)."""
    if not isinstance(row, dict):
        raise BadRequest("the request body must be a JSON object (a row)")
    ref = row.get("agent_ref")
    name = row.get("agent") or (ref.get("name") if isinstance(ref, dict) else None) or agent
    if name not in agent_names():
        raise BadRequest(f"unknown agent {name!r}: use one of {', '.join(agent_names())}")
    try:
        env_id, task_id, split = where(row)
    except AgentGymError as exc:
        raise BadRequest(str(exc)) from None
    endpoint = models.resolve(row.get("model"), "model")
    if endpoint is None:
        raise BadRequest(
            "no model endpoint: name one of the server's models in the row (model: <name or "
            "URL>), or start the server with --model-url"
        )
    user = models.resolve(row.get("user_model"), "user_model")
    params = row.get("responses_create_params") or {}
    sampling = {
        k: params[src]
        for src, k in (
            ("temperature", "temperature"),
            ("top_p", "top_p"),
            ("max_output_tokens", "max_tokens"),
        )
        if isinstance(params, dict) and params.get(src) is not None
    }
    options = row.get("options") or {}
    if not isinstance(options, dict):
        raise BadRequest("options must be a JSON object of agent options")
    seed = row.get("seed", 0)
    return EpisodeRequest(
        env_id, task_id, split, seed, name, endpoint, user, dict(options), sampling
    )


def check_task(req: EpisodeRequest) -> None:
    """A task id outside the split is a bad request, not a failed episode."""
    from agentgym_envs.spec import env_info

    if req.task_id is None:
        return
    sizes = env_info(req.env_id).splits
    n = sizes.get(req.split)
    if n is None:
        raise BadRequest(f"unknown split {req.split!r}: use one of {', '.join(sizes)}")
    if not 0 <= req.task_id < n:
        raise BadRequest(
            f"task_id {req.task_id} is out of range: {req.env_id} {req.split} has {n} tasks (0-{n - 1})"
        )


_CLIENTS: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
_CLIENTS_LOCK = threading.Lock()
_MAX_CLIENTS = 32


def make_client(
    endpoint: dict[str, Any],
    sampling: dict[str, Any],
    timeout: float,
    limits: ModelLimits | None = None,
) -> Any:
    """A :class:`~agentgym_envs.benchmarks.ChatClient` for the endpoint, shared by every
    episode that uses the same endpoint, sampling and timeout (a client is thread-safe, and
    making one costs more than a short episode)."""
    from agentgym_envs.benchmarks.llm import ChatClient, Sampling

    limits = limits or ModelLimits()
    key = (
        *(endpoint.get(k) for k in ("base_url", "model", "api_key")),
        *sorted(sampling.items()),
        timeout,
        limits,
    )
    with _CLIENTS_LOCK:
        if key in _CLIENTS:
            _CLIENTS.move_to_end(key)
            return _CLIENTS[key]
    client = ChatClient(
        endpoint["base_url"],
        endpoint.get("model"),
        endpoint.get("api_key") or "EMPTY",
        timeout=min(timeout, limits.read),
        connect_timeout=limits.connect,
        total_timeout=min(timeout, limits.total),
        max_reply_bytes=limits.reply_bytes,
        max_retries=2,
        sampling=Sampling(**sampling),
    )
    with _CLIENTS_LOCK:
        _CLIENTS[key] = client
        while len(_CLIENTS) > _MAX_CLIENTS:
            _CLIENTS.popitem(last=False)  # left to the garbage collector: it may be in use
    return client


@dataclass(frozen=True)
class ModelLimits:
    """Per-call limits on model endpoints: ``connect``, ``read`` (between two bytes) and
    ``total`` seconds (over every attempt of one call), and the most bytes one reply may
    have."""

    connect: float = 5.0
    read: float = 60.0
    total: float = 120.0
    reply_bytes: int = 16 << 20


def play(
    req: EpisodeRequest,
    *,
    deadline: float,
    timeout: float = 120.0,
    limits: ModelLimits | None = None,
) -> dict[str, Any]:
    """Play the request's episode (blocking) and return its record; a model that fails mid-
    episode ends it as ``env_error`` with ``reward_valid`` false. No model call outlives
    ``deadline``: the episode then ends as ``time_limit`` and this returns."""
    from agentgym_envs.benchmarks.llm import call_deadline

    client = make_client(req.model, req.sampling, timeout, limits)
    with call_deadline(deadline):
        if req.agent == MULTITURN_USER:
            return _play_multiturn(req, client, deadline, timeout, limits)
        return _play_multistep(req, client, deadline)


def _play_multistep(req: EpisodeRequest, client: Any, deadline: float) -> dict[str, Any]:
    from agentgym_envs.agents.base import run_agent
    from agentgym_envs.agents.multistep import PARALLEL_SYSTEM, MultiStepAgent
    from agentgym_envs.agents.specs import AGENTS, PRESETS
    from agentgym_envs.benchmarks.llm import EndpointError

    options = {**PRESETS[req.agent], **req.options}
    max_rounds = options.pop("max_rounds", None)
    if options.get("parallel_calls") and "system" not in options:
        options["system"] = PARALLEL_SYSTEM
    fmt = options.pop("fmt", AGENTS[req.agent])
    try:
        agent = _Deadline(MultiStepAgent(client, fmt, seed=req.seed, **options), deadline)
    except (TypeError, ValueError) as exc:
        raise BadRequest(str(exc)) from None
    try:
        record = run_agent(
            req.env_id,
            agent,
            task_id=req.task_id,
            split=req.split,
            seed=req.seed,
            max_rounds=max_rounds,
        )
    except EndpointError as exc:
        return _failed(req, agent.agent, f"{type(exc).__name__}: {exc}")
    if record["outcome"] == "time_limit" and time.monotonic() > deadline:
        record["reward_valid"] = False  # cut by the server, not judged by the env
    return record


def _play_multiturn(
    req: EpisodeRequest, client: Any, deadline: float, timeout: float, limits: Any
) -> dict[str, Any]:
    from agentgym_envs.agents.multiturn import MultiTurnAgent

    user = make_client(req.user_model, {}, timeout, limits) if req.user_model else None
    try:
        agent = MultiTurnAgent(client, user, deadline=deadline, **req.options)
    except (TypeError, ValueError) as exc:
        raise BadRequest(str(exc)) from None
    return agent.run(req.env_id, task_id=req.task_id, split=req.split, seed=req.seed)


class _Deadline:
    """A multi-step agent that stops at a wall-clock deadline (``time.monotonic()``)."""

    def __init__(self, agent: Any, deadline: float) -> None:
        self.agent, self.deadline = agent, deadline
        self.format, self.stats = agent.format, agent.stats

    def __call__(self, observation: str, info: dict[str, Any]) -> Any:
        from agentgym_envs.benchmarks.llm import CallDeadlineError

        if time.monotonic() > self.deadline:
            raise EpisodeDeadline("the episode's deadline passed")
        try:
            return self.agent(observation, info)
        except CallDeadlineError:
            if time.monotonic() < self.deadline:
                raise  # the call's own deadline, not the episode's: the model failed
            raise EpisodeDeadline("the episode's deadline passed") from None

    def conversation(self) -> list[dict[str, Any]]:
        return self.agent.conversation()

    def messages(self) -> list[dict[str, Any]]:
        return self.agent.messages()


def _failed(req: EpisodeRequest, agent: Any, error: str) -> dict[str, Any]:
    logger.warning("episode %s/%s failed: %s", req.env_id, req.task_id, error)
    return {
        "item_id": None,
        "conversations": agent.conversation(),
        "messages": agent.messages(),
        "reward": 0.0,
        "success": False,
        "outcome": "env_error",
        "reward_valid": False,
        "turns": agent.steps,
        "tokens": {k: v for k, v in agent.stats.usage.items() if k != "calls"},
        "turn_stats": agent.stats.as_dicts(),
        "error": error,
    }


def answer(
    row: dict[str, Any], req: EpisodeRequest, record: dict[str, Any], wall: float
) -> dict[str, Any]:
    """The row returned with the episode: NeMo Gym's ``response`` and ``reward`` plus ours."""
    from agentgym_envs.wrappers.conversation import Message

    tokens = record.get("tokens") or {}
    messages = record.get("messages") or [
        Message.from_turn(t).chat() for t in record.get("conversations") or []
    ]
    response = {
        "object": "response",
        "model": req.model.get("model"),
        "output": messages,
        "usage": {
            "input_tokens": tokens.get("prompt_tokens", 0),
            "output_tokens": tokens.get("completion_tokens", 0),
            "total_tokens": tokens.get("prompt_tokens", 0) + tokens.get("completion_tokens", 0),
        },
    }
    keep = ("item_id", "conversations", "success", "outcome", "reward_valid", "turns", "error")
    out = {
        **row,
        "env_id": req.env_id,
        "task_id": req.task_id,
        "split": req.split,
        "agent": req.agent,
    }
    out.update({k: record.get(k) for k in keep})
    out.update(response=response, reward=float(record.get("reward", 0.0)), tokens=tokens)
    if record.get("user_tokens") is not None:
        out["user_tokens"] = record["user_tokens"]
    out["wall_time"] = round(wall, 3)
    return out


__all__ = [
    "MULTITURN_USER",
    "BadRequest",
    "EpisodeDeadline",
    "EpisodeRequest",
    "ModelLimits",
    "agent_names",
    "answer",
    "check_task",
    "parse_row",
    "play",
    "where",
]
