"""A small client for OpenAI-compatible chat endpoints (vLLM, Ollama, TensorZero, llama.cpp).

Timeouts on every request; transient failures (timeouts, dropped connections, HTTP 408 / 409 /
429 / 5xx) are retried with exponential backoff and jitter (``Retry-After`` honoured); an
endpoint that cannot be reached at all is one :class:`EndpointUnreachableError` line that says
what to do. A prompt longer than the model's context is a :class:`ContextLengthError`, which
the runner treats like AgentGym's ``max_length`` stop (the episode ends, truncated).

Replies are read in chunks up to ``max_reply_bytes`` (an endless body is cut there) and parsed
after a JSON depth check. With ``total_timeout`` (or inside :func:`call_deadline`) a call has a
hard wall-clock deadline over all its attempts: a watchdog shuts the connection's socket when it
passes, so an endpoint that trickles a byte at a time cannot hold the caller past it
(:class:`CallDeadlineError`); such clients open a connection per request (the watchdog needs its
socket).
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import socket
import threading
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from agentgym_envs.errors import AgentGymError, require

logger = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_TRANSIENT_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
_CONTEXT_WORDS = ("context", "too long", "maximum length", "max_tokens", "exceed")
#: Largest model reply read by default (bytes).
MAX_REPLY_BYTES = 16 << 20
#: Deepest JSON nesting accepted in a model reply.
MAX_REPLY_DEPTH = 128
_deadline: ContextVar[float | None] = ContextVar("agentgym_call_deadline", default=None)


class EndpointError(AgentGymError):
    """The model endpoint answered with an error that retrying will not fix."""


class EndpointUnreachableError(EndpointError):
    """Nothing answers at the endpoint's address."""


class ContextLengthError(EndpointError):
    """The conversation no longer fits the model's context window."""


class CallDeadlineError(EndpointError):
    """A call ran past its wall-clock deadline (``total_timeout`` or :func:`call_deadline`)."""


@contextlib.contextmanager
def call_deadline(at: float | None) -> Iterator[None]:
    """Every :class:`ChatClient` call made inside (in this thread) ends by ``at``
    (``time.monotonic()``; ``None``: no deadline) or raises :class:`CallDeadlineError`."""
    token = _deadline.set(at)
    try:
        yield
    finally:
        _deadline.reset(token)


@dataclass
class _Reply:
    """A reply read whole (within its caps)."""

    status_code: int
    headers: Any
    content: bytes

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self) -> Any:
        from agentgym_envs.bodies import BodyRefused, parse_json

        try:
            return parse_json(self.content, MAX_REPLY_DEPTH)
        except BodyRefused as exc:
            raise ValueError(str(exc)) from None


class _Watchdog:
    """Shuts the sockets a request opened once its deadline passes (from a timer thread)."""

    def __init__(self, seconds: float) -> None:
        self.fired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(max(0.0, seconds), self._fire)
        self._timer.daemon = True

    def trace(self, event: str, info: dict[str, Any]) -> None:
        if event == "connection.connect_tcp.complete":
            stream = info.get("return_value")
            sock = stream.get_extra_info("socket") if stream is not None else None
            if sock is not None:
                with self._lock:
                    self._sockets.append(sock)
                    if self.fired:
                        self._shut(sock)

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            for sock in self._sockets:
                self._shut(sock)

    @staticmethod
    def _shut(sock: socket.socket) -> None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> _Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()


@dataclass
class ChatReply:
    """One completion: the assistant ``message`` (``content`` and/or ``tool_calls``)."""

    message: dict[str, Any]
    finish_reason: str | None = None
    usage: dict[str, int] = field(default_factory=dict)

    @property
    def content(self) -> str:
        return self.message.get("content") or ""

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        return list(self.message.get("tool_calls") or [])


@dataclass
class Sampling:
    """Sampling parameters; the defaults are AgentGym's evaluation setting (greedy)."""

    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 512
    seed: int | None = None
    stop: list[str] | None = None

    def as_params(self) -> dict[str, Any]:
        params: dict[str, Any] = {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
        }
        if self.seed is not None:
            params["seed"] = self.seed
        if self.stop:
            params["stop"] = list(self.stop)
        return params


