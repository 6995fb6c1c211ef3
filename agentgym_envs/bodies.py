"""Bounded request bodies: a byte cap checked before reading, and a JSON nesting limit.

Every HTTP surface that reads a client's body (``agentgym serve``, the agent server, the
recording gateway, the OpenEnv and ORS hubs) reads it through :func:`read_capped` and parses it
with :func:`parse_json`:

* a body whose ``Content-Length`` is over the cap is refused (413) before a byte of it is
  read, and a chunked body is refused as soon as the bytes read pass the cap -- the rest is
  never read, so a 64 MB or endless body costs at most the cap;
* a body nested deeper than the depth limit is refused (400) before ``json.loads`` (which
  recurses, so a 100k-deep body would otherwise end in a ``RecursionError`` and a 500).

Both raise :class:`BodyRefused`, whose ``status`` is the HTTP status to answer with and whose
message says the limit; the caller answers in its own error shape, and with
``Connection: close`` after a 413 (the unread rest of the body must not be taken for the next
request).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, Awaitable, Callable, Mapping
from typing import Any

#: Deepest ``[``/``{`` nesting accepted by default (real requests nest a handful of levels).
MAX_JSON_DEPTH = 64
#: Largest body read by default (bytes).
MAX_BODY_BYTES = 8 << 20


class BodyRefused(Exception):
    """A request body refused before it is parsed; ``status`` is 413 (too big) or 400."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class NotJSON(BodyRefused):
    """A body that does not parse as JSON (400)."""


def declared_size(headers: Mapping[str, str], limit: int) -> int | None:
    """The body's ``Content-Length`` (``None`` when not given).

    Raises:
        BodyRefused: 413 when it is over ``limit``, 400 when it is not a number.
    """
    value = headers.get("content-length")
    if value is None:
        return None
    if not value.strip().isdigit():
        raise BodyRefused(f"bad Content-Length {value[:40]!r}: send the body's size in bytes")
    size = int(value)
    if size > limit:
        raise BodyRefused(
            f"request body of {size} bytes is over the limit of {limit} bytes: send a smaller one",
            413,
        )
    return size


async def read_capped(
    chunks: AsyncIterable[bytes], limit: int, headers: Mapping[str, str] | None = None
) -> bytes:
    """The body from ``chunks``, at most ``limit`` bytes: ``headers``' ``Content-Length`` is
    checked first, then the bytes as they arrive (a chunked body has no length).

    Raises:
        BodyRefused: 413 past ``limit`` (the rest is left unread).
    """
    if headers is not None:
        declared_size(headers, limit)
    parts: list[bytes] = []
    size = 0
    async for chunk in chunks:
        size += len(chunk)
        if size > limit:
            raise BodyRefused(f"request body over {limit} bytes: send a smaller one", 413)
        parts.append(chunk)
    return b"".join(parts)


async def asgi_chunks(receive: Callable[[], Awaitable[dict[str, Any]]]) -> Any:
    """The body chunks of a raw ASGI request (for :func:`read_capped`).

    Raises:
        BodyRefused: when the client disconnects before the body ends.
    """
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise BodyRefused("client disconnected")
        yield message.get("body", b"")
        if not message.get("more_body", False):
            return


def asgi_headers(scope: Mapping[str, Any]) -> dict[str, str]:
    """A raw ASGI request's headers as a lower-case ``{name: value}`` dict."""
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


