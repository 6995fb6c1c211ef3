"""The experience platform as a service: organisations (tenants), users with roles, API keys,
dashboard logins, tenant isolation by PostgreSQL row-level security, an SDK, live traffic
splitting and training jobs (``agentgym platform worker`` runs them).

Needs the extra: ``pip install "agentgym-envs[platform]"``. The service:
``agentgym platform serve``; the SDK::

    from agentgym_envs.platform import AgentGym
    gym = AgentGym(api_key="agk_...", base_url="http://127.0.0.1:8780")
    agent_id = gym.register_agent(name="Support", description="...", version="1.0.0")

The library's own experience store (SQLite by default) needs none of this.
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "Client": "client",
    "AsyncClient": "client",
    "AgentGym": "client",
    "AsyncAgentGym": "client",
    "Execution": "client",
    "PlatformError": "client",
    "create_app": "app",
    "migrate": "db",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agentgym_envs.platform' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"agentgym_envs.platform.{module}"), name)


__all__ = [
    "AgentGym",
    "AsyncAgentGym",
    "AsyncClient",
    "Client",
    "Execution",
    "PlatformError",
    "create_app",
    "migrate",
]