class ChatClient:
    """``POST {base_url}/chat/completions`` with timeouts, retries and clear errors.

    ``base_url`` defaults to ``$OPENAI_BASE_URL`` (or ``$OPENAI_API_BASE``), else OpenAI's;
    ``api_key`` to ``$OPENAI_API_KEY``; ``model`` to ``$OPENAI_MODEL``, else the first model
    the endpoint lists (convenient for single-model servers: llama.cpp, vLLM). Thread-safe:
    one client serves every concurrent episode.
    """

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 120.0,
        connect_timeout: float = 5.0,
        max_retries: int = 4,
        backoff: float = 1.0,
        max_backoff: float = 30.0,
        sampling: Sampling | None = None,
        total_timeout: float | None = None,
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        httpx = require("httpx", "bench")
        base = (
            base_url
            or os.environ.get("OPENAI_BASE_URL")
            or os.environ.get("OPENAI_API_BASE")
            or DEFAULT_BASE_URL
        )
        self.base_url = base.rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self._model = model or os.environ.get("OPENAI_MODEL") or None
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.sampling = sampling or Sampling()
        self.total_timeout = total_timeout
        self.max_reply_bytes = max_reply_bytes
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        self._httpx = httpx
        self._client = httpx.Client(
            base_url=self.base_url,
            headers=headers,
            timeout=httpx.Timeout(timeout, connect=connect_timeout),
            # a hard deadline needs each request's own socket (see _Watchdog)
            limits=httpx.Limits(max_keepalive_connections=0 if total_timeout else 20),
        )
        self._lock = threading.Lock()
        self.calls = 0
        self.retries = 0

    # -- public -----------------------------------------------------------------------
    @property
    def model(self) -> str:
        """The model name sent with each request (asked of the endpoint if not given)."""
        if self._model is None:
            with self._lock:
                if self._model is None:
                    models = self.models()
                    if not models:
                        raise EndpointError(f"{self.base_url} lists no models: pass --model")
                    self._model = models[0]
        return self._model

    def models(self) -> list[str]:
        """Model ids the endpoint lists (``GET /models``)."""
        data = self._request("GET", "/models")
        return [m["id"] for m in data.get("data", []) if isinstance(m, dict) and "id" in m]

    def check(self) -> str:
        """Fail early and clearly if the endpoint is down; return the model name."""
        models = self.models()
        if self._model is None:
            if not models:
                raise EndpointError(f"{self.base_url} lists no models: pass --model")
            self._model = models[0]
        return self._model

    def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        sampling: Sampling | None = None,
        extra: dict[str, Any] | None = None,
    ) -> ChatReply:
        """One chat completion for ``messages`` (and ``tools``, for native tool calls);
        ``extra`` adds fields to the request body (``tool_choice``, ``metadata``...)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            **(sampling or self.sampling).as_params(),
        }
        if tools:
            body["tools"] = tools
            body["tool_choice"] = "auto"
        body.update(extra or {})
        data = self._request("POST", "/chat/completions", json=body)
        try:
            choice = data["choices"][0]
            message = dict(choice["message"])
        except (KeyError, IndexError, TypeError):
            raise EndpointError(f"{self.base_url} returned no choices: {str(data)[:200]}") from None
        usage = {k: int(v) for k, v in (data.get("usage") or {}).items() if isinstance(v, int)}
        return ChatReply(message, choice.get("finish_reason"), usage)

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals --------------------------------------------------------------------
    def _sleep(
        self, attempt: int, retry_after: str | None = None, deadline: float | None = None
    ) -> None:
        delay = min(self.max_backoff, self.backoff * 2**attempt) * (0.5 + random.random() / 2)
        if retry_after:
            try:
                delay = min(self.max_backoff, max(delay, float(retry_after)))
            except ValueError:
                pass
        if deadline is not None:
            delay = max(0.0, min(delay, deadline - time.monotonic()))
        time.sleep(delay)

    def _deadline(self) -> float | None:
        """When the current call must end (``None``: no deadline)."""
        at = _deadline.get()
        if self.total_timeout is not None:
            own = time.monotonic() + self.total_timeout
            at = own if at is None else min(at, own)
        return at

    def _send(self, method: str, path: str, deadline: float | None, **kwargs: Any) -> _Reply:
        """One request, its reply read within :attr:`max_reply_bytes` and ``deadline``."""
        if deadline is None:
            return self._read(method, path, None, **kwargs)
        left = deadline - time.monotonic()
        if left <= 0:
            raise CallDeadlineError(f"{self.base_url}{path}: the call's deadline passed")
        with _Watchdog(left) as watchdog:
            try:
                return self._read(method, path, watchdog, **kwargs)
            except self._httpx.HTTPError:
                if watchdog.fired:
                    raise CallDeadlineError(
                        f"{self.base_url}{path} did not answer within the call's deadline"
                    ) from None
                raise

    def _read(self, method: str, path: str, watchdog: _Watchdog | None, **kwargs: Any) -> _Reply:
        extensions = {"trace": watchdog.trace} if watchdog is not None else None
        with self._client.stream(method, path, extensions=extensions, **kwargs) as response:
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > self.max_reply_bytes:
                raise EndpointError(
                    f"{self.base_url}{path} sent a {declared}-byte reply, over the "
                    f"{self.max_reply_bytes}-byte limit"
                )
            parts, size = [], 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > self.max_reply_bytes:
                    raise EndpointError(
                        f"{self.base_url}{path} sent a reply over the {self.max_reply_bytes}-"
                        "byte limit (cut there)"
                    )
                if watchdog is not None and watchdog.fired:
                    break
                parts.append(chunk)
            if watchdog is not None and watchdog.fired:  # the body was cut, not ended
                raise CallDeadlineError(
                    f"{self.base_url}{path} did not answer within the call's deadline"
                )
            return _Reply(response.status_code, response.headers, b"".join(parts))

    def _request(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        httpx = self._httpx
        last: str = ""
        deadline = self._deadline()
        for attempt in range(self.max_retries + 1):
            if attempt:
                self.retries += 1
            try:
                response = self._send(method, path, deadline, **kwargs)
            except httpx.ConnectError as exc:
                last = f"connection failed ({exc})"
                if attempt < min(self.max_retries, 2):  # a server that is starting gets a moment
                    self._sleep(attempt, deadline=deadline)
                    continue
                raise EndpointUnreachableError(
                    f"cannot reach the model endpoint {self.base_url} ({str(exc) or 'connection refused'}): "
                    "start the server (e.g. agentgym llm serve) or pass the right --base-url"
                ) from None
            except (
                httpx.TimeoutException,
                httpx.RemoteProtocolError,
                httpx.ReadError,
                httpx.WriteError,
            ) as exc:
                last = f"{type(exc).__name__}: {exc}"
                logger.warning(
                    "model endpoint %s: %s (attempt %d/%d)",
                    self.base_url,
                    last,
                    attempt + 1,
                    self.max_retries + 1,
                )
                if attempt < self.max_retries:
                    self._sleep(attempt, deadline=deadline)
                    continue
                break
            self.calls += 1
            if response.status_code in _TRANSIENT_STATUS:
                last = f"HTTP {response.status_code}: {response.text[:200]}"
                logger.warning(
                    "model endpoint %s: %s (attempt %d/%d)",
                    self.base_url,
                    last,
                    attempt + 1,
                    self.max_retries + 1,
                )
                if attempt < self.max_retries:
                    self._sleep(attempt, response.headers.get("retry-after"), deadline)
                    continue
                break
            if response.status_code >= 400:
                text = response.text[:300].replace("\n", " ")
                if response.status_code == 400 and any(w in text.lower() for w in _CONTEXT_WORDS):
                    raise ContextLengthError(
                        f"{self.base_url}: the conversation exceeds the model's context ({text})"
                    )
                if response.status_code in (401, 403):
                    raise EndpointError(
                        f"{self.base_url} refused the request (HTTP {response.status_code}): check --api-key / $OPENAI_API_KEY"
                    )
                if response.status_code == 404:
                    raise EndpointError(
                        f"{self.base_url}{path} not found (HTTP 404): is --base-url the /v1 root of an OpenAI-compatible server, and --model right? ({text})"
                    )
                raise EndpointError(
                    f"{self.base_url}{path} failed (HTTP {response.status_code}): {text}"
                )
            try:
                return response.json()
            except ValueError:
                raise EndpointError(
                    f"{self.base_url}{path} did not return JSON: {response.text[:200]!r}"
                ) from None
        raise EndpointError(
            f"the model endpoint {self.base_url} kept failing after {self.max_retries + 1} attempts (last: {last})"
        )


__all__ = [
    "MAX_REPLY_BYTES",
    "CallDeadlineError",
    "ChatClient",
    "ChatReply",
    "ContextLengthError",
    "EndpointError",
    "EndpointUnreachableError",
    "Sampling",
    "call_deadline",
]