def json_depth(raw: bytes, limit: int = MAX_JSON_DEPTH) -> int:
    """Deepest ``[``/``{`` nesting of a JSON text (brackets inside strings not counted);
    stops counting once past ``limit``."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def check_depth(raw: bytes | str, limit: int = MAX_JSON_DEPTH) -> None:
    """Raise :class:`BodyRefused` (400) when ``raw`` nests deeper than ``limit``."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if data.count(b"[") + data.count(b"{") > limit and json_depth(data, limit) > limit:
        raise BodyRefused(f"JSON nested deeper than {limit} levels: send a flatter one")


def parse_json(raw: bytes | str, max_depth: int = MAX_JSON_DEPTH, empty: Any = None) -> Any:
    """``raw`` parsed as JSON, after the depth check (``empty`` for a blank body).

    Raises:
        BodyRefused: 400 for a body nested deeper than ``max_depth`` or not JSON.
    """
    if not raw.strip():
        return empty
    check_depth(raw, max_depth)
    try:
        return json.loads(raw)
    except RecursionError:  # pragma: no cover - the depth check comes first
        raise BodyRefused("JSON nested too deep to read") from None
    except ValueError as exc:
        raise NotJSON(f"the body is not JSON ({exc})") from None


async def request_json(
    request: Any,
    *,
    limit: int = MAX_BODY_BYTES,
    max_depth: int = MAX_JSON_DEPTH,
    empty: Any = None,
) -> Any:
    """A Starlette request's JSON body through :func:`read_capped` and :func:`parse_json`."""
    raw = await read_capped(request.stream(), limit, request.headers)
    return parse_json(raw, max_depth, empty)


class BodyGuard:
    """ASGI middleware putting these limits in front of an app we do not own (a hub's server;
    ``app.add_middleware(BodyGuard, ...)`` on a Starlette app).

    HTTP: the body is read through :func:`read_capped` and its depth checked before the app
    sees it (the app then gets the bytes it would have read); a refusal is answered with
    ``http_error(message)`` as JSON and the refusal's status. WebSocket: each frame the client
    sends must be a JSON object within the depth limit -- any other frame (binary, a list, a
    number, a string, not JSON, too deep) is answered with ``ws_error(message)`` and dropped,
    and the session goes on.

    Args:
        app: the ASGI app.
        limit: largest HTTP body (bytes).
        max_depth: deepest JSON nesting, HTTP and WebSocket.
        http_error: the app's error body for a message.
        ws_error: the app's error frame for a message (``None``: frames are not checked).
    """

    def __init__(
        self,
        app: Any,
        *,
        limit: int = MAX_BODY_BYTES,
        max_depth: int = MAX_JSON_DEPTH,
        http_error: Callable[[str], Any] = lambda message: {"detail": message},
        ws_error: Callable[[str], Any] | None = None,
    ) -> None:
        self.app, self.limit, self.max_depth = app, limit, max_depth
        self.http_error, self.ws_error = http_error, ws_error

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope.get("method") in ("POST", "PUT", "PATCH"):
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket" and self.ws_error is not None:
            await self.app(scope, self._frames(receive, send), send)
        else:
            await self.app(scope, receive, send)

    async def _http(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            raw = await read_capped(asgi_chunks(receive), self.limit, asgi_headers(scope))
            if raw.strip():
                check_depth(raw, self.max_depth)
        except BodyRefused as exc:
            payload = json.dumps(self.http_error(str(exc))).encode()
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
            ]
            if exc.status == 413:  # the rest of the body is not read: the connection ends
                headers.append((b"connection", b"close"))
            await send({"type": "http.response.start", "status": exc.status, "headers": headers})
            await send({"type": "http.response.body", "body": payload})
            return
        sent = False

        async def replay() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": raw, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _frames(self, receive: Any, send: Any) -> Any:
        async def checked() -> dict[str, Any]:
            while True:
                message = await receive()
                if message["type"] != "websocket.receive":
                    return message
                problem = self._frame_problem(message)
                if problem is None:
                    return message
                assert self.ws_error is not None
                await send({"type": "websocket.send", "text": json.dumps(self.ws_error(problem))})

        return checked

    def _frame_problem(self, message: dict[str, Any]) -> str | None:
        text = message.get("text")
        if text is None:
            return "binary frames are not read: send each message as a JSON object in a text frame"
        try:
            data = parse_json(text, self.max_depth)
        except BodyRefused as exc:
            return str(exc)
        if not isinstance(data, dict):
            return (
                f"a message must be a JSON object with a type, got {type(data).__name__}: "
                'send {"type": ..., "data": {...}}'
            )
        return None


__all__ = [
    "MAX_BODY_BYTES",
    "MAX_JSON_DEPTH",
    "BodyGuard",
    "BodyRefused",
    "NotJSON",
    "asgi_chunks",
    "asgi_headers",
    "check_depth",
    "declared_size",
    "json_depth",
    "parse_json",
    "read_capped",
    "request_json",
]
