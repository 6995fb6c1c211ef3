"""The platform's SDK: :class:`Client` (sync) and :class:`AsyncClient`, also known by the
seed's name :class:`AgentGym`.

    from agentgym_envs.platform import AgentGym

    gym = AgentGym(api_key="agk_...", base_url="http://127.0.0.1:8780")

    @gym.agent("Customer Support Agent")          # the callable the platform's runs wrap
    def support(query, history):
        return "Try turning it off and on again."

    agent_id = gym.register_agent(name="Customer Support Agent", description="...", version="1.0.0")
    result = gym.execute_with_feedback(agent_id=agent_id, input_data="help", context=[])
    feedback = gym.get_feedback(agent_id, result.execution_id)

Every write carries an ``Idempotency-Key`` made once per call and sent again on each retry
(connection errors, timeouts, 429, 502, 503, 504; exponential backoff), so a retried call is
recorded once. An execution also carries its own id, made before the agent runs.

Both clients run the same request logic (written once as generators of requests); only the
transport differs.
"""

from __future__ import annotations

import functools
import inspect
import logging
import os
import random
import time
import uuid
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from agentgym_envs.errors import AgentGymError, require

logger = logging.getLogger(__name__)

KEY_ENV = "AGENTGYM_API_KEY"
BASE_URL_ENV = "AGENTGYM_BASE_URL"
DEFAULT_BASE_URL = "http://127.0.0.1:8780"
RETRY_STATUSES = (429, 502, 503, 504)
_WRITES = ("POST", "PUT", "PATCH", "DELETE")


class PlatformError(AgentGymError):
    """The platform answered with an error (``status`` is the HTTP status)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message


@dataclass
class Execution:
    """A recorded execution: its id, the version that ran, and what came out."""

    execution_id: str
    agent_id: str
    version: str
    output: Any = None
    success: bool = True
    score: float = 1.0
    outcome: str = "success"
    error: str | None = None
    episode_id: int | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Feedback:
    """The feedback on one execution: its outcome and every judgement (``entries``: the
    agent's own outcome and each person's, per action or per outcome)."""

    execution_id: str
    outcome: str
    success: bool
    score: float
    entries: list[dict[str, Any]]


@dataclass
class Assignment:
    """Where the live split sends one end user's request."""

    version: str
    revision: int
    route_id: str


class Trace:
    """Handed to an agent callable that takes a ``trace`` argument: record its steps and,
    if it knows better than "no exception means success", its outcome."""

    def __init__(self) -> None:
        self.steps: list[dict[str, Any]] = []
        self.success: bool | None = None
        self.score: float | None = None

    def step(
        self,
        action: Any,
        observation: Any = "",
        result: Any = None,
        reward: float | None = None,
        latency: float | None = None,
    ) -> None:
        self.steps.append(
            {
                "action": action,
                "observation": observation,
                "result": result,
                "reward": reward,
                "latency": latency,
            }
        )

    def outcome(self, success: bool, score: float | None = None) -> None:
        self.success, self.score = bool(success), score


@dataclass
class _Req:
    method: str
    path: str
    body: dict[str, Any] | None = None
    params: dict[str, Any] | None = None


@dataclass
class _Call:
    fn: Callable[..., Any]
    args: tuple
    kwargs: dict[str, Any]


Flow = Generator[Any, Any, Any]


@functools.cache
def _default_tls():
    """One TLS context with the default CA bundle for every client of the process: httpx
    otherwise loads the bundle again for each client, ~40-65 ms of CPU in the constructor,
    and 200 clients made in one event loop held it for seconds (the first calls' latency)."""
    import httpx

    return httpx.create_ssl_context()


def _verify(verify: Any) -> Any:
    return _default_tls() if verify is True else verify


