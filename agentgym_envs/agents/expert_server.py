"""An OpenAI-compatible chat server whose "model" is the family's scripted expert.

Put it behind any agent or harness to check the plumbing: prompts go out over HTTP, replies
come back as ReAct text or native tool calls, and the env scores them -- with the expert
answering, the score must be the expert's.

For each ``POST /v1/chat/completions`` the server finds the episode in the conversation: the
task whose first observation the conversation carries (among the test tasks of its env ids;
tasks sharing a first observation are told apart by replaying the conversation), replays the
agent's actions on its own copy of the env, and answers with the expert's next action. A replay
depends only on the task and the actions, so replays are cached by those (each request then
costs one env step) and shared by conversations that took the same actions; whether a task's
observations are the conversation's is decided per request. With ``cache=False`` the server is
stateless, as a model is: every answer is computed from its request alone. Replies carry ``usage``
(whitespace token counts); a request with ``"stream": true`` gets them as a server-sent event
stream of ``chat.completion.chunk`` objects ending in ``[DONE]``.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import gymnasium as gym

logger = logging.getLogger(__name__)

MODEL = "expert"


class _Shadow:
    """One replayed episode: the env, its expert, the actions stepped, the expert's next one."""

    def __init__(self, env_id: str, task_id: int, split: str) -> None:
        from agentgym_envs.spec import expert_policy

        self.env_id, self.task_id = env_id, task_id
        self.env = gym.make(env_id)
        self.obs, self.info = self.env.reset(seed=0, options={"task_id": task_id, "split": split})
        self.expert = expert_policy(self.env)
        self.actions: list[str] = []
        self.observations = [self.obs]
        self.next = str(self.expert(self.obs, self.info))

    def step(self, action: str) -> None:
        self.obs, _, terminated, truncated, self.info = self.env.step(action)
        self.actions.append(action)
        self.observations.append(self.obs)
        self.next = "" if terminated or truncated else str(self.expert(self.obs, self.info))


def _consistent(shadow: _Shadow, turns: list[Any]) -> bool:
    """Whether each observation of the replay appears in the conversation's text after the
    action that led to it."""
    return all(obs.strip()[:200] in text for obs, (_, text) in zip(shadow.observations[1:], turns))


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):  # content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


