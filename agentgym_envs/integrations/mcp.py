"""An env as an MCP server (the official ``mcp`` SDK): ``agentgym mcp <id>``.

Tools: ``reset`` (start an episode: ``task_id``, ``split``, ``seed``), ``act`` (one action in
the family's text grammar) and the family's own tools (Maze's ``move``, the tool families'
API calls, ...; their JSON schemas are the env's). Each result is the observation as text,
with ``reward``, ``terminated``, ``success``, ``score`` and ``episode`` as structured content.
Each MCP connection (stdio process, streamable-HTTP session) plays its own episode; a
streamable-HTTP URL may name its episode key with ``?session=<key>`` (the recording gateway
does), ``&reset=off`` hides ``reset`` from a client whose episode was started for it, and
``&prefix=<p>`` names the tools ``<p><tool>``. A call before ``reset``, an unknown tool or arguments that break the schema come back
as an error result that says what to do; the episode is unchanged.

``record=<file.jsonl>`` appends each finished episode as an AgentTraj record.

It runs on ``mcp`` 1.x and 2.x; what differs between them is in
:mod:`~agentgym_envs.integrations.mcp_sdk`.

::

    agentgym mcp Maze-v0                          # stdio
    agentgym mcp Maze-v0 --transport http --port 8765   # http://127.0.0.1:8765/mcp
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
import uuid
import weakref
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym

from agentgym_envs.bounds import json_dumps_utf8
from agentgym_envs.errors import AgentGymError, require
from agentgym_envs.integrations.mcp_sdk import Call, check_arguments
from agentgym_envs.integrations.ownership import (
    CALL_TIMEOUT,
    TOKEN_HEADER,
    CallTimeout,
    Claims,
    ForbiddenError,
    LimitError,
    SessionError,
    off_loop,
    sweep_every,
    sweep_interval,
)
from agentgym_envs.integrations.session import with_error

logger = logging.getLogger(__name__)

_HINT = "mcp"
#: Default seconds after which an unused episode is closed (the SDK's own default for an idle
#: MCP connection).
IDLE_TIMEOUT = 1800.0
#: Default most live episodes (and claimed keys) of one server.
MAX_EPISODES = 256


@dataclass
class EnvEpisode:
    """One episode behind a session: the env (FunctionCalling-wrapped), its conversation and
    outcome so far."""

    key: str
    env_id: str
    env: Any
    item_id: str
    conversation: Any
    reward: float = 0.0
    terminated: bool = False
    truncated: bool = False
    info: dict[str, Any] = field(default_factory=dict)
    steps: int = 0
    recorded: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    #: When a call last used it (``time.monotonic``); only idle episodes are evicted.
    last_used: float = field(default_factory=time.monotonic)
    #: Why it may no longer be stepped (a call on it ran past its deadline; it was finished).
    broken: str | None = None

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated

    def result(self, observation: str) -> dict[str, Any]:
        return {
            "episode": self.key,
            "observation": observation,
            "reward": self.reward,
            "terminated": self.terminated,
            "truncated": self.truncated,
            "success": bool(self.info.get("success", False)),
            "score": float(self.info.get("score", 0.0)),
            "error": self.info.get("error"),
            "steps": self.steps,
        }

    def step(self, action: Any, reply: Any, wait: float | None = None) -> str:
        """Step the env with ``action`` (text, or a tool call for FunctionCalling); wait at
        most ``wait`` seconds for a call still running on the episode."""
        if self.broken is not None:
            raise SessionError(self.broken)
        if not self.lock.acquire(timeout=-1 if wait is None else wait):
            raise SessionError(f"episode {self.key} is busy with an earlier call")
        try:
            self.last_used = time.monotonic()
            if self.broken is not None:
                raise SessionError(self.broken)
            if self.done:
                raise SessionError(
                    f"episode {self.key} has ended (success={self.info.get('success', False)}): "
                    "call reset to start another"
                )
            target = self.env if not isinstance(action, str) else self.env.env
            obs, reward, terminated, truncated, info = target.step(action)
            self.steps += 1
            self.reward = float(reward)
            self.terminated, self.truncated, self.info = bool(terminated), bool(truncated), info
            self.conversation.add(reply, obs, info.get("tool_calls") or None)
            return obs
        finally:
            self.last_used = time.monotonic()
            self.lock.release()

    @property
    def idle(self) -> float:
        """Seconds since a call last used it (0 while one does)."""
        return 0.0 if self.lock.locked() else time.monotonic() - self.last_used

    def record(self) -> dict[str, Any]:
        """The episode as an AgentTraj record (with ``reward``, ``success``, ``outcome``)."""
        return {
            "item_id": self.item_id,
            "conversations": self.conversation.agenttraj(),
            "reward": float(self.info.get("score", 0.0)),
            "success": bool(self.info.get("success", False)),
            "outcome": self.info.get("outcome"),
            "env_id": self.env_id,
            "steps": self.steps,
        }


class EpisodeStore:
    """Episodes by key, thread-safe; finished episodes appended to ``record`` (JSONL) once.

    Nothing is kept for ever: :meth:`expire` (run every so often by :func:`http_app`, and
    whenever a new key finds the store full) closes episodes unused for ``idle_timeout``
    seconds -- their records written -- and releases claims no request has used for as long.

    Args:
        env_id: the env every episode plays.
        record: JSONL file for finished episodes (``None``: none).
        max_episodes: most live episodes, and most claimed keys; a new episode past it evicts
            an idle one (ended, or unused for ``idle_timeout`` seconds) and is refused if none
            is.
        max_per_client: most live episodes (and claimed keys) one client address may hold
            (``None``: half of ``max_episodes``).
        idle_timeout: seconds unused after which an episode is closed and its key released.
        auth: whether a key's token (see :mod:`~agentgym_envs.integrations.ownership`) is
            required on every later request naming it.
        call_timeout: seconds one env call may take (``None``: no limit).
        on_full: what frees room when a new key finds the claims full (default
            :meth:`expire`; the gateway passes its own, which also writes the sessions).
    """

    def __init__(
        self,
        env_id: str,
        *,
        record: str | os.PathLike[str] | None = None,
        max_episodes: int = MAX_EPISODES,
        max_per_client: int | None = None,
        idle_timeout: float = IDLE_TIMEOUT,
        auth: bool = True,
        call_timeout: float | None = CALL_TIMEOUT,
        on_full: Any = None,
    ) -> None:
        from agentgym_envs.spec import resolve_id

        if max_episodes < 1 or not idle_timeout > 0:
            raise ValueError(
                f"max_episodes={max_episodes}, idle_timeout={idle_timeout}: give at least 1 "
                "episode and a positive number of seconds"
            )
        self.env_id = resolve_id(env_id)
        self.record_path = Path(record) if record else None
        self.max_episodes = max_episodes
        self.max_per_client = max_per_client or max(1, max_episodes // 2)
        self.idle_timeout = idle_timeout
        self.call_timeout = call_timeout
        self.claims = Claims(
            auth=auth,
            max_keys=max_episodes,
            max_per_client=self.max_per_client,
            idle_timeout=idle_timeout,
            on_full=on_full or self.expire,
        )
        self.episodes: dict[str, EnvEpisode] = {}
        self._lock = threading.Lock()
        self._write = threading.Lock()
        self._resets: dict[str, threading.Lock] = {}

    async def call(self, fn: Any, *args: Any, key: str | None = None) -> Any:
        """``fn(*args)`` off the event loop within ``call_timeout``; past it the episode
        ``key`` is marked broken and :class:`CallTimeout` raised."""
        try:
            return await off_loop(fn, *args, timeout=self.call_timeout)
        except CallTimeout as exc:
            episode = self.episodes.get(key) if key is not None else None
            message = f"{exc}; the episode's state is unknown: call reset to start another"
            if episode is not None:
                episode.broken = f"episode {key}: an earlier call {message}"
            raise CallTimeout(message) from None

    def reset(
        self,
        key: str,
        *,
        task_id: int | None = None,
        split: str = "test",
        seed: int | None = None,
        client: str = "",
    ) -> tuple[EnvEpisode, str, dict[str, Any]]:
        """Start an episode on ``key`` (the env of its last one is reused unless broken).

        Raises:
            LimitError: when no episode can be evicted to make room (all in use).
        """
        with self._lock:
            resetting = self._resets.setdefault(key, threading.Lock())
        with resetting:  # concurrent resets of one key: one after the other, each recorded once
            return self._reset(key, task_id, split, seed, client)

    def _reset(
        self, key: str, task_id: int | None, split: str, seed: int | None, client: str
    ) -> tuple[EnvEpisode, str, dict[str, Any]]:
        from agentgym_envs.wrappers import FunctionCalling
        from agentgym_envs.wrappers.conversation import Conversation

        old = self._make_room(key, client)
        env = None
        if old is not None:
            self.finish(old)
            if old.broken is None and old.lock.acquire(timeout=self.call_timeout or -1):
                env = old.env
                old.lock.release()
            else:  # still running (or left) a call that outlived its deadline
                _close_when_free(old)
        if env is None:
            env = FunctionCalling(gym.make(self.env_id))
        options: dict[str, Any] = {"split": split}
        if task_id is not None:
            options["task_id"] = int(task_id)
        try:
            obs, info = env.reset(seed=seed, options=options)
        except BaseException:
            with self._lock:
                self.episodes.pop(key, None)
            env.close()
            raise
        episode = EnvEpisode(
            key, self.env_id, env, env.unwrapped.item_id, Conversation.start(obs, info), info=info
        )
        with self._lock:
            self.episodes[key] = episode
        return episode, obs, info

    def _make_room(self, key: str, client: str) -> EnvEpisode | None:
        """Reserve ``key``'s place; return its current episode (``None``: a new key)."""
        with self._lock:
            old = self.episodes.get(key)
            if old is not None:
                return old
            mine = sum(1 for k in self.episodes if self.claims.client_of(k) == client)
            if client and mine >= self.max_per_client:
                raise LimitError(
                    f"this client holds {mine} open episodes, the most one client may: finish "
                    "or close one first"
                )
            evict = None
            if len(self.episodes) >= self.max_episodes:
                idle = [
                    e
                    for e in self.episodes.values()
                    if not e.lock.locked()
                    and (e.done or e.broken is not None or e.idle > self.idle_timeout)
                ]
                if not idle:
                    raise LimitError(
                        f"all {self.max_episodes} episodes are in use: finish one, or try again "
                        f"once one has been idle for {self.idle_timeout:g} s"
                    )
                evict = max(idle, key=lambda e: (e.done or e.broken is not None, e.idle))
        if evict is not None:
            logger.info("evicting idle episode %s to make room for %s", evict.key, key)
            self.close(evict.key)
        return None

    def get(self, key: str) -> EnvEpisode:
        episode = self.episodes.get(key)
        if episode is None:
            raise SessionError(f"no episode for session {key!r}: call reset first")
        return episode

    def finish(self, episode: EnvEpisode) -> None:
        """Append the episode's record to the JSONL file (once; only played episodes)."""
        if self.record_path is None or not episode.steps:
            return
        with self._write:  # checked and set under the lock: two closers write it once
            if episode.recorded:
                return
            episode.recorded = True
            line = json_dumps_utf8(episode.record()) + "\n"
            self.record_path.parent.mkdir(parents=True, exist_ok=True)
            with self.record_path.open("a", encoding="utf-8") as f:
                f.write(line)
                f.flush()

    def close(self, key: str) -> None:
        """Close ``key``'s episode (its record written) and release its claim."""
        with self._lock:
            episode = self.episodes.pop(key, None)
            self._resets.pop(key, None)
        self.claims.release(key)
        if episode is not None:
            self.finish(episode)
            _close_when_free(episode)

    def expire(self) -> list[str]:
        """Close the episodes unused for ``idle_timeout`` seconds (not one in a call) and
        release the claims unused as long that hold none; the keys let go."""
        gone = [
            key
            for key, episode in list(self.episodes.items())
            if not episode.lock.locked() and episode.idle > self.idle_timeout
        ]
        for key in gone:
            logger.info("closing episode %s: idle for over %g s", key, self.idle_timeout)
            self.close(key)
        for key in self.claims.stale(self.idle_timeout):
            if key not in self.episodes:
                self.claims.release(key)
                gone.append(key)
        return gone

    def close_all(self) -> None:
        """Close every episode (one that fails to close is logged, the rest still close)."""
        for key in list(self.episodes):
            try:
                self.close(key)
            except Exception:
                logger.exception("could not close episode %r", key)


