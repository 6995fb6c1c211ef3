"""``RemoteTextEnv``: a ``gymnasium.Env`` whose episodes run on an agentgym-envs server.

It speaks the same wire protocol as AgentGym's clients (``/create``, ``/reset``, ``/step``) and
addresses tasks with the server's ``split``/``task_id`` extension, so ``reset(options={"task_id":
3, "split": "test"})`` plays the same task as a local ``gymnasium.make(env_id)``.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

import gymnasium as gym

from agentgym_envs.core import MAX_ACTION_CHARS, MAX_OBSERVATION_CHARS, text_space
from agentgym_envs.errors import AgentGymError, require
from agentgym_envs.server.protocol import protocol_for
from agentgym_envs.spec import env_info

httpx = require("httpx", "server")

logger = logging.getLogger(__name__)


class RemoteError(AgentGymError):
    """The server replied with ``{"error": ...}`` or could not be reached."""


class RemoteTextEnv(gym.Env[str, str]):
    """A served env seen as a local text env.

    Args:
        base_url: the server, e.g. ``http://127.0.0.1:8000``.
        env_id: the registered id the server serves (checked against the server's ``/``).
        timeout: seconds per HTTP request.

    ``reset(options={"task_id": i, "split": "test"})`` picks a task (AgentGym's item index is
    ``options={"item_index": n}``); ``step(action)`` returns ``(observation, reward, terminated,
    truncated, info)`` with the server env's ``info``. ``close()`` closes the server session.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(self, base_url: str, env_id: str, *, timeout: float = 60.0) -> None:
        self.info_record = env_info(env_id)
        self.protocol = protocol_for(self.info_record.family)
        self.observation_space = text_space(MAX_OBSERVATION_CHARS)
        self.action_space = text_space(MAX_ACTION_CHARS)
        self._http = httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout)
        served = self._call("GET", "/")
        if served.get("env_id") != self.info_record.id:
            self._http.close()
            raise RemoteError(
                f"{base_url} serves {served.get('env_id')!r}, not {self.info_record.id!r}"
            )
        body = {"id": 0} if self.protocol.kind == "C" else {}
        reply = self._call("POST", "/create", body)
        self.session_id = int(reply["id"] if isinstance(reply, dict) else reply)
        self._closed = False

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        try:
            response = self._http.request(method, path, json=body)
            response.raise_for_status()
            data = response.json()
        except httpx.HTTPError as exc:
            raise RemoteError(f"{method} {path} failed: {exc}") from exc
        if isinstance(data, dict) and "error" in data:
            raise RemoteError(f"server error on {path}: {data['error']}")
        return data

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        options = dict(options or {})
        key = self.protocol.session_key
        if "item_index" in options:
            body = {key: self.session_id, self.protocol.index_keys[0]: int(options["item_index"])}
        else:
            split = options.get("split", "train")
            task_id = options.get("task_id")
            if task_id is None:
                task_id = int(self.np_random.integers(self.info_record.splits[split]))
            body = {key: self.session_id, "split": split, "task_id": int(task_id)}
        self._call("POST", "/reset", body)
        detail = self._call("GET", f"/detail?{key}={self.session_id}")
        observation = self._call("GET", f"/observation?{key}={self.session_id}")
        info = {
            "task_id": detail["task_id"],
            "split": detail["split"],
            "item_id": detail["item_id"],
            "success": detail["success"],
            "score": detail["score"],
        }
        return observation, info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        reply = self._call(
            "POST", "/step", {self.protocol.session_key: self.session_id, "action": action}
        )
        observation = reply["state"] if self.protocol.kind == "B" else reply["observation"]
        info = dict(reply.get("info") or {})
        return observation, float(reply["reward"]), bool(reply["done"]), False, info

    def close(self) -> None:
        if getattr(self, "_closed", True):
            return
        self._closed = True
        try:
            self._call("POST", "/close", {self.protocol.session_key: self.session_id})
        except RemoteError as exc:
            logger.warning("closing remote session %s: %s", self.session_id, exc)
        finally:
            self._http.close()
