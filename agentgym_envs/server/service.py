"""What each endpoint does to the sessions of one served env id, independent of HTTP.

:class:`EnvService` holds the session store and the family's wire adapter
(:mod:`agentgym_envs.server.protocol`); its methods take a parsed request body (or a session id)
and return the reply AgentGym's server would send. :mod:`agentgym_envs.server.routes` binds them
to paths. A session's requests are serialised by its lock (:meth:`Session.taken
<agentgym_envs.server.sessions.Session.taken>`); different sessions run in parallel.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from typing import Any

from starlette.requests import Request as HTTPRequest

from agentgym_envs.core import episode_outcome
from agentgym_envs.server.deadline import RequestAbandoned, current_request
from agentgym_envs.server.images import is_frame, png_base64
from agentgym_envs.server.protocol import Protocol
from agentgym_envs.server.sessions import (
    TOKEN_HEADER,
    Session,
    SessionStore,
    session_id,
)
from agentgym_envs.spec import EnvInfo

logger = logging.getLogger(__name__)


class EnvService:
    """The endpoints of one served env id.

    Args:
        info: the id's registry record (its family's ``wire`` record drives the protocol).
        store: the sessions.
        protocol: the family's wire adapter.
    """

    def __init__(self, info: EnvInfo, store: SessionStore, protocol: Protocol) -> None:
        self.info = info
        self.store = store
        self.protocol = protocol
        #: Called with the outcome of each episode a step ends (``None``: nobody listens).
        self.episode_ended: Callable[[str | None], None] | None = None

    # -- POST endpoints (take the JSON body) ---------------------------------------------
    def create(self, body: dict[str, Any]) -> Any:
        request = current_request()
        session = self.store.create(owner=request.client if request is not None else "")
        try:
            with session.taken():
                item = self.protocol.create_item(
                    session.ordinal, body, sum(self.info.splits.values())
                )
                observation = None
                if item is not None:
                    observation = self._reset(session, {self.protocol.index_keys[0]: item})[0]
        except Exception:
            self._drop(session)
            raise
        if request is not None and request.abandoned:  # answered already: no client has this id
            self._drop(session)
            raise RequestAbandoned(f"/create of session {session.id} was abandoned")
        logger.info("created session %d", session.id)
        if request is not None:
            request.reply_headers[TOKEN_HEADER] = session.token
        reply = self.protocol.create_reply(session.id, observation)
        if self.store.auth and isinstance(reply, dict):
            reply["session_token"] = session.token
        return reply

    def _drop(self, session: Session) -> None:
        self.store.discard(session)

    def reset(self, body: dict[str, Any]) -> Any:
        with self.store.get(self.session_key(body)).taken() as session:
            observation, info = self._reset(session, body)
            session.touch()
        return self.protocol.reset_reply(session.id, observation, info)

    def step(self, body: dict[str, Any]) -> Any:
        if "action" not in body:
            raise ValueError("step needs an 'action'")
        with self.started(self.session_key(body)) as session:
            self._refuse_finished(session)
            obs, reward, terminated, truncated, info = session.env.step(body["action"])
            if (terminated or truncated) and self.episode_ended is not None:
                self.episode_ended(episode_outcome(bool(terminated), bool(truncated), info))
            reply = self.protocol.step_reply(
                obs, float(reward), bool(terminated or truncated), info
            )
            session.observation = self.protocol.observation(obs, info)
            session.touch()
        return reply

    def close(self, body: dict[str, Any]) -> Any:
        sid = self.session_key(body)
        self.store.close(sid)
        logger.info("closed session %s", sid)
        return self.protocol.close_reply(session_id(sid))

    # -- GET endpoints (take the session id of the query) --------------------------------
    def observation(self, sid: Any) -> Any:
        with self.started(sid) as session:
            self._refuse_finished(session)
            return session.observation

    def available_actions(self, sid: Any) -> Any:
        with self.started(sid) as session:
            return self.protocol.actions_reply(session.env.unwrapped.available_actions())

    def detail(self, sid: Any) -> Any:
        with self.store.get(sid).taken() as session:
            if not session.started:
                return {"id": session.id, "started": False}
            base = session.env.unwrapped
            return {
                "id": session.id,
                "started": True,
                "item_id": base.item_id,
                "split": base.task.split,
                "task_id": base.task.task_id,
                "done": base.done,
                "success": base.success,
                "score": base.score,
                "turns": base.turns,
                "observation": session.observation,
            }

    def family_endpoint(self, name: str, sid: Any) -> Any:
        """A family endpoint of ``wire.get_endpoints``: the env's public attribute ``name``,
        called if it is a method (before the first reset too: Wordle's client asks first); an
        RGB frame is sent as AgentGym's BabyAI server sends it: a ``data:image/png;base64,`` URI."""
        with self.store.get(sid).taken() as session:
            self._refuse_finished(session)
            value = getattr(session.env.unwrapped, name, None)
            if value is None:
                raise ValueError(f"{self.info.id} has no {name!r}")
            value = value() if callable(value) else value
        # a picture (``render`` of an env made with render_mode="rgb_array") goes as a PNG
        return f"data:image/png;base64,{png_base64(value)}" if is_frame(value) else value

    def root(self) -> Any:
        return {
            "env_id": self.info.id,
            "family": self.info.family,
            "protocol": self.protocol.kind,
            "sessions": len(self.store),
            "max_sessions": self.store.max_sessions,
        }

    def list_envs(self, request: HTTPRequest) -> Any:
        """The caller's live sessions (see :mod:`~agentgym_envs.server.sessions`)."""
        tokens = [t.strip() for t in request.headers.getlist(TOKEN_HEADER) for t in t.split(",")]
        tokens += request.query_params.getlist("session_token")
        return self.store.ids(request.client.host if request.client else "", tokens)

    # -- helpers --------------------------------------------------------------------------
    def session_key(self, body: dict[str, Any]) -> Any:
        for key in (self.protocol.session_key, "env_idx", "id"):
            if key in body:
                return body[key]
        raise ValueError(f"request needs {self.protocol.session_key!r}")

    def _refuse_finished(self, session: Session) -> None:
        """LMRL-Gym's servers answer every call on a finished episode but ``/reset`` with this
        error (``/step``, ``/observation``, ``/filtered_vocab``)."""
        if self.info.record.wire.finished_error and session.env.unwrapped.done:
            raise ValueError(f"The task with environment {session.id} has finished.")

    @contextlib.contextmanager
    def started(self, sid: Any) -> Iterator[Session]:
        """The session ``sid``, taken, after checking it has been reset."""
        with self.store.get(sid).taken() as session:
            if not session.started:
                raise ValueError(f"session {session.id} has not been reset: call /reset first")
            yield session

    def _reset(self, session: Session, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        base = session.env.unwrapped
        if "task_id" in body or "split" in body:
            split, task_id = str(body.get("split", "test")), _as_index(body.get("task_id", 0))
        else:
            index = next((body[k] for k in self.protocol.index_keys if k in body), None)
            if index is None:
                keys = " or ".join(self.protocol.index_keys[:4])
                raise ValueError(f"reset needs an item index ({keys})")
            split, task_id = base.tasks.locate(_as_index(index))
        obs, info = session.env.reset(options={"split": split, "task_id": task_id})
        session.observation = self.protocol.observation(obs, info)
        return obs, info


def _as_index(value: Any) -> int:
    """An item index: a JSON int, or a string ending in decimal digits (AgentEval item ids such
    as ``"wordle_3"``); ``true``, ``1.5`` and ``"1.5"`` are refused, not rounded."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        digits = value.rsplit("_", 1)[-1].strip()
        if digits.isascii() and (digits.isdigit() or (digits[:1] == "-" and digits[1:].isdigit())):
            return int(digits)
    raise ValueError(f"item index must be an int, got {value!r}")