class ExpertChatServer:
    """``/v1/models`` and ``/v1/chat/completions`` on ``127.0.0.1``, answered by the expert.

    Args:
        env_ids: the env ids whose test tasks conversations may be about.
        split: the split the tasks come from.
        port: TCP port (default: a free one). ``base_url`` is the ``/v1`` root.
        max_cached: most replays kept between requests.
        cache: keep replays between requests (``False``: stateless, each answer from its
            request alone -- slower, the proof that nothing leaks between conversations).

    Use as a context manager (``with ExpertChatServer([...]) as server: server.base_url``).
    """

    def __init__(
        self,
        env_ids: list[str],
        *,
        split: str = "test",
        host: str = "127.0.0.1",
        port: int = 0,
        max_cached: int = 256,
        cache: bool = True,
    ) -> None:
        from agentgym_envs.spec import resolve_id

        self.env_ids = [resolve_id(e) for e in env_ids]
        self.split = split
        self.host, self.port = host, port
        self.max_cached = max_cached
        self.cache = cache
        self._firsts: dict[str, list[tuple[str, int]]] | None = None
        self._cache: OrderedDict[tuple[Any, ...], _Shadow] = OrderedDict()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        # every env is made, stepped and closed on this one thread (some envs hold SQLite
        # connections or simulators bound to the thread that made them)
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="expert-server")
        self.requests = 0

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    # -- finding the episode -----------------------------------------------------------------
    def _first_observations(self) -> dict[str, list[tuple[str, int]]]:
        if self._firsts is None:
            firsts: dict[str, list[tuple[str, int]]] = {}
            for env_id in self.env_ids:
                env = gym.make(env_id)
                for task_id in range(env.unwrapped.tasks.size(self.split)):
                    obs, _ = env.reset(seed=0, options={"task_id": task_id, "split": self.split})
                    firsts.setdefault(obs.strip(), []).append((env_id, task_id))
                env.close()
            self._firsts = firsts
        return self._firsts

    def _actions(self, env: gym.Env, messages: list[dict[str, Any]], start: int) -> list[Any]:
        """Per assistant turn after the first observation: its actions and the next texts."""
        from agentgym_envs.wrappers.parsers import parse_agentgym
        from agentgym_envs.wrappers.react import reply_style

        style = reply_style(env)
        turns: list[Any] = []
        for message in messages[start + 1 :]:
            if message.get("role") == "assistant":
                actions = []
                for call in message.get("tool_calls") or []:
                    fn = call.get("function", {})
                    try:
                        args = json.loads(fn.get("arguments") or "{}")
                        actions.append(env.unwrapped.action_from_tool_call(fn.get("name"), args))
                    except (ValueError, KeyError, TypeError):
                        actions.append(None)
                if not message.get("tool_calls"):
                    actions.append(parse_agentgym(style, _text(message)).action)
                turns += [[a, ""] for a in actions]
            elif turns:
                turns[-1][1] += _text(message)
        return turns

    def _shadow(self, messages: list[dict[str, Any]]) -> _Shadow | None:
        firsts = self._first_observations()
        found: list[tuple[str, int]] = []
        start, best_cover = -1, 0.0
        for i, message in enumerate(messages):
            if message.get("role") not in ("user", "tool"):
                continue
            text = _text(message).strip()
            for obs, cands in firsts.items():
                # the message that is most nearly the observation (instructions may quote one)
                if obs and obs in text and len(obs) / max(len(text), 1) > best_cover:
                    found, start, best_cover = cands, i, len(obs) / max(len(text), 1)
        if not found:
            return None
        best: _Shadow | None = None
        for env_id, task_id in found:
            replayed = self._replay(env_id, task_id, messages, start)
            if replayed is None:
                continue
            shadow, turns = replayed
            if best is None or len(found) == 1:
                best = shadow
            # whether this task's observations are the ones the conversation shows: a fact of
            # this conversation, never of the cached replay (other conversations share it)
            if _consistent(shadow, turns):
                return shadow
        return best

    def _replay(
        self, env_id: str, task_id: int, messages: list[dict[str, Any]], start: int
    ) -> tuple[_Shadow, list[Any]] | None:
        """Task ``task_id`` replayed through the conversation's actions, and the
        conversation's turns (action, texts that came back). A replay depends on the task and
        the actions only, so one cached for another conversation with the same ones is
        reused; with ``cache=False`` nothing outlives the request."""
        probe = gym.make(env_id)
        probe.reset(seed=0, options={"task_id": task_id, "split": self.split})
        turns = self._actions(probe, messages, start)
        probe.close()
        actions = tuple(a if a is not None else "" for a, _ in turns)
        key = (env_id, task_id, _text(messages[start]), actions)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key], turns
            prev = self._cache.pop((*key[:3], actions[:-1]), None) if actions else None
        shadow = prev or _Shadow(env_id, task_id, self.split)
        for action in actions[len(shadow.actions) :]:
            if shadow.next == "" and shadow.actions:
                break
            shadow.step(action)
        with self._lock:
            self._cache[key] = shadow
            while self.cache and len(self._cache) > max(self.max_cached, 1):
                self._cache.popitem(last=False)[1].env.close()
        return shadow, turns

    # -- answering -------------------------------------------------------------------------------
    def _hinted(self, episode: str, messages: list[dict[str, Any]]) -> _Shadow | None:
        """The episode a request names in ``metadata.agentgym_episode`` (``env id|split|task
        id``: the multi-turn agent's ``tag_requests``), replayed from its tool calls and
        ``Action:`` lines."""
        env_id, split, task = (episode.split("|") + ["", ""])[:3]
        if env_id not in self.env_ids or split != self.split or not task.isdigit():
            return None
        task_id = int(task)
        acting = [
            m
            for m in messages
            if m.get("role") != "assistant" or m.get("tool_calls") or "Action:" in _text(m)
        ]
        start = next((i for i, m in enumerate(acting) if m.get("role") == "user"), 0)
        replayed = self._replay(env_id, task_id, acting, start)
        return replayed[0] if replayed is not None else None

    def _board(self, messages: list[dict[str, Any]]) -> _Shadow | None:
        """Tic-tac-toe from the last position (the opponent may be anyone)."""
        from agentgym_envs.agents.board_expert import tictactoe_move

        ids = [e for e in self.env_ids if "TicTacToe" in e]
        move = tictactoe_move(messages) if ids else None
        if move is None:
            return None
        key = ("board", ids[0])
        with self._lock:
            probe = self._cache.get(key)
        if probe is None:
            probe = _Shadow(ids[0], 0, self.split)
            with self._lock:
                self._cache[key] = probe
        board = _Shadow.__new__(_Shadow)
        board.env, board.next = probe.env, move
        return board

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        """The chat completion for one request body."""
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        hint = (body.get("metadata") or {}).get("agentgym_episode")
        shadow = self._hinted(str(hint), messages) if hint else None
        if shadow is None:
            # tic-tac-toe from the position: the opponent may be another model
            shadow = self._board(messages) or self._shadow(messages)
        action = shadow.next if shadow is not None else ""
        tools = body.get("tools") or []
        message: dict[str, Any] = {"role": "assistant", "content": f"Action: {action}"}
        if shadow is not None and not action:
            message["content"] = "The task is done."
        elif shadow is not None and tools:
            call = _as_tool_call(shadow.env, action, tools)
            if call is not None:
                message = {"role": "assistant", "content": None, "tool_calls": [call]}
        elif shadow is not None:
            from agentgym_envs.wrappers.react import format_react

            message["content"] = format_react("The expert's move.", action)
        self.requests += 1
        return self._payload(messages, message)

    def _payload(self, messages: list[dict[str, Any]], message: dict[str, Any]) -> dict[str, Any]:
        """The chat completion carrying ``message`` (usage: whitespace token counts)."""
        prompt = sum(len(_text(m).split()) for m in messages)
        completion = len(json.dumps(message).split())
        return {
            "id": f"chatcmpl-expert-{self.requests}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": MODEL,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }

    def _answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """:meth:`complete` on the worker thread; a stateless server first drops the replays
        of the requests before."""
        if not self.cache:
            self._close_all()
        return self.complete(body)

    # -- serving ---------------------------------------------------------------------------------
    def start(self) -> ExpertChatServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, fmt: str, *args: Any) -> None:
                logger.debug(fmt, *args)

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": MODEL, "object": "model"}]})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                try:
                    length = int(self.headers.get("Content-Length") or 0)
                    body = json.loads(self.rfile.read(length) or b"{}")
                    reply = server._worker.submit(server._answer, body).result()
                    if isinstance(body, dict) and body.get("stream"):
                        send_stream(self, reply)
                    else:
                        self._send(200, reply)
                except Exception as exc:
                    logger.exception("expert server failed")
                    self._send(400, {"error": {"message": f"{type(exc).__name__}: {exc}"}})

        self._httpd = ThreadingHTTPServer((self.host, self.port), Handler)
        self.port = self._httpd.server_address[1]
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        self._worker.submit(self._close_all).result()
        self._worker.shutdown(wait=True)
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="expert-server")

    def _close_all(self) -> None:
        for shadow in self._cache.values():
            try:
                shadow.env.close()
            except Exception:
                logger.debug("closing %s failed", shadow.env_id, exc_info=True)
        self._cache.clear()

    def __enter__(self) -> ExpertChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def send_stream(handler: BaseHTTPRequestHandler, payload: dict[str, Any]) -> None:
    """Answer an ``http.server`` request with the chat completion ``payload`` as a server-sent
    event stream (:func:`~agentgym_envs.integrations.sse.completion_chunks`)."""
    from agentgym_envs.integrations.sse import DONE, completion_chunks, event

    data = b"".join(map(event, completion_chunks(payload))) + DONE
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