def _takes_trace(fn: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return "trace" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


class _Base:
    """What both clients share: configuration, bound agent callables and the request flows."""

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        timeout: float = 30.0,
        retries: int = 5,
        backoff: float = 0.2,
        verify: Any = True,
    ) -> None:
        self.api_key = api_key or os.environ.get(KEY_ENV)
        if not self.api_key:
            raise AgentGymError(
                f"give api_key= (or set ${KEY_ENV}): an agk_... key of your organisation"
            )
        self.base_url = (base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL).rstrip("/")
        self.timeout, self.retries, self.backoff = timeout, retries, backoff
        self.verify = verify
        self._agents: dict[tuple[str, str | None], Callable[..., Any]] = {}
        self._ids: dict[str, str] = {}  # agent name -> id
        self._names: dict[str, str] = {}  # agent id -> name

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}", "User-Agent": "agentgym-sdk"}

    def _delay(self, attempt: int) -> float:
        return self.backoff * 2**attempt * (0.5 + random.random())

    @staticmethod
    def _error(response) -> PlatformError:
        try:
            data = response.json()
            message = data.get("detail") or data.get("error") or response.text
        except ValueError:
            message = response.text
        return PlatformError(response.status_code, str(message)[:500])

    # -- binding agent callables ---------------------------------------------------------------
    def agent(self, name_or_id: str, version: str | None = None) -> Callable:
        """Decorator: the callable that runs agent ``name_or_id`` (at ``version``, or any) in
        :meth:`execute_with_feedback`. It is called as ``fn(input_data, context)`` (plus
        ``trace=`` if it takes one: :class:`Trace`) and returns the output."""

        def bind(fn: Callable[..., Any]) -> Callable[..., Any]:
            self.bind(name_or_id, fn, version=version)
            return fn

        return bind

    def bind(self, name_or_id: str, fn: Callable[..., Any], *, version: str | None = None) -> None:
        """Bind ``fn`` to an agent (name or id) and, optionally, one of its versions."""
        if not callable(fn):
            raise AgentGymError(f"bind an agent to a callable, not {type(fn).__name__}")
        self._agents[(name_or_id, version)] = fn

    def _callable(self, agent_id: str, version: str | None) -> Callable[..., Any] | None:
        name = self._names.get(agent_id)
        keys = ((agent_id, version), (name, version)) if version is not None else ()
        for key in (*keys, (agent_id, None), (name, None)):
            if key in self._agents:
                return self._agents[key]
        return None

    # -- flows (requests as generators: each client drives them) --------------------------------
    def _f_register_agent(self, name, description, version, agent, extra) -> Flow:
        data = yield _Req(
            "POST",
            "/v1/agents",
            {"name": name, "description": description, "version": version, **extra},
        )
        self._ids[data["name"]], self._names[data["id"]] = data["id"], data["name"]
        if agent is not None:
            self.bind(data["id"], agent)
        return data["id"]

    def _f_name(self, agent_id: str) -> Flow:
        if agent_id not in self._names:
            data = yield _Req("GET", f"/v1/agents/{agent_id}")
            self._names[agent_id] = data["name"]
        return self._names[agent_id]

    def _f_execute(self, agent_id, input_data, context, agent, version, user) -> Flow:
        if agent is None and not any(k[0] == agent_id for k in self._agents):
            yield from self._f_name(agent_id)  # a callable bound by the agent's name
        routed = False
        if user is not None and version is None:
            a = yield _Req("POST", f"/v1/agents/{agent_id}/route", {"user": str(user)})
            version, routed = a["version"], True
        fn = agent or self._callable(agent_id, version)
        if version is None and fn is None:  # a callable bound to versions: which is current?
            info = yield _Req("GET", f"/v1/agents/{agent_id}")
            version = info["current_version"]
            if version is None:
                raise AgentGymError(f"agent {agent_id} has no version: register one first")
            fn = self._callable(agent_id, version)
        if fn is None:
            raise AgentGymError(
                f"no callable for agent {self._names.get(agent_id, agent_id)!r}: pass agent=..., or bind one "
                "with @gym.agent(name) or register_agent(..., agent=fn)"
            )
        execution_id = str(uuid.uuid4())
        trace = Trace()
        kwargs = {"trace": trace} if _takes_trace(fn) else {}
        start = time.perf_counter()
        output, error, raised = None, None, None
        try:
            output = yield _Call(fn, (input_data, context), kwargs)
        except Exception as exc:  # recorded as a failed execution, then raised again
            error, raised = f"{type(exc).__name__}: {exc}", exc
        wall = time.perf_counter() - start
        success = trace.success if trace.success is not None else error is None
        body = {
            "execution_id": execution_id,
            "version": version,
            "routed": routed,
            "input": input_data,
            "context": context,
            "output": output,
            "steps": trace.steps,
            "success": success,
            "score": trace.score,
            "error": error,
            "wall_time": wall,
        }
        data = yield _Req("POST", f"/v1/agents/{agent_id}/executions", body)
        if raised is not None:
            raised.execution_id = data["execution_id"]  # type: ignore[attr-defined]
            raise raised
        return Execution(
            execution_id=data["execution_id"],
            agent_id=agent_id,
            version=data["version"],
            output=output,
            success=data["success"],
            score=data["score"],
            outcome=data["outcome"],
            error=error,
            episode_id=data["episode_id"],
            steps=trace.steps,
        )

    def _f_record(self, agent_id, input_data, output, fields) -> Flow:
        body = {"execution_id": str(uuid.uuid4()), "input": input_data, "output": output, **fields}
        data = yield _Req("POST", f"/v1/agents/{agent_id}/executions", body)
        return Execution(
            execution_id=data["execution_id"],
            agent_id=agent_id,
            version=data["version"],
            output=output,
            success=data["success"],
            score=data["score"],
            outcome=data["outcome"],
            episode_id=data["episode_id"],
            steps=list(fields.get("steps") or []),
        )

    def _f_feedback(self, agent_id, execution_id) -> Flow:
        data = yield _Req("GET", f"/v1/agents/{agent_id}/executions/{execution_id}/feedback")
        return Feedback(
            data["execution_id"], data["outcome"], data["success"], data["score"], data["entries"]
        )

    def _f_route(self, agent_id, user) -> Flow:
        a = yield _Req("POST", f"/v1/agents/{agent_id}/route", {"user": str(user)})
        return Assignment(a["version"], a["revision"], a["route_id"])

    def _f_hits(self, path: str, params: dict[str, Any]) -> Flow:
        data = yield _Req("GET", path, params=params)
        return data["hits"]

    def _f_jobs(self, agent_id, status, limit) -> Flow:
        given = (("agent_id", agent_id), ("status", status), ("limit", limit))
        data = yield _Req("GET", "/v1/jobs", params={k: v for k, v in given if v is not None})
        return data["jobs"]

    def _f_wait_job(self, job_id, timeout, every, on_progress) -> Flow:
        from agentgym_envs.platform.jobs import FINISHED, not_finished

        deadline = time.monotonic() + timeout
        last = None
        while True:
            job = yield _Req("GET", f"/v1/jobs/{job_id}")
            now = (job["status"], job["stage"], job["progress"])
            if now != last and on_progress is not None:
                yield _Call(on_progress, (job,), {})
            last = now
            if job["status"] in FINISHED:
                return job
            if time.monotonic() > deadline:
                raise not_finished(job, timeout)
            yield _Call(self._sleep, (every,), {})

    @staticmethod
    def _f_one(req: _Req) -> Flow:
        return (yield req)

    @staticmethod
    def _feedback_body(step_index, label, score, comment, author) -> dict[str, Any]:
        body = {"step_index": step_index, "label": label, "score": score, "comment": comment}
        if author is not None:
            body["author"] = author
        return body


