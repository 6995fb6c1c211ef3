"""Who plays a field run: the scripted expert / random policy, or an ordered list of endpoints
-- OpenAI-compatible models (TensorZero, then Ollama, ...) and agent servers, which play each
episode whole (``POST /run``) -- failing over to the next endpoint that answers when one goes
down. Health is ``GET <base_url>/models`` (an agent server's: ``GET /health``).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any

from agentgym_envs.errors import AgentGymError
from agentgym_envs.runner.profile import Endpoint, ModelConfig

logger = logging.getLogger(__name__)


class EndpointsDownError(AgentGymError):
    """No model endpoint of the profile answers."""


@dataclass
class EndpointHealth:
    """One endpoint's answer to the health check."""

    label: str
    ok: bool
    detail: str
    models: list[str]


def endpoint_health(endpoint: Endpoint, timeout: float = 5.0) -> EndpointHealth:
    """``GET /models`` on ``endpoint`` (for ``local: true``: can the bundled server start?; for
    an agent server: ``GET /health``)."""
    if endpoint.agent_server:
        return _agent_server_health(endpoint, timeout)
    if endpoint.local:
        from agentgym_envs.benchmarks.local_llm import local_llm_available

        reason = local_llm_available()
        return EndpointHealth(endpoint.label, reason is None, reason or "can be started", [])
    from agentgym_envs.benchmarks import ChatClient, EndpointError

    client = ChatClient(endpoint.base_url, None, endpoint.api_key(), timeout=timeout, max_retries=0)
    try:
        models = client.models()
    except EndpointError as exc:
        return EndpointHealth(endpoint.label, False, str(exc), [])
    finally:
        client.close()
    if endpoint.model and models and endpoint.model not in models:
        detail = f"answers, but does not list {endpoint.model!r} (lists {', '.join(models[:5])})"
        return EndpointHealth(endpoint.label, True, detail, models)
    return EndpointHealth(endpoint.label, True, f"answers ({len(models)} models)", models)


def _agent_server_health(endpoint: Endpoint, timeout: float) -> EndpointHealth:
    from agentgym_envs.agents.client import AgentServerClient

    with AgentServerClient(str(endpoint.agent_server), timeout=timeout) as client:
        try:
            health = client.health()
        except Exception as exc:
            detail = (
                f"cannot reach the agent server ({type(exc).__name__}: {exc}): start it with "
                "agentgym agent-server <agent> or fix agent_server"
            )
            return EndpointHealth(endpoint.label, False, detail, [])
    agent = endpoint.agent or health.get("agent")
    detail = f"agent server answers (agent {agent}, {health.get('concurrency')} at a time)"
    return EndpointHealth(endpoint.label, True, detail, [])


class PolicyChain:
    """The run's policy spec, with failover across the profile's endpoints in order.

    :meth:`start` picks the first endpoint that answers; :meth:`fail_over` moves past the one
    that failed (once per failure, however many episodes saw it) or raises
    :class:`EndpointsDownError`. ``local`` endpoints start the bundled llama.cpp server when
    they are picked and stop it in :meth:`close`.
    """

    def __init__(self, model: ModelConfig, endpoints: list[Endpoint] | None = None) -> None:
        self.config = model
        if model.policy == "local":
            endpoints = [Endpoint(name="local", local=True)]
        self.endpoints = list(endpoints if endpoints is not None else model.endpoints)
        self.spec: Any = None
        self.index = -1
        self.failures: list[str] = []
        self._lock = threading.Lock()
        self._servers: list[Any] = []

    @property
    def scripted(self) -> bool:
        return self.config.policy in ("expert", "random")

    @property
    def model_name(self) -> str:
        if self.scripted:
            return self.config.policy
        endpoint = self.endpoints[self.index] if self.index >= 0 else None
        if endpoint is not None and endpoint.agent_server:
            return endpoint.model or self.config.name or f"agent-server:{endpoint.agent or '-'}"
        return str(self.spec.config.get("model") or self.config.name or "")

    @property
    def endpoint_label(self) -> str | None:
        return None if self.scripted or self.index < 0 else self.endpoints[self.index].label

    def start(self) -> Any:
        from agentgym_envs.benchmarks import expert_spec, random_spec

        if self.config.policy == "expert":
            self.spec = expert_spec()
        elif self.config.policy == "random":
            self.spec = random_spec()
        else:
            self.spec = self._select(0)
        return self.spec

    def _spec_for(self, endpoint: Endpoint) -> Any:
        from agentgym_envs.benchmarks import openai_spec

        if endpoint.agent_server:
            return self._server_spec(endpoint)
        base_url = endpoint.base_url
        model = endpoint.model or self.config.name
        if endpoint.local:
            from agentgym_envs.benchmarks import LocalLLMServer

            server = LocalLLMServer(startup_timeout=300).start()
            self._servers.append(server)
            base_url, model = server.base_url, model or server.alias
        cfg = self.config
        spec = openai_spec(
            base_url=base_url,
            model=model,
            api_key=endpoint.api_key(),
            fmt=cfg.format,
            temperature=cfg.temperature,
            max_tokens=cfg.max_tokens,
            timeout=endpoint.request_timeout,
            max_retries=cfg.max_retries,
            max_history_turns=cfg.max_history_turns,
            name=endpoint.label,
        )
        spec.check()  # /models: fails fast when the endpoint is down
        return spec

    def _server_spec(self, endpoint: Endpoint) -> Any:
        """An agent server's spec: each episode one ``POST /run`` with the profile's model
        settings (``base_url``, ``model``, temperature, max tokens, max rounds)."""
        from agentgym_envs.agents.client import agent_server_spec

        spec = agent_server_spec(
            str(endpoint.agent_server),
            base_url=endpoint.base_url,
            model=endpoint.model or self.config.name,
            api_key=endpoint.api_key(),
            agent=endpoint.agent,
            max_tokens=self.config.max_tokens,
            temperature=self.config.temperature,
            options=endpoint.options,
            timeout=endpoint.request_timeout,
        )
        spec.check()  # GET /health: fails fast when the server is down
        return spec

    def _select(self, start: int) -> Any:
        for index in range(start, len(self.endpoints)):
            endpoint = self.endpoints[index]
            try:
                spec = self._spec_for(endpoint)
            except AgentGymError as exc:
                self.failures.append(f"{endpoint.label}: {exc}")
                logger.warning("model endpoint %s is down: %s", endpoint.label, exc)
                continue
            if index > 0:
                logger.warning("using model endpoint %s (fallback %d)", endpoint.label, index)
            self.index = index
            return spec
        raise EndpointsDownError(
            "no model endpoint answers: " + "; ".join(self.failures[-len(self.endpoints) :])
        )

    def fail_over(self, failed_spec: Any, error: Exception) -> Any:
        """The spec to use after ``failed_spec`` raised ``error`` (an endpoint failure)."""
        with self._lock:
            if self.spec is failed_spec:
                label = self.endpoints[self.index].label if self.index >= 0 else "?"
                self.failures.append(f"{label}: {error}")
                logger.warning("model endpoint %s failed (%s): trying the next", label, error)
                self.spec = self._select(self.index + 1)
            return self.spec

    def close(self) -> None:
        for server in self._servers:
            server.stop()
        self._servers.clear()


__all__ = ["EndpointHealth", "EndpointsDownError", "PolicyChain", "endpoint_health"]
