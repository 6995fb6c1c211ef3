"""The recording gateway: an OpenAI-compatible endpoint between any agent harness and its
model, that turns each harness session into a scored trajectory (``agentgym gateway``).

The harness keeps its own prompts, tools and turn structure; it only points its model base URL
at the gateway (``http://127.0.0.1:8790/s/<session>/v1``; a harness that speaks Anthropic's
Messages API uses ``/s/<session>/v1/messages``, one that speaks only the Responses API
``/s/<session>/v1/responses``, translated and recorded the same way) and acts on the env through the
gateway too: MCP at ``/mcp?session=<session>`` (tools ``reset``, ``act`` and the family's), or
plain HTTP at ``/s/<session>/env/reset`` and ``/s/<session>/env/step`` (``{"action": ...}`` ->
``{"observation", "reward", "done", "success", "score"}``). Every chat completion, streamed
or not, is forwarded to the upstream endpoint and appended (request, response, usage, latency)
to ``<out>/sessions/<session>.jsonl`` as it happens. ``POST /s/<session>/finish`` (and the
gateway's shutdown, for every session still open) writes the session as one AgentTraj record
(``agenttraj.jsonl``: the harness's last conversation, scored by the env episode), one chat
record with the tool calls (``chat.jsonl``) and one SFT record with its loss mask
(``sft.jsonl``). A session is finished once; an unknown session is a 404 that says so.

Session state is bounded: a finished session is dropped from memory once its records are
written (its env closed, its claim released; its name is refused from then on), a session no
request has named for ``idle_timeout`` seconds expires -- written as it stands, with
``"expired": true`` -- and at most ``max_sessions`` are open at once (a new one past that,
after expiring what is idle, is refused with 429).

::

    agentgym gateway --env Maze-v0 --upstream http://127.0.0.1:8000/v1 --out runs/gw
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentgym_envs.bounds import json_dumps_utf8
from agentgym_envs.errors import require
from agentgym_envs.integrations.mcp import EpisodeStore, SessionError, swept
from agentgym_envs.integrations.ownership import CALL_TIMEOUT

logger = logging.getLogger(__name__)

DEFAULT_SESSION = "default"
#: Default seconds after which a session no request has named expires.
IDLE_TIMEOUT = 3600.0
#: Default most sessions open at once.
MAX_SESSIONS = 256


class SessionLog:
    """One harness session: its chat calls (in memory and appended to a JSONL file)."""

    def __init__(self, name: str, path: Path) -> None:
        self.name = name
        self.path = path
        self.calls: list[dict[str, Any]] = []
        self.finished = False
        self.lock = threading.Lock()

    def append(self, entry: dict[str, Any]) -> None:
        try:
            line = json_dumps_utf8(entry) + "\n"
        except (TypeError, ValueError, RecursionError) as exc:
            entry = {k: entry.get(k) for k in ("time", "stream", "latency")}
            entry.update(request=None, response=None, error=f"not recordable: {exc!r:.200}")
            line = json_dumps_utf8(entry) + "\n"
        with self.lock:
            self.calls.append(entry)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as f:
                f.write(line)

    def tokens(self) -> dict[str, int]:
        """Prompt and completion tokens over the session's calls (as the upstream counted)."""
        usage = {"prompt_tokens": 0, "completion_tokens": 0}
        for call in self.calls:
            for key in usage:
                usage[key] += int((call.get("usage") or {}).get(key, 0) or 0)
        return usage

    def conversation(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The session's full conversation (the answered request with the most messages, the
        latest of those, and its answer) and the tools the harness offered. Side calls a
        harness makes (a title for the chat, a summary) are shorter and left out; entries an
        odd upstream or client left malformed are skipped."""
        answered = [
            e
            for e in self.calls
            if isinstance(e.get("response"), dict) and isinstance(e.get("request"), dict)
        ]
        if not answered:
            return [], []

        def length(entry: dict[str, Any]) -> int:
            messages = entry["request"].get("messages")
            return len(messages) if isinstance(messages, list) else 0

        entry = max(reversed(answered), key=length)
        request = entry["request"]
        messages = [m for m in request.get("messages") or [] if isinstance(m, dict)]
        tools = request.get("tools")
        return [*messages, entry["response"]], list(tools if isinstance(tools, list) else [])


def chat_to_agenttraj(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI chat messages as AgentTraj turns (system messages left out, tool calls written
    as text, tool answers as env turns)."""
    from agentgym_envs.wrappers.conversation import Conversation, Message

    kept = []
    for m in messages:
        if isinstance(m.get("content"), list):  # content parts: their text
            texts = [p.get("text") for p in m["content"] if isinstance(p, dict)]
            m = {**m, "content": "".join(t for t in texts if isinstance(t, str))}
        try:
            kept.append(Message.from_chat(m))
        except (KeyError, TypeError, ValueError, AttributeError):
            logger.warning("skipping a message the conversation model cannot read: %.80s", m)
    return Conversation(kept).agenttraj()