def _close_when_free(episode: EnvEpisode) -> None:
    """Close ``episode``'s env now, or in a thread once the call still running on it ends."""

    def close() -> None:
        with episode.lock:
            try:
                episode.env.close()
            except Exception:
                logger.exception("error closing an env")

    if episode.lock.locked():
        threading.Thread(target=close, daemon=True, name=f"close-{episode.key}").start()
    else:
        close()


_RESET_SCHEMA = {
    "type": "object",
    "properties": {
        "task_id": {"type": "integer", "minimum": 0, "description": "the task (default: drawn)"},
        "split": {"type": "string", "enum": ["train", "test"], "default": "test"},
        "seed": {"type": "integer"},
    },
    "additionalProperties": False,
}
_ACT_SCHEMA = {
    "type": "object",
    "properties": {"action": {"type": "string", "description": "one action, as text"}},
    "required": ["action"],
    "additionalProperties": False,
}


def env_tools(env_id: str) -> list[dict[str, Any]]:
    """The MCP tool list for ``env_id``: ``reset``, ``act`` and the family's tools."""
    from agentgym_envs.spec import resolve_id

    env = gym.make(resolve_id(env_id))
    env.reset(options={"split": "test", "task_id": 0})
    instructions = env.unwrapped.instructions()
    family = [t.get("function", t) for t in env.unwrapped.tool_schemas()]
    env.close()
    tools = [
        {
            "name": "reset",
            "description": "Start a new episode; returns the task instructions and the first "
            "observation.\n\n" + instructions,
            "inputSchema": _RESET_SCHEMA,
        },
        {
            "name": "act",
            "description": "Send one action to the environment in its text grammar; returns "
            "the observation.",
            "inputSchema": _ACT_SCHEMA,
        },
    ]
    for fn in family:
        if fn["name"] in ("reset", "act"):
            continue
        tools.append(
            {
                "name": fn["name"],
                "description": fn.get("description", ""),
                "inputSchema": fn.get("parameters") or {"type": "object"},
            }
        )
    return tools


