"""The one place that knows which ``mcp`` SDK is installed: 1.x (``mcp>=1.30``) or 2.x.

What differs for an MCP server built on the low-level ``Server``:

- 1.x registers handlers with decorators (``@server.list_tools()``, ``@server.call_tool()``),
  reads the calling request from the ``server.request_context`` context variable, and keeps one
  ``ServerSession`` per connection; its ``call_tool`` decorator validates arguments against the
  tool's schema.
- 2.x takes handlers in the constructor (``on_list_tools(ctx, params)``,
  ``on_call_tool(ctx, params)``) that receive the context, returns ``ListToolsResult`` rather
  than a list, builds a new ``ServerSession`` per *request* (the connection is its
  ``Connection``), validates nothing, and answers ``server/discover``: a 2.x client then speaks
  the session-less 2026-07-28 protocol, in which each request is a connection of its own.

:func:`lowlevel_server` hides all of it: handlers get a :class:`Call` (the HTTP request and an
object standing for the client's connection), and on 2.x the server answers ``server/discover``
with "method not found" over HTTP and serves stdio in the handshake era only
(:func:`run_handshake_era`), so a 2.x client falls back to the handshake and one connection
keeps one episode (an HTTP client that insists on the 2026-07-28 protocol names its episode
with ``?session=``). Argument validation is the caller's (:func:`check_arguments`), the same on
both.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Call:
    """Who is calling: the HTTP request (``None`` over stdio) and the client's connection
    (weak-referenceable; the same object for every request of one connection)."""

    request: Any
    connection: Any


ListTools = Callable[[Call], Awaitable[list[Any]]]
CallTool = Callable[[Call, str, dict[str, Any]], Awaitable[Any]]


def is_legacy() -> bool:
    """Whether the installed SDK is 1.x (decorator-registered handlers)."""
    from mcp.server.lowlevel import Server

    return hasattr(Server, "call_tool")


def lowlevel_server(name: str, list_tools: ListTools, call_tool: CallTool) -> Any:
    """The SDK's low-level ``Server`` named ``name`` whose ``tools/list`` returns
    ``await list_tools(call)`` (a list of ``mcp.types.Tool``) and whose ``tools/call`` returns
    ``await call_tool(call, name, arguments)`` (an ``mcp.types.CallToolResult``)."""
    from mcp import types
    from mcp.server.lowlevel import Server

    if is_legacy():
        server = Server(name)

        def current() -> Call:
            ctx = server.request_context
            return Call(getattr(ctx, "request", None), ctx.session)

        async def legacy_list_tools() -> list[Any]:
            return await list_tools(current())

        async def legacy_call_tool(tool: str, arguments: dict[str, Any]) -> Any:
            return await call_tool(current(), tool, dict(arguments or {}))

        server.list_tools()(legacy_list_tools)
        server.call_tool(validate_input=False)(legacy_call_tool)
        return server

    def of(ctx: Any) -> Call:
        # 2.x: a ServerSession per request, over the connection's Connection
        connection = getattr(ctx.session, "_connection", None) or ctx.session
        return Call(ctx.request, connection)

    async def on_list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=await list_tools(of(ctx)))

    async def on_call_tool(ctx: Any, params: Any) -> Any:
        return await call_tool(of(ctx), params.name, dict(params.arguments or {}))

    async def no_discover(ctx: Any, params: Any) -> Any:
        from mcp.shared.exceptions import MCPError

        # method not found: the client falls back to the initialize handshake (sessions)
        raise MCPError(-32601, "server/discover is not offered: use the initialize handshake")

    server = Server(name, on_list_tools=on_list_tools, on_call_tool=on_call_tool)
    server.add_request_handler("server/discover", types.RequestParams, no_discover)
    return server


async def run_handshake_era(server: Any, read: Any, write: Any) -> None:
    """Serve one connection over the stream pair ``read``/``write`` (stdio's) in the handshake
    era until the client closes it. 2.x's ``Server.run`` lets the client's first request pick
    the era, and a 2.x client's ``server/discover`` probe would pick the session-less one."""
    if is_legacy():
        await server.run(read, write, server.create_initialization_options())
        return
    from mcp.server.runner import serve_loop

    async with server.lifespan(server) as state:
        await serve_loop(
            server,
            read,
            write,
            lifespan_state=state,
            init_options=server.create_initialization_options(),
        )


def http_session_manager(server: Any, *, idle_timeout: float, max_sessions: int) -> Any:
    """The SDK's stateful streamable-HTTP session manager for ``server``: connections idle for
    ``idle_timeout`` seconds closed, at most ``max_sessions`` at once (refused with 503 past
    it). ``mcp`` 2.0 has no such cap (1.30 and 2.3 do): there it is left out, with a warning."""
    import inspect

    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    quiet_teardown()
    options: dict[str, Any] = {"stateless": False, "session_idle_timeout": idle_timeout}
    if "max_sessions" in inspect.signature(StreamableHTTPSessionManager).parameters:
        options["max_sessions"] = max_sessions
    else:
        logger.warning(
            "this mcp SDK does not cap MCP connections (at most %d wanted): upgrade mcp for the "
            "cap",
            max_sessions,
        )
    return StreamableHTTPSessionManager(app=server, **options)


class _TeardownNoise:
    """A logging filter dropping 1.x's "Error in standalone SSE writer" when the error is
    ``anyio.ClosedResourceError``: 1.x's streamable-HTTP transport logs it (with a traceback)
    whenever a client ends its session cleanly (``DELETE``) while its ``GET`` stream is open,
    because ``terminate()`` closes the stream the writer reads; 2.x catches that error and
    passes. Anything else the writer logs still shows."""

    def filter(self, record: logging.LogRecord) -> bool:
        import anyio

        error = record.exc_info[0] if record.exc_info else None
        teardown = error is not None and issubclass(error, anyio.ClosedResourceError)
        return not (teardown and record.getMessage() == "Error in standalone SSE writer")


def quiet_teardown() -> None:
    """Install :class:`_TeardownNoise` on the SDK's streamable-HTTP logger (once; 1.x only)."""
    if not is_legacy():
        return
    sdk = logging.getLogger("mcp.server.streamable_http")
    if not any(isinstance(f, _TeardownNoise) for f in sdk.filters):
        sdk.addFilter(_TeardownNoise())


def check_arguments(arguments: dict[str, Any], schema: dict[str, Any]) -> str | None:
    """What is wrong with ``arguments`` for a tool whose input schema is ``schema`` (``None``:
    nothing), worded as the 1.x SDK's own check."""
    import jsonschema

    try:
        jsonschema.validate(instance=arguments, schema=schema)
    except jsonschema.ValidationError as exc:
        return f"Input validation error: {exc.message}"
    return None


__all__ = [
    "Call",
    "check_arguments",
    "http_session_manager",
    "is_legacy",
    "lowlevel_server",
    "quiet_teardown",
    "run_handshake_era",
]
