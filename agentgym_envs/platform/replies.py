"""The JSON of a platform reply, or one clear error (for the client-side helpers)."""

from __future__ import annotations

from typing import Any

from agentgym_envs.errors import AgentGymError


def reply_json(response: Any, not_found: type[AgentGymError] = AgentGymError) -> Any:
    """``response``'s JSON body; an HTTP error raises ``not_found`` (404) or
    :class:`~agentgym_envs.errors.AgentGymError` with the server's ``detail``."""
    if response.status_code >= 400:
        try:
            detail = response.json().get("detail")
        except (ValueError, AttributeError):
            detail = response.text[:300]
        error = not_found if response.status_code == 404 else AgentGymError
        where = f"{response.request.method} {response.request.url.path}"
        raise error(f"{where}: HTTP {response.status_code}: {detail}")
    return response.json()


__all__ = ["reply_json"]