class EpisodeTools:
    """One env episode at a time behind named tools -- the core the framework adapters share
    (LangGraph, CrewAI): :meth:`reset`, :meth:`call` (``act`` or a family tool, the result as
    text; mistakes come back as text the model can read) and the record.

    Args:
        env_id: a registered id.
        act_tool: also offer ``act`` (text actions) next to the family's tools.
    """

    _KEY = "episode"

    def __init__(self, env_id: str, *, act_tool: bool = True) -> None:
        self.store = EpisodeStore(env_id)
        self.env_id = self.store.env_id
        specs = [t for t in env_tools(self.env_id) if t["name"] != "reset"]
        if not act_tool:
            specs = [t for t in specs if t["name"] != "act"] or specs
        self.specs = specs

    def reset(
        self, task_id: int | None = None, split: str = "test", seed: int | None = None
    ) -> str:
        """Start an episode; the instructions and first observation, for the first message."""
        episode, obs, _ = self.store.reset(self._KEY, task_id=task_id, split=split, seed=seed)
        return f"{episode.env.instructions()}\n\n{obs}"

    @property
    def episode(self) -> EnvEpisode:
        return self.store.get(self._KEY)

    @property
    def done(self) -> bool:
        episode = self.store.episodes.get(self._KEY)
        return episode is not None and episode.done

    def result(self) -> dict[str, Any]:
        """``reward``, ``terminated``, ``success``, ``score``, ``steps`` so far."""
        return self.episode.result("")

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        """Run tool ``name``; the observation (or what went wrong) as text."""
        try:
            episode = self.store.get(self._KEY)
            if name == "act":
                action = str(arguments.get("action", ""))
                return episode.step(action, f"Action: {action}")
            call = {
                "id": f"call_{episode.steps}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
            reply = {"role": "assistant", "content": "", "tool_calls": [call]}
            return episode.step(reply, reply)
        except SessionError as exc:
            return f"Error: {exc}"

    def record(self, messages: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """The episode as an AgentTraj record, scored by the env; with OpenAI chat
        ``messages`` the conversation is the agent's own, else the env's view of it."""
        record = self.episode.record()
        if messages is not None:
            from agentgym_envs.integrations.gateway import chat_to_agenttraj

            record["conversations"] = chat_to_agenttraj(messages)
        return record

    def close(self) -> None:
        self.store.close_all()


def build_server(env_id: str, store: EpisodeStore | None = None) -> Any:
    """The MCP ``Server`` (low-level API, ``mcp`` 1.x or 2.x) for ``env_id`` over ``store``."""
    require("mcp", _HINT)
    from agentgym_envs.integrations.mcp_sdk import lowlevel_server

    store = store or EpisodeStore(env_id)
    handlers = _Handlers(store)
    server: Any = lowlevel_server(
        f"agentgym:{store.env_id}", handlers.list_tools, handlers.call_tool
    )
    server.agentgym_store = store
    return server


class _Handlers:
    """The MCP server's two handlers (list the tools, call one) and what they share: the
    calling connection's episode key and the tools its URL offers."""

    def __init__(self, store: EpisodeStore) -> None:
        self.store = store
        self.tools = env_tools(store.env_id)
        self.names = {t["name"] for t in self.tools}
        self.schemas = {t["name"]: t["inputSchema"] for t in self.tools}
        self.session_keys: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()

    @staticmethod
    def query(call: Call, name: str) -> str | None:
        """Parameter ``name`` of the streamable-HTTP URL (``None`` over stdio)."""
        params = getattr(call.request, "query_params", None)
        return str(params[name]) if params is not None and params.get(name) else None

    def session_key(self, call: Call, tool: str) -> tuple[str, str]:
        """The episode key of the calling connection and the client's address; a key named
        by ``?session=`` is claimed with the ``X-Session-Token`` header (see
        :mod:`~agentgym_envs.integrations.ownership`) -- a new key only by ``reset``."""
        request = call.request
        client = ""
        if request is not None and getattr(request, "client", None) is not None:
            client = request.client.host
        if self.query(call, "session"):
            key = str(self.query(call, "session"))
            token = request.headers.get(TOKEN_HEADER)
            if self.store.claims.auth and not token:
                raise ForbiddenError(
                    f"a session named with ?session= needs its token: send the {TOKEN_HEADER} "
                    "header (a secret of your choosing the first time)"
                )
            self.store.claims.claim(key, token, client, create=tool == "reset")
            return key, client
        key = self.session_keys.get(call.connection)
        if key is None:
            key = self.session_keys[call.connection] = f"mcp-{uuid.uuid4().hex[:12]}"
        return key, client

    def offered(self, call: Call) -> set[str]:
        # ``?reset=off``: the episode was started for the client (a harness runner), which
        # may play it but not restart it on another task
        return self.names - {"reset"} if self.query(call, "reset") == "off" else self.names

    async def list_tools(self, call: Call) -> list[Any]:
        from mcp import types

        # ``?prefix=<p>``: names as ``<p><tool>``, for a client whose own tools share names
        # with the env's (OpenHands's ``finish``)
        prefix = self.query(call, "prefix") or ""
        offered = self.offered(call)
        return [
            types.Tool(**{**t, "name": prefix + t["name"]})
            for t in self.tools
            if t["name"] in offered
        ]

    def play(self, name: str, arguments: dict[str, Any], key: str, client: str) -> Any:
        """One tool call (in a worker thread): its text and structured content."""
        store = self.store
        if name == "reset":
            episode, obs, info = store.reset(key, client=client, **arguments)
            text = f"{episode.env.instructions()}\n\n{obs}"
            return text, {**episode.result(obs), "task_id": info["task_id"]}
        episode = store.get(key)
        if name == "act":
            reply = {"role": "assistant", "content": f"Action: {arguments['action']}"}
            obs = episode.step(str(arguments["action"]), reply["content"], store.call_timeout)
        else:
            call = {
                "id": f"call_{episode.steps}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
            reply = {"role": "assistant", "content": "", "tool_calls": [call]}
            obs = episode.step(reply, reply, store.call_timeout)
        if episode.done:
            store.finish(episode)
        return with_error(obs, episode.info), episode.result(obs)

    async def call_tool(self, call: Call, name: str, arguments: dict[str, Any]) -> Any:
        prefix = self.query(call, "prefix") or ""
        if prefix and name.startswith(prefix):
            name = name[len(prefix) :]
        offered = self.offered(call)
        if name not in offered:
            return _error(f"unknown tool {name!r}: use one of {', '.join(sorted(offered))}")
        wrong = check_arguments(arguments, self.schemas[name])
        if wrong is not None:
            return _error(wrong)
        try:
            key, client = self.session_key(call, name)
            text, data = await self.store.call(self.play, name, arguments, key, client, key=key)
        except SessionError as exc:
            return _error(str(exc))
        except AgentGymError as exc:
            return _error(f"{type(exc).__name__}: {exc}")
        return _ok(text, data)


def _error(message: str) -> Any:
    from mcp import types

    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], isError=True
    )


def _ok(text: str, data: dict[str, Any]) -> Any:
    from mcp import types

    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structuredContent=data
    )