_SENTINEL = "QZXJQ"


def _template_candidates(base: Any, name: str, prop: str, action: str) -> list[str]:
    """Values of the one string argument ``prop`` that could make ``action``: the action text
    is ``prefix + value + suffix`` for the tool's own template (found with a sentinel)."""
    out = [action, action.replace(" ", "")]
    try:
        template = base.action_from_tool_call(name, {prop: _SENTINEL})
    except (ValueError, KeyError, TypeError):
        return out
    if template.count(_SENTINEL) != 1:
        return out
    prefix, suffix = template.split(_SENTINEL)
    if not action.endswith(suffix):
        return out
    head = action[: len(action) - len(suffix)] if suffix else action
    at = head.rfind(prefix) if prefix else 0
    if at >= 0:
        out.insert(0, head[at + len(prefix) :])
    return out


def _is_action_line(text: str, action: str) -> bool:
    """``text`` is ``action`` or its last part after a thought (a new line, ``Action:`` or a
    ``<think>`` block before it)."""
    if text == action:
        return True
    if not text or not action.endswith(text):
        return False
    head = action[: len(action) - len(text)]
    return (
        not head.strip() or head.endswith("\n") or head.rstrip().endswith(("Action:", "</think>"))
    )


class _Sentinels:
    """Stand-in argument values whose text is unique, and the regex group that reads each back
    from the action the env makes of them."""

    def __init__(self) -> None:
        self.groups: list[tuple[str, str, Any]] = []  # (text in the action, type, value)

    def value(self, schema: dict[str, Any], items: int) -> Any:
        kind = schema.get("type", "string")
        n = len(self.groups)
        if kind == "integer":
            v: Any = 900001 + n
        elif kind == "number":
            v = 900001.5 + n
        elif kind == "string":
            v = f"{_SENTINEL}{n}X"
        elif kind == "object":
            props = schema.get("properties") or {}
            return {p: self.value(s, items) for p, s in props.items()}
        elif kind == "array":
            return [self.value(schema.get("items") or {}, items) for _ in range(items)]
        else:  # booleans, enums without a type: not read back
            raise ValueError(kind)
        self.groups.append((str(v), kind, v))
        return v

    def read(self, template: str, action: str, args: Any) -> Any | None:
        """``args`` with each sentinel replaced by what stands in its place in ``action``."""
        pattern = re.escape(template)
        for text, kind, _ in self.groups:
            if template.count(text) != 1:
                return None
            group = (
                r"(-?\d+)"
                if kind == "integer"
                else r"(-?\d+(?:\.\d+)?)"
                if kind == "number"
                else r"(.+?)"
            )
            pattern = pattern.replace(re.escape(text), group)
        found = re.search(pattern + r"\s*$", action)
        if found is None:
            return None
        by_text = {
            text: {"integer": int, "number": float}.get(kind, str)(found.group(i + 1))
            for i, (text, kind, _) in enumerate(
                sorted(self.groups, key=lambda g: template.index(g[0]))
            )
        }

        def fill(value: Any) -> Any:
            if isinstance(value, dict):
                return {k: fill(v) for k, v in value.items()}
            if isinstance(value, list):
                return [fill(v) for v in value]
            return by_text.get(str(value), value)

        return fill(args)


