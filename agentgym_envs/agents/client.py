"""Driving agent servers: a client, a benchmark policy and a rollout source.

* :class:`AgentServerClient` -- ``POST /run`` one row or many concurrently;
* :func:`agent_server_spec` -- an agent server as a benchmark policy
  (``agentgym bench --policy agent-server:<url>``): each episode is one ``/run``;
* :class:`AgentServerPolicy` -- an agent server as a :func:`~agentgym_envs.rollout.collect`
  policy: ``collect("Maze-v0", AgentServerPolicy(url, model=...), range(20), num_envs=8)``
  plays the episodes on the server, ``num_envs`` at a time.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from agentgym_envs.errors import AgentGymError

logger = logging.getLogger(__name__)
#: How ``agentgym bench --policy`` names an agent server: ``agent-server:<url>``.
SERVER_PREFIX = "agent-server:"
#: What a run records of the agent server's ``/health`` (its settings, not its counters).
SERVER_SETTINGS = ("agent", "agents", "concurrency")


class AgentServerClient:
    """``POST {url}/run`` with a row; the server's 4xx answers become one-line errors
    (:class:`~agentgym_envs.benchmarks.llm.EndpointError` when the model is unreachable, so a
    benchmark stops at once). Thread-safe.

    Args:
        url: the agent server's root, e.g. ``http://127.0.0.1:8800``.
        timeout: seconds to wait for one episode (the server's own deadline is shorter).
    """

    def __init__(self, url: str, *, timeout: float = 900.0) -> None:
        import httpx

        self.url = url.rstrip("/")
        self._client = httpx.Client(base_url=self.url, timeout=httpx.Timeout(timeout, connect=10.0))

    def _post(self, path: str, body: Any) -> Any:
        import httpx

        from agentgym_envs.benchmarks.llm import EndpointError, EndpointUnreachableError

        try:
            response = self._client.post(path, json=body)
        except httpx.ConnectError as exc:
            raise EndpointUnreachableError(
                f"cannot reach the agent server at {self.url} ({exc}): start it with "
                "agentgym agent-server <agent> or pass the right URL"
            ) from None
        except httpx.HTTPError as exc:
            raise EndpointError(f"agent server {self.url}: {type(exc).__name__}: {exc}") from None
        if response.status_code >= 400:
            try:
                detail = response.json().get("detail", response.text)
            except ValueError:
                detail = response.text[:300]
            error = EndpointError if response.status_code in (424, 502, 503) else AgentGymError
            raise error(f"agent server {self.url}{path}: {detail}")
        return response.json()

    def health(self) -> dict[str, Any]:
        response = self._client.get("/health")
        response.raise_for_status()
        return response.json()

    def run(self, row: dict[str, Any]) -> dict[str, Any]:
        """One episode: the row back with ``response``, ``reward``, ``outcome`` and more."""
        return self._post("/run", row)

    def run_many(self, rows: list[dict[str, Any]], concurrency: int = 8) -> list[dict[str, Any]]:
        """Every row, ``concurrency`` in flight; answers in the rows' order."""
        with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
            return list(pool.map(self.run, rows))

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> AgentServerClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _row(env_id: str, task_id: int, split: str, seed: int, extra: dict[str, Any]) -> dict[str, Any]:
    return {"env_id": env_id, "task_id": task_id, "split": split, "seed": seed, **extra}


def _endpoint(base_url: str | None, model: str | None, api_key: str | None) -> dict[str, Any]:
    if not base_url:
        return {}
    return {"model": {"base_url": base_url, "model": model, "api_key": api_key}}


class AgentServerPolicy:
    """An agent server as a rollout policy: whole episodes, played on the server.

    Args:
        url: the agent server's root.
        base_url: the model endpoint sent with each row (default: the server's
            ``--model-url``).
        model: its model name.
        api_key: its API key.
        **row: more row fields (``agent``, ``options``, ``user_model``,
            ``responses_create_params``).
    """

    def __init__(
        self,
        url: str,
        *,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        **row: Any,
    ) -> None:
        self.client = AgentServerClient(url)
        self.extra = {**_endpoint(base_url, model, api_key), **row}

    def __call__(self, observation: str, info: dict[str, Any]) -> Any:
        raise AgentGymError(
            "an agent server plays whole episodes: pass it to rollout.collect with an env id"
        )

    def collect_episodes(
        self,
        env_id: str,
        task_ids: list[int],
        *,
        split: str = "test",
        concurrency: int = 4,
        max_turns: int | None = None,
        seed: int | None = None,
    ) -> list[Any]:
        """One :class:`~agentgym_envs.rollout.Episode` per task, in ``task_ids`` order."""
        extra = dict(self.extra)
        if max_turns is not None:
            extra["options"] = {**extra.get("options", {}), "max_rounds": max_turns}
        rows = [_row(env_id, t, split, (seed or 0) + i, extra) for i, t in enumerate(task_ids)]
        return [as_episode(a) for a in self.client.run_many(rows, concurrency)]


def as_episode(answer: dict[str, Any]) -> Any:
    """An agent server's answer as a :class:`~agentgym_envs.rollout.Episode`."""
    from agentgym_envs.rollout.episode import Episode
    from agentgym_envs.wrappers.conversation import Conversation, Message

    outcome = answer.get("outcome")
    messages = (answer.get("response") or {}).get("output") or []
    episode = Episode(task_id=int(answer.get("task_id") or 0), split=str(answer.get("split")))
    episode.actions = [
        m.get("content") or m.get("tool_calls") for m in messages if m.get("role") == "assistant"
    ]
    episode.actions = episode.actions[: int(answer.get("turns") or 0)]
    episode.score, episode.success = float(answer.get("reward", 0.0)), bool(answer.get("success"))
    episode.terminated = outcome in ("success", "failure", "invalid_action")
    episode.truncated = not episode.terminated
    episode.outcome, episode.reward_valid = outcome, bool(answer.get("reward_valid", True))
    episode.wall_time = float(answer.get("wall_time") or 0.0)
    episode.info = {
        k: answer.get(k) for k in ("outcome", "reward_valid", "error", "tokens", "item_id")
    }
    episode.conversation = Conversation([Message.from_chat(m) for m in messages])
    return episode


def agent_server_spec(
    url: str,
    *,
    base_url: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    agent: str | None = None,
    max_tokens: int | None = None,
    temperature: float | None = None,
    options: dict[str, Any] | None = None,
    timeout: float = 900.0,
) -> Any:
    """An agent server as a benchmark :class:`~agentgym_envs.benchmarks.PolicySpec`: each
    episode is one ``/run`` (the runner's ``concurrency`` episodes in flight).

    ``options``: the agent's options sent with each row (they win over the run's max
    rounds); ``timeout``: seconds to wait for one episode."""
    from agentgym_envs.agents.episodes import agent_names
    from agentgym_envs.agents.specs import AGENTS
    from agentgym_envs.benchmarks.policies import PolicySpec

    client = AgentServerClient(url, timeout=timeout)
    if agent is not None and agent not in agent_names():
        raise AgentGymError(f"unknown agent {agent!r}: use one of {', '.join(agent_names())}")
    extra: dict[str, Any] = _endpoint(base_url, model, api_key)
    if agent:
        extra["agent"] = agent
    params = {
        k: v
        for k, v in (("max_output_tokens", max_tokens), ("temperature", temperature))
        if v is not None
    }
    if params:
        extra["responses_create_params"] = params

    def episode(
        env_id: str, task_id: int, split: str, seed: int, max_rounds: int | None
    ) -> dict[str, Any]:
        row = _row(env_id, task_id, split, seed, extra)
        rounds = {} if max_rounds is None else {"max_rounds": max_rounds}
        if (agent or "multistep") in AGENTS and (rounds or options):
            row["options"] = {**rounds, **(options or {})}
        return client.run(row)

    def check() -> None:
        try:
            health = client.health()
        except Exception as exc:
            raise AgentGymError(
                f"cannot reach the agent server at {url} ({exc}): start it with agentgym agent-server"
            ) from None
        # the run's settings: the server's own (its live counters would refuse every resume)
        spec.config["server"] = {k: health[k] for k in SERVER_SETTINGS if k in health}

    fmt = AGENTS.get(agent or "multistep", "tools")
    spec = PolicySpec(
        f"{SERVER_PREFIX}{url}", fmt, _no_step, config={"url": url, **extra}, check=check
    )  # type: ignore[arg-type]
    spec.episode = episode  # type: ignore[attr-defined]
    return spec


def _no_step(env: Any, seed: int) -> Any:
    raise AgentGymError("an agent-server policy plays whole episodes on the server")


__all__ = [
    "SERVER_PREFIX",
    "AgentServerClient",
    "AgentServerPolicy",
    "agent_server_spec",
    "as_episode",
]