async def serve_stdio(env_id: str, *, record: str | None = None) -> None:
    """Serve ``env_id`` over stdio until the client closes the pipe."""
    require("mcp", _HINT)
    from mcp.server.stdio import stdio_server

    from agentgym_envs.integrations.mcp_sdk import run_handshake_era

    store = EpisodeStore(env_id, record=record)
    server = build_server(env_id, store)
    try:
        async with stdio_server() as (read, write):
            await run_handshake_era(server, read, write)
    finally:
        store.close_all()


#: Most MCP connections (the SDK's streamable-HTTP sessions) per episode the store may hold.
CONNECTIONS_PER_EPISODE = 4


def session_manager(env_id: str, store: EpisodeStore) -> Any:
    """The SDK's streamable-HTTP session manager for ``env_id`` over ``store``: mount its
    ``handle_request`` and run ``manager.run()`` in the app's lifespan. A connection idle for
    the store's ``idle_timeout`` is closed; past :data:`CONNECTIONS_PER_EPISODE` per episode
    slot a new one is refused with 503 (by an SDK that caps them: not ``mcp`` 2.0)."""
    require("mcp", _HINT)
    from agentgym_envs.integrations.mcp_sdk import http_session_manager

    return http_session_manager(
        build_server(env_id, store),
        idle_timeout=store.idle_timeout,
        max_sessions=CONNECTIONS_PER_EPISODE * store.max_episodes,
    )