class Gateway:
    """The gateway's state: upstream, env episodes (by session), session logs, outputs.

    Args:
        env_id: the env the harness sessions play.
        upstream: the real model endpoint's ``/v1`` root.
        out: folder for ``sessions/``, ``agenttraj.jsonl``, ``chat.jsonl``, ``sft.jsonl``.
        api_key: sent upstream as ``Authorization: Bearer`` (default: the harness's own header).
        model: replaces the request's ``model`` when given.
        timeout: seconds an upstream call may take.
        session_auth: require each session's token (``X-Session-Token``, see
            :mod:`~agentgym_envs.integrations.ownership`) on every request after its first.
        call_timeout: seconds one env call may take.
        max_sessions: most sessions open at once (a new one past it is refused once the idle
            ones have expired).
        max_sessions_per_client: most open sessions one client address may hold (``None``:
            half of ``max_sessions``).
        idle_timeout: seconds after which a session no request has named expires (written as
            it stands, then dropped).
        token_ids: ask the upstream for token ids and logprobs (vLLM's ``return_token_ids``,
            ``logprobs``) and record them with each call; whatever an upstream returns of
            these is recorded either way.
    """

    def __init__(
        self,
        env_id: str,
        upstream: str,
        out: str | os.PathLike[str],
        *,
        api_key: str | None = None,
        model: str | None = None,
        timeout: float = 300.0,
        session_auth: bool = True,
        call_timeout: float | None = CALL_TIMEOUT,
        max_sessions: int = MAX_SESSIONS,
        max_sessions_per_client: int | None = None,
        idle_timeout: float = IDLE_TIMEOUT,
        token_ids: bool = False,
    ) -> None:
        self.upstream = upstream.rstrip("/")
        self.token_ids = token_ids
        self.out = Path(out)
        self.api_key = api_key
        self.model = model
        self.timeout = timeout
        self.idle_timeout = idle_timeout
        self.store = EpisodeStore(
            env_id,
            auth=session_auth,
            call_timeout=call_timeout,
            max_episodes=max_sessions,
            max_per_client=max_sessions_per_client,
            idle_timeout=idle_timeout,
            on_full=self.expire,
        )
        if idle_timeout < timeout:
            logger.warning(
                "idle_timeout %g s is shorter than the upstream timeout %g s: a session waiting "
                "on a slow model call may expire",
                idle_timeout,
                timeout,
            )
        self.sessions: dict[str, SessionLog] = {}
        #: Called with the outcome of each session written (``None``: its episode had not
        #: ended); :func:`create_app` counts them in its metrics.
        self.episode_ended: Callable[[str | None], None] | None = None
        self._lock = threading.Lock()
        self._write = threading.Lock()

    def session(self, name: str, create: bool = True) -> SessionLog | None:
        with self._lock:
            log = self.sessions.get(name)
            if log is None and create:
                log = self.sessions[name] = SessionLog(
                    name, self.out / "sessions" / f"{name}.jsonl"
                )
            return log

    def finish(self, name: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        """Write session ``name`` as AgentTraj, chat and SFT records; return the AgentTraj one.
        The session is then dropped (its env closed) and its name refused from then on.

        ``extra`` (e.g. a harness runner's ``outcome``, ``reward_valid``, wall time) is merged
        into each record; with ``reward_valid`` false their ``reward`` is ``None``."""
        return self._finish(name, extra, f"session {name!r} is already finished")

    def expire(self) -> list[str]:
        """Expire the sessions no request has named for ``idle_timeout`` seconds (none with an
        env call under way): one that made a chat call or an env step is written as it stands
        (``"expired": true``), then each is dropped and its name refused. The names let go."""
        gone = []
        for name in self.store.claims.stale(self.idle_timeout):
            episode = self.store.episodes.get(name)
            if episode is not None and episode.idle <= self.idle_timeout:
                continue
            reason = f"session {name!r} expired after {self.idle_timeout:g} s idle"
            log = self.sessions.get(name)
            try:
                if (log is not None and log.calls) or (episode is not None and episode.steps):
                    self._finish(name, {"expired": True}, reason)
                else:
                    self._drop(name, reason)
            except Exception:
                logger.exception("could not write expired gateway session %r", name)
                self._drop(name, reason)
            logger.info("%s", reason)
            gone.append(name)
        return gone

    def _drop(self, name: str, reason: str) -> None:
        """Forget session ``name`` (log, episode, claim); later requests get ``reason``."""
        self.store.claims.end(name, f"{reason}: use a new session name")
        self.store.close(name)
        with self._lock:
            self.sessions.pop(name, None)

    def _finish(self, name: str, extra: dict[str, Any] | None, reason: str) -> dict[str, Any]:
        ended = self.store.claims.ended(name)
        if ended is not None:
            raise SessionError(ended)
        episode = self.store.episodes.get(name)
        log = self.session(name, create=episode is not None)
        if log is None:
            raise SessionError(f"unknown session {name!r}: no chat call or episode carries it")
        with log.lock:
            if log.finished:
                raise SessionError(f"session {name!r} is already finished")
            log.finished = True
        if episode is not None:  # no env step after the record is written
            episode.broken = f"session {name!r} is finished: use a new session name"
        try:
            return self._records(name, log, episode, extra)
        except Exception as exc:  # an odd message the records cannot hold: still one record
            logger.exception("gateway session %r: its records could not be built", name)
            record = {
                "session": name,
                "env_id": self.store.env_id,
                "model_calls": len(log.calls),
                "error": f"the session could not be recorded: {type(exc).__name__}: {exc}"[:500],
                **(extra or {}),
            }
            self._append({"agenttraj.jsonl": record})
            return record
        finally:
            self._drop(name, reason)

    def _records(
        self,
        name: str,
        log: SessionLog,
        episode: Any,
        extra: dict[str, Any] | None,
    ) -> dict[str, Any]:
        """Append the session's AgentTraj, chat and SFT records; the AgentTraj one."""
        from agentgym_envs.datasets.agenttraj import Trajectory, Turn
        from agentgym_envs.datasets.export import to_sft
        from agentgym_envs.datasets.harness import call_tokens, history_rewrite

        messages, tools = log.conversation()
        result = episode.result("") if episode is not None else {}
        turns = chat_to_agenttraj(messages)
        item_id = episode.item_id if episode is not None else f"gateway_{name}"
        score = float(result.get("score", 0.0)) if episode is not None else None
        success = bool(result.get("success", False)) if episode is not None else None
        record = {
            "item_id": item_id,
            "conversations": turns,
            "reward": score,
            "success": success,
            "session": name,
            "env_id": self.store.env_id,
            "env_steps": result.get("steps", 0),
            "outcome": episode.info.get("outcome") if episode is not None else None,
            "model_calls": len(log.calls),
            "tokens": log.tokens(),
            "latency": [c.get("latency") for c in log.calls],
        }
        trajectory = Trajectory(
            item_id,
            [Turn(t["from"], t["value"], t.get("loss")) for t in turns],
            score,
            success,
        )
        chat = {
            "session": name,
            "item_id": item_id,
            "messages": messages,
            "tools": tools,
            "reward": score,
            "success": success,
        }
        tokens = call_tokens(log.calls)
        if tokens:  # per model call (``call``: its index), in call order
            chat["token_ids"] = tokens
        rewritten = history_rewrite(log.calls)
        for rec in (record, chat):
            rec.update(monotonic=rewritten is None, rewritten_at=rewritten)
        sft = {**to_sft(trajectory), "session": name, "success": success}
        if extra:
            invalid = extra.get("reward_valid") is False
            for rec in (record, chat, sft):
                rec.update(extra)
                if invalid:
                    rec["reward"] = None
        self._append({"agenttraj.jsonl": record, "chat.jsonl": chat, "sft.jsonl": sft})
        if self.episode_ended is not None:
            self.episode_ended(record.get("outcome"))
        return record

    def live_sessions(self) -> int:
        """Sessions open now (a chat log or an env episode, not yet written)."""
        return len({*list(self.sessions), *list(self.store.episodes)})

    def _append(self, records: dict[str, dict[str, Any]]) -> None:
        """Append each record to its file (file name -> record) under ``out``."""
        lines = {file: json_dumps_utf8(rec) + "\n" for file, rec in records.items()}
        with self._write:
            self.out.mkdir(parents=True, exist_ok=True)
            for file, line in lines.items():
                with (self.out / file).open("a", encoding="utf-8") as f:
                    f.write(line)

    def finish_all(self) -> None:
        """Write every open session that made a chat call or played the env; one session
        that cannot be written is logged and skipped, never the others."""
        names = dict.fromkeys([*list(self.sessions), *list(self.store.episodes)])
        for name in names:
            log = self.sessions.get(name)
            episode = self.store.episodes.get(name)
            if log is not None and log.finished:
                continue
            if not ((log is not None and log.calls) or (episode is not None and episode.steps)):
                continue
            try:
                self.finish(name)
            except Exception:
                logger.exception("could not write gateway session %r at shutdown", name)

    def close_all(self) -> None:
        """Close every env episode still open."""
        self.store.close_all()


def create_app(gateway: Gateway) -> Any:
    """The gateway as a Starlette app (chat completions, Anthropic messages, responses, models,
    MCP, env HTTP, finish); the handlers are in :mod:`~agentgym_envs.integrations.gateway_routes`,
    :mod:`~agentgym_envs.integrations.gateway_anthropic` and
    :mod:`~agentgym_envs.integrations.gateway_responses`."""
    require("starlette", "gateway")
    import httpx
    from starlette.applications import Starlette

    from agentgym_envs.integrations.gateway_anthropic import ROUTES as MESSAGES
    from agentgym_envs.integrations.gateway_responses import ROUTES as RESPONSES
    from agentgym_envs.integrations.gateway_routes import ROUTES
    from agentgym_envs.integrations.mcp import bounded, http_routes, session_manager
    from agentgym_envs.metrics import instrument

    manager = session_manager(gateway.store.env_id, gateway.store)
    mcp = http_routes("/mcp", bounded(manager.handle_request))
    app = Starlette(routes=[*ROUTES, *MESSAGES, *RESPONSES, *mcp], lifespan=_lifespan)
    env_id = gateway.store.env_id
    metrics = instrument(app, "gateway", live_sessions=gateway.live_sessions, envs=[env_id])
    gateway.episode_ended = lambda outcome: metrics.episode_ended(outcome, env=env_id)
    app.state.gateway = gateway
    app.state.mcp = manager
    app.state.client = httpx.AsyncClient(timeout=httpx.Timeout(gateway.timeout, connect=10.0))
    return app


@contextlib.asynccontextmanager
async def _lifespan(app: Any):
    """Run the MCP sessions and the idle sweep; on shutdown write every open session and
    close the episodes."""
    gateway = app.state.gateway
    async with app.state.mcp.run(), swept(gateway):
        try:
            yield
        finally:
            try:
                gateway.finish_all()
            finally:
                await app.state.client.aclose()


def serve(
    env_id: str,
    upstream: str,
    out: str,
    *,
    host: str = "127.0.0.1",
    port: int = 8790,
    api_key: str | None = None,
    model: str | None = None,
    session_auth: bool = True,
    token_ids: bool = False,
    idle_timeout: float = IDLE_TIMEOUT,
    max_sessions: int = MAX_SESSIONS,
) -> None:
    """Run the gateway with uvicorn until interrupted (open sessions are written on exit; a
    busy port is a one-line :class:`~agentgym_envs.serving.AddressInUseError`)."""
    from agentgym_envs.serving import check_bindable, serve_app

    check_bindable(host, port)  # before the env is made
    gateway = Gateway(
        env_id,
        upstream,
        out,
        api_key=api_key,
        model=model,
        session_auth=session_auth,
        token_ids=token_ids,
        idle_timeout=idle_timeout,
        max_sessions=max_sessions,
    )
    serve_app(create_app(gateway), host, port, extra="gateway", log_level="warning")


__all__ = [
    "DEFAULT_SESSION",
    "IDLE_TIMEOUT",
    "MAX_SESSIONS",
    "Gateway",
    "SessionLog",
    "chat_to_agenttraj",
    "create_app",
    "serve",
]
