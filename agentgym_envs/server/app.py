"""``create_app(env_id)``: one FastAPI app serving one registered env id over AgentGym's protocol.

The app is three pieces: the family's wire adapter (:mod:`~agentgym_envs.server.protocol`,
chosen by the family's ``Wire`` record), the endpoints' work on a bounded session store
(:mod:`~agentgym_envs.server.service`) and the paths (:mod:`~agentgym_envs.server.routes`).
Errors come back as HTTP 200 ``{"error": "..."}``, as AgentGym's servers send them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from agentgym_envs.errors import require

require("fastapi", "server")

import gymnasium as gym

from agentgym_envs.metrics import Metrics
from agentgym_envs.server.deadline import REQUEST_TIMEOUT
from agentgym_envs.server.protocol import protocol_for
from agentgym_envs.server.routes import AgentGymApp, add_routes
from agentgym_envs.server.service import EnvService
from agentgym_envs.server.sessions import SessionStore
from agentgym_envs.spec import env_info

logger = logging.getLogger(__name__)
#: Longest wait between two idle-eviction sweeps (seconds).
EVICT_EVERY = 60.0


def create_app(
    env_id: str,
    *,
    max_sessions: int = 256,
    idle_timeout: float | None = 3600.0,
    request_timeout: float | None = REQUEST_TIMEOUT,
    env_kwargs: dict[str, Any] | None = None,
    max_sessions_per_client: int | None = None,
    session_auth: bool = False,
) -> AgentGymApp:
    """A FastAPI app (:class:`~agentgym_envs.server.routes.AgentGymApp`) serving ``env_id``
    with AgentGym's endpoints for its family.

    Args:
        env_id: a registered id (``Wordle-v0`` or ``AgentGym/Wordle-v0``).
        max_sessions: most live sessions; past it ``/create`` replies with an error.
        idle_timeout: seconds after which an idle session may be evicted (``None``: never).
        request_timeout: seconds a request may take before it is answered with HTTP 504 and
            its session marked broken (``None``: no limit); see
            :mod:`~agentgym_envs.server.deadline`.
        env_kwargs: keyword arguments for ``gymnasium.make``.
        max_sessions_per_client: most live sessions one client address may hold (``None``:
            half of ``max_sessions``).
        session_auth: require each session's token (returned by ``/create``) on every later
            request on it; see :mod:`~agentgym_envs.server.sessions`.
    """
    info = env_info(env_id)
    protocol = protocol_for(info.family)
    kwargs = dict(env_kwargs or {})
    if "render" in info.record.wire.get_endpoints:
        # AgentGym's /render sends a picture: the env's render() in rgb_array mode
        kwargs.setdefault("render_mode", "rgb_array")
    gym.spec(info.id)  # fail now, not on the first /create, for a bad id
    store = SessionStore(
        lambda: gym.make(info.id, **kwargs),
        max_sessions=max_sessions,
        idle_timeout=idle_timeout,
        max_per_client=max_sessions_per_client,
        auth=session_auth,
    )
    service = EnvService(info, store, protocol)

    @contextlib.asynccontextmanager
    async def lifespan(_app: AgentGymApp):
        sweeper = None
        if store.idle_timeout is not None:
            every = min(EVICT_EVERY, max(store.idle_timeout / 4, 0.05))
            sweeper = asyncio.create_task(_evict_every(store, every))
        try:
            yield
        finally:
            if sweeper is not None:
                sweeper.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await sweeper
            store.close_all()

    app = AgentGymApp(
        title=f"agentgym-envs: {info.id}", description=info.description, lifespan=lifespan
    )
    app.state.store = store
    app.state.env_id = info.id
    app.state.protocol = protocol
    add_routes(app, service, request_timeout=request_timeout)
    metrics = Metrics("serve", live_sessions=lambda: len(store), envs=[info.id])
    service.episode_ended = lambda outcome: metrics.episode_ended(outcome, env=info.id)
    app.use_metrics(metrics)
    app.state.metrics = metrics
    return app


async def _evict_every(store: SessionStore, seconds: float) -> None:
    """Evict idle sessions every ``seconds`` (closing an env may block: off the loop)."""
    while True:
        await asyncio.sleep(seconds)
        try:
            await asyncio.to_thread(store.evict_idle)
        except Exception:
            logger.exception("idle eviction failed")