def _fitted_calls(base: Any, name: str, parameters: dict[str, Any], action: str):
    """Arguments of tool ``name`` that make ``action``, read off the env's own template for
    the call (sentinel arguments in, their places in the text out)."""
    props = parameters.get("properties") or {}
    required = parameters.get("required") or list(props)
    # the most array items first: fewer would fit too, with entries run together
    sizes = range(8, 0, -1) if '"array"' in json.dumps(parameters) else (1,)
    for keep in (list(props), [p for p in props if p in required]):
        for items in sizes:
            sentinels = _Sentinels()
            try:
                args = {p: sentinels.value(props[p], items) for p in keep}
                template = base.action_from_tool_call(name, dict(args))
            except (ValueError, KeyError, TypeError):
                break
            fitted = sentinels.read(template, action, args)
            if fitted is not None:
                yield fitted


def _as_tool_call(env: gym.Env, action: str, tools: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A call of one of ``tools`` that the env turns into ``action`` (``None`` if none found)."""
    base = env.unwrapped
    # read off the env's own templates: the action need only end with one, and the longest
    # wins ("toggle and go through X" also ends with "go through X")
    fits: list[tuple[int, str, dict[str, Any]]] = []
    for tool in tools:
        fn = tool.get("function", tool)
        for args in _fitted_calls(base, fn.get("name"), fn.get("parameters") or {}, action):
            made = base.action_from_tool_call(fn["name"], dict(args))
            if action.rstrip().endswith(made):
                fits.append((len(made), fn["name"], args))
                break
    if fits:
        _, name, args = max(fits, key=lambda fit: fit[0])
        return _call(name, action, args)
    candidates: list[tuple[str, dict[str, Any]]] = []
    for tool in tools:
        fn = tool.get("function", tool)
        name = fn.get("name")
        props = (fn.get("parameters") or {}).get("properties") or {}
        if not props:
            candidates.append((name, {}))
            continue
        marker = f"{name} with Action Input:"
        if marker in action:  # tool families: "<name> with Action Input: {...}"
            try:
                rest = action[action.index(marker) + len(marker) :].strip()
                args, _ = json.JSONDecoder().raw_decode(rest)
                if isinstance(args, dict):
                    candidates.append((name, args))
            except ValueError:
                pass
        strings = [p for p, s in props.items() if s.get("type", "string") == "string"]
        if len(strings) == 1 and len(props) == 1:
            for value in _template_candidates(base, name, strings[0], action):
                candidates.append((name, {strings[0]: value}))
        elif strings:
            words = action.split(" ")
            for cut in range(len(words)):
                candidates.append((name, {strings[0]: " ".join(words[cut:])}))
    for name, args in candidates:
        try:
            text = base.action_from_tool_call(name, dict(args))
        except (ValueError, KeyError, TypeError):
            continue
        line = text if text.startswith("Action:") else f"Action: {text}"
        if _is_action_line(text, action) or action.rstrip().endswith(line):
            return _call(name, action, args)
    return None


def _call(name: str, action: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": f"call_{abs(hash((name, action))) % 10**8}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


__all__ = ["MODEL", "ExpertChatServer", "send_stream"]