def _api(name: str, doc: str, flow: Callable[..., Flow]):
    """A method of both clients running ``flow`` (sync: the value; async: a coroutine)."""

    def sync_method(self, *args, **kwargs):
        return self._drive(flow(self, *args, **kwargs))

    async def async_method(self, *args, **kwargs):
        return await self._drive(flow(self, *args, **kwargs))

    for m in (sync_method, async_method):
        m.__name__ = m.__qualname__ = name
        m.__doc__ = doc
    return sync_method, async_method


# name, docstring, flow(self, ...) -> generator
_METHODS: list[tuple[str, str, Callable[..., Flow]]] = [
    (
        "register_agent",
        "Register agent ``name`` (again: the same id) and its ``version``; returns the agent id.\n\n"
        "``agent``: the callable :meth:`execute_with_feedback` runs for it. Other keywords\n"
        "(``model``, ``prompt_set``, ``config``, ``notes``) describe the version.",
        lambda self, name, description="", version=None, *, agent=None, **extra: (
            self._f_register_agent(name, description, version, agent, extra)
        ),
    ),
    (
        "register_version",
        "Register ``version`` of an agent (``model``, ``prompt_set``, ``config``, ``notes``).",
        lambda self, agent_id, version, **fields: self._f_one(
            _Req("POST", f"/v1/agents/{agent_id}/versions", {"version": version, **fields})
        ),
    ),
    (
        "list_agents",
        "The organisation's agents.",
        lambda self: self._f_one(_Req("GET", "/v1/agents")),
    ),
    (
        "get_agent",
        "One agent: versions, current version.",
        lambda self, agent_id: self._f_one(_Req("GET", f"/v1/agents/{agent_id}")),
    ),
    (
        "list_versions",
        "The versions of an agent.",
        lambda self, agent_id: self._f_one(_Req("GET", f"/v1/agents/{agent_id}/versions")),
    ),
    (
        "execute_with_feedback",
        "Run the agent's callable on ``input_data`` (with ``context``), record the run -- its\n"
        "steps, output and outcome -- and return an :class:`Execution` (``execution_id``).\n\n"
        "``user``: an end user's id; the agent's live split picks the version (sticky per user)\n"
        "and the run counts in the split's A/B analysis. Else ``version``, else the current one.\n"
        "A callable that raises is recorded as a failure and its exception raised again.",
        lambda self, agent_id, input_data, context=None, *, agent=None, version=None, user=None: (
            self._f_execute(agent_id, input_data, context, agent, version, user)
        ),
    ),
    (
        "record_execution",
        "Record a run made elsewhere: ``output`` and keywords ``steps`` (``[{observation,\n"
        "action, result, reward}]``), ``success``, ``score``, ``outcome``, ``context``,\n"
        "``version``, ``error``, ``wall_time``.",
        lambda self, agent_id, input_data, output, **fields: self._f_record(
            agent_id, input_data, output, fields
        ),
    ),
    (
        "get_execution",
        "One execution with its steps and feedback.",
        lambda self, agent_id, execution_id: self._f_one(
            _Req("GET", f"/v1/agents/{agent_id}/executions/{execution_id}")
        ),
    ),
    (
        "list_executions",
        "An agent's executions (oldest first).",
        lambda self, agent_id, limit=100, offset=0: self._f_one(
            _Req(
                "GET",
                f"/v1/agents/{agent_id}/executions",
                params={"limit": limit, "offset": offset},
            )
        ),
    ),
    (
        "get_feedback",
        "The :class:`Feedback` on one execution.",
        lambda self, agent_id, execution_id: self._f_feedback(agent_id, execution_id),
    ),
    (
        "add_feedback",
        "Judge an execution's outcome, or one action with ``step_index`` (``label`` good/bad,\n``score``, ``comment``).",
        lambda self, agent_id, execution_id, *, step_index=None, label=None, score=None, comment="", author=None: (
            self._f_one(
                _Req(
                    "POST",
                    f"/v1/agents/{agent_id}/executions/{execution_id}/feedback",
                    _Base._feedback_body(step_index, label, score, comment, author),
                )
            )
        ),
    ),
    (
        "feedback_action",
        "Judge action ``step_index`` of an execution.",
        lambda self, agent_id, execution_id, step_index, label=None, *, score=None, comment="", author=None: (
            self._f_one(
                _Req(
                    "POST",
                    f"/v1/agents/{agent_id}/executions/{execution_id}/feedback",
                    _Base._feedback_body(step_index, label, score, comment, author),
                )
            )
        ),
    ),
    (
        "feedback_outcome",
        "Judge the outcome of an execution.",
        lambda self, agent_id, execution_id, label=None, *, score=None, comment="", author=None: (
            self._f_one(
                _Req(
                    "POST",
                    f"/v1/agents/{agent_id}/executions/{execution_id}/feedback",
                    _Base._feedback_body(None, label, score, comment, author),
                )
            )
        ),
    ),
    (
        "export_training_data",
        "An agent's executions as training records: ``fmt`` sft, dpo, kto or rm; filters\n``outcome`` (success/failure), ``feedback`` (good/bad/human/no-bad), ``include_failed``.",
        lambda self, agent_id, fmt="sft", **filters: self._f_one(
            _Req("GET", f"/v1/agents/{agent_id}/training-data", params={"fmt": fmt, **filters})
        ),
    ),
    (
        "create_ab_test",
        "Split live traffic between versions: ``arms`` maps version -> percentage (adding up\nto 100); ``control`` is what the others are compared with and rollback returns to.",
        lambda self, agent_id, arms, control=None: self._f_one(
            _Req("PUT", f"/v1/agents/{agent_id}/split", {"arms": arms, "control": control})
        ),
    ),
    (
        "get_split",
        "The agent's live split.",
        lambda self, agent_id: self._f_one(_Req("GET", f"/v1/agents/{agent_id}/split")),
    ),
    (
        "route",
        "The version the live split serves end user ``user`` (an :class:`Assignment`).",
        lambda self, agent_id, user: self._f_route(agent_id, user),
    ),
    (
        "promote",
        "Send all live traffic to ``version`` (it becomes the control).",
        lambda self, agent_id, version, reason="": self._f_one(
            _Req(
                "POST",
                f"/v1/agents/{agent_id}/split/promote",
                {"version": version, "reason": reason},
            )
        ),
    ),
    (
        "rollback",
        "Send all live traffic back to the control before the last promotion (or the control).",
        lambda self, agent_id, reason="": self._f_one(
            _Req("POST", f"/v1/agents/{agent_id}/split/rollback", {"reason": reason})
        ),
    ),
    (
        "ab_test_results",
        "The split's A/B analysis: each arm against the control (Fisher's exact test for\nsuccess, an unpaired bootstrap for score), as offline split-mode tests report it.",
        lambda self, agent_id, alpha=0.05: self._f_one(
            _Req("GET", f"/v1/agents/{agent_id}/split/analysis", params={"alpha": alpha})
        ),
    ),
    (
        "search_episodes",
        "Free-text episode search over the organisation's recorded executions, nearest first:\n"
        "hits with ``episode_id``, ``execution_id``, ``env_id``, ``similarity`` and a ``snippet``.",
        lambda self, query, k=10: self._f_hits("/v1/search/episodes", {"q": query, "k": k}),
    ),
    (
        "similar_episodes",
        "Episodes like this one (its ``episode_id``, as an :class:`Execution` or a hit gives it),\n"
        "nearest first, itself left out; hits as :meth:`search_episodes` gives them.",
        lambda self, episode_id, k=10: self._f_hits(
            f"/v1/search/episodes/{quote(str(episode_id), safe='')}/similar", {"k": k}
        ),
    ),
    (
        "queue_training",
        "Queue a training job: fine-tune agent ``agent_id`` on its judged executions and register\n"
        "the result as its ``version`` (``parent``: one of its versions, default the current\n"
        "one; ``trainer`` bc-table or sft with ``base_model`` and ``sft``; ``feedback`` good,\n"
        "human or no-bad). Returns the queued job (``id``, ``status``, ``stage``, ``progress``).",
        lambda self, agent_id, version, *, parent=None, trainer="bc-table", **fields: self._f_one(
            _Req(
                "POST",
                "/v1/jobs",
                {
                    "agent_id": agent_id,
                    "version": version,
                    "trainer": trainer,
                    **({"parent": parent} if parent is not None else {}),
                    **fields,
                },
            )
        ),
    ),
    (
        "get_job",
        "One training job: ``status`` (queued, running, succeeded, failed, cancelled), ``stage``,\n"
        "``progress`` (0..1), ``result`` or ``error``.",
        lambda self, job_id: self._f_one(_Req("GET", f"/v1/jobs/{job_id}")),
    ),
    (
        "list_jobs",
        "The organisation's training jobs, newest first (of one agent, in one status).",
        lambda self, agent_id=None, status=None, limit=100: self._f_jobs(agent_id, status, limit),
    ),
    (
        "cancel_job",
        "Cancel a queued or running training job (a running one stops at its next stage and\n"
        "registers nothing); the cancelled job.",
        lambda self, job_id: self._f_one(_Req("POST", f"/v1/jobs/{job_id}/cancel", {})),
    ),
    (
        "wait_for_job",
        "Poll a training job until it has finished (``on_progress(job)`` on each change of\n"
        "status, stage or progress; a coroutine function with the async client); the finished\n"
        "job. Raises an error when it is still not finished after ``timeout`` seconds.",
        lambda self, job_id, *, timeout=3600.0, every=1.0, on_progress=None: self._f_wait_job(
            job_id, timeout, every, on_progress
        ),
    ),
]