@contextlib.asynccontextmanager
async def swept(store: Any) -> AsyncIterator[None]:
    """While open, run ``store.expire`` every :func:`sweep_interval` of its
    ``idle_timeout``; on exit ``store.close_all()`` (an :class:`EpisodeStore`, or the
    gateway)."""
    import anyio

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(sweep_every, store.expire, sweep_interval(store.idle_timeout))
            try:
                yield
            finally:
                tasks.cancel_scope.cancel()
    finally:
        store.close_all()


#: Largest MCP request body over HTTP (bytes) and its deepest JSON nesting: a deeper body would
#: end in a ``RecursionError`` (HTTP 500) inside the SDK's parser.
MAX_BODY_BYTES = 4 << 20
MAX_JSON_DEPTH = 64


def bounded(app: Any) -> Any:
    """Wrap the SDK's streamable-HTTP handler: a POST body over :data:`MAX_BODY_BYTES` is
    refused with 413 and one nested deeper than :data:`MAX_JSON_DEPTH` with 400 (a JSON-RPC
    parse error), before the SDK parses it; other bodies reach it unchanged."""
    from agentgym_envs.bodies import (
        BodyRefused,
        asgi_chunks,
        asgi_headers,
        check_depth,
        read_capped,
    )

    async def refuse(send: Any, status: int, message: str) -> None:
        body = json.dumps(
            {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": message}}
        ).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        if status == 413:
            headers.append((b"connection", b"close"))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def handle(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await app(scope, receive, send)
            return
        try:
            raw = await read_capped(asgi_chunks(receive), MAX_BODY_BYTES, asgi_headers(scope))
            check_depth(raw, MAX_JSON_DEPTH)
        except BodyRefused as exc:
            if str(exc) != "client disconnected":
                prefix = "" if exc.status == 413 else "Parse error: "
                await refuse(send, exc.status, f"{prefix}{exc}")
            return
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": raw, "more_body": False}
            return await receive()

        await app(scope, replay, send)

    return handle


class _Asgi:
    """An ASGI callable Starlette's ``Route`` passes requests to as they are (a plain function
    would be wrapped as a request handler)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)


def http_routes(path: str, handler: Any) -> list[Any]:
    """The routes serving ``handler`` at ``path`` itself and below it: a mount alone answers
    ``POST /mcp`` with a redirect to ``/mcp/``, which clients that do not follow redirects
    (an httpx client made without ``follow_redirects``) take for a failure."""
    from starlette.routing import Mount, Route

    return [Route(path, endpoint=_Asgi(handler)), Mount(path, app=handler)]


def http_app(env_id: str, *, store: EpisodeStore | None = None, path: str = "/mcp") -> Any:
    """A Starlette app serving ``env_id`` over streamable HTTP at ``path``."""
    from starlette.applications import Starlette

    store = store or EpisodeStore(env_id)
    manager = session_manager(env_id, store)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any):
        async with manager.run(), swept(store):
            yield

    app = Starlette(routes=http_routes(path, bounded(manager.handle_request)), lifespan=lifespan)
    app.state.store = store
    return app


def serve_http(
    env_id: str,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    record: str | None = None,
    idle_timeout: float = IDLE_TIMEOUT,
    max_sessions: int = MAX_EPISODES,
) -> None:
    """Serve ``env_id`` over streamable HTTP at ``http://host:port/mcp`` (episodes idle for
    ``idle_timeout`` seconds closed; at most ``max_sessions`` at once; a busy port is a
    one-line :class:`~agentgym_envs.serving.AddressInUseError`)."""
    from agentgym_envs.serving import check_bindable, serve_app

    check_bindable(host, port)  # before the env is made
    store = EpisodeStore(
        env_id, record=record, idle_timeout=idle_timeout, max_episodes=max_sessions
    )
    app = http_app(env_id, store=store)
    serve_app(app, host, port, extra="mcp", log_level="warning")


def _tcp_port(text: str) -> int:
    import argparse

    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a TCP port: give 1 to 65535")
    return int(text)


def _seconds(text: str) -> float:
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds: give one > 0")
    return value


def _count(text: str) -> int:
    import argparse

    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a count: give a whole number >= 1")
    return int(text)


def main(argv: list[str] | None = None) -> None:
    """``python -m agentgym_envs.integrations.mcp <id> [--http --port N] [--record f]``."""
    import argparse
    import asyncio

    parser = argparse.ArgumentParser(prog="agentgym mcp")
    parser.add_argument("env_id")
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=_tcp_port, default=8765)
    parser.add_argument("--record", default=None)
    parser.add_argument("--idle-timeout", type=_seconds, default=IDLE_TIMEOUT)
    parser.add_argument("--max-sessions", type=_count, default=MAX_EPISODES)
    args = parser.parse_args(argv)
    if args.transport == "stdio":
        asyncio.run(serve_stdio(args.env_id, record=args.record))
    else:
        serve_http(
            args.env_id,
            host=args.host,
            port=args.port,
            record=args.record,
            idle_timeout=args.idle_timeout,
            max_sessions=args.max_sessions,
        )


if __name__ == "__main__":
    from agentgym_envs.serving import one_line_errors

    with one_line_errors():
        main()


__all__ = [
    "IDLE_TIMEOUT",
    "MAX_EPISODES",
    "EnvEpisode",
    "EpisodeStore",
    "EpisodeTools",
    "SessionError",
    "build_server",
    "env_tools",
    "http_app",
    "main",
    "serve_http",
    "serve_stdio",
    "session_manager",
]