class Client(_Base):
    """The platform's synchronous client (see the module docstring). Arguments: ``api_key``
    (default ``$AGENTGYM_API_KEY``), ``base_url`` (default ``$AGENTGYM_BASE_URL``, else
    ``http://127.0.0.1:8780``), ``timeout`` per request, ``retries`` and ``backoff`` (seconds,
    doubled per retry), ``verify`` (TLS: ``True`` shares one default context per process, or
    an ``ssl.SSLContext``, a CA bundle path, ``False``)."""

    def __init__(
        self, api_key: str | None = None, base_url: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(api_key, base_url, **kwargs)
        httpx = require("httpx", "platform")
        self._http = httpx.Client(
            base_url=self.base_url,
            headers=self._headers(),
            timeout=self.timeout,
            verify=_verify(self.verify),
        )

    def _send(self, req: _Req) -> Any:
        import httpx

        key = str(uuid.uuid4()) if req.method in _WRITES else None
        for attempt in range(self.retries + 1):
            try:
                r = self._http.request(
                    req.method,
                    req.path,
                    json=req.body,
                    params=req.params,
                    headers={"Idempotency-Key": key} if key else None,
                )
            except (httpx.TransportError, httpx.TimeoutException) as exc:
                if attempt == self.retries:
                    raise PlatformError(0, f"cannot reach {self.base_url}: {exc}") from None
                logger.debug("retrying %s %s after %s", req.method, req.path, exc)
            else:
                if r.status_code < 400:
                    return r.json()
                if r.status_code not in RETRY_STATUSES or attempt == self.retries:
                    raise self._error(r)
                logger.debug("retrying %s %s after %s", req.method, req.path, r.status_code)
            time.sleep(self._delay(attempt))
        raise AssertionError("unreachable")

    def _drive(self, flow: Flow) -> Any:
        value, error = None, None
        while True:
            try:
                op = flow.throw(error) if error is not None else flow.send(value)
            except StopIteration as stop:
                return stop.value
            value, error = None, None
            try:
                value = self._send(op) if isinstance(op, _Req) else op.fn(*op.args, **op.kwargs)
            except Exception as exc:
                if isinstance(op, _Req):
                    flow.close()
                    raise
                error = exc

    _sleep = staticmethod(time.sleep)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncClient(_Base):
    """The asynchronous client: the methods of :class:`Client`, as coroutines. An agent
    callable may be a coroutine function."""

    def __init__(
        self, api_key: str | None = None, base_url: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(api_key, base_url, **kwargs)
        httpx = require("httpx", "platform")
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            headers=self._headers(),
            timeout=self.timeout,
            verify=_verify(self.verify),
        )

    async def _send(self, req: _Req) -> Any:
        import asyncio

        import httpx

        key = str(uuid.uuid4()) if req.method in _WRITES else None
        for attempt in range(self.retries + 1):
            try:
                r = await self._http.request(
                    req.method,
                    req.path,
                    json=req.body,
                    params=req.params,
                    headers={"Idempotency-Key": key} if key else None,
                )
            except (httpx.TransportError, httpx.TimeoutException) as exc:
                if attempt == self.retries:
                    raise PlatformError(0, f"cannot reach {self.base_url}: {exc}") from None
                logger.debug("retrying %s %s after %s", req.method, req.path, exc)
            else:
                if r.status_code < 400:
                    return r.json()
                if r.status_code not in RETRY_STATUSES or attempt == self.retries:
                    raise self._error(r)
                logger.debug("retrying %s %s after %s", req.method, req.path, r.status_code)
            await asyncio.sleep(self._delay(attempt))
        raise AssertionError("unreachable")

    async def _drive(self, flow: Flow) -> Any:
        value, error = None, None
        while True:
            try:
                op = flow.throw(error) if error is not None else flow.send(value)
            except StopIteration as stop:
                return stop.value
            value, error = None, None
            if isinstance(op, _Req):
                try:
                    value = await self._send(op)
                except Exception:
                    flow.close()
                    raise
                continue
            try:
                value = op.fn(*op.args, **op.kwargs)
                if inspect.isawaitable(value):
                    value = await value
            except Exception as exc:
                error = exc

    @staticmethod
    async def _sleep(seconds: float) -> None:
        import asyncio

        await asyncio.sleep(seconds)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


for _name, _doc, _flow in _METHODS:
    _sync, _async = _api(_name, _doc, _flow)
    setattr(Client, _name, _sync)
    setattr(AsyncClient, _name, _async)

#: The seed's name for the client.
AgentGym = Client
AsyncAgentGym = AsyncClient

__all__ = [
    "AgentGym",
    "Assignment",
    "AsyncAgentGym",
    "AsyncClient",
    "Client",
    "Execution",
    "Feedback",
    "PlatformError",
    "Trace",
]
